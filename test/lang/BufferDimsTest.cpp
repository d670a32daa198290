// loom::Buffer<T, Dims>: Halide's static rank on the named Buffer. Programs
// that spell the rank (Halide::Buffer<uint8_t, 2>) compile, read and realize
// as with Buffer<T>; a buffer of another rank is a RuntimeError naming the
// buffer and both dimension counts; static ranks that differ do not compile.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/Loom.h"

namespace {

using namespace loom;

static_assert(std::is_same_v<Buffer<float>, Buffer<float, AnyDims>>, "Buffer<T> is Buffer<T, AnyDims>");
static_assert(std::is_base_of_v<Runtime::Buffer<float, 2>, Buffer<float, 2>>, "a Runtime::Buffer<T, Dims>");
static_assert(!std::is_constructible_v<Buffer<int, 2>, const Buffer<int, 3> &>, "3 -> 2 does not compile");
static_assert(std::is_constructible_v<Buffer<int, 2>, const Buffer<int> &>, "AnyDims -> 2 is checked");
static_assert(std::is_constructible_v<Buffer<>, const Buffer<int, 2> &>, "to Buffer<>");
static_assert(std::is_same_v<decltype(std::declval<Buffer<int, 2>>().sliced(1, 0)), Buffer<int, 1>>, "sliced");
static_assert(std::is_same_v<decltype(std::declval<Buffer<int, 2>>().embedded(2)), Buffer<int, 3>>, "embedded");

/** The RuntimeError message fn throws, or "<no error>". */
std::string runtime_error(const std::function<void()> &fn) {
    try {
        fn();
    } catch (const RuntimeError &e) {
        return e.what();
    }
    return "<no error>";
}

void expect_rank_error(const std::string &message, const std::string &name, int actual, int expected) {
    EXPECT_NE(message.find("Buffer " + name), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(actual) + " dimensions"), std::string::npos) << message;
    EXPECT_NE(message.find("Buffer<T, " + std::to_string(expected) + ">"), std::string::npos) << message;
}

TEST(LoomBufferDims, PipelinesReadAndRealizeStaticRankBuffers) {
    Buffer<uint8_t, 2> input(8, 6, "input");
    input.fill([](int x, int y) { return static_cast<uint8_t>(x + 8 * y); });
    Var x("x"), y("y");
    Func brighter("brighter");
    brighter(x, y) = input(x, y) + 1;
    Buffer<uint8_t, 2> out = brighter.realize({8, 6});
    EXPECT_EQ(out.dimensions(), 2);
    Buffer<uint8_t, 2> into(8, 6);
    brighter.realize(into);
    Pipeline(brighter).realize(into);
    for (int j = 0; j < 6; j++) {
        for (int i = 0; i < 8; i++) {
            EXPECT_EQ(out(i, j), i + 8 * j + 1);
            EXPECT_EQ(into(i, j), i + 8 * j + 1);
        }
    }
    // Views keep working as inputs; sliced() is a Buffer<uint8_t, 1>.
    Buffer<uint8_t, 1> row = input.sliced(1, 2);
    Func from_row("from_row");
    from_row(x) = row(x) * 2;
    Buffer<uint8_t, 1> doubled = from_row.realize({8});
    EXPECT_EQ(doubled(3), 2 * (3 + 16));
    // Boundary conditions, RDoms and ImageParams take them.
    Func clamped = BoundaryConditions::repeat_edge(input);
    RDom r(input);
    Func total("total");
    total() = 0;
    total() += cast<int>(clamped(r.x - 1, r.y));
    Buffer<int, 0> sum = Buffer<int, 0>::make_scalar("sum");
    total.realize(sum);
    int expected = 0;
    for (int j = 0; j < 6; j++) {
        for (int i = 0; i < 8; i++) expected += (i == 0 ? 0 : i - 1) + 8 * j;
    }
    EXPECT_EQ(sum(), expected);
    ImageParam param(UInt(8), 2, "param");
    param.set(input);
    Func via_param("via_param");
    via_param(x, y) = param(x, y);
    Buffer<uint8_t, 2> copied = via_param.realize({8, 6});
    EXPECT_EQ(copied(7, 5), input(7, 5));
}

TEST(LoomBufferDims, ConversionsShareStorageAndName) {
    Buffer<float> any(4, 3, "any");
    Buffer<float, 2> two = any;
    EXPECT_EQ(two.name(), "any");
    EXPECT_EQ(two.raw_buffer(), any.raw_buffer());
    Buffer<> untyped = two;
    Buffer<float, 2> back = untyped;
    EXPECT_EQ(back.raw_buffer(), any.raw_buffer());
    Buffer<float, 2> &viewed = any.as<float, 2>();
    EXPECT_EQ(viewed.name(), "any");
    Buffer<float, 2> copy = two.copy();
    EXPECT_NE(copy.data(), two.data());
    EXPECT_EQ(copy.dimensions(), 2);
}

TEST(LoomBufferDims, AnotherRankIsARuntimeErrorNamingTheBuffer) {
    Buffer<int> cube(2, 2, 2, "cube");
    expect_rank_error(runtime_error([&] { Buffer<int, 2> flat = cube; }), "cube", 3, 2);
    Buffer<int, 2> target;
    expect_rank_error(runtime_error([&] { target = cube; }), "cube", 3, 2);
    EXPECT_FALSE(target.defined());
    expect_rank_error(runtime_error([&] { cube.as<int, 2>(); }), "cube", 3, 2);
    expect_rank_error(runtime_error([] { Buffer<int, 2> v(std::vector<int>{4, 4, 4}, "sized"); }), "sized", 3, 2);
    expect_rank_error(runtime_error([] { Buffer<int, 1>(Int(32),
                                                         std::vector<int>{2, 2}, "typed"); }),
                      "typed", 2, 1);
    Var x("x"), y("y"), z("z");
    Func f("f3");
    f(x, y, z) = x + y + z;
    const std::string realized = runtime_error([&] { Buffer<int, 2> out = f.realize({2, 2, 2}); });
    EXPECT_NE(realized.find("3 dimensions"), std::string::npos) << realized;
    EXPECT_NE(realized.find("Buffer<T, 2>"), std::string::npos) << realized;
}

}  // namespace
