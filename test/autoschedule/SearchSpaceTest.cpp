// LoomHeuristic's choices beyond inline / root / per tile
// (docs/AUTOSCHEDULER.md, "The search"): a Func with pointwise updates
// computed per tile of its consumer, small constant RVar loops unrolled,
// an update that is not pointwise kept at the root, and producers that
// slide along the rows of their consumer's tile. Each schedule is
// run on the JIT and the interpreter against a plain C++ loop.

#include "autoschedule/CostModel.h"
#include "autoschedule/SearchTestData.h"
#include "e2e/E2ETest.h"

namespace {

using namespace loom;
using loom_test::contains;

class AutoScheduleSearchSpace : public loom_test::BackendTest {};

const Target schedule_target("x86-64-linux-avx2");

using loom_test::expensive;
using loom_test::ramp;

/** The chained statement of one stage in a schedule_source ("conv\n" or
 * "conv.update(0)\n" up to its ';'), or "" if it has none. */
std::string statement_of(const std::string &source, const std::string &stage) {
    const std::string start = "    " + stage + "\n";
    const size_t at = source.find(start);
    if (at == std::string::npos) return "";
    return source.substr(at, source.find(';', at) - at);
}

TEST_P(AutoScheduleSearchSpace, PointwiseUpdateIsComputedPerTileWithItsTapsUnrolled) {
    // A 3x3 convolution written as an update (9 taps of a pointwise
    // producer, inlined into it), read as a stencil: at the root it would
    // make a 16 MiB round trip through memory, so it is computed per tile of
    // out, its update serial there (out's tile loop is the parallel one) and
    // its 9 taps unrolled. The dividend of shaped is not negative, so C++'s /
    // agrees with Loom's (Euclidean) one.
    Buffer<int> input = ramp(64, 50), kern(3, 3);
    kern.fill([](int i, int j) { return i * 3 + j - 4; });
    Var x("x"), y("y");
    RDom r(0, 3, 0, 3, "r");
    Func shaped("shaped"), conv("conv"), out("out");
    shaped(x, y) = ((input(x, y) + 9) * 5 + 3) / 7 + (input(x, y) ^ 12);
    conv(x, y) = 0;
    conv(x, y) += kern(r.x, r.y) * shaped(x + r.x, y + r.y);
    out(x, y) = conv(x, y) + conv(x + 1, y) * 2 + conv(x, y + 1);
    out.set_estimates({{0, 2048}, {0, 2048}});
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    EXPECT_TRUE(contains(statement_of(s, "conv"), ".compute_at(out, ")) << s;
    const std::string update = statement_of(s, "conv.update(0)");
    EXPECT_TRUE(contains(update, ".vectorize(x_v)")) << s;
    EXPECT_TRUE(contains(update, ".unroll(r_x)")) << s;
    EXPECT_TRUE(contains(update, ".unroll(r_y)")) << s;
    EXPECT_FALSE(contains(update, ".parallel(")) << s;
    EXPECT_TRUE(contains(s, "RVar r_x(\"r$x\")")) << s;
    auto sh = [&](int i, int j) { return ((input(i, j) + 9) * 5 + 3) / 7 + (input(i, j) ^ 12); };
    auto cv = [&](int i, int j) {
        int sum = 0;
        for (int b = 0; b < 3; b++) {
            for (int a = 0; a < 3; a++) sum += kern(a, b) * sh(i + a, j + b);
        }
        return sum;
    };
    for (std::vector<int> size : {std::vector<int>{59, 45}, std::vector<int>{5, 3}}) {
        Buffer<int> result = p.realize(size);
        loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
            return cv(c[0], c[1]) + cv(c[0] + 1, c[1]) * 2 + cv(c[0], c[1] + 1);
        });
    }
}

TEST_P(AutoScheduleSearchSpace, ScanAlongXStaysAtTheRoot) {
    // A running sum along x reads its own previous column: not pointwise,
    // so it is never computed per tile (a tile would need every column
    // before it); its y loop is still parallel.
    Buffer<int> input = ramp(40, 30);
    Var x("x"), y("y");
    RDom r(1, 39, "r");
    Func scan("scan"), out("out");
    scan(x, y) = input(x, y) * 3;
    scan(r, y) = scan(r - 1, y) + scan(r, y);
    out(x, y) = scan(x, y) + scan(x, y + 1);
    out.set_estimates({{0, 40}, {0, 29}});
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    EXPECT_TRUE(contains(statement_of(s, "scan"), ".compute_root()")) << s;
    EXPECT_TRUE(contains(statement_of(s, "scan.update(0)"), ".parallel(y)")) << s;
    std::vector<int> prefix(40 * 30);
    for (int j = 0; j < 30; j++) {
        int run = 0;
        for (int i = 0; i < 40; i++) prefix[j * 40 + i] = run += input(i, j) * 3;
    }
    Buffer<int> result = p.realize({40, 29});
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
        return prefix[c[1] * 40 + c[0]] + prefix[(c[1] + 1) * 40 + c[0]];
    });
}


TEST_P(AutoScheduleSearchSpace, StencilChainSlidesWhenTheCacheIsSmall) {
    // Two costly 3x3 stencils: computed per tile of b, a tile small enough
    // for a to fit in a 16 KiB cache recomputes a wide halo of a; sliding
    // along the rows of a large tile keeps three rows of a (store_at the
    // tile loop, compute_at its row loop), each row computed once.
    Buffer<int> input = ramp(45, 40);
    Var x("x"), y("y");
    Func a("a"), b("b"), out("out");
    a(x, y) = expensive(input(x, y), 30);
    Expr sum_a = 0, sum_b = 0;
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++) sum_a = sum_a + a(x + i, y + j);
    }
    b(x, y) = expensive(sum_a, 30);
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++) sum_b = sum_b + b(x + i, y + j) * (i + j);
    }
    out(x, y) = sum_b;
    out.set_estimates({{0, 4096}, {0, 4096}});
    Pipeline p(out);
    const AutoschedulerParams params("LoomHeuristic", {{"parallelism", "1"}, {"last_level_cache_size", "16384"}});
    const std::string s = p.apply_autoscheduler(schedule_target, params).schedule_source;
    EXPECT_TRUE(contains(statement_of(s, "a"), ".store_at(b, x_o)\n        .compute_at(b, y_i)")) << s;
    auto va = [&](int i, int j) { return expensive(input(i, j), 30); };
    auto vb = [&](int i, int j) {
        int sum = 0;
        for (int dj = 0; dj < 3; dj++) {
            for (int di = 0; di < 3; di++) sum += va(i + di, j + dj);
        }
        return expensive(sum, 30);
    };
    for (std::vector<int> size : {std::vector<int>{41, 36}, std::vector<int>{9, 5}}) {
        Buffer<int> result = p.realize(size);
        loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
            int sum = 0;
            for (int dj = 0; dj < 3; dj++) {
                for (int di = 0; di < 3; di++) sum += vb(c[0] + di, c[1] + dj) * (di + dj);
            }
            return sum;
        });
    }
}

TEST(AutoSchedulePointwiseUpdate, OnlyUpdatesThatReadAndWriteTheirOwnPointArePointwise) {
    Var x("x"), y("y");
    RDom r(0, 4, "r");
    Func sum("pw_sum"), scan("pw_scan"), hist("pw_hist");
    sum(x, y) = 0;
    sum(x, y) += x + r;                 // each point its own
    scan(x, y) = x;
    scan(r, y) = scan(r, y) + 1;       // writes along x at r
    hist(x) = 0;
    hist(r % 2) += 1;
    using loom::internal::is_pointwise_update;
    EXPECT_TRUE(is_pointwise_update(*sum.function().get(), 1));
    EXPECT_FALSE(is_pointwise_update(*scan.function().get(), 1));
    EXPECT_FALSE(is_pointwise_update(*hist.function().get(), 1));
}

INSTANTIATE_TEST_SUITE_P(Backends, AutoScheduleSearchSpace,
                         ::testing::Values(loom::internal::Backend::LLVM, loom::internal::Backend::Interpreter),
                         loom_test::backend_test_name);

}  // namespace
