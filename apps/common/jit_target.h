// Where an app's JIT test runs its pipeline: on the CPU (<app>_jit_test), or,
// built with LOOM_APPS_VULKAN (<app>_vulkan_test), with the app's GPU
// schedule on the Vulkan device (Mesa's lavapipe where there is no GPU).
#ifndef LOOM_APPS_COMMON_JIT_TARGET_H
#define LOOM_APPS_COMMON_JIT_TARGET_H

#include <cstdio>

#include <loom/Loom.h>
#include <loom/runtime/loom_runtime.h>

namespace apps {

#ifdef LOOM_APPS_VULKAN
constexpr bool kJitOnGpu = true;
constexpr const char *kJitMode = "JIT, Vulkan";
#else
constexpr bool kJitOnGpu = false;
constexpr const char *kJitMode = "JIT";
#endif

/** The exit status CTest reads as "skipped" (the tests' SKIP_RETURN_CODE). */
constexpr int kSkipReturnCode = 77;

/** The JIT target: the host, plus Vulkan for the GPU variant. */
inline loom::Target jit_target() {
    if (!kJitOnGpu) return loom::get_jit_target_from_environment().without_feature(loom::Target::Vulkan);
    loom::Target t("host-vulkan");
    t.set_feature(loom::Target::JIT);
    return t;
}

/** False (after saying why on stdout) when the GPU variant has no Vulkan
 * device to run on; the test then exits with kSkipReturnCode. */
inline bool jit_device_available(const char *program) {
    if (!kJitOnGpu) return true;
    loom_vulkan_device_info_t info;
    if (loom_vulkan_get_device_info(nullptr, &info) == 0) return true;
    std::printf("%s: skipped: no Vulkan device (install mesa-vulkan-drivers for lavapipe)\n", program);
    return false;
}

}  // namespace apps

#endif
