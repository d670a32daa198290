#ifndef LOOM_CODEGEN_STACK_ALLOCATION_H
#define LOOM_CODEGEN_STACK_ALLOCATION_H

// Which allocations live on the stack, for every CPU back end (LLVM, C):
// constant-size Stack or Register allocations up to 64 KiB and Auto ones up
// to 16 KiB (as in Halide: no malloc/free per iteration, and a small block
// of accumulators can stay in registers); everything else is heap memory.

#include <climits>
#include <cstdint>
#include <optional>

#include "ir/IR.h"

namespace loom {
namespace internal {

/** The bytes of op's stack array, or nullopt when op goes to the heap. */
inline std::optional<int64_t> stack_allocation_bytes(const Allocate *op) {
    int64_t bytes = int64_t(op->type.bytes()) * op->type.lanes();
    for (const Expr &e : op->extents) {
        const IntImm *i = e.as<IntImm>();
        if (!i || i->value < 0 || (i->value > 0 && bytes > INT64_MAX / i->value)) return std::nullopt;
        bytes *= i->value;
    }
    const bool wants_stack = op->memory_type == MemoryType::Stack || op->memory_type == MemoryType::Register;
    const int64_t limit = wants_stack ? 64 * 1024 : op->memory_type == MemoryType::Auto ? 16 * 1024 : 0;
    if (bytes > limit) return std::nullopt;
    return bytes;
}

}  // namespace internal
}  // namespace loom

#endif
