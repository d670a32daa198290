#ifndef LOOM_AOT_EMBEDDED_BUFFERS_H
#define LOOM_AOT_EMBEDDED_BUFFERS_H

/** \file
 * Buffers a Module carries (Module::append(Buffer), Halide's): each becomes a
 * global `struct loom_buffer_t NAME` in the object, with a copy of its
 * elements (dense, first dimension innermost) and its mins and extents, that
 * an application passes to the Module's functions like any buffer.
 */

#include <string>
#include <vector>

#include "loom/Buffer.h"

namespace llvm {
class Module;
}

namespace loom {
namespace internal {

/** \throws CompileError naming the Buffer unless it can be embedded: defined,
 * with host memory that is current (not dirty on a device), named by a C
 * identifier not starting with "loom_". `what` names the call. */
void check_embeddable_buffer(const Buffer<> &buffer, const std::string &what);

/** Adds the global loom_buffer_t of each buffer (and its data and dims) to m. */
void add_embedded_buffers(llvm::Module &m, const std::vector<Buffer<>> &buffers);

/** `extern struct loom_buffer_t NAME;` for each buffer, for the C header. */
std::string embedded_buffer_declarations(const std::vector<Buffer<>> &buffers);

}  // namespace internal
}  // namespace loom

#endif
