// Long pipelines (docs/AUTOSCHEDULER.md, "Measured"): a chain of 30
// stencils and a chain of 64 stages, autoscheduled and run on the JIT and
// the interpreter against plain C++ loops. Autoscheduling time grows about
// linearly with the number of Funcs; bench/autoschedule.cpp times it (these
// tests only need it to finish).

#include "e2e/E2ETest.h"

namespace {

using namespace loom;
using loom_test::contains;

class AutoScheduleLongChain : public loom_test::BackendTest {};

const Target schedule_target("x86-64-linux-avx2");

/** Stage i of the chains: a 3-tap stencil along x (even i) or y (odd i)
 * that averages, so values stay small; `pointwise` stages in between add a
 * cheap per-point step. */
struct Chain {
    int stencils = 0;
    bool pointwise_between = false;
};

int input_value(int x, int y) { return (x * 7 + y * 13) % 61; }

/** The chain's value at (x, y), by plain C++ over the region each stage needs. */
std::vector<int> reference(const Chain &chain, int w, int h) {
    // Stencil i reads offsets 0..2 in its direction: the input needs a margin
    // of 2 per stencil along x (even) and y (odd).
    const int mx = 2 * ((chain.stencils + 1) / 2), my = 2 * (chain.stencils / 2);
    int cw = w + mx, ch = h + my;
    std::vector<int> cur(size_t(cw) * ch);
    for (int y = 0; y < ch; y++) {
        for (int x = 0; x < cw; x++) cur[size_t(y) * cw + x] = input_value(x, y);
    }
    for (int i = 0; i < chain.stencils; i++) {
        const bool along_x = i % 2 == 0;
        const int nw = along_x ? cw - 2 : cw, nh = along_x ? ch : ch - 2;
        std::vector<int> next(size_t(nw) * nh);
        for (int y = 0; y < nh; y++) {
            for (int x = 0; x < nw; x++) {
                auto at = [&](int k) { return along_x ? cur[size_t(y) * cw + x + k] : cur[size_t(y + k) * cw + x]; };
                int v = (at(0) + 2 * at(1) + at(2)) / 4;
                if (chain.pointwise_between) v = (v * 3 + i) % 97;
                next[size_t(y) * nw + x] = v;
            }
        }
        cur = std::move(next);
        cw = nw, ch = nh;
    }
    return cur;
}

Func build(const Chain &chain, const Buffer<int> &input) {
    Var x("x"), y("y");
    Func prev("c_in");
    prev(x, y) = input(x, y);
    for (int i = 0; i < chain.stencils; i++) {
        Func s("c_s" + std::to_string(i));
        Expr a = prev(x, y);
        Expr b = i % 2 == 0 ? prev(x + 1, y) : prev(x, y + 1);
        Expr c = i % 2 == 0 ? prev(x + 2, y) : prev(x, y + 2);
        s(x, y) = (a + 2 * b + c) / 4;
        if (chain.pointwise_between) {
            Func p("c_p" + std::to_string(i));
            p(x, y) = (s(x, y) * 3 + i) % 97;
            s = p;
        }
        prev = s;
    }
    return prev;
}

void run_chain(const Chain &chain) {
    const int w = 37, h = 23;
    const int mx = 2 * ((chain.stencils + 1) / 2), my = 2 * (chain.stencils / 2);
    Buffer<int> input(w + mx, h + my);
    input.fill([](int x, int y) { return input_value(x, y); });
    Func out = build(chain, input);
    out.set_estimates({{0, 1024}, {0, 1024}});
    Pipeline p(out);
    const std::string s = p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
    EXPECT_TRUE(contains(s, "vectorize(")) << s;
    const std::vector<int> expected = reference(chain, w, h);
    Buffer<int> result = p.realize({w, h});
    loom_test::expect_buffer_eq(result, [&](const std::vector<int> &c) { return expected[size_t(c[1]) * w + c[0]]; });
}

TEST_P(AutoScheduleLongChain, ThirtyStencils) { run_chain({30, false}); }

TEST_P(AutoScheduleLongChain, SixtyFourStages) { run_chain({32, true}); }

INSTANTIATE_TEST_SUITE_P(Backends, AutoScheduleLongChain,
                         ::testing::Values(loom::internal::Backend::LLVM, loom::internal::Backend::Interpreter),
                         loom_test::backend_test_name);

}  // namespace
