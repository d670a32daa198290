// loom::require(): an Expr that is its value where a condition holds and
// makes the pipeline fail where it does not. The intrinsic::require call
// carries the condition, the value and the intrinsic::error call that
// reports the failure; each back end evaluates the error call only where the
// condition is false (LLVM: a branch to a return of the error code; the
// interpreter: the frame's pending failure; SPIR-V: refused, kernels cannot
// fail a pipeline).

#include <sstream>

#include "ir/IR.h"
#include "ir/IRUtil.h"
#include "lang/IROperatorInternal.h"
#include "loom/Error.h"
#include "loom/IROperator.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {

using namespace internal;

Expr require(Expr condition, const std::vector<PrintArg> &value_and_message) {
    if (!condition.defined()) {
        throw CompileError("require(): the condition is an undefined Expr; pass a boolean Expr.");
    }
    if (!condition.type().is_bool() || !condition.type().is_scalar()) {
        throw CompileError("require(): the condition " + describe_operand(condition) +
                           " must be a scalar boolean (a comparison such as x < 10).");
    }
    if (value_and_message.empty() || !value_and_message[0].expr.defined()) {
        throw CompileError("require(): needs a defined value after the condition: require(condition, value, "
                           "message...).");
    }
    Expr value = value_and_message[0].expr;
    if (value.as<StringImm>()) {
        throw CompileError("require(): the argument after the condition is the value it returns, not a string; "
                           "write require(condition, value, \"message\", ...).");
    }
    if (is_const_one(condition)) return value;  // known to hold: no check

    std::ostringstream condition_text;
    condition_text << condition;
    std::vector<Expr> error_args = {Expr((int)loom_error_code_user_assertion),
                                    StringImm::make("require() failed: " + condition_text.str())};
    for (size_t i = 1; i < value_and_message.size(); i++) {
        const Expr &piece = value_and_message[i].expr;
        if (!piece.defined()) {
            throw CompileError("require(): message argument " + std::to_string(i) + " is an undefined Expr.");
        }
        error_args.push_back(StringImm::make(" "));
        error_args.push_back(piece);
    }
    Expr error = Call::make(Int(32), intrinsic::error, error_args, CallType::Intrinsic);
    Type t = value.type();
    return Call::make(t, intrinsic::require, {std::move(condition), std::move(value), std::move(error)},
                      CallType::Intrinsic);
}

}  // namespace loom
