// Func::memoize and concrete Buffers, as in Halide (src/Memoization.cpp keys
// only Parameters and memoize_tag values): a loom::Buffer read directly is a
// constant of the pipeline, so a memoized Func may read it without
// memoize_tag and nothing of it is in the cache key (a change of its
// contents is not seen while the key is the same, as in Halide). A
// memoize_tag in an extern stage's arguments keys a memoized extern stage
// and the C function gets the tagged value. Productions are counted (a
// print handler, or the C function's calls) and values checked against C++.

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"
#include "loom/MemoizeTag.h"

using namespace loom;
using loom::internal::Backend;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::expect_buffer_eq;

namespace {

std::atomic<int> memo_rows{0};
std::atomic<int> memo_extern_calls{0};

void count_memo_rows(JITUserContext *, const char *) { memo_rows++; }

}  // namespace

extern "C" {

/** out(x) = x * scale; counts the calls that compute (not bounds queries). */
int ext_memo_scaled_ramp(int32_t scale, loom_buffer_t *out) {
    if (out->host == nullptr) return 0;
    memo_extern_calls++;
    int32_t *host = reinterpret_cast<int32_t *>(out->host);
    for (int i = 0; i < out->dim[0].extent; i++) host[i * out->dim[0].stride] = (out->dim[0].min + i) * scale;
    return 0;
}

}  // extern "C"

namespace {

class MemoizeConcreteBuffer : public loom_test::BackendTest {};

// Read without memoize_tag: keyed on the Param only, as in Halide.
TEST_P(MemoizeConcreteBuffer, ReadWithoutATagIsAConstantOfThePipeline) {
    Buffer<int> lut(std::vector<int>{16}, "memo_const_lut");
    for (int i = 0; i < 16; i++) lut(i) = i * i;
    Param<int> offset("memo_const_offset");
    Var x("x");
    Func f("memo_const_f"), g("memo_const_g");
    f(x) = print_when(x == 0, lut(x) + offset, "row");
    f.compute_root().memoize();
    g(x) = f(x) * 2;
    g.jit_handlers().custom_print = count_memo_rows;
    auto run = [&](int add, int lut_scale) {
        memo_rows = 0;
        expect_buffer_eq(Buffer<int>(g.realize({16})),
                         [=](const std::vector<int> &p) { return (p[0] * p[0] * lut_scale + add) * 2; });
        return memo_rows.load();
    };
    offset.set(3);
    EXPECT_EQ(run(3, 1), 1) << "first run: f is computed";
    EXPECT_EQ(run(3, 1), 0) << "same offset: the cached f";
    offset.set(5);
    EXPECT_EQ(run(5, 1), 1) << "a new offset is a new key";

    // The Buffer's contents are not the key (Halide's rule): with the same
    // offset the cached values stay; a new offset computes from them.
    for (int i = 0; i < 16; i++) lut(i) = 2 * i * i;
    EXPECT_EQ(run(5, 1), 0) << "same key: the values cached before the change";
    offset.set(7);
    EXPECT_EQ(run(7, 2), 1) << "a new key computes f from the Buffer's contents now";
}

// A Buffer read through a called Func and at a Param-dependent coordinate:
// the coordinate's Param is keyed, the Buffer is not.
TEST_P(MemoizeConcreteBuffer, ThroughACalledFuncTheCoordinatesParamsAreKeyed) {
    Buffer<int> table(std::vector<int>{32}, "memo_const_table");
    for (int i = 0; i < 32; i++) table(i) = 100 + i;
    Param<int> shift("memo_const_shift");
    Var x("x");
    Func read("memo_const_read"), f("memo_const_f2"), g("memo_const_g2");
    read(x) = table(clamp(x + shift, 0, 31));
    f(x) = print_when(x == 0, read(x) * 3, "row");
    f.compute_root().memoize();
    g(x) = f(x);
    g.jit_handlers().custom_print = count_memo_rows;
    int run = 0;
    for (int s : {0, 4, 0, 4}) {
        shift.set(s);
        memo_rows = 0;
        expect_buffer_eq(Buffer<int>(g.realize({8})),
                         [=](const std::vector<int> &p) { return (100 + std::min(std::max(p[0] + s, 0), 31)) * 3; });
        EXPECT_EQ(memo_rows.load(), run < 2 ? 1 : 0) << "shift " << s << ", run " << run;
        run++;
    }
}

// An ImageParam is still refused without a tag (Halide refuses it too).
TEST_P(MemoizeConcreteBuffer, AnImageParamStillNeedsATag) {
    if (GetParam() != Backend::LLVM) GTEST_SKIP() << "compile errors do not depend on the backend";
    Buffer<int> data(std::vector<int>{8}, "memo_const_data");
    ImageParam in(Int(32), 1, "memo_const_in");
    in.set(data);
    Var x("x");
    Func f("memo_const_f3"), g("memo_const_g3");
    f(x) = in(x) + data(x);
    f.compute_root().memoize();
    g(x) = f(x);
    std::string m = compile_error_message([&] { g.realize({8}); });
    EXPECT_TRUE(contains(m, "memo_const_f3 can't be memoized: it reads the buffer memo_const_in")) << m;
    EXPECT_FALSE(contains(m, "memo_const_data")) << m;
}

// memoize_tag in define_extern's arguments: the tag keys the memoized
// extern stage, and the C function gets the value (the tag is gone before
// code generation).
TEST_P(MemoizeConcreteBuffer, MemoizeTagInAnExternStagesArguments) {
    Param<int> scale("memo_ext_scale"), version("memo_ext_version");
    Var x("x");
    Func ramp("memo_ext_ramp"), g("memo_ext_g");
    ramp.define_extern("ext_memo_scaled_ramp", {memoize_tag(scale, version)}, Int(32), 1);
    ramp.compute_root().memoize();
    g(x) = ramp(x) + 1;
    if (GetParam() == Backend::Interpreter) {
        scale.set(2);
        version.set(1);
        std::string m = compile_error_message([&] { g.realize({10}); });
        EXPECT_TRUE(contains(m, "ext_memo_scaled_ramp")) << m;  // the interpreter refuses extern stages
        return;
    }
    auto run = [&](int s, int v, int expected_scale) {
        scale.set(s);
        version.set(v);
        memo_extern_calls = 0;
        expect_buffer_eq(Buffer<int>(g.realize({10})),
                         [=](const std::vector<int> &p) { return p[0] * expected_scale + 1; });
        return memo_extern_calls.load();
    };
    EXPECT_EQ(run(2, 1, 2), 1) << "first run: the C function computes";
    EXPECT_EQ(run(2, 1, 2), 0) << "same tag: cached";
    EXPECT_EQ(run(5, 1, 2), 0) << "the tag is the key, not the tagged scale: cached (as in Halide)";
    EXPECT_EQ(run(5, 2, 5), 1) << "a new tag: computed with the scale now";

    // Without memoize(), the tag is the value alone.
    Func plain("memo_ext_plain"), h("memo_ext_h");
    plain.define_extern("ext_memo_scaled_ramp", {memoize_tag(scale * 2, version)}, Int(32), 1);
    plain.compute_root();
    h(x) = plain(x);
    scale.set(3);
    expect_buffer_eq(Buffer<int>(h.realize({6})), [](const std::vector<int> &p) { return p[0] * 6; });
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(MemoizeConcreteBuffer);
