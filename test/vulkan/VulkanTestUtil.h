#ifndef LOOM_TEST_VULKAN_VULKAN_TEST_UTIL_H
#define LOOM_TEST_VULKAN_VULKAN_TEST_UTIL_H

// Helpers for tests that run pipelines on Vulkan (Mesa's lavapipe in CI).
// CTest runs them with LOOM_VK_VALIDATION=1: a validation-layer error fails
// the pipeline that caused it.

#include <gtest/gtest.h>

#include "loom/Loom.h"
#include "loom/runtime/loom_runtime.h"

namespace loom_test {

/** The JIT target with Vulkan and the features of the device found. */
inline loom::Target vulkan_jit_target() {
    loom::Target t("host-vulkan");
    t.set_feature(loom::Target::JIT);
    return t;
}

/** The JIT target without any GPU API. */
inline loom::Target cpu_jit_target() { return loom::get_jit_target_from_environment().without_feature(loom::Target::Vulkan); }

/** True if a Vulkan device can be used (lavapipe counts). */
inline bool have_vulkan_device() {
    loom_vulkan_device_info_t info;
    return loom_vulkan_get_device_info(nullptr, &info) == 0;
}

}  // namespace loom_test

/** Skips the test, saying why, when there is no Vulkan device at all. */
#define LOOM_REQUIRE_VULKAN()                                                                    \
    do {                                                                                         \
        if (!loom_test::have_vulkan_device()) {                                                  \
            GTEST_SKIP() << "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";       \
        }                                                                                        \
    } while (0)

#endif
