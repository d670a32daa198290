#ifndef LOOM_AOT_EMBEDDED_BUFFERS_H
#define LOOM_AOT_EMBEDDED_BUFFERS_H

/** \file
 * Buffers a Module carries (Module::append(Buffer), Halide's): each becomes a
 * global `struct loom_buffer_t NAME` in the object, with a copy of its
 * elements (dense, first dimension innermost) and its mins and extents, that
 * an application passes to the Module's functions like any buffer. And a
 * Buffer a pipeline reads directly without listing it as an argument: a
 * private copy in the object that the function reads itself.
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

/** A Buffer that the function fn_name reads directly and that is not one
 * of its arguments (Halide's embedded Buffer<>; see AotArguments.h): the
 * lowered body binds NAME.buffer to a PureExtern call of this symbol, which
 * define_embedded_buffer_accessor defines. */
std::string embedded_buffer_accessor(const std::string &fn_name, const std::string &buffer_name);

/** \throws CompileError naming the Buffer and the function unless it has
 * host memory that is current (not dirty on a device). */
void check_pipeline_embedded_buffer(const Parameter &buffer, const std::string &fn_name, const std::string &what);

/** Defines the accessor of `buffer` in m (fn_name's code, which declares it):
 * it returns a private loom_buffer_t holding a dense copy of the Buffer's
 * elements as they are now, and its mins and extents. */
void define_embedded_buffer_accessor(llvm::Module &m, const std::string &fn_name, const Parameter &buffer);

/** `extern struct loom_buffer_t NAME;` for each buffer, for the C header. */
std::string embedded_buffer_declarations(const std::vector<Buffer<>> &buffers);

}  // namespace internal
}  // namespace loom

#endif
