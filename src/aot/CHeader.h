#ifndef LOOM_AOT_C_HEADER_H
#define LOOM_AOT_C_HEADER_H

/** \file
 * The C header of an ahead-of-time compiled pipeline:
 *
 *     int NAME(struct loom_buffer_t *input, float gain, struct loom_buffer_t *out);
 *     int NAME_argv(void **args);
 *     const struct loom_pipeline_metadata_t *NAME_metadata(void);
 *
 * It repeats loom_runtime.h (under that header's own include guard), so it
 * compiles as C or C++ without Loom installed, alone or with other generated
 * headers.
 */

#include <string>
#include <vector>

#include "ir/LoweredFunc.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** The C type of a scalar argument: "float", "int32_t", "bool", "void *",
 * "loom_float16_scalar_t" (loom::float16_t in C++, its bits in C)...
 * \throws CompileError for vector types. */
std::string c_scalar_type(Type t, const std::string &argument_name);

/** The header's text for f (arguments already in their final order). */
std::string c_header_text(const LoweredFunc &f, const Target &target);

/** One header declaring every function of funcs (a Module's), its include
 * guard made from module_name; extra_declarations (C text, e.g. a Module's
 * embedded buffers) come first inside the extern "C" block. */
std::string c_header_text(const std::vector<const LoweredFunc *> &funcs, const std::string &module_name,
                          const Target &target, const std::string &extra_declarations = "");

/** The header of the runtime alone (the generator driver's `-r NAME -e h`):
 * loom_runtime.h's API (buffers, handlers, threads, memory) under an include
 * guard made from name. */
std::string runtime_header_text(const std::string &name, const Target &target);

}  // namespace internal
}  // namespace loom

#endif
