// Func::in (global and per-consumer wrappers) and Func::clone_in, compared
// with plain C++ loops on every backend.

#include <string>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::contains;
using loom_test::expect_buffer_eq;
using loom_test::lowered_stmt;

namespace {

class Wrapper : public loom_test::BackendTest {};

int f_ref(int x, int y) { return x * 3 + y * 7 - 5; }

TEST_P(Wrapper, GlobalWrapperIsCalledByEveryConsumer) {
    Var x("x"), y("y");
    Func f("f"), g("g"), h("h"), out("out");
    f(x, y) = x * 3 + y * 7 - 5;
    g(x, y) = f(x, y) + f(x + 1, y);
    h(x, y) = f(x, y - 1) * 2;
    out(x, y) = g(x, y) - h(x, y);

    Func fw = f.in();
    EXPECT_EQ(fw.name(), f.in().name()) << "in() twice gives the same wrapper";
    EXPECT_NE(fw.name(), f.name());
    fw.compute_root();
    g.compute_root();

    Buffer<int> result = out.realize({17, 9});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        int x = p[0], y = p[1];
        return (f_ref(x, y) + f_ref(x + 1, y)) - f_ref(x, y - 1) * 2;
    });
    // The wrapper is realized on its own; f, inlined, lives only inside it.
    std::string stmt = lowered_stmt(out, "global_wrapper.stmt");
    EXPECT_TRUE(contains(stmt, fw.name())) << stmt;
}

TEST_P(Wrapper, PerConsumerWrapperLeavesOtherConsumersAlone) {
    Var x("x"), y("y");
    Func f("f"), g("g"), h("h"), out("out");
    f(x, y) = x * 3 + y * 7 - 5;
    g(x, y) = f(x, y) + 1;
    h(x, y) = f(x, y) * 2;
    out(x, y) = g(x, y) + h(x, y);
    f.compute_root();
    g.compute_root();
    Func fg = f.in(g);
    EXPECT_EQ(fg.name(), f.in(g).name()) << "in(g) twice gives the same wrapper";
    fg.compute_at(g, y).vectorize(x, 4);

    Buffer<int> result = out.realize({19, 6});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        return f_ref(p[0], p[1]) + 1 + f_ref(p[0], p[1]) * 2;
    });
    std::string stmt = lowered_stmt(out, "per_consumer_wrapper.stmt");
    EXPECT_TRUE(contains(stmt, fg.name())) << stmt;
}

TEST_P(Wrapper, OneWrapperSharedByAListOfConsumers) {
    Var x("x");
    Func f("f"), g("g"), h("h"), k("k"), out("out");
    f(x) = x * x;
    g(x) = f(x) + 1;
    h(x) = f(x + 2) - 1;
    k(x) = f(x) * 3;
    out(x) = g(x) + h(x) + k(x);
    Func shared = f.in({g, h});
    EXPECT_EQ(shared.name(), f.in({g, h}).name());
    EXPECT_EQ(shared.name(), f.in(g).name()) << "g's wrapper is the shared one";
    shared.compute_root();
    Buffer<int> result = out.realize({23});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        int x = p[0];
        return (x * x + 1) + ((x + 2) * (x + 2) - 1) + x * x * 3;
    });
}

TEST_P(Wrapper, ConsumerDefinedAfterTheWrapperCallsIt) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = x + 10;
    Func fw = f.in();
    fw.compute_root();
    g(x) = f(x) * f(x + 1);  // defined after in(): calls fw
    Buffer<int> result = g.realize({12});
    expect_buffer_eq(result, [](const std::vector<int> &p) { return (p[0] + 10) * (p[0] + 11); });
    EXPECT_TRUE(contains(lowered_stmt(g, "later_consumer.stmt"), fw.name()));
}

TEST_P(Wrapper, WrapperOfAWrapper) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = 2 * x + 1;
    g(x) = f(x) + f(x + 3);
    Func w1 = f.in();
    Func w2 = w1.in();
    w1.compute_root();
    w2.compute_at(g, x);
    Buffer<int> result = g.realize({10});
    expect_buffer_eq(result, [](const std::vector<int> &p) { return (2 * p[0] + 1) + (2 * (p[0] + 3) + 1); });
    std::string stmt = lowered_stmt(g, "wrapper_chain.stmt");
    EXPECT_TRUE(contains(stmt, w1.name())) << stmt;
    EXPECT_TRUE(contains(stmt, w2.name())) << stmt;
}

TEST_P(Wrapper, OwnWrapperWinsOverTheGlobalOne) {
    Var x("x");
    Func f("f"), g("g"), h("h"), out("out");
    f(x) = x * 5;
    g(x) = f(x) + 1;
    h(x) = f(x) - 1;
    out(x) = g(x) * h(x);
    Func global = f.in();
    Func own = f.in(g);  // g called the global wrapper; now its own
    EXPECT_NE(global.name(), own.name());
    global.compute_root();
    own.compute_root();
    Buffer<int> result = out.realize({9});
    expect_buffer_eq(result, [](const std::vector<int> &p) { return (p[0] * 5 + 1) * (p[0] * 5 - 1); });
    std::string stmt = lowered_stmt(out, "own_and_global.stmt");
    EXPECT_TRUE(contains(stmt, global.name())) << stmt;
    EXPECT_TRUE(contains(stmt, own.name())) << stmt;
}

TEST_P(Wrapper, OwnWrapperCallsTheFuncNotTheGlobalWrapper) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = x * 5;
    g(x) = f(x) + 1;
    Func global = f.in();
    global.compute_root();
    Func own = f.in(g);  // g's only consumer is now its own wrapper, which reads f itself
    own.compute_root();
    Buffer<int> result = g.realize({9});
    expect_buffer_eq(result, [](const std::vector<int> &p) { return p[0] * 5 + 1; });
    std::string stmt = lowered_stmt(g, "own_not_global.stmt");
    EXPECT_TRUE(contains(stmt, own.name())) << stmt;
    EXPECT_FALSE(contains(stmt, global.name())) << stmt;
}

TEST_P(Wrapper, TupleValuedFunc) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = Tuple(x * 2, cast<float>(x) + 0.5f);
    g(x) = cast<float>(f(x)[0]) * f(x)[1];
    f.in().compute_root();
    Buffer<float> result = g.realize({8});
    expect_buffer_eq(result, [](const std::vector<int> &p) { return (float)(p[0] * 2) * ((float)p[0] + 0.5f); });
}

TEST_P(Wrapper, WrapperInAReduction) {
    Buffer<int> in(std::vector<int>{16}, "in");
    for (int i = 0; i < 16; i++) in(i) = (i * 13) % 7 - 3;
    Var x("x");
    RDom r(0, 16, "r");
    Func f("f"), total("total");
    f(x) = in(x) * 2;
    total() = 0;
    total() += f(r);
    f.in(total).compute_root();
    Buffer<int> result = total.realize();
    int expected = 0;
    for (int i = 0; i < 16; i++) expected += in(i) * 2;
    EXPECT_EQ(result(), expected);
}

TEST_P(Wrapper, CloneHasItsOwnScheduleAndTheUpdates) {
    Var x("x");
    RDom r(0, 4, "r");
    Func f("f"), g("g"), h("h"), out("out");
    f(x) = x;
    f(x) += r * x;  // f(x) = x * 7
    g(x) = f(x) + 1;
    h(x) = f(x) * 2;
    out(x) = g(x) + h(x);
    f.compute_root();
    g.compute_root();
    Func fc = f.clone_in(g);
    EXPECT_EQ(fc.name(), f.clone_in(g).name()) << "clone_in(g) twice gives the same clone";
    EXPECT_EQ(fc.num_update_definitions(), 1);
    fc.compute_at(g, x);
    Buffer<int> result = out.realize({13});
    expect_buffer_eq(result, [](const std::vector<int> &p) { return (p[0] * 7 + 1) + p[0] * 7 * 2; });
    std::string stmt = lowered_stmt(out, "clone.stmt");
    EXPECT_TRUE(contains(stmt, fc.name())) << stmt;
}

TEST_P(Wrapper, CloneInAListOfConsumers) {
    Var x("x");
    Func f("f"), g("g"), h("h"), out("out");
    f(x) = x * x - 3;
    g(x) = f(x) + 1;
    h(x) = f(x + 1) * 2;
    out(x) = g(x) + h(x) + f(x);
    f.compute_root();
    Func fc = f.clone_in({g, h});
    fc.compute_root();
    Buffer<int> result = out.realize({11});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        int x = p[0];
        return (x * x - 3 + 1) + ((x + 1) * (x + 1) - 3) * 2 + (x * x - 3);
    });
}

TEST_P(Wrapper, RealizedAgainAfterInRecompiles) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = x + 1;
    g(x) = f(x) * 2;
    Buffer<int> before = g.realize({5});
    f.in().compute_root();
    Buffer<int> after = g.realize({5});
    for (int i = 0; i < 5; i++) EXPECT_EQ(before(i), after(i));
    EXPECT_TRUE(contains(lowered_stmt(g, "recompile.stmt"), f.in().name()));
}

TEST_P(Wrapper, ListOrderDoesNotMatter) {
    Var x("x");
    Func d("d"), e("e"), f("f"), g("g"), out("out");
    d(x) = x * 4;
    e(x) = d(x) + 1;
    f(x) = d(x) + 2;
    g(x) = d(x) + 3;
    out(x) = e(x) + f(x) + g(x);
    Func w = d.in({e, f, g});
    EXPECT_EQ(w.name(), d.in({g, f, e}).name());
    w.compute_root();
    Buffer<int> result = out.realize({10});
    expect_buffer_eq(result, [](const std::vector<int> &p) { return p[0] * 12 + 6; });
}

TEST_P(Wrapper, UpdateOfTheConsumerDefinedAfterTheWrapper) {
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = x + y;
    g(x, y) = f(x, y);
    Func fw = f.in(g);
    RDom r(0, 20, 0, 20, "r");
    r.where(r.x < r.y);
    g(r.x, r.y) += 2 * f(r.x, r.y);  // defined after f.in(g): reads fw too
    f.compute_root();
    fw.compute_root().vectorize(x, 8);
    Buffer<int> result = g.realize({30, 30});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        int x = p[0], y = p[1];
        return (x < 20 && y < 20 && x < y) ? 3 * (x + y) : x + y;
    });
    std::string stmt = lowered_stmt(g, "update_after_wrapper.stmt");
    EXPECT_TRUE(contains(stmt, fw.name())) << stmt;
}

TEST_P(Wrapper, WrappersOfFuncsReadByAnRDomPredicate) {
    Var x("x"), y("y");
    Func f("f"), g("g"), h("h");
    f(x, y) = x + y;
    h(x, y) = 5;
    g(x, y) = 10;
    RDom r(0, 40, 0, 40, "r");
    r.where(f(r.x, r.y) + h(r.x, r.y) < 30);
    g(r.x, r.y) += h(r.x, r.y);
    Func h_wrapper = h.in();
    Func f_in_g = f.in(g);
    h_wrapper.compute_root();
    f_in_g.compute_root();
    f.compute_root();
    h.compute_root();
    Buffer<int> result = g.realize({50, 50});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        int x = p[0], y = p[1];
        return (x < 40 && y < 40 && x + y + 5 < 30) ? 15 : 10;
    });
    std::string stmt = lowered_stmt(g, "predicate_wrappers.stmt");
    EXPECT_TRUE(contains(stmt, h_wrapper.name())) << stmt;
    EXPECT_TRUE(contains(stmt, f_in_g.name())) << stmt;
}

TEST_P(Wrapper, WrapperOfFForAWrapperOfF) {
    Var x("x"), y("y");
    Func e("e"), f("f"), g("g"), h("h");
    e(x, y) = x + y;
    f(x, y) = e(x, y);
    g(x, y) = f(x, y) + e(x, y);
    Func f_in_g = f.in(g);
    Func f_in_f_in_g = f.in(f_in_g);  // f_in_g now reads f through its own wrapper
    f_in_g.compute_root();
    f_in_f_in_g.compute_root();
    h(x, y) = g(x, y) + f(x, y) + f_in_f_in_g(x, y);
    e.compute_root();
    f.compute_root();
    g.compute_root();
    Func f_in_h = f.in(h);  // h's call of f_in_f_in_g is left alone
    f_in_h.compute_root();
    Buffer<int> result = h.realize({24, 16});
    expect_buffer_eq(result, [](const std::vector<int> &p) { return 4 * (p[0] + p[1]); });
    std::string stmt = lowered_stmt(h, "wrapper_for_wrapper.stmt");
    for (const Func &w : {f_in_g, f_in_f_in_g, f_in_h}) EXPECT_TRUE(contains(stmt, w.name())) << w.name();
}

LOOM_INSTANTIATE_BACKENDS(Wrapper);

}  // namespace
