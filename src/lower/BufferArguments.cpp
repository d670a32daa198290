#include "lower/BufferArguments.h"

#include <algorithm>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"
#include "lower/BufferConstraints.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

/** Finds the Params and input buffers the pipeline refers to. */
struct FindParameters : IRGraphVisitor {
    std::map<std::string, Parameter> scalars, buffers;
    using IRGraphVisitor::visit;

    void add(const Parameter &p) {
        // An output buffer's Parameter (Func::output_buffer()) is not an
        // input: its fields are bound like every output's.
        if (!p.defined() || p.is_output_buffer()) return;
        auto &table = p.is_buffer() ? buffers : scalars;
        auto it = table.find(p.name());
        if (it != table.end() && !it->second.same_as(p)) {
            throw CompileError(std::string(p.is_buffer() ? "Two different input buffers" : "Two different Params") +
                               " are named '" + p.name() + "'. Give them distinct names.");
        }
        table[p.name()] = p;
    }
    void visit(const Variable *op) override { add(op->param); }
    void visit(const Load *op) override {
        add(op->param);
        IRGraphVisitor::visit(op);
    }
    void visit(const Call *op) override {
        add(op->param);
        IRGraphVisitor::visit(op);
    }
};

Expr error_call(int code, const std::vector<Expr> &pieces) {
    std::vector<Expr> args = {Expr(code)};
    args.insert(args.end(), pieces.begin(), pieces.end());
    return Call::make(Int(32), intrinsic::error, args, CallType::Intrinsic);
}

Expr text(const std::string &s) { return StringImm::make(s); }

Expr buffer_field(const char *intrinsic_name, const std::string &buffer, int dim) {
    return Call::make(Int(32), intrinsic_name, {Variable::make(Handle(), buffer + ".buffer"), Expr(dim)},
                      CallType::PureIntrinsic);
}

std::string describe(const LoweredArgument &a) {
    return (a.kind == LoweredArgument::OutputBuffer ? "Output buffer " : "Input buffer ") + a.name;
}

/** Checks that must pass before any field of the buffer is read. */
std::vector<Stmt> header_checks(const LoweredArgument &a) {
    Expr handle = Variable::make(Handle(), a.name + ".buffer");
    std::vector<Stmt> checks;
    Expr is_null = Call::make(Bool(), intrinsic::buffer_is_null, {handle}, CallType::PureIntrinsic);
    checks.push_back(AssertStmt::make(Not::make(is_null),
                                      error_call(loom_error_code_bad_argument, {text(describe(a) + " is NULL.")})));
    Expr dims = Call::make(Int(32), intrinsic::buffer_get_dimensions, {handle}, CallType::PureIntrinsic);
    checks.push_back(AssertStmt::make(
        EQ::make(dims, Expr(a.dimensions)),
        error_call(loom_error_code_bad_dimensions, {text(describe(a) + " has "), dims,
                                                    text(" dimensions, but the pipeline expects " +
                                                         std::to_string(a.dimensions) + ".")})));
    Expr code = Call::make(UInt(8), intrinsic::buffer_get_type_code, {handle}, CallType::PureIntrinsic);
    Expr bits = Call::make(UInt(8), intrinsic::buffer_get_type_bits, {handle}, CallType::PureIntrinsic);
    Expr type_ok = And::make(EQ::make(code, make_const(UInt(8), (int64_t)a.type.code())),
                             EQ::make(bits, make_const(UInt(8), (int64_t)a.type.bits())));
    checks.push_back(AssertStmt::make(
        type_ok, error_call(loom_error_code_bad_type,
                            {text(describe(a) + " has type code "), Cast::make(Int(32), code), text(" with "),
                             Cast::make(Int(32), bits),
                             text(" bits, but the pipeline expects " + a.type.to_string() + ".")})));
    return checks;
}

Expr host_is_null(const LoweredArgument &a) {
    return Call::make(Bool(), intrinsic::buffer_host_is_null, {Variable::make(Handle(), a.name + ".buffer")},
                      CallType::PureIntrinsic);
}

Stmt host_check(const LoweredArgument &a) {
    return AssertStmt::make(Not::make(host_is_null(a)),
                            error_call(loom_error_code_null_host_pointer,
                                       {text(describe(a) + " has no host memory (host is NULL).")}));
}

/** The answer of a bounds query for an output buffer whose host pointer is
 * NULL: the region asked for, grown to what the pipeline writes when asked
 * for it (a RoundUp split, a scatter, a constraint), as in Halide. Dimensions
 * whose written region depends on computed values keep the region asked for. */
Stmt output_query_answer(const LoweredArgument &a, const std::vector<Interval> &written, const Parameter &p) {
    std::vector<Stmt> dims;
    for (size_t d = 0; d < written.size(); d++) {
        const Interval &i = written[d];
        const std::string dim = std::to_string(d);
        Expr asked_min = Variable::make(Int(32), a.name + ".min." + dim);
        Expr asked_max = Add::make(asked_min, Sub::make(Variable::make(Int(32), a.name + ".extent." + dim), Expr(1)));
        Expr min = constraint_of(a, p, (int)d, "min");
        if (!min.defined()) min = i.min.defined() ? Min::make(asked_min, i.min) : asked_min;
        Expr extent = constraint_of(a, p, (int)d, "extent");
        if (!extent.defined()) {
            Expr max = i.max.defined() ? Max::make(asked_max, i.max) : asked_max;
            extent = Add::make(Sub::make(max, min), Expr(1));
        }
        dims.push_back(Evaluate::make(Call::make(Int(32), intrinsic::buffer_set_bounds,
                                                 {Variable::make(Handle(), a.name + ".buffer"), Expr((int)d), min,
                                                  extent},
                                                 CallType::Intrinsic)));
    }
    return Block::make(dims);
}

/** Answers a bounds query: an input whose host pointer is NULL gets the
 * region the pipeline reads written into its dims; an output whose host
 * pointer is NULL, the region the pipeline would write (output_query_answer). */
Stmt bounds_query(const std::vector<LoweredArgument> &args, const InferredBounds &bounds,
                  const std::map<std::string, Parameter> &constraints, Expr &any_query) {
    std::vector<Stmt> answers;
    for (const LoweredArgument &a : args) {
        if (a.kind == LoweredArgument::OutputBuffer) {
            auto region = bounds.output_regions.find(a.name);
            if (region == bounds.output_regions.end()) continue;
            auto param = constraints.find(a.name);
            Stmt answer = output_query_answer(a, region->second,
                                              param == constraints.end() ? Parameter() : param->second);
            if (!answer.defined()) continue;
            answers.push_back(IfThenElse::make(host_is_null(a), answer));
            any_query = any_query.defined() ? Or::make(any_query, host_is_null(a)) : host_is_null(a);
            continue;
        }
        if (a.kind != LoweredArgument::InputBuffer) continue;
        auto region = bounds.input_regions.find(a.name);
        if (region == bounds.input_regions.end()) continue;
        std::vector<Stmt> dims;
        for (size_t d = 0; d < region->second.size(); d++) {
            const Interval &i = region->second[d];
            if (!i.min.defined() || !i.max.defined()) {
                // Known only once the pipeline's Funcs run (an RDom extent
                // computed by the pipeline): a query can't answer it.
                dims.push_back(AssertStmt::make(
                    const_false(),
                    error_call(loom_error_code_buffer_too_small,
                               {text(describe(a) + ": the region the pipeline reads in dimension " +
                                     std::to_string(d) + " depends on values the pipeline computes, so a bounds "
                                     "query can't answer it. Pass a buffer instead.")})));
                continue;
            }
            // A constrained min or extent is what the answer must say (the
            // buffer made from it then meets the constraint).
            auto param = constraints.find(a.name);
            const Parameter p = param == constraints.end() ? Parameter() : param->second;
            Expr min = constraint_of(a, p, (int)d, "min");
            if (!min.defined()) min = i.min;
            Expr extent = constraint_of(a, p, (int)d, "extent");
            if (!extent.defined()) extent = Add::make(Sub::make(i.max, min), Expr(1));
            dims.push_back(Evaluate::make(Call::make(Int(32), intrinsic::buffer_set_bounds,
                                                     {Variable::make(Handle(), a.name + ".buffer"), Expr((int)d),
                                                      min, extent},
                                                     CallType::Intrinsic)));
        }
        answers.push_back(IfThenElse::make(host_is_null(a), Block::make(dims)));
        any_query = any_query.defined() ? Or::make(any_query, host_is_null(a)) : host_is_null(a);
    }
    return Block::make(answers);
}

/** Checks that the buffer covers the region the pipeline touches. An
 * endpoint known only once Funcs are computed is undefined here: bounds
 * inference checks it where they are (DeferFuncDependentChecks). */
std::vector<Stmt> region_checks(const LoweredArgument &a, const Box &region) {
    std::vector<Stmt> checks;
    for (size_t d = 0; d < region.size(); d++) {
        if (region[d].min.defined()) checks.push_back(buffer_region_check(describe(a), a.name, (int)d, region[d].min, true));
        if (region[d].max.defined()) checks.push_back(buffer_region_check(describe(a), a.name, (int)d, region[d].max, false));
    }
    return checks;
}

Stmt prepend(const std::vector<Stmt> &checks, Stmt body) {
    std::vector<Stmt> all = checks;
    all.push_back(std::move(body));
    return Block::make(all);
}

}  // namespace

Stmt buffer_region_check(const std::string &who, const std::string &buffer, int d, const Expr &endpoint, bool is_min) {
    const std::string dim = std::to_string(d);
    Expr min = var(buffer + ".min." + dim);
    Expr max = Sub::make(Add::make(min, var(buffer + ".extent." + dim)), Expr(1));
    Expr ok = is_min ? GE::make(endpoint, min) : LE::make(endpoint, max);
    return AssertStmt::make(ok, error_call(loom_error_code_buffer_too_small,
                                           {text(who + " is accessed at "), endpoint,
                                            text(is_min ? ", which is before the min (" : ", which is beyond the max ("),
                                            is_min ? min : max, text(") in dimension " + dim + ".")}));
}

std::vector<LoweredArgument> find_arguments(const Stmt &s, const PipelineStages &pipeline) {
    FindParameters finder;
    finder.include(s);
    for (const auto &[name, stages] : pipeline.stages) {
        for (const Stage &st : stages) {
            for (const ReductionVariable &rv : st.rvars) {
                finder.include(rv.min);
                finder.include(rv.extent);
            }
        }
    }
    // A buffer's constraints may name Params (and other buffers) that the
    // body does not use: they are arguments too, read by the checks.
    auto include_constraints = [&](const Parameter &p) {
        for (int d = 0; d < p.dimensions(); d++) {
            const BufferConstraint &c = p.constraint(d);
            for (const Expr &e : {c.min, c.extent, c.stride}) {
                if (e.defined()) finder.include(e);
            }
        }
    };
    std::set<std::string> constrained;
    for (bool grew = true; grew;) {
        grew = false;
        const std::map<std::string, Parameter> buffers = finder.buffers;
        for (const auto &[name, p] : buffers) {
            if (!constrained.insert(name).second) continue;
            include_constraints(p);
            grew = true;
        }
    }
    for (const FunctionPtr &o : pipeline.outputs) {
        for (const Parameter &p : o.get()->output_buffers) include_constraints(p);
    }
    std::vector<LoweredArgument> args;
    std::map<std::string, LoweredArgument> inputs;  // sorted by name
    for (const auto &[name, p] : finder.scalars) {
        LoweredArgument a;
        a.name = name;
        a.kind = LoweredArgument::InputScalar;
        a.type = p.type();
        a.param = p;
        inputs[name] = a;
    }
    for (const auto &[name, p] : finder.buffers) {
        if (inputs.count(name) || pipeline.env.count(name)) {
            throw CompileError("The name '" + name + "' is used by an input buffer and by another Param or Func. "
                               "Give them distinct names.");
        }
        LoweredArgument a;
        a.name = name;
        a.kind = LoweredArgument::InputBuffer;
        a.type = p.type();
        a.dimensions = p.dimensions();
        a.param = p;
        inputs[name] = a;
    }
    for (auto &[name, a] : inputs) args.push_back(a);
    for (const FunctionPtr &o : pipeline.outputs) {
        const FunctionContents &f = *o.get();
        for (int v = 0; v < f.outputs(); v++) {
            LoweredArgument a;
            a.name = storage_name(f, v);
            a.kind = LoweredArgument::OutputBuffer;
            a.type = f.output_types[v];
            a.dimensions = f.dimensions();
            args.push_back(a);
        }
    }
    return args;
}

Stmt remove_asserts(const Stmt &s) {
    struct Remove : IRMutator {
        using IRMutator::visit;
        Stmt visit(const AssertStmt *) override { return Evaluate::make(Expr(0)); }
    };
    return Remove().mutate(s);
}

Stmt add_buffer_arguments(const Stmt &s, const std::vector<LoweredArgument> &args, const InferredBounds &bounds,
                          bool bounds_query_mode, const std::map<std::string, Parameter> &constraints) {
    // The regions may name the bounds defined at the top of the statement:
    // those definitions move out to enclose the checks and the bounds query.
    // The storage passes after bounds inference (folding, bound_storage,
    // align_storage) rewrite storage sizes: those keep the statement's value.
    // The others keep bounds inference's, in terms of the buffer fields the
    // checks compare (the body has the constraints in their place).
    std::set<std::string> top;
    for (const auto &let : bounds.top_lets) top.insert(let.first);
    auto is_storage_size = [](const std::string &n) {
        for (const std::string suffix : {".min_realized", ".extent_realized"}) {
            if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) return true;
        }
        return false;
    };
    std::map<std::string, Expr> current;
    Stmt body = s;
    while (const LetStmt *l = body.as<LetStmt>()) {
        if (!top.count(l->name)) break;
        if (is_storage_size(l->name)) current[l->name] = l->value;
        body = l->body;
    }
    for (const LoweredArgument &a : args) {
        if (!a.is_buffer()) continue;
        Expr host = Call::make(Handle(), intrinsic::buffer_get_host, {Variable::make(Handle(), a.name + ".buffer")},
                               CallType::PureIntrinsic);
        body = LetStmt::make(a.name, host, body);
    }

    std::vector<Stmt> checks;
    for (const LoweredArgument &a : args) {
        if (a.is_buffer()) checks.push_back(host_check(a));
    }
    for (const LoweredArgument &a : args) {
        if (!a.is_buffer()) continue;
        auto it = constraints.find(a.name);
        auto more = constraint_checks(a, it == constraints.end() ? Parameter() : it->second);
        checks.insert(checks.end(), more.begin(), more.end());
    }
    for (const LoweredArgument &a : args) {
        if (!a.is_buffer()) continue;
        const auto &regions = a.kind == LoweredArgument::InputBuffer ? bounds.input_regions : bounds.output_regions;
        auto it = regions.find(a.name);
        if (it == regions.end()) continue;
        auto more = region_checks(a, it->second);
        checks.insert(checks.end(), more.begin(), more.end());
    }
    body = prepend(checks, body);

    Expr any_query;
    Stmt answer = bounds_query(args, bounds, constraints, any_query);
    if (any_query.defined() && bounds_query_mode) body = IfThenElse::make(any_query, answer, body);
    for (auto it = bounds.top_lets.rbegin(); it != bounds.top_lets.rend(); ++it) {
        auto now = current.find(it->first);
        body = LetStmt::make(it->first, now == current.end() ? it->second : now->second, body);
    }

    for (auto it = args.rbegin(); it != args.rend(); ++it) {
        if (!it->is_buffer()) continue;
        for (int d = it->dimensions - 1; d >= 0; d--) {
            const std::string prefix = it->name + ".";
            const std::string dim = std::to_string(d);
            // The body uses the constraints in place of constrained fields
            // (lower/BufferConstraints.h); these are the actual values, which
            // the checks compare with them.
            body = LetStmt::make(prefix + "stride." + dim, buffer_field(intrinsic::buffer_get_stride, it->name, d), body);
            body = LetStmt::make(prefix + "extent." + dim, buffer_field(intrinsic::buffer_get_extent, it->name, d), body);
            body = LetStmt::make(prefix + "min." + dim, buffer_field(intrinsic::buffer_get_min, it->name, d), body);
        }
    }
    std::vector<Stmt> headers;
    for (const LoweredArgument &a : args) {
        if (!a.is_buffer()) continue;
        auto more = header_checks(a);
        headers.insert(headers.end(), more.begin(), more.end());
    }
    return prepend(headers, body);
}

}  // namespace internal
}  // namespace loom
