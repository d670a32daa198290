// partition_loops on parallel loops: one parallel loop whose iterations pick
// their part (boundary or steady) with an if, as Halide does, instead of a
// parallel loop per part; the loops inside its boundary iterations are
// partitioned too. Values are checked against plain C++ loops through the
// JIT and the interpreter (LoopShapingUtil's run()).
#include "LoopShapingUtil.h"

#include <tuple>
#include <utility>

#include "loom/Func.h"
#include "loom/ImageParam.h"
#include "loom/RDom.h"
#include "lower/PartitionLoops.h"

using namespace shaping_test;

namespace {

bool contains(const std::string &haystack, const std::string &needle) {
    return haystack.find(needle) != std::string::npos;
}

int count(const std::string &haystack, const std::string &needle) {
    int n = 0;
    for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) n++;
    return n;
}

/** The then and else branches of the first `if_line` in text: the text
 * up to the matching "} else {" at the if's indentation, and after it. */
std::pair<std::string, std::string> branches(const std::string &text, const std::string &if_line) {
    const size_t at = text.find(if_line);
    if (at == std::string::npos) return {};
    const size_t line_start = text.rfind('\n', at) + 1;
    const std::string indent = text.substr(line_start, at - line_start);
    const size_t split = text.find("\n" + indent + "} else {", at);
    if (split == std::string::npos) return {text.substr(at), ""};
    return {text.substr(at, split - at), text.substr(split)};
}

/** for (y, 0, h) TYPE { for (x, 0, w) { out[x + y * w] = select(y == 0, -1, select(y == h - 1, -2,
 * in[max(min(x - 1, w - 1), 0)])) } }: y's first and last rows are its boundary; x's clamp partitions x. */
Stmt peeled_rows(ForType type) {
    Expr w = v("w"), h = v("h");
    Expr clamped = Load::make(Int(32), "in", max(min(v("x") - 1, w - 1), 0));
    Expr value = Select::make(v("y") == 0, Expr(-1), Select::make(v("y") == h - 1, Expr(-2), clamped));
    Stmt xs = For::make("x", Expr(0), w, ForType::Serial, DeviceAPI::None, Store::make("out", value, v("x") + v("y") * w));
    return For::make("y", Expr(0), h, type, DeviceAPI::None, xs);
}

TEST(ParallelPartition, OneParallelLoopPicksItsPartPerIteration) {
    std::string t = text(partition_loops(peeled_rows(ForType::Parallel)));
    // One loop over y; its first and last rows (the same statement) and the
    // steady rows are the branches of one if.
    EXPECT_EQ(count(t, "for (y"), 1) << t;
    EXPECT_EQ(count(t, "parallel for (y, 0, h)"), 1) << t;
    EXPECT_EQ(count(t, "if (y < y.steady_min || y.steady_end <= y) {"), 1) << t;
    const auto [boundary, steady] = branches(t, "if (y < y.steady_min || y.steady_end <= y) {");
    ASSERT_FALSE(steady.empty()) << t;
    // Both branches partition x: the boundary rows are tasks of their own.
    EXPECT_EQ(count(boundary, "let x.steady_min = "), 1) << t;
    EXPECT_EQ(count(steady, "let x.steady_min = "), 1) << t;
    EXPECT_EQ(count(boundary, "for (x, x.steady_min"), 1) << t;
    // The boundary rows keep the tests of y; in the steady rows they are false.
    EXPECT_EQ(count(boundary, "select(y == 0"), 3) << t;
    EXPECT_EQ(count(steady, "y == "), 0) << t;
    EXPECT_EQ(count(steady, "select(false, -1, select(false, -2"), 3) << t;

    // A serial loop is still three parts, the first and last rows peeled
    // (ifs), with x whole in them.
    std::string s = text(partition_loops(peeled_rows(ForType::Serial)));
    EXPECT_EQ(count(s, "for (y, y.steady_min"), 1) << s;
    EXPECT_EQ(count(s, "let x.steady_min = "), 1) << s;
    EXPECT_EQ(count(s, "for (x, 0, w)"), 2) << s;
}

TEST(ParallelPartition, OnlyAPrologueOrOnlyAnEpilogue) {
    // A lane test of the last vector only (an upper bound): steady while
    // xo * 8 + 7 <= w - 1.
    Expr x = v("xo") * 8 + v("xi");
    Stmt lanes = For::make("xi", Expr(0), Expr(8), ForType::Vectorized, DeviceAPI::None,
                           Store::make("out", Load::make(Int(32), "in", min(x, v("w") - 1)), x));
    std::string t = text(partition_loops(For::make("xo", Expr(0), v("n"), ForType::Parallel, DeviceAPI::None, lanes)));
    EXPECT_EQ(count(t, "for (xo"), 1) << t;
    EXPECT_EQ(count(t, "if (xo.steady_end <= xo) {"), 1) << t;
    EXPECT_FALSE(contains(t, "xo < xo.steady_min")) << t;

    // A lower bound only.
    Stmt low = For::make("xi", Expr(0), Expr(8), ForType::Vectorized, DeviceAPI::None,
                         Store::make("out", Load::make(Int(32), "in", max(x - 3, 0)), x));
    std::string u = text(partition_loops(For::make("xo", Expr(0), v("n"), ForType::Parallel, DeviceAPI::None, low)));
    EXPECT_EQ(count(u, "for (xo"), 1) << u;
    EXPECT_EQ(count(u, "if (xo < xo.steady_min) {"), 1) << u;
    EXPECT_FALSE(contains(u, "xo.steady_end <= xo")) << u;
}

TEST(ParallelPartition, ParallelLoopInTheBoundaryOfAnotherKeepsItsInnerLoopsWhole) {
    // parallel for (z) { select(z == 0) ... parallel for (y) { peeled rows } }: z's boundary partitions
    // its y loop, whose own boundary rows keep x whole there (the code of a nest of parallel loops does
    // not double at every level); z's steady state partitions y fully.
    Stmt rows = peeled_rows(ForType::Parallel);
    Stmt marked = Block::make(Store::make("first", Select::make(v("z") == 0, Expr(1), Expr(2)), v("z")),
                              rows);
    Stmt z = For::make("z", Expr(0), v("d"), ForType::Parallel, DeviceAPI::None,
                       For::make("k", Expr(0), Expr(2), ForType::Serial, DeviceAPI::None, marked));
    std::string t = text(partition_loops(z));
    EXPECT_EQ(count(t, "parallel for (z"), 1) << t;
    EXPECT_EQ(count(t, "z.steady_end <= z"), 0) << t;  // z == 0 only: a prologue
    EXPECT_EQ(count(t, "if (z < z.steady_min) {"), 1) << t;
    EXPECT_EQ(count(t, "parallel for (y"), 2) << t;
    // y's boundary rows in z's steady state: x partitioned (2 with its steady
    // rows); in z's boundary: x whole in y's boundary rows (1, its steady rows).
    EXPECT_EQ(count(t, "let x.steady_min = "), 3) << t;
}

/** Runs f (an int32 1-D output over a parallel guarded, vectorized loop) on
 * both back ends and checks it against in(x) * 3 + x. */
TEST(ParallelPartition, GuardedVectorTailRunsInTheSameLoop) {
    Parameter in{Int(32), true, 1, "in"};
    FunctionPtr f = make_func("f", {"x"}, image(in, {v("x")}) * 3 + v("x"));
    Sched(f).split("x", "xo", "xi", 8, loom::internal::TailStrategy::GuardWithIf).vectorize("xi").mark(
        "xo", ForType::Parallel);
    LoweredFunc lf = lower({f}, "pipeline", Target());
    std::string ir = text(lf.body);
    EXPECT_EQ(count(ir, "parallel for (f.s0.xo"), 1) << ir;
    EXPECT_TRUE(contains(ir, "f.s0.xo.steady_end <= f.s0.xo")) << ir;
    for (int w : {1, 7, 8, 37, 64, 1000}) {
        Runtime::Buffer<int> input(w), out(w);
        for (int i = 0; i < w; i++) input(i) = i * 7 - 50;
        ASSERT_EQ(run(lf, {input.raw_buffer(), out.raw_buffer()}), 0) << ir;
        for (int x = 0; x < w; x++) ASSERT_EQ(out(x), input(x) * 3 + x) << w << " " << x;
    }
}

// ---- apps/matmul's schedule, at 8 lanes --------------------------------

/** A matrix product a (k columns, m rows) times b (n columns, k rows), with
 * apps/matmul's CPU schedule at 8 lanes and smaller blocks: 2 x 8 columns
 * by 3 rows, groups of 4 block rows in parallel, k in slices of 64. The
 * last group of rows is partial for most sizes. */
struct Matmul {
    ImageParam a{Float(32), 2, "a"}, b{Float(32), 2, "b"};
    Func prod{"prod"}, out{"out"};
    Var x{"x"}, y{"y"};

    Matmul() {
        RDom k(0, a.width(), "k");
        prod(x, y) = 0.0f;
        // prod is computed 16 columns wide: columns past b's last repeat it.
        prod(x, y) += a(k, y) * b(min(x, b.width() - 1), k);
        out(x, y) = prod(x, y);
        Var xo("xo"), xi("xi"), yo("yo"), yi("yi"), yoo("yoo"), yoi("yoi"), pyo("pyo"), pyi("pyi");
        RVar ko("ko"), ki("ki");
        out.split(x, xo, xi, 16, loom::TailStrategy::GuardWithIf)
            .split(y, yo, yi, 3)
            .split(yo, yoo, yoi, 4, loom::TailStrategy::GuardWithIf)
            .reorder(xi, yi, yoi, xo, yoo)
            .vectorize(xi, 8)
            .unroll(yi)
            .parallel(yoo);
        prod.compute_at(out, xo).bound_extent(x, 16).vectorize(x, 8).unroll(x);
        prod.update(0)
            .split(k.x, ko, ki, 64)
            .split(y, pyo, pyi, 3, loom::TailStrategy::GuardWithIf)
            .reorder(x, pyi, ki, pyo, ko)
            .vectorize(x, 8)
            .unroll(x)
            .unroll(pyi);
        out.bound(x, 0, b.width()).bound(y, 0, a.height());
    }

    LoweredFunc lowered() { return lower({out.function()}, "matmul", Target()); }
};

Runtime::Buffer<float> small_integers(int w, int h, int seed) {
    Runtime::Buffer<float> m(w, h);
    m.for_each_element([&](int x, int y) { m(x, y) = float((x * 7 + y * 13 + seed) % 9 - 4); });
    return m;
}

/** The product of small integers: every partial sum is an exact float, so
 * the order of the additions cannot matter. */
Runtime::Buffer<float> reference_product(const Runtime::Buffer<float> &a, const Runtime::Buffer<float> &b) {
    const int k_extent = a.width(), m = a.height(), n = b.width();
    Runtime::Buffer<float> r(n, m);
    for (int y = 0; y < m; y++) {
        for (int x = 0; x < n; x++) {
            float sum = 0;
            for (int k = 0; k < k_extent; k++) sum += a(k, y) * b(x, k);
            r(x, y) = sum;
        }
    }
    return r;
}

/** Checks the product of mm's lowered pipeline on both back ends against
 * the C++ loop, for sizes whose last group of rows is partial (37 x 53: 53
 * rows are 4 groups of 12 and one of 5) or whole (48 rows), k across a
 * slice boundary or not. */
void check_small_sizes(Matmul &mm) {
    LoweredFunc lf = mm.lowered();
    for (auto [n, m, k] : {std::tuple{37, 53, 130}, std::tuple{16, 48, 64}, std::tuple{5, 3, 3},
                           std::tuple{33, 13, 65}}) {
        Runtime::Buffer<float> a = small_integers(k, m, 1), b = small_integers(n, k, 2), out(n, m);
        ASSERT_EQ(run(lf, {a.raw_buffer(), b.raw_buffer(), out.raw_buffer()}), 0);
        Runtime::Buffer<float> expected = reference_product(a, b);
        for (int y = 0; y < m; y++) {
            for (int x = 0; x < n; x++) {
                ASSERT_EQ(out(x, y), expected(x, y)) << n << "x" << m << "x" << k << " at " << x << "," << y;
            }
        }
    }
}

TEST(ParallelPartition, MatmulsGroupsOfRowsAreOneParallelLoop) {
    // By default the groups of rows are not partitioned: their tests (the
    // row guards, the ShiftInwards clamp) are the same for every iteration
    // of the loops inside, so once per task. The last group's inner loops
    // are partitioned as the others' are: it is the same loop.
    Matmul mm;
    std::string ir = text(mm.lowered().body);
    EXPECT_EQ(count(ir, "parallel for (out.s0.yoo"), 1) << ir;
    EXPECT_EQ(count(ir, "for (out.s0.yoo"), 1) << ir;
    EXPECT_FALSE(contains(ir, "out.s0.yoo.steady")) << ir;
    EXPECT_EQ(count(ir, "let prod.s1.ki.steady_end = "), 1) << ir;
    check_small_sizes(mm);
}

TEST(ParallelPartition, MatmulsGroupsOfRowsPartitionedAlwaysStayOneParallelLoop) {
    // Partition::Always on the groups: still one parallel loop, the last
    // group a branch of it, with its inner loops partitioned like the
    // steady groups' (k's slice loop has a guard-free part in both).
    Matmul mm;
    mm.out.partition(Var("yoo"), Partition::Always);
    std::string ir = text(mm.lowered().body);
    EXPECT_EQ(count(ir, "parallel for (out.s0.yoo"), 1) << ir;
    EXPECT_EQ(count(ir, "for (out.s0.yoo"), 1) << ir;
    EXPECT_EQ(count(ir, "if (out.s0.yoo.steady_end <= out.s0.yoo) {"), 1) << ir;
    const auto [last_group, steady] = branches(ir, "if (out.s0.yoo.steady_end <= out.s0.yoo) {");
    ASSERT_FALSE(steady.empty()) << ir;
    EXPECT_EQ(count(last_group, "let prod.s1.ki.steady_end = "), 1) << ir;
    EXPECT_EQ(count(steady, "let prod.s1.ki.steady_end = "), 1) << ir;
    check_small_sizes(mm);
}

TEST(ParallelPartition, MatmulLargeSizesOnTheJIT) {
    // 1000 rows: 83 groups of 12 and one of 4; 1024: 85 and one of 4. k = 300: four full slices of 64
    // and one of 44. The JIT only (the interpreter would take minutes).
    Matmul mm;
    JITPipeline jit = compile_jit(mm.lowered(), get_host_target());
    for (int size : {1000, 1024}) {
        const int k = 300;
        Runtime::Buffer<float> a = small_integers(k, size, 3), b = small_integers(size, k, 4), out(size, size);
        std::vector<void *> args = {a.raw_buffer(), b.raw_buffer(), out.raw_buffer()};
        ASSERT_EQ(jit.argv(args.data()), 0);
        Runtime::Buffer<float> expected = reference_product(a, b);
        for (int y = 0; y < size; y++) {
            for (int x = 0; x < size; x++) ASSERT_EQ(out(x, y), expected(x, y)) << size << " at " << x << "," << y;
        }
    }
}

}  // namespace
