// Func::memoize with input buffers (Halide's rule): a buffer's contents are
// never part of the cache key, so a memoized Func reads an ImageParam or a
// Buffer only inside memoize_tag(value, tags...), which keys the cache on
// the tags; the shape fields it reads (width(), ...) are keyed by value, and
// memoize_tag(value) alone keys on the value. Each production prints one
// line per row (a custom print handler counts them), so a run that reuses
// the cache prints nothing.

#include <atomic>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"
#include "loom/MemoizeTag.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::expect_buffer_eq;

namespace {

class MemoizeBuffers : public loom_test::BackendTest {};

std::atomic<int> rows_computed{0};

void count_rows(JITUserContext *, const char *) { rows_computed++; }

Buffer<int> image(int width, int height, int base) {
    Buffer<int> b(width, height);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) b(x, y) = base + x + 10 * y;
    }
    return b;
}

// The tag is the key: same tag, cached values (even after the buffer's
// contents change); a new tag, computed again from the buffer bound now.
TEST_P(MemoizeBuffers, TaggedImageParamReadIsKeyedOnTheTag) {
    ImageParam in(Int(32), 2, "memo_tag_in");
    Param<int> frame("frame");
    Var x("x"), y("y");
    Func f("memo_tag_f"), g("memo_tag_g");
    f(x, y) = print_when(x == 0, memoize_tag(in(x, y) * 2, frame), "row");
    f.compute_root().memoize();
    g(x, y) = f(x, y) + 1;
    g.jit_handlers().custom_print = count_rows;
    auto expected = [](int base) {
        return [base](const std::vector<int> &p) { return (base + p[0] + 10 * p[1]) * 2 + 1; };
    };
    auto run = [&](int base) {
        rows_computed = 0;
        expect_buffer_eq(Buffer<int>(g.realize({8, 4})), expected(base));
        return rows_computed.load();
    };

    Buffer<int> a = image(8, 4, 100);
    in.set(a);
    frame.set(1);
    EXPECT_EQ(run(100), 4);
    EXPECT_EQ(run(100), 0) << "same tag, same region: the cached f";

    for (int yy = 0; yy < 4; yy++) {
        for (int xx = 0; xx < 8; xx++) a(xx, yy) += 1000;
    }
    EXPECT_EQ(run(100), 0) << "the contents are not the key: the tag did not change, so f is the cached one";
    frame.set(2);
    EXPECT_EQ(run(1100), 4) << "a new tag computes f from the contents now";

    in.set(image(8, 4, -50));
    frame.set(3);
    EXPECT_EQ(run(-50), 4) << "another buffer, with its own tag";
    frame.set(2);
    EXPECT_EQ(run(1100), 0) << "the entry of tag 2 is still cached";
}

// A Buffer read through memoize_tag the same way.
TEST_P(MemoizeBuffers, TaggedBufferRead) {
    Buffer<int> lut(std::vector<int>{16}, "memo_lut");
    for (int i = 0; i < 16; i++) lut(i) = i * i;
    Param<int> version("version");
    Var x("x");
    Func f("memo_lut_f"), g("memo_lut_g");
    f(x) = print_when(x == 0, memoize_tag(lut(x) + 3, version), "row");
    f.compute_root().memoize();
    g(x) = f(x) * 2;
    g.jit_handlers().custom_print = count_rows;
    version.set(0);
    for (int round = 0; round < 2; round++) {
        rows_computed = 0;
        expect_buffer_eq(Buffer<int>(g.realize({16})),
                         [](const std::vector<int> &p) { return (p[0] * p[0] + 3) * 2; });
        EXPECT_EQ(rows_computed, round == 0 ? 1 : 0) << "round " << round;
    }
}

// A Func that reads only an input's shape needs no tag: the shape fields are
// keyed by value, so a buffer of another width is another entry.
TEST_P(MemoizeBuffers, ShapeFieldsAreKeyed) {
    ImageParam in(Int(32), 2, "memo_shape_in");
    Var x("x"), y("y");
    Func f("memo_shape_f"), g("memo_shape_g");
    f(x, y) = print_when(x == 0, x + in.width() * y, "row");
    f.compute_root().memoize();
    g(x, y) = f(x, y) + in(x, y) * 0;
    g.jit_handlers().custom_print = count_rows;
    auto run = [&](int width) {
        in.set(image(width, 3, 0));
        rows_computed = 0;
        expect_buffer_eq(Buffer<int>(g.realize({4, 3})),
                         [width](const std::vector<int> &p) { return p[0] + width * p[1]; });
        return rows_computed.load();
    };
    EXPECT_EQ(run(8), 3);
    EXPECT_EQ(run(8), 0) << "same width: cached";
    EXPECT_EQ(run(9), 3) << "another width is another key";
    EXPECT_EQ(run(8), 0);
}

// memoize_tag(v) alone keys on v: a float Param quantized to an int is one
// entry per integer.
TEST_P(MemoizeBuffers, SingleValueTagKeysOnTheValue) {
    Param<float> level("level");
    Var x("x");
    Func f("memo_q_f"), g("memo_q_g");
    f(x) = print_when(x == 0, memoize_tag(cast<int>(level)) + x, "row");
    f.compute_root().memoize();
    g(x) = f(x);
    g.jit_handlers().custom_print = count_rows;
    auto run = [&](float v) {
        level.set(v);
        rows_computed = 0;
        expect_buffer_eq(Buffer<int>(g.realize({6})), [v](const std::vector<int> &p) { return (int)v + p[0]; });
        return rows_computed.load();
    };
    EXPECT_EQ(run(23.0f), 1);
    EXPECT_EQ(run(23.4f), 0) << "cast<int>(23.4f) is the same key as 23.0f";
    EXPECT_EQ(run(24.0f), 1);
}

// Outside a memoized Func, memoize_tag(value, ...) is value (Tuples too).
TEST_P(MemoizeBuffers, TagIsItsValueElsewhere) {
    Param<int> p("tag_p");
    Var x("x");
    Func f("memo_plain");
    f(x) = memoize_tag(Tuple(x * 2, x + p), p);
    p.set(5);
    Realization r = f.realize({10});
    expect_buffer_eq(Buffer<int>(r[0]), [](const std::vector<int> &c) { return c[0] * 2; });
    expect_buffer_eq(Buffer<int>(r[1]), [](const std::vector<int> &c) { return c[0] + 5; });
}

TEST_P(MemoizeBuffers, Errors) {
    if (loom::internal::jit_backend() != loom::internal::Backend::LLVM) {
        GTEST_SKIP() << "compile errors do not depend on the backend";
    }
    ImageParam in(Int(32), 1, "memo_err_in");
    in.set(Buffer<int>(std::vector<int>{8}));
    Var x("x");

    Func reads("memo_err_reads"), out("memo_err_out1");
    reads(x) = in(x) + 1;
    reads.compute_root().memoize();
    out(x) = reads(x);
    std::string m = compile_error_message([&] { out.realize({4}); });
    EXPECT_TRUE(contains(m, "memo_err_reads can't be memoized: it reads the buffer memo_err_in")) << m;
    EXPECT_TRUE(contains(m, "memoize_tag(value, tags...)")) << m;

    // Through a called (inlined) Func too.
    Func inner("memo_err_inner"), outer("memo_err_outer"), out2("memo_err_out2");
    inner(x) = in(x) * 3;
    outer(x) = inner(x) + 1;
    outer.compute_root().memoize();
    out2(x) = outer(x);
    m = compile_error_message([&] { out2.realize({4}); });
    EXPECT_TRUE(contains(m, "memo_err_outer can't be memoized: it reads the buffer memo_err_in")) << m;

    Func by_var("memo_err_var"), out3("memo_err_out3");
    by_var(x) = memoize_tag(in(x), x);
    by_var.compute_root().memoize();
    out3(x) = by_var(x);
    m = compile_error_message([&] { out3.realize({4}); });
    EXPECT_TRUE(contains(m, "memo_err_var can't be memoized: the memoize_tag key value")) << m;
    EXPECT_TRUE(contains(m, "which is not a Param or a buffer's shape")) << m;

    Func by_func("memo_err_func"), other("memo_err_other"), out4("memo_err_out4");
    other(x) = x;
    by_func(x) = memoize_tag(in(x), other(0));
    by_func.compute_root().memoize();
    out4(x) = by_func(x) + other(x);
    m = compile_error_message([&] { out4.realize({4}); });
    EXPECT_TRUE(contains(m, "reads memo_err_other, a Func or buffer")) << m;

    m = compile_error_message([&] { (void)memoize_tag(Expr(x), Expr()); });
    EXPECT_TRUE(contains(m, "memoize_tag(): cache key value 0 is undefined")) << m;
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(MemoizeBuffers);
