// A test-only Vulkan runner for SPIR-V kernels: one compute dispatch with
// host-visible storage buffers (set 0, bindings in order) and push
// constants, synchronously. It exists to check the code generator's numbers
// on a real driver (Mesa's lavapipe in CI); the product's runtime is
// src/runtime/Vulkan*.c.
#ifndef LOOM_TEST_SPIRV_VULKANHARNESS_H
#define LOOM_TEST_SPIRV_VULKANHARNESS_H

#include <cstdint>
#include <string>
#include <vector>

namespace loom_test_spirv {

struct VulkanDeviceFeatures {
    bool int8 = false, int16 = false, int64 = false, float16 = false, float64 = false;
    bool storage8 = false, storage16 = false;
    uint32_t api_version = 0;
    bool validation = false;  // the Khronos validation layer is on
};

class VulkanHarness {
public:
    /** The process-wide harness, or nullptr when there is no Vulkan device
     * (or the tests were built without Vulkan headers); why_not says why. */
    static VulkanHarness *get(std::string *why_not = nullptr);

    const VulkanDeviceFeatures &features() const { return features_; }

    /** Runs entry of module with buffers bound 0..n-1 (read back into the
     * same vectors), push constants, and groups[0..2] workgroups. Returns
     * "" or what went wrong. */
    std::string run(const std::vector<uint32_t> &module, const std::string &entry,
                    std::vector<std::vector<uint8_t> *> buffers, const std::vector<uint8_t> &push_constants,
                    const uint32_t groups[3]);

    ~VulkanHarness();

    struct State;

private:
    VulkanHarness() = default;
    bool init(std::string *why_not);
    std::string dispatch(const std::vector<uint32_t> &module, const std::string &entry,
                         std::vector<std::vector<uint8_t> *> buffers, const std::vector<uint8_t> &push_constants,
                         const uint32_t groups[3]);

    State *state_ = nullptr;
    VulkanDeviceFeatures features_;
};

/** Bytes of a vector of T, and back. */
template<typename T>
std::vector<uint8_t> to_bytes(const std::vector<T> &v) {
    const uint8_t *p = reinterpret_cast<const uint8_t *>(v.data());
    return std::vector<uint8_t>(p, p + v.size() * sizeof(T));
}
template<typename T>
std::vector<T> from_bytes(const std::vector<uint8_t> &b) {
    std::vector<T> v(b.size() / sizeof(T));
    if (!v.empty()) std::copy(b.begin(), b.begin() + v.size() * sizeof(T), reinterpret_cast<uint8_t *>(v.data()));
    return v;
}

}  // namespace loom_test_spirv

#endif
