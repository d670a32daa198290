// Func's scheduling calls: where the Func is computed and stored, its
// storage layout, and (forwarded to Stage) the loops of its pure definition.

#include <algorithm>

#include "ir/Function.h"
#include "ir/IRPrinter.h"
#include "ir/IREquality.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "lang/Backend.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/IROperator.h"

namespace loom {

namespace {

using internal::FunctionContents;

std::string pure_var_list(const FunctionContents &f) {
    std::string s;
    for (const std::string &a : f.args) s += (s.empty() ? "" : ", ") + a;
    return s;
}

/** \throws CompileError unless var is a pure argument of f. */
void require_pure_var(const FunctionContents &f, const std::string &var, const std::string &action) {
    if (std::find(f.args.begin(), f.args.end(), var) != f.args.end()) return;
    throw CompileError("Can't " + action + " Var " + var + " of Func " + f.name + ": " + var +
                       " is not one of its pure Vars (" + pure_var_list(f) + ")." +
                       (f.defined() ? "" : " Define the Func before scheduling it."));
}

Expr integer_expr(const std::string &context, const Expr &e, const char *what) {
    if (!e.defined()) throw CompileError(context + ": the " + what + " is undefined.");
    if (!e.type().is_int_or_uint() || e.type().is_vector()) {
        throw CompileError(context + ": the " + what + " has type " + e.type().to_string() +
                           "; it must be an integer.");
    }
    return e.type() == Int(32) ? e : cast(Int(32), e);
}

void add_bound(FunctionContents &f, const Var &var, const Expr &min, const Expr &extent) {
    require_pure_var(f, var.name(), "bound");
    internal::Bound b{var.name(), min, extent};
    for (internal::Bound &existing : f.schedule.bounds) {
        if (existing.var == var.name()) {
            existing = b;
            internal::mark_changed(f);
            return;
        }
    }
    f.schedule.bounds.push_back(b);
    internal::mark_changed(f);
}

/** A LoopLevel for compute_at/store_at of f. \throws CompileError for a
 * loop of f itself. */
internal::LoopLevel placement(const FunctionContents &f, const LoopLevel &level, const char *directive) {
    if (!level.defined()) {
        throw CompileError("Func " + f.name + " can't be " + directive + " an undefined LoopLevel (LoopLevel() is "
                           "undefined, as in Halide): use LoopLevel::inlined(), LoopLevel::root() or "
                           "LoopLevel(g, x).");
    }
    if (!level.is_inlined() && !level.is_root() && level.func() == f.name) {
        throw CompileError("Func " + f.name + " can't be " + directive + " " + level.to_string() +
                           ", a loop of its own: a Func is computed and stored outside its own loops. Use a loop "
                           "of one of its consumers.");
    }
    return level.to_internal();
}

}  // namespace

// ---- Placement --------------------------------------------------------------

Func &Func::compute_root() { return compute_at(LoopLevel::root()); }

Func &Func::compute_at(const Func &f, const Var &var) { return compute_at(LoopLevel(f, var)); }

Func &Func::compute_at(const Func &f, const RVar &var) { return compute_at(LoopLevel(f, var)); }

Func &Func::compute_at(const LoopLevel &level) {
    FunctionContents &f = *func_.get();
    // The store level, unless set by store_root/store_at, follows this one
    // (an inlined store level means "where it is computed", as in Halide).
    f.schedule.compute_level = placement(f, level, "computed at");
    internal::mark_changed(f);
    return *this;
}

Func &Func::compute_inline() { return compute_at(LoopLevel::inlined()); }

Func &Func::store_root() { return store_at(LoopLevel::root()); }

Func &Func::store_at(const Func &f, const Var &var) { return store_at(LoopLevel(f, var)); }

Func &Func::store_at(const Func &f, const RVar &var) { return store_at(LoopLevel(f, var)); }

Func &Func::store_at(const LoopLevel &level) {
    FunctionContents &f = *func_.get();
    f.schedule.store_level = placement(f, level, "stored at");
    internal::mark_changed(f);
    return *this;
}

Func &Func::hoist_storage(const Func &f, const Var &var) { return hoist_storage(LoopLevel(f, var)); }

Func &Func::hoist_storage(const Func &f, const RVar &var) { return hoist_storage(LoopLevel(f, var)); }

Func &Func::hoist_storage(const LoopLevel &level) {
    FunctionContents &f = *func_.get();
    f.schedule.hoist_storage_level = placement(f, level, "hoisted (hoist_storage) to");
    internal::mark_changed(f);
    return *this;
}

Func &Func::hoist_storage_root() { return hoist_storage(LoopLevel::root()); }

Func &Func::async() {
    FunctionContents &f = *func_.get();
    f.schedule.async = true;
    internal::mark_changed(f);
    return *this;
}

Func &Func::ring_buffer(Expr extent) {
    FunctionContents &f = *func_.get();
    auto slots = extent.defined() ? internal::as_const_int(extent) : std::nullopt;
    if (!slots || *slots <= 0) {
        throw CompileError("Func " + f.name + ".ring_buffer(extent): the extent must be a positive integer constant "
                           "(the number of copies of the storage), e.g. ring_buffer(2)");
    }
    f.schedule.ring_buffer = Expr((int)*slots);
    internal::mark_changed(f);
    return *this;
}

// ---- Bounds and storage -----------------------------------------------------

Func &Func::bound(const Var &var, const Expr &min, const Expr &extent) {
    const std::string context = "Func " + name() + ", bound(" + var.name() + ", ...)";
    add_bound(*func_.get(), var, integer_expr(context, min, "min"), integer_expr(context, extent, "extent"));
    return *this;
}

Func &Func::bound_extent(const Var &var, const Expr &extent) {
    const std::string context = "Func " + name() + ", bound_extent(" + var.name() + ", ...)";
    add_bound(*func_.get(), var, Expr(), integer_expr(context, extent, "extent"));
    return *this;
}

Func &Func::fold_storage(const Var &var, const Expr &factor, bool fold_forward) {
    FunctionContents &f = *func_.get();
    require_pure_var(f, var.name(), "fold_storage");
    const std::string context = "Func " + f.name + ", fold_storage(" + var.name() + ", ...)";
    Expr n = integer_expr(context, factor, "fold factor");
    if (auto c = internal::as_const_int(n); c && *c <= 0) {
        throw CompileError(context + ": the fold factor is " + std::to_string(*c) + "; it must be positive.");
    }
    for (const internal::StorageFold &existing : f.schedule.storage_folds) {
        if (existing.var == var.name()) {
            throw CompileError(context + ": dimension " + var.name() + " of Func " + f.name +
                               " is already folded. Fold each dimension once.");
        }
    }
    f.schedule.storage_folds.push_back(internal::StorageFold{var.name(), n, fold_forward});
    internal::mark_changed(f);
    return *this;
}

namespace {

/** A positive integer constant, as Int(32). */
Expr positive_constant(const std::string &context, const Expr &e, const char *what) {
    Expr n = internal::simplify(integer_expr(context, e, what));
    auto c = internal::as_const_int(n);
    if (!c) {
        throw CompileError(context + ": the " + what + " must be a constant, but it is " + internal::to_string(e) +
                           ". Use an integer literal (or an Expr that simplifies to one).");
    }
    if (*c <= 0) throw CompileError(context + ": the " + what + " is " + std::to_string(*c) + "; it must be positive.");
    return n;
}

void add_alignment(FunctionContents &f, const std::string &var, const Expr &modulus, const Expr &remainder) {
    for (internal::BoundAlignment &existing : f.schedule.bound_alignments) {
        if (existing.var == var) {
            existing = {var, modulus, remainder};
            internal::mark_changed(f);
            return;
        }
    }
    f.schedule.bound_alignments.push_back({var, modulus, remainder});
    internal::mark_changed(f);
}

internal::StorageDim &storage_dim(FunctionContents &f, const std::string &var) {
    for (internal::StorageDim &d : f.schedule.storage_dims) {
        if (d.var == var) return d;
    }
    f.schedule.storage_dims.push_back({var, Expr(), Expr()});
    return f.schedule.storage_dims.back();
}

}  // namespace

Func &Func::align_bounds(const Var &var, const Expr &modulus, const Expr &remainder) {
    FunctionContents &f = *func_.get();
    require_pure_var(f, var.name(), "align_bounds");
    const std::string context = "Func " + f.name + ", align_bounds(" + var.name() + ", ...)";
    Expr m = positive_constant(context, modulus, "modulus");
    Expr r = integer_expr(context, remainder, "remainder");
    add_alignment(f, var.name(), m, internal::simplify(internal::Mod::make(r, m)));
    return *this;
}

Func &Func::align_extent(const Var &var, const Expr &modulus) {
    FunctionContents &f = *func_.get();
    require_pure_var(f, var.name(), "align_extent");
    const std::string context = "Func " + f.name + ", align_extent(" + var.name() + ", ...)";
    add_alignment(f, var.name(), positive_constant(context, modulus, "modulus"), Expr());
    return *this;
}

Func &Func::align_storage(const Var &var, const Expr &alignment) {
    FunctionContents &f = *func_.get();
    require_pure_var(f, var.name(), "align_storage");
    const std::string context = "Func " + f.name + ", align_storage(" + var.name() + ", ...)";
    storage_dim(f, var.name()).alignment = positive_constant(context, alignment, "alignment");
    internal::mark_changed(f);
    return *this;
}

Func &Func::bound_storage(const Var &var, const Expr &bound) {
    FunctionContents &f = *func_.get();
    require_pure_var(f, var.name(), "bound_storage");
    const std::string context = "Func " + f.name + ", bound_storage(" + var.name() + ", ...)";
    storage_dim(f, var.name()).bound = positive_constant(context, bound, "bound");
    internal::mark_changed(f);
    return *this;
}

Func &Func::reorder_storage(const std::vector<Var> &dims) {
    FunctionContents &f = *func_.get();
    if (dims.empty()) throw CompileError("Func " + f.name + ": reorder_storage() needs at least one Var.");
    std::vector<std::string> order = f.schedule.storage_order.empty() ? f.args : f.schedule.storage_order;
    std::vector<size_t> from;
    for (const Var &v : dims) {
        require_pure_var(f, v.name(), "reorder_storage");
        size_t i = std::find(order.begin(), order.end(), v.name()) - order.begin();
        if (std::find(from.begin(), from.end(), i) != from.end()) {
            throw CompileError("Func " + f.name + ": reorder_storage() lists Var " + v.name() +
                               " twice; name each dimension once.");
        }
        from.push_back(i);
    }
    std::vector<size_t> places = from;
    std::sort(places.begin(), places.end());
    std::vector<std::string> reordered = order;
    for (size_t k = 0; k < from.size(); k++) reordered[places[k]] = order[from[k]];
    f.schedule.storage_order = reordered;
    internal::mark_changed(f);
    return *this;
}

// ---- Loops of the pure definition ---------------------------------------------

Func &Func::split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                  TailStrategy tail) {
    Stage(func_, 0).split(old, outer, inner, factor, tail);
    return *this;
}

Func &Func::split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                  const Expr &align, TailStrategy tail) {
    Stage(func_, 0).split(old, outer, inner, factor, align, tail);
    return *this;
}

Func &Func::fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused) {
    Stage(func_, 0).fuse(inner, outer, fused);
    return *this;
}

Func &Func::rename(const VarOrRVar &old, const VarOrRVar &new_name) {
    Stage(func_, 0).rename(old, new_name);
    return *this;
}

Func &Func::reorder(const std::vector<VarOrRVar> &vars) {
    Stage(func_, 0).reorder(vars);
    return *this;
}

Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                 const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
                 TailStrategy tail) {
    Stage(func_, 0).tile(x, y, xo, yo, xi, yi, xfactor, yfactor, tail);
    return *this;
}

Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                 const Expr &xfactor, const Expr &yfactor, TailStrategy tail) {
    Stage(func_, 0).tile(x, y, xi, yi, xfactor, yfactor, tail);
    return *this;
}

Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                 const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors, TailStrategy tail) {
    Stage(func_, 0).tile(previous, outers, inners, factors, tail);
    return *this;
}

Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                 const std::vector<Expr> &factors, TailStrategy tail) {
    Stage(func_, 0).tile(previous, inners, factors, tail);
    return *this;
}

Func &Func::vectorize(const VarOrRVar &var) {
    Stage(func_, 0).vectorize(var);
    return *this;
}

Func &Func::vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    Stage(func_, 0).vectorize(var, factor, tail);
    return *this;
}

Func &Func::unroll(const VarOrRVar &var) {
    Stage(func_, 0).unroll(var);
    return *this;
}

Func &Func::unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    Stage(func_, 0).unroll(var, factor, tail);
    return *this;
}

Func &Func::unroll(const VarOrRVar &var, const std::vector<int> &factors) {
    Stage(func_, 0).unroll(var, factors);
    return *this;
}

Func &Func::memoize(const EvictionKey &eviction_key) {
    internal::FunctionContents &f = *func_.get();
    const Expr &key = eviction_key.expr();
    if (key.defined() && (!key.type().is_int_or_uint() || !key.type().is_scalar())) {
        throw CompileError("Func " + f.name + ".memoize(): the EvictionKey must be a scalar integer Expr (its value, "
                           "as a uint64_t, is what loom_memoization_cache_evict takes), not " +
                           key.type().to_string() + ".");
    }
    if (f.schedule.memoized && f.schedule.memoize_eviction_key.defined() && key.defined() &&
        !internal::equal(f.schedule.memoize_eviction_key, key)) {
        throw CompileError("Func " + f.name + " is already memoized with another EvictionKey; a Func has one "
                           "eviction key (as in Halide).");
    }
    f.schedule.memoized = true;
    if (key.defined()) f.schedule.memoize_eviction_key = key;
    internal::mark_changed(f);
    return *this;
}

Func &Func::atomic(bool override_associativity_test) {
    Stage(func_, 0).atomic(override_associativity_test);
    return *this;
}

Func &Func::prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from, Expr offset,
                     PrefetchBoundStrategy strategy) {
    Stage(func_, 0).prefetch(f, at, from, std::move(offset), strategy);
    return *this;
}

Func &Func::prefetch(const internal::Parameter &param, const VarOrRVar &at, const VarOrRVar &from, Expr offset,
                     PrefetchBoundStrategy strategy) {
    Stage(func_, 0).prefetch(param, at, from, std::move(offset), strategy);
    return *this;
}

Func &Func::parallel(const VarOrRVar &var) {
    Stage(func_, 0).parallel(var);
    return *this;
}

Func &Func::parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail) {
    Stage(func_, 0).parallel(var, task_size, tail);
    return *this;
}

Func &Func::serial(const VarOrRVar &var) {
    Stage(func_, 0).serial(var);
    return *this;
}

Func &Func::partition(const VarOrRVar &var, Partition policy) {
    Stage(func_, 0).partition(var, policy);
    return *this;
}

Func &Func::never_partition(const std::vector<VarOrRVar> &vars) {
    Stage(func_, 0).never_partition(vars);
    return *this;
}

Func &Func::always_partition(const std::vector<VarOrRVar> &vars) {
    Stage(func_, 0).always_partition(vars);
    return *this;
}

Func &Func::never_partition_all() {
    Stage(func_, 0).never_partition_all();
    return *this;
}

Func &Func::always_partition_all() {
    Stage(func_, 0).always_partition_all();
    return *this;
}

Func &Func::compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align) {
    Stage(func_, 0).compute_with(s, var, align);
    return *this;
}

Func &Func::compute_with(const LoopLevel &level, LoopAlignStrategy align) {
    Stage(func_, 0).compute_with(level, align);
    return *this;
}

Func &Func::compute_with(const Stage &s, const VarOrRVar &var,
                         const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    Stage(func_, 0).compute_with(s, var, align);
    return *this;
}

Func &Func::compute_with(const LoopLevel &level, const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    Stage(func_, 0).compute_with(level, align);
    return *this;
}


// ---------------------------------------------------------------- GPU

Func &Func::gpu_blocks(const VarOrRVar &block_x, DeviceAPI api) {
    Stage(func_, 0).gpu_blocks(block_x, api);
    return *this;
}

Func &Func::gpu_blocks(const VarOrRVar &block_x, const VarOrRVar &block_y, DeviceAPI api) {
    Stage(func_, 0).gpu_blocks(block_x, block_y, api);
    return *this;
}

Func &Func::gpu_blocks(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &block_z, DeviceAPI api) {
    Stage(func_, 0).gpu_blocks(block_x, block_y, block_z, api);
    return *this;
}

Func &Func::gpu_threads(const VarOrRVar &thread_x, DeviceAPI api) {
    Stage(func_, 0).gpu_threads(thread_x, api);
    return *this;
}

Func &Func::gpu_threads(const VarOrRVar &thread_x, const VarOrRVar &thread_y, DeviceAPI api) {
    Stage(func_, 0).gpu_threads(thread_x, thread_y, api);
    return *this;
}

Func &Func::gpu_threads(const VarOrRVar &thread_x, const VarOrRVar &thread_y, const VarOrRVar &thread_z,
                        DeviceAPI api) {
    Stage(func_, 0).gpu_threads(thread_x, thread_y, thread_z, api);
    return *this;
}

Func &Func::gpu(const VarOrRVar &block_x, const VarOrRVar &thread_x, DeviceAPI api) {
    Stage(func_, 0).gpu(block_x, thread_x, api);
    return *this;
}

Func &Func::gpu(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &thread_x,
                const VarOrRVar &thread_y, DeviceAPI api) {
    Stage(func_, 0).gpu(block_x, block_y, thread_x, thread_y, api);
    return *this;
}

Func &Func::gpu(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &block_z,
                const VarOrRVar &thread_x, const VarOrRVar &thread_y, const VarOrRVar &thread_z, DeviceAPI api) {
    Stage(func_, 0).gpu(block_x, block_y, block_z, thread_x, thread_y, thread_z, api);
    return *this;
}

Func &Func::gpu_single_thread(DeviceAPI api) {
    Stage(func_, 0).gpu_single_thread(api);
    return *this;
}

Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx, const Expr &x_size,
                     TailStrategy tail, DeviceAPI api) {
    Stage(func_, 0).gpu_tile(x, bx, tx, x_size, tail, api);
    return *this;
}

Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size, TailStrategy tail, DeviceAPI api) {
    Stage(func_, 0).gpu_tile(x, tx, x_size, tail, api);
    return *this;
}

Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx, const VarOrRVar &by,
                     const VarOrRVar &tx, const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                     TailStrategy tail, DeviceAPI api) {
    Stage(func_, 0).gpu_tile(x, y, bx, by, tx, ty, x_size, y_size, tail, api);
    return *this;
}

Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx, const VarOrRVar &ty,
                     const Expr &x_size, const Expr &y_size, TailStrategy tail, DeviceAPI api) {
    Stage(func_, 0).gpu_tile(x, y, tx, ty, x_size, y_size, tail, api);
    return *this;
}

Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &bx,
                     const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx, const VarOrRVar &ty,
                     const VarOrRVar &tz, const Expr &x_size, const Expr &y_size, const Expr &z_size,
                     TailStrategy tail, DeviceAPI api) {
    Stage(func_, 0).gpu_tile(x, y, z, bx, by, bz, tx, ty, tz, x_size, y_size, z_size, tail, api);
    return *this;
}

Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &tx,
                     const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size, const Expr &y_size,
                     const Expr &z_size, TailStrategy tail, DeviceAPI api) {
    Stage(func_, 0).gpu_tile(x, y, z, tx, ty, tz, x_size, y_size, z_size, tail, api);
    return *this;
}

Func &Func::store_in(MemoryType memory_type) {
    FunctionContents &f = *func_.get();
    f.schedule.memory_type = memory_type;
    internal::mark_changed(f);
    return *this;
}

}  // namespace loom
