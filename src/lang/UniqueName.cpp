#include "lang/UniqueName.h"

#include <atomic>
#include <mutex>
#include <map>

namespace loom {
namespace internal {

std::string unique_name(char prefix) {
    static std::atomic<int> counters[128];
    int n = counters[(unsigned char)prefix & 127]++;
    return std::string(1, prefix) + std::to_string(n);
}

namespace {

std::mutex live_names_mutex;
std::map<std::string, int> &live_names() {
    static auto *names = new std::map<std::string, int>;  // never destroyed: leases may outlive statics
    return *names;
}

thread_local int unique_exact_names_depth = 0;

}  // namespace

UniqueExactFuncNames::UniqueExactFuncNames() { unique_exact_names_depth++; }
UniqueExactFuncNames::~UniqueExactFuncNames() { unique_exact_names_depth--; }

std::shared_ptr<const std::string> lease_func_name(const std::string &requested, bool exact) {
    if (unique_exact_names_depth > 0) exact = false;
    std::lock_guard<std::mutex> lock(live_names_mutex);
    std::map<std::string, int> &live = live_names();
    std::string name = requested;
    for (int n = 1; !exact && live.count(name); n++) name = requested + "_" + std::to_string(n);
    live[name]++;
    return std::shared_ptr<const std::string>(new std::string(name), [](const std::string *held) {
        {
            std::lock_guard<std::mutex> lock(live_names_mutex);
            auto it = live_names().find(*held);
            if (it != live_names().end() && --it->second == 0) live_names().erase(it);
        }
        delete held;
    });
}

}  // namespace internal
}  // namespace loom
