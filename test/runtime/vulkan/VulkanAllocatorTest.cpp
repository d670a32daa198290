// The pooled device allocator: each buffer's memory requirements honoured
// (alignment), sub-allocation from shared blocks, freed ranges reused.

#include "VulkanRuntimeTestUtil.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace {

using loom::Runtime::Buffer;
using namespace loom_vk_test;

using VulkanAllocator = VulkanRuntimeTest;

struct Placement {
    uint64_t memory = 0, offset = 0, alignment = 0;
};

Placement placement_of(const Buffer<uint8_t> &b) {
    Placement p;
    EXPECT_EQ(loom_vulkan_debug_placement(b.raw_buffer(), &p.memory, &p.offset, &p.alignment), 0);
    return p;
}

TEST_F(VulkanAllocator, OffsetsHonourEachBuffersAlignmentAndNeverOverlap) {
    std::vector<Buffer<uint8_t>> buffers;
    for (int size : {1, 3, 17, 64, 100, 1000, 4097, 5, 65, 129, 12345, 7}) {
        buffers.emplace_back(size);
        ASSERT_EQ(buffers.back().device_malloc(), 0);
    }
    std::map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> ranges;  // memory -> [offset, end)
    for (const Buffer<uint8_t> &b : buffers) {
        Placement p = placement_of(b);
        ASSERT_GT(p.alignment, 0u);
        EXPECT_EQ(p.offset % p.alignment, 0u) << "offset " << p.offset << ", alignment " << p.alignment;
        ranges[p.memory].push_back({p.offset, p.offset + b.size_in_bytes()});
    }
    // Small buffers share blocks: sub-allocation, not one VkDeviceMemory each.
    EXPECT_LT(ranges.size(), buffers.size());
    for (auto &[memory, list] : ranges) {
        std::sort(list.begin(), list.end());
        for (size_t i = 1; i < list.size(); i++) {
            EXPECT_LE(list[i - 1].second, list[i].first) << "overlapping allocations";
        }
    }
    // Distinct data in each survives a round trip (nothing aliases).
    for (size_t i = 0; i < buffers.size(); i++) {
        buffers[i].fill(static_cast<uint8_t>(i + 1));
        ASSERT_EQ(buffers[i].copy_to_device(), 0);
    }
    for (size_t i = 0; i < buffers.size(); i++) {
        buffers[i].fill(0);
        buffers[i].set_host_dirty(false);
        buffers[i].set_device_dirty();
        ASSERT_EQ(buffers[i].copy_to_host(), 0);
        buffers[i].for_each_element([&](int x) { ASSERT_EQ(buffers[i](x), i + 1) << "buffer " << i; });
    }
}

TEST_F(VulkanAllocator, FreedRangesAreReused) {
    Placement first;
    {
        Buffer<uint8_t> a(1000);
        ASSERT_EQ(a.device_malloc(), 0);
        first = placement_of(a);
        ASSERT_EQ(a.device_free(), 0);
        EXPECT_FALSE(a.has_device_allocation());
    }
    Buffer<uint8_t> b(1000);
    ASSERT_EQ(b.device_malloc(), 0);
    Placement second = placement_of(b);
    EXPECT_EQ(second.memory, first.memory);
    EXPECT_EQ(second.offset, first.offset);
}

TEST_F(VulkanAllocator, ManyCyclesKeepTheBlocksTheyNeed) {
    uint64_t blocks0, reserved0, used0;
    Buffer<uint8_t> keep(100);  // the allocator has a block from here on
    ASSERT_EQ(keep.device_malloc(), 0);
    loom_vulkan_debug_memory(&blocks0, &reserved0, &used0);
    for (int i = 0; i < 1000; i++) {
        Buffer<float> b(1 + (i * 37) % 2000);
        ASSERT_EQ(b.device_malloc(), 0);
        ASSERT_EQ(b.device_free(), 0);
    }
    uint64_t blocks, reserved, used;
    loom_vulkan_debug_memory(&blocks, &reserved, &used);
    EXPECT_EQ(used, used0);
    EXPECT_EQ(blocks, blocks0);
    EXPECT_EQ(reserved, reserved0);
}

TEST_F(VulkanAllocator, LargeBuffersGetTheirOwnBlockWhichIsReturned) {
    uint64_t blocks0, reserved0, used0;
    loom_vulkan_debug_memory(&blocks0, &reserved0, &used0);
    {
        Buffer<float> big(3000, 4000);  // 48 MB, more than a default block
        ASSERT_EQ(big.device_malloc(), 0);
        uint64_t blocks, reserved, used;
        loom_vulkan_debug_memory(&blocks, &reserved, &used);
        EXPECT_GE(used, used0 + big.size_in_bytes());
    }  // the Buffer frees its device allocation
    Buffer<float> big2(3000, 4000);
    ASSERT_EQ(big2.device_malloc(), 0);  // fits in the block kept (empty) for reuse
    uint64_t blocks, reserved, used;
    loom_vulkan_debug_memory(&blocks, &reserved, &used);
    EXPECT_LE(blocks, blocks0 + 1);
}

}  // namespace
