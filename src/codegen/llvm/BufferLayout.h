#ifndef LOOM_CODEGEN_LLVM_BUFFER_LAYOUT_H
#define LOOM_CODEGEN_LLVM_BUFFER_LAYOUT_H

/** \file
 * How LLVM lays out, for a target, the struct types that generated code uses
 * to read loom_buffer_t, loom_dimension_t and loom_type_t. They must agree
 * with the C structs of loom_runtime.h; the tests compare them with
 * offsetof. No LLVM header is needed to call this.
 */

#include <cstdint>
#include <vector>

#include "loom/Target.h"

namespace loom {
namespace internal {

struct RuntimeStructLayout {
    std::vector<uint64_t> buffer_offsets;  // one per field, in declaration order
    uint64_t buffer_size = 0;
    std::vector<uint64_t> dimension_offsets;
    uint64_t dimension_size = 0;
    std::vector<uint64_t> type_offsets;
    uint64_t type_size = 0;
};

RuntimeStructLayout llvm_runtime_struct_layout(const Target &target);

}  // namespace internal
}  // namespace loom

#endif
