// ImageParam::in (Halide's wrappers of an input): global and per-consumer
// wrappers, compared with plain C++ loops on every backend.

#include <string>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::contains;
using loom_test::expect_buffer_eq;
using loom_test::lowered_stmt;

namespace {

class ImageParamWrapper : public loom_test::BackendTest {};

Buffer<int> ramp_input(int w, int h) {
    Buffer<int> in(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) in(x, y) = x * 17 + y % 4 - 3 * y;
    }
    return in;
}

int in_ref(int x, int y) { return x * 17 + y % 4 - 3 * y; }

// Halide's lesson 19 pattern: a tile of the input copied per row of blur.
TEST_P(ImageParamWrapper, PerConsumerWrapperComputedAtTheConsumer) {
    ImageParam img(Int(32), 2, "img");
    Var x("x"), y("y");
    Func blur("blur"), other("other"), out("out");
    blur(x, y) = img(x, y) + img(x + 1, y) + img(x, y + 1);
    other(x, y) = img(x, y) * 2;
    out(x, y) = blur(x, y) - other(x, y);
    blur.compute_root();

    Func w = img.in(blur);
    EXPECT_EQ(w.name(), img.in(blur).name()) << "in(blur) twice gives the same wrapper";
    EXPECT_EQ(w.name(), img.in({blur}).name());
    w.compute_at(blur, y);

    img.set(ramp_input(40, 30));
    Buffer<int> result = out.realize({37, 25});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        int x = p[0], y = p[1];
        return in_ref(x, y) + in_ref(x + 1, y) + in_ref(x, y + 1) - in_ref(x, y) * 2;
    });
    std::string stmt = lowered_stmt(out, "imageparam_wrapper.stmt");
    EXPECT_TRUE(contains(stmt, "produce " + w.name())) << "the wrapper is realized on its own:\n" << stmt;
}

TEST_P(ImageParamWrapper, GlobalWrapperIsReadByEveryConsumerAndLaterOnes) {
    ImageParam img(Int(32), 2, "img");
    Var x("x"), y("y");
    Func g("g"), h("h"), out("out");
    g(x, y) = img(x, y) + 1;

    Func w = img.in();
    EXPECT_EQ(w.name(), img.in().name()) << "in() twice gives the same wrapper";
    w.compute_root();
    // Defined after in(): reads the wrapper too.
    h(x, y) = img(x + 2, y) * 3;
    out(x, y) = g(x, y) + h(x, y);
    img.set(ramp_input(30, 12));
    Buffer<int> result = out.realize({28, 12});
    expect_buffer_eq(result, [](const std::vector<int> &p) {
        int x = p[0], y = p[1];
        return in_ref(x, y) + 1 + in_ref(x + 2, y) * 3;
    });
    std::string stmt = lowered_stmt(out, "imageparam_global_wrapper.stmt");
    EXPECT_TRUE(contains(stmt, "produce " + w.name())) << stmt;
}

TEST_P(ImageParamWrapper, SharedWrapperAndLaterUpdatesOfTheConsumer) {
    ImageParam img(Int(32), 1, "img");
    Var x("x");
    RDom r(0, 3, "r");
    Func g("g"), h("h"), k("k"), out("out");
    g(x) = img(x) + 1;
    h(x) = img(x + 1) - 1;
    k(x) = img(x) * 5;
    Func shared = img.in({g, h});
    EXPECT_EQ(shared.name(), img.in({h, g}).name()) << "the list's order does not matter";
    EXPECT_EQ(shared.name(), img.in(g).name()) << "g's wrapper is the shared one";
    shared.compute_root();
    g(x) += img(x + r);  // an update added later reads the wrapper as well
    out(x) = g(x) + h(x) + k(x);
    g.compute_root();

    Buffer<int> in(40);
    for (int i = 0; i < 40; i++) in(i) = i * i - 7;
    img.set(in);
    Buffer<int> result = out.realize({31});
    expect_buffer_eq(result, [&](const std::vector<int> &p) {
        int x = p[0];
        int gx = in(x) + 1 + in(x) + in(x + 1) + in(x + 2);
        return gx + (in(x + 1) - 1) + in(x) * 5;
    });
    std::string stmt = lowered_stmt(out, "imageparam_shared_wrapper.stmt");
    EXPECT_TRUE(contains(stmt, "produce " + shared.name())) << stmt;
}

TEST_P(ImageParamWrapper, OwnWrapperWinsOverTheGlobalOne) {
    ImageParam img(Int(32), 1, "img");
    Var x("x");
    Func g("g"), h("h"), out("out");
    g(x) = img(x) + 1;
    h(x) = img(x) * 2;
    out(x) = g(x) + h(x);
    Func global = img.in();
    Func own = img.in(h);
    EXPECT_NE(global.name(), own.name());
    global.compute_root();
    own.compute_root();
    Buffer<int> in(20);
    for (int i = 0; i < 20; i++) in(i) = 3 * i + 1;
    img.set(in);
    Buffer<int> result = out.realize({20});
    expect_buffer_eq(result, [&](const std::vector<int> &p) { return in(p[0]) + 1 + in(p[0]) * 2; });
    std::string stmt = lowered_stmt(out, "imageparam_own_wrapper.stmt");
    EXPECT_TRUE(contains(stmt, "produce " + global.name())) << stmt;
    EXPECT_TRUE(contains(stmt, "produce " + own.name())) << stmt;
}

LOOM_INSTANTIATE_BACKENDS(ImageParamWrapper);

}  // namespace
