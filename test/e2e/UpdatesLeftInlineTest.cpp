// A Func with update definitions left at the default (inlined) level cannot
// be substituted; as in Halide it is computed around each statement that
// uses it, so a Func it reads may be computed inside the consumer's loops
// (Halide's lesson 9: the maximum() and minimum() of a clamped input computed
// per row of spread). Checked against plain C++ loops.

#include "e2e/E2ETest.h"

#include <algorithm>

using namespace loom;

namespace {

class UpdatesLeftInline : public loom_test::BackendTest {};

TEST_P(UpdatesLeftInline, InlineReductionsReadAFuncComputedPerRow) {
    const int w = 37, h = 21;
    Buffer<uint8_t> input(w, h, "input");
    input.fill([](int x, int y) { return static_cast<uint8_t>((x * 37 + y * 101 + x * y) % 251); });
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func clamped("clamped"), spread("spread");
    clamped(x, y) = input(clamp(x, 0, w - 1), clamp(y, 0, h - 1));
    RDom box(-2, 5, -2, 5, "box");
    spread(x, y) = maximum(clamped(x + box.x, y + box.y)) - minimum(clamped(x + box.x, y + box.y));
    spread.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8);
    clamped.store_at(spread, yo).compute_at(spread, yi);
    Buffer<uint8_t> out = spread.realize({w, h});
    loom_test::expect_buffer_eq(out, [&](const std::vector<int> &p) {
        int hi = 0, lo = 255;
        for (int by = -2; by <= 2; by++) {
            for (int bx = -2; bx <= 2; bx++) {
                int v = input(std::clamp(p[0] + bx, 0, w - 1), std::clamp(p[1] + by, 0, h - 1));
                hi = std::max(hi, v);
                lo = std::min(lo, v);
            }
        }
        return static_cast<uint8_t>(hi - lo);
    });
}

TEST_P(UpdatesLeftInline, AFuncWithUpdatesUsedByTwoStages) {
    // histo has an update and no schedule: computed where each stage of
    // out uses it, once per point of that stage.
    Var x("x");
    RDom r(0, 4, "r");
    Func histo("histo"), out("out");
    histo(x) = 0;
    histo(x) += x + r;
    out(x) = histo(x) * 2;
    out(x) += histo(x + 1);
    Buffer<int> result = out.realize({10});
    loom_test::expect_buffer_eq(result, [](const std::vector<int> &p) {
        auto h = [](int v) { return 4 * v + 6; };
        return h(p[0]) * 2 + h(p[0] + 1);
    });
}

LOOM_INSTANTIATE_BACKENDS(UpdatesLeftInline);

}  // namespace
