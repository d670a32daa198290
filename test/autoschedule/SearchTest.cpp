// LoomHeuristic's cost model and greedy search (src/autoschedule/CostModel.h,
// Search.h): its choices on small pipelines where the right one is clear,
// each result compared with a plain C++ loop on the JIT and the
// interpreter, and the model's own numbers where they explain a choice.

#include "autoschedule/CallGraph.h"
#include "autoschedule/CostModel.h"
#include "autoschedule/SearchTestData.h"
#include "e2e/E2ETest.h"

namespace {

using namespace loom;
using loom_test::contains;

class AutoScheduleSearch : public loom_test::BackendTest {};

const Target schedule_target("x86-64-linux-avx2");

using loom_test::expensive;
using loom_test::ramp;


TEST_P(AutoScheduleSearch, CheapPointwiseChainIsInlined) {
    Buffer<int> input = ramp(50, 20);
    Var x("x"), y("y");
    Func a("a"), b("b"), c("c"), out("out");
    a(x, y) = input(x, y) + 1;
    b(x, y) = a(x, y) * 2;
    c(x, y) = b(x, y) - a(x, y);   // a read twice at the same point
    out(x, y) = c(x, y) + b(x, y);
    out.set_estimates({{0, 2048}, {0, 2048}});
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    for (const char *f : {"Func a ", "Func b ", "Func c "}) EXPECT_FALSE(contains(s, f)) << f << "\n" << s;
    EXPECT_TRUE(contains(s, "    out\n        .tile(")) << s;
    Buffer<int> result = p.realize({50, 20});
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
        const int va = input(c[0], c[1]) + 1, vb = va * 2;
        return (vb - va) + vb;
    });
}

TEST_P(AutoScheduleSearch, CostlyStencilProducerIsComputedPerTileOfItsConsumer) {
    // A 3x3 stencil of a producer with 32 operations a point: inlined, each
    // output point would compute it 9 times; at the root it makes a 16 MiB
    // round trip through memory; per tile it costs a halo of 2 rows and columns.
    Buffer<int> input = ramp(61, 47);
    Var x("x"), y("y");
    Func g("g"), out("out");
    g(x, y) = expensive(input(x, y), 16);
    Expr sum = 0;
    for (int j = -1; j <= 1; j++) {
        for (int i = -1; i <= 1; i++) sum = sum + g(x + i + 1, y + j + 1);
    }
    out(x, y) = sum;
    out.set_estimates({{0, 2048}, {0, 2048}});
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    EXPECT_TRUE(contains(s, "    g\n        .compute_at(out, ")) << s;
    Buffer<int> result = p.realize({58, 44});
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
        int total = 0;
        for (int j = 0; j <= 2; j++) {
            for (int i = 0; i <= 2; i++) total += expensive(input(c[0] + i, c[1] + j), 16);
        }
        return total;
    });
}

TEST_P(AutoScheduleSearch, ProducerWhoseHaloDwarfsAnyTileIsComputedAtTheRoot) {
    // out reads g 300 rows apart: a tile of any height computes at least 300
    // more rows of g than it uses, so g is computed once, at the root; and
    // with 120 operations a point it is dearer to inline (twice a point) than
    // to store and load.
    Buffer<int> input = ramp(40, 340);
    Var x("x"), y("y");
    Func g("g"), out("out");
    g(x, y) = expensive(input(x, y), 60);
    out(x, y) = g(x, y) + g(x, y + 300);
    out.set_estimates({{0, 2048}, {0, 2048}});
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    EXPECT_TRUE(contains(s, "    g\n        .compute_root()")) << s;
    Buffer<int> result = p.realize({40, 37});
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
        return expensive(input(c[0], c[1]), 60) + expensive(input(c[0], c[1] + 300), 60);
    });
}

TEST_P(AutoScheduleSearch, ProducerReadManyTimesAPointIsNotInlined) {
    // 25 reads of a 5-operation producer a point: inlining would compute it
    // 25 times; it is computed once per point of a tile instead (or at the root).
    Buffer<int> input = ramp(45, 40);
    Var x("x"), y("y");
    Func g("g"), out("out");
    g(x, y) = (input(x, y) * 3 + 1) * (input(x, y) - 2);
    Expr sum = 0;
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 5; i++) sum = sum + g(x + i, y + j);
    }
    out(x, y) = sum;
    out.set_estimates({{0, 1024}, {0, 1024}});
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    EXPECT_TRUE(contains(s, "    g\n        .compute_at(out, ") || contains(s, "    g\n        .compute_root()")) << s;
    Buffer<int> result = p.realize({41, 36});
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
        int total = 0;
        for (int j = 0; j < 5; j++) {
            for (int i = 0; i < 5; i++) {
                const int v = input(c[0] + i, c[1] + j);
                total += (v * 3 + 1) * (v - 2);
            }
        }
        return total;
    });
}

TEST_P(AutoScheduleSearch, ChainOfStencilsIsComputedPerTileOfTheLastOne) {
    // Three stencils in a chain: the first two are both computed per tile
    // of the output (a group of three), not only the one next to it.
    Buffer<int> input = ramp(70, 50);
    Var x("x"), y("y");
    Func s1("s1"), s2("s2"), out("out");
    s1(x, y) = expensive(input(x, y) + input(x + 1, y) + input(x, y + 1), 10);
    s2(x, y) = expensive(s1(x, y) + s1(x + 1, y) + s1(x, y + 1), 10);
    out(x, y) = s2(x, y) + s2(x + 1, y) + s2(x, y + 1);
    out.set_estimates({{0, 2048}, {0, 2048}});
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    EXPECT_TRUE(contains(s, "    s2\n        .compute_at(out, x_o)")) << s;
    EXPECT_TRUE(contains(s, "    s1\n        .compute_at(out, x_o)")) << s;
    Buffer<int> result = p.realize({61, 43});
    auto v1 = [&](int i, int j) { return expensive(input(i, j) + input(i + 1, j) + input(i, j + 1), 10); };
    auto v2 = [&](int i, int j) { return expensive(v1(i, j) + v1(i + 1, j) + v1(i, j + 1), 10); };
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) {
        return v2(c[0], c[1]) + v2(c[0] + 1, c[1]) + v2(c[0], c[1] + 1);
    });
}

// The model's numbers behind the choices above, without running anything.
TEST(AutoScheduleCostModel, HalosAndCacheDecideBetweenTilesAndRoot) {
    ImageParam in(Int(32), 2, "cm_in");
    in.dim(0).set_estimate(0, 2048);
    in.dim(1).set_estimate(0, 2048);
    Var x("x"), y("y");
    Func g("cm_g"), out("cm_out");
    g(x, y) = expensive(in(x, y), 16);
    out(x, y) = g(x, y) + g(x, y + 1) + g(x + 1, y);
    out.set_estimates({{0, 2000}, {0, 2000}});
    using namespace loom::internal;
    CallGraph graph = build_call_graph({out.function()});
    estimate_regions(graph);
    HeuristicSettings settings;
    const CostModel model(graph, schedule_target, settings);
    EXPECT_EQ(model.vector_width("cm_out"), 8);
    EXPECT_EQ(model.point_cost("cm_g").operations, 32);  // 16 steps of 2
    EXPECT_EQ(model.point_cost("cm_out").loads.at("cm_g"), 3);

    Choices root;  // g at the root, out tiled 64 x 32
    root.tiles["cm_out"] = Tile{64, 32};
    Choices per_tile = root;
    per_tile.head_of["cm_g"] = "cm_out";
    const double at_root = model.group_cost("cm_g", Tile{64, 32}, root) + model.group_cost("cm_out", Tile{64, 32}, root);
    const double at_tile = model.group_cost("cm_out", Tile{64, 32}, per_tile);
    // g's 16 MiB do not fit in a core's share of the cache (1 MiB): per tile is cheaper.
    EXPECT_LT(at_tile, at_root);
    EXPECT_LT(model.pipeline_cost(per_tile), model.pipeline_cost(root));
    // A tile of one row recomputes g's halo every row: dearer than 32 rows.
    EXPECT_GT(model.group_cost("cm_out", Tile{64, 1}, per_tile), at_tile);
    // With a cache that holds all of g, the round trip through memory is free
    // and the halo's recomputation makes per tile the dearer choice.
    settings.last_level_cache_size = uint64_t(1) << 40;
    const CostModel big_cache(graph, schedule_target, settings);
    EXPECT_GT(big_cache.group_cost("cm_out", Tile{64, 32}, per_tile),
              big_cache.group_cost("cm_g", Tile{64, 32}, root) + big_cache.group_cost("cm_out", Tile{64, 32}, root));
}

#define LOOM_INSTANTIATE_CPU_BACKENDS(Fixture)                                                               \
    INSTANTIATE_TEST_SUITE_P(Backends, Fixture,                                                             \
                             ::testing::Values(loom::internal::Backend::LLVM,                                \
                                               loom::internal::Backend::Interpreter),                        \
                             loom_test::backend_test_name)
LOOM_INSTANTIATE_CPU_BACKENDS(AutoScheduleSearch);

}  // namespace
