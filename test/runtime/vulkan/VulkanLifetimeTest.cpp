// Object lifetimes: create/destroy cycles leak no Vulkan object (the runtime
// counts each kind), release frees everything and the context comes back on
// the next use; a missing loader or device is a clear error, not a crash.

#include "VulkanRuntimeTestUtil.h"

namespace {

using loom::Runtime::Buffer;
using namespace loom_vk_test;

using VulkanLifetime = VulkanRuntimeTest;

TEST_F(VulkanLifetime, ThousandMallocFreeCyclesLeakNothing) {
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    const int64_t buffers = live(loom_vk_object_buffer), memory = live(loom_vk_object_device_memory);
    for (int i = 0; i < 1000; i++) {
        Buffer<uint32_t> b(1 + (i * 131) % 5000);
        ASSERT_EQ(b.device_malloc(), 0);
        if (i % 10 == 0) ASSERT_EQ(run_add_one(k.state, b.raw_buffer(), 1, 1), 0);  // freed while in flight
        ASSERT_EQ(b.device_free(), 0);
    }
    ASSERT_EQ(loom_device_sync(nullptr, nullptr), 0);
    EXPECT_EQ(live(loom_vk_object_buffer), buffers);
    EXPECT_LE(live(loom_vk_object_device_memory), memory + 1);
}

TEST_F(VulkanLifetime, ReleaseAndReinitCyclesLeakNothing) {
    // Each cycle: a context, a kernel, buffers, dispatches, copies, release.
    constexpr int kCycles = 1000;
    Kernels k;  // outlives the releases: its Vulkan objects are made again
    for (int i = 0; i < kCycles; i++) {
        ASSERT_EQ(k.init(), 0) << "cycle " << i;
        Buffer<uint32_t> b(100);
        b.fill(static_cast<uint32_t>(i));
        ASSERT_EQ(b.copy_to_device(), 0);
        ASSERT_EQ(run_add_one(k.state, b.raw_buffer(), 100, 1), 0);
        b.set_device_dirty();
        ASSERT_EQ(b.copy_to_host(), 0);
        ASSERT_EQ(std::as_const(b)(99), static_cast<uint32_t>(i) + 1);
        ASSERT_EQ(b.device_free(), 0);
        ASSERT_EQ(loom_device_release(nullptr, loom_vulkan_device_interface()), 0) << "cycle " << i;
        ASSERT_EQ(unbalanced_objects(), "") << "cycle " << i;
    }
}

TEST_F(VulkanLifetime, ReleaseWithALiveBufferFreesItsVulkanObjects) {
    Buffer<float> b(10);
    ASSERT_EQ(b.copy_to_device(), 0);
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    EXPECT_EQ(unbalanced_objects(), "");
    b.set_device_dirty();
    EXPECT_EQ(b.copy_to_host(), loom_error_code_device_error);
    EXPECT_NE(take_errors().find("loom_device_release"), std::string::npos);
    b.set_device_dirty(false);
    EXPECT_EQ(b.device_free(), 0);  // only the record is left to free
    EXPECT_EQ(b.copy_to_device(), 0);  // a new allocation in a new context
}

TEST_F(VulkanLifetime, MissingLoaderIsAClearError) {
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    {
        ScopedEnv loader("LOOM_VK_LOADER", "/nonexistent/libvulkan.so.1");
        loom_vulkan_device_info_t info;
        EXPECT_EQ(loom_vulkan_get_device_info(nullptr, &info), loom_error_code_device_error);
        const std::string errors = take_errors();
        EXPECT_NE(errors.find("/nonexistent/libvulkan.so.1"), std::string::npos) << errors;
        EXPECT_NE(errors.find("mesa-vulkan-drivers"), std::string::npos) << errors;
        EXPECT_NE(errors.find("LOOM_VK_LOADER"), std::string::npos) << errors;
        Buffer<int> b(4);
        EXPECT_EQ(b.copy_to_device(), loom_error_code_device_error);
        EXPECT_FALSE(b.has_device_allocation());
        take_errors();
    }
    loom_vulkan_device_info_t info;
    EXPECT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);  // the next call tries again
}

TEST_F(VulkanLifetime, MissingDeviceIsAClearError) {
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    {
        ScopedEnv device("LOOM_VK_DEVICE", "no-such-device");
        loom_vulkan_device_info_t info;
        EXPECT_EQ(loom_vulkan_get_device_info(nullptr, &info), loom_error_code_device_error);
        const std::string errors = take_errors();
        EXPECT_NE(errors.find("LOOM_VK_DEVICE='no-such-device'"), std::string::npos) << errors;
        EXPECT_NE(errors.find("mesa-vulkan-drivers"), std::string::npos) << errors;
        Kernels k;
        EXPECT_EQ(k.init(), loom_error_code_device_error);
        take_errors();
    }
    EXPECT_EQ(unbalanced_objects(), "") << "a failed context creation leaked";
}

TEST_F(VulkanLifetime, DeviceChosenByIndexOrNameInAnyCase) {
    loom_vulkan_device_info_t info;
    ASSERT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
    std::string name = info.device_name;
    std::string shouted;
    for (char c : name.substr(0, 4)) shouted += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    {
        ScopedEnv device("LOOM_VK_DEVICE", shouted);
        ASSERT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
        EXPECT_EQ(name.substr(0, 4), std::string(info.device_name).substr(0, 4));
        ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    }
    {
        ScopedEnv device("LOOM_VK_DEVICE", "0");
        ASSERT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
        ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    }
    {
        ScopedEnv device("LOOM_VK_DEVICE", "99");
        EXPECT_EQ(loom_vulkan_get_device_info(nullptr, &info), loom_error_code_device_error);
        EXPECT_NE(take_errors().find("LOOM_VK_DEVICE='99'"), std::string::npos);
    }
    EXPECT_EQ(unbalanced_objects(), "");
}

TEST_F(VulkanLifetime, ABadModuleIsAnErrorNotACrash) {
    const uint32_t not_spirv[] = {1, 2, 3, 4, 5, 6};
    void *state = nullptr;
    EXPECT_EQ(loom_vulkan_initialize_kernels(nullptr, &state, not_spirv, 6), loom_error_code_device_error);
    EXPECT_EQ(state, nullptr);
    EXPECT_NE(take_errors().find("not a SPIR-V module"), std::string::npos);
}


TEST_F(VulkanLifetime, AKernelNeedingAMissingFeatureIsRefusedByName) {
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    {
        // Hide float64 (lavapipe has it), then offer a module declaring Float64.
        ScopedEnv mask("LOOM_VK_MASK_FEATURES", "float64");
        loom_vulkan_device_info_t info;
        ASSERT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
        EXPECT_EQ(info.features & loom_vulkan_feature_float64, 0u);
        const uint32_t module[] = {0x07230203u, 0x00010300u, 0, 1, 0,
                                   0x00020011u, 1,       // OpCapability Shader
                                   0x00020011u, 10,      // OpCapability Float64
                                   0x0003000eu, 0, 1};   // OpMemoryModel Logical GLSL450
        void *state = nullptr;
        EXPECT_EQ(loom_vulkan_initialize_kernels(nullptr, &state, module, 12), loom_error_code_device_error);
        const std::string errors = take_errors();
        EXPECT_NE(errors.find("shaderFloat64"), std::string::npos) << errors;
        EXPECT_NE(errors.find(info.device_name), std::string::npos) << errors;
        loom_vulkan_finalize_kernels(nullptr, state);
    }
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    EXPECT_EQ(unbalanced_objects(), "");
}

TEST_F(VulkanLifetime, FloatControlsAreCheckedAndHostVulkanFallsBack) {
    // Loom's Vulkan 1.2/1.3 modules keep signed zeros, infinities and NaNs
    // (SignedZeroInfNanPreserve); a device that cannot refuses them by name,
    // and then does not report vk_v12/vk_v13, so host-vulkan makes 1.0 modules.
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    {
        ScopedEnv mask("LOOM_VK_MASK_FEATURES", "preserve");
        loom_vulkan_device_info_t info;
        ASSERT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
        EXPECT_EQ(info.features & (loom_vulkan_feature_v12 | loom_vulkan_feature_v13), 0u);
        const uint32_t module[] = {0x07230203u, 0x00010500u, 0, 1, 0,
                                   0x00020011u, 1,        // OpCapability Shader
                                   0x00020011u, 4466,     // OpCapability SignedZeroInfNanPreserve
                                   0x0003000eu, 0, 1};    // OpMemoryModel Logical GLSL450
        void *state = nullptr;
        EXPECT_EQ(loom_vulkan_initialize_kernels(nullptr, &state, module, 12), loom_error_code_device_error);
        const std::string errors = take_errors();
        EXPECT_NE(errors.find("shaderSignedZeroInfNanPreserveFloat32"), std::string::npos) << errors;
        loom_vulkan_finalize_kernels(nullptr, state);
    }
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    {
        // Without the mask, lavapipe keeps them (and reports Vulkan 1.3).
        loom_vulkan_device_info_t info;
        ASSERT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
        if (std::string(info.device_name).find("llvmpipe") != std::string::npos) {
            EXPECT_NE(info.features & loom_vulkan_feature_v12, 0u);
        }
    }
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    EXPECT_EQ(unbalanced_objects(), "");
}

}  // namespace
