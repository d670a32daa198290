#include "lower/BufferConstraints.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

const char *const fields[] = {"min", "extent", "stride"};

Expr field_of(const BufferConstraint &c, const std::string &field) {
    if (field == "min") return c.min;
    if (field == "extent") return c.extent;
    return c.stride;
}

/** The input buffers the statement reads (their Parameters, by name). */
struct FindInputBuffers : IRGraphVisitor {
    std::map<std::string, Parameter> buffers;
    using IRGraphVisitor::visit;
    void add(const Parameter &p) {
        if (p.defined() && p.is_buffer() && !p.is_output_buffer()) buffers.emplace(p.name(), p);
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

/** The output Parameter of storage `name` of f, if output_buffers() made one. */
Parameter output_parameter(const FunctionContents &f, int v) {
    if ((int)f.output_buffers.size() != f.outputs()) return Parameter();
    return f.output_buffers[v];
}

void add_replacements(const std::string &name, int dimensions, const Parameter &param,
                      std::map<std::string, Expr> &replacements) {
    for (int d = 0; d < dimensions; d++) {
        for (const char *field : fields) {
            Expr c;
            if (param.defined()) c = field_of(param.constraint(d), field);
            else if (d == 0 && std::string(field) == "stride") c = Expr(1);
            if (c.defined()) replacements[name + "." + field + "." + std::to_string(d)] = c;
        }
    }
}

Expr text(const std::string &s) { return StringImm::make(s); }

Expr buffer_field(const std::string &field, const std::string &buffer, int d) {
    const char *intrinsic_name = field == "min"      ? intrinsic::buffer_get_min
                                 : field == "extent" ? intrinsic::buffer_get_extent
                                                     : intrinsic::buffer_get_stride;
    return Call::make(Int(32), intrinsic_name, {Variable::make(Handle(), buffer + ".buffer"), Expr(d)},
                      CallType::PureIntrinsic);
}

}  // namespace

std::map<std::string, Parameter> constraint_parameters(const std::vector<LoweredArgument> &args,
                                                       const PipelineStages &pipeline) {
    std::map<std::string, Parameter> result;
    for (const LoweredArgument &a : args) {
        if (a.kind == LoweredArgument::InputBuffer && a.param.defined()) result[a.name] = a.param;
    }
    for (const FunctionPtr &o : pipeline.outputs) {
        const FunctionContents &f = *o.get();
        for (int v = 0; v < f.outputs(); v++) {
            Parameter p = output_parameter(f, v);
            if (p.defined()) result[storage_name(f, v)] = p;
        }
    }
    return result;
}

Stmt apply_buffer_constraints(const Stmt &s, const PipelineStages &pipeline) {
    FindInputBuffers finder;
    finder.include(s);
    std::map<std::string, Expr> replacements;
    for (const auto &[name, p] : finder.buffers) add_replacements(name, p.dimensions(), p, replacements);
    for (const FunctionPtr &o : pipeline.outputs) {
        const FunctionContents &f = *o.get();
        for (int v = 0; v < f.outputs(); v++) {
            add_replacements(storage_name(f, v), f.dimensions(), output_parameter(f, v), replacements);
        }
    }
    if (replacements.empty()) return s;
    return substitute(replacements, s);
}

Expr constraint_of(const LoweredArgument &a, const Parameter &param, int d, const std::string &field) {
    if (param.defined()) return field_of(param.constraint(d), field);
    if (d == 0 && field == "stride") return Expr(1);
    return Expr();
}

std::vector<Stmt> constraint_checks(const LoweredArgument &a, const Parameter &param) {
    const std::string who = (a.kind == LoweredArgument::OutputBuffer ? "Output buffer " : "Input buffer ") + a.name;
    const std::string owner = a.kind == LoweredArgument::OutputBuffer ? "its Func's output_buffer()" : "the ImageParam";
    std::vector<Stmt> checks;
    for (int d = 0; d < a.dimensions; d++) {
        for (const char *field : fields) {
            Expr required = constraint_of(a, param, d, field);
            if (!required.defined()) continue;
            const std::string dim = std::to_string(d);
            Expr actual = buffer_field(field, a.name, d);
            std::vector<Expr> message;
            if (d == 0 && std::string(field) == "stride" && is_const_one(required)) {
                // The default constraint, Halide's: say how to lift it.
                message = {Expr(loom_error_code_bad_argument), text(who + " has stride "), actual,
                           text(" in dimension 0, but its innermost dimension must be dense (stride 1). Pass a "
                                "buffer whose elements along dimension 0 are contiguous (copy_to_planar()), or " +
                                std::string(a.kind == LoweredArgument::OutputBuffer
                                                ? "call dim(0).set_stride(Expr()) on its Func's output_buffer()"
                                                : "for an ImageParam call dim(0).set_stride(Expr()) on it") +
                                " to accept any stride.")};
            } else {
                message = {Expr(loom_error_code_bad_argument), text(who + " has " + field + " "), actual,
                           text(" in dimension " + dim + ", but the pipeline requires " + field + " "), required,
                           text(" there (dim(" + dim + ").set_" + field + " on " + owner + ").")};
            }
            checks.push_back(AssertStmt::make(
                EQ::make(actual, required), Call::make(Int(32), intrinsic::error, message, CallType::Intrinsic)));
        }
    }
    return checks;
}

}  // namespace internal
}  // namespace loom
