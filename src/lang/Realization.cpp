#include "loom/Realization.h"

namespace loom {
namespace internal {

void throw_realization_not_single(const std::string &origin, size_t size) {
    std::string what = origin.empty() ? "A Realization" : "The Realization from " + origin;
    throw CompileError(what + " has " + std::to_string(size) +
                       " buffers (one per output and Tuple element), so it can't convert to a single Buffer: "
                       "use r[0], r[1], ...");
}

}  // namespace internal
}  // namespace loom
