// FunctionGroup (ir/FunctionGroup.h) and the FunctionPtr conversions that
// depend on it (loom/internal/FunctionPtr.h).

#include "ir/FunctionGroup.h"

#include <algorithm>
#include <functional>

#include "ir/DefinitionExprs.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

/** Rewrites f's expressions in place with fn: every stage's arguments,
 * values and predicate, and its RDom's predicate and loop condition. */
template<typename Fn>
void rewrite_call_sites(FunctionContents &f, Fn fn) {
    for (int s = 0; s < f.stages(); s++) {
        Definition &d = f.stage(s);
        for (Expr &e : d.args) fn(e);
        for (Expr &e : d.values) fn(e);
        if (d.predicate.defined()) fn(d.predicate);
        if (!d.rdom.defined()) continue;
        if (Expr p = d.rdom.predicate(); p.defined()) {
            fn(p);
            d.rdom.set_predicate(p);
        }
        if (Expr c = d.rdom.loop_condition(); c.defined()) {
            fn(c);
            d.rdom.set_loop_condition(c);
        }
    }
}

/** The calls of Funcs in f's definitions, its RDoms' bounds included. */
std::vector<const Call *> func_calls(const FunctionContents &f) {
    struct Finder : IRGraphVisitor {
        std::vector<const Call *> found;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            if (op->call_type == CallType::Func && op->func.get()) found.push_back(op);
            IRGraphVisitor::visit(op);
        }
    } finder;
    for_each_definition_expr(f, [&](const Expr &e) { finder.include(e); });
    return finder.found;
}

/** Replaces the FunctionPtr of each Func call for which `repoint` gives
 * a defined one (a weak or strong copy of the same Func). */
class RepointCalls : public IRMutator {
public:
    explicit RepointCalls(std::function<FunctionPtr(const Call *)> repoint) : repoint_(std::move(repoint)) {}

protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *c = e.as<Call>();
        if (!c || c->call_type != CallType::Func) return e;
        FunctionPtr to = repoint_(c);
        if (!to.defined()) return e;
        return Call::make(c->type, c->name, c->args, c->call_type, to, c->value_index, c->param);
    }

private:
    std::function<FunctionPtr(const Call *)> repoint_;
};

}  // namespace

Expr weaken_calls_of(const Expr &e, const std::set<const FunctionContents *> &funcs) {
    if (!e.defined()) return e;
    return RepointCalls([&](const Call *c) {
               return c->func.strong && funcs.count(c->func.get()) ? c->func.weakened() : FunctionPtr();
           })
        .mutate(e);
}

FunctionPtr FunctionGroup::make_function() {
    auto group = std::make_shared<FunctionGroup>();
    auto contents = std::make_unique<FunctionContents>();
    FunctionContents *f = contents.get();
    f->group = group.get();
    f->lifetime = std::make_shared<const char>(0);
    group->members_.push_back(std::move(contents));
    return FunctionPtr(std::shared_ptr<FunctionContents>(group, f));
}

FunctionPtr FunctionGroup::strong_pointer(FunctionContents &member) {
    if (!member.group) throw InternalError("Func " + member.name + " is not owned by a FunctionGroup");
    return FunctionPtr(std::shared_ptr<FunctionContents>(member.group->shared_from_this(), &member));
}

void FunctionGroup::join_cycles_through(FunctionContents &f) {
    // Calls across groups keep their callee alive.
    for (const Call *call : func_calls(f)) {
        const FunctionContents *callee = call->func.get();
        if (call->func.strong || callee == &f || callee->group == f.group) continue;
        RepointCalls strengthen([&](const Call *c) {
            const FunctionContents *g = c->func.get();
            if (c->func.strong || !g || g == &f || g->group == f.group) return FunctionPtr();
            return c->func.strengthened();
        });
        rewrite_call_sites(f, [&](Expr &e) {
            if (e.defined()) e = strengthen.mutate(e);
        });
        break;
    }
    // A cycle through f runs through Funcs that call f, directly or not.
    std::set<FunctionContents *> callers;
    std::vector<FunctionContents *> pending{&f};
    while (!pending.empty()) {
        FunctionContents *g = pending.back();
        pending.pop_back();
        for (const FunctionPtr &user : g->users) {
            FunctionContents *u = user.get();
            if (u && callers.insert(u).second) pending.push_back(u);
        }
    }
    if (callers.empty()) return;
    // ... and those of them that f reaches are on one.
    std::set<FunctionContents *> on_cycle{&f};
    pending = {&f};
    while (!pending.empty()) {
        FunctionContents *g = pending.back();
        pending.pop_back();
        for (const Call *call : func_calls(*g)) {
            FunctionContents *callee = call->func.get();
            if (callers.count(callee) && on_cycle.insert(callee).second) pending.push_back(callee);
        }
    }
    if (on_cycle.size() < 2) return;
    merge(std::vector<FunctionContents *>(on_cycle.begin(), on_cycle.end()));
    weaken_calls_among_members(*f.group);
}

void FunctionGroup::merge(const std::vector<FunctionContents *> &funcs) {
    std::vector<FunctionGroup *> groups;
    for (FunctionContents *f : funcs) {
        if (std::find(groups.begin(), groups.end(), f->group) == groups.end()) groups.push_back(f->group);
    }
    // The largest group takes in the others' members.
    FunctionGroup *target = *std::max_element(groups.begin(), groups.end(), [](FunctionGroup *a, FunctionGroup *b) {
        return a->members_.size() < b->members_.size();
    });
    for (FunctionGroup *g : groups) {
        if (g == target) continue;
        for (std::unique_ptr<FunctionContents> &member : g->members_) {
            member->group = target;
            target->members_.push_back(std::move(member));
        }
        g->members_.clear();
        g->merged_into_ = target->shared_from_this();
    }
}

void FunctionGroup::weaken_calls_among_members(FunctionGroup &group) {
    std::set<const FunctionContents *> members;
    for (const std::unique_ptr<FunctionContents> &m : group.members_) members.insert(m.get());
    for (const std::unique_ptr<FunctionContents> &m : group.members_) {
        rewrite_call_sites(*m, [&](Expr &e) { e = weaken_calls_of(e, members); });
    }
}

// ---- FunctionPtr ----------------------------------------------------------

FunctionPtr FunctionPtr::weakened() const {
    FunctionContents *f = get();
    if (!f) return FunctionPtr();
    if (!f->lifetime) throw InternalError("Func " + f->name + " was not made by FunctionGroup::make_function");
    FunctionPtr p;
    p.weak = std::shared_ptr<FunctionContents>(f->lifetime, f);
    return p;
}

FunctionPtr FunctionPtr::strengthened() const {
    if (strong) return FunctionPtr(strong);
    FunctionContents *f = weak.lock().get();
    if (!f) return FunctionPtr();
    return FunctionGroup::strong_pointer(*f);
}

}  // namespace internal
}  // namespace loom
