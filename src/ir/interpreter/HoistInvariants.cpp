// Loop-invariant code motion for the interpreter (see InterpCore.h).
//
// The interpreter runs each node of a loop body on every iteration, and
// index arithmetic is mostly terms that only an outer loop changes: in
//
//     for (r, -3, 29) { f[r + y*30 - z*30 + 34] = f[r + y*30 - z*30 + 33] + ... }
//
// each index is five nodes, four of them the same on every iteration. This
// pass computes such work once before the loop:
//
//     let t0 = y*30 - z*30 + 34
//     let t1 = y*30 - z*30 + 33
//     for (r, -3, 29) { f[r + t0] = f[r + t1] + ... }
//
// and then moves t0 and t1 further out where the next loop does not change
// them either, splitting their own sums the same way (y*30 + t2 with
// t2 = 34 - z*30 before the y loop). Compiled code gets this from LLVM's
// LICM; the interpreter computes each node as the IR says, so it does it
// here, on its own copy of the IR (the lowered IR is unchanged).
//
// Only work without effects moves: no Load (memory may change inside the
// loop), no Call, nothing reading a name bound inside the loop or not bound
// at all (a Parameter's fallback value, or an error reported only if the
// program reaches it). Such work cannot fail in the interpreter (integer
// division by zero is 0), so computing it before a loop that runs no
// iteration, or outside an if, changes nothing. Sums of scalar integers are
// regrouped: their values wrap to the type, so any grouping gives the same
// result. Float sums keep their order.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/NamesBound.h"
#include "ir/SumTerms.h"
#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {
namespace interp {

namespace {

const char *const kHoistedPrefix = "interp.invariant.";

bool is_hoisted_name(const std::string &name) { return name.rfind(kHoistedPrefix, 0) == 0; }

bool is_leaf(const Expr &e) {
    switch (e.node_type()) {
    case IRNodeType::Variable:
    case IRNodeType::IntImm:
    case IRNodeType::UIntImm:
    case IRNodeType::FloatImm:
    case IRNodeType::StringImm: return true;
    default: return false;
    }
}

/** The variables an Expr reads, and whether it loads, calls or binds. */
struct FreeVariables : IRGraphVisitor {
    std::set<std::string> names;
    bool loads_calls_or_binds = false;
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override { names.insert(op->name); }
    void visit(const Load *op) override {
        loads_calls_or_binds = true;
        IRGraphVisitor::visit(op);
    }
    void visit(const Call *op) override {
        loads_calls_or_binds = true;
        IRGraphVisitor::visit(op);
    }
    void visit(const Let *op) override {
        loads_calls_or_binds = true;
        IRGraphVisitor::visit(op);
    }
};

bool is_integer_sum(const Expr &e) {
    return (e.as<Add>() || e.as<Sub>()) && e.type().is_scalar() && e.type().is_int_or_uint();
}

/** Moves the invariant work of one loop's body to lets before the loop.
 * `outside` are the names bound where the loop is. */
class HoistOutOfLoop : public IRMutator {
public:
    HoistOutOfLoop(const For *loop, const std::set<std::string> &outside, int &counter)
        : outside_(outside), counter_(counter) {
        inside_ = names_bound_in(loop->body);
        inside_.insert(loop->name);
        find_lets_that_move(loop->body);
    }

    /** The lets to put before the loop, outermost first. */
    std::vector<std::pair<std::string, Expr>> lets;

    using IRMutator::mutate;

    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        if (is_invariant(e)) return is_leaf(e) ? e : hoist(e);
        if (is_integer_sum(e)) return regroup(e);
        return IRMutator::mutate(e);
    }

protected:
    using IRMutator::visit;

    Stmt visit(const LetStmt *op) override {
        if (moving_.count(op->name)) {
            lets.emplace_back(op->name, op->value);
            return mutate(op->body);
        }
        return IRMutator::visit(op);
    }

private:
    // A let this pass made before an inner loop moves on out if its value
    // reads nothing bound in this loop but other such lets that move.
    void find_lets_that_move(const Stmt &body) {
        struct Find : IRVisitor {
            HoistOutOfLoop *self;
            using IRVisitor::visit;
            void visit(const LetStmt *op) override {
                if (is_hoisted_name(op->name) && self->reads_only_outside(op->value)) {
                    self->moving_.insert(op->name);
                    self->inside_.erase(op->name);
                }
                IRVisitor::visit(op);
            }
        } find;
        find.self = this;
        body.accept(&find);
        for (const std::string &name : moving_) outside_.insert(name);
    }

    bool reads_only_outside(const Expr &e) const {
        FreeVariables vars;
        e.accept(&vars);
        if (vars.loads_calls_or_binds) return false;  // not one of ours after all
        for (const std::string &name : vars.names) {
            if (inside_.count(name) || !(outside_.count(name) || moving_.count(name))) return false;
        }
        return true;
    }

    /** Whether e can be computed before the loop (memoised per node: the
     * names bound inside are fixed for the whole body). */
    bool is_invariant(const Expr &e) {
        auto found = invariant_.find(e.get());
        if (found != invariant_.end()) return found->second;
        bool result = true;
        switch (e.node_type()) {
        case IRNodeType::Variable: {
            const std::string &name = e.as<Variable>()->name;
            result = !inside_.count(name) && outside_.count(name);
            break;
        }
        case IRNodeType::Load:
        case IRNodeType::Call:
        case IRNodeType::Let: result = false; break;
        default: {
            struct Children : IRVisitor {
                HoistOutOfLoop *self;
                bool all = true;
                using IRVisitor::visit;
                void visit_child(const Expr &child) { all = all && self->is_invariant(child); }
                void visit(const Cast *op) override { visit_child(op->value); }
                void visit(const Reinterpret *op) override { visit_child(op->value); }
                void visit(const Add *op) override { visit_pair(op->a, op->b); }
                void visit(const Sub *op) override { visit_pair(op->a, op->b); }
                void visit(const Mul *op) override { visit_pair(op->a, op->b); }
                void visit(const Div *op) override { visit_pair(op->a, op->b); }
                void visit(const Mod *op) override { visit_pair(op->a, op->b); }
                void visit(const Min *op) override { visit_pair(op->a, op->b); }
                void visit(const Max *op) override { visit_pair(op->a, op->b); }
                void visit(const EQ *op) override { visit_pair(op->a, op->b); }
                void visit(const NE *op) override { visit_pair(op->a, op->b); }
                void visit(const LT *op) override { visit_pair(op->a, op->b); }
                void visit(const LE *op) override { visit_pair(op->a, op->b); }
                void visit(const GT *op) override { visit_pair(op->a, op->b); }
                void visit(const GE *op) override { visit_pair(op->a, op->b); }
                void visit(const And *op) override { visit_pair(op->a, op->b); }
                void visit(const Or *op) override { visit_pair(op->a, op->b); }
                void visit(const Not *op) override { visit_child(op->a); }
                void visit(const Select *op) override {
                    visit_child(op->condition);
                    visit_child(op->true_value);
                    visit_child(op->false_value);
                }
                void visit(const Ramp *op) override { visit_pair(op->base, op->stride); }
                void visit(const Broadcast *op) override { visit_child(op->value); }
                void visit(const Shuffle *op) override {
                    for (const Expr &v : op->vectors) visit_child(v);
                }
                void visit(const VectorReduce *op) override { visit_child(op->value); }
                void visit_pair(const Expr &a, const Expr &b) {
                    visit_child(a);
                    visit_child(b);
                }
            } children;
            children.self = this;
            e.accept(&children);
            result = children.all;
        }
        }
        invariant_[e.get()] = result;
        return result;
    }

    /** A variable holding e's value, computed before the loop (one per
     * distinct expression, so equal expressions stay equal). */
    Expr hoist(const Expr &e) {
        auto found = hoisted_.find(e);
        if (found == hoisted_.end()) {
            const std::string name = kHoistedPrefix + std::to_string(counter_++);
            lets.emplace_back(name, e);
            found = hoisted_.emplace(e, name).first;
        }
        return Variable::make(e.type(), found->second);
    }

    // The varying terms, then one variable for the sum of the invariant ones.
    Expr regroup(const Expr &e) {
        std::vector<SumTerm> terms, varying, invariant;
        flatten_sum(e, false, terms);
        int nonconstant_invariant = 0;
        for (const SumTerm &term : terms) {
            if (is_invariant(term.e)) {
                invariant.push_back(term);
                if (!is_const(term.e)) nonconstant_invariant++;
            } else {
                varying.push_back({mutate(term.e), term.negative});
            }
        }
        // Nothing to gain from moving a lone variable or constants alone.
        const bool worth_it = invariant.size() >= 2 ? nonconstant_invariant > 0
                                                    : invariant.size() == 1 && !is_leaf(invariant[0].e);
        if (!worth_it) {
            varying.insert(varying.end(), invariant.begin(), invariant.end());
            return sum_of(e.type(), varying);
        }
        // Put positive terms first so the hoisted sum needs no 0 - x.
        std::stable_partition(invariant.begin(), invariant.end(), [](const SumTerm &t) { return !t.negative; });
        varying.push_back({hoist(sum_of(e.type(), invariant)), false});
        return sum_of(e.type(), varying);
    }

    std::set<std::string> outside_, inside_, moving_;
    int &counter_;
    std::unordered_map<const IRNode *, bool> invariant_;
    std::map<Expr, std::string, ExprDeepCompare> hoisted_;
};

/** Visits loops innermost first, keeping track of the names bound where
 * each one is. */
class HoistInvariants : public IRMutator {
public:
    explicit HoistInvariants(const std::vector<std::string> &arguments) {
        for (const std::string &name : arguments) bound_.insert(name);
    }

protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        Stmt body = bind_while(op->name, [&] { return mutate(op->body); });
        Stmt loop = For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
        HoistOutOfLoop hoist(loop.as<For>(), names(), counter_);
        body = hoist.mutate(body);
        Stmt result = For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
        for (auto it = hoist.lets.rbegin(); it != hoist.lets.rend(); ++it) {
            result = LetStmt::make(it->first, it->second, result);
        }
        return result;
    }

    Stmt visit(const LetStmt *op) override {
        Stmt body = bind_while(op->name, [&] { return mutate(op->body); });
        return LetStmt::make(op->name, op->value, body);
    }

    Stmt visit(const Allocate *op) override {
        Stmt body = bind_while(op->name, [&] { return mutate(op->body); });
        return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
    }

private:
    template<class F>
    Stmt bind_while(const std::string &name, F body) {
        bound_.insert(name);
        Stmt result = body();
        bound_.erase(bound_.find(name));
        return result;
    }

    std::set<std::string> names() const { return {bound_.begin(), bound_.end()}; }

    std::multiset<std::string> bound_;
    int counter_ = 0;
};

}  // namespace

Stmt hoist_loop_invariant_work(const Stmt &s, const std::vector<std::string> &arguments) {
    if (!s.defined()) return s;
    return HoistInvariants(arguments).mutate(s);
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
