// Stage::rfactor: associative reductions split into an intermediate over
// the preserved RVars (parallelized or vectorized over its new Var) and a
// merge, compared with plain C++ loops on every backend.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::contains;
using loom_test::expect_buffer_eq;
using loom_test::lowered_stmt;

namespace {

class RFactor : public loom_test::BackendTest {};

Buffer<int> ramp_2d(int w, int h, const std::string &name) {
    Buffer<int> b(std::vector<int>{w, h}, name);
    b.for_each_element([&](const std::vector<int> &p) { b(p) = (p[0] * 37 + p[1] * 101) % 97 - 40; });
    return b;
}

TEST_P(RFactor, SumParallelOverTheOuterRVar) {
    const int W = 16, H = 40;
    Buffer<int> in = ramp_2d(W, H, "in");
    RDom r(0, W, 0, H, "r");
    Var u("u");
    Func total("total");
    total() = 0;
    total() += in(r.x, r.y);
    Func intm = total.update().rfactor(r.y, u);
    intm.compute_root();
    intm.update().parallel(u);

    Buffer<int> result = total.realize();
    int expected = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) expected += in(x, y);
    EXPECT_EQ(result(), expected);
    EXPECT_EQ(intm.dimensions(), 1);
    std::string stmt = lowered_stmt(total, "rfactor_sum.stmt");
    EXPECT_TRUE(contains(stmt, intm.name())) << stmt;
    EXPECT_TRUE(contains(stmt, "parallel")) << stmt;
}

TEST_P(RFactor, SumVectorizedOverTheInnerRVar) {
    const int W = 16, H = 25;
    Buffer<int> in = ramp_2d(W, H, "in");
    RDom r(0, W, 0, H, "r");
    Var u("u"), uo("uo"), ui("ui");
    Func total("total");
    total() = 0;
    total() += in(r.x, r.y) * 3;
    Func intm = total.update().rfactor(r.x, u);  // intm(u) = sum over y of in(u, y) * 3
    intm.compute_root().vectorize(u, 8);
    intm.update().split(u, uo, ui, 8).reorder(ui, r.y, uo).vectorize(ui);

    Buffer<int> result = total.realize();
    int expected = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) expected += in(x, y) * 3;
    EXPECT_EQ(result(), expected);
}

TEST_P(RFactor, HistogramWithScatteredLeftHandSide) {
    const int W = 20, H = 12;
    Buffer<uint8_t> img(std::vector<int>{W, H}, "img");
    img.for_each_element([&](const std::vector<int> &p) { img(p) = (uint8_t)((p[0] * 7 + p[1] * 13) % 32); });
    RDom r(0, W, 0, H, "r");
    Var x("x"), u("u");
    Func hist("hist");
    hist(x) = 0;
    hist(cast<int>(img(r.x, r.y))) += 1;
    Func intm = hist.update().rfactor({{r.y, u}});  // intm(x, u): the histogram of row u
    intm.compute_root();
    intm.update().parallel(u);
    EXPECT_EQ(intm.dimensions(), 2);

    Buffer<int> result = hist.realize({32});
    std::vector<int> expected(32, 0);
    for (int y = 0; y < H; y++)
        for (int xx = 0; xx < W; xx++) expected[img(xx, y)]++;
    expect_buffer_eq(result, [&](const std::vector<int> &p) { return expected[p[0]]; });
}

TEST_P(RFactor, PerColumnSumsOfAPureDimension) {
    const int W = 12, H = 32;
    Buffer<int> in = ramp_2d(W, H, "in");
    RDom r(0, 8, 0, 4, "r");  // rows 8 * r.y + r.x
    Var x("x"), u("u");
    Func col("col");
    col(x) = 100;
    col(x) += in(x, r.x + 8 * r.y);
    Func intm = col.update().rfactor(r.y, u);
    intm.compute_root().update().parallel(u);
    col.update().vectorize(x, 4);

    Buffer<int> result = col.realize({W});
    expect_buffer_eq(result, [&](const std::vector<int> &p) {
        int s = 100;
        for (int y = 0; y < H; y++) s += in(p[0], y);
        return s;
    });
}

TEST_P(RFactor, MinMaxProductAndLogicalOperators) {
    const int W = 6, H = 10;
    Buffer<float> in(std::vector<int>{W, H}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = (float)((p[0] * 5 + p[1] * 3) % 11) * 0.25f - 1.0f; });
    RDom r(0, W, 0, H, "r");
    Var u("u");
    Func lo("lo"), hi("hi"), prod("prod"), all_pos("all_pos"), any_big("any_big");
    lo() = 1000.0f;
    lo() = min(lo(), in(r.x, r.y));
    hi() = -1000.0f;
    hi() = max(in(r.x, r.y) * 2.0f, hi());  // the value so far on the right
    prod() = 1;
    prod() = prod() * (cast<int>(in(r.x, r.y) > 0.5f) + 1);
    all_pos() = cast<bool>(true);
    all_pos() = all_pos() && in(r.x, r.y) > -2.0f;
    any_big() = cast<bool>(false);
    any_big() = any_big() || in(r.x, r.y) > 1.4f;
    for (Func *f : {&lo, &hi, &prod, &all_pos, &any_big}) {
        Func intm = f->update().rfactor(r.y, u);
        intm.compute_root().update().parallel(u);
    }
    float elo = 1000.0f, ehi = -1000.0f;
    int eprod = 1;
    bool eall = true, eany = false;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float v = in(x, y);
            elo = std::min(elo, v);
            ehi = std::max(v * 2.0f, ehi);
            eprod *= (v > 0.5f ? 1 : 0) + 1;
            eall = eall && v > -2.0f;
            eany = eany || v > 1.4f;
        }
    }
    EXPECT_EQ(Buffer<float>(lo.realize())(), elo);
    EXPECT_EQ(Buffer<float>(hi.realize())(), ehi);
    EXPECT_EQ(Buffer<int>(prod.realize())(), eprod);
    EXPECT_EQ(Buffer<bool>(all_pos.realize())(), eall);
    EXPECT_EQ(Buffer<bool>(any_big.realize())(), eany);
}

TEST_P(RFactor, TupleOfIndependentReductions) {
    const int W = 8, H = 8;
    Buffer<int> in = ramp_2d(W, H, "in");
    RDom r(0, W, 0, H, "r");
    Var u("u");
    Func stats("stats");
    stats() = Tuple(0, INT_MIN);
    stats() = Tuple(stats()[0] + in(r.x, r.y), max(stats()[1], in(r.x, r.y)));
    Func intm = stats.update().rfactor(r.y, u);
    intm.compute_root().update().parallel(u);
    Realization result = stats.realize();
    int esum = 0, emax = INT_MIN;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) esum += in(x, y), emax = std::max(emax, in(x, y));
    EXPECT_EQ(Buffer<int>(result[0])(), esum);
    EXPECT_EQ(Buffer<int>(result[1])(), emax);
}

TEST_P(RFactor, ArgminKeepsTheFirstOfTies) {
    const int W = 10, H = 6;
    Buffer<int> in(std::vector<int>{W, H}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = (p[0] * 3 + p[1] * 7) % 5; });  // many ties
    RDom r(0, W, 0, H, "r");
    Var u("u");
    Func best("best");
    best() = Tuple(INT_MAX, -1, -1);
    best() = select(in(r.x, r.y) < best()[0], Tuple(in(r.x, r.y), r.x, r.y), Tuple(best()));
    Func intm = best.update().rfactor(r.y, u);  // the outer RVar: the order is kept
    intm.compute_root().update().parallel(u);
    Realization result = best.realize();
    int ev = INT_MAX, ex = -1, ey = -1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (in(x, y) < ev) ev = in(x, y), ex = x, ey = y;
    EXPECT_EQ(Buffer<int>(result[0])(), ev);
    EXPECT_EQ(Buffer<int>(result[1])(), ex);
    EXPECT_EQ(Buffer<int>(result[2])(), ey);
}

TEST_P(RFactor, ArgmaxWithTheBranchesSwapped) {
    const int N = 12, M = 5;
    Buffer<float> in(std::vector<int>{N, M}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = (float)((p[0] * 5 + p[1] * 2) % 7); });
    RDom r(0, N, 0, M, "r");
    Var u("u");
    Func best("best");
    best() = Tuple(-1.0f, 0);
    // Ties go to the later point: the candidate wins unless strictly smaller.
    best() = select(in(r.x, r.y) < best()[0], Tuple(best()), Tuple(in(r.x, r.y), r.x + N * r.y));
    Func intm = best.update().rfactor(r.y, u);
    intm.compute_root();
    Realization result = best.realize();
    float ev = -1.0f;
    int ei = 0;
    for (int y = 0; y < M; y++)
        for (int x = 0; x < N; x++)
            if (!(in(x, y) < ev)) ev = in(x, y), ei = x + N * y;
    EXPECT_EQ(Buffer<float>(result[0])(), ev);
    EXPECT_EQ(Buffer<int>(result[1])(), ei);
}

TEST_P(RFactor, WherePredicateAndWrappingUint8) {
    const int W = 16, H = 16;
    Buffer<uint8_t> in(std::vector<int>{W, H}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = (uint8_t)(p[0] * 29 + p[1] * 31); });
    RDom r(0, W, 0, H, "r");
    r.where((r.x + r.y) % 3 != 0);
    Var u("u");
    Func total("total");
    total() = cast<uint8_t>(7);
    total() += in(r.x, r.y);
    Func intm = total.update().rfactor(r.y, u);
    intm.compute_root().update().parallel(u);
    uint8_t expected = 7;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if ((x + y) % 3 != 0) expected = (uint8_t)(expected + in(x, y));
    EXPECT_EQ(Buffer<uint8_t>(total.realize())(), expected);
}

TEST_P(RFactor, EveryRVarPreserved) {
    const int W = 7, H = 5;
    Buffer<int> in = ramp_2d(W, H, "in");
    RDom r(0, W, 0, H, "r");
    Var u("u"), v("v");
    Func total("total");
    total() = 0;
    total() += in(r.x, r.y) * in(r.x, r.y);
    Func intm = total.update().rfactor({{r.x, u}, {r.y, v}});  // intm(u, v): one term each
    intm.compute_root().parallel(v);
    EXPECT_EQ(intm.dimensions(), 2);
    int expected = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) expected += in(x, y) * in(x, y);
    EXPECT_EQ(Buffer<int>(total.realize())(), expected);
}

TEST_P(RFactor, FuncRFactorIsTheLastUpdate) {
    const int N = 64;
    Buffer<int> in(std::vector<int>{N}, "in");
    for (int i = 0; i < N; i++) in(i) = i * i % 17;
    RDom r(0, 8, 0, 8, "r");
    Var u("u");
    Func total("total");
    total() = 0;
    total() += in(r.x + 8 * r.y);
    Func intm = total.rfactor(r.y, u);
    intm.compute_root().update().parallel(u);
    int expected = 0;
    for (int i = 0; i < N; i++) expected += in(i);
    EXPECT_EQ(Buffer<int>(total.realize())(), expected);
}

TEST_P(RFactor, SplitThenRFactorTheInnerRVarToVectorize) {
    const int N = 1003;  // not a multiple of 8: the last vector is partly outside
    Buffer<int> in(std::vector<int>{N}, "in");
    for (int i = 0; i < N; i++) in(i) = (i * 7919) % 1000 - 500;
    RDom r(0, N, "r");
    RVar rxo("rxo"), rxi("rxi");
    Var u("u");
    Func total("total");
    total() = 0;
    total() += in(r);
    total.update().split(r, rxo, rxi, 8);
    Func intm = total.update().rfactor(rxi, u);  // intm(u) = sum of in(8 * rxo + u)
    intm.compute_root().vectorize(u, 8);
    intm.update().reorder(u, rxo).vectorize(u, 8);
    int expected = 0;
    for (int i = 0; i < N; i++) expected += in(i);
    EXPECT_EQ(Buffer<int>(total.realize())(), expected);
}

TEST_P(RFactor, SplitThenRFactorTheOuterRVarToParallelize) {
    const int N = 1000;
    Buffer<float> in(std::vector<int>{N}, "in");
    for (int i = 0; i < N; i++) in(i) = (float)((i * 37) % 101) - 50.0f;
    RDom r(0, N, "r");
    RVar ro("ro"), ri("ri");
    Var v("v");
    Func hi("hi");
    hi() = -1e9f;
    hi() = max(hi(), in(r));
    hi.update().split(r, ro, ri, 64);  // 16 chunks, the last one partial
    Func intm = hi.update().rfactor(ro, v);
    intm.compute_root().update().parallel(v);
    float expected = -1e9f;
    for (int i = 0; i < N; i++) expected = std::max(expected, in(i));
    EXPECT_EQ(Buffer<float>(hi.realize())(), expected);
}

TEST_P(RFactor, DotProductFactoredTwiceParallelThenVectorized) {
    const int N = 1024;
    Var x("x"), u("u"), v("v");
    Func a("a"), b("b"), dot("dot");
    a(x) = x;
    b(x) = x + 2;
    a.compute_root();
    b.compute_root();
    RDom r(0, N, "r");
    dot() = 0;
    dot() += a(r) * b(r);
    RVar rxo("rxo"), rxi("rxi"), rxio("rxio"), rxii("rxii");
    dot.update().split(r, rxo, rxi, 128);
    Func chunks = dot.update().rfactor(rxo, u);  // chunks(u): the sum over chunk u of 128
    chunks.compute_root();
    chunks.update().parallel(u);
    chunks.update().split(rxi, rxio, rxii, 8);
    Func lanes = chunks.update().rfactor(rxii, v);  // lanes(u, v): every 8th term of chunk u
    lanes.compute_at(chunks, u);
    lanes.update().vectorize(v, 8);
    int expected = 0;
    for (int i = 0; i < N; i++) expected += i * (i + 2);
    EXPECT_EQ(Buffer<int>(dot.realize())(), expected);
    EXPECT_EQ(lanes.dimensions(), 2);
}

TEST_P(RFactor, TwoPreservedRVarsOfAPredicatedRDomTiledAndParallel) {
    Var x("x"), y("y"), z("z"), u("u"), v("v"), ui("ui"), vi("vi"), t("t");
    Func f("f"), g("g");
    f(x, y, z) = x + y + z;
    f.compute_root();
    g(x, y, z) = 1;
    RDom r(5, 10, 5, 10, 0, 20, "r");
    r.where(r.x < r.y);
    r.where(r.x + 2 * r.y <= r.z);
    g(r.x, r.y, r.z) += f(r.x, r.y, r.z);
    Func intm = g.update().rfactor({{r.y, u}, {r.x, v}});
    intm.compute_root();
    intm.tile(u, v, ui, vi, 2, 2).fuse(u, v, t).parallel(t);
    Buffer<int> result = g.realize({20, 20, 20});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        int x = p[0], y = p[1], z = p[2];
        bool in_domain = 5 <= x && x < 15 && 5 <= y && y < 15 && x < y && x + 2 * y <= z;
        return in_domain ? x + y + z + 1 : 1;
    });
}

TEST_P(RFactor, IntermediateReadsThroughAWrapper) {
    Var x("x"), y("y"), u("u");
    Func f("f"), total("total");
    f(x, y) = x * 2 - y;
    RDom r(0, 12, 0, 9, "r");
    total() = 0;
    total() += f(r.x, r.y);
    Func intm = total.update().rfactor(r.y, u);
    intm.compute_root().update().parallel(u);
    Func fw = f.in(intm);  // intm's reads of f go through fw, computed per row
    fw.compute_at(intm, u);
    f.compute_root();
    int expected = 0;
    for (int yy = 0; yy < 9; yy++)
        for (int xx = 0; xx < 12; xx++) expected += xx * 2 - yy;
    EXPECT_EQ(Buffer<int>(total.realize())(), expected);
    EXPECT_TRUE(contains(lowered_stmt(total, "rfactor_wrapper.stmt"), fw.name()));
}

TEST_P(RFactor, ComplexMultiplicationOfATuple) {
    const int W = 5, H = 4;
    Buffer<int> re(std::vector<int>{W, H}, "re"), im(std::vector<int>{W, H}, "im");
    re.for_each_element([&](const std::vector<int> &p) {
        re(p) = (p[0] + 2 * p[1]) % 3 - 1;  // -1, 0, 1
        im(p) = (p[0] * p[1] + 1) % 2;       // 0, 1
    });
    RDom r(0, W, 0, H, "r");
    Var u("u");
    Func prod("prod");
    prod() = Tuple(1, 0);
    Expr a = re(r.x, r.y), b = im(r.x, r.y);
    prod() = Tuple(prod()[0] * a - prod()[1] * b, b * prod()[0] + prod()[1] * a);
    Func intm = prod.update().rfactor(r.y, u);
    intm.compute_root().update().parallel(u);
    int er = 1, ei = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int nr = er * re(x, y) - ei * im(x, y), ni = er * im(x, y) + ei * re(x, y);
            er = nr, ei = ni;
        }
    }
    Realization result = prod.realize();
    EXPECT_EQ(Buffer<int>(result[0])(), er);
    EXPECT_EQ(Buffer<int>(result[1])(), ei);
}

TEST_P(RFactor, TiledHistogramOneIntermediatePerTile) {
    const int W = 30, H = 22;  // not multiples of the tile: partial tiles are guarded
    Buffer<uint8_t> img(std::vector<int>{W, H}, "img");
    img.for_each_element([&](const std::vector<int> &p) { img(p) = (uint8_t)((p[0] * 5 + p[1] * 3) % 16); });
    RDom r(0, W, 0, H, "r");
    Var x("x"), u("u"), v("v");
    RVar rxo("rxo"), ryo("ryo"), rxi("rxi"), ryi("ryi");
    Func hist("hist");
    hist(x) = 0;
    hist(cast<int>(img(r.x, r.y))) += 1;
    hist.update().tile(r.x, r.y, rxo, ryo, rxi, ryi, 8, 8);
    Func intm = hist.update().rfactor({{rxo, u}, {ryo, v}});  // intm(x, u, v): one histogram per tile
    intm.compute_root().update().parallel(v);
    std::vector<int> expected(16, 0);
    img.for_each_element([&](const std::vector<int> &p) { expected[img(p)]++; });
    Buffer<int> result = hist.realize({16});
    expect_buffer_eq(result, [&](const std::vector<int> &p) { return expected[p[0]]; });
    EXPECT_EQ(intm.dimensions(), 3);
}

TEST_P(RFactor, ArgmaxWithAMaxElementAsHalideDocumentsIt) {
    const int W = 9, H = 7;
    Buffer<int> in(std::vector<int>{W, H}, "in");
    in.for_each_element([&](const std::vector<int> &p) { in(p) = (p[0] * 4 + p[1] * 9) % 11; });  // ties
    RDom r(0, W, 0, H, "r");
    Var u("u");
    Func arg_max("arg_max");
    arg_max() = Tuple(0, in(0, 0));
    Expr old_index = arg_max()[0], old_max = arg_max()[1];
    Expr new_index = select(old_max < in(r.x, r.y), r.x + W * r.y, old_index);
    Expr new_max = max(in(r.x, r.y), old_max);
    arg_max() = Tuple(new_index, new_max);
    Func intm = arg_max.update().rfactor(r.y, u);
    intm.compute_root().update().parallel(u);
    int ei = 0, em = in(0, 0);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (em < in(x, y)) ei = x + W * y, em = in(x, y);
    Realization result = arg_max.realize();
    EXPECT_EQ(Buffer<int>(result[0])(), ei);
    EXPECT_EQ(Buffer<int>(result[1])(), em);
}

LOOM_INSTANTIATE_BACKENDS(RFactor);

}  // namespace
