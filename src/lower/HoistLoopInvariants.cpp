#include "lower/HoistLoopInvariants.h"

#include <set>
#include <string>
#include <vector>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"

namespace loom {
namespace internal {

namespace {

/** What an Expr reads that keeps it in its loop. */
struct Reads : IRGraphVisitor {
    std::set<std::string> variables;
    bool memory_or_effects = false;
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override { variables.insert(op->name); }
    void visit(const Load *op) override {
        memory_or_effects = true;
        IRGraphVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (op->call_type != CallType::PureIntrinsic && op->call_type != CallType::PureExtern) {
            memory_or_effects = true;
        }
        IRGraphVisitor::visit(op);
    }
};

Reads reads_of(const Expr &e) {
    Reads r;
    e.accept(&r);
    return r;
}

bool uses_any(const Expr &e, const std::set<std::string> &names) {
    for (const std::string &v : reads_of(e).variables) {
        if (names.count(v)) return true;
    }
    return false;
}

/** Whether e can be evaluated once before the loop instead of in each
 * iteration: it reads none of `varying`, no memory, and has no effects. */
bool is_invariant(const Expr &e, const std::set<std::string> &varying) {
    Reads r = reads_of(e);
    if (r.memory_or_effects) return false;
    for (const std::string &v : r.variables) {
        if (varying.count(v)) return false;
    }
    return true;
}

class HoistLoopInvariants : public IRMutator {
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        Stmt body = mutate(op->body);
        if (runs_on_gpu(op)) {
            return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
        }
        // The lets at the top of the body: invariant ones move out.
        std::set<std::string> varying = {op->name};
        std::vector<std::pair<std::string, Expr>> hoisted, kept;
        Stmt inner = body;
        while (const LetStmt *l = inner.as<LetStmt>()) {
            const bool clashes = l->name == op->name || uses_any(op->min, {l->name}) ||
                                 uses_any(op->extent, {l->name});
            if (!clashes && is_invariant(l->value, varying)) {
                hoisted.emplace_back(l->name, l->value);
            } else {
                kept.emplace_back(l->name, l->value);
                varying.insert(l->name);
            }
            inner = l->body;
        }
        auto loop_around = [&](Stmt s) {
            for (auto it = kept.rbegin(); it != kept.rend(); ++it) s = LetStmt::make(it->first, it->second, s);
            return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, s);
        };
        Stmt result;
        const IfThenElse *branch = inner.as<IfThenElse>();
        if (branch && is_invariant(branch->condition, varying)) {
            // Unswitch: one loop per branch, the test made once.
            result = IfThenElse::make(branch->condition, loop_around(branch->then_case),
                                      branch->else_case.defined() ? loop_around(branch->else_case) : Stmt());
        } else if (hoisted.empty()) {
            return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
        } else {
            result = loop_around(inner);
        }
        for (auto it = hoisted.rbegin(); it != hoisted.rend(); ++it) result = LetStmt::make(it->first, it->second, result);
        return result;
    }
};

}  // namespace

Stmt hoist_loop_invariants(const Stmt &s) { return HoistLoopInvariants().mutate(s); }

}  // namespace internal
}  // namespace loom
