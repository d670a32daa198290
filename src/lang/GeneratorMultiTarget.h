#ifndef LOOM_LANG_GENERATOR_MULTI_TARGET_H
#define LOOM_LANG_GENERATOR_MULTI_TARGET_H

/** \file
 * The generator driver's comma-separated targets (`target=a,b,c`, as in
 * Halide's generators): the generator is run once per target and the
 * variants go into one library with a dispatcher (aot/MultiTarget.h).
 * loom_add_library with several TARGETS calls the driver this way.
 */

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "lang/GeneratorDriver.h"
#include "loom/Generator.h"
#include "loom/OutputFileType.h"

namespace loom {
namespace internal {

/** True if target (the driver's target= value) lists several targets. */
bool is_multitarget(const std::string &target);

/** Writes the static library and header of files (kind -> path: only
 * static_library and c_header may be asked for) for each target of
 * command.target, with the dispatcher function_name. make_generator makes a
 * fresh generator (set up with the command's GeneratorParams here).
 * \throws CompileError for another kind of file, or as compile_multitarget. */
void generate_multitarget(const GeneratorCommand &command, const std::map<OutputFileType, std::string> &files,
                          const std::string &function_name,
                          const std::function<std::unique_ptr<GeneratorBase>()> &make_generator);

}  // namespace internal
}  // namespace loom

#endif
