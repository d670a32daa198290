// The command stream: dispatches batched into one submission, barriers only
// between dependent commands, descriptor pools recycled across batches, the
// device's limits checked; and the cost of a dispatch, batched or not.

#include "VulkanRuntimeTestUtil.h"

#include <chrono>
#include <cstdio>
#include <thread>

namespace {

using loom::Runtime::Buffer;
using namespace loom_vk_test;

using VulkanDispatch = VulkanRuntimeTest;

TEST_F(VulkanDispatch, ThousandDispatchesAreOneSubmission) {
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    Buffer<uint32_t> b(1000);
    b.for_each_element([&](int x) { b(x) = static_cast<uint32_t>(x); });
    ASSERT_EQ(b.copy_to_device(), 0);
    const int64_t submits = events(loom_vk_event_submit), waits = events(loom_vk_event_wait);
    for (int i = 0; i < 1000; i++) ASSERT_EQ(run_add_one(k.state, b.raw_buffer(), 1000, 1), 0);
    EXPECT_EQ(events(loom_vk_event_submit), submits) << "a dispatch submitted";
    b.set_device_dirty();
    ASSERT_EQ(b.copy_to_host(), 0);
    EXPECT_EQ(events(loom_vk_event_submit), submits + 1);
    EXPECT_EQ(events(loom_vk_event_wait), waits + 1);
    b.for_each_element([&](int x) { ASSERT_EQ(std::as_const(b)(x), static_cast<uint32_t>(x) + 1000u) << x; });
}

TEST_F(VulkanDispatch, BarriersOnlyBetweenDependentDispatches) {
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    Buffer<uint32_t> a(64), b(64);
    ASSERT_EQ(a.copy_to_device(), 0);
    ASSERT_EQ(b.copy_to_device(), 0);
    ASSERT_EQ(loom_device_sync(nullptr, nullptr), 0);
    int64_t barriers = events(loom_vk_event_barrier);
    ASSERT_EQ(run_add_one(k.state, a.raw_buffer(), 64, 1), 0);
    ASSERT_EQ(run_add_one(k.state, b.raw_buffer(), 64, 1), 0);  // independent
    EXPECT_EQ(events(loom_vk_event_barrier), barriers);
    ASSERT_EQ(run_copy_add(k.state, a.raw_buffer(), b.raw_buffer(), 64, 1), 0);  // reads a, writes b
    EXPECT_EQ(events(loom_vk_event_barrier), barriers + 1);
    b.set_device_dirty();
    ASSERT_EQ(b.copy_to_host(), 0);
    EXPECT_EQ(std::as_const(b)(10), 2u);
}

TEST_F(VulkanDispatch, PipelineOf200KernelsRealized1000TimesNeverRunsOutOfDescriptors) {
    constexpr int kKernels = 200, kRealizes = 1000, kWidth = 64;
    std::vector<Kernels> kernels(kKernels);  // 200 distinct modules and pipelines
    for (Kernels &k : kernels) ASSERT_EQ(k.init(), 0);
    std::vector<Buffer<uint32_t>> stages;
    for (int i = 0; i <= kKernels; i++) {
        stages.emplace_back(kWidth);
        ASSERT_EQ(stages.back().device_malloc(), 0);
    }
    stages[0].for_each_element([&](int x) { stages[0](x) = static_cast<uint32_t>(x); });
    ASSERT_EQ(stages[0].copy_to_device(), 0);
    const int64_t pools = live(loom_vk_object_descriptor_pool);
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < kRealizes; r++) {
        for (int i = 0; i < kKernels; i++) {
            ASSERT_EQ(run_copy_add(kernels[i].state, stages[i].raw_buffer(), stages[i + 1].raw_buffer(), kWidth, 1), 0)
                << "realize " << r << ", kernel " << i;
        }
        Buffer<uint32_t> &out = stages[kKernels];
        out.set_device_dirty();
        ASSERT_EQ(out.copy_to_host(), 0) << "realize " << r;
        ASSERT_EQ(std::as_const(out)(kWidth - 1), kWidth - 1 + kKernels) << "realize " << r;
        ASSERT_EQ(std::as_const(out)(0), static_cast<uint32_t>(kKernels)) << "realize " << r;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ info     ] %d realizes of %d dependent kernels: %.2f s, %.1f us per dispatch\n", kRealizes,
                kKernels, seconds, seconds * 1e6 / (kRealizes * kKernels));
    EXPECT_LE(live(loom_vk_object_descriptor_pool), pools + 1) << "descriptor pools are not recycled";
}

TEST_F(VulkanDispatch, CostOfADispatchBatchedAndNot) {
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    Buffer<uint32_t> b(64);
    ASSERT_EQ(b.copy_to_device(), 0);
    ASSERT_EQ(run_add_one(k.state, b.raw_buffer(), 64, 1), 0);  // pipeline made, stream warm
    ASSERT_EQ(b.device_sync(), 0);
    constexpr int kDispatches = 1000;
    using clock = std::chrono::steady_clock;

    auto start = clock::now();
    for (int i = 0; i < kDispatches; i++) ASSERT_EQ(run_add_one(k.state, b.raw_buffer(), 64, 1), 0);
    const auto recorded = clock::now();
    ASSERT_EQ(b.device_sync(), 0);
    const double batched = std::chrono::duration<double>(clock::now() - start).count() * 1e6 / kDispatches;
    // The runtime's own share: recording the dispatch (binding, descriptor
    // set, barrier, push constants); the rest is the device running it.
    const double recording = std::chrono::duration<double>(recorded - start).count() * 1e6 / kDispatches;

    start = clock::now();
    for (int i = 0; i < kDispatches; i++) {
        ASSERT_EQ(run_add_one(k.state, b.raw_buffer(), 64, 1), 0);
        ASSERT_EQ(b.device_sync(), 0);
    }
    const double waited = std::chrono::duration<double>(clock::now() - start).count() * 1e6 / kDispatches;
    const char *validation = std::getenv("LOOM_VK_VALIDATION");
    loom_vulkan_device_info_t info;
    ASSERT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
    std::printf("[ info     ] one dispatch on '%s'%s: %.1f us in a batch of %d (%.1f us of it recording), %.1f us "
                "with a submit and wait each\n",
                info.device_name, validation && *validation == '1' ? " (validation layer on)" : "", batched,
                kDispatches, recording, waited);
    b.set_device_dirty();
    ASSERT_EQ(b.copy_to_host(), 0);
    EXPECT_EQ(std::as_const(b)(0), 1u + 2u * kDispatches);
}

TEST_F(VulkanDispatch, DeviceLimitsAreCheckedAndNamed) {
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    loom_vulkan_device_info_t info;
    ASSERT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
    Buffer<uint32_t> b(64);
    ASSERT_EQ(b.device_malloc(), 0);
    loom_buffer_t *raw = b.raw_buffer();
    // Past LOOM_VULKAN_MAX_PUSH_CONSTANT_BYTES the scalars go in a uniform
    // buffer, which vkCmdUpdateBuffer fills: at most 64 KiB.
    std::vector<uint8_t> big(65536 + 4);
    EXPECT_EQ(loom_vulkan_run(nullptr, k.state, "add_one", 1, 1, 1, 64, 1, 1, 1, &raw,
                              static_cast<uint32_t>(big.size()), big.data()),
              loom_error_code_device_error);
    EXPECT_NE(take_errors().find("maxUniformBufferRange"), std::string::npos);

    Push push{64, 1};
    const int too_many = static_cast<int>(info.max_workgroup_invocations) + 1;
    EXPECT_EQ(loom_vulkan_run(nullptr, k.state, "add_one", 1, 1, 1, too_many, 1, 1, 1, &raw, sizeof push, &push),
              loom_error_code_device_error);
    EXPECT_NE(take_errors().find("maxComputeWorkGroup"), std::string::npos);

    Buffer<uint32_t> host_only(64);
    loom_buffer_t *no_device = host_only.raw_buffer();
    EXPECT_EQ(loom_vulkan_run(nullptr, k.state, "add_one", 1, 1, 1, 64, 1, 1, 1, &no_device, sizeof push, &push),
              loom_error_code_device_error);
    EXPECT_NE(take_errors().find("no Vulkan device allocation"), std::string::npos);
}

TEST_F(VulkanDispatch, DeviceInfoReportsFeaturesAndLimits) {
    loom_vulkan_device_info_t info;
    ASSERT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
    EXPECT_GT(std::string(info.device_name).size(), 0u);
    EXPECT_GE(info.max_workgroup_invocations, 128u);  // Vulkan's minimum
    EXPECT_GE(info.max_push_constant_bytes, 128u);
    EXPECT_GE(info.max_shared_memory_bytes, 16384u);
    EXPECT_GE(info.max_workgroup_size[0], 128u);
    std::printf("[ info     ] device '%s', features 0x%llx\n", info.device_name,
                static_cast<unsigned long long>(info.features));
}


TEST_F(VulkanDispatch, ValidationErrorsAreReportedAndFailTheCall) {
    const char *validation = std::getenv("LOOM_VK_VALIDATION");
    // Only with the validation layer on is there a layer to report the
    // error; CTest sets LOOM_VK_VALIDATION=1 for every vulkan test, so this
    // skips only when the binary is run by hand without it.
    if (!validation || std::string(validation) != "1") GTEST_SKIP() << "LOOM_VK_VALIDATION=1 is not set";
    EXPECT_GT(counts().created[loom_vk_object_debug_messenger], 0) << "no validation messenger";
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    Buffer<uint32_t> b(64);
    ASSERT_EQ(b.device_malloc(), 0);
    loom_buffer_t *raw = b.raw_buffer();
    // copy_add reads binding 1, which a layout of one binding lacks: a
    // validation error when the pipeline is made.
    Push push{64, 1};
    EXPECT_EQ(loom_vulkan_run(nullptr, k.state, "copy_add", 1, 1, 1, 64, 1, 1, 1, &raw, sizeof push, &push),
              loom_error_code_device_error);
    EXPECT_NE(take_errors().find("Vulkan validation error"), std::string::npos);
    EXPECT_EQ(b.device_sync(), 0);  // reported once
    take_errors();
}

TEST_F(VulkanDispatch, ThreadsShareTheContextSafely) {
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    constexpr int kThreads = 4, kRounds = 100;
    std::vector<int> failures(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
        threads.emplace_back([&, t] {
            Buffer<uint32_t> b(128 + t);
            for (int r = 0; r < kRounds; r++) {
                b.fill(static_cast<uint32_t>(r));
                if (b.copy_to_device() || run_add_one(k.state, b.raw_buffer(), 128 + t, t + 1)) failures[t]++;
                b.set_device_dirty();
                if (b.copy_to_host() || std::as_const(b)(127) != static_cast<uint32_t>(r + t + 1)) failures[t]++;
            }
        });
    }
    for (std::thread &t : threads) t.join();
    for (int t = 0; t < kThreads; t++) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
