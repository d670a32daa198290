// Runtime::Buffer<T, Dims, InClassDimStorage>: Halide's static rank. The
// conversions that must not compile are checked with type traits (a
// try-compile in the same translation unit); the rank checks that happen at
// run time with EXPECT_THROW and the messages.

#include "loom/runtime/Buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using loom::Runtime::AnyDims;
using loom::Runtime::Buffer;

// ---- What compiles -------------------------------------------------------

static_assert(std::is_same_v<Buffer<int>, Buffer<int, AnyDims>>, "Buffer<T> is Buffer<T, AnyDims>");
static_assert(AnyDims == -1, "AnyDims is -1, as Halide's");
static_assert(Buffer<int, 2>::has_static_dimensions && Buffer<int, 2>::static_dimensions() == 2, "static rank");
static_assert(!Buffer<int>::has_static_dimensions, "AnyDims is not static");
// Either side AnyDims converts (checked at run time); two static ranks must agree.
static_assert(std::is_constructible_v<Buffer<int, 2>, const Buffer<int> &>, "AnyDims -> 2");
static_assert(std::is_constructible_v<Buffer<int>, const Buffer<int, 2> &>, "2 -> AnyDims");
static_assert(std::is_convertible_v<Buffer<int, 2>, Buffer<const int, 2>>, "adding const");
static_assert(std::is_convertible_v<Buffer<int, 2>, Buffer<void>>, "to void, any rank");
static_assert(!std::is_constructible_v<Buffer<int, 2>, const Buffer<int, 3> &>, "3 -> 2 does not compile");
static_assert(!std::is_constructible_v<Buffer<int, 2>, Buffer<const int, 2>>, "dropping const does not compile");
static_assert(std::is_constructible_v<Buffer<int, 2, 8>, const Buffer<int, 2> &>, "another in-class storage");
// The views that change the rank carry it in their type.
static_assert(std::is_same_v<decltype(std::declval<Buffer<int, 3>>().sliced(0, 0)), Buffer<int, 2>>, "sliced");
static_assert(std::is_same_v<decltype(std::declval<Buffer<int, 2>>().embedded(0)), Buffer<int, 3>>, "embedded");
static_assert(std::is_same_v<decltype(std::declval<Buffer<int>>().sliced(0, 0)), Buffer<int>>, "AnyDims sliced");
static_assert(std::is_same_v<decltype(std::declval<Buffer<int, 2>>().cropped(0, 0, 1)), Buffer<int, 2>>, "crop");
static_assert(std::is_same_v<decltype(std::declval<Buffer<const int, 2>>().copy()), Buffer<int, 2>>, "copy");

TEST(RuntimeBufferDims, StaticRankBuffersWork) {
    Buffer<uint8_t, 2> image(6, 4);
    EXPECT_EQ(image.dimensions(), 2);
    image.fill([](int x, int y) { return static_cast<uint8_t>(x + 10 * y); });
    EXPECT_EQ(image(5, 3), 35);

    Buffer<uint8_t, 1> row = image.sliced(1, 2);
    EXPECT_EQ(row.dimensions(), 1);
    EXPECT_EQ(row(4), 24);
    Buffer<uint8_t, 3> planes = image.embedded(2, 7);
    EXPECT_EQ(planes.dimensions(), 3);
    EXPECT_EQ(&planes(3, 1, 7), &image(3, 1));
    Buffer<uint8_t, 2> copy = image.copy();
    EXPECT_EQ(copy(5, 3), 35);
    EXPECT_NE(copy.data(), image.data());
    Buffer<uint8_t, 0> scalar = Buffer<uint8_t, 0>::make_scalar();
    EXPECT_EQ(scalar.dimensions(), 0);
    Buffer<uint8_t, 3> interleaved = Buffer<uint8_t, 3>::make_interleaved(4, 3, 3);
    EXPECT_EQ(interleaved.dim(2).stride(), 1);
}

TEST(RuntimeBufferDims, ConversionsCheckTheRankAtRunTime) {
    Buffer<float> any2(3, 2);
    Buffer<float, 2> two = any2;  // AnyDims -> 2: checked, fine
    EXPECT_EQ(two.raw_buffer(), any2.raw_buffer());
    Buffer<float> back = two;  // 2 -> AnyDims: always fine
    EXPECT_EQ(back.raw_buffer(), any2.raw_buffer());
    Buffer<void> untyped = two;
    Buffer<float, 2> again = untyped;  // void -> float, AnyDims -> 2
    EXPECT_EQ(again.raw_buffer(), any2.raw_buffer());

    Buffer<float> any3(3, 2, 4);
    try {
        Buffer<float, 2> wrong = any3;
        ADD_FAILURE() << "a 3-D buffer became a Buffer<float, 2>";
    } catch (const std::invalid_argument &e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("a buffer of 3 dimensions"), std::string::npos) << message;
        EXPECT_NE(message.find("2 static dimensions"), std::string::npos) << message;
    }
    Buffer<float, 2> assigned;
    EXPECT_THROW(assigned = any3, std::invalid_argument);
    EXPECT_FALSE(assigned.defined());  // the failed assignment left it alone
    EXPECT_THROW((Buffer<float, 2>(std::vector<int>{4, 4, 4})), std::invalid_argument);
    EXPECT_THROW((Buffer<float, 2>(*any3.raw_buffer())), std::invalid_argument);
    EXPECT_THROW((Buffer<void, 2>(loom_type_t{loom_type_float, 32, 1}, std::vector<int>{1})), std::invalid_argument);

    EXPECT_TRUE((Buffer<float, 2>::can_convert_from(any2)));
    EXPECT_FALSE((Buffer<float, 2>::can_convert_from(any3)));
    EXPECT_FALSE((Buffer<int, 2>::can_convert_from(any2)));  // element type
    EXPECT_TRUE((Buffer<float, 2>::can_convert_from(Buffer<float>())));  // undefined
}

TEST(RuntimeBufferDims, AsChecksTheRank) {
    Buffer<int> any(4, 5);
    Buffer<int, 2> &two = any.as<int, 2>();
    EXPECT_EQ(two.raw_buffer(), any.raw_buffer());
    EXPECT_THROW((any.as<int, 3>()), std::invalid_argument);
    Buffer<int, 2> typed(2, 2);
    const Buffer<const int, 2> &constant = typed.as_const();
    EXPECT_EQ(constant.raw_buffer(), typed.raw_buffer());
}

TEST(RuntimeBufferDims, UndefinedStaticBuffers) {
    Buffer<int, 3> none;
    EXPECT_FALSE(none.defined());
    Buffer<int> any = none;
    EXPECT_FALSE(any.defined());
    Buffer<int, 3> still = any;  // undefined converts to any rank
    EXPECT_FALSE(still.defined());
}

}  // namespace

namespace {

TEST(RuntimeBufferDims, CoordinatesPastTheRankAreZero) {
    // Halide's lesson 13 reads a realized scalar as r0(0).
    loom::Runtime::Buffer<int> scalar = loom::Runtime::Buffer<int>::make_scalar();
    scalar() = 42;
    EXPECT_EQ(scalar(0), 42);
    EXPECT_EQ(scalar(0, 0), 42);
    EXPECT_THROW(scalar(1), std::out_of_range);
    loom::Runtime::Buffer<int, 2> image(3, 2);
    image(2, 1) = 7;
    EXPECT_EQ(image(2, 1, 0), 7);
    EXPECT_EQ(image(std::vector<int>{2, 1, 0}), 7);
    EXPECT_THROW(image(2, 1, -1), std::out_of_range);
}

}  // namespace
