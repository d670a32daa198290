#ifndef LOOM_FUNC_H
#define LOOM_FUNC_H

/** \file
 * Func: a function over an integer grid, defined once by a pure definition
 * and then by any number of update definitions, and scheduled separately.
 *
 *     Var x("x"), y("y");
 *     Func blur("blur");
 *     blur(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;   // pure definition
 *     Func hist("hist");
 *     RDom r(in);
 *     hist(x) = 0;
 *     hist(clamp(in(r.x, r.y), 0, 255)) += 1;                      // update definition
 *     blur.compute_root();
 *     Buffer<int> out = blur.realize({w, h});
 *
 * Errors at definition time throw CompileError naming the Func and the Var:
 * a pure definition whose arguments are not distinct Vars, a second pure
 * definition, an RDom in a pure definition, a call with the wrong number of
 * arguments, a pure Var of an update moved from its position, a free
 * variable on the right that the left does not bind, a Tuple size or an
 * element type that differs from the pure definition, a Tuple-valued Func
 * used as a single Expr. `f(...) += e` (and -=, *=, /=) on an undefined Func
 * first defines it as 0 (1 for *= and /=) of e's type, as Halide does.
 */

#include <initializer_list>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/Argument.h"
#include "loom/Buffer.h"
#include "loom/Callable.h"
#include "loom/Expr.h"
#include "loom/Range.h"
#include "loom/ExternFuncArgument.h"
#include "loom/JITUserContext.h"
#include "loom/LoopLevel.h"
#include "loom/Module.h"
#include "loom/OutputFileType.h"
#include "loom/OutputImageParam.h"
#include "loom/RDom.h"
#include "loom/Realization.h"
#include "loom/Schedule.h"
#include "loom/Stage.h"
#include "loom/Target.h"
#include "loom/Tuple.h"
#include "loom/Var.h"
#include "loom/VarOrRVar.h"
#include "loom/internal/FunctionPtr.h"

namespace loom {

class Func;
class FuncTupleElementRef;

/** Func::memoize's eviction key: an integer (or handle) Expr whose value,
 * as a uint64_t, tags the cache entries a run stores, for
 * loom_memoization_cache_evict. Default: no key (never evicted that way). */
class EvictionKey {
public:
    explicit EvictionKey(const Expr &expr = Expr()) : key_(expr) {}
    const Expr &expr() const { return key_; }

private:
    Expr key_;
};

namespace internal {
/** base the first time it is asked for, then base_1, base_2, ... (for Funcs
 * Loom names itself, which must not collide in one pipeline). */
std::string unique_func_name(const std::string &base);
}  // namespace internal

/** f(args): the left-hand side of a definition, or a call (as an Expr). */
class FuncRef {
public:
    FuncRef(const internal::FunctionPtr &func, const std::vector<Expr> &args, int placeholder_pos,
            int implicit_count)
        : func_(func), args_(args), placeholder_pos_(placeholder_pos), implicit_count_(implicit_count) {}
    FuncRef(const FuncRef &) = default;

    /** The pure definition if the Func has none yet, else an update. */
    Stage operator=(const Expr &value);
    Stage operator=(const Tuple &values);
    Stage operator=(const FuncRef &value);
    Stage operator=(const FuncTupleElementRef &value);

    /** Updates f(args) = f(args) op value (defining f as 0 or 1 first if
     * needed). */
    Stage operator+=(const Expr &value);
    Stage operator-=(const Expr &value);
    Stage operator*=(const Expr &value);
    Stage operator/=(const Expr &value);
    Stage operator+=(const Tuple &values);
    Stage operator-=(const Tuple &values);
    Stage operator*=(const Tuple &values);
    Stage operator/=(const Tuple &values);
    Stage operator+=(const FuncRef &value) { return *this += Expr(value); }
    Stage operator-=(const FuncRef &value) { return *this -= Expr(value); }
    Stage operator*=(const FuncRef &value) { return *this *= Expr(value); }
    Stage operator/=(const FuncRef &value) { return *this /= Expr(value); }

    /** A call of a single-valued Func. \throws CompileError if the Func is
     * undefined or returns a Tuple. */
    operator Expr() const;
    /** Element i of a call of a Tuple-valued Func. */
    FuncTupleElementRef operator[](int i) const;

    /** How many values the Func returns. */
    size_t size() const;
    const std::vector<Expr> &arguments() const { return args_; }
    const internal::FunctionPtr &function() const { return func_; }

private:
    template<typename Op>
    Stage update_with(const Tuple &values, int identity, Op op);
    std::vector<Expr> args_with_implicit_vars(const std::vector<Expr> &values) const;

    internal::FunctionPtr func_;
    std::vector<Expr> args_;
    int placeholder_pos_;  // where `_` was in args, -1 if absent
    int implicit_count_;   // implicit vars already put in its place
};

/** f(args)[i]: one element of a Tuple-valued call. Assigning to it updates
 * that element and keeps the others. */
class FuncTupleElementRef {
public:
    FuncTupleElementRef(const FuncRef &ref, int index) : ref_(ref), index_(index) {}
    FuncTupleElementRef(const FuncTupleElementRef &) = default;

    Stage operator=(const Expr &value);
    Stage operator+=(const Expr &value);
    Stage operator-=(const Expr &value);
    Stage operator*=(const Expr &value);
    Stage operator/=(const Expr &value);
    Stage operator=(const FuncRef &value) { return *this = Expr(value); }
    Stage operator=(const FuncTupleElementRef &value) { return *this = Expr(value); }

    operator Expr() const;
    int index() const { return index_; }

private:
    Tuple with_element(const Expr &value) const;
    FuncRef ref_;
    int index_;
};

namespace internal {
/** A Func name taken as is even if a live Func has it (a Generator's
 * Output: its name is part of the generated interface). */
struct ExactFuncName {
    std::string name;
};
}  // namespace internal

class Func {
public:
    /** A Func with a unique name "f<N>". */
    Func();
    /** Named name, or name_1, name_2, ... while another live Func is named
     * name (two Funcs named alike stay two Funcs in a pipeline).
     * \throws CompileError if name is empty or contains '.'. */
    explicit Func(const std::string &name);
    explicit Func(const internal::ExactFuncName &name);
    explicit Func(const char *name) : Func(std::string(name)) {}
    /** f(_) = e: a Func of e's implicit variables. */
    explicit Func(const Expr &e);
    /** f(_) = buffer(_). */
    template<typename T, int D>
    explicit Func(const Buffer<T, D> &buffer) : Func(internal::unique_func_name(buffer.name() + "_im")) {
        (*this)(_) = buffer(_);
    }
    /** Wraps existing definition state (used inside Loom). */
    explicit Func(const internal::FunctionPtr &function);

    // ---- Definitions and calls ----------------------------------------------

    template<typename... Args, typename = std::enable_if_t<(std::is_convertible_v<Args, Expr> && ...)>>
    FuncRef operator()(Args &&...args) const {
        return (*this)(std::vector<Expr>{Expr(std::forward<Args>(args))...});
    }
    FuncRef operator()(const std::vector<Expr> &args) const;
    FuncRef operator()(const std::vector<Var> &args) const;

    const std::string &name() const;
    bool defined() const;
    /** Number of pure arguments (0 while undefined). */
    int dimensions() const;
    /** Number of Tuple elements (0 while undefined). */
    int outputs() const;
    /** \throws CompileError if undefined or Tuple-valued. */
    Type output_type() const;
    std::vector<Type> output_types() const;
    /** Same as output_type() and output_types() (Halide's newer names). */
    Type type() const { return output_type(); }
    std::vector<Type> types() const { return output_types(); }
    /** The pure arguments. */
    std::vector<Var> args() const;
    /** The pure definition's value (CompileError if undefined or a Tuple). */
    Expr value() const;
    Tuple values() const;

    bool has_update_definition() const { return num_update_definitions() > 0; }
    int num_update_definitions() const;
    /** Stage of update definition `index`. \throws CompileError if there is
     * no such update. */
    Stage update(int index = 0);
    const std::vector<Expr> &update_args(int index = 0) const;
    Expr update_value(int index = 0) const;
    Tuple update_values(int index = 0) const;

    // ---- Extern stages (docs/LANGUAGE.md, "Extern stages") -------------------

    /** This Func is computed by the C function `function_name`, called as
     *     int function_name(<params...>, loom_buffer_t *out...);
     * with each Func, Buffer or ImageParam of params as a loom_buffer_t
     * pointer, each Expr as a scalar of its type, and one output buffer per
     * type (the region to compute). A non-zero result is an error: the
     * pipeline returns it (a RuntimeError in the JIT). A call whose input
     * buffers of Funcs have a null host pointer is a bounds query: the
     * function sets min/extent of each such buffer to the region it reads,
     * and Loom computes those Funcs over that region first. An extern stage
     * is computed at root unless scheduled with compute_at; its own loops
     * belong to the C function (split, vectorize, ... of it are errors).
     * \throws CompileError if this Func is already defined, an argument is
     * undefined, dimensionality is negative, types is empty, the mangling
     * is CPlusPlus or the DeviceAPI is not Host. */
    void define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params, Type t,
                       int dimensionality, NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    void define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params,
                       const std::vector<Type> &types, int dimensionality,
                       NameMangling mangling = NameMangling::Default, DeviceAPI device_api = DeviceAPI::Host);
    void define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params, Type t,
                       const std::vector<Var> &arguments, NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    void define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params,
                       const std::vector<Type> &types, const std::vector<Var> &arguments,
                       NameMangling mangling = NameMangling::Default, DeviceAPI device_api = DeviceAPI::Host);
    /** Whether this Func is defined by define_extern. */
    bool is_extern() const;
    /** The C function's name (CompileError if not extern). */
    const std::string &extern_function_name() const;

    // ---- Schedule: where the Func is computed and stored ---------------------

    /** Compute all of this Func before its consumers run (and store it there). */
    Func &compute_root();
    /** Compute the values of this Func needed by one iteration of loop var
     * of f, inside that loop: as in Halide, inside loop var of each stage of
     * f (pure definition or update) that reads this Func, each time what that
     * stage reads. If no store level was given, the storage goes there too.
     * \throws CompileError if f is this Func; when the pipeline is compiled,
     * if no stage of f has a loop var (after its splits) or a use of this
     * Func lies outside every such loop. */
    Func &compute_at(const Func &f, const Var &var);
    Func &compute_at(const Func &f, const RVar &var);
    Func &compute_at(const LoopLevel &level);
    /** Substitute this Func's definition into its callers (the default). */
    Func &compute_inline();
    /** Allocate the storage at the root of the pipeline. */
    Func &store_root();
    /** Allocate the storage inside loop var of f (at or outside the compute
     * level; values computed in earlier iterations of the loops between can
     * be reused). */
    Func &store_at(const Func &f, const Var &var);
    Func &store_at(const Func &f, const RVar &var);
    Func &store_at(const LoopLevel &level);
    /** Make the allocation at an outer loop level (Halide 16's
     * hoist_storage), without changing where the Func is stored for bounds
     * and reuse: the allocation is sized for the largest region the store
     * level needs over the loops between, and reused by their iterations.
     * \throws CompileError when the pipeline is compiled if the level does
     * not enclose the store level, a parallel loop lies between, the Func
     * is inlined, or the size can't be bounded there. */
    Func &hoist_storage(const Func &f, const Var &var);
    Func &hoist_storage(const Func &f, const RVar &var);
    Func &hoist_storage(const LoopLevel &level);
    Func &hoist_storage_root();
    /** Produce this Func asynchronously (Halide's async()): a thread of its
     * own computes it, concurrently with the code that consumes it, and
     * semaphores make each consumer wait for the region it reads. The
     * producer runs ahead of its consumer as far as its storage allows: all
     * the way with store_root() storage, ring_buffer(n) iterations with
     * hoist_storage(). E.g. producer.compute_at(consumer, y).store_root().async();
     * \throws CompileError when the pipeline is compiled if the Func is
     * inlined, is an output, or is computed inside a GPU loop. */
    Func &async();
    /** Give the hoisted storage `extent` copies of what one iteration of the
     * compute level writes, used in turn (Halide's ring_buffer()), so that an
     * async() producer can run up to `extent` iterations ahead of its
     * consumer. \throws CompileError if extent is not a positive integer
     * constant, or, when compiled, if the Func has no hoist_storage() outside
     * its store level. */
    Func &ring_buffer(Expr extent);
    /** Where the storage lives: MemoryType::Heap, Stack, Register (CPU: the
     * stack; GPU: each invocation's own registers) or GPUShared (a GPU
     * workgroup's shared memory); Auto (the default) lets Loom choose. */
    Func &store_in(MemoryType memory_type);
    /** Promise that only [min, min + extent) of var is ever needed (the
     * output is computed over exactly that range). \throws CompileError if var
     * is not a pure argument of this Func. */
    Func &bound(const Var &var, const Expr &min, const Expr &extent);
    Func &bound_extent(const Var &var, const Expr &extent);
    /** A typical range of var, [min, min + extent), for an autoscheduler
     * (loom/AutoSchedule.h); it constrains nothing. Recorded on the output
     * buffer (output_buffer().dim(d).set_estimate), so autoschedulers read it
     * for pipeline outputs. \throws CompileError if the Func is undefined,
     * var is not a pure argument, or min and extent are not integer constants. */
    Func &set_estimate(const Var &var, const Expr &min, const Expr &extent);
    /** One {min, extent} per pure argument, in order: f.set_estimates({{0, 640}, {0, 480}}).
     * \throws CompileError as set_estimate, or for a count other than dimensions(). */
    Func &set_estimates(const Region &estimates);
    /** Stores dimension var in a circular buffer of `factor` slots: only the
     * last `factor` values along var are live at a time (fold_forward: var is
     * computed in increasing order). \throws CompileError if var is not a
     * pure Var of this Func, factor is not a positive integer, or var is
     * already folded. */
    Func &fold_storage(const Var &var, const Expr &factor, bool fold_forward = true);
    /** Widen the region computed in var so that its min is congruent to
     * remainder modulo modulus and its extent is a multiple of modulus.
     * \throws CompileError if var is not a pure Var, or modulus is not a
     * positive integer constant. */
    Func &align_bounds(const Var &var, const Expr &modulus, const Expr &remainder = 0);
    /** Widen the region computed in var so that its extent is a multiple of
     * modulus (the min is kept). \throws as align_bounds. */
    Func &align_extent(const Var &var, const Expr &modulus);
    /** Pad the storage extent of dimension var up to a multiple of
     * alignment (so the strides of the outer dimensions are multiples of
     * it). \throws CompileError if var is not a pure Var or alignment is not
     * a positive integer. */
    Func &align_storage(const Var &var, const Expr &alignment);
    /** Allocate exactly `bound` elements in dimension var, whatever bounds
     * inference finds; the region computed is unchanged. A realization that
     * needs more is a run-time error. \throws CompileError if var is not a
     * pure Var or bound is not a positive integer constant. */
    Func &bound_storage(const Var &var, const Expr &bound);
    /** Lays out the storage with these dimensions in this order, innermost
     * first (the others keep their places). \throws CompileError for a Var
     * that is not a pure argument, or one given twice. */
    Func &reorder_storage(const std::vector<Var> &dims);
    template<typename... Args>
    std::enable_if_t<(std::is_convertible_v<Args, Var> && ...), Func &>
    reorder_storage(const Var &x, const Var &y, Args &&...rest) {
        return reorder_storage(std::vector<Var>{x, y, Var(std::forward<Args>(rest))...});
    }

    // ---- Schedule: the loops of the pure definition (see Stage) -------------

    Func &split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                TailStrategy tail = TailStrategy::Auto);
    Func &split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                const Expr &align, TailStrategy tail = TailStrategy::Auto);
    Func &fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused);
    Func &rename(const VarOrRVar &old, const VarOrRVar &new_name);
    Func &reorder(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    std::enable_if_t<(std::is_convertible_v<Args, VarOrRVar> && ...), Func &>
    reorder(const VarOrRVar &x, const VarOrRVar &y, Args &&...rest) {
        return reorder(std::vector<VarOrRVar>{x, y, VarOrRVar(std::forward<Args>(rest))...});
    }
    Func &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo, const VarOrRVar &xi,
               const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor, TailStrategy tail = TailStrategy::Auto);
    Func &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor,
               const Expr &yfactor, TailStrategy tail = TailStrategy::Auto);
    Func &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
               const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
               TailStrategy tail = TailStrategy::Auto);
    Func &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
               const std::vector<Expr> &factors, TailStrategy tail = TailStrategy::Auto);
    Func &vectorize(const VarOrRVar &var);
    Func &vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    Func &unroll(const VarOrRVar &var);
    Func &unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    Func &unroll(const VarOrRVar &var, std::initializer_list<int> factors) {
        return unroll(var, std::vector<int>(factors));
    }
    Func &unroll(const VarOrRVar &var, const std::vector<int> &factors);
    Func &parallel(const VarOrRVar &var);
    Func &parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail = TailStrategy::Auto);
    Func &serial(const VarOrRVar &var);
    Func &partition(const VarOrRVar &var, Partition policy);
    Func &never_partition(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    std::enable_if_t<(std::is_convertible_v<Args, VarOrRVar> && ...), Func &>
    never_partition(const VarOrRVar &x, Args &&...rest) {
        return never_partition(std::vector<VarOrRVar>{x, VarOrRVar(std::forward<Args>(rest))...});
    }
    Func &always_partition(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    std::enable_if_t<(std::is_convertible_v<Args, VarOrRVar> && ...), Func &>
    always_partition(const VarOrRVar &x, Args &&...rest) {
        return always_partition(std::vector<VarOrRVar>{x, VarOrRVar(std::forward<Args>(rest))...});
    }
    Func &never_partition_all();
    Func &always_partition_all();
    /** atomic() and prefetch() of the pure definition (see Stage). */
    Func &atomic(bool override_associativity_test = false);
    Func &prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from, Expr offset = 1,
                   PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    Func &prefetch(const internal::Parameter &param, const VarOrRVar &at, const VarOrRVar &from, Expr offset = 1,
                   PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    template<typename T>
    Func &prefetch(const T &image, const VarOrRVar &at, const VarOrRVar &from, Expr offset = 1,
                   PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf) {
        return prefetch(image.parameter(), at, from, std::move(offset), strategy);
    }
    /** Caches this Func's realization across runs of the pipeline (Halide's
     * memoize): a run that needs the same region with the same values of
     * the Params the Func depends on copies the cached values instead of
     * computing them. The Func must be compute_root (store and compute at
     * the same level), not an output, and must not read an ImageParam
     * (its contents are not part of the key; Halide refuses it too) unless
     * the read is wrapped in memoize_tag(value, tags...). A concrete Buffer
     * read directly is a constant of the pipeline, as in Halide: nothing of
     * it is keyed, so changing its contents does not invalidate the cache.
     * The cache is process-wide, bounded in size
     * (loom_memoization_cache_set_size, least recently used entries go
     * first); an eviction key (an integer Expr, e.g. a Param) lets
     * loom_memoization_cache_evict(user_context, key) drop the entries
     * computed with that key value. \throws CompileError when compiled
     * with one of those conditions broken. */
    Func &memoize(const EvictionKey &eviction_key = EvictionKey());
    /** GPU schedules of the pure definition (see Stage). */
    Func &gpu_blocks(const VarOrRVar &block_x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_blocks(const VarOrRVar &block_x, const VarOrRVar &block_y, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_blocks(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &block_z,
                     DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_threads(const VarOrRVar &thread_x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_threads(const VarOrRVar &thread_x, const VarOrRVar &thread_y,
                      DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_threads(const VarOrRVar &thread_x, const VarOrRVar &thread_y, const VarOrRVar &thread_z,
                      DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu(const VarOrRVar &block_x, const VarOrRVar &thread_x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &thread_x,
              const VarOrRVar &thread_y, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &block_z,
              const VarOrRVar &thread_x, const VarOrRVar &thread_y, const VarOrRVar &thread_z,
              DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_single_thread(DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx, const Expr &x_size,
                   TailStrategy tail = TailStrategy::Auto, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx, const VarOrRVar &by,
                   const VarOrRVar &tx, const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                   TailStrategy tail = TailStrategy::Auto, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx, const VarOrRVar &ty,
                   const Expr &x_size, const Expr &y_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &bx,
                   const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx, const VarOrRVar &ty,
                   const VarOrRVar &tz, const Expr &x_size, const Expr &y_size, const Expr &z_size,
                   TailStrategy tail = TailStrategy::Auto, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &tx,
                   const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size, const Expr &y_size,
                   const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI device_api = DeviceAPI::Default_GPU);
    /** Fuses the pure definition's loops with those of stage s (see Stage). */
    Func &compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align = LoopAlignStrategy::Auto);
    Func &compute_with(const LoopLevel &level, LoopAlignStrategy align = LoopAlignStrategy::Auto);
    Func &compute_with(const Stage &s, const VarOrRVar &var,
                       const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);
    Func &compute_with(const LoopLevel &level, const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);

    // ---- Wrappers and clones (Halide's in() and clone_in()) -------------------

    /** A wrapper of this Func that every consumer calls instead: w(x, ...) =
     * f(x, ...), an ordinary Func with its own schedule (compute_root,
     * compute_at, vectorize, ...), so f can be computed once and copied, or
     * staged, differently for its consumers. Consumers defined later call it
     * too. Calling in() again returns the same wrapper.
     *
     *     Func fw = f.in();             // every consumer of f reads fw
     *     fw.compute_at(g, y).vectorize(x, 8);
     *
     * \throws CompileError if this Func has no definition. */
    Func in();
    /** A wrapper used only by g (the other consumers still call f); asked
     * again for g, the same wrapper. A consumer with its own wrapper does not
     * use the global one of in().
     * \throws CompileError if this Func or g has no definition, g is this
     * Func, g does not call this Func, or g already calls a clone of it. */
    Func in(const Func &g);
    /** One wrapper shared by all of gs (errors as in(g); also when some of
     * gs already have a wrapper and others not, or different ones). */
    Func in(const std::vector<Func> &gs);
    /** A copy of this Func, with its definitions and its schedule as they
     * are now, that g (or each of gs) calls instead; the other consumers keep
     * calling this Func. Schedule the clone on its own.
     * \throws CompileError as in(g), and if g already calls a wrapper of
     * this Func. */
    Func clone_in(const Func &g);
    Func clone_in(const std::vector<Func> &gs);

    /** rfactor of this Func's last update definition (see Stage::rfactor;
     * Halide has it on Stage: f.update(n).rfactor(...)). */
    Func rfactor(const std::vector<std::pair<RVar, Var>> &preserved);
    Func rfactor(const RVar &r, const Var &v);

    /** The pure definition as a Stage. */
    operator Stage() const { return Stage(func_, 0); }

    // ---- Specializations and output buffer constraints -----------------------

    /** Specializations of the pure definition (see Stage::specialize):
     * f.specialize(w >= 16).vectorize(x, 16). */
    Stage specialize(const Expr &condition);
    void specialize_fail(const std::string &message);

    /** The buffer this Func is realized into when it is a pipeline output,
     * to read its shape (output_buffer().dim(0).extent()) or constrain it
     * (output_buffer().dim(0).set_bounds(0, 640); see loom/Dimension.h).
     * \throws CompileError if the Func is undefined or returns a Tuple
     * (use output_buffers()). */
    OutputImageParam output_buffer() const;
    /** One per Tuple element. \throws CompileError if undefined. */
    std::vector<OutputImageParam> output_buffers() const;

    // ---- Tracing (Halide's trace_*; lower/InjectTracing.cpp) -----------------

    /** Reports every value this Func stores (each definition's writes), read
     * from it (each call in another Func's definition), or every region it
     * is realized over (Begin/End realization with min, extent per
     * dimension), through loom_trace (loom/runtime/loom_runtime.h). By
     * default each event prints one line in Halide's format through
     * loom_print, e.g. "Store f.0(1, 2) = 3"; loom_set_trace_handler
     * replaces the handler. The Target feature trace_all traces every Func
     * that is not inlined. A traced Func's loops are not vectorized: each
     * lane is its own event.
     *
     *     f.trace_stores();
     *     f.realize({4, 3});   // prints "Store f.0(0, 0) = ..." 12 times
     *
     * \throws CompileError at realize/compile if the Func is inlined (it has
     * no stores, loads or realizations of its own: compute_root() it), or is
     * scheduled on the GPU. */
    Func &trace_loads();
    Func &trace_stores();
    Func &trace_realizations();
    /** Adds a Tag event ("Tag f.0() tag = \"text\"") reported once at the
     * start of every run of a pipeline that contains this Func. */
    Func &add_trace_tag(const std::string &trace_tag);

    /** Writes the Func's values to filename each time it has been computed,
     * in the format the extension names: ".tiff"/".tif", ".mat" (MATLAB
     * level 5) or ".npy" (NumPy), as Halide's debug_to_file does. The Func
     * must not be inlined (compute_root() or compute_at() it); the file is
     * written by the runtime (loom_debug_to_file in loom_runtime.h), in the
     * JIT and in AOT libraries, once per production of the Func.
     * \throws CompileError at realize/compile if the Func is inlined, has a
     * Tuple value, is scheduled on the GPU, or the extension is none of
     * these; RuntimeError (an error code in AOT code) if the file cannot be
     * written. */
    Func &debug_to_file(const std::string &filename);

    // ---- Running ------------------------------------------------------------

    /** JIT-compiles (once, cached) and computes the Func over [0, size) in
     * each dimension. Target() (the default) means the target of the code
     * compiled last, e.g. by compile_jit(t), as in Halide; the JIT target
     * (get_jit_target_from_environment()) when nothing is compiled yet or the
     * Func changed since. \throws CompileError if
     * sizes has the wrong length or a needed ImageParam has no buffer;
     * RuntimeError if the pipeline fails. */
    Realization realize(const std::vector<int> &sizes = {}, const Target &target = Target());
    /** Computes into existing buffers, over their own min and extent. */
    void realize(Realization &outputs, const Target &target = Target());
    /** Into the buffers of a temporary Realization, e.g. realize({a, b}) (the
     * buffers share their storage with a and b). */
    void realize(Realization &&outputs, const Target &target = Target()) {
        realize(outputs, target);
    }
    template<typename T, int D>
    void realize(Buffer<T, D> &output, const Target &target = Target()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        realize(r, target);
    }
    template<typename T, int D>
    void realize(Buffer<T, D> &&output, const Target &target = Target()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        realize(r, target);
    }
    /** The same, with handlers from context (see loom/JITUserContext.h);
     * context may be nullptr. With a custom_error handler, a failing run
     * reports to it and returns instead of throwing RuntimeError. */
    Realization realize(JITUserContext *context, const std::vector<int> &sizes = {},
                        const Target &target = Target());
    void realize(JITUserContext *context, Realization &outputs,
                 const Target &target = Target());
    void realize(JITUserContext *context, Realization &&outputs,
                 const Target &target = Target()) {
        realize(context, outputs, target);
    }
    template<typename T, int D>
    void realize(JITUserContext *context, Buffer<T, D> &output, const Target &target = Target()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        realize(context, r, target);
    }
    template<typename T, int D>
    void realize(JITUserContext *context, Buffer<T, D> &&output,
                 const Target &target = Target()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        realize(context, r, target);
    }
    /** The handlers every JIT run of this Func uses where the run's
     * JITUserContext sets none (Halide's Func::jit_handlers()). */
    JITHandlers &jit_handlers();
    /** Lowers and JIT-compiles once into a Callable taking args in order,
     * then the output buffers (see loom/Callable.h). \throws CompileError as
     * compile_to (a Param/ImageParam the Func uses missing from args, two
     * arguments with one name, ...). */
    Callable compile_to_callable(const std::vector<Argument> &args,
                                 const Target &target = get_jit_target_from_environment());
    /** Compiles now, so the first realize() does not. */
    void compile_jit(const Target &target = get_jit_target_from_environment());
    /** Binds every ImageParam without a buffer to a new buffer of exactly
     * the region a realize over [0, size) in each dimension reads (retrieve
     * it with ImageParam::get()). The new buffers are zeroed, like every new
     * Buffer (Halide leaves them uninitialized): fill them before realizing.
     * ImageParams that have a buffer keep it. \throws CompileError if sizes
     * has the wrong length or the target has no_bounds_query; RuntimeError
     * if the pipeline can't answer the query (a region that depends on
     * values it computes). */
    void infer_input_bounds(const std::vector<int> &sizes = {},
                            const Target &target = get_jit_target_from_environment());
    /** The same for the region of existing output buffers, over their own
     * mins and extents, as Halide's f.infer_input_bounds(out):
     *
     *     Buffer<float> out(W, H);
     *     out.set_min({16, 8});
     *     f.infer_input_bounds(out);        // in.get() is what f reads for out
     *     f.realize(out);
     *
     * The outputs are neither computed into nor changed. \throws
     * CompileError (naming the Func) for a buffer of the wrong element type
     * or number of dimensions, or a Realization with the wrong number of
     * buffers. */
    void infer_input_bounds(Realization &outputs, const Target &target = get_jit_target_from_environment());
    void infer_input_bounds(Realization &&outputs, const Target &target = get_jit_target_from_environment()) {
        infer_input_bounds(outputs, target);
    }
    template<typename T, int D>
    void infer_input_bounds(Buffer<T, D> &output, const Target &target = get_jit_target_from_environment()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        infer_input_bounds(r, target);
    }
    template<typename T, int D>
    void infer_input_bounds(Buffer<T, D> &&output, const Target &target = get_jit_target_from_environment()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        infer_input_bounds(r, target);
    }

    /** Prints the scheduled loop nest to stdout. */
    void print_loop_nest();
    /** Writes the lowered program as text for a target (Loom's form;
     * Halide's takes the arguments, below). The target is a template
     * parameter only so that Halide's `compile_to_lowered_stmt(file, {})`
     * is not ambiguous with it. */
    void compile_to_lowered_stmt(const std::string &filename) {
        lowered_stmt_for_target(filename, get_target_from_environment());
    }
    template<typename T, typename = std::enable_if_t<std::is_same_v<T, Target>>>
    void compile_to_lowered_stmt(const std::string &filename, const T &target) {
        lowered_stmt_for_target(filename, target);
    }

    /** \name Ahead-of-time compilation
     * Each writes files for a C function `fn_name` (default: the Func's name)
     * taking `args` in order, then one output buffer per output and Tuple
     * element; it returns 0 or a negative loom_error_code_t. The target
     * defaults to LOOM_TARGET or the host. See docs/AOT.md.
     * \throws CompileError if a Param/ImageParam the pipeline uses is not in
     * args, two arguments share a name, fn_name is not a C identifier, the
     * target cannot be compiled for, or a file cannot be written. */
    ///@{
    void compile_to(const std::map<OutputFileType, std::string> &output_files, const std::vector<Argument> &args,
                    const std::string &fn_name, const Target &target = get_target_from_environment());
    /** filename_prefix + ".a" (pipeline and runtime) and ".h". */
    void compile_to_static_library(const std::string &filename_prefix, const std::vector<Argument> &args,
                                   const std::string &fn_name = "",
                                   const Target &target = get_target_from_environment());
    /** filename_prefix + ".o" (no runtime) and ".h". */
    void compile_to_file(const std::string &filename_prefix, const std::vector<Argument> &args,
                         const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_llvm_assembly(const std::string &filename, const std::vector<Argument> &args,
                                  const std::string &fn_name = "",
                                  const Target &target = get_target_from_environment());
    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                 const Target &target = get_target_from_environment());
    /** fmt == HTML writes the page of OutputFileType::stmt_html (docs/AOT.md). */
    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                 StmtOutputFormat fmt, const Target &target = get_target_from_environment());
    /** LLVM bitcode of the pipeline (no runtime), as compile_to_object. */
    void compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                            const std::string &fn_name = "", const Target &target = get_target_from_environment());
    /** C++ source of the pipeline (the C back end, docs/AOT.md): the same
     * function and metadata as compile_to_object, to compile with any C++
     * compiler and link against a Loom runtime (a static library's, or the
     * generator driver's `-r`). */
    void compile_to_c(const std::string &filename, const std::vector<Argument> &args,
                      const std::string &fn_name = "", const Target &target = get_target_from_environment());
    /** One library for several targets: filename_prefix + ".a" holds a
     * variant of the pipeline per target and a dispatcher named fn_name
     * (default: the Func's name) that runs the first target whose features
     * the running CPU has; filename_prefix + ".h" declares it. The last
     * target must be runnable everywhere the library may run (e.g. the bare
     * "x86-64-linux"). \throws CompileError if targets is empty or the
     * targets differ in anything but their CPU features. */
    void compile_to_multitarget_static_library(const std::string &filename_prefix,
                                               const std::vector<Argument> &args,
                                               const std::vector<Target> &targets);
    /** As compile_to_multitarget_static_library, as object files: one per
     * target, filename_prefix + suffixes[i] + ".o" (suffixes default to
     * "-" + each target's string), plus filename_prefix + "_wrapper.o" (the
     * dispatcher), filename_prefix + "_runtime.o" and filename_prefix + ".h". */
    void compile_to_multitarget_object_files(const std::string &filename_prefix, const std::vector<Argument> &args,
                                             const std::vector<Target> &targets,
                                             const std::vector<std::string> &suffixes = {});
    /** Lowers once, for `fn_name` (default: the Func's name) taking args,
     * into a Module whose compile() writes any of the files above
     * (loom/Module.h). */
    Module compile_to_module(const std::vector<Argument> &args, const std::string &fn_name = "",
                             const Target &target = get_target_from_environment());
    ///@}

    const internal::FunctionPtr &function() const { return func_; }

private:
    void lowered_stmt_for_target(const std::string &filename, const Target &target);

    internal::FunctionPtr func_;
};

/** Computes a scalar Expr (without free variables) with the JIT.
 *     int v = evaluate<int>(cast<int>(sqrt(2.0f) * 100));
 * \throws CompileError if T is not e's type. */
template<typename T>
T evaluate(const Expr &e) {
    Func f;
    f() = e;
    Buffer<T> result = f.realize();
    return result();
}

}  // namespace loom

#endif
