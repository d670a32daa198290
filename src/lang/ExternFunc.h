#ifndef LOOM_LANG_EXTERN_FUNC_H
#define LOOM_LANG_EXTERN_FUNC_H

/** \file
 * What the JIT checks of extern stages (Func::define_extern) before it
 * compiles a pipeline (src/lang/ExternFunc.cpp).
 */

#include <vector>

#include "ir/Function.h"

namespace loom {
namespace internal {

/** \throws CompileError naming the Func and the C function when one of
 * functions is an extern stage and interpreter is set (the reference
 * interpreter calls no C functions), or when the process has no symbol of
 * an extern stage's name. */
void check_extern_stages_runnable(const std::vector<FunctionPtr> &functions, bool interpreter);

}  // namespace internal
}  // namespace loom

#endif
