#ifndef LOOM_LOWER_INJECT_DEBUG_LOGGING_H
#define LOOM_LOWER_INJECT_DEBUG_LOGGING_H

/** \file
 * The `debug` target feature, as Halide's debug runtime: the pipeline tells
 * the print handler (loom_print; a JIT run's JITUserContext custom_print)
 * what it does, one line each:
 *
 *     Entering Pipeline <name>
 *     Target: <target>
 *      Input (int32) p: 5                                  each scalar argument
 *     Check passed: <condition>                            each check outside loops
 *      Input Buffer in (uint8): dim 0 min 0 extent 100 stride 1 | dim 1 ...
 *      Output Buffer f (int32): ...                        (after the checks)
 *     Allocating f: 20000 bytes                            each allocation outside GPU loops
 *     Freeing f: 20000 bytes
 *     Exiting Pipeline <name>
 *
 * A failed check reports its error (loom_error) and returns instead. Runs
 * after add_buffer_arguments and the size checks; with no_asserts there are
 * no checks to report.
 */

#include <string>
#include <vector>

#include "ir/LoweredFunc.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

Stmt inject_debug_logging(const Stmt &s, const std::vector<LoweredArgument> &args, const std::string &pipeline_name,
                          const Target &target);

}  // namespace internal
}  // namespace loom

#endif
