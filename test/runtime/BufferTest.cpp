// Tests of the header-only loom::Runtime::Buffer<T>.

#include "loom/runtime/Buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using loom::Runtime::Buffer;
using loom::Runtime::loom_type_of;
using loom::Runtime::same_type;

bool type_is(loom_type_t t, int code, int bits) { return t.code == code && t.bits == bits && t.lanes == 1; }

TEST(LoomTypeOf, MapsStandardTypes) {
    EXPECT_TRUE(type_is(loom_type_of<bool>(), loom_type_uint, 1));
    EXPECT_TRUE(type_is(loom_type_of<int8_t>(), loom_type_int, 8));
    EXPECT_TRUE(type_is(loom_type_of<int16_t>(), loom_type_int, 16));
    EXPECT_TRUE(type_is(loom_type_of<int32_t>(), loom_type_int, 32));
    EXPECT_TRUE(type_is(loom_type_of<int64_t>(), loom_type_int, 64));
    EXPECT_TRUE(type_is(loom_type_of<uint8_t>(), loom_type_uint, 8));
    EXPECT_TRUE(type_is(loom_type_of<uint16_t>(), loom_type_uint, 16));
    EXPECT_TRUE(type_is(loom_type_of<uint32_t>(), loom_type_uint, 32));
    EXPECT_TRUE(type_is(loom_type_of<uint64_t>(), loom_type_uint, 64));
    EXPECT_TRUE(type_is(loom_type_of<float>(), loom_type_float, 32));
    EXPECT_TRUE(type_is(loom_type_of<double>(), loom_type_float, 64));
    EXPECT_TRUE(type_is(loom_type_of<const float>(), loom_type_float, 32));
    EXPECT_TRUE(type_is(loom_type_of<void *>(), loom_type_handle, 64));
    static_assert(loom_type_of<int>().bits == 32, "usable in constant expressions");
}

TEST(LoomTypeOf, BytesPerElement) {
    EXPECT_EQ(loom::Runtime::type_bytes(loom_type_of<bool>()), 1u);
    EXPECT_EQ(loom::Runtime::type_bytes(loom_type_of<uint16_t>()), 2u);
    EXPECT_EQ(loom::Runtime::type_bytes(loom_type_of<double>()), 8u);
    EXPECT_EQ(loom::Runtime::type_name(loom_type_of<int32_t>()), "int32");
    EXPECT_EQ(loom::Runtime::type_name(loom_type_of<bool>()), "bool");
}

TEST(Buffer, DefaultIsUndefined) {
    Buffer<float> b;
    EXPECT_FALSE(b.defined());
    EXPECT_EQ(b.dimensions(), 0);
    EXPECT_EQ(b.number_of_elements(), 0u);
    EXPECT_EQ(b.raw_buffer(), nullptr);
    EXPECT_EQ(b.data(), nullptr);
    EXPECT_FALSE(b.copy().defined());
}

TEST(Buffer, DenseShapeAndStrides) {
    Buffer<int32_t> b(5, 4, 3);
    ASSERT_TRUE(b.defined());
    EXPECT_EQ(b.dimensions(), 3);
    EXPECT_EQ(b.width(), 5);
    EXPECT_EQ(b.height(), 4);
    EXPECT_EQ(b.channels(), 3);
    EXPECT_EQ(b.stride(0), 1);
    EXPECT_EQ(b.stride(1), 5);
    EXPECT_EQ(b.stride(2), 20);
    for (int d = 0; d < 3; d++) {
        EXPECT_EQ(b.min(d), 0);
        EXPECT_EQ(b.dim(d).min(), 0);
    }
    EXPECT_EQ(b.dim(1).extent(), 4);
    EXPECT_EQ(b.dim(1).max(), 3);
    EXPECT_EQ(b.number_of_elements(), 60u);
    EXPECT_EQ(b.size_in_bytes(), 240u);
    EXPECT_TRUE(same_type(b.type(), loom_type_of<int32_t>()));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
    EXPECT_THROW(b.dim(3), std::out_of_range);
    EXPECT_THROW(b.dim(-1), std::out_of_range);
}

TEST(Buffer, MissingDimensionsReadAsOne) {
    Buffer<uint8_t> b(7);
    EXPECT_EQ(b.dimensions(), 1);
    EXPECT_EQ(b.width(), 7);
    EXPECT_EQ(b.height(), 1);
    EXPECT_EQ(b.channels(), 1);
}

TEST(Buffer, ZeroInitialised) {
    Buffer<double> b(3, 3);
    int visited = 0;
    b.for_each_element([&](int x, int y) {
        EXPECT_EQ(b(x, y), 0.0);
        visited++;
    });
    EXPECT_EQ(visited, 9);
}

TEST(Buffer, RankZeroHasOneElement) {
    Buffer<int> b(std::vector<int>{});
    EXPECT_EQ(b.dimensions(), 0);
    EXPECT_EQ(b.number_of_elements(), 1u);
    b() = 42;
    EXPECT_EQ(b(), 42);
    EXPECT_EQ(b.copy()(), 42);
    int calls = 0;
    b.for_each_element([&](const std::vector<int> &c) {
        EXPECT_TRUE(c.empty());
        calls++;
    });
    EXPECT_EQ(calls, 1);
}

TEST(Buffer, HighRank) {
    std::vector<int> sizes = {2, 1, 3, 1, 2, 1, 2, 1, 2};
    Buffer<int16_t> b(sizes);
    EXPECT_EQ(b.dimensions(), 9);
    EXPECT_EQ(b.number_of_elements(), 48u);
    EXPECT_EQ(b.stride(8), 24);
    std::vector<int> last = {1, 0, 2, 0, 1, 0, 1, 0, 1};
    b(last) = 5;
    EXPECT_EQ(b.data()[47], 5);
}

TEST(Buffer, VectorSizesConstructor) {
    Buffer<float> b({3, 4});
    EXPECT_EQ(b.dimensions(), 2);
    EXPECT_EQ(b.width(), 3);
    EXPECT_EQ(b.height(), 4);
    Buffer<float> c(std::vector<int>{2, 2, 2, 2, 2});
    EXPECT_EQ(c.dimensions(), 5);
}

TEST(Buffer, BadExtentsThrow) {
    EXPECT_THROW(Buffer<float>(-1), std::invalid_argument);
    EXPECT_THROW(Buffer<float>(4, -2), std::invalid_argument);
    EXPECT_THROW(Buffer<uint8_t>({1 << 16, 1 << 16, 1 << 16}), std::invalid_argument);
}

TEST(Buffer, EmptyExtentIsAllowed) {
    Buffer<float> b(0, 5);
    EXPECT_TRUE(b.defined());
    EXPECT_EQ(b.number_of_elements(), 0u);
    EXPECT_EQ(b.size_in_bytes(), 0u);
    EXPECT_NE(b.data(), nullptr);
    int calls = 0;
    b.for_each_element([&](int, int) { calls++; });
    EXPECT_EQ(calls, 0);
    b.fill(1.0f);
}

TEST(Buffer, ElementAccessIsColumnMajor) {
    Buffer<int> b(4, 3);
    b(2, 1) = 17;
    EXPECT_EQ(b.data()[1 * 4 + 2], 17);
    EXPECT_EQ(b({2, 1}), 17);
    const Buffer<int> &cb = b;
    static_assert(std::is_same_v<decltype(cb(2, 1)), const int &>, "const access is read-only");
    static_assert(std::is_same_v<decltype(b(2, 1)), int &>, "non-const access is writable");
    EXPECT_EQ(cb(2, 1), 17);
    EXPECT_EQ(cb({2, 1}), 17);
}

TEST(Buffer, OmittedCoordinatesAreTheMin) {
    Buffer<int> b(4, 3);
    b.set_min(0, 5);
    b(2, 5) = 9;
    EXPECT_EQ(b(2), 9);
    EXPECT_THROW(b(1, 1, 1), std::out_of_range);
}

TEST(Buffer, SetMinMovesCoordinatesNotData) {
    Buffer<int> b(4, 3);
    b(0, 0) = 1;
    b(3, 2) = 2;
    b.set_min(10, -5);
    EXPECT_EQ(b.min(0), 10);
    EXPECT_EQ(b.min(1), -5);
    EXPECT_EQ(b.dim(0).max(), 13);
    EXPECT_EQ(b.dim(1).max(), -3);
    EXPECT_EQ(b(10, -5), 1);
    EXPECT_EQ(b(13, -3), 2);
    EXPECT_EQ(&b(10, -5), b.data());

    b.set_min({1});  // only the first dimension
    EXPECT_EQ(b.min(0), 1);
    EXPECT_EQ(b.min(1), -5);
    EXPECT_EQ(b(1, -5), 1);
    EXPECT_THROW(b.set_min(1, 2, 3), std::invalid_argument);
}

TEST(Buffer, Translate) {
    Buffer<int> b(4, 3);
    b(1, 1) = 8;
    b.translate({2, 3});
    EXPECT_EQ(b.min(0), 2);
    EXPECT_EQ(b.min(1), 3);
    EXPECT_EQ(b(3, 4), 8);
    b.translate({-2});
    EXPECT_EQ(b.min(0), 0);
    EXPECT_EQ(b(1, 4), 8);
    EXPECT_THROW(b.translate({1, 1, 1}), std::invalid_argument);
}

TEST(Buffer, DimensionIsIterable) {
    Buffer<int> b(3, 2);
    b.set_min(-1, 0);
    std::vector<int> xs;
    for (int x : b.dim(0)) {
        xs.push_back(x);
    }
    EXPECT_EQ(xs, (std::vector<int>{-1, 0, 1}));
}

TEST(Buffer, CopiesShareMemoryAndShape) {
    Buffer<float> a(4, 4);
    Buffer<float> b = a;
    b(1, 2) = 3.5f;
    EXPECT_EQ(a(1, 2), 3.5f);
    EXPECT_EQ(a.data(), b.data());
    EXPECT_EQ(a.raw_buffer(), b.raw_buffer());
    b.set_min(1, 1);
    EXPECT_EQ(a.min(0), 1);
    EXPECT_EQ(a(2, 3), 3.5f);
}

TEST(Buffer, MemoryOutlivesTheOriginalHandle) {
    Buffer<int> kept;
    loom_buffer_t *raw = nullptr;
    {
        Buffer<int> original(8);
        original(7) = 77;
        raw = original.raw_buffer();
        kept = original;
    }
    EXPECT_EQ(kept(7), 77);
    EXPECT_EQ(kept.raw_buffer(), raw);

    Buffer<int> moved = std::move(kept);
    EXPECT_FALSE(kept.defined());  // NOLINT(bugprone-use-after-move): moved-from is undefined
    EXPECT_EQ(moved(7), 77);
}

TEST(Buffer, CopyIsDeepAndDense) {
    Buffer<int> a(3, 2);
    a.set_min(5, 6);
    a(6, 7) = 4;
    Buffer<int> c = a.copy();
    EXPECT_NE(c.data(), a.data());
    EXPECT_EQ(c.min(0), 5);
    EXPECT_EQ(c.min(1), 6);
    EXPECT_EQ(c(6, 7), 4);
    c(6, 7) = 9;
    EXPECT_EQ(a(6, 7), 4);
    c.set_min(0, 0);
    EXPECT_EQ(a.min(0), 5);
}

TEST(Buffer, CopyOfAStridedViewIsDense) {
    std::vector<int> storage(20, 0);
    loom_dimension_t dims[2] = {{0, 3, 2, 0}, {0, 2, 10, 0}};  // every other element, rows of 10
    loom_buffer_t raw{};
    raw.host = reinterpret_cast<uint8_t *>(storage.data());
    raw.type = loom_type_of<int>();
    raw.dimensions = 2;
    raw.dim = dims;
    Buffer<int> view(raw);
    view(2, 1) = 6;
    EXPECT_EQ(storage[14], 6);
    EXPECT_EQ(view.size_in_bytes(), 15 * sizeof(int));
    Buffer<int> dense = view.copy();
    EXPECT_EQ(dense.stride(0), 1);
    EXPECT_EQ(dense.stride(1), 3);
    EXPECT_EQ(dense(2, 1), 6);
    EXPECT_EQ(dense.size_in_bytes(), 6 * sizeof(int));
}

TEST(Buffer, CopyFromCopiesOnlyTheOverlap) {
    Buffer<int> src(4, 4);
    src.for_each_element([&](int x, int y) { src(x, y) = 10 * y + x; });
    src.set_min(2, 2);  // src covers [2,5] x [2,5]

    Buffer<int> dst(4, 4);  // dst covers [0,3] x [0,3]
    dst.fill(-1);
    dst.copy_from(src);
    dst.for_each_element([&](int x, int y) {
        if (x >= 2 && y >= 2) {
            EXPECT_EQ(dst(x, y), src(x, y)) << x << "," << y;
        } else {
            EXPECT_EQ(dst(x, y), -1) << x << "," << y;
        }
    });
}

TEST(Buffer, CopyFromDisjointIsANoOp) {
    Buffer<int> src(2, 2);
    src.fill(5);
    src.set_min(10, 10);
    Buffer<int> dst(2, 2);
    dst.copy_from(src);
    EXPECT_EQ(dst(1, 1), 0);
}

TEST(Buffer, CopyFromChecksTypeAndRank) {
    Buffer<int> dst(2, 2);
    EXPECT_THROW(dst.copy_from(Buffer<float>(2, 2)), std::invalid_argument);
    EXPECT_THROW(dst.copy_from(Buffer<int>(2)), std::invalid_argument);
    EXPECT_THROW(dst.copy_from(Buffer<int>()), std::invalid_argument);
    Buffer<void> untyped(loom_type_of<int>(), {2, 2});
    EXPECT_NO_THROW(dst.copy_from(untyped));
}

TEST(Buffer, Fill) {
    Buffer<uint16_t> b(5, 3);
    b.fill(513);
    int count = 0;
    b.for_each_element([&](const std::vector<int> &c) {
        EXPECT_EQ(b(c), 513);
        count++;
    });
    EXPECT_EQ(count, 15);
}

TEST(Buffer, ForEachElementVisitsInOrder) {
    Buffer<int> b(2, 3);
    b.set_min(1, -1);
    std::vector<std::vector<int>> seen;
    b.for_each_element([&](const std::vector<int> &c) { seen.push_back(c); });
    std::vector<std::vector<int>> expected = {{1, -1}, {2, -1}, {1, 0}, {2, 0}, {1, 1}, {2, 1}};
    EXPECT_EQ(seen, expected);
    EXPECT_THROW(b.for_each_element([](int) {}), std::invalid_argument);
}

TEST(Buffer, BoolElementsOccupyOneByte) {
    Buffer<bool> b(10);
    EXPECT_TRUE(type_is(b.type(), loom_type_uint, 1));
    EXPECT_EQ(b.size_in_bytes(), 10u);
    b(3) = true;
    EXPECT_EQ(reinterpret_cast<uint8_t *>(b.data())[3], 1);
}

TEST(Buffer, VoidBufferKnowsItsTypeAtRunTime) {
    Buffer<> untyped(loom_type_of<uint8_t>(), {4, 4});
    EXPECT_TRUE(same_type(untyped.type(), loom_type_of<uint8_t>()));
    EXPECT_EQ(untyped.size_in_bytes(), 16u);
    static_assert(std::is_same_v<decltype(untyped.data()), void *>, "void buffers hand out void*");

    Buffer<uint8_t> typed = untyped;  // same elements: fine
    typed(1, 1) = 200;
    EXPECT_EQ(static_cast<uint8_t *>(untyped.data())[5], 200);

    Buffer<void> back = typed;
    EXPECT_EQ(back.raw_buffer(), untyped.raw_buffer());
    EXPECT_EQ(back.copy().size_in_bytes(), 16u);
}

TEST(Buffer, TypeMismatchThrows) {
    Buffer<void> untyped(loom_type_of<float>(), {4});
    EXPECT_THROW(Buffer<int32_t> wrong(untyped), std::invalid_argument);
    EXPECT_THROW(Buffer<double> wrong = untyped, std::invalid_argument);
    EXPECT_THROW((Buffer<int32_t>(Buffer<float>(3))), std::invalid_argument);
    EXPECT_THROW((Buffer<int32_t>(loom_type_of<float>(), {3})), std::invalid_argument);
    EXPECT_NO_THROW(Buffer<float> right(untyped));
    EXPECT_NO_THROW(Buffer<float> from_undefined = Buffer<void>());

    Buffer<int32_t> target;
    EXPECT_THROW(target = untyped, std::invalid_argument);
    EXPECT_FALSE(target.defined());
}

TEST(Buffer, ConstElements) {
    Buffer<int> b(3);
    b(1) = 4;
    Buffer<const int> view = b;
    static_assert(std::is_same_v<decltype(view(1)), const int &>, "const elements stay const");
    EXPECT_EQ(view(1), 4);
    Buffer<int> copy = view.copy();
    copy(1) = 5;
    EXPECT_EQ(b(1), 4);
    static_assert(!std::is_convertible_v<Buffer<const int>, Buffer<int>>, "const is not dropped");
}

TEST(Buffer, WrapsExternalMemory) {
    std::vector<float> storage(12, 0.0f);
    {
        Buffer<float> b(storage.data(), {4, 3});
        EXPECT_EQ(b.data(), storage.data());
        EXPECT_EQ(b.stride(1), 4);
        b(3, 2) = 1.5f;
        b.fill(2.0f);
        b(1, 0) = 7.0f;
    }  // does not free storage
    EXPECT_EQ(storage[1], 7.0f);
    EXPECT_EQ(storage[11], 2.0f);

    Buffer<void> untyped(loom_type_of<float>(), storage.data(), {12});
    EXPECT_EQ(untyped.data(), static_cast<void *>(storage.data()));
    Buffer<float> typed = untyped;
    EXPECT_EQ(typed(1), 7.0f);
}

TEST(Buffer, WrapsARawBuffer) {
    std::vector<int> storage = {1, 2, 3, 4, 5, 6};
    loom_dimension_t dims[2] = {{10, 3, 1, 0}, {20, 2, 3, 0}};
    loom_buffer_t raw{};
    raw.host = reinterpret_cast<uint8_t *>(storage.data());
    raw.type = loom_type_of<int>();
    raw.dimensions = 2;
    raw.dim = dims;
    raw.flags = loom_buffer_flag_device_dirty;

    Buffer<int> b(raw);
    EXPECT_NE(b.raw_buffer(), &raw);
    EXPECT_EQ(b.min(0), 10);
    EXPECT_EQ(b.min(1), 20);
    EXPECT_EQ(std::as_const(b)(12, 21), 6);  // device-dirty: only const reads
    EXPECT_TRUE(b.device_dirty());
    b.set_min(0, 0);  // the shape is a copy
    EXPECT_EQ(dims[0].min, 10);

    EXPECT_THROW(Buffer<float> wrong(raw), std::invalid_argument);
    Buffer<void> untyped(raw);
    EXPECT_TRUE(same_type(untyped.type(), loom_type_of<int>()));
}

TEST(Buffer, RawBufferDescribesTheBuffer) {
    Buffer<int16_t> b(6, 5);
    b.set_min(1, 2);
    loom_buffer_t *raw = b;  // implicit conversion
    ASSERT_EQ(raw, b.raw_buffer());
    EXPECT_EQ(raw->dimensions, 2);
    EXPECT_EQ(raw->dim[0].min, 1);
    EXPECT_EQ(raw->dim[1].extent, 5);
    EXPECT_EQ(raw->dim[1].stride, 6);
    EXPECT_EQ(raw->host, reinterpret_cast<uint8_t *>(b.data()));
    EXPECT_TRUE(same_type(raw->type, loom_type_of<int16_t>()));
    EXPECT_EQ(raw->device, 0u);
    EXPECT_EQ(raw->device_interface, nullptr);

    // Generated code writing through the raw buffer is seen by the handle.
    reinterpret_cast<int16_t *>(raw->host)[6 + 1] = 99;
    EXPECT_EQ(b(2, 3), 99);
}

TEST(Buffer, DirtyBits) {
    Buffer<float> b(2);
    EXPECT_FALSE(b.host_dirty());
    EXPECT_FALSE(b.device_dirty());
    b.set_host_dirty(true);
    EXPECT_TRUE(b.host_dirty());
    EXPECT_TRUE(b.raw_buffer()->flags & loom_buffer_flag_host_dirty);
    Buffer<float> alias = b;
    EXPECT_TRUE(alias.host_dirty());
    b.set_host_dirty(false);
    EXPECT_FALSE(alias.host_dirty());
    b.set_device_dirty();
    EXPECT_TRUE(b.device_dirty());
    EXPECT_FALSE(b.host_dirty());
}

}  // namespace
