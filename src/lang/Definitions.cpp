#include "lang/Definitions.h"

#include <map>
#include <set>
#include <sstream>

#include "ir/FunctionGroup.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "lang/Backend.h"
#include "lang/Random.h"
#include "lang/Wrappers.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/Var.h"

namespace loom {
namespace internal {

namespace {

std::string describe(const Expr &e) {
    std::ostringstream s;
    s << e;
    return s.str();
}

/** Checks that every free variable of a definition is bound, finds its
 * RDom, and checks recursive calls. */
class CheckVars : public IRGraphVisitor {
public:
    CheckVars(const FunctionContents &func, const std::string &context, const std::vector<std::string> &pure_args)
        : func_(func), context_(context), pure_args_(pure_args) {}

    ReductionDomain rdom;
    int self_calls = 0;

protected:
    using IRGraphVisitor::visit;

    void visit(const Let *op) override {
        include(op->value);
        let_names_.insert(op->name);
        include(op->body);
    }

    void visit(const Call *op) override {
        IRGraphVisitor::visit(op);
        if (op->call_type != CallType::Func || op->func.get() != &func_) return;
        self_calls++;
        for (size_t i = 0; i < op->args.size() && i < pure_args_.size(); i++) {
            if (pure_args_[i].empty()) continue;
            const Variable *v = op->args[i].as<Variable>();
            if (v && v->name == pure_args_[i]) continue;
            throw CompileError("In " + context_ + ": a recursive call " + func_.name + "(...) has " +
                               describe(op->args[i]) + " as argument " + std::to_string(i) +
                               ", where the left-hand side has the pure Var " + pure_args_[i] +
                               ". Recursive calls must use the pure Vars in the same places as the left-hand side.");
        }
    }

    void visit(const Variable *op) override {
        if (op->param.defined() || let_names_.count(op->name)) return;
        if (op->reduction_domain.defined()) {
            if (!rdom.defined()) {
                rdom = op->reduction_domain.strong();
            } else if (!rdom.same_as(op->reduction_domain)) {
                throw CompileError("In " + context_ + ": RVars of two different RDoms are used (" + op->name +
                                   " and " + rdom.domain()[0].var + "). A definition may use one RDom only.");
            }
            return;
        }
        for (const std::string &a : pure_args_) {
            if (a == op->name) return;
        }
        for (size_t i = 0; i < func_.args.size(); i++) {
            if (func_.args[i] != op->name) continue;
            throw CompileError("In " + context_ + ": the pure Var " + op->name + " of " + func_.name +
                               " is used, but not as argument " + std::to_string(i) +
                               " of the left-hand side. A pure Var must appear as a bare Var in the same position "
                               "as in the pure definition (" + func_.name + "(" + pure_var_list() + ")).");
        }
        if (op->name == "_") {
            throw CompileError("In " + context_ + ": the placeholder _ is used where it can't be expanded. "
                               "Use _ only as an argument of a Func, Buffer or ImageParam.");
        }
        throw CompileError("Undefined variable " + op->name + " in " + context_ + ": every Var on the right-hand "
                           "side must also appear on the left-hand side.");
    }

private:
    std::string pure_var_list() const {
        std::string s;
        for (const std::string &a : func_.args) s += (s.empty() ? "" : ", ") + a;
        return s;
    }

    const FunctionContents &func_;
    std::string context_;
    std::vector<std::string> pure_args_;
    std::set<std::string> let_names_;
};

/** Finds calls to one Func, trip counts asked of one RDom, and the free
 * variables other than Params and Lets. */
class FindUses : public IRGraphVisitor {
public:
    FindUses(const FunctionContents *func, std::string trip_count_buffer)
        : func_(func), trip_count_buffer_(std::move(trip_count_buffer)) {}
    bool calls_func = false, reads_trip_count = false;
    std::set<std::string> variables;

protected:
    using IRGraphVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == CallType::Func && op->func.get() == func_) calls_func = true;
        if (op->is_intrinsic(intrinsic::trip_count) && !trip_count_buffer_.empty() && op->args.size() == 1) {
            const StringImm *b = op->args[0].as<StringImm>();
            if (b && b->value == trip_count_buffer_) reads_trip_count = true;
        }
        IRGraphVisitor::visit(op);
    }
    void visit(const Let *op) override {
        include(op->value);
        lets_.insert(op->name);
        include(op->body);
    }
    void visit(const Variable *op) override {
        if (!op->param.defined() && !lets_.count(op->name)) variables.insert(op->name);
    }

private:
    const FunctionContents *func_;
    std::string trip_count_buffer_;
    std::set<std::string> lets_;
};

FindUses find_uses(const FunctionContents &f, const ReductionDomain &rdom, const std::vector<Expr> &exprs) {
    FindUses uses(&f, rdom.get()->trip_count_buffer);
    for (const Expr &e : exprs) {
        if (e.defined()) uses.include(e);
    }
    return uses;
}

/** The checks of an update's RDom against the update itself: its bounds may
 * not depend on the loop they bound, and its loop_while condition may read
 * only the outermost RVar (it is evaluated outside the other loops). */
void check_rdom_of_update(const FunctionContents &f, const std::string &context, const ReductionDomain &rdom,
                          const std::vector<Expr> &args, const std::vector<Expr> &values) {
    const std::string rdom_name = rdom.domain()[0].var.substr(0, rdom.domain()[0].var.rfind('$'));
    for (const ReductionVariable &rv : rdom.domain()) {
        if (find_uses(f, rdom, {rv.min, rv.extent}).calls_func) {
            throw CompileError("In " + context + ": the bounds of RVar " + rv.var + " read " + f.name +
                               ", the Func this loop computes, so they would depend on the loop they bound. "
                               "Compute the bound in another Func (n() = ...; RDom r(0, n())).");
        }
    }
    if (find_uses(f, rdom, args).reads_trip_count || find_uses(f, rdom, values).reads_trip_count ||
        find_uses(f, rdom, {rdom.loop_condition(), rdom.predicate()}).reads_trip_count) {
        throw CompileError("In " + context + ": " + rdom_name + ".trip_count() is read inside the loop over " +
                           rdom_name + ", where it is not known yet. Read it in a Func computed after " + f.name +
                           "; inside the loop, the RVar itself counts the iterations.");
    }
    const Expr cond = rdom.loop_condition();
    if (!cond.defined()) return;
    const std::string outer = rdom.domain().back().var;
    for (const std::string &v : find_uses(f, rdom, {cond}).variables) {
        if (v == outer) continue;
        throw CompileError("In " + context + ": the loop_while condition of RDom " + rdom_name + " uses " + v +
                           ", but it is evaluated once per iteration of the outermost RVar " + outer +
                           ", outside every other loop. Use only " + outer + ", Params and Funcs in it.");
    }
}

struct ContainsUndef : IRGraphVisitor {
    bool found = false;
    using IRGraphVisitor::visit;
    void visit(const Call *op) override {
        if (op->is_intrinsic(intrinsic::undef)) found = true;
        IRGraphVisitor::visit(op);
    }
};

/** undef() is the whole value of a pure definition (every Tuple element),
 * or nowhere. */
void check_undef(const std::string &context, const std::vector<Expr> &values, bool pure) {
    int whole = 0;
    for (const Expr &v : values) {
        if (pure && is_undef(v)) {
            whole++;
            continue;
        }
        ContainsUndef finder;
        finder.include(v);
        if (finder.found) {
            throw CompileError("In " + context + ": undef() is used inside an expression. Loom accepts undef() "
                               "only as the whole value of a definition: of a pure definition (f(x) = "
                               "undef<float>(), which stores nothing) or of an update or one of its Tuple "
                               "elements (which leaves it unchanged).");
        }
    }
    if (whole != 0 && whole != (int)values.size()) {
        throw CompileError("In " + context + ": some Tuple elements are undef() and some are not. Make every "
                           "element undef() (the updates set them all) or none.");
    }
}

/** Records user among the users of each other Func its definition calls. */
void mark_callees_used(const FunctionPtr &user, const std::vector<Expr> &exprs) {
    struct Marker : IRGraphVisitor {
        FunctionPtr user;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            FunctionContents *callee = op->call_type == CallType::Func ? op->func.get() : nullptr;
            if (callee && callee != user.get()) {
                bool known = false;
                for (const FunctionPtr &u : callee->users) known = known || u.get() == user.get();
                if (!known) callee->users.push_back(user.weakened());
            }
            if (op->call_type == CallType::Image && op->param.defined()) {  // for ImageParam::in()
                std::vector<FunctionPtr> &users = op->param.get()->users;
                std::erase_if(users, [](const FunctionPtr &u) { return !u.get(); });
                bool known = false;
                for (const FunctionPtr &u : users) known = known || u.get() == user.get();
                if (!known) users.push_back(user.weakened());
            }
            IRGraphVisitor::visit(op);
        }
    } marker;
    marker.user = user;
    for (const Expr &e : exprs) {
        if (e.defined()) marker.include(e);
    }
}

/** Every Func the Exprs call, directly or through other Funcs' definitions
 * (f itself excluded). */
std::set<const FunctionContents *> reachable_funcs(const FunctionContents &f, const std::vector<Expr> &exprs) {
    struct Walker : IRGraphVisitor {
        const FunctionContents *self;
        std::set<const FunctionContents *> seen;
        std::vector<const FunctionContents *> pending;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            const FunctionContents *callee = op->call_type == CallType::Func ? op->func.get() : nullptr;
            if (callee && callee != self && seen.insert(callee).second) pending.push_back(callee);
            IRGraphVisitor::visit(op);
        }
    } walker;
    walker.self = &f;
    for (const Expr &e : exprs) {
        if (e.defined()) walker.include(e);
    }
    while (!walker.pending.empty()) {
        const FunctionContents *g = walker.pending.back();
        walker.pending.pop_back();
        for (int s = 0; s < g->stages(); s++) {
            for (const Expr &e : g->stage(s).args) walker.include(e);
            for (const Expr &e : g->stage(s).values) walker.include(e);
        }
    }
    return walker.seen;
}

/** As in Halide, an update can't be added to f once another Func uses f,
 * unless that Func is part of the update (it reads the user, directly or
 * through other Funcs: a recurrence such as state(r + 1) = step(r)). */
void check_no_outside_user(const FunctionContents &f, const std::string &context, const std::vector<Expr> &exprs) {
    std::set<const FunctionContents *> part_of_update;
    bool computed = false;
    for (const FunctionPtr &user : f.users) {
        const FunctionContents *u = user.get();
        if (!u) continue;
        if (!computed) {
            part_of_update = reachable_funcs(f, exprs);
            computed = true;
        }
        if (part_of_update.count(u)) continue;
        throw CompileError("In " + context + ": Func " + u->name + " already uses " + f.name + ", so " + f.name +
                           " can't be given another update definition (its value is fixed once another Func reads "
                           "it, as in Halide). Add every update of " + f.name + " before defining " + u->name +
                           " (a Func that the update itself reads, as in a recurrence, is fine).");
    }
}

class CountImplicitVars : public IRGraphVisitor {
public:
    int count = 0;

protected:
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override {
        int index = Var::implicit_index(op->name);
        if (index >= count) count = index + 1;
    }
};

void check_values(const FunctionContents &f, const std::string &context, const std::vector<Expr> &values) {
    if (values.empty()) throw CompileError("In " + context + ": no values on the right-hand side.");
    for (size_t i = 0; i < values.size(); i++) {
        if (!values[i].defined()) {
            throw CompileError("In " + context + ": value " + std::to_string(i) + " on the right-hand side is undefined.");
        }
        if (values[i].type().is_vector() || values[i].type().is_handle()) {
            throw CompileError("In " + context + ": value " + std::to_string(i) + " has type " +
                               values[i].type().to_string() + "; a Func holds scalar numbers.");
        }
    }
}

/** Signed int32/int64 arithmetic between constants that overflows: Halide
 * reports it when it folds constants (the overflow is almost always a
 * mistake), so Loom does too, when the definition is made. Arithmetic
 * computed at run time still wraps (docs/LANGUAGE.md). */
class FindConstantOverflow : public IRGraphVisitor {
public:
    std::string overflow;  // "a op b in type", or empty

    using IRGraphVisitor::visit;
    void visit(const IntImm *op) override { value_[op] = op->value; }
    void visit(const Add *op) override {
        binary(op, " + ", [](int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); });
    }
    void visit(const Sub *op) override {
        binary(op, " - ", [](int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r); });
    }
    void visit(const Mul *op) override {
        binary(op, " * ", [](int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); });
    }

private:
    std::map<const IRNode *, int64_t> value_;

    template<typename T, typename Fold>
    void binary(const T *op, const char *symbol, Fold fold) {
        IRGraphVisitor::visit(op);
        if (!overflow.empty() || !op->type.is_int() || op->type.bits() < 32) return;
        auto a = value_.find(op->a.get()), b = value_.find(op->b.get());
        if (a == value_.end() || b == value_.end()) return;
        int64_t r = 0;
        bool wraps = fold(a->second, b->second, &r);
        if (op->type.bits() == 32) wraps = wraps || r < INT32_MIN || r > INT32_MAX;
        if (wraps) {
            overflow = std::to_string(a->second) + symbol + std::to_string(b->second) + " does not fit in " +
                       op->type.to_string();
            return;
        }
        value_[op] = r;
    }
};

void check_constant_overflow(const std::string &context, const std::vector<Expr> &exprs) {
    FindConstantOverflow find;
    for (const Expr &e : exprs) {
        if (e.defined()) find.include(e);
    }
    if (find.overflow.empty()) return;
    throw CompileError("In " + context + ": signed integer overflow between constants: " + find.overflow +
                       ". Signed 32- and 64-bit arithmetic on constants must not overflow (Halide reports it "
                       "too); compute in a wider type, or in an unsigned type if wrapping is what you want.");
}

}  // namespace

int count_implicit_vars(const std::vector<Expr> &exprs) {
    CountImplicitVars counter;
    for (const Expr &e : exprs) {
        if (e.defined()) counter.include(e);
    }
    return counter.count;
}

void define_pure(const FunctionPtr &func, const std::vector<Expr> &args, const std::vector<Expr> &given_values) {
    FunctionContents &f = *func.get();
    const std::vector<Expr> values = redirect_to_wrappers(f, given_values);  // Func::in, clone_in
    const std::string context = "pure definition of Func " + f.name;
    if (f.defined()) {
        throw CompileError("Func " + f.name + " already has a pure definition; a second one (" + context +
                           ") would replace it. Use an update definition that refers to " + f.name +
                           " or an RDom, or define a new Func.");
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < args.size(); i++) {
        const Variable *v = args[i].as<Variable>();
        if (v && v->reduction_domain.defined()) {
            throw CompileError("In " + context + ": argument " + std::to_string(i) + " is the RVar " + v->name +
                               ". A pure definition takes Vars; give " + f.name + " a pure definition first (" +
                               f.name + "(x) = ...), then use the RDom in an update.");
        }
        if (!v || v->param.defined()) {
            throw CompileError("In " + context + ": argument " + std::to_string(i) + " is " + describe(args[i]) +
                               ", which is not a Var. A pure definition takes distinct Vars, e.g. " + f.name +
                               "(x, y) = ...");
        }
        for (size_t j = 0; j < names.size(); j++) {
            if (names[j] == v->name) {
                throw CompileError("In " + context + ": the Var " + v->name + " is used twice on the left-hand side "
                                   "(arguments " + std::to_string(j) + " and " + std::to_string(i) +
                                   "). The arguments of a pure definition must be distinct Vars.");
            }
        }
        if (v->name == "_") throw CompileError("In " + context + ": the placeholder _ was not expanded.");
        names.push_back(v->name);
    }
    check_values(f, context, values);
    check_constant_overflow(context, values);

    check_undef(context, values, /*pure=*/true);
    CheckVars check(f, context, names);
    for (const Expr &v : values) check.include(v);
    if (check.rdom.defined()) {
        throw CompileError("In " + context + ": the RDom of " + check.rdom.domain()[0].var +
                           " is used in a pure definition. Use RDoms in update definitions (" + f.name +
                           "(x) = 0; " + f.name + "(x) += g(x, r);).");
    }

    Definition def;
    for (const std::string &n : names) {
        def.args.push_back(Variable::make(Int(32), n));
        Dim d;
        d.var = n;
        def.schedule.dims.push_back(d);
    }
    for (const Expr &v : values) def.values.push_back(replace_random_calls(v, f.name, 0, def.args));
    f.args = names;
    f.output_types.clear();
    for (const Expr &v : values) f.output_types.push_back(v.type());
    f.init = def;
    mark_callees_used(func, values);
    FunctionGroup::join_cycles_through(f);  // a Func called before it was defined
    mark_changed(f);
}

void define_update(const FunctionPtr &func, const std::vector<Expr> &given_args,
                   const std::vector<Expr> &given_values) {
    FunctionContents &f = *func.get();
    // Func::in, clone_in: calls of Funcs with a wrapper for f go to it.
    const std::vector<Expr> args = redirect_to_wrappers(f, given_args);
    std::vector<Expr> values = redirect_to_wrappers(f, given_values);
    const int index = (int)f.updates.size();
    const std::string context = "update definition " + std::to_string(index) + " of Func " + f.name;
    if (!f.defined()) throw InternalError("define_update on " + f.name + ", which has no pure definition.");
    if ((int)args.size() != f.dimensions()) {
        throw CompileError("In " + context + ": " + f.name + " has " + std::to_string(f.dimensions()) +
                           " dimensions, but the left-hand side has " + std::to_string(args.size()) + " arguments.");
    }
    check_values(f, context, values);
    check_constant_overflow(context, values);
    check_constant_overflow(context, args);
    if ((int)values.size() != f.outputs()) {
        throw CompileError("In " + context + ": the update has " + std::to_string(values.size()) + " values, but " +
                           f.name + " is defined with a Tuple of " + std::to_string(f.outputs()) +
                           ". Every definition must give the same number of values.");
    }
    for (size_t i = 0; i < values.size(); i++) {
        if (values[i].type() == f.output_types[i]) continue;
        std::string which = f.outputs() > 1 ? "Tuple element " + std::to_string(i) + " of the update" : "the update";
        throw CompileError("In " + context + ": " + which + " has type " + values[i].type().to_string() + ", but " +
                           f.name + "'s pure definition has type " + f.output_types[i].to_string() +
                           ". Cast the value (cast<T>(...)) to " + f.output_types[i].to_string() + ".");
    }

    // undef() as a whole value of an update leaves that value unchanged, as
    // in Halide (f(x) = undef<float>(), or some elements of a Tuple): it
    // becomes a read of f at the update's own point.
    for (size_t i = 0; i < values.size(); i++) {
        if (is_undef(values[i])) values[i] = Call::make(f.output_types[i], f.name, args, CallType::Func, func, (int)i);
    }

    // A pure Var stays pure only as a bare Var in its own position.
    std::vector<std::string> pure_args(args.size());
    bool all_pure = true;
    for (size_t i = 0; i < args.size(); i++) {
        if (!args[i].defined()) throw CompileError("In " + context + ": argument " + std::to_string(i) + " is undefined.");
        if (!args[i].type().is_int() || args[i].type().is_vector()) {
            throw CompileError("In " + context + ": argument " + std::to_string(i) + " has type " +
                               args[i].type().to_string() + "; coordinates must be integers.");
        }
        const Variable *v = args[i].as<Variable>();
        if (v && !v->param.defined() && !v->reduction_domain.defined() && v->name == f.args[i]) {
            pure_args[i] = v->name;
        } else {
            all_pure = false;
        }
    }

    check_undef(context, args, /*pure=*/false);
    check_undef(context, values, /*pure=*/false);
    CheckVars check(f, context, pure_args);
    for (const Expr &a : args) check.include(a);
    for (const Expr &v : values) check.include(v);
    ReductionDomain rdom = check.rdom;
    if (rdom.defined() && rdom.predicate().defined()) check.include(rdom.predicate());

    if (all_pure && !rdom.defined() && check.self_calls == 0) {
        throw CompileError("In " + context + ": " + f.name + " already has a pure definition, and this one (all "
                           "pure Vars, no RDom, no reference to " + f.name + ") would completely replace it. "
                           "Define a new Func instead, or refer to " + f.name + " on the right-hand side.");
    }

    // Everything the update reads: its sides, its RDom's bounds, predicate
    // and loop condition.
    std::vector<Expr> reads = args;
    reads.insert(reads.end(), values.begin(), values.end());
    if (rdom.defined()) {
        for (const ReductionVariable &rv : rdom.domain()) reads.insert(reads.end(), {rv.min, rv.extent});
        reads.insert(reads.end(), {rdom.predicate(), rdom.loop_condition()});
    }
    check_no_outside_user(f, context, reads);
    // Its own calls: a Func must not keep itself alive.
    auto weakened = [&](const Expr &e) { return weaken_calls_of(e, {&f}); };
    Definition def;
    // random_*(): a hash of the update's coordinates, its pure Vars and RVars.
    std::vector<Expr> coordinates;
    for (const std::string &p : pure_args) {
        if (!p.empty()) coordinates.push_back(Variable::make(Int(32), p));
    }
    if (rdom.defined()) {
        for (const ReductionVariable &rv : rdom.domain()) coordinates.push_back(Variable::make(Int(32), rv.var, rdom));
    }
    auto with_random = [&](const Expr &e) { return replace_random_calls(e, f.name, index + 1, coordinates); };
    for (const Expr &a : args) def.args.push_back(weakened(with_random(a)));
    for (const Expr &v : values) def.values.push_back(weakened(with_random(v)));
    if (rdom.defined()) {
        check_rdom_of_update(f, context, rdom, args, values);
        rdom.freeze();
        if (rdom.predicate().defined()) rdom.set_predicate(weakened(with_random(rdom.predicate())));
        if (rdom.loop_condition().defined()) {
            rdom.set_loop_condition(weakened(with_random(rdom.loop_condition())));
        }
        def.rdom = rdom;
        rdom.get()->users.push_back(func.weakened());
        // Default loop order: the RVars innermost (first innermost), then the pure Vars.
        for (const ReductionVariable &rv : rdom.domain()) {
            Dim d;
            d.var = rv.var;
            d.is_rvar = true;
            def.schedule.dims.push_back(d);
        }
    }
    for (const std::string &p : pure_args) {
        if (p.empty()) continue;
        Dim d;
        d.var = p;
        def.schedule.dims.push_back(d);
    }
    // A loop that can stop early is outermost: its condition is evaluated
    // once per iteration, outside the loops over the other variables.
    if (rdom.defined() && rdom.loop_condition().defined()) {
        Dim outer = def.schedule.dims[rdom.domain().size() - 1];
        def.schedule.dims.erase(def.schedule.dims.begin() + (rdom.domain().size() - 1));
        def.schedule.dims.push_back(outer);
    }
    f.updates.push_back(def);
    mark_callees_used(func, reads);
    FunctionGroup::join_cycles_through(f);  // a recurrence through other Funcs
    mark_changed(f);
}

}  // namespace internal
}  // namespace loom
