#include "lang/UniqueName.h"

#include <atomic>

namespace loom {
namespace internal {

std::string unique_name(char prefix) {
    static std::atomic<int> counters[128];
    int n = counters[(unsigned char)prefix & 127]++;
    return std::string(1, prefix) + std::to_string(n);
}

}  // namespace internal
}  // namespace loom
