#ifndef LOOM_AOT_STATIC_LIBRARY_H
#define LOOM_AOT_STATIC_LIBRARY_H

/** \file
 * Writes a static library (a GNU `ar` archive with a symbol table, as `ar rcs`
 * makes) with LLVM's archive writer, so no `ar` program is needed, and for any
 * target.
 */

#include <string>
#include <utility>
#include <vector>

namespace loom {
namespace internal {

/** Writes `path` holding one member, `member_name`, whose bytes are `object`.
 * Deterministic: no timestamps, uid or gid.
 * \throws CompileError if the file cannot be written. */
void write_static_library(const std::string &path, const std::string &member_name, const std::string &object);

/** As above, with one member per (member name, object bytes), in order (a
 * multi-target library: the variants, then the dispatcher and runtime). */
void write_static_library(const std::string &path, const std::vector<std::pair<std::string, std::string>> &objects);

}  // namespace internal
}  // namespace loom

#endif
