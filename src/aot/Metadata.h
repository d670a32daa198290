#ifndef LOOM_AOT_METADATA_H
#define LOOM_AOT_METADATA_H

/** \file
 * `const loom_pipeline_metadata_t *NAME_metadata(void)`: constant data in the
 * pipeline's module that describes its arguments at run time (name, kind,
 * type, dimensions), for programs that call pipelines they did not see at
 * build time. The structs are those of loom_runtime.h.
 */

#include "ir/LoweredFunc.h"
#include "loom/Target.h"

namespace llvm {
class Module;
}

namespace loom {
namespace internal {

/** Adds NAME_metadata (NAME = f.name) to m, which must already have t's data
 * layout. */
void add_metadata_function(llvm::Module &m, const LoweredFunc &f, const Target &t);

}  // namespace internal
}  // namespace loom

#endif
