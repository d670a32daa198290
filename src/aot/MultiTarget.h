#ifndef LOOM_AOT_MULTI_TARGET_H
#define LOOM_AOT_MULTI_TARGET_H

/** \file
 * One library for several targets (Halide's compile_multitarget): a variant
 * of the pipeline per target and a dispatcher that picks one at run time by
 * the CPU's features (src/aot/MultiTarget.cpp says how). Behind
 * Func/Pipeline::compile_to_multitarget_* and the generator driver's
 * comma-separated targets.
 */

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aot/CompileTo.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** Lowers the pipeline for one target as the function fn_name (each
 * variant's name); called once per target, in order. */
using LowerForTarget = std::function<std::shared_ptr<ModuleContents>(const std::string &fn_name, const Target &t)>;

/** Writes prefix + ".a" (static_library) or prefix + suffix + ".o" per
 * target, prefix + "_wrapper.o" and prefix + "_runtime.o" (objects), and
 * prefix + ".h", for the dispatcher fn_name. `what` names the call in
 * messages. \throws CompileError if targets is empty, lists a target twice,
 * holds targets that differ in architecture, bits, OS or a feature other
 * than a CPU feature, or several targets that are not x86; if suffixes is
 * neither empty nor one per target, or two suffixes make one function
 * name; or as compile_to_static_library. Nothing is written then. */
void compile_multitarget(const std::string &fn_name, const std::string &prefix, const std::vector<Target> &targets,
                         const std::vector<std::string> &suffixes, bool static_library, const LowerForTarget &lower,
                         const std::string &what);

}  // namespace internal
}  // namespace loom

#endif
