#include "loom/Param.h"

#include "ir/IR.h"
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

}  // namespace internal
}  // namespace loom
