// A sliding window along a vectorized dimension (issue 12): a producer
// stored outside its consumer's x loop, computed at it, and vectorized along
// x with a GuardWithIf tail. Its window slides in whole vectors, computed up
// to width - 1 columns ahead on one grid, so the steady state runs full
// vectors instead of one guarded scalar column per iteration. Values against
// C++ on every back end (the input cropped to exactly what the consumers
// read, NaN around it, so a read past the window shows), and the lowered
// statement's steady state: every iteration computes no column or one whole
// vector.

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lang/Backend.h"
#include "lower/Lower.h"

namespace {

using namespace loom;

class SlidingVectorWindowTest : public loom_test::BackendTest {};

enum class Schedule { StoreRoot, StoreAtRow, PerConsumerStrip };

/** g(x, y) = f(x - 1, y) + 3 f(x, y) + f(x + 2, y), f(x, y) = 2 in(x, y) + 1,
 * with f vectorized by 8 (GuardWithIf) and sliding along g's x. */
struct Stencil {
    ImageParam in{Float(32), 2, "svw_in"};
    Var x{"x"}, y{"y"}, xo{"xo"}, xi{"xi"};
    Func f{"svw_f"}, g{"svw_g"};
    explicit Stencil(Schedule s) {
        f(x, y) = in(x, y) * 2.0f + 1.0f;
        g(x, y) = f(x - 1, y) + f(x, y) * 3.0f + f(x + 2, y);
        switch (s) {
        case Schedule::StoreRoot: f.store_root().compute_at(g, x); break;
        case Schedule::StoreAtRow: f.store_at(g, y).compute_at(g, x); break;
        case Schedule::PerConsumerStrip:
            g.split(x, xo, xi, 4, TailStrategy::GuardWithIf);
            f.store_root().compute_at(g, xo);
            break;
        }
        f.vectorize(x, 8, TailStrategy::GuardWithIf);
    }
};

float input_value(int x, int y) { return float(x * 7 + (y * 13) % 11); }

TEST_P(SlidingVectorWindowTest, ValuesMatchCpp) {
    for (Schedule s : {Schedule::StoreRoot, Schedule::StoreAtRow, Schedule::PerConsumerStrip}) {
        Stencil p(s);
        for (int width : {1, 2, 3, 6, 7, 8, 9, 13, 16, 17, 30, 33}) {
            for (int min : {-5, 3}) {
                // What g reads of in is [min - 1, min + width + 1]: the buffer is
                // cropped to exactly that, and NaN just around it.
                Buffer<float> all(width + 20, 3);
                all.set_min({min - 10, 0});
                all.for_each_element([&](const std::vector<int> &q) {
                    all(q) = q[0] >= min - 1 && q[0] <= min + width + 1 ? input_value(q[0], q[1]) : NAN;
                });
                p.in.set(all.cropped(0, min - 1, width + 3));
                Buffer<float> out(width, 3);
                out.set_min({min, 0});
                p.g.realize(out);
                SCOPED_TRACE("schedule " + std::to_string(int(s)) + ", width " + std::to_string(width) + ", min " +
                             std::to_string(min));
                loom_test::expect_buffer_eq(out, [&](const std::vector<int> &q) {
                    auto fv = [&](int x) { return input_value(x, q[1]) * 2.0f + 1.0f; };
                    return fv(q[0] - 1) + fv(q[0]) * 3.0f + fv(q[0] + 2);
                });
            }
        }
    }
}

LOOM_INSTANTIATE_BACKENDS(SlidingVectorWindowTest);

/** The lets at the top of the body of each loop named `loop`, in order. */
struct LoopLets : internal::IRVisitor {
    std::string loop;
    std::vector<std::map<std::string, Expr>> per_loop;
    std::vector<int> vector_store_lanes;  // the lanes of the stores to f inside them
    int depth = 0;
    using internal::IRVisitor::visit;
    void visit(const internal::For *op) override {
        if (op->name != loop) return internal::IRVisitor::visit(op);
        per_loop.emplace_back();
        Stmt body = op->body;
        while (const internal::LetStmt *l = body.as<internal::LetStmt>()) {
            per_loop.back()[l->name] = l->value;
            body = l->body;
        }
        depth++;
        body.accept(this);
        depth--;
    }
    void visit(const internal::Store *op) override {
        if (depth > 0 && op->name == "svw_f") vector_store_lanes.push_back(op->value.type().lanes());
        internal::IRVisitor::visit(op);
    }
};

TEST(SlidingVectorWindow, TheSteadyStateComputesWholeVectors) {
    Stencil p(Schedule::StoreRoot);
    const internal::LoweredFunc lowered =
        internal::lower({p.g.function()}, "svw", get_jit_target_from_environment().with_feature(Target::NoAsserts));
    LoopLets lets;
    lets.loop = "svw_g.s0.x";
    lowered.body.accept(&lets);
    // Loop partitioning splits off the first iteration; the last loop is the
    // steady state, where f's bounds are set per iteration.
    ASSERT_FALSE(lets.per_loop.empty()) << lowered.body;
    const std::map<std::string, Expr> &steady = lets.per_loop.back();
    ASSERT_TRUE(steady.count("svw_f.s0.x.min") && steady.count("svw_f.s0.x.max")) << lowered.body;
    // Its stores of f are vectors of 8 (the scalar ones only in the tail of a
    // GuardWithIf split, which the steady state never runs: below).
    bool any_vector = false;
    for (int lanes : lets.vector_store_lanes) any_vector |= lanes == 8;
    EXPECT_TRUE(any_vector) << lowered.body;

    // Each steady iteration of a row of 64 computes no column of f or 8:
    // 67 columns in all, the first iteration's warm-up (a whole vector too)
    // included.
    const int width = 64;
    int64_t computed = 0;
    auto columns_at = [&](int x) -> int64_t {
        std::map<std::string, Expr> values = {
            {"svw_g.s0.x", Expr(x)}, {"svw_g.min.0", Expr(0)}, {"svw_g.extent.0", Expr(width)}};
        Expr extent = internal::simplify(internal::substitute(
            values, steady.at("svw_f.s0.x.max") - steady.at("svw_f.s0.x.min") + 1));
        auto n = internal::as_const_int(extent);
        EXPECT_TRUE(n.has_value()) << "at x = " << x << ": " << extent;
        return n ? *n : -1;
    };
    for (int x = 1; x < width; x++) {
        const int64_t n = columns_at(x);
        EXPECT_TRUE(n == 0 || n == 8) << "at x = " << x << ": " << n << " columns";
        computed += n;
    }
    // The first iteration computes one vector from the window's start.
    EXPECT_EQ(computed + 8, 72) << "columns computed in steady state";
}

}  // namespace
