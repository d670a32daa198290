// loom::Buffer's views and helpers: names, pipelines reading and writing
// views, and RuntimeErrors naming the buffer for every misuse.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "LangTestUtil.h"
#include "loom/Loom.h"

namespace {

using namespace loom;

/** The RuntimeError message fn throws, or "<no error>". */
std::string runtime_error_message(const std::function<void()> &fn) {
    try {
        fn();
    } catch (const RuntimeError &e) {
        return e.what();
    }
    return "<no error>";
}

#define EXPECT_RUNTIME_ERROR(stmt, ...)                                                         \
    do {                                                                                        \
        std::string msg_ = runtime_error_message([&] { stmt; });                                \
        EXPECT_NE(msg_, "<no error>") << "expected a RuntimeError from: " #stmt;                \
        for (const std::string &part_ : std::vector<std::string>{__VA_ARGS__}) {                \
            EXPECT_NE(msg_.find(part_), std::string::npos)                                      \
                << "message \"" << msg_ << "\" does not mention \"" << part_ << "\"";           \
        }                                                                                       \
    } while (0)

Buffer<int> ramp(const std::string &name) {
    Buffer<int> im(8, 6, name);
    im.fill([](int x, int y) { return x + 100 * y; });
    return im;
}

TEST(LoomBufferViews, NameArgumentOnConstructors) {
    Buffer<uint8_t> in(640, 480, "input");
    EXPECT_EQ(in.name(), "input");
    EXPECT_EQ(in.dimensions(), 2);
    EXPECT_EQ(in.extent(1), 480);
    Buffer<float> one(7, std::string("seven"));
    EXPECT_EQ(one.name(), "seven");
    EXPECT_EQ(one.dimensions(), 1);
    Buffer<int> unnamed(3, 4);
    EXPECT_EQ(unnamed.name()[0], 'b');
    Buffer<> typed(Int(16), 2, 2, "typed");
    EXPECT_EQ(typed.name(), "typed");
    EXPECT_EQ(typed.type(), Int(16));
    float storage[6] = {0, 1, 2, 3, 4, 5};
    Buffer<float> wrapped(storage, 3, 2, "wrapped");
    EXPECT_EQ(wrapped.name(), "wrapped");
    EXPECT_EQ(wrapped(2, 1), 5.0f);
    Buffer<float> plain_wrap(storage, 6);
    EXPECT_EQ(plain_wrap(4), 4.0f);
}

TEST(LoomBufferViews, ViewsAreBuffersWithNewNames) {
    Buffer<int> im = ramp("im");
    Buffer<int> roi = im.cropped({{2, 4}, {1, 3}});
    EXPECT_NE(roi.name(), "im");
    EXPECT_EQ(roi(3, 2), 203);
    roi(3, 2) = -5;
    EXPECT_EQ(im(3, 2), -5);
    EXPECT_EQ(im.cropped(1, 2, 2).extent(1), 2);
    EXPECT_EQ(im.translated(0, 3)(5, 1), 102);
    EXPECT_EQ(im.translated({1, 1})(1, 1), 0);
    EXPECT_EQ(im.transposed(0, 1)(4, 7), 407);
    EXPECT_EQ(im.transposed({1, 0})(4, 7), 407);
    EXPECT_EQ(im.sliced(1, 5)(2), 502);
    EXPECT_EQ(im.sliced(0)(5), 500);
    EXPECT_EQ(im.embedded(0, 9)(9, 1, 1), 101);
    Buffer<int> copy = im;
    copy.crop(0, 1, 2);
    EXPECT_EQ(im.extent(0), 2);  // copies share one shape
    EXPECT_EQ(copy.name(), "im");
    copy.translate(1, 10);
    EXPECT_EQ(im.min(1), 10);
    copy.transpose(0, 1);
    EXPECT_EQ(im.extent(0), 6);
    copy.transpose({1, 0});
    copy.slice(1, 12);  // y was translated by 10: this is row 2
    EXPECT_EQ(im.dimensions(), 1);
    EXPECT_EQ(im(2), 202);
    im.embed(1, 4);
    im.add_dimension();
    EXPECT_EQ(copy.dimensions(), 3);
    EXPECT_EQ(copy(1, 4, 0), 201);
}

TEST(LoomBufferViews, MakeHelpers) {
    Buffer<uint8_t> il = Buffer<uint8_t>::make_interleaved(4, 3, 3, "rgb");
    EXPECT_EQ(il.name(), "rgb");
    EXPECT_EQ(il.dim(2).stride(), 1);
    EXPECT_EQ(il.dim(0).stride(), 3);
    Buffer<> ilt = Buffer<>::make_interleaved(Float(32), 2, 2, 4);
    EXPECT_EQ(ilt.type(), Float(32));
    EXPECT_EQ(ilt.dim(2).stride(), 1);
    Buffer<float> s = Buffer<float>::make_scalar("s");
    EXPECT_EQ(s.dimensions(), 0);
    EXPECT_EQ(s.name(), "s");
    Buffer<> st = Buffer<>::make_scalar(UInt(16));
    EXPECT_EQ(st.type(), UInt(16));
    int value = 4;
    EXPECT_EQ(Buffer<int>::make_scalar(&value)(), 4);
    Buffer<float> like = Buffer<float>::make_with_shape_of(il, "like");
    EXPECT_EQ(like.name(), "like");
    EXPECT_EQ(like.dim(2).stride(), 1);
    EXPECT_EQ(like.type(), Float(32));
    Buffer<uint8_t> planar = il.copy_to_planar();
    EXPECT_EQ(planar.dim(0).stride(), 1);
    EXPECT_EQ(planar.copy_to_interleaved().dim(2).stride(), 1);
    Buffer<int> ordered({3, 2}, {1, 0}, "ordered");
    EXPECT_EQ(ordered.dim(1).stride(), 1);
    const loom_dimension_t shape[] = {{0, 2, 2, 0}};
    int data[4] = {1, 2, 3, 4};
    Buffer<int> strided(data, 1, shape, "strided");
    EXPECT_EQ(strided(1), 3);
    EXPECT_EQ(strided.name(), "strided");
    Buffer<int> strided_vector(data, std::vector<loom_dimension_t>{{0, 2, 2, 0}});
    EXPECT_EQ(strided_vector(1), 3);
}

TEST(LoomBufferViews, ElementHelpers) {
    Buffer<int> b(4, 3, "b");
    b.fill([](int x, int y) { return x * y; }).fill(2);
    EXPECT_TRUE(b.all_equal(2));
    b.fill([](int x, int y) { return x + y; });
    EXPECT_EQ(b(3, 2), 5);
    Buffer<int> c(4, 3, "c");
    c.for_each_value([](int &out, int in) { out = 2 * in; }, b);
    EXPECT_EQ(c(3, 2), 10);
    EXPECT_TRUE(b.contains(3, 2));
    EXPECT_FALSE(b.contains(4, 0));
    Buffer<> untyped = b;
    Buffer<int> &typed = untyped.as<int>();
    EXPECT_EQ(typed.name(), "b");
    EXPECT_EQ(typed(1, 1), 2);
    EXPECT_EQ(b.as_const()(3, 2), 5);
    b.deallocate();
    EXPECT_EQ(b.data(), nullptr);
    b.allocate();
    EXPECT_TRUE(b.all_equal(0));
}

// ---- Views in pipelines ------------------------------------------------

TEST(LoomBufferViews, CroppedOutputIsRealizedInto) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + 100 * y;
    Buffer<int> out(8, 6, "out");
    out.fill(-1);
    f.realize(out.cropped({{2, 4}, {1, 3}}));
    out.for_each_element([&](int xi, int yi) {
        const bool inside = xi >= 2 && xi < 6 && yi >= 1 && yi < 4;
        EXPECT_EQ(out(xi, yi), inside ? xi + 100 * yi : -1) << xi << ", " << yi;
    });
    // A row of out, as a 1-D output.
    Func g("g");
    g(x) = x * 3;
    f.realize(out.cropped({{2, 4}, {1, 3}}));  // again: no recompilation problem
    g.realize(out.sliced(1, 5));
    for (int xi = 0; xi < 8; xi++) EXPECT_EQ(out(xi, 5), xi * 3);
}

TEST(LoomBufferViews, TransposedAndSlicedInputsAreRead) {
    Var x("x"), y("y"), c("c");
    // A planar image (x, y, c) read as (x, c, y) through a transposed view:
    // dimension 0 keeps stride 1, as pipelines need.
    Buffer<int> im(5, 4, 3, "im");
    im.fill([](int xi, int yi, int ci) { return xi + 10 * yi + 100 * ci; });
    ImageParam in(Int(32), 3, "in");
    Func f("f");
    f(x, y, c) = in(x, y, c) * 2;
    in.set(im.transposed(1, 2));
    Buffer<int> out = f.realize({5, 3, 4});
    out.for_each_element([&](int xi, int ci, int yi) { EXPECT_EQ(out(xi, ci, yi), 2 * im(xi, yi, ci)); });

    // Channel 1 of im as a 2-D input.
    ImageParam plane(Int(32), 2, "plane");
    Func g("g");
    g(x, y) = plane(x, y) + 1;
    plane.set(im.sliced(2, 1));
    Buffer<int> green = g.realize({5, 4});
    green.for_each_element([&](int xi, int yi) { EXPECT_EQ(green(xi, yi), im(xi, yi, 1) + 1); });
    // Another slice through the same compiled pipeline.
    plane.set(im.sliced(2, 2));
    g.realize(green);
    EXPECT_EQ(green(4, 3), im(4, 3, 2) + 1);

    // A cropped, translated input read at its own coordinates.
    ImageParam part(Int(32), 2, "part");
    Func h("h");
    h(x, y) = part(x + 2, y + 1);
    part.set(im.sliced(2, 0).cropped({{2, 3}, {1, 3}}));
    Buffer<int> small = h.realize({3, 3});
    small.for_each_element([&](int xi, int yi) { EXPECT_EQ(small(xi, yi), im(xi + 2, yi + 1, 0)); });
}

TEST(LoomBufferViews, ViewUsedDirectlyInAnExpr) {
    Var x("x");
    Buffer<int> im = ramp("im");
    Buffer<int> row = im.sliced(1, 2);
    Func f("f");
    f(x) = row(x) + 1;
    Buffer<int> out = f.realize({8});
    for (int xi = 0; xi < 8; xi++) EXPECT_EQ(out(xi), 201 + xi);
}

TEST(LoomBufferViews, InterleavedInputNeedsDenseDimension0) {
    Var x("x"), y("y"), c("c");
    Buffer<uint8_t> il = Buffer<uint8_t>::make_interleaved(4, 2, 3, "il");
    ImageParam in(UInt(8), 3, "in");
    Func f("f");
    f(x, y, c) = in(x, y, c);
    in.set(il);
    EXPECT_RUNTIME_ERROR(f.realize({4, 2, 3}), "in", "stride 1");
    // copy_to_planar() gives what the pipeline needs.
    il.fill([](int xi, int yi, int ci) { return static_cast<uint8_t>(xi + 4 * yi + 10 * ci); });
    in.set(il.copy_to_planar());
    Buffer<uint8_t> out = f.realize({4, 2, 3});
    out.for_each_element([&](int xi, int yi, int ci) { EXPECT_EQ(out(xi, yi, ci), il(xi, yi, ci)); });
}

// ---- Misuse ------------------------------------------------------------

TEST(LoomBufferViews, MisuseIsARuntimeErrorNamingTheBuffer) {
    Buffer<int> im = ramp("photo");
    EXPECT_RUNTIME_ERROR(im.cropped(0, 6, 3), "Buffer photo", "cropped", "[6, 8]", "[0, 7]");
    EXPECT_RUNTIME_ERROR(im.cropped(2, 0, 1), "Buffer photo", "no dimension 2", "rank 2");
    EXPECT_RUNTIME_ERROR(im.crop({{0, 9}}), "Buffer photo", "crop");
    EXPECT_RUNTIME_ERROR(im.sliced(3, 0), "Buffer photo", "sliced", "no dimension 3");
    EXPECT_RUNTIME_ERROR(im.sliced(1, 6), "Buffer photo", "position 6");
    EXPECT_RUNTIME_ERROR(im.slice(1, -1), "Buffer photo", "slice");
    EXPECT_RUNTIME_ERROR(im.transposed(0, 2), "Buffer photo", "transpose", "no dimension 2");
    EXPECT_RUNTIME_ERROR(im.transposed({0, 0}), "Buffer photo", "exactly once");
    EXPECT_RUNTIME_ERROR(im.transpose(5, 0), "Buffer photo", "transpose");
    EXPECT_RUNTIME_ERROR(im.embedded(3), "Buffer photo", "embed");
    EXPECT_RUNTIME_ERROR(im.translated(2, 1), "Buffer photo", "translate");
    EXPECT_RUNTIME_ERROR(im.translate({1, 2, 3}), "Buffer photo", "translate");
    EXPECT_RUNTIME_ERROR(im.copy_to_interleaved(), "Buffer photo", "3 dimensions");
    EXPECT_RUNTIME_ERROR(im.contains(0, 0, 0), "Buffer photo", "contains");
    EXPECT_RUNTIME_ERROR(im.fill([](int x) { return x; }), "Buffer photo", "callback takes 1");
    EXPECT_RUNTIME_ERROR(im.for_each_value([](int &, int) {}, Buffer<int>(3, 3)), "Buffer photo", "shape");
    EXPECT_RUNTIME_ERROR(Buffer<int>({2, 2}, {0, 2}, "ordered"), "Buffer ordered", "exactly once");
    const loom_dimension_t bad[] = {{0, -2, 1, 0}};
    int data[2] = {};
    EXPECT_RUNTIME_ERROR(Buffer<int>(data, 1, bad, "wrapped"), "Buffer wrapped", "negative extent");
    EXPECT_RUNTIME_ERROR(Buffer<int>().allocate(), "undefined");
    EXPECT_RUNTIME_ERROR(Buffer<int>::make_with_shape_of(Buffer<int>()), "undefined");
    // as<> to another element type is the converting constructor's CompileError.
    Buffer<> untyped = im;
    EXPECT_COMPILE_ERROR(untyped.as<float>(), "photo", "int32", "float32");
    EXPECT_COMPILE_ERROR(untyped.as<uint8_t>(), "photo", "uint8");
    // A view of a buffer whose device side is newer would read stale data.
    im.set_host_dirty(false);
    im.set_device_dirty(true);
    EXPECT_RUNTIME_ERROR(im.cropped(0, 0, 2), "Buffer photo", "dirty on the device", "copy_to_host()");
    EXPECT_RUNTIME_ERROR(im.all_equal(0), "Buffer photo", "copy_to_host()");
    im.set_device_dirty(false);
    // Nothing above changed the buffer.
    EXPECT_EQ(im.dimensions(), 2);
    EXPECT_EQ(im.extent(0), 8);
    EXPECT_EQ(im(7, 5), 507);
}

TEST(LoomBufferViews, RankChangeAfterUseIsCaughtWhenTheShapeIsWrong) {
    Var x("x");
    Buffer<int> im = ramp("im");
    Func f("f");
    f(x) = im(x, 0);
    Buffer<int> out = f.realize({8});
    EXPECT_EQ(out(3), 3);
    im.slice(1, 0);  // the pipeline still reads im as 2-D
    EXPECT_RUNTIME_ERROR(f.realize(out), "im", "dimensions");
}

}  // namespace
