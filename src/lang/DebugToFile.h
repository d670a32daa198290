#ifndef LOOM_LANG_DEBUG_TO_FILE_H
#define LOOM_LANG_DEBUG_TO_FILE_H

/** \file
 * What the JIT checks of Func::debug_to_file before it compiles a pipeline
 * (src/lang/DebugToFile.cpp); lowering checks the rest
 * (lower/InjectDebugToFile.h).
 */

#include <vector>

#include "ir/Function.h"

namespace loom {
namespace internal {

/** \throws CompileError naming the Func and its file when one of functions
 * has a debug file and interpreter is set: the reference interpreter calls
 * no runtime functions, so it cannot write the file. */
void check_debug_to_file_runnable(const std::vector<FunctionPtr> &functions, bool interpreter);

}  // namespace internal
}  // namespace loom

#endif
