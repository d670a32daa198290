// Schedules never change results: each pipeline is built twice, realized
// once unscheduled and once scheduled, and both are compared with a plain C++
// loop. Covers tile/vectorize/parallel/compute_at on a blur, split with every
// tail strategy on extents the factor does not divide, reorder, fuse, rename,
// unroll (also as a cascade of block sizes), scheduled update stages,
// compute_at/store_at of intermediate Funcs, storage folding and compute_with.

#include <functional>
#include <map>

#include "e2e/E2ETest.h"
#include "lang/LangTestUtil.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class Schedule : public loom_test::BackendTest {};

using Funcs = std::map<std::string, Func>;
using Point = std::vector<int>;

/** Builds the pipeline twice (its output is funcs["out"]); realizes it
 * unscheduled and with `schedule` applied, over each of `sizes`, and expects
 * both to equal `reference`. */
template<typename T = int>
void check_schedule(const std::function<Funcs()> &build, const std::function<void(Funcs &)> &schedule,
                    const std::vector<std::vector<int>> &sizes, const std::function<T(const Point &)> &reference) {
    Funcs plain = build();
    Funcs scheduled = build();
    schedule(scheduled);
    for (const std::vector<int> &size : sizes) {
        std::string where;
        for (int s : size) where += (where.empty() ? "" : "x") + std::to_string(s);
        SCOPED_TRACE("size " + where);
        {
            SCOPED_TRACE("unscheduled");
            Buffer<T> out = plain["out"].realize(size);
            expect_buffer_eq(out, reference);
        }
        SCOPED_TRACE("scheduled");
        Buffer<T> out = scheduled["out"].realize(size);
        expect_buffer_eq(out, reference);
    }
}

int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// ---- A blur with the classic schedule -------------------------------------------

TEST_P(Schedule, BlurTiledVectorizedParallelComputeAt) {
    const int W = 40, H = 30;
    Buffer<int> input(std::vector<int>{W, H}, "blur_input");
    input.for_each_element([&](int i, int j) { input(i, j) = (i * 13 + j * 7) % 23; });
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    auto build = [&] {
        Funcs f;
        Func in = BoundaryConditions::repeat_edge(input);
        f["bx"] = Func("blur_x");
        f["out"] = Func("blur_y");
        f["bx"](x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
        f["out"](x, y) = f["bx"](x, y - 1) + f["bx"](x, y) + f["bx"](x, y + 1);
        return f;
    };
    auto schedule = [&](Funcs &f) {
        f["out"].tile(x, y, xo, yo, xi, yi, 8, 4).vectorize(xi, 4).parallel(yo);
        f["bx"].compute_at(f["out"], xo).vectorize(x, 4);
    };
    auto in = [&](int i, int j) { return input(clampi(i, 0, W - 1), clampi(j, 0, H - 1)); };
    auto bx = [&](int i, int j) { return in(i - 1, j) + in(i, j) + in(i + 1, j); };
    check_schedule<int>(build, schedule, {{W, H}, {37, 29}}, [&](const Point &p) {
        return bx(p[0], p[1] - 1) + bx(p[0], p[1]) + bx(p[0], p[1] + 1);
    });
}

// ---- Splits and their tails ---------------------------------------------------------

TEST_P(Schedule, SplitWithEveryTailStrategy) {
    const TailStrategy all[] = {TailStrategy::Auto, TailStrategy::RoundUp, TailStrategy::GuardWithIf,
                                TailStrategy::ShiftInwards, TailStrategy::PredicateLoads,
                                TailStrategy::PredicateStores};
    const char *names[] = {"Auto", "RoundUp", "GuardWithIf", "ShiftInwards", "PredicateLoads", "PredicateStores"};
    Var x("x"), xo("xo"), xi("xi");
    auto build = [&] {
        Funcs f;
        f["p"] = Func("tail_p");
        f["out"] = Func("tail_out");
        f["p"](x) = x * x - 3;
        f["out"](x) = f["p"](x) + f["p"](x + 1);
        return f;
    };
    for (int k = 0; k < 6; k++) {
        SCOPED_TRACE(names[k]);
        TailStrategy t = all[k];
        // RoundUp and PredicateLoads write past the end, which an output of
        // 13 elements does not allow: the output gets GuardWithIf then.
        bool output_ok = t != TailStrategy::RoundUp && t != TailStrategy::PredicateLoads;
        auto schedule = [&](Funcs &f) {
            f["p"].compute_root().split(x, xo, xi, 4, t);
            f["out"].split(x, xo, xi, 5, output_ok ? t : TailStrategy::GuardWithIf);
        };
        check_schedule<int>(build, schedule, {{13}, {20}}, [](const Point &p) {
            int a = p[0] * p[0] - 3, b = (p[0] + 1) * (p[0] + 1) - 3;
            return a + b;
        });
    }
}

TEST_P(Schedule, NestedSplits) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), xio("xio"), xii("xii");
    auto build = [&] {
        Funcs f;
        f["out"] = Func("nested");
        f["out"](x, y) = x * 100 + y;
        return f;
    };
    auto schedule = [&](Funcs &f) {
        f["out"].split(x, xo, xi, 8, TailStrategy::GuardWithIf).split(xi, xio, xii, 3, TailStrategy::GuardWithIf);
    };
    check_schedule<int>(build, schedule, {{21, 3}, {8, 2}, {5, 1}},
                        [](const Point &p) { return p[0] * 100 + p[1]; });
}

TEST_P(Schedule, ReorderThreeDimensions) {
    Var x("x"), y("y"), z("z");
    auto build = [&] {
        Funcs f;
        f["p"] = Func("reorder_p");
        f["out"] = Func("reorder_out");
        f["p"](x, y, z) = x + 10 * y + 100 * z;
        f["out"](x, y, z) = f["p"](x, y, z) * 2 - f["p"](z, x, y);
        return f;
    };
    auto schedule = [&](Funcs &f) {
        f["p"].compute_root().reorder(z, x, y);
        f["out"].reorder(y, z, x);
    };
    check_schedule<int>(build, schedule, {{5, 5, 5}}, [](const Point &p) {
        auto P = [](int a, int b, int c) { return a + 10 * b + 100 * c; };
        return P(p[0], p[1], p[2]) * 2 - P(p[2], p[0], p[1]);
    });
}

TEST_P(Schedule, FuseAndParallel) {
    Var x("x"), y("y"), xy("xy"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t");
    auto build = [&] {
        Funcs f;
        f["p"] = Func("fuse_p");
        f["out"] = Func("fuse_out");
        f["p"](x, y) = x * 3 + y * 5;
        f["out"](x, y) = f["p"](x, y) + f["p"](x + 1, y + 1);
        return f;
    };
    auto schedule = [&](Funcs &f) {
        f["p"].compute_root().fuse(x, y, xy).parallel(xy);
        f["out"].tile(x, y, xo, yo, xi, yi, 4, 3, TailStrategy::GuardWithIf).fuse(xo, yo, t).parallel(t);
    };
    check_schedule<int>(build, schedule, {{7, 5}, {8, 6}}, [](const Point &p) {
        return p[0] * 3 + p[1] * 5 + (p[0] + 1) * 3 + (p[1] + 1) * 5;
    });
}

TEST_P(Schedule, RenameAndTileReusingNames) {
    Var x("x"), y("y"), col("col"), ci("ci"), yi("yi");
    auto build = [&] {
        Funcs f;
        f["out"] = Func("rename_out");
        f["out"](x, y) = x - 2 * y;
        return f;
    };
    auto schedule = [&](Funcs &f) { f["out"].rename(x, col).tile(col, y, ci, yi, 4, 4); };
    check_schedule<int>(build, schedule, {{9, 6}, {4, 4}}, [](const Point &p) { return p[0] - 2 * p[1]; });
}

TEST_P(Schedule, ParallelWithTaskSize) {
    Var x("x"), y("y");
    auto build = [&] {
        Funcs f;
        f["out"] = Func("tasks");
        f["out"](x, y) = x * y + 1;
        return f;
    };
    auto schedule = [&](Funcs &f) { f["out"].parallel(y, 3).vectorize(x, 4); };
    check_schedule<int>(build, schedule, {{8, 10}, {5, 3}}, [](const Point &p) { return p[0] * p[1] + 1; });
}

// ---- Unrolling and vectorizing --------------------------------------------------------

TEST_P(Schedule, Unroll) {
    Var x("x"), y("y");
    auto build = [&] {
        Funcs f;
        f["out"] = Func("unrolled");
        f["out"](x, y) = x * 7 - y;
        return f;
    };
    auto schedule = [&](Funcs &f) { f["out"].bound(y, 0, 4).unroll(y).unroll(x, 3); };
    check_schedule<int>(build, schedule, {{10, 4}, {3, 4}}, [](const Point &p) { return p[0] * 7 - p[1]; });
}

TEST_P(Schedule, UnrollCascadeOnEveryExtent) {
    Var x("x");
    Func out("cascade");
    out(x) = x * x + 1;
    out.unroll(x, {8, 4, 1});
    for (int n = 1; n <= 21; n++) {
        SCOPED_TRACE(n);
        Buffer<int> b = out.realize({n});
        expect_buffer_eq(b, [](const Point &p) { return p[0] * p[0] + 1; });
    }
    // A cascade on the inner loop of a split, and on an update's RVar.
    Var xo("xo"), xi("xi");
    RDom r(0, 13, "r");
    Func acc("cascade_acc");
    acc(x) = x;
    acc(x) = acc(x) * 3 + r;  // order-dependent
    acc.split(x, xo, xi, 5, TailStrategy::GuardWithIf).unroll(xi, {4, 2, 1});
    acc.update(0).unroll(r, {8, 2, 1});
    Buffer<int> b = acc.realize({12});
    expect_buffer_eq(b, [](const Point &p) {
        int v = p[0];
        for (int i = 0; i < 13; i++) v = v * 3 + i;
        return v;
    });
}

TEST_P(Schedule, VectorizeTypesAndWidths) {
    Var x("x");
    {
        Func out("vec_u8");
        out(x) = cast<uint8_t>(x * 37 + 5);
        out.vectorize(x, 16);
        Buffer<uint8_t> b = out.realize({50});
        expect_buffer_eq(b, [](const Point &p) { return uint8_t(p[0] * 37 + 5); });
    }
    {
        Func out("vec_f32");
        out(x) = cast<float>(x) * 0.5f + 1.0f;
        out.vectorize(x, 8);
        Buffer<float> b = out.realize({13});
        expect_buffer_eq(b, [](const Point &p) { return float(p[0]) * 0.5f + 1.0f; });
    }
    {
        Func out("vec_i16_small");
        out(x) = cast<int16_t>(x * 1000);  // wraps
        out.vectorize(x, 8, TailStrategy::GuardWithIf);
        Buffer<int16_t> b = out.realize({3});
        expect_buffer_eq(b, [](const Point &p) { return int16_t(p[0] * 1000); });
    }
}

// ---- Update stages ------------------------------------------------------------------

TEST_P(Schedule, UpdateStagesVectorizedAndSplit) {
    Var x("x"), xo("xo"), xi("xi");
    RDom r(0, 10, "r");
    auto build = [&] {
        Funcs f;
        f["out"] = Func("upd");
        f["out"](x) = x;
        f["out"](x) += r * x;
        f["out"](x) = f["out"](x) * 2;
        return f;
    };
    auto schedule = [&](Funcs &f) {
        f["out"].vectorize(x, 4);
        f["out"].update(0).vectorize(x, 4);  // RoundUp: the sizes below are multiples of 4
        f["out"].update(1).split(x, xo, xi, 3, TailStrategy::GuardWithIf).unroll(xi);
    };
    check_schedule<int>(build, schedule, {{16}, {8}}, [](const Point &p) { return (p[0] + 45 * p[0]) * 2; });
}

TEST_P(Schedule, UpdateWithIndependentRVarVectorized) {
    Var x("x");
    RDom r(0, 10, "r");
    auto build = [&] {
        Funcs f;
        f["out"] = Func("upd_rvar");
        f["out"](x) = -1;
        f["out"](r) = r * r;
        return f;
    };
    auto schedule = [&](Funcs &f) { f["out"].update(0).vectorize(r, 4); };  // GuardWithIf by default
    check_schedule<int>(build, schedule, {{12}}, [](const Point &p) { return p[0] < 10 ? p[0] * p[0] : -1; });
}

TEST_P(Schedule, OrderedRecurrenceKeepsItsOrderWhenSplit) {
    RDom r(0, 10, "r");
    RVar ro("ro"), ri("ri");
    auto build = [&] {
        Funcs f;
        f["out"] = Func("recur");
        f["out"]() = 1;
        f["out"]() = f["out"]() * 3 + r;
        return f;
    };
    auto schedule = [&](Funcs &f) { f["out"].update(0).split(r, ro, ri, 4).unroll(ri); };
    check_schedule<int>(build, schedule, {{}}, [](const Point &) {
        int v = 1;
        for (int i = 0; i < 10; i++) v = v * 3 + i;
        return v;
    });
}

TEST_P(Schedule, ScanAlongRowsVectorizedAcrossRows) {
    const int W = 12, H = 9;
    Var x("x"), y("y");
    RDom r(1, W - 1, "r");
    auto build = [&] {
        Funcs f;
        f["out"] = Func("scan");
        f["out"](x, y) = (x * 5 + y * 3) % 7;
        f["out"](r, y) = f["out"](r - 1, y) + f["out"](r, y);
        return f;
    };
    auto schedule = [&](Funcs &f) {
        f["out"].update(0).vectorize(y, 4, TailStrategy::GuardWithIf).parallel(y);
    };
    check_schedule<int>(build, schedule, {{W, H}}, [&](const Point &p) {
        int s = 0;
        for (int i = 0; i <= p[0]; i++) s += (i * 5 + p[1] * 3) % 7;
        return s;
    });
}

TEST_P(Schedule, HistogramUpdateUnrolledAndPureStageParallel) {
    Buffer<uint8_t> image(std::vector<int>{17, 9}, "sched_image");
    image.for_each_element([&](int i, int j) { image(i, j) = uint8_t((i * 37 + j * 11) % 32); });
    Var b("bin"), bo("bo"), bi("bi");
    RDom r(image);
    auto build = [&] {
        Funcs f;
        f["out"] = Func("sched_hist");
        f["out"](b) = 0;
        f["out"](cast<int>(image(r.x, r.y))) += 1;
        return f;
    };
    auto schedule = [&](Funcs &f) {
        f["out"].split(b, bo, bi, 64).parallel(bo).vectorize(bi, 8);
        f["out"].update(0).unroll(r.x, 2);
    };
    int expected[256] = {};
    image.for_each_element([&](int i, int j) { expected[image(i, j)]++; });
    check_schedule<int>(build, schedule, {{256}}, [&](const Point &p) { return expected[p[0]]; });
}

TEST_P(Schedule, ReductionOverTwoRVarsWithPureVarsOutside) {
    Var x("x"), y("y");
    RDom r(0, 3, 0, 4, "r");
    auto build = [&] {
        Funcs f;
        f["in"] = Func("mm_in");
        f["out"] = Func("mm");
        f["in"](x, y) = x - y;
        f["out"](x, y) = 0;
        f["out"](x, y) += f["in"](x + r.x, y + r.y) * (r.x + 1);
        return f;
    };
    auto schedule = [&](Funcs &f) {
        f["in"].compute_root();
        f["out"].update(0).reorder(x, r.x, r.y, y).vectorize(x, 4).parallel(y);
    };
    check_schedule<int>(build, schedule, {{8, 5}}, [](const Point &p) {
        int s = 0;
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 3; i++) s += (p[0] + i - (p[1] + j)) * (i + 1);
        return s;
    });
}

// ---- Placement: compute_at, store_at, fold_storage, compute_with -----------------------

TEST_P(Schedule, ComputeAtAndStoreAtIntermediates) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    auto build = [&] {
        Funcs f;
        f["a"] = Func("stage_a");
        f["b"] = Func("stage_b");
        f["out"] = Func("stage_out");
        f["a"](x, y) = x + y * y;
        f["b"](x, y) = f["a"](x, y - 1) + f["a"](x, y + 1);
        f["out"](x, y) = f["b"](x - 1, y) * f["b"](x + 1, y);
        return f;
    };
    auto A = [](int x, int y) { return x + y * y; };
    auto B = [&](int x, int y) { return A(x, y - 1) + A(x, y + 1); };
    auto reference = [&](const Point &p) { return B(p[0] - 1, p[1]) * B(p[0] + 1, p[1]); };
    const std::vector<std::vector<int>> sizes = {{9, 7}};
    {
        SCOPED_TRACE("a at b's y, b at out's y");
        check_schedule<int>(build, [&](Funcs &f) {
            f["a"].compute_at(f["b"], y);
            f["b"].compute_at(f["out"], y);
        }, sizes, reference);
    }
    {
        SCOPED_TRACE("innermost: a at b's x");
        check_schedule<int>(build, [&](Funcs &f) {
            f["a"].compute_at(f["b"], x);
            f["b"].compute_root();
        }, sizes, reference);
    }
    {
        SCOPED_TRACE("a stored at root, computed per row of out (sliding window)");
        check_schedule<int>(build, [&](Funcs &f) {
            f["a"].store_root().compute_at(f["out"], y);
            f["b"].compute_at(f["out"], y);
        }, sizes, reference);
    }
    {
        SCOPED_TRACE("store_at an outer loop of a split");
        check_schedule<int>(build, [&](Funcs &f) {
            f["out"].split(y, yo, yi, 3, TailStrategy::GuardWithIf);
            f["b"].compute_at(f["out"], yi).store_at(f["out"], yo);
            f["a"].compute_at(LoopLevel(f["out"], yo, 0));
        }, sizes, reference);
    }
}

TEST_P(Schedule, ComputeAtAnRVarLoop) {
    Var x("x");
    RDom r(0, 5, "r");
    auto build = [&] {
        Funcs f;
        f["p"] = Func("rv_p");
        f["out"] = Func("rv_out");
        f["p"](x) = x * 3;
        f["out"](x) = 0;
        f["out"](x) += f["p"](x + r);
        return f;
    };
    auto schedule = [&](Funcs &f) { f["p"].compute_at(f["out"], r); };
    check_schedule<int>(build, schedule, {{6}}, [](const Point &p) {
        int s = 0;
        for (int i = 0; i < 5; i++) s += (p[0] + i) * 3;
        return s;
    });
}

TEST_P(Schedule, FoldStorage) {
    Var x("x"), y("y");
    auto build = [&] {
        Funcs f;
        f["p"] = Func("folded");
        f["out"] = Func("fold_out");
        f["p"](x, y) = x * 11 + y * 3;
        f["out"](x, y) = f["p"](x, y - 1) + f["p"](x, y) + f["p"](x, y + 1);
        return f;
    };
    auto schedule = [&](Funcs &f) { f["p"].store_root().compute_at(f["out"], y).fold_storage(y, 4); };
    check_schedule<int>(build, schedule, {{6, 10}}, [](const Point &p) {
        auto P = [](int x, int y) { return x * 11 + y * 3; };
        return P(p[0], p[1] - 1) + P(p[0], p[1]) + P(p[0], p[1] + 1);
    });
}

// compute_with: see ComputeWithTest.cpp.

TEST_P(Schedule, ReorderStorage) {
    Var x("x"), y("y");
    auto build = [&] {
        Funcs f;
        f["p"] = Func("storage_p");
        f["out"] = Func("storage_out");
        f["p"](x, y) = x * 10 + y;
        f["out"](x, y) = f["p"](y, x) + f["p"](x, y);
        return f;
    };
    auto schedule = [&](Funcs &f) { f["p"].compute_root().reorder_storage(y, x); };
    check_schedule<int>(build, schedule, {{6, 6}}, [](const Point &p) { return p[1] * 10 + p[0] + p[0] * 10 + p[1]; });
}

TEST_P(Schedule, TupleFuncScheduled) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func pair("sched_pair"), out("sched_pair_out");
    pair(x, y) = Tuple(x + y, x - y);
    out(x, y) = pair(x, y)[0] * pair(x, y)[1];
    pair.compute_at(out, y).vectorize(x, 4);
    out.split(x, xo, xi, 4, TailStrategy::GuardWithIf).parallel(y);
    Buffer<int> b = out.realize({10, 3});
    expect_buffer_eq(b, [](const Point &p) { return (p[0] + p[1]) * (p[0] - p[1]); });
}

// ---- The schedule as the user sees it ---------------------------------------------

TEST_P(Schedule, ScheduleChangeRecompilesAndLoopNestShowsIt) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("shown");
    f(x, y) = x + y;
    Buffer<int> before = f.realize({8, 4});
    int compiles = internal::jit_compile_count();
    f.split(x, xo, xi, 4).vectorize(xi).parallel(y);
    Buffer<int> after = f.realize({8, 4});
    EXPECT_GT(internal::jit_compile_count(), compiles);
    expect_buffer_eq(after, [](const Point &p) { return p[0] + p[1]; });
    testing::internal::CaptureStdout();
    f.print_loop_nest();
    std::string nest = testing::internal::GetCapturedStdout();
    EXPECT_NE(nest.find("parallel"), std::string::npos) << nest;
    EXPECT_NE(nest.find("vectorized"), std::string::npos) << nest;
    EXPECT_NE(nest.find("xo"), std::string::npos) << nest;
    EXPECT_NE(nest.find("xi"), std::string::npos) << nest;
}

// A producer whose vectorized y loop rounds up (RoundUp) would compute rows
// past the one its consumer needs; in storage folded to one row those rows
// land in the live slot. Folded storage computes only the rows asked for
// (fuzzer seed 520509).
TEST_P(Schedule, FoldedStorageWithARoundedUpVectorizedProducer) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func p("fold_p"), c("fold_c");
    p(x, y) = x * 100 + y * 7;
    c(x, y) = p(x, y - 1) * 2 + 1;
    p.compute_at(c, y).store_root().fold_storage(y, 1);
    p.reorder(y, x).split(x, xo, xi, 8, TailStrategy::ShiftInwards).vectorize(y, 7, TailStrategy::RoundUp);
    Buffer<int> out = c.realize({8, 24});
    expect_buffer_eq(out, [](const std::vector<int> &q) { return (q[0] * 100 + (q[1] - 1) * 7) * 2 + 1; });
}

// Iterations of a parallel loop inside the storage would compute into one
// buffer at the same time (fuzzer seed 501146: a scan recomputed by every
// row of a parallel consumer): refused, as Halide does, naming the Func and
// the loop; folded or not.
TEST_P(Schedule, StorageOutsideAParallelLoopIsRefused) {
    Var x("x"), y("y");
    RDom r(0, 6, "r");
    Func scan("race_scan"), c("race_c");
    scan(x, y) = x;
    scan(x, r) = scan(x, r - 1) + r;
    c(x, y) = scan(x, 5) + y;
    c.parallel(y);
    scan.compute_at(c, y).store_root();
    EXPECT_COMPILE_ERROR(c.realize({8, 16}), "race_scan", "race_c.s0.y");
    scan.store_at(c, y);
    Buffer<int> out = c.realize({8, 16});
    expect_buffer_eq(out, [](const std::vector<int> &q) { return q[0] + 15 + q[1]; });
}

TEST_P(Schedule, FoldedStorageAcrossAParallelLoopIsRefused) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func p("foldpar_p"), c("foldpar_c");
    p(x, y) = x + y;
    c(x, y) = p(x, y) + p(x, y + 1);
    c.split(y, yo, yi, 4).parallel(yo);
    p.compute_at(c, yi).store_root().fold_storage(y, 2);
    EXPECT_COMPILE_ERROR(c.realize({8, 16}), "foldpar_p", "foldpar_c.s0.yo", "parallel");
    // Stored inside the parallel loop, each iteration has its own buffer.
    p.store_at(c, yo);
    Buffer<int> out = c.realize({8, 16});
    expect_buffer_eq(out, [](const std::vector<int> &q) { return 2 * (q[0] + q[1]) + 1; });
}

// A sliding window (in0_bc stored at root, computed per point of f3) whose
// consumer f2 is computed in the same iteration: the region f2 needs in this
// iteration is defined inside the loop, and the window must use it as a
// function of the loop, not its current value (fuzzer seed 541248 read
// columns the window had not computed).
TEST_P(Schedule, SlidingWindowBehindAConsumerComputedPerIteration) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), yo2("yo2"), xo2("xo2"), yi2("yi2"), xi2("xi2");
    Buffer<int> in(25, 38);
    in.set_min({-10, 0});
    in.for_each_element([&](int a, int b) { in(a, b) = (a * 37 + b * 11) % 29; });
    Func bc("slide_bc"), f2("slide_f2"), f3("slide_f3");
    bc(x, y) = BoundaryConditions::repeat_image(in)(x, y);
    RDom r(-2, 5, "slide_r");
    f2(x, y) = 1;
    f2(x, y) = f2(x, y) + bc(x + r + 2, y + 1);
    f3(x, y) = max(x, y) + f2(x, y);
    f3.tile(x, y, xo, yo, xi, yi, 8, 1, TailStrategy::GuardWithIf);
    f2.compute_at(f3, xi);
    f2.update(0).tile(y, x, yo2, xo2, yi2, xi2, 8, 6, TailStrategy::GuardWithIf).parallel(xo2, 3, TailStrategy::RoundUp);
    bc.compute_at(f3, xi).store_root();
    Buffer<int> out(20, 18);
    out.set_min({-1, 0});
    f3.realize(out);
    auto wrap = [](int v, int lo, int n) { return ((v - lo) % n + n) % n + lo; };
    expect_buffer_eq(out, [&](const std::vector<int> &q) {
        int sum = 1;
        for (int k = -2; k <= 2; k++) sum += in(wrap(q[0] + k + 2, -10, 25), wrap(q[1] + 1, 0, 38));
        return std::max(q[0], q[1]) + sum;
    });
}

// A producer split and vectorized along its rows still slides down them:
// stored at root and computed per row of its consumer, it computes one new
// row per iteration after the first, into storage folded to 4 rows. A split
// of the sliding dimension itself slides too, with room in the fold for the
// factor - 1 rows a ShiftInwards tail recomputes before the window (a 3-row
// window split by 2 keeps 4 rows; GuardWithIf, the window), or the
// factor - 1 rows a RoundUp tail computes ahead (split by 4: 6 rows, folded
// to 8; test/e2e/SlidingWindowRoundUpTest.cpp).
TEST_P(Schedule, SlidingWindowOfAProducerSplitAlongItsRows) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    Buffer<float> in(29, 16, "slide_in");
    in.for_each_element([&](int a, int b) { in(a, b) = float((a * 5 + b * 3) % 17); });
    // 12 rows of f read rows 0 .. 13 of in; RoundUp by 4 reads row 14 too
    // (the block of the last row, rows 11 .. 14).
    auto pipeline = [&](int row_split, TailStrategy tail) {
        Func g("slide_split_g"), f("slide_split_f");
        g(x, y) = in(x, y) * 2.0f;
        f(x, y) = g(x, y) + g(x, y + 1) + g(x, y + 2);
        g.store_root().compute_at(f, y).split(x, xo, xi, 8, TailStrategy::GuardWithIf).vectorize(xi);
        if (row_split) g.split(y, yo, yi, row_split, tail);
        return f;
    };
    auto reference = [&](const std::vector<int> &q) {
        return in(q[0], q[1]) * 2.0f + in(q[0], q[1] + 1) * 2.0f + in(q[0], q[1] + 2) * 2.0f;
    };
    struct Case {
        int row_split;
        TailStrategy tail;
        const char *rows;
    };
    for (Case c : {Case{0, TailStrategy::Auto, "4]"}, Case{2, TailStrategy::Auto, "4]"},
                   Case{4, TailStrategy::GuardWithIf, "4]"}, Case{4, TailStrategy::RoundUp, "8]"}}) {
        SCOPED_TRACE("rows split by " + std::to_string(c.row_split));
        Func f = pipeline(c.row_split, c.tail);
        std::string stmt = loom_test::lowered_stmt(f, "slide_split.stmt");
        const std::string folded = "allocate slide_split_g[float32 * slide_split_g.x.extent_realized * ";
        EXPECT_TRUE(loom_test::contains(stmt, folded + c.rows)) << stmt;
        expect_buffer_eq(Buffer<float>(f.realize({29, 12})), reference);
    }
}

LOOM_INSTANTIATE_BACKENDS(Schedule);

}  // namespace
