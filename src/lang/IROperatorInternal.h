#ifndef LOOM_LANG_IR_OPERATOR_INTERNAL_H
#define LOOM_LANG_IR_OPERATOR_INTERNAL_H

// The operand rules of IROperator.cpp, shared with the other files that
// define operators of the language (FixedPointOperators.cpp, FastMath.cpp).

#include <string>

#include "loom/Expr.h"

namespace loom {
namespace internal {

/** "expr (type)", for messages. */
std::string describe_operand(const Expr &e);
/** Gives a and b one type by the rules of the arithmetic operators;
 * CompileError naming op for undefined or handle operands or a lane
 * mismatch. */
void match_operand_types(Expr &a, Expr &b, const char *op);

}  // namespace internal
}  // namespace loom

#endif
