#ifndef LOOM_LOWER_INJECT_DEBUG_TO_FILE_H
#define LOOM_LOWER_INJECT_DEBUG_TO_FILE_H

/** \file
 * Func::debug_to_file: after each production of such a Func, a call of the
 * runtime's loom_debug_to_file (runtime/DebugToFile.c) with a buffer over the
 * Func's storage, checked:
 *
 *     produce f { S }   ->   produce f { S }
 *                            let f.debug_to_file.result = loom_debug_to_file(NULL, "f.npy",
 *                                make_buffer(f, type, 0, f.min.0, f.extent.0, f.stride.0, ...))
 *                            assert(f.debug_to_file.result == 0, "Func f: ... could not write ...")
 *
 * Runs after bounds inference, sliding window and storage folding and before
 * storage flattening, which defines f.min.<d>/.extent.<d>/.stride.<d> and
 * the host pointer f around the produce (for an output Func, its buffer
 * argument does). The file holds the storage as it is after the production:
 * the whole realization of a Func computed at root, the latest production
 * of one computed inside a loop, and the slots of a folded dimension.
 */

#include "ir/IR.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

/** \throws CompileError naming the Func if a Func with a debug file is
 * inlined, has a Tuple value, has a type no format holds (bfloat16, or
 * float16 for ".mat"), is produced in or with GPU loops, or if the file's
 * extension is none of ".npy", ".mat", ".tiff" and ".tif". */
Stmt inject_debug_to_file(const Stmt &s, const PipelineStages &pipeline);

}  // namespace internal
}  // namespace loom

#endif
