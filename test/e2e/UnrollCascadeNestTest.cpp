// Nested unrolls of the shape of fuzz seed 1001848 (issue 12): f2's fused
// loop unrolled as a cascade {8, 4, 1} around f1 (tiled with GuardWithIf,
// its rows unrolled) around in0_bc (rows split by 8 and unrolled {4, 2, 1}).
// Against a plain C++ loop on every backend; on LLVM the lowered statement
// shows that f1's loops inside the cascade are not partitioned and that
// in0_bc's blocks of 4 and 2 rows, longer than the 2 rows each of its
// realizations has, are left out (13 x 8 copies of in0_bc's store; 3,640
// before 834578b).
#include "E2ETest.h"

#include <algorithm>
#include <vector>

using namespace loom;
using namespace loom_test;

namespace {

class UnrollCascadeNest : public BackendTest {};

constexpr int kInW = 18, kInH = 5, kInMinX = -4;

int mirror_interior(int c, int min, int extent) {
    const int period = 2 * (extent - 1);
    int d = ((c - min) % period + period) % period;
    return min + std::min(d, period - d);
}

int count_lines_starting(const std::string &text, const std::string &start) {
    int n = 0;
    size_t p = 0;
    while (p < text.size()) {
        size_t end = text.find('\n', p);
        if (end == std::string::npos) end = text.size();
        size_t first = text.find_first_not_of(' ', p);
        if (first < end && text.compare(first, start.size(), start) == 0) n++;
        p = end + 1;
    }
    return n;
}

TEST_P(UnrollCascadeNest, SeedShapeMatchesAPlainLoop) {
    Var x("x"), y("y"), xy("xy_f1"), xi("x_i1"), xo4("x_o4"), yo5("y_o5"), xi2("x_i2"), yi3("y_i3");
    Var xo1("x_o1"), xi2b("x_i2"), yo3("y_o3"), yi4("y_i4");
    Buffer<uint8_t> in0(kInW, kInH);
    in0.set_min({kInMinX, 0});
    for (int j = 0; j < kInH; j++)
        for (int i = kInMinX; i < kInMinX + kInW; i++) in0(i, j) = uint8_t((i * 37 + j * 101 + 7) & 255);
    Func in0_bc("in0_bc"), f1("f1"), f2("f2");
    in0_bc(x, y) = BoundaryConditions::mirror_interior(in0)(x, y);
    f1(x, y) = max(((cast<float>(in0_bc(x + 2, y - 1)) / 0.5f) / 2.0f), cast<float>(in0_bc(x, y)));
    f2(x, y) = -4 * cast<int32_t>(clamp(f1(x - 2, y * 2 + 1), -1000.0f, 1000.0f));
    f2.fuse(x, y, xy).vectorize(xy, 4, TailStrategy::GuardWithIf).unroll(xy, {8, 4, 1});
    f1.compute_at(f2, xy).store_root();
    f1.split(x, x, xi, 1, TailStrategy::Auto).tile(x, y, xo4, yo5, xi2, yi3, 4, 8, TailStrategy::GuardWithIf);
    f1.unroll(yi3);
    in0_bc.compute_at(f1, xi);
    in0_bc.split(x, xo1, xi2b, 5, TailStrategy::PredicateLoads).reorder(y, xi2b, xo1);
    in0_bc.split(y, yo3, yi4, 8, TailStrategy::GuardWithIf).unroll(yo3, {4, 2, 1});

    if (GetParam() == internal::Backend::LLVM) {
        const std::string s = lowered_stmt(f2, "cascade_nest.stmt");
        EXPECT_EQ(count_lines_starting(s, "in0_bc["), 13 * 8) << s;
        EXPECT_FALSE(contains(s, "f1.s0.y_o5.steady")) << s;
        EXPECT_FALSE(contains(s, "in0_bc.s0.y_o3.block4")) << s;
    }

    auto bc = [&](int i, int j) {
        return in0(mirror_interior(i, kInMinX, kInW), mirror_interior(j, 0, kInH));
    };
    auto f1_ref = [&](int i, int j) { return std::max(float(bc(i + 2, j - 1)) / 0.5f / 2.0f, float(bc(i, j))); };
    for (auto [w, h, mx, my] : {std::tuple{28, 19, 0, 6}, {5, 3, -3, 0}, {1, 1, 2, 2}, {13, 7, 4, -2}}) {
        Buffer<int> out(w, h);
        out.set_min({mx, my});
        f2.realize(out);
        expect_buffer_eq(out, [&](const std::vector<int> &p) {
            return -4 * int(std::clamp(f1_ref(p[0] - 2, p[1] * 2 + 1), -1000.0f, 1000.0f));
        });
    }
}

}  // namespace

LOOM_INSTANTIATE_BACKENDS(UnrollCascadeNest);
