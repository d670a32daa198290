// An update split with RoundUp computes rows past its region, and reads its
// input there only through a clamp (fuzz seed 1144255). The clamp bounds
// the rows read, so the pipeline must ask for no row outside it: bounds
// inference used to drop the clamp (the last row computed, lo + ((hi - lo
// + 7) / 7) * 7 - 1, is at most 22 < 29) and then bound that row over the
// consumer's loop as if lo were read twice independently, asking rows up
// to 30 of an input of rows [4, 29] (error -4, "accessed at 30, beyond the
// max (29)"). Against a plain C++ loop on every backend, and the bounds
// query against the rows the clamp allows.
#include "E2ETest.h"

#include <algorithm>
#include <map>
#include <vector>

using namespace loom;
using namespace loom_test;

namespace {

class RoundUpClampedRead : public BackendTest {};

constexpr int kInW = 17, kInH = 26, kInMinX = -6, kInMinY = 4;

int euclid_mod(int a, int b) {
    const int r = a % b;
    return r < 0 ? r + b : r;
}

TEST_P(RoundUpClampedRead, ClampBoundsTheRowsAsked) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Buffer<int32_t> in0(kInW, kInH);
    in0.set_min({kInMinX, kInMinY});
    for (int j = kInMinY; j < kInMinY + kInH; j++)
        for (int i = kInMinX; i < kInMinX + kInW; i++) in0(i, j) = (i * 37 + j * 101 + 7) % 199 - 99;
    Func f0("f0"), f1("f1"), f2("f2");
    f0(x, y) = -4;
    RDom r(6, 19, "r0");
    f0(r.x, y) = f0(r.x - 1, y) + in0(clamp(r.x, -6, 10), clamp(y, 4, 29));
    f1(x, y) = -9;
    RDom r1(-4, 21, "r1");
    r1.where(x - r1.x < 13);
    f1(x, r1.x) = f1(x, r1.x - 1) + (f1(x, r1.x) + f0(x, r1.x) % 4093);
    f2(x, y) = min(max(y, -8), f1(x, y));
    f0.compute_at(f2, x);
    f0.update(0).split(y, yo, yi, 7, TailStrategy::RoundUp);

    // The pipeline over an ImageParam asks for no row the clamp excludes.
    ImageParam p(Int(32), 2, "p");
    Func g0("g0"), g1("g1"), g2("g2");
    g0(x, y) = -4;
    g0(r.x, y) = g0(r.x - 1, y) + p(clamp(r.x, -6, 10), clamp(y, 4, 29));
    g1(x, y) = -9;
    g1(x, r1.x) = g1(x, r1.x - 1) + (g1(x, r1.x) + g0(x, r1.x) % 4093);
    g2(x, y) = min(max(y, -8), g1(x, y));
    g0.compute_at(g2, x);
    g0.update(0).split(y, yo, yi, 7, TailStrategy::RoundUp);
    g2.infer_input_bounds({23, 22});
    Buffer<> asked = p.get();
    EXPECT_GE(asked.dim(1).min(), 4);
    EXPECT_LE(asked.dim(1).max(), 29);

    auto in = [&](int i, int j) { return in0(std::clamp(i, -6, 10), std::clamp(j, 4, 29)); };
    auto f0_ref = [&](int i, int j) {
        int v = -4;
        for (int k = 6; k <= std::min(i, 24); k++) v += in(k, j);
        return i >= 6 && i <= 24 ? v : -4;
    };
    auto f1_column = [&](int i) {
        std::map<int, int> col;
        auto at = [&](int j) { return col.count(j) ? col[j] : -9; };
        for (int k = -4; k <= 16; k++) {
            if (i - k < 13) col[k] = at(k - 1) + (at(k) + euclid_mod(f0_ref(i, k), 4093));
        }
        return col;
    };
    for (auto [w, h, mx, my] : {std::tuple{23, 22, 0, 0}, {23, 22, 6, 0}, {4, 30, 20, -5}}) {
        Buffer<int> out(w, h);
        out.set_min({mx, my});
        f2.realize(out);
        expect_buffer_eq(out, [&](const std::vector<int> &q) {
            std::map<int, int> col = f1_column(q[0]);
            const int v = col.count(q[1]) ? col[q[1]] : -9;
            return std::min(std::max(q[1], -8), v);
        });
    }
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(RoundUpClampedRead);
