// Buffer dimensions and their constraints (loom/Dimension.h), and the
// OutputImageParam they belong to (loom/OutputImageParam.h).

#include "loom/Dimension.h"

#include <atomic>

#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "lang/Backend.h"
#include "lang/ConstraintGeneration.h"
#include "lang/PointDependence.h"
#include "loom/Error.h"
#include "loom/IROperator.h"
#include "loom/OutputImageParam.h"

namespace loom {
namespace internal {

namespace {

std::string describe(const Parameter &p) {
    return std::string(p.is_output_buffer() ? "Output buffer '" : "ImageParam '") + p.name() + "'";
}

/** The first thing in e that is not known before the pipeline runs: a
 * Func call, a buffer read, or a Var/RVar. */
class FindPointDependence : public IRGraphVisitor {
public:
    std::string found;

protected:
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override {
        if (!op->param.defined() && found.empty()) found = "the variable '" + op->name + "'";
    }
    void visit(const Call *op) override {
        if ((op->call_type == CallType::Func || op->call_type == CallType::Image) && found.empty()) {
            found = (op->call_type == CallType::Func ? "a call of Func '" : "a read of buffer '") + op->name + "'";
        }
        IRGraphVisitor::visit(op);
    }
    void visit(const Load *op) override {
        if (found.empty()) found = "a read of buffer '" + op->name + "'";
        IRGraphVisitor::visit(op);
    }
};

}  // namespace

std::string point_dependence(const Expr &e) {
    FindPointDependence finder;
    finder.include(e);
    return finder.found;
}

Dimension::Dimension(const Parameter &param, int d) : Dimension(param, d, FunctionPtr()) {}

Dimension::Dimension(const Parameter &param, int d, const FunctionPtr &func) : param_(param), d_(d), func_(func) {
    if (!param_.defined()) throw CompileError("Can't take a dimension of an undefined ImageParam.");
    if (!param_.is_buffer()) throw CompileError("Param '" + param_.name() + "' is a scalar; it has no dimensions.");
    if (d < 0 || d >= param_.dimensions()) {
        throw CompileError(describe(param_) + " has " + std::to_string(param_.dimensions()) + " dimensions, so dim(" +
                           std::to_string(d) + ") does not exist.");
    }
}

namespace {

Expr field(const Parameter &p, const char *name, int d) {
    // Lowering binds these names for every buffer argument; carrying the
    // Parameter makes an input buffer an argument even if only its shape is
    // read (an output's Parameter is never one: lower/BufferArguments.cpp).
    return Variable::make(Int(32), p.name() + "." + name + "." + std::to_string(d), p);
}

/** e as an Int(32) constraint, or a CompileError saying what is wrong. */
Expr checked_constraint(const Parameter &p, int d, const char *what, const Expr &e) {
    if (!e.defined()) return e;
    const std::string where = describe(p) + ".dim(" + std::to_string(d) + ")." + what;
    if (e.type().is_vector() || !(e.type().is_int() || e.type().is_uint())) {
        throw CompileError(where + "(...) needs an integer scalar Expr, not one of type " + e.type().to_string() +
                           ". Pass an int, a Param<int> or another buffer's field (dim(i).extent(), ...).");
    }
    std::string dependence = point_dependence(e);
    if (!dependence.empty()) {
        throw CompileError(where + "(...) is given an Expr that reads " + dependence +
                           ", which is not known before the pipeline runs. A constraint may use only constants, "
                           "Params and buffer fields (dim(i).min(), .extent(), .stride()).");
    }
    Expr value = e.type() == Int(32) ? e : simplify(Cast::make(Int(32), e));
    if (auto c = as_const_int(value)) {
        if (*c < 0 && std::string(what) == "set_extent") {
            throw CompileError(where + "(" + std::to_string(*c) + "): no buffer has a negative extent. Give an "
                               "extent of 0 or more.");
        }
    }
    return value;
}

}  // namespace

Expr Dimension::min() const { return field(param_, "min", d_); }
Expr Dimension::extent() const { return field(param_, "extent", d_); }
Expr Dimension::max() const { return min() + extent() - 1; }
Expr Dimension::stride() const { return field(param_, "stride", d_); }
Expr Dimension::min_estimate() const { return param_.constraint(d_).min_estimate; }
Expr Dimension::extent_estimate() const { return param_.constraint(d_).extent_estimate; }

namespace {
std::atomic<uint64_t> constraint_generation{0};
}  // namespace

uint64_t input_constraint_generation() { return constraint_generation.load(); }
void advance_input_constraint_generation() { constraint_generation++; }

Dimension &Dimension::changed() {
    if (func_.defined()) mark_changed(*func_.get());
    else advance_input_constraint_generation();
    return *this;
}

Dimension Dimension::set_min(const Expr &min) {
    param_.constraint(d_).min = checked_constraint(param_, d_, "set_min", min);
    return changed();
}

Dimension Dimension::set_extent(const Expr &extent) {
    param_.constraint(d_).extent = checked_constraint(param_, d_, "set_extent", extent);
    return changed();
}

Dimension Dimension::set_stride(const Expr &stride) {
    param_.constraint(d_).stride = checked_constraint(param_, d_, "set_stride", stride);
    return changed();
}

Dimension Dimension::set_bounds(const Expr &min, const Expr &extent) {
    Expr checked_min = checked_constraint(param_, d_, "set_bounds", min);
    Expr checked_extent = checked_constraint(param_, d_, "set_extent", extent);
    param_.constraint(d_).min = checked_min;
    param_.constraint(d_).extent = checked_extent;
    return changed();
}

Dimension Dimension::set_estimate(const Expr &min, const Expr &extent) {
    const std::string where = describe(param_) + ".dim(" + std::to_string(d_) + ").set_estimate";
    for (const Expr &e : {min, extent}) {
        if (e.defined() && !as_const_int(e)) {
            throw CompileError(where + "(...) needs integer constants (an estimate is a typical size, known when "
                               "the pipeline is compiled).");
        }
    }
    param_.constraint(d_).min_estimate = min.defined() ? simplify(Cast::make(Int(32), min)) : min;
    param_.constraint(d_).extent_estimate = extent.defined() ? simplify(Cast::make(Int(32), extent)) : extent;
    return changed();
}

}  // namespace internal

namespace {
const internal::Parameter &checked(const internal::Parameter &p) {
    if (!p.defined()) throw CompileError("This ImageParam is undefined (default-constructed).");
    return p;
}
}  // namespace

const std::string &OutputImageParam::name() const { return checked(param_).name(); }
Type OutputImageParam::type() const { return checked(param_).type(); }
int OutputImageParam::dimensions() const { return checked(param_).dimensions(); }
internal::Dimension OutputImageParam::dim(int d) const { return internal::Dimension(checked(param_), d, func_); }

}  // namespace loom
