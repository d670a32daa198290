#include "loom/Param.h"

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "lang/UniqueName.h"
#include "loom/IROperator.h"

namespace loom {
namespace internal {

std::string make_param_name() { return unique_name('p'); }

Expr param_expr(const Parameter &param) {
    if (!param.defined()) throw CompileError("An undefined Param is used in an Expr.");
    return Variable::make(param.type(), param.name(), param);
}

void throw_param_type_mismatch(const std::string &name, Type param_type, Type value_type) {
    throw CompileError("Param " + name + " has type " + param_type.to_string() + ", but is accessed as " +
                       value_type.to_string() + ".");
}

void throw_param_value_not_representable(const std::string &name, Type param_type, const std::string &value) {
    throw CompileError("Param " + name + " has type " + param_type.to_string() + ", which can't hold the value " +
                       value + ".");
}

void throw_param_without_value(const std::string &name) {
    throw CompileError("Param " + name + " has no value: call " + name + ".set(value) before realizing a pipeline "
                       "that reads it (or construct it with one, Param<int> " + name + "(\"" + name + "\", 0)).");
}

void set_param_range(Parameter &param, const Expr &min, const Expr &max) {
    // Bounds inference compares the range with the value, so it takes the Param's type.
    auto converted = [&](const Expr &e) { return !e.defined() || e.type() == param.type() ? e : cast(param.type(), e); };
    param.get()->scalar_min = converted(min);
    param.get()->scalar_max = converted(max);
}

void set_param_estimate(Parameter &param, const Expr &value) {
    if (!value.defined()) {
        param.get()->scalar_estimate = Expr();
        return;
    }
    Expr v = simplify(value.type() == param.type() ? value : cast(param.type(), value));
    if (!is_const(v)) {
        throw CompileError("Param " + param.name() + ": set_estimate needs a constant value, not " + to_string(value) +
                           ". An estimate is a typical value that autoschedulers size regions with.");
    }
    param.get()->scalar_estimate = v;
}

}  // namespace internal
}  // namespace loom
