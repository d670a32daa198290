// compile_to_callable with a concrete Buffer that the pipeline reads directly
// and that is not in the argument list: as in Halide, the Buffer is a
// constant of the Callable (a dense copy made when the Callable is), so a
// call passes only the other inputs. Compared with plain C++ loops on every
// JIT back end; a Buffer listed in args stays an argument; an ImageParam
// left out, a Buffer without host memory and a Buffer too small for what
// the pipeline reads are still errors naming them.

#include <algorithm>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"
#include "lang/Backend.h"

namespace {

using namespace loom;
using loom_test::contains;

class CallableEmbeddedBufferTest : public loom_test::BackendTest {};

constexpr int N = 24;

int16_t lut_value(int i) { return int16_t(i * i - 3); }
float weight_value(int x, int y) { return float(y * 6 + x) * 0.5f; }
int index_value(int x, int seed) { return (x * 7 + seed) % 23 - 11; }

TEST_P(CallableEmbeddedBufferTest, ABufferNotInArgsIsAConstantOfTheCallable) {
    // A 1-D table with min -8, and a cropped 2-D view (rows of 6, x in
    // [1, 5): not dense), both read directly.
    Buffer<int16_t> lut({16}, "cb_lut");
    lut.set_min({-8});
    for (int i = -8; i < 8; i++) lut(i) = lut_value(i);
    Buffer<float> wide({6, 3}, "cb_wide");
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 6; x++) wide(x, y) = weight_value(x, y);
    Buffer<float> weights = wide.cropped(0, 1, 4);

    ImageParam idx(Int(32), 1, "cb_idx");
    Param<int32_t> k("cb_k");
    Var x("x"), y("y");
    Func f("cb_f");
    f(x, y) = cast<float>(lut(clamp(idx(x), -8, 7)) * k) + weights(x % 4 + 1, y);
    Callable c = f.compile_to_callable({idx, k});

    // Only the listed arguments and the output: the Buffers are not arguments.
    ASSERT_EQ(c.arguments().size(), 3u);
    EXPECT_EQ(c.arguments()[0].name, "cb_idx");
    EXPECT_EQ(c.arguments()[1].name, "cb_k");
    EXPECT_EQ(c.arguments()[2].kind, Argument::OutputBuffer);

    // The Callable copied the Buffers when it was made (as Halide embeds
    // them): later writes to them do not reach it.
    for (int i = -8; i < 8; i++) lut(i) = 0;
    wide.fill(-1.0f);

    for (int scale : {1, -3}) {
        Buffer<int32_t> in(N);
        for (int i = 0; i < N; i++) in(i) = index_value(i, scale);
        Buffer<float> out(N, 3);
        ASSERT_EQ(c(in, scale, out), 0);
        loom_test::expect_buffer_eq(out, [&](const std::vector<int> &p) {
            const int at = std::min(std::max(in(p[0]), -8), 7);
            return float(lut_value(at) * scale) + weight_value(p[0] % 4 + 1, p[1]);
        });
    }
}

TEST_P(CallableEmbeddedBufferTest, TheCopyOutlivesTheBuffer) {
    Var x("x");
    Func f("cb_outlive");
    Callable c;
    {
        Buffer<int32_t> table({8}, "cb_table");
        for (int i = 0; i < 8; i++) table(i) = 100 - i * i;
        f(x) = table(x % 8) + x;
        c = f.compile_to_callable({});
    }
    ASSERT_EQ(c.arguments().size(), 1u);  // the output
    Buffer<int32_t> out(N);
    ASSERT_EQ(c(out), 0);
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return 100 - (p[0] % 8) * (p[0] % 8) + p[0]; });
}

TEST_P(CallableEmbeddedBufferTest, ABufferInArgsStaysAnArgument) {
    Buffer<int16_t> lut({16}, "cb_listed");
    for (int i = 0; i < 16; i++) lut(i) = lut_value(i);
    Var x("x");
    Func f("cb_listed_f");
    f(x) = lut(x % 16) * 2;
    Callable c = f.compile_to_callable({lut});
    ASSERT_EQ(c.arguments().size(), 2u);
    EXPECT_EQ(c.arguments()[0].name, "cb_listed");
    EXPECT_EQ(c.arguments()[0].kind, Argument::InputBuffer);
    // Each call reads the buffer it is given.
    Buffer<int16_t> other(16);
    for (int i = 0; i < 16; i++) other(i) = int16_t(7 * i - 40);
    Buffer<int16_t> out(N);
    ASSERT_EQ(c(other, out), 0);
    loom_test::expect_buffer_eq(out, [&](const std::vector<int> &p) { return int16_t(other(p[0] % 16) * 2); });
}

TEST_P(CallableEmbeddedBufferTest, WhatIsStillRefused) {
    Var x("x");
    // An ImageParam is an input of each call: leaving it out is an error.
    ImageParam in(Int(32), 1, "cb_missing");
    Buffer<int32_t> table({8}, "cb_present");
    table.fill(3);
    Func f("cb_refused");
    f(x) = in(x) + table(x % 8);
    std::string msg = loom_test::compile_error_message([&] { f.compile_to_callable({}); });
    EXPECT_TRUE(contains(msg, "input buffer (ImageParam) 'cb_missing'")) << msg;
    EXPECT_FALSE(contains(msg, "cb_present")) << msg;
    EXPECT_TRUE(contains(msg, "Add it to args")) << msg;
    // The message says what is true now: a Buffer read directly is copied,
    // not something that would need listing.
    EXPECT_TRUE(contains(msg, "a Buffer the algorithm reads directly need not be listed")) << msg;
    EXPECT_FALSE(contains(msg, "ImageParam, or a Buffer")) << msg;

    // A Buffer without host memory can't be a constant.
    Buffer<int32_t> gone({8}, "cb_gone");
    Func g("cb_gone_f");
    g(x) = gone(x % 8);
    gone.deallocate();
    msg = loom_test::compile_error_message([&] { g.compile_to_callable({}); });
    EXPECT_TRUE(contains(msg, "Buffer 'cb_gone' has no host memory")) << msg;
    EXPECT_TRUE(contains(msg, "add it to args")) << msg;

    // A Buffer smaller than what the pipeline reads: each call fails, naming it.
    Buffer<int32_t> small({8}, "cb_small");
    small.fill(1);
    Func h("cb_small_f");
    h(x) = small(x);
    Callable c = h.compile_to_callable({});
    Buffer<int32_t> out(N);
    msg = loom_test::runtime_error_message([&] { c(out); });
    EXPECT_TRUE(contains(msg, "cb_small")) << msg;
    Buffer<int32_t> fits(8);
    EXPECT_EQ(c(fits), 0);
    loom_test::expect_buffer_eq(fits, [](const std::vector<int> &) { return 1; });
}

LOOM_INSTANTIATE_BACKENDS(CallableEmbeddedBufferTest);

}  // namespace
