// Func::in and Func::clone_in: wrappers, clones, and the redirection of the
// consumers' calls to them (see Wrappers.h).

#include "lang/Wrappers.h"

#include <functional>
#include <map>
#include <set>

#include "ir/DefinitionExprs.h"
#include "ir/FunctionGroup.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "lang/Backend.h"
#include "loom/Error.h"
#include "loom/Func.h"

namespace loom {
namespace internal {

namespace {

using Wrapper = FunctionContents::Wrapper;

bool is_wrapper_of(const FunctionContents &f, const FunctionContents &g) {
    for (const auto &[consumer, w] : f.wrappers) {
        if (w.func.get() == &g) return true;
    }
    return false;
}

/** The wrapper consumer's calls to f go to: its own, else the global one;
 * none for f itself and for f's own wrappers and clones (they call f). */
const Wrapper *wrapper_for(const FunctionContents &f, const FunctionContents &consumer) {
    if (&f == &consumer || is_wrapper_of(f, consumer)) return nullptr;
    auto own = f.wrappers.find(consumer.name);
    if (own != f.wrappers.end() && own->second.func.get()) return &own->second;
    auto global = f.wrappers.find("");
    if (global != f.wrappers.end() && global->second.func.get()) return &global->second;
    return nullptr;
}

bool is_image_wrapper(const ParameterContents &p, const FunctionContents &g) {
    for (const auto &[consumer, w] : p.wrappers) {
        if (w.get() == &g) return true;
    }
    return false;
}

/** The wrapper consumer's reads of input p go to (ImageParam::in): its own,
 * else the global one; none for p's own wrappers (they read p). */
FunctionPtr image_wrapper_for(const ParameterContents &p, const FunctionContents &consumer) {
    if (is_image_wrapper(p, consumer)) return FunctionPtr();
    auto own = p.wrappers.find(consumer.name);
    if (own != p.wrappers.end() && own->second.get()) return own->second;
    auto global = p.wrappers.find("");
    if (global != p.wrappers.end() && global->second.get()) return global->second;
    return FunctionPtr();
}

/** op (a call of a Func, or a read of an input) as a call of target. */
Expr call_of(const Call *op, const FunctionPtr &target) {
    const FunctionContents &t = *target.get();
    const Parameter param = op->call_type == CallType::Func ? op->param : Parameter();
    return Call::make(op->type, t.name, op->args, CallType::Func, target.strengthened(), op->value_index, param);
}

/** Redirects each call to a Func with a wrapper for the consumer, following
 * chains (f.in().in()). */
class RedirectToWrappers : public IRMutator {
public:
    explicit RedirectToWrappers(const FunctionContents &consumer) : consumer_(consumer) {}
    using IRMutator::mutate;

protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *c = e.as<Call>();
        if (!c) return e;
        FunctionPtr target;
        if (c->call_type == CallType::Image && c->param.defined()) {
            target = image_wrapper_for(*c->param.get(), consumer_);  // ImageParam::in
        } else if (c->call_type == CallType::Func) {
            target = c->func;
        }
        if (!target.get()) return e;
        for (int hops = 0; hops < 64; hops++) {
            const Wrapper *w = wrapper_for(*target.get(), consumer_);
            if (!w) break;
            target = w->func;
        }
        return target.get() == c->func.get() ? e : call_of(c, target);
    }

private:
    const FunctionContents &consumer_;
};

/** Redirects the calls to any Func of `from`, and the reads of the input
 * `from_input` if given, to `to`. */
class RetargetCalls : public IRMutator {
public:
    RetargetCalls(std::set<const FunctionContents *> from, FunctionPtr to, bool weak_target,
                  const ParameterContents *from_input = nullptr)
        : from_(std::move(from)), to_(std::move(to)), weak_target_(weak_target), from_input_(from_input) {}
    using IRMutator::mutate;
    bool changed = false;

protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *c = e.as<Call>();
        if (!c) return e;
        const bool func_call = c->call_type == CallType::Func && from_.count(c->func.get());
        const bool input_read = from_input_ && c->call_type == CallType::Image && c->param.get() == from_input_;
        if (!func_call && !input_read) return e;
        changed = true;
        FunctionPtr target = weak_target_ ? to_.weakened() : to_.strengthened();
        const Parameter param = func_call ? c->param : Parameter();
        return Call::make(c->type, to_.get()->name, c->args, CallType::Func, target, c->value_index, param);
    }

private:
    std::set<const FunctionContents *> from_;
    FunctionPtr to_;
    bool weak_target_;
    const ParameterContents *from_input_;
};

/** Applies mutator to every Expr of every definition of f (its RDoms'
 * bounds and predicates too). */
void mutate_definitions(FunctionContents &f, IRMutator &mutator) {
    auto mutate_all = [&](std::vector<Expr> &exprs) {
        for (Expr &e : exprs) {
            if (e.defined()) e = mutator.mutate(e);
        }
    };
    for (int s = 0; s < f.stages(); s++) {
        Definition &d = f.stage(s);
        mutate_all(d.args);
        mutate_all(d.values);
        if (d.predicate.defined()) d.predicate = mutator.mutate(d.predicate);
        if (!d.rdom.defined()) continue;
        for (ReductionVariable &rv : d.rdom.get()->domain) {
            rv.min = mutator.mutate(rv.min);
            rv.extent = mutator.mutate(rv.extent);
        }
        if (d.rdom.predicate().defined()) d.rdom.set_predicate(mutator.mutate(d.rdom.predicate()));
        if (d.rdom.loop_condition().defined()) d.rdom.set_loop_condition(mutator.mutate(d.rdom.loop_condition()));
    }
}

/** Whether a definition of consumer calls a Func of `callees`, or reads the
 * input `input` if given. */
bool calls_any(const FunctionContents &consumer, const std::set<const FunctionContents *> &callees,
               const ParameterContents *input = nullptr) {
    struct Finder : IRGraphVisitor {
        const std::set<const FunctionContents *> *callees;
        const ParameterContents *input;
        bool found = false;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            if (op->call_type == CallType::Func && callees->count(op->func.get())) found = true;
            if (input && op->call_type == CallType::Image && op->param.get() == input) found = true;
            IRGraphVisitor::visit(op);
        }
    } finder;
    finder.callees = &callees;
    finder.input = input;
    for_each_definition_expr(consumer, [&](const Expr &e) { finder.include(e); });
    return finder.found;
}

void add_user(FunctionContents &callee, const FunctionPtr &user) {
    for (const FunctionPtr &u : callee.users) {
        if (u.get() == user.get()) return;
    }
    callee.users.push_back(user.weakened());
}

/** f and what stands for f in its consumers' calls today: its global
 * wrapper. */
std::set<const FunctionContents *> calls_of(const FunctionContents &f) {
    std::set<const FunctionContents *> from{&f};
    auto global = f.wrappers.find("");
    if (global != f.wrappers.end() && global->second.func.get()) from.insert(global->second.func.get());
    return from;
}

/** w(x, ...) = f(x, ...). */
void define_wrapper(const Func &f, Func &w) {
    std::vector<Var> args = f.args();
    if (f.outputs() == 1) {
        w(args) = Expr(f(args));
        return;
    }
    std::vector<Expr> values;
    for (int i = 0; i < f.outputs(); i++) values.push_back(f(args)[i]);
    w(args) = Tuple(values);
}

/** The Funcs f's definitions call. */
std::vector<FunctionPtr> callees_of(const FunctionContents &f) {
    struct Collect : IRGraphVisitor {
        std::vector<FunctionPtr> callees;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            if (op->call_type == CallType::Func && op->func.get()) callees.push_back(op->func);
            IRGraphVisitor::visit(op);
        }
    } collect;
    for (int s = 0; s < f.stages(); s++) {
        for (const Expr &e : f.stage(s).args) collect.include(e);
        for (const Expr &e : f.stage(s).values) collect.include(e);
    }
    return collect.callees;
}

/** A copy of f's definitions and schedule; calls of f to itself become
 * calls of the clone to itself. */
void define_clone(const Func &f, Func &clone) {
    const FunctionContents &src = *f.function().get();
    FunctionContents &dst = *clone.function().get();
    dst.args = src.args;
    dst.output_types = src.output_types;
    dst.init = src.init;
    dst.updates = src.updates;
    dst.schedule = src.schedule;
    RetargetCalls self_calls({&src}, clone.function(), /*weak_target=*/true);
    for (int s = 0; s < dst.stages(); s++) {
        Definition &d = dst.stage(s);
        for (Expr &e : d.args) e = self_calls.mutate(e);
        for (Expr &e : d.values) e = self_calls.mutate(e);
        if (d.predicate.defined()) d.predicate = self_calls.mutate(d.predicate);
        if (d.schedule.compute_with.func == src.name) d.schedule.compute_with.func = dst.name;
        if (d.rdom.defined()) d.rdom.get()->users.push_back(clone.function().weakened());
    }
    for (const FunctionPtr &callee : callees_of(dst)) {
        if (callee.get() != &dst) add_user(*callee.get(), clone.function());
    }
    // The clone holds the Funcs it calls, those of f's group included.
    FunctionGroup::join_cycles_through(dst);
    mark_changed(dst);
}

std::string describe_call(const std::string &f, const std::vector<Func> &consumers, bool clone) {
    std::string list;
    for (size_t i = 0; i < consumers.size(); i++) list += (i ? ", " : "") + consumers[i].name();
    if (consumers.size() > 1) list = "{" + list + "}";
    return f + (clone ? ".clone_in(" : ".in(") + list + ")";
}

void check_request(const Func &f, const std::vector<Func> &consumers, bool clone) {
    const std::string call = describe_call(f.name(), consumers, clone);
    if (!f.defined()) {
        throw CompileError("In " + call + ": Func " + f.name() + " has no definition yet. Define " + f.name() +
                           " before asking for its " + (clone ? "clone." : "wrapper."));
    }
    const FunctionContents &fc = *f.function().get();
    for (const Func &g : consumers) {
        if (g.function().get() == &fc) {
            throw CompileError("In " + call + ": Func " + f.name() + " can't be wrapped in itself (its own calls to " +
                               f.name() + " are its recursion). Pass the Funcs that call " + f.name() +
                               ", or use " + f.name() + ".in() for all of them.");
        }
        if (!g.defined()) {
            throw CompileError("In " + call + ": Func " + g.name() + " has no definition yet. Define " + g.name() +
                               " (with its calls to " + f.name() + ") before asking for " + call + ".");
        }
    }
}

/** Before a new wrapper is made: each consumer calls f. */
void check_consumers_call(const Func &f, const std::vector<Func> &consumers, bool clone) {
    for (const Func &g : consumers) {
        if (calls_any(*g.function().get(), calls_of(*f.function().get()))) continue;
        throw CompileError("In " + describe_call(f.name(), consumers, clone) + ": Func " + g.name() +
                           " does not call " + f.name() + ", so there is no call to redirect. Pass only Funcs "
                           "whose definitions call " + f.name() + ".");
    }
}

/** The wrapper that all consumers already share, if any.
 * \throws CompileError if only some have one, or one of another kind. */
FunctionPtr existing_wrapper(const std::map<std::string, Wrapper> &wrappers, const std::string &wrapped,
                             const std::vector<std::string> &consumers, bool clone, const std::string &call) {
    FunctionPtr found;
    std::string found_for, missing_for;
    for (const std::string &g : consumers) {
        auto it = wrappers.find(g);
        if (it == wrappers.end() || !it->second.func.get()) {
            missing_for = g;
            continue;
        }
        const std::string who = g.empty() ? "every consumer (" + wrapped + ".in())" : g;
        if (it->second.is_clone != clone) {
            throw CompileError("In " + call + ": " + who + " already calls " + it->second.func.get()->name +
                               ", a " + (clone ? "wrapper" : "clone") + " of " + wrapped + " made by " +
                               (clone ? "in()" : "clone_in()") + ". A consumer gets either a wrapper or a clone of " +
                               wrapped + ", not both.");
        }
        if (found.defined() && found.get() != it->second.func.get()) {
            throw CompileError("In " + call + ": " + found_for + " and " + g + " already call different " +
                               (clone ? "clones" : "wrappers") + " of " + wrapped + " (" + found.get()->name + " and " +
                               it->second.func.get()->name + "). Ask for the one of each consumer on its own.");
        }
        found = it->second.func;
        found_for = g;
    }
    if (found.defined() && !missing_for.empty()) {
        throw CompileError("In " + call + ": " + found_for + " already calls " + found.get()->name + " but " +
                           missing_for + " has no " + (clone ? "clone" : "wrapper") + " of " + wrapped +
                           " yet. Ask for one shared " + (clone ? "clone" : "wrapper") +
                           " the first time, or one per consumer.");
    }
    return found;
}

/** The definitions of targets call w instead of the Funcs of `from` (and
 * read w instead of the input, if given). */
void retarget_consumers(const std::vector<FunctionPtr> &targets, const std::set<const FunctionContents *> &from,
                        const ParameterContents *input, const Func &w) {
    for (const FunctionPtr &g : targets) {
        RetargetCalls retarget(from, w.function(), /*weak_target=*/false, input);
        mutate_definitions(*g.get(), retarget);
        if (!retarget.changed) continue;
        add_user(*w.function().get(), g);
        mark_changed(*g.get());
    }
    // A consumer on a cycle with the wrapped Func puts w on it too.
    FunctionGroup::join_cycles_through(*w.function().get());
}

}  // namespace

Func wrapper_of(const Func &f, const std::vector<Func> &consumers, bool clone) {
    check_request(f, consumers, clone);
    FunctionContents &fc = *f.function().get();
    const std::string call = describe_call(f.name(), consumers, clone);
    std::vector<std::string> keys;
    for (const Func &g : consumers) keys.push_back(g.name());
    if (keys.empty()) keys.push_back("");
    if (FunctionPtr existing = existing_wrapper(fc.wrappers, fc.name, keys, clone, call); existing.defined()) {
        return Func(existing);
    }
    check_consumers_call(f, consumers, clone);

    std::string name = f.name() + (clone ? "_clone_in" : consumers.empty() ? "_global_wrapper" : "_in");
    for (const Func &g : consumers) name += "_" + g.name();
    // Known as f's wrapper before it is defined, so that its own call to f
    // is not redirected (to f's global wrapper, say).
    Func w(name);
    for (const std::string &k : keys) fc.wrappers[k] = Wrapper{w.function().weakened(), clone};
    if (clone) {
        define_clone(f, w);
    } else {
        define_wrapper(f, w);
    }

    // Redirect the consumers that exist now; later definitions are
    // redirected as they are added (redirect_to_wrappers).
    std::vector<FunctionPtr> targets;
    if (consumers.empty()) {
        for (const FunctionPtr &u : fc.users) {
            const FunctionContents *g = u.get();
            if (!g || is_wrapper_of(fc, *g)) continue;
            auto own = fc.wrappers.find(g->name);
            if (own != fc.wrappers.end() && own->second.func.get()) continue;
            targets.push_back(u.strengthened());
        }
    } else {
        for (const Func &g : consumers) targets.push_back(g.function());
    }
    // A consumer of its own may call f's global wrapper today.
    const std::set<const FunctionContents *> from =
        consumers.empty() ? std::set<const FunctionContents *>{&fc} : calls_of(fc);
    retarget_consumers(targets, from, nullptr, w);
    mark_changed(fc);
    return w;
}

Func image_wrapper_of(const Parameter &input, const std::vector<Func> &consumers,
                      const std::function<void(Func &)> &define) {
    ParameterContents &pc = *input.get();
    const std::string call = describe_call(pc.name, consumers, /*clone=*/false);
    for (const Func &g : consumers) {
        if (!g.defined()) {
            throw CompileError("In " + call + ": Func " + g.name() + " has no definition yet. Define " + g.name() +
                               " (with its reads of " + pc.name + ") before asking for " + call + ".");
        }
    }
    std::vector<std::string> keys;
    for (const Func &g : consumers) keys.push_back(g.name());
    if (keys.empty()) keys.push_back("");
    std::map<std::string, Wrapper> known;
    for (const auto &[k, w] : pc.wrappers) known[k] = Wrapper{w, false};
    if (FunctionPtr existing = existing_wrapper(known, pc.name, keys, false, call); existing.defined()) {
        return Func(existing);
    }
    // A consumer of its own may read the input through its global wrapper today.
    std::set<const FunctionContents *> from;
    auto global = pc.wrappers.find("");
    if (!consumers.empty() && global != pc.wrappers.end() && global->second.get()) from.insert(global->second.get());
    for (const Func &g : consumers) {
        if (calls_any(*g.function().get(), from, &pc)) continue;
        throw CompileError("In " + call + ": Func " + g.name() + " does not read " + pc.name +
                           ", so there is no read to redirect. Pass only Funcs whose definitions read " + pc.name +
                           ".");
    }

    std::string name = pc.name + (consumers.empty() ? "_im_global_wrapper" : "_im_in");
    for (const Func &g : consumers) name += "_" + g.name();
    // Known as a wrapper of the input before it is defined, so that its own
    // read of the input is not redirected (to the global wrapper, say).
    Func w(name);
    for (const std::string &k : keys) pc.wrappers[k] = w.function().weakened();
    define(w);

    std::vector<FunctionPtr> targets;
    if (consumers.empty()) {
        for (const FunctionPtr &u : pc.users) {
            const FunctionContents *g = u.get();
            if (!g || is_image_wrapper(pc, *g)) continue;
            auto own = pc.wrappers.find(g->name);
            if (own != pc.wrappers.end() && own->second.get()) continue;
            targets.push_back(u.strengthened());
        }
    } else {
        for (const Func &g : consumers) targets.push_back(g.function());
    }
    retarget_consumers(targets, from, &pc, w);
    return w;
}

std::vector<Expr> redirect_to_wrappers(const FunctionContents &consumer, const std::vector<Expr> &exprs) {
    RedirectToWrappers redirect(consumer);
    std::vector<Expr> result;
    for (const Expr &e : exprs) result.push_back(e.defined() ? redirect.mutate(e) : e);
    return result;
}

}  // namespace internal
}  // namespace loom

namespace loom {

Func Func::in() { return internal::wrapper_of(*this, {}, /*clone=*/false); }
Func Func::in(const Func &g) { return internal::wrapper_of(*this, {g}, /*clone=*/false); }
Func Func::in(const std::vector<Func> &gs) {
    if (gs.empty()) throw CompileError("Func " + name() + ".in({}) names no consumer; use " + name() + ".in() for all.");
    return internal::wrapper_of(*this, gs, /*clone=*/false);
}
Func Func::clone_in(const Func &g) { return internal::wrapper_of(*this, {g}, /*clone=*/true); }
Func Func::clone_in(const std::vector<Func> &gs) {
    if (gs.empty()) throw CompileError("Func " + name() + ".clone_in({}) names no consumer to use the clone.");
    return internal::wrapper_of(*this, gs, /*clone=*/true);
}

}  // namespace loom
