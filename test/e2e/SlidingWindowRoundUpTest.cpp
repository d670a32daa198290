// Sliding windows of producers split with a RoundUp tail along the sliding
// dimension (docs/SCHEDULING.md, "Sliding window"): a 3x3 blur whose blur_x
// is stored at the root, computed per row of blur_y and split by 2, 3 or 4
// rounding up. The window slides in whole blocks of the factor; the input
// region stays what bounds inference reports (checked with
// infer_input_bounds, then the pipeline runs on an input of exactly that
// region), the rows blur_x computes (counted with a trace of its stores)
// are the blocks of one grid that hold the rows read, and the values match
// C++.

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "E2ETest.h"

namespace {

using namespace loom;
using loom_test::contains;
using loom_test::expect_buffer_eq;

/** The rows of the traced Func's stores: how many points, and the extremes. */
struct RowsStored {
    std::mutex mutex;
    long points = 0;
    int min_row = 1 << 30, max_row = -(1 << 30);
};
RowsStored &rows_stored() {
    static RowsStored r;
    return r;
}
void clear_rows_stored() {
    RowsStored &r = rows_stored();
    r.points = 0;
    r.min_row = 1 << 30;
    r.max_row = -(1 << 30);
}
int32_t record_rows(void *, const loom_trace_event_t *e) {
    if (e->event != loom_trace_store) return 0;
    RowsStored &r = rows_stored();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (int lane = 0; lane < e->type.lanes; lane++) {
        const int row = e->coordinates[lane * e->dimensions + 1];
        r.points++;
        r.min_row = std::min(r.min_row, row);
        r.max_row = std::max(r.max_row, row);
    }
    return 0;
}

class SlidingWindowRoundUp : public loom_test::BackendTest {};

constexpr int W = 10;

struct Blur {
    ImageParam in{Int(32), 2, "rw_in"};
    Var x{"x"}, y{"y"}, yo{"yo"}, yi{"yi"};
    Func blur_x{"rw_blur_x"}, blur_y{"rw_blur_y"};
    explicit Blur(int factor) {
        blur_x(x, y) = in(x - 1, y) + in(x, y) * 2 + in(x + 1, y);
        blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) * 3 + blur_x(x, y + 1);
        blur_x.store_root().compute_at(blur_y, y).split(y, yo, yi, factor, TailStrategy::RoundUp);
    }
    int reference(const Buffer<int> &input, int i, int j) const {
        auto bx = [&](int a, int b) { return input(a - 1, b) + input(a, b) * 2 + input(a + 1, b); };
        return bx(i, j - 1) + bx(i, j) * 3 + bx(i, j + 1);
    }
};

Buffer<int> rows_ramp(int min_y, int extent_y) {
    Buffer<int> b(W + 2, extent_y);
    b.set_min({-1, min_y});
    b.for_each_element([&](int i, int j) { b(i, j) = (i * 7 + j * 13) % 31 - 9; });
    return b;
}

TEST_P(SlidingWindowRoundUp, BlurSlidesInWholeBlocksInsideTheInferredRegion) {
    struct Case {
        int factor;
        const char *slots;  // the folded rows: the 3-row window plus factor - 1, to a power of two
    };
    for (Case c : {Case{2, "4]"}, Case{3, "8]"}, Case{4, "8]"}}) {
        Blur p(c.factor);
        std::string stmt = loom_test::lowered_stmt(p.blur_y, "rw_blur.stmt");
        EXPECT_TRUE(contains(stmt, "allocate rw_blur_x[int32 * rw_blur_x.x.extent_realized * " + std::string(c.slots)))
            << "factor " << c.factor << "\n" << stmt;
        p.blur_x.trace_stores();
        // Unslid, row y computes rows [y - 1, y - 1 + R - 1], R the 3 rows
        // rounded up to the factor: bounds inference asks rows
        // [-1, H - 3 + R] of the input.
        const int rounded = (3 + c.factor - 1) / c.factor * c.factor;
        for (int h : {7, 8, 9, 11}) {
            SCOPED_TRACE("factor " + std::to_string(c.factor) + ", height " + std::to_string(h));
            p.in.reset();
            p.blur_y.infer_input_bounds({W, h});
            const Buffer<> asked = p.in.get();
            ASSERT_EQ(asked.dimensions(), 2);
            EXPECT_EQ(asked.min(0), -1);
            EXPECT_EQ(asked.extent(0), W + 2);
            EXPECT_EQ(asked.min(1), -1);
            EXPECT_EQ(asked.extent(1), h + rounded - 1);

            Buffer<int> input = rows_ramp(-1, h + rounded - 1);
            p.in.set(input);
            clear_rows_stored();
            loom_trace_handler_t previous = loom_set_trace_handler(&record_rows);
            Buffer<int> out = p.blur_y.realize({W, h});
            loom_set_trace_handler(previous);
            expect_buffer_eq(out, [&](const std::vector<int> &q) { return p.reference(input, q[0], q[1]); });
            // The blocks of one grid from row -1 that hold the rows read,
            // -1 .. h; the last one shifted back if it would end past the
            // last row bounds inference sized (recomputing rows before it).
            const int blocks = (h + 2 + c.factor - 1) / c.factor;
            EXPECT_EQ(rows_stored().points, (long)blocks * c.factor * W);
            EXPECT_LT(rows_stored().points, (long)h * rounded * W);  // unslid: R rows per row of blur_y
            EXPECT_EQ(rows_stored().min_row, -1);
            EXPECT_EQ(rows_stored().max_row, std::min(blocks * c.factor - 2, h - 3 + rounded));
        }
    }
}

// Fuzz seed 1022856: f3 slides along f4's x with a RoundUp split, and its
// producer f2 is computed at the same loop, sized per iteration for the
// region f3 needs there. A window on the RoundUp grid computes f3 past that
// region and read f2 past its allocation (the interpreter's bounds check
// caught it; the JIT read out of bounds), so no grid window is taken when
// another Func is produced inside the loop.
TEST_P(SlidingWindowRoundUp, ProducerComputedInsideTheLoopIsNotOverrun) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f2("rw_f2"), f3("rw_f3"), f4("rw_f4");
    f2(x, y) = clamp(cast<uint8_t>(y), cast<uint8_t>(50), cast<uint8_t>(130)) / cast<uint8_t>(3);
    f3(x, y) = x % cast<int32_t>(f2(x + 2, y));
    f4(x, y) = (f3(x - 2, y - 2) % 10) / f3(x, y - 1);
    f3.compute_at(f4, x).store_at(f4, y).split(x, xo, xi, 5, TailStrategy::RoundUp);
    f2.compute_at(f4, x);
    Buffer<int32_t> out(std::vector<int>{12, 11});
    out.set_min({7, 0});
    f4.realize(out);
    auto r2 = [](int j) { return std::min(std::max((int)(uint8_t)j, 50), 130) / 3; };
    auto r3 = [&](int i, int j) { return i % r2(j); };  // i >= 5 here
    expect_buffer_eq(out, [&](const std::vector<int> &p) {
        const int d = r3(p[0], p[1] - 1);
        return d == 0 ? 0 : (r3(p[0] - 2, p[1] - 2) % 10) / d;  // Loom's x / 0 is 0
    });
}

LOOM_INSTANTIATE_BACKENDS(SlidingWindowRoundUp);

}  // namespace
