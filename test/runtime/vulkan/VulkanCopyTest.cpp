// Copies between host and device in both directions: dense, crops (a buffer
// whose host points into the middle of another allocation), strided; the
// dirty bits of Runtime::Buffer and loom::Buffer; wrapping a native VkBuffer.

#include "VulkanRuntimeTestUtil.h"

#include "loom/Buffer.h"
#include "loom/Error.h"

namespace {

using loom::Runtime::Buffer;
using namespace loom_vk_test;

using VulkanCopy = VulkanRuntimeTest;

/** A view of `parent`'s elements [x0, x0 + w) x [y0, y0 + h) sharing its memory. */
template<typename T>
Buffer<T> crop(const Buffer<T> &parent, int x0, int y0, int w, int h) {
    loom_buffer_t raw = *parent.raw_buffer();
    loom_dimension_t dims[2] = {{x0, w, parent.stride(0), 0}, {y0, h, parent.stride(1), 0}};
    raw.dim = dims;
    raw.host = reinterpret_cast<uint8_t *>(const_cast<T *>(&parent(x0, y0)));
    raw.device = 0;
    raw.device_interface = nullptr;
    raw.flags = 0;
    return Buffer<T>(raw);  // copies the dims
}

/** Forgets the host's contents and takes them back from the device. */
template<typename T>
void round_trip_through_device(Buffer<T> &b, T clobber) {
    ASSERT_EQ(b.copy_to_device(), 0);
    EXPECT_FALSE(b.host_dirty());
    b.for_each_element([&](const std::vector<int> &c) { const_cast<T &>(std::as_const(b)(c)) = clobber; });
    b.set_device_dirty();
    ASSERT_EQ(b.copy_to_host(), 0);
    EXPECT_FALSE(b.device_dirty());
}

TEST_F(VulkanCopy, DenseRoundTrip) {
    Buffer<int32_t> b(37, 23);
    b.for_each_element([&](int x, int y) { b(x, y) = x * 1000 + y; });
    round_trip_through_device(b, -1);
    b.for_each_element([&](int x, int y) { ASSERT_EQ(std::as_const(b)(x, y), x * 1000 + y); });
}

TEST_F(VulkanCopy, CropCopiesOnlyItsOwnElements) {
    Buffer<uint16_t> parent(64, 32);
    parent.for_each_element([&](int x, int y) { parent(x, y) = static_cast<uint16_t>(x + 100 * y); });
    Buffer<uint16_t> c = crop(parent, 10, 5, 20, 7);
    ASSERT_EQ(c.copy_to_device(), 0);
    parent.fill(0xffff);  // the whole parent, crop included
    c.set_host_dirty(false);
    c.set_device_dirty();
    ASSERT_EQ(c.copy_to_host(), 0);
    parent.for_each_element([&](int x, int y) {
        const bool inside = x >= 10 && x < 30 && y >= 5 && y < 12;
        ASSERT_EQ(std::as_const(parent)(x, y), inside ? x + 100 * y : 0xffff) << x << ", " << y;
    });
}

TEST_F(VulkanCopy, StridedBufferLeavesTheGapsAlone) {
    std::vector<float> memory(3 * 50 * 4, -7.0f);
    loom_dimension_t dims[2] = {{0, 50, 3, 0}, {0, 4, 150, 0}};  // every third float
    loom_buffer_t raw{};
    raw.host = reinterpret_cast<uint8_t *>(memory.data());
    raw.type = loom::Runtime::loom_type_of<float>();
    raw.dimensions = 2;
    raw.dim = dims;
    Buffer<float> b(raw);
    b.for_each_element([&](int x, int y) { b(x, y) = x + 0.5f * y; });
    round_trip_through_device(b, 0.0f);
    for (size_t i = 0; i < memory.size(); i++) {
        const int x = static_cast<int>(i % 150) / 3, y = static_cast<int>(i / 150);
        ASSERT_EQ(memory[i], i % 3 == 0 ? x + 0.5f * y : -7.0f) << i;
    }
    ASSERT_EQ(b.device_free(), 0);
}

TEST_F(VulkanCopy, KernelIndexesTheCropAsTheHostDoes) {
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    Buffer<uint32_t> parent(40, 10);
    parent.fill(5);
    Buffer<uint32_t> c = crop(parent, 3, 2, 30, 6);
    ASSERT_EQ(c.copy_to_device(), 0);
    // Every element of the span (gaps included, which only the device sees).
    const uint32_t span = static_cast<uint32_t>(c.size_in_bytes() / sizeof(uint32_t));
    ASSERT_EQ(run_add_one(k.state, c.raw_buffer(), span, 10), 0);
    c.set_device_dirty();
    ASSERT_EQ(c.copy_to_host(), 0);
    parent.for_each_element([&](int x, int y) {
        const bool inside = x >= 3 && x < 33 && y >= 2 && y < 8;
        ASSERT_EQ(std::as_const(parent)(x, y), inside ? 15u : 5u) << x << ", " << y;
    });
}

TEST_F(VulkanCopy, UploadRecordedAfterAKernelRunsAfterIt) {
    // The second upload cannot be a plain memcpy (the batch's first kernel has
    // not run yet): it goes through a staging buffer in stream order.
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    Buffer<uint32_t> b(256);
    b.fill(1);
    ASSERT_EQ(b.copy_to_device(), 0);
    ASSERT_EQ(run_add_one(k.state, b.raw_buffer(), 256, 100), 0);  // 101 on the device, later
    b.fill(7);
    ASSERT_EQ(b.copy_to_device(), 0);  // overwrites the device copy after the kernel
    ASSERT_EQ(run_add_one(k.state, b.raw_buffer(), 256, 1), 0);
    b.set_device_dirty();
    ASSERT_EQ(b.copy_to_host(), 0);
    b.for_each_element([&](int x) { ASSERT_EQ(std::as_const(b)(x), 8u) << x; });
}

TEST_F(VulkanCopy, DirtyBitsFollowHalide) {
    Buffer<int> b(16);
    EXPECT_FALSE(b.host_dirty());
    b(3) = 1;  // a write through the non-const accessor
    EXPECT_TRUE(b.host_dirty());
    ASSERT_EQ(b.copy_to_device(), 0);
    EXPECT_FALSE(b.host_dirty());
    EXPECT_TRUE(b.has_device_allocation());
    b.set_device_dirty();
    EXPECT_THROW(b.set_host_dirty(), std::logic_error);
    EXPECT_THROW(b(3) = 2, std::logic_error);
    EXPECT_THROW(b.fill(0), std::logic_error);
    EXPECT_EQ(std::as_const(b)(3), 1);  // reading stale data is allowed, as in Halide
    Buffer<const int> read_only = b;
    EXPECT_EQ(read_only(3), 1);  // const elements never mark the host dirty
    ASSERT_EQ(b.copy_to_host(), 0);
    EXPECT_FALSE(b.device_dirty());
    b(3) = 2;
    EXPECT_TRUE(b.host_dirty());
    EXPECT_THROW(b.set_device_dirty(), std::logic_error);
    b.set_host_dirty(false);

    // Not host-dirty and already on the device: copy_to_device copies nothing.
    b.data()[4] = 44;  // untracked write
    ASSERT_EQ(b.copy_to_device(), 0);
    b.set_device_dirty();
    ASSERT_EQ(b.copy_to_host(), 0);
    EXPECT_EQ(std::as_const(b)(4), 0);

    // device_free drops the device side, and with it device_dirty.
    b.set_device_dirty();
    ASSERT_EQ(b.device_free(), 0);
    EXPECT_FALSE(b.has_device_allocation());
    EXPECT_FALSE(b.device_dirty());
    EXPECT_EQ(b.copy_to_host(), 0);
}

TEST_F(VulkanCopy, BothSidesDirtyIsAnError) {
    Buffer<int> b(4);
    ASSERT_EQ(b.device_malloc(), 0);
    b.raw_buffer()->flags = loom_buffer_flag_host_dirty | loom_buffer_flag_device_dirty;
    EXPECT_EQ(b.copy_to_host(), loom_error_code_device_error);
    EXPECT_EQ(b.copy_to_device(), loom_error_code_device_error);
    EXPECT_NE(take_errors().find("dirty on both host and device"), std::string::npos);
    b.raw_buffer()->flags = 0;
}

TEST_F(VulkanCopy, TheLastCopyOfABufferFreesItsDeviceAllocation) {
    const int64_t before = live(loom_vk_object_buffer);
    {
        Buffer<float> b(100);
        ASSERT_EQ(b.copy_to_device(), 0);
        Buffer<float> alias = b;
        EXPECT_EQ(live(loom_vk_object_buffer), before + 1);
    }
    EXPECT_EQ(live(loom_vk_object_buffer), before);
    {
        // Allocated by a pipeline (the C runtime directly), freed by the Buffer, as in Halide.
        Buffer<float> b(100);
        ASSERT_EQ(loom_copy_to_device(nullptr, b.raw_buffer(), loom_vulkan_device_interface()), 0);
        EXPECT_EQ(live(loom_vk_object_buffer), before + 1);
    }
    EXPECT_EQ(live(loom_vk_object_buffer), before);
    {
        // A wrapped loom_buffer_t with a device allocation: its owner frees it.
        Buffer<float> owner(100);
        ASSERT_EQ(owner.device_malloc(), 0);
        { Buffer<float> view(*owner.raw_buffer()); }
        EXPECT_TRUE(owner.has_device_allocation());
        EXPECT_EQ(live(loom_vk_object_buffer), before + 1);
    }
    EXPECT_EQ(live(loom_vk_object_buffer), before);
}

TEST_F(VulkanCopy, NegativeStridesAreAClearError) {
    std::vector<int> memory(10);
    loom_dimension_t dim = {0, 10, -1, 0};
    loom_buffer_t raw{};
    raw.host = reinterpret_cast<uint8_t *>(memory.data() + 9);
    raw.type = loom::Runtime::loom_type_of<int>();
    raw.dimensions = 1;
    raw.dim = &dim;
    EXPECT_EQ(loom_device_malloc(nullptr, &raw, loom_vulkan_device_interface()), loom_error_code_device_error);
    EXPECT_NE(take_errors().find("negative stride"), std::string::npos);
    EXPECT_EQ(raw.device, 0u);

    loom::Buffer<int> b(raw, "flipped");
    try {
        b.copy_to_device();
        FAIL() << "no RuntimeError";
    } catch (const loom::RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("flipped"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("negative stride"), std::string::npos) << e.what();
    }
    EXPECT_THROW(b.copy_to_device(loom::DeviceAPI::Host), loom::CompileError);
}

TEST_F(VulkanCopy, LoomBufferDeviceMethods) {
    loom::Buffer<uint8_t> b(33, 3);
    b.fill(9);
    EXPECT_EQ(b.copy_to_device(), 0);
    EXPECT_TRUE(b.has_device_allocation());
    b.set_device_dirty();
    EXPECT_EQ(b.device_sync(), 0);
    EXPECT_EQ(b.copy_to_host(), 0);
    EXPECT_EQ(std::as_const(b)(32, 2), 9);
    EXPECT_EQ(b.device_free(), 0);
    EXPECT_EQ(b.device_malloc(loom::DeviceAPI::Vulkan), 0);
    EXPECT_TRUE(b.has_device_allocation());
}

TEST_F(VulkanCopy, WrapAndDetachANativeVkBuffer) {
    Kernels k;
    ASSERT_EQ(k.init(), 0);
    Buffer<uint32_t> owner(64);
    owner.fill(3);
    ASSERT_EQ(owner.copy_to_device(), 0);
    const uint64_t handle = owner.device_native_handle();
    ASSERT_NE(handle, 0u);

    Buffer<uint32_t> view(64);
    ASSERT_EQ(view.device_wrap_native(loom_vulkan_device_interface(), handle), 0);
    EXPECT_EQ(view.device_native_handle(), handle);
    EXPECT_THROW(view.device_free(), std::logic_error);
    ASSERT_EQ(run_add_one(k.state, view.raw_buffer(), 64, 4), 0);
    view.set_device_dirty();
    ASSERT_EQ(view.copy_to_host(), 0);  // through the wrapped handle: staged copy
    EXPECT_EQ(std::as_const(view)(63), 7u);
    ASSERT_EQ(view.device_detach_native(), 0);
    EXPECT_FALSE(view.has_device_allocation());

    owner.set_device_dirty();
    ASSERT_EQ(owner.copy_to_host(), 0);  // the kernel wrote the owner's memory
    EXPECT_EQ(std::as_const(owner)(0), 7u);
}


// What discrete GPUs do (device memory the host cannot map): every copy goes
// through a staging buffer and a transfer command. LOOM_VK_ZERO_COPY=0 makes
// lavapipe take that path.
TEST_F(VulkanCopy, StagedCopiesWithoutZeroCopy) {
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    {
        ScopedEnv staged("LOOM_VK_ZERO_COPY", "0");
        Kernels k;
        ASSERT_EQ(k.init(), 0);
        Buffer<uint32_t> parent(50, 20);
        parent.for_each_element([&](int x, int y) { parent(x, y) = static_cast<uint32_t>(x + 1000 * y); });
        Buffer<uint32_t> c = crop(parent, 7, 3, 31, 9);
        const int64_t submits = events(loom_vk_event_submit);
        ASSERT_EQ(c.copy_to_device(), 0);
        EXPECT_EQ(events(loom_vk_event_submit), submits) << "an upload is recorded, not submitted";
        const uint32_t span = static_cast<uint32_t>(c.size_in_bytes() / sizeof(uint32_t));
        ASSERT_EQ(run_add_one(k.state, c.raw_buffer(), span, 5), 0);
        c.set_device_dirty();
        ASSERT_EQ(c.copy_to_host(), 0);
        EXPECT_EQ(events(loom_vk_event_submit), submits + 1) << "upload, kernel and download in one submission";
        parent.for_each_element([&](int x, int y) {
            const bool inside = x >= 7 && x < 38 && y >= 3 && y < 12;
            ASSERT_EQ(std::as_const(parent)(x, y), static_cast<uint32_t>(x + 1000 * y) + (inside ? 5u : 0u))
                << x << ", " << y;
        });

        Buffer<int16_t> dense(333, 3);
        dense.for_each_element([&](int x, int y) { dense(x, y) = static_cast<int16_t>(x - y); });
        round_trip_through_device(dense, int16_t(0));
        dense.for_each_element([&](int x, int y) { ASSERT_EQ(std::as_const(dense)(x, y), x - y); });
        ASSERT_EQ(c.device_free(), 0);
        ASSERT_EQ(dense.device_free(), 0);
        k.finalize();  // while the staged context lives
    }
    ASSERT_EQ(loom_device_release(nullptr, nullptr), 0);
    EXPECT_EQ(unbalanced_objects(), "");
}

}  // namespace
