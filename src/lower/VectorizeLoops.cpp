#include "lower/VectorizeLoops.h"

#include <cstdlib>
#include <iostream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "ir/CSE.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/LowerBitIntrinsics.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"
#include "lower/LoopNames.h"
#include "lower/Specialize.h"

namespace loom {
namespace internal {

namespace {

// Wider vectors than this are a schedule mistake (and slow to compile).
constexpr int64_t kMaxLanes = 1024;

/** Integer vector lets of at most this many nodes as a tree (the lets
 * before them substituted) are substituted into their uses as index
 * arithmetic; bigger ones stay bound (Widen::bind_value). */
constexpr int64_t kMaxSubstitutedTree = 256;

/** Thrown while widening a body that has to stay a serial loop. */
struct CannotVectorize {
    std::string why;
};

std::string to_text(const Expr &e) {
    std::ostringstream s;
    s << e;
    return s.str();
}

bool is_atomic_update(const Expr &e) {
    const Call *c = e.as<Call>();
    return c && c->is_intrinsic(intrinsic::atomic_update);
}

Expr broadcast_to(const Expr &e, int lanes) {
    if (e.type().lanes() == lanes) return e;
    if (!e.type().is_scalar()) throw InternalError("vectorize: cannot widen a vector of another width");
    return Broadcast::make(e, lanes);
}

/** An integer vector written as Ramp(base, stride) or Broadcast(value), or
 * a scalar (as a Broadcast of any width), decomposed so that integer
 * arithmetic on such vectors stays in that form: the code generators see
 * dense ramps for indices. */
struct Linear {
    Expr base, stride;  // stride undefined: a broadcast
    static bool of(const Expr &e, Linear &out) {
        if (!e.type().is_int_or_uint()) return false;
        if (e.type().is_scalar()) {
            out = Linear{e, Expr()};
            return true;
        }
        if (const auto *b = e.as<Broadcast>(); b && b->value.type().is_scalar()) {
            out = Linear{b->value, Expr()};
            return true;
        }
        if (const auto *r = e.as<Ramp>(); r && r->base.type().is_scalar()) {
            out = Linear{r->base, r->stride};
            return true;
        }
        return false;
    }
    Expr make(int lanes) const {
        if (!stride.defined() || is_const_zero(stride)) return Broadcast::make(base, lanes);
        return Ramp::make(base, stride, lanes);
    }
};

/** Whether every lane (all = true) or some lane (all = false) of a boolean
 * vector holds, as a scalar: cheap forms for broadcasts and for comparisons
 * of a ramp with a broadcast (only the first or last lane matters). */
Expr reduce_lanes(const Expr &cond, bool all) {
    if (cond.type().is_scalar()) return cond;
    if (const auto *b = cond.as<Broadcast>(); b && b->value.type().is_scalar()) return b->value;
    if (const auto *a = cond.as<And>(); a && all) return And::make(reduce_lanes(a->a, true), reduce_lanes(a->b, true));
    if (const auto *o = cond.as<Or>(); o && !all) return Or::make(reduce_lanes(o->a, false), reduce_lanes(o->b, false));
    const int lanes = cond.type().lanes();
    // lhs < / <= rhs over lanes, with lhs - rhs monotonic in the lane.
    auto endpoint = [&](const Expr &a, const Expr &b, bool strict) -> Expr {
        Linear la, lb;
        if (!Linear::of(a, la) || !Linear::of(b, lb)) return Expr();
        Expr sa = la.stride.defined() ? la.stride : make_zero(la.base.type());
        Expr sb = lb.stride.defined() ? lb.stride : make_zero(lb.base.type());
        auto step = as_const_int(sa), step_b = as_const_int(sb);
        if (!step || !step_b) return Expr();
        const int64_t slope = *step - *step_b;  // of lhs - rhs
        // "all" needs the lane where lhs - rhs is largest; "any" the smallest.
        const bool last = (slope > 0) == all;
        const int lane = last ? lanes - 1 : 0;
        Expr lhs = Add::make(la.base, Mul::make(sa, make_const(sa.type(), lane)));
        Expr rhs = Add::make(lb.base, Mul::make(sb, make_const(sb.type(), lane)));
        return strict ? LT::make(lhs, rhs) : LE::make(lhs, rhs);
    };
    Expr r;
    if (const auto *op = cond.as<LT>()) r = endpoint(op->a, op->b, true);
    if (const auto *op = cond.as<LE>()) r = endpoint(op->a, op->b, false);
    if (const auto *op = cond.as<GT>()) r = endpoint(op->b, op->a, true);
    if (const auto *op = cond.as<GE>()) r = endpoint(op->b, op->a, false);
    if (r.defined()) return r;
    return VectorReduce::make(all ? VectorReduce::And : VectorReduce::Or, cond, 1);
}

/** Masks every vector load and every store of a widened statement. */
class Predicate : public IRMutator {
public:
    explicit Predicate(Expr mask) : mask_(std::move(mask)) {}

protected:
    using IRMutator::visit;
    Expr combine(const Expr &existing) const { return existing.defined() ? And::make(existing, mask_) : mask_; }

    Expr visit(const Load *op) override {
        Expr index = mutate(op->index);
        Expr pred = op->predicate.defined() ? mutate(op->predicate) : Expr();
        if (op->type.lanes() != mask_.type().lanes()) {
            // A scalar load runs only when some lane is active (see below),
            // as in the serial loop.
            return Load::make(op->type, op->name, index, pred, op->param);
        }
        return Load::make(op->type, op->name, index, combine(pred), op->param);
    }
    Stmt visit(const Store *op) override {
        Expr value = mutate(op->value), index = mutate(op->index);
        Expr pred = op->predicate.defined() ? mutate(op->predicate) : Expr();
        return Store::make(op->name, value, index, combine(pred), op->param);
    }
    /** A vector trace event reports every lane; under a mask some lanes do
     * not run, so such a loop stays serial (one event per iteration). */
    Expr visit(const Call *op) override {
        if (op->is_intrinsic(intrinsic::trace) && op->type.is_vector()) {
            throw CannotVectorize{"a traced load or store under a condition that varies across lanes"};
        }
        return IRMutator::visit(op);
    }

private:
    Expr mask_;
};

/** Widens the body of one vectorized loop. */
class Widen : public IRMutator {
public:
    explicit Widen(int lanes) : lanes_(lanes) {}

    /** The loop, as straight-line code: var is bound to its first value. */
    Stmt loop(const std::string &var, const Expr &min, const Stmt &body) {
        bind_linear(var, Linear{Variable::make(min.type(), var), make_one(min.type())});
        Stmt widened = mutate(body);
        widened_.pop(var);
        return LetStmt::make(var, min, widened);
    }

    /** cond with var bound to its lanes: a vector when it differs between
     * lanes, else cond itself. */
    Expr condition(const std::string &var, const Expr &min, const Expr &cond) {
        bind_linear(var, Linear{min, make_one(min.type())});
        Expr widened = mutate(cond);
        widened_.pop(var);
        return widened;
    }

    using IRMutator::mutate;
    Expr mutate(const Expr &e) override {
        if (e.defined() && e.type().is_vector()) throw CannotVectorize{"the body already holds vectors"};
        return IRMutator::mutate(e);
    }

protected:
    using IRMutator::visit;

    Expr visit(const Variable *op) override {
        if (const Expr *w = widened_.find(op->name)) return w->defined() ? *w : Expr(op);
        return op;
    }

    // ---- arithmetic ----------------------------------------------------

    template<typename T>
    Expr widen_binary(const T *op) {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return T::make(broadcast_to(a, lanes_), broadcast_to(b, lanes_));
    }

    /** a + b or a - b (sign -1) kept linear where both are. */
    Expr widen_add_sub(const Expr &orig, const Expr &a0, const Expr &b0, bool subtract) {
        Expr a = mutate(a0), b = mutate(b0);
        if (a.same_as(a0) && b.same_as(b0)) return orig;
        Linear la, lb;
        if (Linear::of(a, la) && Linear::of(b, lb)) {
            Expr base = subtract ? Sub::make(la.base, lb.base) : Add::make(la.base, lb.base);
            Expr stride;
            if (la.stride.defined() && lb.stride.defined()) {
                stride = subtract ? Sub::make(la.stride, lb.stride) : Add::make(la.stride, lb.stride);
            } else if (la.stride.defined()) {
                stride = la.stride;
            } else if (lb.stride.defined()) {
                stride = subtract ? Sub::make(make_zero(lb.stride.type()), lb.stride) : lb.stride;
            }
            return Linear{base, stride}.make(lanes_);
        }
        a = broadcast_to(a, lanes_);
        b = broadcast_to(b, lanes_);
        return subtract ? Sub::make(a, b) : Add::make(a, b);
    }

    Expr visit(const Add *op) override { return widen_add_sub(op, op->a, op->b, false); }
    Expr visit(const Sub *op) override { return widen_add_sub(op, op->a, op->b, true); }
    Expr visit(const Mul *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        Linear la, lb;
        if (Linear::of(a, la) && Linear::of(b, lb) && (!la.stride.defined() || !lb.stride.defined())) {
            // (base + i * stride) * c = base * c + i * (stride * c)
            const Linear &ramp = la.stride.defined() ? la : lb;
            const Expr &c = la.stride.defined() ? lb.base : la.base;
            Expr stride = ramp.stride.defined() ? Mul::make(ramp.stride, c) : Expr();
            return Linear{Mul::make(ramp.base, c), stride}.make(lanes_);
        }
        return Mul::make(broadcast_to(a, lanes_), broadcast_to(b, lanes_));
    }
    Expr visit(const Div *op) override { return widen_binary(op); }
    Expr visit(const Mod *op) override { return widen_binary(op); }
    Expr visit(const Min *op) override { return widen_binary(op); }
    Expr visit(const Max *op) override { return widen_binary(op); }
    Expr visit(const EQ *op) override { return widen_binary(op); }
    Expr visit(const NE *op) override { return widen_binary(op); }
    Expr visit(const LT *op) override { return widen_binary(op); }
    Expr visit(const LE *op) override { return widen_binary(op); }
    Expr visit(const GT *op) override { return widen_binary(op); }
    Expr visit(const GE *op) override { return widen_binary(op); }
    Expr visit(const And *op) override { return widen_binary(op); }
    Expr visit(const Or *op) override { return widen_binary(op); }

    Expr visit(const Select *op) override {
        Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
        if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return op;
        // A scalar condition may pick between whole vectors.
        if (c.type().is_vector() || t.type().is_vector() || f.type().is_vector()) {
            t = broadcast_to(t, lanes_);
            f = broadcast_to(f, lanes_);
        }
        return Select::make(c, t, f);
    }

    Expr visit(const Cast *op) override {
        Expr v = mutate(op->value);
        if (v.same_as(op->value)) return op;
        return Cast::make(op->type.with_lanes(v.type().lanes()), v);
    }
    Expr visit(const Reinterpret *op) override {
        Expr v = mutate(op->value);
        if (v.same_as(op->value)) return op;
        return Reinterpret::make(op->type.with_lanes(v.type().lanes()), v);
    }

    // ---- memory --------------------------------------------------------

    Expr visit(const Load *op) override {
        Expr index = mutate(op->index);
        Expr pred = op->predicate.defined() ? mutate(op->predicate) : Expr();
        if (index.same_as(op->index) && pred.same_as(op->predicate)) return op;
        index = broadcast_to(index, lanes_);
        if (pred.defined()) pred = broadcast_to(pred, lanes_);
        return Load::make(op->type.with_lanes(lanes_), op->name, index, pred, op->param);
    }

    Stmt visit(const Store *op) override {
        Expr value = mutate(op->value), index = mutate(op->index);
        Expr pred = op->predicate.defined() ? mutate(op->predicate) : Expr();
        if (index.type().is_scalar() && !is_atomic_update(value)) {
            // Every lane would write the same element; the serial loop's
            // order decides which value stays, and later lanes may read it.
            // (An atomic update applies each lane's update in turn.)
            throw CannotVectorize{"store to " + op->name + " at an index that does not depend on the loop"};
        }
        index = broadcast_to(index, lanes_);
        if (is_atomic_update(value) && value.type().is_scalar()) {
            const Call *c = value.as<Call>();
            value = Call::make(value.type().with_lanes(lanes_), c->name, {broadcast_to(c->args[0], lanes_)},
                               c->call_type);
        }
        value = broadcast_to(value, lanes_);
        if (pred.defined()) pred = broadcast_to(pred, lanes_);
        return Store::make(op->name, value, index, pred, op->param);
    }

    // ---- calls ---------------------------------------------------------

    static bool is_lanewise_intrinsic(const Call *op) {
        static const char *names[] = {intrinsic::likely,      intrinsic::promise_clamped, intrinsic::abs,
                                      intrinsic::is_nan,      intrinsic::bitwise_and,     intrinsic::bitwise_or,
                                      intrinsic::bitwise_xor, intrinsic::bitwise_not,     intrinsic::shift_left,
                                      intrinsic::shift_right};
        for (const char *n : names) {
            if (op->is_intrinsic(n)) return true;
        }
        return is_bit_intrinsic(op);
    }

    Expr visit(const Call *op) override {
        if (op->is_intrinsic(intrinsic::atomic_update)) {
            // A store's atomic read-modify-write (lower/LowerAtomics.h): the
            // back end applies it lane by lane.
            Expr v = mutate(op->args[0]);
            if (v.same_as(op->args[0])) return op;
            v = broadcast_to(v, lanes_);
            return Call::make(v.type(), op->name, {v}, op->call_type);
        }
        if (op->is_intrinsic(intrinsic::trace)) return vectorize_trace(op);
        const bool lanewise = op->call_type == CallType::PureExtern || is_lanewise_intrinsic(op);
        if (!op->is_pure()) throw CannotVectorize{"call to " + op->name + ", which has side effects"};
        std::vector<Expr> args;
        bool changed = mutate_exprs(op->args, args);
        if (!changed) return op;
        if (!lanewise) throw CannotVectorize{"call to " + op->name + " with arguments that vary across lanes"};
        // Every argument gets all lanes: both back ends then apply the
        // function lane by lane (LLVM intrinsics for the math functions it
        // knows, a call per lane for the others).
        for (Expr &a : args) a = broadcast_to(a, lanes_);
        return Call::make(op->type.with_lanes(lanes_), op->name, args, op->call_type, op->func, op->value_index,
                          op->param);
    }

    /** A traced load or store (lower/InjectTracing.cpp) becomes one event
     * for all lanes, as in Halide: its value and coordinates get every lane,
     * and the back ends report them as a vector event (type.lanes > 1).
     * Other trace events (realizations, produce/consume) sit outside the
     * loop body and never vary across lanes. */
    Expr vectorize_trace(const Call *op) {
        std::vector<Expr> args;
        if (!mutate_exprs(op->args, args)) return op;
        const auto *event = op->args[1].as<IntImm>();
        const bool has_value = event && (event->value == loom_trace_load || event->value == loom_trace_store);
        for (size_t k = 0; k < 5; k++) {
            if (args[k].type().is_vector()) {
                throw CannotVectorize{"a trace event whose " + std::string(k == 4 ? "parent" : "name") +
                                      " varies across lanes"};
            }
        }
        if (!has_value) throw CannotVectorize{"a trace event other than a load or store inside the loop"};
        for (size_t k = 5; k < args.size(); k++) args[k] = broadcast_to(args[k], lanes_);
        return Call::make(op->type.with_lanes(lanes_), op->name, args, op->call_type);
    }

    // ---- lets ----------------------------------------------------------

    /** Binds name in the body being widened; returns the value the let
     * should bind (a scalar base when the vector is linear), or undefined
     * when the value is substituted instead. */
    Expr bind_value(const std::string &name, const Expr &value) {
        if (value.type().is_scalar()) {
            widened_.push(name, Expr());  // shadows any outer widened name
            return value;
        }
        Linear l;
        if (Linear::of(value, l) && (!l.stride.defined() || is_const(l.stride) || l.stride.as<Variable>())) {
            bind_linear(name, Linear{Variable::make(l.base.type(), name), l.stride});
            return l.base;
        }
        // Other integer vectors (index arithmetic) are substituted into
        // their uses rather than let-bound: the simplifier's bounds reasoning
        // takes an integer Variable for a scalar, and a vector-typed one in a
        // comparison breaks it. LLVM merges the repeated computations again.
        // Values (floats, booleans) stay bound: substituting a value read
        // several times copies it into each read, and a chain of such lets
        // (common subexpressions of inlined Funcs) would grow exponentially.
        // So do integer values too big to be index arithmetic: in a chain of
        // inlined integer Funcs each let's value, substituted, holds all
        // the lets before it.
        if (!value.type().is_int_or_uint() || expr_tree_size(value, kMaxSubstitutedTree + 1) > kMaxSubstitutedTree) {
            widened_.push(name, Variable::make(value.type(), name));
            return value;
        }
        widened_.push(name, value);
        return Expr();
    }

    void bind_linear(const std::string &name, const Linear &l) { widened_.push(name, l.make(lanes_)); }

    Expr visit(const Let *op) override {
        Expr value = bind_value(op->name, mutate(op->value));
        Expr body = mutate(op->body);
        widened_.pop(op->name);
        if (!value.defined()) return body;
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, value, body);
    }

    Stmt visit(const LetStmt *op) override {
        Expr value = bind_value(op->name, mutate(op->value));
        Stmt body = mutate(op->body);
        widened_.pop(op->name);
        if (!value.defined()) return body;
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }

    // ---- statements ----------------------------------------------------

    Stmt visit(const For *op) override {
        if (op->for_type != ForType::Serial && op->for_type != ForType::Unrolled) {
            throw CannotVectorize{"inner loop " + op->name + " is not serial"};
        }
        Expr min = mutate(op->min), extent = mutate(op->extent);
        if (!min.same_as(op->min) || !extent.same_as(op->extent)) {
            throw CannotVectorize{"the bounds of inner loop " + op->name + " vary across lanes"};
        }
        widened_.push(op->name, Expr());
        Stmt body = mutate(op->body);
        widened_.pop(op->name);
        if (body.same_as(op->body)) return op;
        return For::make(op->name, min, extent, op->for_type, op->device_api, body);
    }

    Stmt visit(const IfThenElse *op) override {
        Expr cond = mutate(op->condition);
        Stmt then_case = mutate(op->then_case);
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        if (cond.type().is_scalar()) {
            if (cond.same_as(op->condition) && then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) {
                return op;
            }
            return IfThenElse::make(cond, then_case, else_case);
        }
        // Lanes disagree: run the plain vector code when they all take the
        // same branch, and masked code otherwise (lanes whose branch is not
        // taken touch no memory; scalar loads run only if some lane needs
        // them, as in the serial loop).
        Expr all_then = reduce_lanes(cond, true), some_then = reduce_lanes(cond, false);
        Stmt masked_then = Predicate(cond).mutate(then_case);
        if (!else_case.defined()) {
            return IfThenElse::make(all_then, then_case, IfThenElse::make(some_then, masked_then));
        }
        Stmt masked = Block::make(masked_then, Predicate(Not::make(cond)).mutate(else_case));
        return IfThenElse::make(all_then, then_case, IfThenElse::make(some_then, masked, else_case));
    }

    Stmt visit(const AssertStmt *op) override {
        Expr cond = mutate(op->condition);
        if (!cond.same_as(op->condition)) throw CannotVectorize{"an assertion varies across lanes"};
        return IRMutator::visit(op);
    }
    Stmt visit(const Allocate *op) override { throw CannotVectorize{"allocation of " + op->name + " in the loop"}; }
    Stmt visit(const Free *op) override { throw CannotVectorize{"free of " + op->name + " in the loop"}; }
    Stmt visit(const While *) override { throw CannotVectorize{"a while loop in the loop"}; }
    Stmt visit(const Realize *op) override { throw InternalError("vectorize: Realize of " + op->name + " after flattening"); }
    Stmt visit(const Provide *op) override { throw InternalError("vectorize: Provide to " + op->name + " after flattening"); }

private:
    int lanes_;
    /** Names whose value in the body is a vector (undefined: a scalar that
     * shadows one). */
    Scope<Expr> widened_;
};

/** Whether lanes may run together: each buffer written in the body is
 * written at one index only, which is a ramp (distinct lanes) if the body
 * also reads the buffer, and read at that same index only. Buffers in
 * `exempt` are skipped: the loop's own Func, whose lanes are independent by
 * construction (see independent_lane_buffers). */
class CheckLaneIndependence : public IRVisitor {
public:
    explicit CheckLaneIndependence(const std::set<std::string> &exempt) : exempt_(exempt) {}

    bool ok = true;

    void finish() {
        for (const auto &[name, stores] : stores_) {
            if (exempt_.count(name)) continue;
            for (const Expr &s : stores) {
                if (!equal(s, stores[0])) ok = false;
            }
            auto loads = loads_.find(name);
            if (loads == loads_.end()) continue;
            // Distinct lanes need a ramp with a non-zero stride. A symbolic
            // stride (a buffer's) is taken to be non-zero: distinct
            // coordinates of a buffer do not share memory.
            const Ramp *r = stores[0].as<Ramp>();
            if (!r || is_const_zero(r->stride)) ok = false;
            for (const Expr &l : loads->second) {
                if (!equal(l, stores[0])) ok = false;
            }
        }
    }

private:
    using IRVisitor::visit;
    void visit(const Store *op) override {
        if (is_atomic_update(op->value)) {
            // Each lane is one atomic read-modify-write of the element it
            // stores (lower/LowerAtomics.h): lanes that hit the same element
            // apply their updates in turn, and the value reads the buffer
            // only there. Other buffers it reads still count.
            atomic_store_ = op->name;
            IRVisitor::visit(op);
            atomic_store_.clear();
            return;
        }
        stores_[op->name].push_back(op->index);
        IRVisitor::visit(op);
    }
    void visit(const Load *op) override {
        if (op->name != atomic_store_) loads_[op->name].push_back(op->index);
        IRVisitor::visit(op);
    }
    std::string atomic_store_;
    const std::set<std::string> &exempt_;
    std::map<std::string, std::vector<Expr>> stores_, loads_;
};

/** Whether e has a VectorReduce (an expensive test of every lane). */
class HasVectorReduce : public IRVisitor {
public:
    bool found = false;

protected:
    using IRVisitor::visit;
    void visit(const VectorReduce *) override { found = true; }
};

/** A vectorized loop whose body is guarded per lane by linear conditions,
 * as a GuardWithIf tail is ("let x = base + lane; if (x <= max) ..."): the
 * body with those guards removed, and a scalar test that every lane passes
 * them. The guards are the conditions of the ifs (without else) reached from
 * the top of the body through lets and other such ifs. */
struct LaneGuards {
    Stmt unguarded;
    Expr all_lanes_pass;
};

std::optional<LaneGuards> split_lane_guards(const For *loop, int lanes) {
    std::vector<const LetStmt *> lets;  // enclosing the current statement, outermost first
    Expr all;
    std::function<Stmt(const Stmt &)> strip = [&](const Stmt &st) -> Stmt {
        if (const LetStmt *let = st.as<LetStmt>()) {
            lets.push_back(let);
            Stmt body = strip(let->body);
            lets.pop_back();
            return body.same_as(let->body) ? st : LetStmt::make(let->name, let->value, body);
        }
        const IfThenElse *guard = st.as<IfThenElse>();
        if (!guard || guard->else_case.defined()) return st;
        Expr cond = guard->condition;
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) cond = substitute((*it)->name, (*it)->value, cond);
        Stmt then_case = strip(guard->then_case);
        Expr widened;
        try {
            widened = Widen(lanes).condition(loop->name, Variable::make(loop->min.type(), loop->name), cond);
        } catch (const CannotVectorize &) {
            return IfThenElse::make(guard->condition, then_case);
        }
        if (widened.type().is_scalar()) return IfThenElse::make(guard->condition, then_case);
        Expr every = reduce_lanes(widened, true);
        HasVectorReduce check;
        every.accept(&check);
        if (check.found) return IfThenElse::make(guard->condition, then_case);
        all = all.defined() ? And::make(all, every) : every;
        return then_case;
    };
    Stmt unguarded = strip(loop->body);
    if (!all.defined()) return std::nullopt;
    // The test reads the loop variable as its first lane.
    return LaneGuards{unguarded, substitute(loop->name, loop->min, all)};
}

class VectorizeLoops : public IRMutator {
public:
    explicit VectorizeLoops(const std::map<std::string, std::set<std::string>> &independent)
        : independent_(independent) {}

protected:
    using IRMutator::visit;

    Stmt visit(const LetStmt *op) override {
        ScopedBinding<Expr> bind(lets_, op->name, op->value);
        return IRMutator::visit(op);
    }

    Stmt visit(const For *op) override {
        if (op->for_type != ForType::Vectorized) return IRMutator::visit(op);
        Stmt body = mutate(op->body);  // inner vectorized loops first
        auto n = bounded_extent(op, lets_, body);  // lanes past a bounded extent are guarded off
        if (!n) {
            throw CompileError("Can't vectorize " + describe_loop(op->name) + ": its extent (" +
                               to_text(resolve_through_lets(op->extent, lets_)) +
                               ") is not a constant, nor bounded by one. Split it by a constant factor and "
                               "vectorize the inner loop (vectorize(x, 8) does both).");
        }
        if (*n > kMaxLanes) {
            throw CompileError("Can't vectorize " + describe_loop(op->name) + ": " + std::to_string(*n) +
                               " lanes is more than " + std::to_string(kMaxLanes) +
                               ". Split it and vectorize the inner loop.");
        }
        if (*n <= 0) return Evaluate::make(Expr(0));
        if (*n == 1) return LetStmt::make(op->name, op->min, body);
        Stmt serial = For::make(op->name, op->min, op->extent, ForType::Serial, op->device_api, body);
        // Guarded lanes (a GuardWithIf tail): whole vectors without masks
        // while every lane passes the guards, the scalar loop for the last,
        // partial vector (smaller and quicker to compile than masked code).
        if (auto guards = split_lane_guards(serial.as<For>(), (int)*n)) {
            if (Stmt fast = widen_checked(op->name, op->min, guards->unguarded, (int)*n); fast.defined()) {
                return IfThenElse::make(guards->all_lanes_pass, fast, serial);
            }
        }
        try {
            Stmt widened = Widen((int)*n).loop(op->name, op->min, body);
            static const std::set<std::string> none;
            auto own = independent_.find(op->name);
            CheckLaneIndependence check(own == independent_.end() ? none : own->second);
            widened.accept(&check);
            check.finish();
            if (check.ok) return widened;
            report_serial(op->name, "its lanes may depend on each other (a buffer is written at one element and "
                                    "read or written at another)");
        } catch (const CannotVectorize &e) {
            report_serial(op->name, e.why);
        }
        return serial;
    }

private:
    /** The widened loop, or undefined when it cannot be widened (quietly:
     * the caller falls back to the general path, which reports). */
    Stmt widen_checked(const std::string &var, const Expr &min, const Stmt &body, int lanes) {
        try {
            Stmt widened = Widen(lanes).loop(var, min, body);
            auto own = independent_.find(var);
            static const std::set<std::string> none;
            CheckLaneIndependence check(own == independent_.end() ? none : own->second);
            widened.accept(&check);
            check.finish();
            if (check.ok) return widened;
        } catch (const CannotVectorize &) {
        }
        return Stmt();
    }

    /** A vectorize that degrades to a serial loop is not an error (the
     * results are the same); LOOM_DEBUG_LOWER=1 says why it happened. */
    static void report_serial(const std::string &loop, const std::string &why) {
        static const bool enabled = [] {
            const char *v = std::getenv("LOOM_DEBUG_LOWER");
            return v && *v && std::string(v) != "0";
        }();
        if (enabled) std::cerr << "vectorize_loops: " << describe_loop(loop) << " stays serial: " << why << "\n";
    }

    const std::map<std::string, std::set<std::string>> &independent_;
    Scope<Expr> lets_;
};

}  // namespace

std::map<std::string, std::set<std::string>> independent_lane_buffers(
    const PipelineStages &pipeline, const std::map<std::pair<std::string, int>, Expr> &folds) {
    std::map<std::string, std::set<std::string>> result;
    for (const auto &[name, stages] : pipeline.stages) {
        // A folded dimension maps distinct coordinates to one slot.
        bool folded = false;
        for (const auto &[key, factor] : folds) folded = folded || key.first == name;
        if (folded) continue;
        const FunctionContents &f = pipeline.func(name);
        std::set<std::string> storage;
        for (int v = 0; v < f.outputs(); v++) storage.insert(storage_name(f, v));
        for (const Stage &st : stages) {
            for (const std::vector<Dim> *dims : all_stage_dims(st)) {
                for (const Dim &d : *dims) {
                    if (d.for_type == ForType::Vectorized && !d.is_rvar) result[d.var] = storage;
                }
            }
        }
    }
    return result;
}

Stmt vectorize_loops(const Stmt &s, const Target &target) { return vectorize_loops(s, target, {}); }

Stmt vectorize_loops(const Stmt &s, const Target &, const std::map<std::string, std::set<std::string>> &independent) {
    return VectorizeLoops(independent).mutate(s);
}

}  // namespace internal
}  // namespace loom
