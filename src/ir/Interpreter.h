#ifndef LOOM_IR_INTERPRETER_H
#define LOOM_IR_INTERPRETER_H

/** \file
 * A reference interpreter of lowered Stmts. Slow and simple on purpose: it
 * defines what the IR means, so the LLVM (and later SPIR-V) back ends are
 * tested against it, and random expressions and schedules are fuzzed with it.
 *
 * Every Load and Store is checked against the allocation or buffer it
 * addresses; an out-of-range access throws InternalError instead of touching
 * memory (a bug in lowering, since AssertStmts guard user mistakes).
 */

#include <map>
#include <string>

#include "ir/LoweredFunc.h"

namespace loom {
namespace internal {

/** Runs f with the calling convention of LoweredFunc.h. Returns what the
 * compiled pipeline would return (0 or a negative error code, after calling
 * loom_error with the same message). user_context goes to every runtime
 * call (loom_malloc/loom_free for allocations, loom_print, loom_error,
 * loom_trace), as compiled code passes its own. */
int interpret(const LoweredFunc &f, void **args, void *user_context = nullptr);

/** A scalar value of the interpreter: ints are held as int64 (wrapped to
 * their type), uints as uint64, floats as double (rounded to float for
 * Float(32)). */
struct ScalarValue {
    Type type;
    union {
        int64_t i;
        uint64_t u;
        double f;
    };
    ScalarValue() : type(Int(32)), i(0) {}
};

/** Evaluates a scalar expression with the given variable values; the
 * expression may not load memory or call Funcs. Used to check the simplifier
 * and bounds inference on random expressions. Throws InternalError on
 * unsupported nodes or unbound variables. */
ScalarValue evaluate_scalar(const Expr &e, const std::map<std::string, ScalarValue> &vars);

}  // namespace internal
}  // namespace loom

#endif
