#include "lower/PartitionLoops.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/Bounds.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/LoopNames.h"
#include "lower/StageLoopNest.h"
#include "lower/Stages.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

// An equality test is peeled only this close to an end of the loop.
constexpr int64_t kMaxPeel = 4;
// Expansions of lets larger than this are not analysed (they are rarely
// boundary tests, and expanding them could take long).
constexpr int kMaxExpansion = 2000;

// Each partitioned loop copies its body three times, and loops nest; bodies
// larger than this (counted roughly, in variables and statements) are left
// alone so code size stays reasonable.
constexpr int kMaxBodySize = 4000;
// Tests of a vectorized loop's lanes, and tests of c * v + k with c > 1 (a
// vector block's index, or a downsampling's 2 * x), partition a loop only
// when its body is at most this large (counted as BodySize does): every
// vectorized loop and every downsampling has such tests at an image's edges,
// and each partition triples a body. Since loops inside a prologue or
// epilogue stay whole (as in Halide), the 8-level local Laplacian's
// statement is 485 KB with 1000 (416 KB with 100; 516 KB with 100 and 759 KB
// with 1000 while they were partitioned too), and 1000 takes in the
// upsampling of its laplacian levels (clamped gathers at 100; a third of the
// app's time).
constexpr int kMaxLaneTestBodySize = 1000;

/** A rough size of a statement: its variables and statements. */
class BodySize : public IRVisitor {
public:
    int size = 0;

private:
    using IRVisitor::visit;
    void visit(const Variable *) override { size++; }
    void visit(const Let *op) override {
        if (++size <= kMaxBodySize) IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        if (++size <= kMaxBodySize) IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        if (++size <= kMaxBodySize) IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        if (++size <= kMaxBodySize) IRVisitor::visit(op);
    }
    void visit(const IfThenElse *op) override {
        if (++size <= kMaxBodySize) IRVisitor::visit(op);
    }
};

/** A test of the loop variable: its value `steady` holds for v in [lo, hi]
 * (either may be undefined: unbounded). */
struct Test {
    Expr lo, hi;
    Expr steady;
};

/** Finds the boundary tests of loop variable `var` in a loop body. */
class FindTests : public IRVisitor {
public:
    FindTests(const std::string &var, Expr loop_min, Expr loop_max, const Scope<Expr> &outer_lets,
              bool lane_tests, bool lane_clamps_only)
        : var_(var), loop_min_(std::move(loop_min)), loop_max_(std::move(loop_max)), outer_lets_(outer_lets),
          lane_tests_(lane_tests), lane_clamps_only_(lane_clamps_only) {}

    /** Valid replacements, by node. */
    std::map<const IRNode *, Expr> replacements() const {
        std::map<const IRNode *, Expr> r;
        for (const auto &[node, steady] : steady_) {
            if (!invalid_.count(node)) r[node] = steady;
        }
        return r;
    }
    /** The bounds every test found imposes on the steady range. */
    std::vector<Expr> lower_bounds, upper_bounds;

private:
    using IRVisitor::visit;

    void visit(const Let *op) override {
        op->value.accept(this);
        ScopedBinding<Expr> bind(lets_, op->name, op->value);
        op->body.accept(this);
    }
    void visit(const LetStmt *op) override {
        op->value.accept(this);
        ScopedBinding<Expr> bind(lets_, op->name, op->value);
        op->body.accept(this);
    }
    void visit(const For *op) override {
        op->min.accept(this);
        op->extent.accept(this);
        // Opaque inside, except the lanes of a vectorized loop of constant
        // range: they become a vector's lanes (this pass runs before
        // vectorize_loops, Halide's after), and a test of v that holds for
        // all lanes partitions v as a ramp's test would. Other inner loops
        // are partitioned on their own; using their variables here would
        // nest partitions and multiply the code.
        ScopedBinding<Expr> bind(lets_, op->name, Expr());
        auto constant = [&](const Expr &e) {
            Expr r = simplify(resolve_through_lets(e, outer_lets_));
            return as_const_int(r);
        };
        std::optional<int64_t> mn, extent;
        if (lane_tests_ && op->for_type == ForType::Vectorized) {
            mn = constant(op->min);
            extent = constant(op->extent);
        }
        const bool ranged = mn && extent && *extent > 0 && op->min.type() == loop_min_.type();
        if (ranged) {
            inner_loops_[op->name] = {op->min, make_const(op->min.type(), *mn + *extent - 1)};
        }
        // An unrolled loop of constant range is ranged for guards only (see
        // analyse): a guard must hold for all its iterations.
        bool unrolled = false;
        if (op->for_type == ForType::Unrolled) {
            auto umin = constant(op->min), uextent = constant(op->extent);
            if (umin && uextent && *uextent > 0 && op->min.type() == loop_min_.type()) {
                unrolled_loops_[op->name] = {op->min, make_const(op->min.type(), *umin + *uextent - 1)};
                unrolled = true;
            }
        }
        const bool scalar_loop = op->for_type != ForType::Vectorized;
        if (scalar_loop) inner_scalar_loops_++;
        op->body.accept(this);
        if (scalar_loop) inner_scalar_loops_--;
        if (unrolled) unrolled_loops_.erase(op->name);
        if (ranged) inner_loops_.erase(op->name);
    }
    void visit(const IfThenElse *op) override {
        in_guard_++;
        op->condition.accept(this);
        in_guard_--;
        op->then_case.accept(this);
        if (op->else_case.defined()) op->else_case.accept(this);
    }

    void visit(const Min *op) override { candidate(op, op->a, op->b); }
    void visit(const Max *op) override { candidate(op, op->a, op->b); }
    void visit(const EQ *op) override { candidate(op, op->a, op->b); }
    void visit(const NE *op) override { candidate(op, op->a, op->b); }
    void visit(const LT *op) override { candidate(op, op->a, op->b); }
    void visit(const LE *op) override { candidate(op, op->a, op->b); }
    void visit(const GT *op) override { candidate(op, op->a, op->b); }
    void visit(const GE *op) override { candidate(op, op->a, op->b); }

    void candidate(const IRNode *node, const Expr &a, const Expr &b) {
        a.accept(this);
        b.accept(this);
        std::optional<Test> t = analyse(node, a, b);
        if (!t) {
            invalid_.insert(node);
            return;
        }
        auto it = steady_.find(node);
        if (it != steady_.end() && !equal(it->second, t->steady)) invalid_.insert(node);
        steady_[node] = t->steady;
        if (t->lo.defined()) lower_bounds.push_back(t->lo);
        if (t->hi.defined()) upper_bounds.push_back(t->hi);
    }

    /** e with lets expanded and known tests replaced by their steady value,
     * or undefined if it reads memory, calls something impure, or names a
     * variable bound inside the loop that is not a let. */
    Expr steady_form(const Expr &e, int &budget) {
        struct Expand : IRMutator {
            FindTests &self;
            int &budget;
            bool failed = false;
            Expand(FindTests &s, int &b) : self(s), budget(b) {}
            using IRMutator::mutate;
            Expr mutate(const Expr &e) override {
                if (failed || --budget < 0) {
                    failed = true;
                    return e;
                }
                auto it = self.steady_.find(e.get());
                if (it != self.steady_.end() && !self.invalid_.count(e.get())) return mutate(it->second);
                return IRMutator::mutate(e);
            }
            using IRMutator::visit;
            Expr visit(const Variable *op) override {
                if (self.inner_loops_.count(op->name)) return op;  // see extreme_over_inner_loops
                if (const Expr *value = self.lets_.find(op->name)) {
                    if (!value->defined()) {
                        failed = true;
                        return op;
                    }
                    return mutate(*value);
                }
                return op;
            }
            Expr visit(const Load *op) override {
                failed = true;
                return op;
            }
            Expr visit(const Call *op) override {
                if (!op->is_pure()) failed = true;
                return IRMutator::visit(op);
            }
            Expr visit(const Let *op) override {
                failed = true;  // rare inside a test; not worth expanding
                return op;
            }
        } expand(*this, budget);
        Expr r = expand.mutate(e);
        return expand.failed ? Expr() : r;
    }

    /** a - b, simplified, if need be through the lets around the loop. */
    Expr distance(const Expr &a, const Expr &b) {
        Expr d = simplify(Sub::make(a, b));
        if (is_const(d)) return d;
        return resolve_through_lets(d, outer_lets_);
    }

    /** For a vector min or max of a ramp and a broadcast (a vectorized
     * clamp of an index), the scalar lane that decides it: min keeps the
     * ramp while its largest lane is at most the broadcast value, max while
     * its smallest lane is at least it. ea and eb become those scalars; false
     * if the operands are not such a pair. */
    static bool vector_clamp_lanes(IRNodeType kind, Expr &ea, Expr &eb, bool &ramp_is_a) {
        if (kind != IRNodeType::Min && kind != IRNodeType::Max) return false;
        ea = simplify(ea);
        eb = simplify(eb);
        const Ramp *ra = ea.as<Ramp>(), *rb = eb.as<Ramp>();
        const Broadcast *ba = ea.as<Broadcast>(), *bb = eb.as<Broadcast>();
        const Ramp *ramp = ra ? ra : rb;
        const Broadcast *other = ra ? bb : ba;
        if (!ramp || !other || !other->value.type().is_scalar()) return false;
        auto stride = as_const_int(ramp->stride);
        if (!stride) return false;
        const int64_t last = *stride * (ramp->lanes - 1);
        const int64_t offset = kind == IRNodeType::Min ? std::max<int64_t>(last, 0) : std::min<int64_t>(last, 0);
        Expr lane = simplify(Add::make(ramp->base, make_const(ramp->base.type(), offset)));
        ramp_is_a = ra != nullptr;
        Expr value = other->value;
        ea = ramp_is_a ? lane : value;
        eb = ramp_is_a ? value : lane;
        return true;
    }

    bool uses_inner_loop(const Expr &e) const {
        for (const auto &[name, range] : inner_loops_) {
            if (expr_uses_var(e, name)) return true;
        }
        return false;
    }

    /** e with each inner loop variable it uses replaced by the end of its
     * range that makes e largest (or smallest) where e is linear in it with
     * a constant coefficient; otherwise a bound of e over the variable's
     * range (an upsampling's x / 2 + x % 2 * 2 - 1: a vector's lanes read
     * at most (x + 7) / 2 + 1). Undefined when there is no such bound. */
    Expr extreme_over_inner_loops(Expr e, bool largest) const {
        for (const auto &[name, range] : inner_loops_) {
            if (!expr_uses_var(e, name)) continue;
            const Type t = range.first.type();
            Expr w = Variable::make(t, name);
            auto step = as_const_int(simplify(Sub::make(substitute(name, Add::make(w, make_one(t)), e), e)));
            if (step) {
                const bool at_max = (*step >= 0) == largest;
                e = simplify(substitute(name, at_max ? range.second : range.first, e));
            } else {
                Scope<Interval> lanes;
                lanes.push(name, Interval(range.first, range.second));
                Interval bound = bounds_of_expr_in_scope(e, lanes);
                e = largest ? bound.max : bound.min;
                if (!e.defined()) return Expr();
                e = simplify(e);
            }
            if (expr_uses_var(e, name)) return Expr();
        }
        return e;
    }

    /** A guard (an if's condition) inside a loop nested in the one
     * partitioned: it is tested on every iteration of that loop. */
    bool guard_in_inner_loop() const { return in_guard_ > 0 && inner_scalar_loops_ > 0; }

    std::optional<Test> analyse(const IRNode *node, const Expr &a, const Expr &b) {
        if (!guard_in_inner_loop() || unrolled_loops_.empty()) return analyse_ranged(node, a, b);
        // The guard of a block of unrolled rows (GuardWithIf) holds for the
        // whole block where it holds for the block's last row.
        const auto saved = inner_loops_;
        inner_loops_.insert(unrolled_loops_.begin(), unrolled_loops_.end());
        std::optional<Test> t = analyse_ranged(node, a, b);
        inner_loops_ = saved;
        return t;
    }

    std::optional<Test> analyse_ranged(const IRNode *node, const Expr &a, const Expr &b) {
        const bool vector = !a.type().is_scalar();
        if (!vector && a.type() != loop_min_.type()) return std::nullopt;
        int budget = kMaxExpansion;
        Expr ea = steady_form(a, budget), eb = steady_form(b, budget);
        if (!ea.defined() || !eb.defined()) return std::nullopt;
        // A clamp that is the same for every iteration of the loops inside:
        // its value is computed once per iteration of this loop (see
        // clamps_once_per_task). Comparisons are kept: a select or if on
        // them inside an inner loop is evaluated per inner iteration.
        const bool clamp = node->node_type == IRNodeType::Min || node->node_type == IRNodeType::Max;
        if (lane_clamps_only_ && clamp && !vector && !uses_inner_loop(ea) && !uses_inner_loop(eb)) {
            return std::nullopt;
        }
        bool ramp_is_a = false;
        if (vector) {
            if (!vector_clamp_lanes(node->node_type, ea, eb, ramp_is_a)) return std::nullopt;
            if (ea.type() != loop_min_.type()) return std::nullopt;
        }
        const bool va = expr_uses_var(ea, var_), vb = expr_uses_var(eb, var_);
        if (va == vb) return std::nullopt;  // no test of v, or v on both sides
        // The lane chosen above decides the clamp only if v is in the ramp.
        if (vector && va != ramp_is_a) return std::nullopt;
        Expr side = va ? ea : eb;
        const Expr &other = va ? eb : ea;
        // The lanes of a vectorized loop inside this one may appear on the
        // side of v only: the test must hold for all of them, so take the
        // side at its largest (min, <, <=) or smallest (max, >, >=) lane.
        if (uses_inner_loop(other)) return std::nullopt;
        if (uses_inner_loop(side)) {
            IRNodeType relation = node->node_type;
            if (!va) {
                if (relation == IRNodeType::LT || relation == IRNodeType::LE) relation = IRNodeType::GT;
                else if (relation == IRNodeType::GT || relation == IRNodeType::GE) relation = IRNodeType::LT;
            }
            bool largest;
            if (relation == IRNodeType::Min || relation == IRNodeType::LT || relation == IRNodeType::LE) {
                largest = true;
            } else if (relation == IRNodeType::Max || relation == IRNodeType::GT || relation == IRNodeType::GE) {
                largest = false;
            } else {
                return std::nullopt;
            }
            side = extreme_over_inner_loops(side, largest);
            if (!side.defined()) return std::nullopt;
        }
        Expr v = Variable::make(loop_min_.type(), var_);
        // side = c * v + k with a constant c > 0 (a vectorized index has
        // c = the vector width).
        Expr c_expr = simplify(Sub::make(substitute(var_, Add::make(v, make_one(v.type())), side), side));
        auto c = as_const_int(c_expr);
        if (!c || *c <= 0) return std::nullopt;
        // A large body: see kMaxLaneTestBodySize. Except a guard (an if, as
        // GuardWithIf makes) inside a loop nested in this one: it is tested
        // on every iteration of that loop, and an if around a block of
        // accumulators also keeps LLVM from holding them in registers
        // (apps/matmul's guarded rows around its k loop).
        if (*c != 1 && !lane_tests_ && !guard_in_inner_loop()) return std::nullopt;
        Expr k = simplify(Sub::make(side, Mul::make(make_const(v.type(), *c), v)));
        if (expr_uses_var(k, var_)) return std::nullopt;
        // c * v + k OP other, i.e. c * v OP t.
        Expr t = simplify(Sub::make(other, k));
        Expr one = make_one(t.type());
        // c * v <= e  <=>  v <= floor(e / c);  c * v >= e  <=>  v >= ceil(e / c).
        auto at_most = [&](const Expr &e) {
            return *c == 1 ? e : simplify(Div::make(e, make_const(e.type(), *c)));
        };
        auto at_least = [&](const Expr &e) {
            return *c == 1 ? e : simplify(Div::make(Add::make(e, make_const(e.type(), *c - 1)), make_const(e.type(), *c)));
        };
        Test test;
        const IRNodeType kind = node->node_type;
        if (kind == IRNodeType::Min || kind == IRNodeType::Max) {
            test.steady = va ? a : b;  // the operand that holds v
            if (kind == IRNodeType::Min) {
                test.hi = at_most(t);
            } else {
                test.lo = at_least(t);
            }
            return test;
        }
        // Comparisons, written as c * v OP t: flip when v was on the right.
        IRNodeType op = kind;
        if (!va) {
            if (op == IRNodeType::LT) op = IRNodeType::GT;
            else if (op == IRNodeType::GT) op = IRNodeType::LT;
            else if (op == IRNodeType::LE) op = IRNodeType::GE;
            else if (op == IRNodeType::GE) op = IRNodeType::LE;
        }
        // Equality tests: only v + k.
        if (*c != 1 && op != IRNodeType::LT && op != IRNodeType::LE && op != IRNodeType::GT && op != IRNodeType::GE) {
            return std::nullopt;
        }
        switch (op) {
        case IRNodeType::LT: test.hi = at_most(simplify(Sub::make(t, one))); break;
        case IRNodeType::LE: test.hi = at_most(t); break;
        case IRNodeType::GT: test.lo = at_least(simplify(Add::make(t, one))); break;
        case IRNodeType::GE: test.lo = at_least(t); break;
        case IRNodeType::EQ:
        case IRNodeType::NE: {
            auto from_start = as_const_int(distance(t, loop_min_));
            auto from_end = as_const_int(distance(loop_max_, t));
            if (from_start && *from_start >= 0 && *from_start < kMaxPeel) {
                test.lo = simplify(Add::make(t, one));
            } else if (from_end && *from_end >= 0 && *from_end < kMaxPeel) {
                test.hi = simplify(Sub::make(t, one));
            } else {
                return std::nullopt;
            }
            test.steady = make_bool(op == IRNodeType::NE);
            return test;
        }
        default: return std::nullopt;
        }
        test.steady = const_true();
        return test;
    }

    std::string var_;
    Expr loop_min_, loop_max_;
    const Scope<Expr> &outer_lets_;
    bool lane_tests_;
    bool lane_clamps_only_;  // min/max only of the lanes of inner vectorized (or unrolled) loops
    int inner_scalar_loops_ = 0;  // loops (not vectorized) around the node visited, inside the one partitioned
    int in_guard_ = 0;            // > 0 while visiting an if's condition
    Scope<Expr> lets_;  // undefined: a loop variable, not expandable
    // Vectorized loops inside the one partitioned, of constant range: name -> [min, max].
    std::map<std::string, std::pair<Expr, Expr>> inner_loops_;
    // Unrolled loops inside the one partitioned, of constant range.
    std::map<std::string, std::pair<Expr, Expr>> unrolled_loops_;
    std::map<const IRNode *, Expr> steady_;
    std::set<const IRNode *> invalid_;
};

/** Replaces the given nodes by their steady values. */
class ReplaceTests : public IRMutator {
public:
    explicit ReplaceTests(std::map<const IRNode *, Expr> r) : replace_(std::move(r)) {}
    using IRMutator::mutate;
    Expr mutate(const Expr &e) override {
        auto it = replace_.find(e.get());
        if (it != replace_.end()) return mutate(it->second);
        return IRMutator::mutate(e);
    }

private:
    std::map<const IRNode *, Expr> replace_;
};

Expr var_of(const std::string &name, Type t) { return Variable::make(t, name); }

bool contains_unrolled_loop(const Stmt &s) {
    struct Find : IRVisitor {
        bool found = false;
        using IRVisitor::visit;
        void visit(const For *op) override {
            if (op->for_type == ForType::Unrolled) found = true;
            if (!found) IRVisitor::visit(op);
        }
    } find;
    s.accept(&find);
    return find.found;
}

class PartitionLoops : public IRMutator {
public:
    explicit PartitionLoops(const std::map<std::string, Partition> &policies) : policies_(policies) {}

protected:
    using IRMutator::visit;

    Stmt visit(const LetStmt *op) override {
        ScopedBinding<Expr> bind(lets_, op->name, op->value);
        // The body of an unroll cascade is copied once per unrolled
        // iteration of each block size ({8, 4, 1}: 13 copies), with the
        // loops inside it. Those loops stay whole unless their policy is
        // Always, as in a prologue or epilogue: partitioning them multiplies
        // the cascade's copies by two or three at every level of the nest
        // (fuzz seed 1001848: a cascade of 13 around f1's 8 unrolled rows
        // around in0_bc's cascade of 7, with the steady and epilogue loops
        // of f1's and in0_bc's loops in each copy, 59,796 lines after
        // unrolling, 80 s of LLVM). Halide's unroll needs a constant
        // extent, so it has no such cascade.
        const For *f = op->body.as<For>();
        if (f && f->for_type == ForType::Unrolled && op->name == unroll_cascade_marker(f->name)) {
            Stmt body = boundary_part(op->body);
            if (body.same_as(op->body)) return op;
            return LetStmt::make(op->name, op->value, body);
        }
        return IRMutator::visit(op);
    }

    Stmt visit(const For *op) override {
        // Loops inside this one are partitioned after it, in its steady
        // state only (as Halide does; see boundary_part).
        auto recurse = [&]() { return IRMutator::visit(op); };
        const Partition policy = policy_of(op->name);
        const bool always = policy == Partition::Always;
        if (policy == Partition::Never) return recurse();
        if (op->for_type != ForType::Serial && op->for_type != ForType::Parallel) {
            if (always) no_partition(op, "it is not a serial or parallel loop");
            return recurse();
        }
        if (in_boundary_part_ > 0 && !always) return recurse();
        // A loop of at most one iteration (a Func computed per row of its
        // consumer, one row each) whose body holds an unrolled loop is left
        // whole: its parts would be up to three copies of everything the
        // unrolling copies, for one iteration. Halide makes any loop of
        // extent 1 a let before it partitions (remove_trivial_for_loops);
        // here only those around unrolled loops are left, since the tests
        // removed from the parts of the others (apps/matmul's packed_b,
        // apps/bilateral_grid's z_position) are kept as they were. Fuzz seed
        // 1021464: f3's rows, one per row of f4, held two nested unroll
        // cascades (64 copies) in each of three parts.
        if (!always && contains_unrolled_loop(op->body) &&
            can_prove(LE::make(resolve_through_lets(op->extent, lets_), make_one(op->extent.type())))) {
            return recurse();
        }
        const Stmt &body = op->body;
        BodySize size;
        body.accept(&size);
        if (size.size > kMaxBodySize && !always) return recurse();
        const Type t = op->min.type();
        const Expr one = make_one(t);
        const std::string start_name = op->name + ".loop_start", end_name = op->name + ".loop_end";
        const Expr start = var_of(start_name, t), end = var_of(end_name, t);

        // A parallel loop's iteration is a task. A clamp (min, max) of its
        // variable that is the same for every iteration of the loops inside
        // (other than the lanes of a vector) is computed once per task, and
        // partitioning on it only adds a second copy of the body for a few
        // tasks (a ShiftInwards split's last strip: histogram_equalize's
        // lookup, iir_blur's transposes; when the parts were three loops,
        // that strip ran on one thread while the other waited). Halide
        // partitions such a clamp only in an innermost loop
        // (likely_if_innermost).
        const bool clamps_once_per_task = op->for_type == ForType::Parallel && !always;
        FindTests finder(op->name, op->min, simplify(Sub::make(Add::make(op->min, op->extent), one)), lets_,
                         always || size.size <= kMaxLaneTestBodySize, clamps_once_per_task);
        body.accept(&finder);
        auto replacements = finder.replacements();
        if (replacements.empty()) {
            if (always) {
                no_partition(op, "its body tests the loop variable against no loop-invariant bound (a clamp, min, "
                                 "max, select or if of the loop variable)");
            }
            return recurse();
        }
        Stmt steady_body = ReplaceTests(replacements).mutate(body);

        // The steady range [steady_min, steady_end), clamped into the loop.
        const std::string smin_name = op->name + ".steady_min", send_name = op->name + ".steady_end";
        const Expr smin = var_of(smin_name, t), send = var_of(send_name, t);
        Expr lo = start;
        for (const Expr &b : finder.lower_bounds) lo = Max::make(lo, b);
        Expr hi_end = end;
        for (const Expr &b : finder.upper_bounds) hi_end = Min::make(hi_end, Add::make(b, one));
        Expr smin_value = simplify(Min::make(lo, end));
        Expr send_value = simplify(Max::make(hi_end, smin));

        Stmt result;
        {
            // The names above, for telling whether a part runs at most once.
            ScopedBinding<Expr> b1(lets_, start_name, op->min), b2(lets_, end_name, Add::make(start, op->extent));
            ScopedBinding<Expr> b3(lets_, smin_name, smin_value), b4(lets_, send_name, send_value);
            const bool prologue = !finder.lower_bounds.empty(), epilogue = !finder.upper_bounds.empty();
            if (op->for_type == ForType::Parallel) {
                result = parallel_parts(op, smin, send, prologue, epilogue, steady_body);
            } else {
                std::vector<Stmt> parts;
                if (prologue) parts.push_back(part(op, start, smin, boundary_part(body)));
                parts.push_back(part(op, smin, send, mutate(steady_body)));
                if (epilogue) parts.push_back(part(op, send, end, boundary_part(body)));
                result = Block::make(parts);
            }
        }
        result = LetStmt::make(send_name, send_value, result);
        result = LetStmt::make(smin_name, smin_value, result);
        result = LetStmt::make(end_name, Add::make(start, op->extent), result);
        return LetStmt::make(start_name, op->min, result);
    }

    Stmt visit(const Block *op) override {
        std::vector<Stmt> stmts;
        flatten_block(op, stmts);
        std::vector<Stmt> out;
        for (const Stmt &s : stmts) {
            Stmt m = mutate(s);
            if (!out.empty()) {
                if (Stmt fused = fuse_single_trip(out.back(), m); fused.defined()) {
                    out.back() = fused;
                    continue;
                }
            }
            out.push_back(m);
        }
        return Block::make(out);
    }

private:
    Partition policy_of(const std::string &loop) const {
        auto it = policies_.find(loop);
        return it == policies_.end() ? Partition::Auto : it->second;
    }

    /** The body of a prologue or epilogue, whose inner loops are left whole
     * unless their policy is Always. Halide partitions only the steady state
     * of a partitioned loop: a prologue or epilogue runs a few iterations, and
     * partitioning the loops inside it again multiplies the code by three at
     * every level of the nest (fuzz seed 1232: 7,873 lines, 1,958 loops, 122 s
     * of LLVM -O3). */
    Stmt boundary_part(const Stmt &body) {
        in_boundary_part_++;
        Stmt result = mutate(body);
        in_boundary_part_--;
        return result;
    }

    /** A parallel loop's parts as one parallel loop whose iterations each
     * pick their part, as Halide does:
     *
     *   parallel for (v) { if (v < steady_min || steady_end <= v) boundary else steady }
     *
     * Three loops would run the few boundary tasks after the steady ones,
     * alone while the other threads wait (apps/matmul when its groups of
     * rows were partitioned: the last group ran with one core idle). The
     * prologue and epilogue are the same statement, so it is made once. Each
     * boundary iteration is a task of its own, as long as a steady one: the
     * loops inside it are partitioned too (matmul's k loop would otherwise
     * test its guard on every update, with the accumulators in memory), except in
     * the boundary iterations of an enclosing parallel loop (there they stay
     * whole, as in a serial loop's prologue). */
    Stmt parallel_parts(const For *op, const Expr &smin, const Expr &send, bool prologue, bool epilogue,
                        const Stmt &steady_body) {
        Stmt boundary;
        if (parallel_boundaries_ > 0) {
            boundary = boundary_part(op->body);
        } else {
            parallel_boundaries_++;
            boundary = mutate(op->body);
            parallel_boundaries_--;
        }
        Stmt steady = mutate(steady_body);
        const Expr v = var_of(op->name, op->min.type());
        Expr outside;
        if (prologue) outside = LT::make(v, smin);
        if (epilogue) outside = outside.defined() ? Or::make(outside, LE::make(send, v)) : LE::make(send, v);
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api,
                         IfThenElse::make(outside, boundary, steady));
    }

    [[noreturn]] void no_partition(const For *op, const std::string &why) const {
        throw CompileError("Loop Partition Policy is set to Always for " + op->name +
                           ", but no loop partitioning was performed: " + why +
                           ". Use Partition::Auto (or never_partition) for this loop, or give its body a boundary "
                           "condition to partition on.");
    }

    /** The iterations [from, to) of loop op: a loop, or an if when the
     * range holds at most one iteration. */
    Stmt part(const For *op, const Expr &from, const Expr &to, const Stmt &body) {
        Expr count = Sub::make(to, from);
        if (can_prove(LE::make(resolve_through_lets(count, lets_), make_one(count.type())))) {
            return IfThenElse::make(LT::make(from, to), LetStmt::make(op->name, from, body));
        }
        return For::make(op->name, from, count, op->for_type, op->device_api, body);
    }

    /** Two loops over the same range that run at most once each, as one
     * loop; undefined if they are not such loops. */
    Stmt fuse_single_trip(const Stmt &a, const Stmt &b) {
        const For *fa = a.as<For>(), *fb = b.as<For>();
        if (!fa || !fb || fa->for_type != fb->for_type || fa->device_api != fb->device_api) return Stmt();
        if (!equal(fa->min, fb->min) || !equal(fa->extent, fb->extent)) return Stmt();
        if (fa->name != fb->name && stmt_uses_var(fb->body, fa->name)) return Stmt();
        Expr extent = resolve_through_lets(fa->extent, lets_);
        if (!can_prove(LE::make(extent, make_one(extent.type())))) return Stmt();
        Stmt second = fb->name == fa->name ? fb->body
                                           : substitute(fb->name, var_of(fa->name, fa->min.type()), fb->body);
        return For::make(fa->name, fa->min, fa->extent, fa->for_type, fa->device_api, Block::make(fa->body, second));
    }

    const std::map<std::string, Partition> &policies_;
    Scope<Expr> lets_;
    int in_boundary_part_ = 0;  // > 0 inside a prologue or epilogue
    int parallel_boundaries_ = 0;  // > 0 inside the boundary iterations of a parallel loop (parallel_parts)
};

}  // namespace

Stmt partition_loops(const Stmt &s, const std::map<std::string, Partition> &policies) {
    return PartitionLoops(policies).mutate(s);
}

namespace {

void add_policies(const std::vector<Dim> &dims, const std::vector<StageSpecialization> &specializations,
                  std::map<std::string, Partition> &policies) {
    for (const Dim &d : dims) {
        if (d.partition != Partition::Auto) policies[d.var] = d.partition;
    }
    for (const StageSpecialization &sp : specializations) add_policies(sp.dims, sp.specializations, policies);
}

}  // namespace

std::map<std::string, Partition> loop_partition_policies(const PipelineStages &pipeline) {
    std::map<std::string, Partition> policies;
    for (const auto &[name, stages] : pipeline.stages) {
        for (const Stage &stage : stages) add_policies(stage.dims, stage.specializations, policies);
    }
    return policies;
}

}  // namespace internal
}  // namespace loom
