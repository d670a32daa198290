#ifndef LOOM_LANG_UNIQUE_NAME_H
#define LOOM_LANG_UNIQUE_NAME_H

/** \file
 * Names for things the user did not name: "v0", "v1"... for Vars, "f<N>"
 * for Funcs, "r<N>" for RDoms, "p<N>" for Params and ImageParams, "b<N>"
 * for Buffers. One counter per prefix, process-wide and thread-safe.
 */

#include <string>

namespace loom {
namespace internal {

std::string unique_name(char prefix);

}  // namespace internal
}  // namespace loom

#endif
