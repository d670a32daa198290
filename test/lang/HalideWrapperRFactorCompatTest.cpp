// Halide code that uses wrappers, clones and rfactor compiles against Loom
// after `namespace Halide = loom;` and builds the Funcs Halide would: the
// calls of Func::in / clone_in / Stage::rfactor with Halide's argument forms
// (a Func, a braced list of {RVar, Var} pairs, an RDom as its only RVar) and the chained scheduling calls on their results.

#include <gtest/gtest.h>

#include <algorithm>

#include "loom/Loom.h"

namespace Halide = loom;

namespace {

using namespace Halide;

TEST(HalideWrapperRFactorCompat, WrapperAndCloneCalls) {
    Func f("f"), g("g"), h("h");
    Var x("x"), y("y");
    f(x, y) = x + y;
    g(x, y) = f(x, y) * 2;
    h(x, y) = f(x, y) + g(x, y);
    Func wrapper = f.in(g).compute_root();
    Func global = f.in().compute_at(h, y);
    Func clone = g.clone_in(h);
    clone.compute_at(h, x);
    Buffer<int> out = h.realize({6, 4});
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 6; i++) EXPECT_EQ(out(i, j), 3 * (i + j));
}

TEST(HalideWrapperRFactorCompat, RFactorCalls) {
    Func g("g");
    Var x("x"), y("y"), u("u"), v("v");
    RDom r(10, 20, 30, 40);
    g(x, y) = 40;
    g(r.x, r.y) = min(g(r.x, r.y), r.x + r.y);
    Func intm = g.update(0).rfactor({{r.y, u}});
    intm.compute_root();
    intm.vectorize(u, 8);
    intm.update(0).vectorize(r.x, 2);
    EXPECT_EQ(intm.dimensions(), 3);  // x, y, u
    Buffer<int> im = g.realize({80, 80});
    for (int j = 0; j < 80; j++) {
        for (int i = 0; i < 80; i++) {
            bool inside = 10 <= i && i < 30 && 30 <= j && j < 70;
            EXPECT_EQ(im(i, j), inside ? std::min(40, i + j) : 40) << i << ", " << j;
        }
    }

    Func dot("dot");
    RDom k(0, 1024);
    dot() = 0;
    dot() += k * 2;
    RVar rxo("rxo"), rxi("rxi");
    dot.update(0).split(k, rxo, rxi, 128);
    Func chunks = dot.update(0).rfactor(rxo, u);
    chunks.compute_root().update(0).parallel(u);
    EXPECT_EQ(Buffer<int>(dot.realize())(), 1023 * 1024);
}

TEST(HalideWrapperRFactorCompat, AssociativeUpdatesReorderTheirRVars) {
    Func f("f_reorder_assoc"), g("g_reorder_order");
    Var x("x");
    RDom r(0, 10, 0, 10);
    f(x) = x;
    f(x) += r.x * r.y;  // associative and commutative: any order gives the same sums
    f.update(0).reorder(r.y, r.x);
    Buffer<int> out = f.realize({3});
    for (int i = 0; i < 3; i++) EXPECT_EQ(out(i), i + 45 * 45);
    g(x) = x;
    g(x) = g(x) * 2 + r.x;  // the order matters: refused
    EXPECT_THROW(g.update(0).reorder(r.y, r.x), CompileError);
    Func h("h_reorder_float");
    h(x) = 0.0f;
    h(x) += cast<float>(r.x) * 0.1f;  // a float sum would round differently: refused
    EXPECT_THROW(h.update(0).reorder(r.y, r.x), CompileError);
}

}  // namespace
