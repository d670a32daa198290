// Tuple-valued Funcs and Pipelines with several outputs.

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

class Tuples : public loom_test::BackendTest {};

TEST_P(Tuples, PureTuple) {
    Var x("x"), y("y");
    Func f("pair");
    f(x, y) = Tuple(x + y, cast<float>(x) * 0.5f);
    Realization r = f.realize({4, 3});
    ASSERT_EQ(r.size(), 2u);
    Buffer<int> a = r[0];
    Buffer<float> b = r[1];
    expect_buffer_eq(a, [](const std::vector<int> &p) { return p[0] + p[1]; });
    expect_buffer_eq(b, [](const std::vector<int> &p) { return p[0] * 0.5f; });
}

TEST_P(Tuples, ArgMaxReduction) {
    Buffer<int> data(std::vector<int>{12}, "data");
    int values[12] = {3, 9, 2, 9, 14, -1, 7, 14, 0, 5, 13, 2};
    for (int i = 0; i < 12; i++) data(i) = values[i];
    RDom r(data);
    Func argmax("argmax");
    argmax() = Tuple(0, data(0));
    Expr better = data(r) > argmax()[1];
    argmax() = Tuple(select(better, r, argmax()[0]), select(better, data(r), argmax()[1]));
    Realization out = argmax.realize();
    EXPECT_EQ(Buffer<int>(out[0])(), 4);
    EXPECT_EQ(Buffer<int>(out[1])(), 14);
}

TEST_P(Tuples, ElementUpdateKeepsOthers) {
    Var x("x");
    RDom r(0, 3, "r");
    Func f("f");
    f(x) = {x, cast<float>(x)};
    f(x)[1] += 1.5f;
    f(x)[0] = f(x)[0] * 10 + r;
    Realization out = f.realize({4});
    Buffer<int> a = out[0];
    Buffer<float> b = out[1];
    for (int i = 0; i < 4; i++) {
        // r runs 0, 1, 2: ((i*10 + 0)*10 + 1)*10 + 2
        EXPECT_EQ(a(i), ((i * 10) * 10 + 1) * 10 + 2);
        EXPECT_FLOAT_EQ(b(i), i + 1.5f);
    }
}

TEST_P(Tuples, TupleConsumedByAnotherFunc) {
    Var x("x");
    Func pair("pair"), sum("sum");
    pair(x) = Tuple(x * 2, x * 3);
    sum(x) = pair(x)[0] + pair(x + 1)[1];
    Buffer<int> out = sum.realize({5});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 2 + (p[0] + 1) * 3; });
    pair.compute_root();
    Buffer<int> again = sum.realize({5});
    expect_buffer_eq(again, [](const std::vector<int> &p) { return p[0] * 2 + (p[0] + 1) * 3; });
}

TEST_P(Tuples, MultiOutputPipeline) {
    Var x("x"), y("y");
    Func shared("shared"), a("out_a"), b("out_b");
    shared(x, y) = x * y;
    shared.compute_root();
    a(x, y) = shared(x, y) + 1;
    b(x, y) = Tuple(shared(x, y) * 2, cast<uint8_t>(x));
    Pipeline p({a, b});
    Realization r = p.realize({5, 4});
    ASSERT_EQ(r.size(), 3u);
    expect_buffer_eq(Buffer<int>(r[0]), [](const std::vector<int> &q) { return q[0] * q[1] + 1; });
    expect_buffer_eq(Buffer<int>(r[1]), [](const std::vector<int> &q) { return q[0] * q[1] * 2; });
    expect_buffer_eq(Buffer<uint8_t>(r[2]), [](const std::vector<int> &q) { return uint8_t(q[0]); });

    // Into existing (shifted) buffers.
    Buffer<int> oa(3, 2), ob0(3, 2);
    Buffer<uint8_t> ob1(3, 2);
    for (Buffer<> buf : {Buffer<>(oa), Buffer<>(ob0), Buffer<>(ob1)}) buf.set_min({7, -3});
    Realization into(oa, ob0, ob1);
    p.realize(into);
    expect_buffer_eq(oa, [](const std::vector<int> &q) { return q[0] * q[1] + 1; });
    expect_buffer_eq(ob1, [](const std::vector<int> &q) { return uint8_t(q[0]); });
}

TEST_P(Tuples, PipelineChecksOutputs) {
    Var x("x"), y("y");
    Func a("a1d"), b("b2d");
    a(x) = x;
    b(x, y) = x;
    Pipeline p({a, b});
    EXPECT_THROW(p.realize({4}), CompileError);
    Pipeline q(a);
    Buffer<int> one(4);
    Realization wrong_count(one, one);
    EXPECT_THROW(q.realize(wrong_count), CompileError);
}

LOOM_INSTANTIATE_BACKENDS(Tuples);

}  // namespace
