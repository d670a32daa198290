#ifndef LOOM_IR_LOWERED_FUNC_H
#define LOOM_IR_LOWERED_FUNC_H

/** \file
 * A lowered pipeline: a function of buffer and scalar arguments whose body
 * is a Stmt in the flattened form described in ir/IR.h. This is what the
 * back ends (LLVM, the reference interpreter, later SPIR-V) consume.
 *
 * Calling convention shared by every back end: the pipeline is called with
 * an array `void **args`, one entry per LoweredArgument in order: a
 * `loom_buffer_t *` for buffers, and a pointer to the scalar's value (its
 * bytes, as a C variable of that type) for scalars. It returns 0 or a
 * negative loom_error_code_t after reporting the message via loom_error.
 */

#include <set>
#include <string>
#include <vector>

#include "ir/GPUKernel.h"
#include "ir/IR.h"

namespace loom {
namespace internal {

struct LoweredArgument {
    enum Kind : uint8_t { InputScalar, InputBuffer, OutputBuffer };
    std::string name;  // buffers are bound as Variable "<name>.buffer" in body
    Kind kind = InputScalar;
    Type type;         // element type for buffers
    int dimensions = 0;
    Parameter param;   // the Param/ImageParam (or bound Buffer) this comes from, if any

    bool is_buffer() const { return kind != InputScalar; }
};

struct LoweredFunc {
    std::string name;
    std::vector<LoweredArgument> args;
    Stmt body;
    /** Names of the LetStmts in body that rebuild a split or fused loop's
     * coordinate from its loops (x = x.loop_min + xo * 8 + xi). Like the
     * index arithmetic of loads and stores, they are assumed not to
     * overflow Int(32) (docs/LANGUAGE.md, "Element indices"), which code
     * generation may tell LLVM. Empty is always correct. */
    std::set<std::string> coordinate_lets;
    /** The GPU kernels that body launches (lower/ExtractGPUKernels.h). */
    std::vector<GPUKernel> kernels;
};

}  // namespace internal
}  // namespace loom

#endif
