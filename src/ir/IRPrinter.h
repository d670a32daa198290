#ifndef LOOM_IR_IR_PRINTER_H
#define LOOM_IR_IR_PRINTER_H

/** \file
 * Text form of the IR, used by compile_to_lowered_stmt, print_loop_nest's
 * debugging and test failure messages. Expressions print infix with full
 * parentheses where needed, e.g. `(x + 1)*2`, `f(x, y)`, `int32(u8)`;
 * statements print one per line with two-space indentation.
 */

#include <ostream>
#include <string>

#include "ir/IR.h"

namespace loom {
namespace internal {

std::string to_string(const Expr &e);
std::string to_string(const Stmt &s);

struct LoweredFunc;
/** A lowered pipeline as text: a "// pipeline name(arguments)" header line,
 * then the statement (compile_to_lowered_stmt writes this). */
std::string lowered_func_text(const LoweredFunc &f);
std::ostream &operator<<(std::ostream &os, ForType t);
std::ostream &operator<<(std::ostream &os, const Range &r);

}  // namespace internal
}  // namespace loom

#endif
