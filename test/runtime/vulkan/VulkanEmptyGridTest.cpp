// Grids with no block: a count of 0 in any dimension records no dispatch
// and leaves the buffers as they were; a negative count (which generated
// code never passes: LowerGPULaunches skips the launch of an empty GPU loop)
// is refused with an error naming the kernel and the count, instead of
// reaching vkCmdDispatch as 2^32 - 1 blocks.

#include "VulkanRuntimeTestUtil.h"

#include <utility>

namespace {

using loom::Runtime::Buffer;
using namespace loom_vk_test;

class VulkanEmptyGrid : public VulkanRuntimeTest {
protected:
    /** Runs add_one over 64 elements with `count` blocks in one dimension
     * (1 in the others), each dimension in turn: every run returns
     * `expected`, then check(d) runs. No run dispatches and the buffer keeps
     * its values. */
    template<typename Check>
    void run_each_dimension_with(int count, int expected, Check check) {
        Kernels k;
        ASSERT_EQ(k.init(), 0);
        Buffer<uint32_t> b(64);
        for (int i = 0; i < 64; i++) b(i) = uint32_t(i);
        ASSERT_EQ(b.copy_to_device(), 0);
        loom_buffer_t *raw = b.raw_buffer();
        Push push{64, 1};
        const int64_t dispatches = events(loom_vk_event_dispatch);
        for (int d = 0; d < 3; d++) {
            int blocks[3] = {1, 1, 1};
            blocks[d] = count;
            EXPECT_EQ(loom_vulkan_run(nullptr, k.state, "add_one", blocks[0], blocks[1], blocks[2], 64, 1, 1, 1, &raw,
                                      sizeof push, &push),
                      expected)
                << "dimension " << d;
            check(d);
        }
        EXPECT_EQ(events(loom_vk_event_dispatch), dispatches);
        b.set_device_dirty();
        ASSERT_EQ(b.copy_to_host(), 0);
        for (int i = 0; i < 64; i++) EXPECT_EQ(std::as_const(b)(i), uint32_t(i)) << "at " << i;
    }
};

TEST_F(VulkanEmptyGrid, ZeroBlocksInAnyDimensionDispatchesNothing) {
    run_each_dimension_with(0, 0, [](int) {});
}

TEST_F(VulkanEmptyGrid, NegativeBlockCountIsRefusedByName) {
    run_each_dimension_with(-1, loom_error_code_device_error, [&](int d) {
        const std::string errors = take_errors();
        const std::string expected =
            "kernel add_one has -1 blocks in dimension " + std::to_string(d) + "; a block count must not be negative";
        EXPECT_NE(errors.find(expected), std::string::npos) << errors;
    });
}

}  // namespace
