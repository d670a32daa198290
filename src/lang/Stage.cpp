// The loop-shaping directives of a stage: each edits the stage's
// StageSchedule (src/ir/Function.h) after checking it makes sense.

#include "loom/Stage.h"

#include <algorithm>
#include <sstream>

#include "ir/Function.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "lang/Associativity.h"
#include "lang/AtomicChecks.h"
#include "lang/Backend.h"
#include "lang/RVarDependence.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/IROperator.h"

namespace loom {

namespace {

using internal::Definition;
using internal::Dim;
using internal::ForType;
using internal::FunctionContents;
using internal::Split;
using internal::StageSchedule;


const char *for_type_word(ForType t) {
    switch (t) {
    case ForType::Serial: return "serial";
    case ForType::Parallel: return "parallel";
    case ForType::Vectorized: return "vectorized";
    case ForType::Unrolled: return "unrolled";
    case ForType::GPUBlock: return "a GPU block loop";
    case ForType::GPUThread: return "a GPU thread loop";
    }
    return "?";
}

/** Finds free Variables that are not Params (a factor must not depend on
 * loop variables). */
class FindLoopVariable : public internal::IRGraphVisitor {
public:
    std::string found;

protected:
    using IRGraphVisitor::visit;
    void visit(const internal::Variable *op) override {
        if (!op->param.defined() && found.empty()) found = op->name;
    }
};

/** Applies directives to a copy of one stage's schedule, so a directive
 * that throws changes nothing; commit() stores the result. */
class StageEditor {
public:
    StageEditor(const internal::FunctionPtr &func, int stage, const std::vector<int> &specialization)
        : f_(*func.get()), stage_(stage), specialization_(specialization) {
        if (!f_.defined()) {
            throw CompileError("Func " + f_.name + " has no definition yet; define it before scheduling its loops.");
        }
        if (stage < 0 || stage >= f_.stages()) throw InternalError("Stage index out of range for " + f_.name);
        s_ = schedule();
    }

    void commit() {
        s_.touched = true;
        schedule() = s_;
        internal::mark_changed(f_);
    }

    // ---- The directives ---------------------------------------------------

    void split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
               TailStrategy tail, const char *action = "split", const Expr &align = Expr()) {
        size_t i = require_loop(old.name(), action);
        require_serial(i, action, "split it first, then mark the loops it is split into");
        if (outer.name() == inner.name()) {
            fail(std::string("can't ") + action + " " + loop_word(i) + ": the outer and inner loops need different "
                 "names, but both are called " + outer.name() + ".");
        }
        require_new_name(outer.name(), old.name(), action);
        require_new_name(inner.name(), old.name(), action);
        Expr f = checked_factor(factor, loop_word(i), "split factor");
        Split split;
        split.kind = Split::SplitVar;
        split.old_var = old.name();
        split.outer = outer.name();
        split.inner = inner.name();
        split.factor = f;
        split.tail = resolved_tail(tail, i);
        if (align.defined()) split.align = checked_align(align, loop_word(i));
        Dim inner_dim = s_.dims[i], outer_dim = s_.dims[i];
        inner_dim.var = inner.name();
        outer_dim.var = outer.name();
        s_.dims[i] = inner_dim;
        s_.dims.insert(s_.dims.begin() + i + 1, outer_dim);
        s_.splits.push_back(split);
    }

    void fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused) {
        size_t i = require_loop(inner.name(), "fuse");
        size_t o = require_loop(outer.name(), "fuse");
        if (o != i + 1) {
            fail("can't fuse " + loop_word(i) + " with " + loop_word(o) + ": " + outer.name() +
                 " must be the loop directly outside " + inner.name() + " (loops, innermost first: " + loop_list() +
                 "). reorder() them first.");
        }
        require_serial(i, "fuse", "fuse first, then mark the fused loop");
        require_serial(o, "fuse", "fuse first, then mark the fused loop");
        require_new_name(fused.name(), "", "fuse");
        Dim d;
        d.var = fused.name();
        d.is_rvar = s_.dims[i].is_rvar || s_.dims[o].is_rvar;
        if (s_.dims[i].partition == s_.dims[o].partition) d.partition = s_.dims[i].partition;
        s_.dims[i] = d;
        s_.dims.erase(s_.dims.begin() + o);
        Split split;
        split.kind = Split::FuseVars;
        split.old_var = fused.name();
        split.outer = outer.name();
        split.inner = inner.name();
        s_.splits.push_back(split);
    }

    void rename(const VarOrRVar &old, const VarOrRVar &new_name) {
        size_t i = require_loop(old.name(), "rename");
        require_new_name(new_name.name(), "", "rename");
        s_.dims[i].var = new_name.name();
        Split split;
        split.kind = Split::RenameVar;
        split.old_var = old.name();
        split.outer = new_name.name();
        s_.splits.push_back(split);
    }

    void reorder(const std::vector<VarOrRVar> &vars) {
        if (vars.empty()) fail("reorder() needs at least one loop.");
        std::vector<size_t> from;
        for (const VarOrRVar &v : vars) {
            size_t i = require_loop(v.name(), "reorder");
            if (std::find(from.begin(), from.end(), i) != from.end()) {
                fail("reorder() lists " + loop_word(i) + " twice; name each loop once.");
            }
            from.push_back(i);
        }
        std::vector<size_t> places = from;
        std::sort(places.begin(), places.end());
        std::vector<Dim> dims = s_.dims;
        std::vector<size_t> was(dims.size());  // new position -> old position
        for (size_t i = 0; i < dims.size(); i++) was[i] = i;
        for (size_t k = 0; k < from.size(); k++) {
            dims[places[k]] = s_.dims[from[k]];
            was[places[k]] = from[k];
        }
        // Two loops whose iterations depend on each other keep their order,
        // unless (as in Halide) the update is an associative and commutative
        // integer reduction such as f(x) += e: then any order gives the same
        // result.
        const bool any_order = reorders_freely();
        for (size_t a = 0; a < dims.size() && !any_order; a++) {
            for (size_t b = a + 1; b < dims.size(); b++) {
                if (was[a] < was[b]) continue;  // still inside
                std::string ra = dependent_rvar(was[a]), rb = dependent_rvar(was[b]);
                if (ra.empty() || rb.empty()) continue;
                fail("can't reorder " + loop_word(was[a]) + " and " + loop_word(was[b]) +
                     ": the iterations of the RVars they come from (" + ra + ", " + rb +
                     ") may depend on each other, so swapping them may change the result.");
            }
        }
        s_.dims = dims;
    }

    void set_for_type(const VarOrRVar &var, ForType type, const char *action) {
        size_t i = require_loop(var.name(), action);
        ForType current = s_.dims[i].for_type;
        if (current == type && type != ForType::Serial) {
            fail("can't " + std::string(action) + " " + loop_word(i) + ": it is already " + for_type_word(type) + ".");
        }
        if (current != ForType::Serial && current != type) {
            fail("can't " + std::string(action) + " " + loop_word(i) + ": it is already " + for_type_word(current) +
                 ", and a loop has one kind. Split it to get a loop for each.");
        }
        if (type == ForType::Vectorized || type == ForType::Parallel || is_gpu_loop(type)) {
            require_independent(i, action, !is_gpu_loop(type));
        }
        s_.dims[i].for_type = type;
        if (type != ForType::Unrolled) s_.dims[i].unroll_cascade.clear();
    }

    void set_partition(const VarOrRVar &var, Partition policy) {
        s_.dims[require_loop(var.name(), "set the loop partitioning of")].partition = policy;
    }

    void set_partition_all(Partition policy) {
        for (Dim &d : s_.dims) d.partition = policy;
    }

    /** gpu_blocks/gpu_threads: marks the loops (x first: the innermost of
     * its kind) and checks that there are at most three of each kind. */
    void set_gpu_loops(const std::vector<VarOrRVar> &vars, ForType type, DeviceAPI api, const char *action) {
        for (const VarOrRVar &v : vars) {
            set_for_type(v, type, action);
            s_.dims[require_loop(v.name(), action)].device_api = api;
        }
        int count = 0;
        for (const Dim &d : s_.dims) count += d.for_type == type;
        if (count > 3) {
            fail(std::string("can't ") + action + " " + vars.back().name() + ": the stage would have " +
                 std::to_string(count) + " GPU " + (type == ForType::GPUBlock ? "block" : "thread") +
                 " loops, and a GPU has at most three (x, y, z). Fuse loops first.");
        }
    }

    void gpu_single_thread(DeviceAPI api) {
        for (const Dim &d : s_.dims) {
            if (is_gpu_loop(d.for_type)) {
                fail("can't run on a single GPU thread: loop " + d.var + " is already " + for_type_word(d.for_type) +
                     ".");
            }
        }
        s_.single_thread_device_api = api;
    }

    /** A constant once the target is known: constants and target queries
     * (target_natural_vector_size<float>() * 2), nothing else. */
    static bool is_target_constant(const Expr &e) {
        struct Check : internal::IRGraphVisitor {
            bool ok = true;
            using internal::IRGraphVisitor::visit;
            void visit(const internal::Variable *) override { ok = false; }
            void visit(const internal::Load *) override { ok = false; }
            void visit(const internal::Call *op) override {
                const std::string &n = op->name;
                ok = ok && op->call_type == internal::CallType::PureIntrinsic &&
                     (n == internal::intrinsic::target_natural_vector_size || n == internal::intrinsic::target_bits);
                internal::IRGraphVisitor::visit(op);
            }
        } check;
        check.include(e);
        return check.ok;
    }

    /** vectorize/unroll/parallel with a factor: split off the part the
     * directive applies to, then mark it. */
    void split_and_mark(const VarOrRVar &var, const Expr &factor, TailStrategy tail, ForType type,
                        const char *action, const char *suffix, bool mark_outer) {
        size_t i = require_loop(var.name(), action);
        require_serial(i, action, "");
        if (type == ForType::Vectorized || type == ForType::Parallel) require_independent(i, action, true);
        Expr f;
        if (type == ForType::Parallel) {
            f = checked_factor(factor, loop_word(i), "task size");
        } else {
            f = checked_factor(factor, loop_word(i), std::string(action) + " factor");
            if (!internal::as_const_int(f) && !is_target_constant(f)) {
                fail("can't " + std::string(action) + " " + loop_word(i) + " by " + describe(factor) +
                     ": the factor must be a constant.");
            }
        }
        std::string inner = fresh_name(var.name() + suffix);
        bool is_rvar = s_.dims[i].is_rvar;
        split(var, var, VarOrRVar(inner, is_rvar), f, tail, action);
        set_for_type(mark_outer ? var : VarOrRVar(inner, is_rvar), type, action);
    }

    void unroll_cascade(const VarOrRVar &var, const std::vector<int> &factors) {
        size_t i = require_loop(var.name(), "unroll");
        std::string list;
        for (int n : factors) list += (list.empty() ? "" : ", ") + std::to_string(n);
        bool ok = !factors.empty() && factors.back() == 1;
        for (size_t k = 0; k < factors.size(); k++) {
            ok = ok && factors[k] > 0 && (k == 0 || factors[k] < factors[k - 1]);
        }
        if (!ok) {
            fail("can't unroll " + loop_word(i) + " with the cascade {" + list + "}: the block sizes must be "
                 "positive, strictly decreasing, and end with 1, e.g. {8, 4, 1}.");
        }
        set_for_type(var, ForType::Unrolled, "unroll");
        s_.dims[i].unroll_cascade = factors;
    }

    void compute_with(const internal::LoopLevel &level, LoopAlignStrategy align_default,
                      const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
        compute_with(level);
        s_.compute_with_align_default = static_cast<internal::LoopAlignStrategy>(align_default);
        s_.compute_with_align.clear();
        for (const auto &[var, strategy] : align) {
            if (find(var.name()) < 0) {
                fail("compute_with aligns loop " + var.name() + ", which this stage does not have (" + loop_list() +
                     "). Name one of its loops.");
            }
            s_.compute_with_align.emplace_back(var.name(), static_cast<internal::LoopAlignStrategy>(strategy));
        }
    }

    void compute_with(const internal::LoopLevel &level) {
        if (!specialization_.empty()) {
            fail("a specialization can't be fused by compute_with (its loops exist only when its condition "
                 "holds). Give compute_with to an unspecialized stage.");
        }
        if (level.kind == internal::LoopLevel::Root) {
            fail("compute_with needs a loop of another stage, not LoopLevel::root().");
        }
        if (level.kind == internal::LoopLevel::At && level.func == f_.name) {
            int other = level.stage < 0 ? f_.stages() - 1 : level.stage;
            if (other >= stage_) {
                fail("can't compute_with stage " + std::to_string(other) + " of " + f_.name + " at " + level.var +
                     ": a stage can only be fused with an earlier stage of its own Func (this is stage " +
                     std::to_string(stage_) + ").");
            }
        }
        s_.compute_with = level;
    }

    [[noreturn]] void fail(const std::string &message) const {
        throw CompileError("Schedule of " + stage_name() + " (" + stage_description() + "): " + message);
    }

    void set_atomic(bool override_associativity_test) {
        internal::check_atomic_update(f_, stage_, stage_name());
        s_.atomic = true;
        s_.override_associativity_test = override_associativity_test;
    }

    void add_prefetch(const std::string &name, const internal::Parameter &param, const VarOrRVar &at,
                      const VarOrRVar &from, const Expr &offset, PrefetchBoundStrategy strategy) {
        size_t a = require_loop(at.name(), "prefetch at");
        size_t b = require_loop(from.name(), "prefetch from");
        if (b < a) {
            fail("can't prefetch " + name + " at " + loop_word(a) + " from " + loop_word(b) + ": 'from' must be the "
                 "loop 'at' or a loop outside it (loops, innermost first: " + loop_list() + ").");
        }
        if (!offset.defined() || !offset.type().is_int_or_uint() || !offset.type().is_scalar()) {
            fail("can't prefetch " + name + ": the offset must be a scalar integer Expr (iterations of " +
                 loop_word(b) + " ahead).");
        }
        internal::PrefetchDirective p;
        p.name = name;
        p.param = param;
        p.at = at.name();
        p.from = from.name();
        p.offset = cast(Int(32), offset);
        p.strategy = strategy;
        s_.prefetches.push_back(p);
    }

private:
    Definition &def() { return f_.stage(stage_); }

    /** The schedule this editor changes: the stage's own, or that of the
     * specialization the path leads to (Stage::specialize). */
    StageSchedule &schedule() {
        if (specialization_.empty()) return def().schedule;
        std::vector<internal::Specialization> *list = &def().specializations;
        internal::Specialization *sp = nullptr;
        for (int i : specialization_) {
            if (i < 0 || i >= (int)list->size()) throw InternalError("Specialization index out of range for " + f_.name);
            sp = &(*list)[i];
            list = &sp->specializations;
        }
        return sp->schedule;
    }

    std::string stage_name() const {
        return stage_ == 0 ? f_.name : f_.name + ".update(" + std::to_string(stage_ - 1) + ")";
    }
    std::string stage_description() const {
        if (stage_ == 0) return "pure definition of Func " + f_.name;
        return "update definition " + std::to_string(stage_ - 1) + " of Func " + f_.name;
    }

    static std::string describe(const Expr &e) {
        std::ostringstream s;
        s << e;
        return s.str();
    }

    int find(const std::string &name) const {
        for (size_t i = 0; i < s_.dims.size(); i++) {
            if (s_.dims[i].var == name) return (int)i;
        }
        return -1;
    }

    std::string loop_word(size_t i) const { return (s_.dims[i].is_rvar ? "RVar " : "Var ") + s_.dims[i].var; }

    std::string loop_list() const {
        std::string s;
        for (const Dim &d : s_.dims) s += (s.empty() ? "" : ", ") + d.var;
        return s.empty() ? "none" : s;
    }

    /** What became of a loop that is gone, or "". */
    std::string fate(const std::string &name) const {
        for (auto it = s_.splits.rbegin(); it != s_.splits.rend(); ++it) {
            const Split &s = *it;
            if (s.kind == Split::SplitVar && s.old_var == name && s.outer != name && s.inner != name) {
                return "was already split into " + s.outer + " and " + s.inner;
            }
            if (s.kind == Split::RenameVar && s.old_var == name) return "was renamed to " + s.outer;
            if (s.kind == Split::FuseVars && (s.inner == name || s.outer == name)) {
                return "was fused into " + s.old_var;
            }
        }
        return "";
    }

    size_t require_loop(const std::string &name, const std::string &action) const {
        int i = find(name);
        if (i >= 0) return (size_t)i;
        std::string gone = fate(name);
        if (!gone.empty()) {
            fail("can't " + action + " " + name + ": it " + gone + ". Schedule the loops that replaced it (loops, "
                 "innermost first: " + loop_list() + ").");
        }
        fail("can't " + action + " " + name + ": it is not a loop of this stage (loops, innermost first: " +
             loop_list() + ").");
    }

    void require_serial(size_t i, const std::string &action, const std::string &hint) const {
        ForType t = s_.dims[i].for_type;
        if (t == ForType::Serial) return;
        fail("can't " + action + " " + loop_word(i) + ": it is already " + for_type_word(t) + "." +
             (hint.empty() ? "" : " To do both, " + hint + "."));
    }

    /** Whether name is taken: a loop now, a loop earlier, or a variable of
     * the definition. */
    bool name_in_use(const std::string &name) const {
        if (find(name) >= 0) return true;
        for (const Split &s : s_.splits) {
            if (s.old_var == name || s.outer == name || s.inner == name) return true;
        }
        for (const std::string &a : f_.args) {
            if (a == name) return true;
        }
        const Definition &d = f_.stage(stage_);
        if (d.rdom.defined()) {
            for (const internal::ReductionVariable &rv : d.rdom.domain()) {
                if (rv.var == name) return true;
            }
        }
        return false;
    }

    void require_new_name(const std::string &name, const std::string &may_reuse, const std::string &action) const {
        if (name.empty()) fail("can't " + action + ": a new loop needs a non-empty name.");
        if (name == may_reuse || !name_in_use(name)) return;
        fail("can't " + action + " into a loop named " + name + ": that name is already used by this stage (loops, "
             "innermost first: " + loop_list() + "). Use a new Var or RVar.");
    }

    std::string fresh_name(const std::string &base) const {
        std::string name = base;
        for (int n = 1; name_in_use(name); n++) name = base + std::to_string(n);
        return name;
    }

    /** A factor as Int(32); positive when it is a constant. */
    Expr checked_factor(const Expr &factor, const std::string &loop, const std::string &what) const {
        if (!factor.defined()) fail("the " + what + " for " + loop + " is undefined.");
        if (!factor.type().is_int_or_uint() || factor.type().is_vector()) {
            fail("the " + what + " for " + loop + " has type " + factor.type().to_string() +
                 "; it must be an integer.");
        }
        Expr f = factor.type() == Int(32) ? factor : cast(Int(32), factor);
        if (auto c = internal::as_const_int(f); c && *c <= 0) {
            fail("the " + what + " for " + loop + " is " + std::to_string(*c) + "; it must be positive.");
        }
        FindLoopVariable finder;
        finder.include(f);
        if (!finder.found.empty()) {
            fail("the " + what + " for " + loop + " uses the variable " + finder.found +
                 "; it may use constants and Params only.");
        }
        return f;
    }

    /** An aligned split's anchor as Int(32): an integer of constants and
     * Params, like a factor, of any sign. */
    Expr checked_align(const Expr &align, const std::string &loop) const {
        if (!align.type().is_int_or_uint() || align.type().is_vector()) {
            fail("the alignment of the split of " + loop + " has type " + align.type().to_string() +
                 "; it must be an integer.");
        }
        FindLoopVariable finder;
        finder.include(align);
        if (!finder.found.empty()) {
            fail("the alignment of the split of " + loop + " uses the variable " + finder.found +
                 "; it may use constants and Params only.");
        }
        return align.type() == Int(32) ? align : cast(Int(32), align);
    }

    /** Where loop `var` comes from: the inner loop of an earlier split (through
     * later splits, fuses and renames), or a split with a predicated tail. */
    struct Lineage {
        bool from_inner = false, from_predicated = false;
    };
    Lineage lineage(const std::string &var) const {
        Lineage l;
        std::vector<std::string> names = {var};
        auto named = [&](const std::string &n) { return std::find(names.begin(), names.end(), n) != names.end(); };
        for (auto it = s_.splits.rbegin(); it != s_.splits.rend(); ++it) {
            const Split &sp = *it;
            if (sp.kind == Split::SplitVar && (named(sp.inner) || named(sp.outer))) {
                l.from_inner = l.from_inner || named(sp.inner);
                l.from_predicated = l.from_predicated || sp.tail == internal::TailStrategy::PredicateLoads ||
                                    sp.tail == internal::TailStrategy::PredicateStores;
                names.push_back(sp.old_var);
            } else if (sp.kind == Split::RenameVar && named(sp.outer)) {
                names.push_back(sp.old_var);
            } else if (sp.kind == Split::FuseVars && named(sp.old_var)) {
                names.push_back(sp.inner);
                names.push_back(sp.outer);
            }
        }
        return l;
    }

    /** Halide's defaults for Auto, and the strategies each loop allows. */
    internal::TailStrategy resolved_tail(TailStrategy tail, size_t i) const {
        const bool is_update = stage_ > 0, is_rvar = s_.dims[i].is_rvar;
        const Lineage from = lineage(s_.dims[i].var);
        if (from.from_predicated) {
            fail("can't split " + loop_word(i) + ": it is a loop of a split with TailStrategy::PredicateLoads or "
                 "PredicateStores, which can't be split again (as in Halide). Make the predicated split the last "
                 "split of its Var, or give the earlier split another tail strategy.");
        }
        switch (tail) {
        case TailStrategy::Auto:
            if (!is_update) return internal::TailStrategy::ShiftInwards;
            // Rounding up a loop that comes from an inner split would run
            // points of the next outer iteration twice.
            return is_rvar || from.from_inner ? internal::TailStrategy::GuardWithIf : internal::TailStrategy::RoundUp;
        case TailStrategy::GuardWithIf: return internal::TailStrategy::GuardWithIf;
        case TailStrategy::RoundUp:
            if (is_rvar) {
                fail("can't split " + loop_word(i) + " with TailStrategy::RoundUp: rounding an RVar's extent up would "
                     "add iterations to the reduction. Use GuardWithIf.");
            }
            if (is_update && from.from_inner) {
                fail("can't split " + loop_word(i) + " with TailStrategy::RoundUp in an update: it comes from the "
                     "inner loop of an earlier split, so rounding it up would update points of the next iteration "
                     "of the outer loop twice (Halide refuses it too). Use GuardWithIf.");
            }
            return internal::TailStrategy::RoundUp;
        case TailStrategy::ShiftInwards:
            if (is_update) {
                fail("can't split " + loop_word(i) + " with TailStrategy::ShiftInwards: it computes some points twice, "
                     "which an update definition must not do. Use GuardWithIf or RoundUp.");
            }
            return internal::TailStrategy::ShiftInwards;
        case TailStrategy::PredicateLoads:
        case TailStrategy::PredicateStores:
            if (is_rvar) {
                fail("can't split " + loop_word(i) + " with TailStrategy::" +
                     (tail == TailStrategy::PredicateLoads ? "PredicateLoads" : "PredicateStores") +
                     ": it is not allowed for RVars. Use GuardWithIf.");
            }
            if (from.from_inner) {
                fail("can't split " + loop_word(i) + " with TailStrategy::" +
                     (tail == TailStrategy::PredicateLoads ? "PredicateLoads" : "PredicateStores") +
                     ": it comes from the inner loop of an earlier split, which a predicated tail can't split (as "
                     "in Halide). Use GuardWithIf, or split the original Var with the predicated tail.");
            }
            return tail == TailStrategy::PredicateLoads ? internal::TailStrategy::PredicateLoads
                                                        : internal::TailStrategy::PredicateStores;
        }
        throw InternalError("unknown TailStrategy");
    }

    bool reorders_freely() const {
        if (stage_ == 0) return false;
        const Definition &def = f_.stage(stage_);
        Expr predicate = def.rdom.defined() ? def.rdom.predicate() : Expr();
        if (def.predicate.defined()) predicate = predicate.defined() ? (predicate && def.predicate) : def.predicate;
        // Floating-point sums round differently in another order, and a
        // schedule never changes a result: integer and boolean reductions only.
        for (const Expr &v : def.values) {
            if (v.type().is_float()) return false;
        }
        internal::AssociativeOp op = internal::find_associative_op(f_, def.args, def.values, predicate);
        return op.associative && op.commutative;
    }

    std::string dependent_rvar(size_t i) const {
        return internal::dependent_rvar_of_loop(f_, f_.stage(stage_), s_, s_.dims[i].var);
    }

    /** atomic_ok: the loop becomes parallel or vectorized, which an atomic
     * update allows (Stage::atomic). */
    void require_independent(size_t i, const std::string &action, bool atomic_ok = false) const {
        std::string rvar = dependent_rvar(i);
        if (rvar.empty()) return;
        if (atomic_ok && s_.atomic) {
            if (!s_.override_associativity_test) internal::check_atomic_associative(f_, stage_, stage_name());
            return;
        }
        std::string of = rvar == s_.dims[i].var ? "" : " (of RVar " + rvar + ")";
        std::string atomic_hint =
            atomic_ok && stage_ > 0 ? " If the update is an associative reduction such as a histogram (" + f_.name +
                                          "(im(r)) += 1), call atomic() on the stage first: " + stage_name() +
                                          ".atomic() before this call."
                                    : "";
        fail("can't " + action + " " + loop_word(i) + ": its iterations" + of + " may depend on each other. Loom runs an RVar loop out of order only when the update writes " + f_.name + "(..., " + rvar +
             ", ...) with " + rvar + " as a bare argument and reads " + f_.name + " only at that same element." +
             atomic_hint);
    }

    FunctionContents &f_;
    int stage_;
    std::vector<int> specialization_;
    StageSchedule s_;
};

}  // namespace

std::string Stage::name() const {
    const std::string &f = func_.get()->name;
    return stage_ == 0 ? f : f + ".update(" + std::to_string(stage_ - 1) + ")";
}

Stage &Stage::split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                    TailStrategy tail) {
    StageEditor e(func_, stage_, specialization_);
    e.split(old, outer, inner, factor, tail);
    e.commit();
    return *this;
}

Stage &Stage::split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                    const Expr &align, TailStrategy tail) {
    StageEditor e(func_, stage_, specialization_);
    if (!align.defined()) e.fail("the alignment of the split of " + old.name() + " is undefined.");
    e.split(old, outer, inner, factor, tail, "split", align);
    e.commit();
    return *this;
}

Stage &Stage::fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused) {
    StageEditor e(func_, stage_, specialization_);
    e.fuse(inner, outer, fused);
    e.commit();
    return *this;
}

Stage &Stage::rename(const VarOrRVar &old, const VarOrRVar &new_name) {
    StageEditor e(func_, stage_, specialization_);
    e.rename(old, new_name);
    e.commit();
    return *this;
}

Stage &Stage::reorder(const std::vector<VarOrRVar> &vars) {
    StageEditor e(func_, stage_, specialization_);
    e.reorder(vars);
    e.commit();
    return *this;
}

Stage &Stage::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                   const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
                   TailStrategy tail) {
    return tile({x, y}, {xo, yo}, {xi, yi}, {xfactor, yfactor}, tail);
}

Stage &Stage::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                   const Expr &xfactor, const Expr &yfactor, TailStrategy tail) {
    return tile({x, y}, {x, y}, {xi, yi}, {xfactor, yfactor}, tail);
}

Stage &Stage::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                   const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors, TailStrategy tail) {
    StageEditor e(func_, stage_, specialization_);
    if (previous.empty() || outers.size() != previous.size() || inners.size() != previous.size() ||
        factors.size() != previous.size()) {
        e.fail("tile() needs as many outer names, inner names and factors as loops to tile (" +
               std::to_string(previous.size()) + ").");
    }
    for (size_t k = 0; k < previous.size(); k++) e.split(previous[k], outers[k], inners[k], factors[k], tail, "tile");
    std::vector<VarOrRVar> order = inners;
    order.insert(order.end(), outers.begin(), outers.end());
    e.reorder(order);
    e.commit();
    return *this;
}

Stage &Stage::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                   const std::vector<Expr> &factors, TailStrategy tail) {
    return tile(previous, previous, inners, factors, tail);
}

Stage &Stage::vectorize(const VarOrRVar &var) {
    StageEditor e(func_, stage_, specialization_);
    e.set_for_type(var, ForType::Vectorized, "vectorize");
    e.commit();
    return *this;
}

Stage &Stage::vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    StageEditor e(func_, stage_, specialization_);
    e.split_and_mark(var, factor, tail, ForType::Vectorized, "vectorize", "_vi", false);
    e.commit();
    return *this;
}

Stage &Stage::unroll(const VarOrRVar &var) {
    StageEditor e(func_, stage_, specialization_);
    e.set_for_type(var, ForType::Unrolled, "unroll");
    e.commit();
    return *this;
}

Stage &Stage::unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    StageEditor e(func_, stage_, specialization_);
    e.split_and_mark(var, factor, tail, ForType::Unrolled, "unroll", "_ui", false);
    e.commit();
    return *this;
}

Stage &Stage::unroll(const VarOrRVar &var, const std::vector<int> &factors) {
    StageEditor e(func_, stage_, specialization_);
    e.unroll_cascade(var, factors);
    e.commit();
    return *this;
}

Stage &Stage::parallel(const VarOrRVar &var) {
    StageEditor e(func_, stage_, specialization_);
    e.set_for_type(var, ForType::Parallel, "parallelize");
    e.commit();
    return *this;
}

Stage &Stage::parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail) {
    StageEditor e(func_, stage_, specialization_);
    e.split_and_mark(var, task_size, tail, ForType::Parallel, "parallelize", "_pi", true);
    e.commit();
    return *this;
}

Stage &Stage::atomic(bool override_associativity_test) {
    StageEditor e(func_, stage_, specialization_);
    e.set_atomic(override_associativity_test);
    e.commit();
    return *this;
}

Stage &Stage::prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from, Expr offset,
                       PrefetchBoundStrategy strategy) {
    StageEditor e(func_, stage_, specialization_);
    e.add_prefetch(f.name(), internal::Parameter(), at, from, offset, strategy);
    e.commit();
    return *this;
}

Stage &Stage::prefetch(const internal::Parameter &param, const VarOrRVar &at, const VarOrRVar &from, Expr offset,
                       PrefetchBoundStrategy strategy) {
    if (!param.defined() || !param.is_buffer()) {
        throw CompileError("prefetch() on " + name() + " needs a Func, an ImageParam or a Buffer, not a scalar Param.");
    }
    StageEditor e(func_, stage_, specialization_);
    e.add_prefetch(param.name(), param, at, from, offset, strategy);
    e.commit();
    return *this;
}

Stage &Stage::serial(const VarOrRVar &var) {
    StageEditor e(func_, stage_, specialization_);
    e.set_for_type(var, ForType::Serial, "make serial");
    e.commit();
    return *this;
}

Stage &Stage::partition(const VarOrRVar &var, Partition policy) {
    StageEditor e(func_, stage_, specialization_);
    e.set_partition(var, policy);
    e.commit();
    return *this;
}

Stage &Stage::never_partition(const std::vector<VarOrRVar> &vars) {
    for (const VarOrRVar &v : vars) partition(v, Partition::Never);
    return *this;
}

Stage &Stage::always_partition(const std::vector<VarOrRVar> &vars) {
    for (const VarOrRVar &v : vars) partition(v, Partition::Always);
    return *this;
}

Stage &Stage::never_partition_all() {
    StageEditor e(func_, stage_, specialization_);
    e.set_partition_all(Partition::Never);
    e.commit();
    return *this;
}

Stage &Stage::always_partition_all() {
    StageEditor e(func_, stage_, specialization_);
    e.set_partition_all(Partition::Always);
    e.commit();
    return *this;
}

// ---------------------------------------------------------------- GPU

Stage &Stage::gpu_blocks(const VarOrRVar &block_x, DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.set_gpu_loops({block_x}, ForType::GPUBlock, device_api, "make a GPU block loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu_blocks(const VarOrRVar &block_x, const VarOrRVar &block_y, DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.set_gpu_loops({block_x, block_y}, ForType::GPUBlock, device_api, "make a GPU block loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu_blocks(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &block_z,
                         DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.set_gpu_loops({block_x, block_y, block_z}, ForType::GPUBlock, device_api, "make a GPU block loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu_threads(const VarOrRVar &thread_x, DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.set_gpu_loops({thread_x}, ForType::GPUThread, device_api, "make a GPU thread loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu_threads(const VarOrRVar &thread_x, const VarOrRVar &thread_y, DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.set_gpu_loops({thread_x, thread_y}, ForType::GPUThread, device_api, "make a GPU thread loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu_threads(const VarOrRVar &thread_x, const VarOrRVar &thread_y, const VarOrRVar &thread_z,
                          DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.set_gpu_loops({thread_x, thread_y, thread_z}, ForType::GPUThread, device_api, "make a GPU thread loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu(const VarOrRVar &block_x, const VarOrRVar &thread_x, DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.set_gpu_loops({block_x}, ForType::GPUBlock, device_api, "make a GPU block loop of");
    e.set_gpu_loops({thread_x}, ForType::GPUThread, device_api, "make a GPU thread loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &thread_x,
                  const VarOrRVar &thread_y, DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.set_gpu_loops({block_x, block_y}, ForType::GPUBlock, device_api, "make a GPU block loop of");
    e.set_gpu_loops({thread_x, thread_y}, ForType::GPUThread, device_api, "make a GPU thread loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu(const VarOrRVar &block_x, const VarOrRVar &block_y, const VarOrRVar &block_z,
                  const VarOrRVar &thread_x, const VarOrRVar &thread_y, const VarOrRVar &thread_z,
                  DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.set_gpu_loops({block_x, block_y, block_z}, ForType::GPUBlock, device_api, "make a GPU block loop of");
    e.set_gpu_loops({thread_x, thread_y, thread_z}, ForType::GPUThread, device_api, "make a GPU thread loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu_single_thread(DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.gpu_single_thread(device_api);
    e.commit();
    return *this;
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx, const Expr &x_size,
                       TailStrategy tail, DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    e.split(x, bx, tx, x_size, tail, "gpu_tile");
    e.set_gpu_loops({bx}, ForType::GPUBlock, device_api, "make a GPU block loop of");
    e.set_gpu_loops({tx}, ForType::GPUThread, device_api, "make a GPU thread loop of");
    e.commit();
    return *this;
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size, TailStrategy tail,
                       DeviceAPI device_api) {
    return gpu_tile(x, x, tx, x_size, tail, device_api);
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx, const VarOrRVar &by,
                       const VarOrRVar &tx, const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                       TailStrategy tail, DeviceAPI device_api) {
    return gpu_tile_dims({x, y}, {bx, by}, {tx, ty}, {x_size, y_size}, tail, device_api);
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx, const VarOrRVar &ty,
                       const Expr &x_size, const Expr &y_size, TailStrategy tail, DeviceAPI device_api) {
    return gpu_tile_dims({x, y}, {x, y}, {tx, ty}, {x_size, y_size}, tail, device_api);
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &bx,
                       const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx, const VarOrRVar &ty,
                       const VarOrRVar &tz, const Expr &x_size, const Expr &y_size, const Expr &z_size,
                       TailStrategy tail, DeviceAPI device_api) {
    return gpu_tile_dims({x, y, z}, {bx, by, bz}, {tx, ty, tz}, {x_size, y_size, z_size}, tail, device_api);
}

Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &tx,
                       const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size, const Expr &y_size,
                       const Expr &z_size, TailStrategy tail, DeviceAPI device_api) {
    return gpu_tile_dims({x, y, z}, {x, y, z}, {tx, ty, tz}, {x_size, y_size, z_size}, tail, device_api);
}

Stage &Stage::gpu_tile_dims(const std::vector<VarOrRVar> &vars, const std::vector<VarOrRVar> &blocks,
                            const std::vector<VarOrRVar> &threads, const std::vector<Expr> &sizes, TailStrategy tail,
                            DeviceAPI device_api) {
    StageEditor e(func_, stage_, specialization_);
    for (size_t k = 0; k < vars.size(); k++) e.split(vars[k], blocks[k], threads[k], sizes[k], tail, "gpu_tile");
    std::vector<VarOrRVar> order = threads;
    order.insert(order.end(), blocks.begin(), blocks.end());
    e.reorder(order);
    e.set_gpu_loops(blocks, ForType::GPUBlock, device_api, "make a GPU block loop of");
    e.set_gpu_loops(threads, ForType::GPUThread, device_api, "make a GPU thread loop of");
    e.commit();
    return *this;
}

namespace {

internal::LoopLevel loop_of(const Stage &s, const VarOrRVar &var, const std::string &who) {
    if (!s.function().defined()) throw CompileError("compute_with on " + who + " with an undefined Stage.");
    return internal::LoopLevel::at(s.function().get()->name, var.name(), s.stage_index());
}

}  // namespace

Stage &Stage::compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align) {
    StageEditor e(func_, stage_, specialization_);
    e.compute_with(loop_of(s, var, name()), align, {});
    e.commit();
    return *this;
}

Stage &Stage::compute_with(const LoopLevel &level, LoopAlignStrategy align) {
    if (!level.defined()) {
        throw CompileError(name() + ".compute_with() was given an undefined LoopLevel (LoopLevel() is undefined, as "
                           "in Halide): pass LoopLevel(f, x) or a stage and a Var.");
    }
    StageEditor e(func_, stage_, specialization_);
    e.compute_with(level.to_internal(), align, {});
    e.commit();
    return *this;
}

Stage &Stage::compute_with(const Stage &s, const VarOrRVar &var,
                           const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    StageEditor e(func_, stage_, specialization_);
    e.compute_with(loop_of(s, var, name()), LoopAlignStrategy::Auto, align);
    e.commit();
    return *this;
}

Stage &Stage::compute_with(const LoopLevel &level, const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    if (!level.defined()) {
        throw CompileError(name() + ".compute_with() was given an undefined LoopLevel (LoopLevel() is undefined, as "
                           "in Halide): pass LoopLevel(f, x) or a stage and a Var.");
    }
    StageEditor e(func_, stage_, specialization_);
    e.compute_with(level.to_internal(), LoopAlignStrategy::Auto, align);
    e.commit();
    return *this;
}

}  // namespace loom
