#include "ir/ConcreteBuffers.h"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace loom {
namespace internal {

namespace {

// Keyed by the contents' address; the weak pointer to the Buffer's
// keepalive tells a live entry from one whose Parameter is gone (and whose
// address a new Parameter may reuse).
struct Registry {
    std::mutex mutex;
    std::unordered_map<const ParameterContents *, std::weak_ptr<void>> entries;
    size_t prune_at = 64;
};

Registry &registry() {
    static Registry *r = new Registry;  // never destroyed: Buffers may outlive static destruction order
    return *r;
}

bool same_owner(const std::weak_ptr<void> &a, const std::shared_ptr<void> &b) {
    return !a.expired() && !a.owner_before(b) && !b.owner_before(a);
}

}  // namespace

void note_concrete_buffer_parameter(const Parameter &p) {
    if (!p.defined() || !p.get()->buffer_keepalive) return;
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.entries[p.get()] = p.get()->buffer_keepalive;
    if (r.entries.size() < r.prune_at) return;
    for (auto it = r.entries.begin(); it != r.entries.end();) {
        it = it->second.expired() ? r.entries.erase(it) : std::next(it);
    }
    r.prune_at = 2 * r.entries.size() + 64;
}

bool is_concrete_buffer_parameter(const Parameter &p) {
    if (!p.defined() || !p.is_buffer() || !p.get()->buffer_keepalive) return false;
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.entries.find(p.get());
    return it != r.entries.end() && same_owner(it->second, p.get()->buffer_keepalive);
}

}  // namespace internal
}  // namespace loom
