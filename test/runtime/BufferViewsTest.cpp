// Tests of loom::Runtime::Buffer's views and helpers (Halide's cropped,
// sliced, transposed, embedded, make_interleaved, for_each_value, ...), each
// against a plain C++ expectation.

#include "loom/runtime/Buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

using loom::Runtime::Buffer;
using loom::Runtime::loom_type_of;

// im(x, y) = x + 100 * y over an 8 x 6 buffer.
Buffer<int> ramp() {
    Buffer<int> im(8, 6);
    for (int y = 0; y < 6; y++) {
        for (int x = 0; x < 8; x++) im(x, y) = x + 100 * y;
    }
    return im;
}

TEST(BufferViews, CroppedSharesMemoryAndKeepsCoordinates) {
    Buffer<int> im = ramp();
    Buffer<int> roi = im.cropped(0, 2, 4);
    EXPECT_EQ(roi.dimensions(), 2);
    EXPECT_EQ(roi.min(0), 2);
    EXPECT_EQ(roi.extent(0), 4);
    EXPECT_EQ(roi.extent(1), 6);
    EXPECT_EQ(roi(2, 0), 2);
    EXPECT_EQ(roi(5, 5), 505);
    EXPECT_EQ(&roi(3, 1), &im(3, 1));
    roi(4, 2) = -1;
    EXPECT_EQ(im(4, 2), -1);
    // The source keeps its shape.
    EXPECT_EQ(im.min(0), 0);
    EXPECT_EQ(im.extent(0), 8);
}

TEST(BufferViews, CroppedRegion) {
    Buffer<int> im = ramp();
    Buffer<int> roi = im.cropped({{2, 4}, {1, 3}});
    EXPECT_EQ(roi.min(0), 2);
    EXPECT_EQ(roi.extent(0), 4);
    EXPECT_EQ(roi.min(1), 1);
    EXPECT_EQ(roi.extent(1), 3);
    int count = 0;
    roi.for_each_element([&](int x, int y) {
        EXPECT_EQ(roi(x, y), x + 100 * y);
        count++;
    });
    EXPECT_EQ(count, 12);
    EXPECT_EQ(roi.data(), &im(2, 1));
}

TEST(BufferViews, ViewOutlivesSource) {
    Buffer<int> roi;
    {
        Buffer<int> im = ramp();
        roi = im.cropped({{1, 2}, {4, 2}});
    }
    EXPECT_EQ(roi(1, 4), 401);
    EXPECT_EQ(roi(2, 5), 502);
}

TEST(BufferViews, CropInPlaceChangesEveryCopy) {
    Buffer<int> im = ramp();
    Buffer<int> same = im;  // copies share one shape in Loom
    im.crop(1, 2, 3);
    EXPECT_EQ(same.min(1), 2);
    EXPECT_EQ(same.extent(1), 3);
    EXPECT_EQ(same(7, 4), 407);
    im.crop({{3, 2}});
    EXPECT_EQ(im.min(0), 3);
    EXPECT_EQ(im(4, 2), 204);
}

TEST(BufferViews, CropErrors) {
    Buffer<int> im = ramp();
    EXPECT_THROW(im.cropped(2, 0, 1), std::out_of_range);    // no dimension 2
    EXPECT_THROW(im.cropped(-1, 0, 1), std::out_of_range);
    EXPECT_THROW(im.cropped(0, -1, 3), std::out_of_range);   // starts before the min
    EXPECT_THROW(im.cropped(0, 6, 3), std::out_of_range);    // ends after the max
    EXPECT_THROW(im.cropped(0, 0, -1), std::out_of_range);
    EXPECT_THROW(im.cropped({{0, 1}, {0, 1}, {0, 1}}), std::invalid_argument);
    // A failed in-place crop leaves the shape alone.
    EXPECT_THROW(im.crop({{1, 2}, {5, 9}}), std::out_of_range);
    EXPECT_EQ(im.min(0), 0);
    EXPECT_EQ(im.extent(0), 8);
    EXPECT_THROW(Buffer<int>().cropped(0, 0, 1), std::invalid_argument);
    // Crops cannot grow back.
    Buffer<int> roi = im.cropped(0, 2, 2);
    EXPECT_THROW(roi.cropped(0, 0, 8), std::out_of_range);
    try {
        im.cropped(0, 6, 3);
        FAIL();
    } catch (const std::out_of_range &e) {
        EXPECT_NE(std::string(e.what()).find("[6, 8]"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("[0, 7]"), std::string::npos) << e.what();
    }
}

TEST(BufferViews, Translated) {
    Buffer<int> im = ramp();
    Buffer<int> moved = im.translated(1, 10);
    EXPECT_EQ(moved.min(0), 0);
    EXPECT_EQ(moved.min(1), 10);
    EXPECT_EQ(moved(3, 12), 203);
    EXPECT_EQ(im.min(1), 0);
    Buffer<int> both = im.translated({-1, -2});
    EXPECT_EQ(both(-1, -2), 0);
    EXPECT_EQ(both(6, 3), 507);
    im.translate(0, 5);  // Halide's translate(d, delta)
    EXPECT_EQ(im.min(0), 5);
    EXPECT_EQ(im.min(1), 0);
    EXPECT_THROW(im.translated(2, 1), std::out_of_range);
    EXPECT_THROW(im.translate(2, 1), std::out_of_range);
    EXPECT_THROW(im.translated({1, 1, 1}), std::invalid_argument);
}

TEST(BufferViews, Transposed) {
    Buffer<int> im = ramp();
    Buffer<int> t = im.transposed(0, 1);
    EXPECT_EQ(t.extent(0), 6);
    EXPECT_EQ(t.extent(1), 8);
    EXPECT_EQ(t.stride(0), 8);
    EXPECT_EQ(t.stride(1), 1);
    for (int y = 0; y < 6; y++) {
        for (int x = 0; x < 8; x++) EXPECT_EQ(t(y, x), im(x, y));
    }
    EXPECT_THROW(im.transposed(0, 2), std::out_of_range);
}

TEST(BufferViews, TransposedByOrder) {
    Buffer<int> b(2, 3, 4);
    b.fill([](int x, int y, int z) { return x + 10 * y + 100 * z; });
    // Dimension i of b becomes dimension order[i] of the view.
    Buffer<int> p = b.transposed({2, 0, 1});
    EXPECT_EQ(p.extent(0), 3);
    EXPECT_EQ(p.extent(1), 4);
    EXPECT_EQ(p.extent(2), 2);
    b.for_each_element([&](int x, int y, int z) { EXPECT_EQ(p(y, z, x), b(x, y, z)); });
    // A sequence of swaps gives the same view.
    Buffer<int> q = b.transposed(0, 1);
    q.transpose(1, 2);
    for (int d = 0; d < 3; d++) EXPECT_EQ(q.stride(d), p.stride(d));
    EXPECT_THROW(b.transposed({0, 1}), std::invalid_argument);
    EXPECT_THROW(b.transposed({0, 1, 1}), std::invalid_argument);
    EXPECT_THROW(b.transposed({0, 1, 3}), std::invalid_argument);
}

TEST(BufferViews, Sliced) {
    Buffer<int> im = ramp();
    Buffer<int> row = im.sliced(1, 3);
    EXPECT_EQ(row.dimensions(), 1);
    EXPECT_EQ(row.extent(0), 8);
    for (int x = 0; x < 8; x++) EXPECT_EQ(row(x), 300 + x);
    Buffer<int> column = im.sliced(0, 5);
    EXPECT_EQ(column.dimensions(), 1);
    EXPECT_EQ(column.stride(0), 8);
    for (int y = 0; y < 6; y++) EXPECT_EQ(column(y), 100 * y + 5);
    Buffer<int> first = im.sliced(1);  // at the min
    EXPECT_EQ(first(7), 7);
    Buffer<int> scalar = row.sliced(0, 2);
    EXPECT_EQ(scalar.dimensions(), 0);
    EXPECT_EQ(scalar(), 302);
    EXPECT_THROW(im.sliced(2, 0), std::out_of_range);
    EXPECT_THROW(im.sliced(1, 6), std::out_of_range);
    EXPECT_THROW(im.sliced(1, -1), std::out_of_range);
    EXPECT_THROW(scalar.sliced(0, 0), std::out_of_range);
    im.slice(0, 2);
    EXPECT_EQ(im.dimensions(), 1);
    EXPECT_EQ(im(4), 402);
}

TEST(BufferViews, EmbeddedAndAddDimension) {
    Buffer<int> im = ramp();
    Buffer<int> e = im.embedded(1, 17);
    EXPECT_EQ(e.dimensions(), 3);
    EXPECT_EQ(e.min(1), 17);
    EXPECT_EQ(e.extent(1), 1);
    im.for_each_element([&](int x, int y) { EXPECT_EQ(&e(x, 17, y), &im(x, y)); });
    Buffer<int> outer = im.embedded(2);
    EXPECT_EQ(outer.min(2), 0);
    EXPECT_EQ(outer.stride(2), 48);
    EXPECT_THROW(im.embedded(3), std::out_of_range);
    EXPECT_THROW(im.embedded(-1), std::out_of_range);
    // embedded is the inverse of sliced.
    Buffer<int> back = e.sliced(1, 17);
    im.for_each_element([&](int x, int y) { EXPECT_EQ(back(x, y), im(x, y)); });

    Buffer<int> b(3, 2);
    b.add_dimension();
    EXPECT_EQ(b.dimensions(), 3);
    EXPECT_EQ(b.min(2), 0);
    EXPECT_EQ(b.extent(2), 1);
    EXPECT_EQ(b.stride(2), 6);
    b.add_dimension_with_stride(100);
    EXPECT_EQ(b.stride(3), 100);
    Buffer<int> s = Buffer<int>::make_scalar();
    s.add_dimension();
    EXPECT_EQ(s.stride(0), 1);
}

TEST(BufferViews, ViewsOfViews) {
    Buffer<int> im = ramp();
    Buffer<int> v = im.cropped({{1, 6}, {1, 4}}).transposed(0, 1).sliced(0, 3);
    EXPECT_EQ(v.dimensions(), 1);
    EXPECT_EQ(v.min(0), 1);
    for (int x = 1; x < 7; x++) EXPECT_EQ(v(x), 300 + x);
}

TEST(BufferMake, Scalar) {
    Buffer<float> s = Buffer<float>::make_scalar();
    EXPECT_EQ(s.dimensions(), 0);
    EXPECT_EQ(s(), 0.0f);
    s() = 2.5f;
    EXPECT_EQ(s(), 2.5f);
    double value = 7.0;
    Buffer<double> wrapped = Buffer<double>::make_scalar(&value);
    EXPECT_EQ(wrapped(), 7.0);
    wrapped() = 8.0;
    EXPECT_EQ(value, 8.0);
    Buffer<> typed = Buffer<>::make_scalar(loom_type_of<int16_t>());
    EXPECT_EQ(typed.type().bits, 16);
    EXPECT_EQ(typed.dimensions(), 0);
}

TEST(BufferMake, Interleaved) {
    Buffer<uint8_t> im = Buffer<uint8_t>::make_interleaved(5, 4, 3);
    EXPECT_EQ(im.width(), 5);
    EXPECT_EQ(im.height(), 4);
    EXPECT_EQ(im.channels(), 3);
    EXPECT_EQ(im.stride(2), 1);
    EXPECT_EQ(im.stride(0), 3);
    EXPECT_EQ(im.stride(1), 15);
    im.fill([](int x, int y, int c) { return static_cast<uint8_t>(x + 10 * y + 100 * c); });
    // Channels are adjacent in memory.
    const uint8_t *p = im.data();
    EXPECT_EQ(p[0], 0);
    EXPECT_EQ(p[1], 100);
    EXPECT_EQ(p[2], 200);
    EXPECT_EQ(p[3], 1);
    EXPECT_EQ(p[15], 10);

    std::vector<uint16_t> storage(2 * 2 * 4);
    for (size_t i = 0; i < storage.size(); i++) storage[i] = static_cast<uint16_t>(i);
    Buffer<uint16_t> wrapped = Buffer<uint16_t>::make_interleaved(storage.data(), 2, 2, 4);
    EXPECT_EQ(wrapped(1, 0, 2), 6);
    EXPECT_EQ(wrapped(0, 1, 3), 11);
    Buffer<> untyped = Buffer<>::make_interleaved(loom_type_of<float>(), 2, 2, 3);
    EXPECT_EQ(untyped.stride(2), 1);
}

TEST(BufferMake, StorageOrder) {
    Buffer<int> b({4, 3, 2}, {1, 2, 0});
    EXPECT_EQ(b.stride(1), 1);
    EXPECT_EQ(b.stride(2), 3);
    EXPECT_EQ(b.stride(0), 6);
    EXPECT_THROW(Buffer<int>({4, 3}, {0, 0}), std::invalid_argument);
    EXPECT_THROW(Buffer<int>({4, 3}, {0}), std::invalid_argument);
}

TEST(BufferMake, WithShapeOf) {
    Buffer<uint8_t> interleaved = Buffer<uint8_t>::make_interleaved(4, 3, 3);
    interleaved.set_min(2, -1, 0);
    Buffer<float> same = Buffer<float>::make_with_shape_of(interleaved);
    for (int d = 0; d < 3; d++) {
        EXPECT_EQ(same.min(d), interleaved.min(d));
        EXPECT_EQ(same.extent(d), interleaved.extent(d));
        EXPECT_EQ(same.stride(d), interleaved.stride(d));
    }
    // Holes are compacted away; the order of strides is kept.
    Buffer<int> im = ramp();
    Buffer<int> t = im.cropped({{1, 3}, {0, 4}}).transposed(0, 1);
    Buffer<int> dense = Buffer<int>::make_with_shape_of(t);
    EXPECT_EQ(dense.stride(1), 1);
    EXPECT_EQ(dense.stride(0), 3);
    EXPECT_EQ(dense.min(1), 1);
    EXPECT_TRUE(dense.all_equal(0));
    Buffer<> untyped = Buffer<>::make_with_shape_of(interleaved);
    EXPECT_EQ(untyped.type().bits, 8);
    EXPECT_THROW(Buffer<int>::make_with_shape_of(Buffer<int>()), std::invalid_argument);
}

TEST(BufferCopy, KeepsLayoutAndConverts) {
    Buffer<uint8_t> planar(4, 3, 3);
    planar.set_min(1, 2, 0);
    planar.fill([](int x, int y, int c) { return static_cast<uint8_t>(x + 10 * y + 50 * c); });
    Buffer<uint8_t> interleaved = planar.copy_to_interleaved();
    EXPECT_EQ(interleaved.stride(2), 1);
    EXPECT_EQ(interleaved.min(0), 1);
    EXPECT_EQ(interleaved.min(1), 2);
    planar.for_each_element([&](int x, int y, int c) { EXPECT_EQ(interleaved(x, y, c), planar(x, y, c)); });
    Buffer<uint8_t> copied = interleaved.copy();  // keeps the interleaved layout
    EXPECT_EQ(copied.stride(2), 1);
    EXPECT_NE(copied.data(), interleaved.data());
    Buffer<uint8_t> back = interleaved.copy_to_planar();
    EXPECT_EQ(back.stride(0), 1);
    EXPECT_EQ(back.stride(2), 12);
    planar.for_each_element([&](int x, int y, int c) { EXPECT_EQ(back(x, y, c), planar(x, y, c)); });
    EXPECT_THROW(Buffer<int>(4, 4).copy_to_interleaved(), std::invalid_argument);
    EXPECT_THROW(Buffer<int>().copy_to_planar(), std::invalid_argument);
}

TEST(BufferWrap, Strided) {
    // Every other int of a 4 x 3 block with a row pitch of 10.
    std::vector<int> storage(40);
    for (size_t i = 0; i < storage.size(); i++) storage[i] = static_cast<int>(i);
    const loom_dimension_t shape[] = {{0, 4, 2, 0}, {5, 3, 10, 0}};
    Buffer<int> b(storage.data(), 2, shape);
    EXPECT_EQ(b(0, 5), 0);
    EXPECT_EQ(b(3, 5), 6);
    EXPECT_EQ(b(1, 7), 22);
    EXPECT_EQ(b.size_in_bytes(), sizeof(int) * 27);
    Buffer<int> v(storage.data(), std::vector<loom_dimension_t>{{0, 10, 1, 0}, {0, 4, 10, 0}});
    EXPECT_EQ(v(9, 3), 39);
    // A negative stride reads backwards.
    const loom_dimension_t reversed[] = {{0, 5, -1, 0}};
    Buffer<int> r(&storage[4], 1, reversed);
    EXPECT_EQ(r(0), 4);
    EXPECT_EQ(r(4), 0);
    Buffer<int> dense_copy = b.copy();
    EXPECT_EQ(dense_copy.stride(0), 1);
    EXPECT_EQ(dense_copy.stride(1), 4);
    EXPECT_EQ(dense_copy(1, 7), 22);
    Buffer<> untyped(loom_type_of<int>(), storage.data(), 2, shape);
    EXPECT_EQ(untyped.dim(1).min(), 5);
    const loom_dimension_t negative[] = {{0, -1, 1, 0}};
    EXPECT_THROW(Buffer<int>(storage.data(), 1, negative), std::invalid_argument);
    EXPECT_THROW(Buffer<int>(storage.data(), 2, nullptr), std::invalid_argument);
    Buffer<int> variadic(storage.data(), 5, 8);
    EXPECT_EQ(variadic(4, 7), 39);
}

int allocations = 0;
void *counting_malloc(size_t bytes) {
    allocations++;
    return std::malloc(bytes);
}
void counting_free(void *p) {
    allocations--;
    std::free(p);
}

TEST(BufferMemory, AllocateAndDeallocate) {
    Buffer<int> b(static_cast<int *>(nullptr), std::vector<int>{4, 3});
    EXPECT_EQ(b.data(), nullptr);
    b.allocate();
    ASSERT_NE(b.data(), nullptr);
    EXPECT_TRUE(b.all_equal(0));
    b(3, 2) = 5;
    EXPECT_EQ(b(3, 2), 5);
    b.deallocate();
    EXPECT_EQ(b.data(), nullptr);
    EXPECT_EQ(b.extent(0), 4);  // the shape stays
    {
        Buffer<float> c(static_cast<float *>(nullptr), std::vector<int>{16});
        c.allocate(counting_malloc, counting_free);
        EXPECT_EQ(allocations, 1);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data()) % 64, 0u);
        Buffer<float> view = c.cropped(0, 4, 4);
        c.deallocate();
        EXPECT_EQ(allocations, 1);  // the view still holds it
        view(5) = 1.0f;
    }
    EXPECT_EQ(allocations, 0);
    // Wrapped memory is not the buffer's to drop.
    int x = 3;
    Buffer<int> wrapped(&x, std::vector<int>{1});
    wrapped.deallocate();
    EXPECT_EQ(wrapped.data(), &x);
    // allocate() on a transposed (non-planar) shape keeps its strides.
    Buffer<int> t = ramp().transposed(0, 1);
    t.allocate();
    EXPECT_EQ(t.stride(1), 1);
    EXPECT_TRUE(t.all_equal(0));
    EXPECT_THROW(Buffer<int>().allocate(), std::invalid_argument);
}

// Halide's allocate(allocate_fn, ...) leaves the memory as allocate_fn
// returns it; only Loom's own allocator zeroes.
void *malloc_filled_with_0x5a(size_t bytes) {
    void *p = std::malloc(bytes);
    if (p) std::memset(p, 0x5a, bytes);
    return p;
}

TEST(BufferMemory, CustomAllocatorMemoryIsNotZeroed) {
    Buffer<uint8_t> b(static_cast<uint8_t *>(nullptr), std::vector<int>{64, 3});
    b.allocate(malloc_filled_with_0x5a, std::free);
    EXPECT_TRUE(b.all_equal(0x5a));
    Buffer<uint8_t> like = Buffer<uint8_t>::make_with_shape_of(b, malloc_filled_with_0x5a, std::free);
    EXPECT_TRUE(like.all_equal(0x5a));
    b.allocate();
    EXPECT_TRUE(b.all_equal(0));
    EXPECT_TRUE(Buffer<uint8_t>::make_with_shape_of(like).all_equal(0));
}

TEST(BufferElements, FillWithFunction) {
    Buffer<int> b(4, 3);
    b.fill([](int x, int y) { return x * y; });
    b.for_each_element([&](int x, int y) { EXPECT_EQ(b(x, y), x * y); });
    b.fill([](const std::vector<int> &at) { return at[0] - at[1]; });
    EXPECT_EQ(b(0, 2), -2);
    b.fill(9).fill([](int x, int) { return x; });  // fill returns the buffer
    EXPECT_EQ(b(3, 1), 3);
    EXPECT_THROW(b.fill([](int x) { return x; }), std::invalid_argument);
    Buffer<int> cropped = b.cropped(0, 1, 2);
    cropped.fill([](int, int) { return 42; });
    EXPECT_EQ(b(0, 0), 0);
    EXPECT_EQ(b(1, 0), 42);
    EXPECT_EQ(b(3, 0), 3);
}

TEST(BufferElements, ForEachValue) {
    Buffer<float> a(4, 2), b(4, 2);
    a.fill([](int x, int y) { return float(x + y); });
    b.fill(0.5f);
    a.for_each_value([](float &x, float y) { x *= y; }, b);
    a.for_each_element([&](int x, int y) { EXPECT_EQ(a(x, y), (x + y) * 0.5f); });
    // Three buffers, of different types; a transposed one pairs by coordinate.
    Buffer<int> ints(2, 4);
    Buffer<int> t = ints.transposed(0, 1);
    Buffer<double> out(4, 2);
    out.for_each_value([](double &o, float x, int &i) { o = x; i = 7; }, a, t);
    EXPECT_EQ(out(3, 1), 2.0);
    EXPECT_TRUE(ints.all_equal(7));
    int calls = 0;
    const Buffer<float> &ca = a;
    ca.for_each_value([&](const float &) { calls++; });
    EXPECT_EQ(calls, 8);
    // Rank 0.
    Buffer<int> s = Buffer<int>::make_scalar();
    s.for_each_value([](int &v) { v = 3; });
    EXPECT_EQ(s(), 3);
    EXPECT_THROW(a.for_each_value([](float &, float) {}, Buffer<float>(4, 3)), std::invalid_argument);
    EXPECT_THROW(a.for_each_value([](float &, float) {}, b.translated(0, 1)), std::invalid_argument);
    EXPECT_THROW(a.for_each_value([](float &, float) {}, Buffer<float>()), std::invalid_argument);
}

TEST(BufferElements, AllEqualAndContains) {
    Buffer<int> b(3, 2);
    EXPECT_TRUE(b.all_equal(0));
    b(2, 1) = 1;
    EXPECT_FALSE(b.all_equal(0));
    EXPECT_TRUE(b.cropped(0, 0, 2).all_equal(0));
    EXPECT_TRUE(Buffer<int>(0, 4).all_equal(5));  // empty
    b.set_min(-1, 4);
    EXPECT_TRUE(b.contains(-1, 4));
    EXPECT_TRUE(b.contains(1, 5));
    EXPECT_FALSE(b.contains(2, 5));
    EXPECT_FALSE(b.contains(0, 3));
    EXPECT_TRUE(b.contains(0));  // only dimension 0 tested
    EXPECT_TRUE(b.contains(std::vector<int>{1, 4}));
    EXPECT_FALSE(Buffer<int>().contains(0));
    EXPECT_THROW(b.contains(0, 4, 0), std::invalid_argument);
}

TEST(BufferElements, As) {
    Buffer<int> b(3);
    b(1) = 4;
    Buffer<> untyped = b;
    Buffer<int> &typed = untyped.as<int>();
    EXPECT_EQ(typed(1), 4);
    typed(2) = 9;
    EXPECT_EQ(b(2), 9);
    const Buffer<const int> &c = b.as<const int>();
    EXPECT_EQ(c(2), 9);
    EXPECT_EQ(b.as_const()(1), 4);
    Buffer<> &back = b.as<void>();
    EXPECT_EQ(back.dimensions(), 1);
    Buffer<int> moved = Buffer<>(b).as<int>();
    EXPECT_EQ(moved(1), 4);
    EXPECT_THROW(untyped.as<float>(), std::invalid_argument);    // same size, other type
    EXPECT_THROW(untyped.as<int16_t>(), std::invalid_argument);  // other size
    try {
        untyped.as<uint8_t>();
        FAIL();
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("uint8"), std::string::npos) << e.what();
    }
}

TEST(BufferViews, DirtyBitsFollowTheSource) {
    Buffer<int> im = ramp();
    im.set_host_dirty(false);
    Buffer<int> roi = im.cropped(0, 1, 2);
    roi(1, 1) = 3;
    EXPECT_TRUE(im.host_dirty());  // the source's device copy must be refreshed
    // A source whose device side is newer cannot be viewed or read through a view.
    im.set_host_dirty(false);
    im.set_device_dirty(true);
    EXPECT_THROW(im.cropped(0, 1, 2), std::logic_error);
    EXPECT_THROW(im.sliced(0), std::logic_error);
    EXPECT_THROW(im.transposed(0, 1), std::logic_error);
    EXPECT_THROW(roi(1, 1) = 4, std::logic_error);
    EXPECT_THROW(roi.all_equal(0), std::logic_error);
    EXPECT_THROW(roi.for_each_value([](int) {}), std::logic_error);
    EXPECT_THROW(Buffer<int>(2, 6).copy_from(roi), std::logic_error);
    im.set_device_dirty(false);
    EXPECT_NO_THROW(im.cropped(0, 1, 2));
}

}  // namespace
