// Stage::rfactor: an associative update split into an intermediate Func over
// the preserved RVars and a merge (see include/loom/Stage.h).

#include <set>

#include "ir/Function.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lang/Associativity.h"
#include "lang/Backend.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/IROperator.h"

namespace loom {

using namespace internal;

namespace {

struct Request {
    const FunctionContents *f;
    int update;                   // index among the updates
    std::string context;          // "rfactor of f.update(0)"
    std::vector<int> preserved;   // indices into the RDom, in the RDom's order
    std::vector<int> given;       // the same in the order given (the intermediate's extra Vars)
    std::map<int, std::string> var_of;  // RDom index -> new pure Var
    Definition def;               // the update, with the splits of its RVars applied to its RDom
};

/** The update must not read f through another Func: f(x) += step(r, x) with
 * step reading f is a recurrence (join_cycles_through put step in f's
 * group), whose terms depend on the ones before. */
void refuse_recurrence_through_other_funcs(const FunctionContents &f, const Definition &def,
                                           const std::string &context) {
    class FindMember : public IRVisitor {
    public:
        explicit FindMember(const FunctionContents &f) : f_(f) {}
        const FunctionContents *found = nullptr;

    protected:
        using IRVisitor::visit;
        void visit(const Call *op) override {
            const FunctionContents *callee = op->func.get();
            if (!found && callee && callee != &f_ && callee->group == f_.group) found = callee;
            IRVisitor::visit(op);
        }

    private:
        const FunctionContents &f_;
    } find(f);
    for (const Expr &e : def.args) e.accept(&find);
    for (const Expr &e : def.values) e.accept(&find);
    if (def.predicate.defined()) def.predicate.accept(&find);
    if (def.rdom.predicate().defined()) def.rdom.predicate().accept(&find);
    if (!find.found) return;
    throw CompileError("In " + context + ": the update reads " + find.found->name + ", which reads " + f.name +
                       " in turn, so each term depends on the ones before it (a recurrence through " +
                       find.found->name + "), and the reduction cannot be reordered. rfactor needs " + f.name +
                       "(args) = " + f.name + "(args) op e with e not reading " + f.name +
                       ", directly or through other Funcs.");
}

std::string rvar_list(const ReductionDomain &rdom) {
    std::string list;
    for (const ReductionVariable &rv : rdom.domain()) list += (list.empty() ? "" : ", ") + rv.var;
    return list;
}

/** The update with the splits and renames of its RVars applied to its
 * RDom, as Halide does before rfactor: a split RVar old becomes inner (0 to
 * factor) and outer (0 to ceil(extent / factor)), with old = min + outer *
 * factor + inner, and a predicate that skips the points past the end. */
Definition with_rvar_splits(const Definition &original, const std::string &context) {
    std::vector<ReductionVariable> domain = original.rdom.domain();
    auto find = [&](const std::string &name) {
        for (size_t i = 0; i < domain.size(); i++) {
            if (domain[i].var == name) return (int)i;
        }
        return -1;
    };
    std::map<std::string, Expr> replace;  // original RVar -> its value in the new RVars' names
    for (const ReductionVariable &rv : domain) replace[rv.var] = Variable::make(Int(32), rv.var);
    auto rewrite_all = [&](const std::string &name, const Expr &value) {
        for (auto &[from, e] : replace) e = substitute(name, value, e);
    };
    std::vector<Expr> guards;
    for (const Split &sp : original.schedule.splits) {
        if (sp.kind == Split::FuseVars) {
            if (find(sp.inner) >= 0 || find(sp.outer) >= 0) {
                throw CompileError("In " + context + ": the RVars " + sp.inner + " and " + sp.outer + " were fused; "
                                   "Loom does not rfactor fused RVars. Call rfactor before fuse.");
            }
            continue;
        }
        const int i = find(sp.old_var);
        if (i < 0) continue;  // a loop of a pure Var
        if (sp.kind == Split::RenameVar) {
            rewrite_all(sp.old_var, Variable::make(Int(32), sp.outer));
            domain[i].var = sp.outer;
            continue;
        }
        const ReductionVariable old = domain[i];
        Expr inner = Variable::make(Int(32), sp.inner), outer = Variable::make(Int(32), sp.outer);
        Expr value = old.min + outer * sp.factor + inner;
        const IntImm *e = old.extent.as<IntImm>();
        const IntImm *k = sp.factor.as<IntImm>();
        if (e && k && k->value > 0 && e->value % k->value == 0) {
            rewrite_all(old.var, value);
        } else {
            // The guard skips the points past the end; the clamp (a no-op
            // where the guard holds) keeps bounds inference within the RDom.
            guards.push_back(value < old.min + old.extent);
            rewrite_all(old.var, min(value, old.min + old.extent - 1));
        }
        domain[i] = ReductionVariable{sp.inner, 0, sp.factor};
        domain.insert(domain.begin() + i + 1, ReductionVariable{sp.outer, 0, (old.extent + sp.factor - 1) / sp.factor});
    }
    if (original.schedule.splits.empty()) return original;

    ReductionDomain rdom(domain);
    std::map<std::string, Expr> to_new;  // original RVar -> value over the new RDom's RVars
    std::map<std::string, Expr> new_vars;
    for (const ReductionVariable &rv : domain) new_vars[rv.var] = Variable::make(Int(32), rv.var, rdom);
    for (const auto &[from, e] : replace) to_new[from] = substitute(new_vars, e);
    Definition def = original;
    for (Expr &a : def.args) a = substitute(to_new, a);
    for (Expr &v : def.values) v = substitute(to_new, v);
    if (def.predicate.defined()) def.predicate = substitute(to_new, def.predicate);
    Expr predicate = original.rdom.predicate().defined() ? substitute(to_new, original.rdom.predicate()) : Expr();
    for (const Expr &g : guards) {
        Expr guard = substitute(new_vars, g);
        predicate = predicate.defined() ? (predicate && guard) : guard;
    }
    if (predicate.defined()) rdom.set_predicate(predicate);
    def.rdom = rdom;
    return def;
}

Request check_request(const FunctionContents &f, int stage, const std::vector<std::pair<RVar, Var>> &preserved) {
    Request req;
    req.f = &f;
    req.update = stage - 1;
    req.context = "rfactor of " + (stage == 0 ? f.name : f.name + ".update(" + std::to_string(stage - 1) + ")");
    if (stage == 0) {
        throw CompileError("In " + req.context + ": rfactor applies to an update definition over an RDom, and this is "
                           "the pure definition of " + f.name + ". Call it on " + f.name + ".update(n).");
    }
    if (!f.updates.at(stage - 1).rdom.defined()) {
        throw CompileError("In " + req.context + ": the update has no RDom, so there is no reduction to factor.");
    }
    if (f.updates.at(stage - 1).rdom.loop_condition().defined()) {
        throw CompileError("In " + req.context + ": its RDom has a loop_while condition; a loop that stops early "
                           "can't be split into independent partial reductions.");
    }
    req.def = with_rvar_splits(f.updates.at(stage - 1), req.context);
    const Definition &def = req.def;
    const std::vector<ReductionVariable> &domain = def.rdom.domain();
    std::set<std::string> vars;
    for (const auto &[rvar, var] : preserved) {
        int index = -1;
        for (size_t i = 0; i < domain.size(); i++) {
            if (domain[i].var == rvar.name()) index = (int)i;
        }
        if (index < 0) {
            throw CompileError("In " + req.context + ": " + rvar.name() + " is not an RVar of the update (its RVars, "
                               "after its splits: " + rvar_list(def.rdom) + "). Pass RVars of the RDom this update "
                               "reduces over, or RVars split from them.");
        }
        if (req.var_of.count(index)) {
            throw CompileError("In " + req.context + ": the RVar " + rvar.name() + " is preserved twice.");
        }
        if (var.is_placeholder() || Var::is_implicit(var.name())) {
            throw CompileError("In " + req.context + ": the Var for " + rvar.name() + " is the implicit Var " +
                               var.name() + "; name a Var of your own (Var u(\"u\")).");
        }
        for (const std::string &a : f.args) {
            if (a == var.name()) {
                throw CompileError("In " + req.context + ": the Var " + var.name() + " for " + rvar.name() +
                                   " is already a pure Var of " + f.name + "; the intermediate needs a new Var.");
            }
        }
        if (!vars.insert(var.name()).second) {
            throw CompileError("In " + req.context + ": the Var " + var.name() + " is given for two RVars.");
        }
        req.var_of[index] = var.name();
        req.given.push_back(index);
    }
    for (const auto &[index, var] : req.var_of) req.preserved.push_back(index);
    return req;
}

/** The order of the reduction stays the same only if the preserved RVars
 * are the outermost ones (the last of the RDom). */
bool keeps_order(const Request &req, size_t rdom_size) {
    const size_t first = rdom_size - req.preserved.size();
    for (size_t i = 0; i < req.preserved.size(); i++) {
        if (req.preserved[i] != (int)(first + i)) return false;
    }
    return true;
}

Expr with_values(const AssociativeOp &op, size_t i, const std::vector<Expr> &xs, const std::vector<Expr> &ys) {
    std::map<std::string, Expr> replace;
    for (size_t j = 0; j < xs.size(); j++) {
        replace[op.x_names[j]] = xs[j];
        replace[op.y_names[j]] = ys[j];
    }
    return substitute(replace, op.combine[i]);
}

/** A call of func at args, weak (a Func's calls to itself do not keep it
 * alive, as in Definitions.cpp). */
Expr self_call(const FunctionPtr &func, const std::vector<Expr> &args, int index) {
    const FunctionContents &f = *func.get();
    return Call::make(f.output_types.at(index), f.name, args, CallType::Func, func.weakened(), index);
}

/** Records user among the users of every other Func the Exprs call. */
void mark_callees_used(const FunctionPtr &user, const std::vector<Expr> &exprs) {
    struct Marker : IRGraphVisitor {
        FunctionContents *user_contents;
        FunctionPtr user;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            FunctionContents *callee = op->call_type == CallType::Func ? op->func.get() : nullptr;
            if (callee && callee != user_contents) {
                bool known = false;
                for (const FunctionPtr &u : callee->users) known = known || u.get() == user_contents;
                if (!known) callee->users.push_back(user.weakened());
            }
            IRGraphVisitor::visit(op);
        }
    } marker;
    marker.user = user;
    marker.user_contents = user.get();
    for (const Expr &e : exprs) {
        if (e.defined()) marker.include(e);
    }
}

/** Adds the update func(args) = values over rdom (inserted at `position`,
 * at the end if -1), with the default loop order: the RVars innermost, then
 * the pure Vars the left-hand side keeps. The caller has checked it. */
void add_update(const FunctionPtr &func, const std::vector<Expr> &args, const std::vector<Expr> &values,
                ReductionDomain rdom, int position = -1) {
    FunctionContents &f = *func.get();
    Definition def;
    def.args = args;
    def.values = values;
    std::vector<Expr> reads = args;
    reads.insert(reads.end(), values.begin(), values.end());
    if (rdom.defined()) {
        rdom.freeze();
        rdom.get()->users.push_back(func.weakened());
        for (const ReductionVariable &rv : rdom.domain()) {
            Dim d;
            d.var = rv.var;
            d.is_rvar = true;
            def.schedule.dims.push_back(d);
            reads.insert(reads.end(), {rv.min, rv.extent});
        }
        if (rdom.predicate().defined()) reads.push_back(rdom.predicate());
        def.rdom = rdom;
    }
    for (size_t i = 0; i < args.size(); i++) {
        const Variable *v = args[i].as<Variable>();
        if (!v || v->reduction_domain.defined() || v->name != f.args[i]) continue;
        Dim d;
        d.var = v->name;
        def.schedule.dims.push_back(d);
    }
    if (position < 0) {
        f.updates.push_back(def);
    } else {
        f.updates.insert(f.updates.begin() + position, def);
    }
    mark_callees_used(func, reads);
    mark_changed(f);
}

}  // namespace

Func Stage::rfactor(const RVar &r, const Var &v) { return rfactor({{r, v}}); }

Func Stage::rfactor(const std::vector<std::pair<RVar, Var>> &preserved) {
    FunctionContents &f = *func_.get();
    if (!specialization_.empty() || !f.stage(stage_).specializations.empty()) {
        throw CompileError("rfactor of " + name() + ": the stage is specialized (specialize()), and rfactor would "
                           "have to split every specialization alike. Call rfactor before specialize().");
    }
    Request req = check_request(f, stage_, preserved);
    const Definition def = req.def;
    const std::vector<ReductionVariable> &domain = def.rdom.domain();

    Expr predicate = def.rdom.predicate();
    if (def.predicate.defined()) predicate = predicate.defined() ? And::make(predicate, def.predicate) : def.predicate;
    refuse_recurrence_through_other_funcs(f, def, req.context);
    AssociativeOp op = find_associative_op(f, def.args, def.values, predicate);
    if (!op.associative) {
        throw CompileError("In " + req.context + ": the update is not an associative reduction: " + op.why_not +
                           ". rfactor needs " + f.name + "(args) = " + f.name +
                           "(args) op e with op one of +, *, min, max, &&, || and e not reading " + f.name +
                           " (per Tuple element), or the argmin/argmax form select(" + f.name + "[k] < e, " + f.name +
                           "[i], e[i]).");
    }
    if (!op.commutative && !keeps_order(req, domain.size())) {
        throw CompileError("In " + req.context + ": the operator is associative but not commutative (an argmin/"
                           "argmax-style select, where ties pick one side), and preserving these RVars while "
                           "reducing an outer one would change the order of the reduction. Preserve the outermost "
                           "RVars of the RDom (the last ones).");
    }

    // The RVars: preserved ones become the intermediate's pure Vars; the
    // others keep their names in a new RDom of the intermediate.
    std::vector<ReductionVariable> reduced, merged;
    std::map<std::string, Expr> to_intm;
    for (size_t i = 0; i < domain.size(); i++) {
        if (req.var_of.count((int)i)) {
            to_intm[domain[i].var] = Variable::make(Int(32), req.var_of[(int)i]);
            merged.push_back(domain[i]);
        }
    }
    for (size_t i = 0; i < domain.size(); i++) {
        if (req.var_of.count((int)i)) continue;
        reduced.push_back({domain[i].var, substitute(to_intm, domain[i].min), substitute(to_intm, domain[i].extent)});
    }
    ReductionDomain intm_rdom;
    if (!reduced.empty()) {
        intm_rdom = ReductionDomain(reduced);
        for (const ReductionVariable &rv : reduced) to_intm[rv.var] = Variable::make(Int(32), rv.var, intm_rdom);
        if (predicate.defined()) intm_rdom.set_predicate(substitute(to_intm, predicate));
    }

    // The intermediate: intm(f's pure Vars, preserved Vars) = identity, then
    // the reduction over the other RVars.
    Func intm(f.name + "_intm");
    std::vector<Expr> intm_pure;
    for (const std::string &a : f.args) intm_pure.push_back(Variable::make(Int(32), a));
    for (int index : req.given) intm_pure.push_back(Variable::make(Int(32), req.var_of[index]));
    if (op.identities.size() == 1) {
        intm(intm_pure) = op.identities[0];
    } else {
        intm(intm_pure) = Tuple(op.identities);
    }
    std::vector<Expr> lhs;
    for (const Expr &a : def.args) lhs.push_back(substitute(to_intm, a));
    for (int index : req.given) lhs.push_back(Variable::make(Int(32), req.var_of[index]));
    std::vector<Expr> so_far, ys, values;
    for (size_t i = 0; i < op.y.size(); i++) {
        so_far.push_back(self_call(intm.function(), lhs, (int)i));
        ys.push_back(substitute(to_intm, op.y[i]));
    }
    for (size_t i = 0; i < op.y.size(); i++) values.push_back(with_values(op, i, so_far, ys));
    add_update(intm.function(), lhs, values, intm_rdom);

    // The merge: f(pure Vars) = op(f(pure Vars), intm(pure Vars, preserved
    // RVars)) over the preserved RVars.
    ReductionDomain merge_rdom;
    std::vector<Expr> merge_args, intm_args;
    for (const std::string &a : f.args) merge_args.push_back(Variable::make(Int(32), a));
    intm_args = merge_args;
    if (!merged.empty()) {
        merge_rdom = ReductionDomain(merged);
        for (int index : req.given) intm_args.push_back(Variable::make(Int(32), domain[index].var, merge_rdom));
    }
    std::vector<Expr> f_so_far, partial, merge_values;
    for (size_t i = 0; i < op.y.size(); i++) {
        f_so_far.push_back(self_call(func_, merge_args, (int)i));
        const FunctionContents &ic = *intm.function().get();
        partial.push_back(Call::make(ic.output_types[i], ic.name, intm_args, CallType::Func, intm.function(), (int)i));
    }
    for (size_t i = 0; i < op.y.size(); i++) merge_values.push_back(with_values(op, i, f_so_far, partial));
    f.updates.erase(f.updates.begin() + req.update);
    add_update(func_, merge_args, merge_values, merge_rdom, req.update);
    return intm;
}

}  // namespace loom

namespace loom {

Func Func::rfactor(const std::vector<std::pair<RVar, Var>> &preserved) {
    if (num_update_definitions() == 0) {
        throw CompileError("In rfactor of " + name() + ": " + name() + " has no update definition to factor.");
    }
    return update(num_update_definitions() - 1).rfactor(preserved);
}

Func Func::rfactor(const RVar &r, const Var &v) { return rfactor({{r, v}}); }

}  // namespace loom
