// Extern stages (Func::define_extern): C functions of this executable
// (exported: ENABLE_EXPORTS in test/CMakeLists.txt) consume Loom Funcs,
// produce values Loom Funcs read, ask for more input than they write
// through the bounds query, run per tile inside a consumer's loops, fail
// with an error code, and take Params. Each result is checked against a
// plain C++ loop. The interpreter back end refuses extern stages with a
// CompileError; the Vulkan runs keep the C function on the CPU.

#include <atomic>
#include <vector>

#include "E2ETest.h"

using namespace loom;
using loom::internal::Backend;

namespace {

std::atomic<int> real_calls{0};
std::atomic<int> query_calls{0};

/** Element (x, y) of b: host points at (min0, min1). */
template<typename T>
T &element(const loom_buffer_t *b, int x, int y = 0) {
    int64_t offset = int64_t(x - b->dim[0].min) * b->dim[0].stride;
    if (b->dimensions > 1) offset += int64_t(y - b->dim[1].min) * b->dim[1].stride;
    return reinterpret_cast<T *>(b->host)[offset];
}

/** Whether b holds [min, max] in dimension d. */
bool covers(const loom_buffer_t *b, int d, int min, int max) {
    return b->dim[d].min <= min && b->dim[d].min + b->dim[d].extent - 1 >= max;
}

}  // namespace

extern "C" {

/** out(x) = in(x) + offset. */
int ext_test_add_offset(loom_buffer_t *in, int32_t offset, loom_buffer_t *out) {
    const int min = out->dim[0].min, extent = out->dim[0].extent;
    if (in->host == nullptr) {
        query_calls++;
        in->dim[0].min = min;
        in->dim[0].extent = extent;
        return 0;
    }
    real_calls++;
    if (in->type.code != loom_type_int || in->type.bits != 32 || !covers(in, 0, min, min + extent - 1)) return -100;
    for (int x = min; x < min + extent; x++) element<int32_t>(out, x) = element<int32_t>(in, x) + offset;
    return 0;
}

/** out(x, y) = x + 100 * y: a producer without inputs. */
int ext_test_ramp(loom_buffer_t *out) {
    real_calls++;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++) {
            element<int32_t>(out, x, y) = x + 100 * y;
        }
    }
    return 0;
}

/** out(x) = in(x - 1) + in(x) + in(x + 1): reads one more point on each side. */
int ext_test_blur3(loom_buffer_t *in, loom_buffer_t *out) {
    const int min = out->dim[0].min, max = out->dim[0].min + out->dim[0].extent - 1;
    if (in->host == nullptr) {
        query_calls++;
        in->dim[0].min = min - 1;
        in->dim[0].extent = max - min + 3;
        return 0;
    }
    real_calls++;
    if (!covers(in, 0, min - 1, max + 1)) return -101;
    for (int x = min; x <= max; x++) {
        element<int32_t>(out, x) = element<int32_t>(in, x - 1) + element<int32_t>(in, x) + element<int32_t>(in, x + 1);
    }
    return 0;
}

/** out(x, y) = in(x - 1, y) + 2 * in(x + 1, y). */
int ext_test_box_x(loom_buffer_t *in, loom_buffer_t *out) {
    const int x0 = out->dim[0].min, x1 = out->dim[0].min + out->dim[0].extent - 1;
    const int y0 = out->dim[1].min, y1 = out->dim[1].min + out->dim[1].extent - 1;
    if (in->host == nullptr) {
        query_calls++;
        in->dim[0].min = x0 - 1;
        in->dim[0].extent = x1 - x0 + 3;
        in->dim[1].min = y0;
        in->dim[1].extent = y1 - y0 + 1;
        return 0;
    }
    real_calls++;
    if (!covers(in, 0, x0 - 1, x1 + 1) || !covers(in, 1, y0, y1)) return -102;
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x <= x1; x++) {
            element<int32_t>(out, x, y) = element<int32_t>(in, x - 1, y) + 2 * element<int32_t>(in, x + 1, y);
        }
    }
    return 0;
}

/** out(x) = in(x) * scale for a float input buffer (the whole buffer is passed). */
int ext_test_scale(loom_buffer_t *in, float scale, loom_buffer_t *out) {
    real_calls++;
    const int min = out->dim[0].min, max = out->dim[0].min + out->dim[0].extent - 1;
    if (in->host == nullptr || !covers(in, 0, min, max)) return -103;
    for (int x = min; x <= max; x++) element<float>(out, x) = element<float>(in, x) * scale;
    return 0;
}

/** Two outputs: out0(x) = 3 * x, out1(x) = x / 2 (float). */
int ext_test_pair(loom_buffer_t *out0, loom_buffer_t *out1) {
    real_calls++;
    if (out0->type.code != loom_type_int || out1->type.code != loom_type_float) return -104;
    for (int x = out0->dim[0].min; x < out0->dim[0].min + out0->dim[0].extent; x++) element<int32_t>(out0, x) = 3 * x;
    for (int x = out1->dim[0].min; x < out1->dim[0].min + out1->dim[0].extent; x++) element<float>(out1, x) = x / 2.0f;
    return 0;
}

/** A Tuple input is one buffer per element: out(x) = a(x + 2) - b(x). */
int ext_test_tuple_input(loom_buffer_t *a, loom_buffer_t *b, loom_buffer_t *out) {
    const int min = out->dim[0].min, max = out->dim[0].min + out->dim[0].extent - 1;
    if (a->host == nullptr || b->host == nullptr) {
        query_calls++;
        if (a->host == nullptr) {
            a->dim[0].min = min + 2;
            a->dim[0].extent = max - min + 1;
        }
        if (b->host == nullptr) {
            b->dim[0].min = min;
            b->dim[0].extent = max - min + 1;
        }
        return 0;
    }
    real_calls++;
    if (!covers(a, 0, min + 2, max + 2) || !covers(b, 0, min, max)) return -105;
    for (int x = min; x <= max; x++) element<int32_t>(out, x) = element<int32_t>(a, x + 2) - element<int32_t>(b, x);
    return 0;
}

/** Always fails with code 17. */
int ext_test_fail(loom_buffer_t *out) {
    (void)out;
    return 17;
}

}  // extern "C"

namespace {

class ExternStage : public loom_test::BackendTest {
protected:
    void SetUp() override {
        loom_test::BackendTest::SetUp();
        real_calls = 0;
        query_calls = 0;
    }
    bool interpreter() const { return GetParam() == Backend::Interpreter; }
    /** On the interpreter, realizing fails with a CompileError that names the C function. */
    template<typename F>
    bool refused_by_interpreter(F realize, const std::string &symbol) {
        if (!interpreter()) return false;
        std::string message = loom_test::compile_error_message(realize);
        EXPECT_TRUE(loom_test::contains(message, "reference interpreter")) << message;
        EXPECT_TRUE(loom_test::contains(message, symbol)) << message;
        return true;
    }
};

TEST_P(ExternStage, ConsumesALoomFunc) {
    Var x("x");
    Func g("g"), f("f"), out("out");
    g(x) = x * x - 3;
    g.compute_root();
    Param<int> offset("offset");
    f.define_extern("ext_test_add_offset", {g, offset}, Int(32), 1);
    out(x) = f(x) * 2;
    offset.set(7);
    auto run = [&] { return Buffer<int>(out.realize({30})); };
    if (refused_by_interpreter(run, "ext_test_add_offset")) return;
    Buffer<int> r = run();
    loom_test::expect_buffer_eq(r, [](const std::vector<int> &p) { return (p[0] * p[0] - 3 + 7) * 2; });
    EXPECT_EQ(real_calls.load(), 1);
    EXPECT_GE(query_calls.load(), 1);
    // A new Param value reaches the C function without recompiling.
    offset.set(-5);
    Buffer<int> again = run();
    loom_test::expect_buffer_eq(again, [](const std::vector<int> &p) { return (p[0] * p[0] - 3 - 5) * 2; });
}

TEST_P(ExternStage, LoomFuncConsumesAnExternProducer) {
    Var x("x"), y("y");
    Func ramp("ramp"), out("out");
    ramp.define_extern("ext_test_ramp", {}, Int(32), {x, y});
    out(x, y) = ramp(x, y) * 2 + ramp(x + 1, y) - ramp(x, y + 2);
    auto run = [&] { return Buffer<int>(out.realize({20, 9})); };
    if (refused_by_interpreter(run, "ext_test_ramp")) return;
    Buffer<int> r = run();
    loom_test::expect_buffer_eq(r, [](const std::vector<int> &p) {
        auto ramp = [](int x, int y) { return x + 100 * y; };
        return ramp(p[0], p[1]) * 2 + ramp(p[0] + 1, p[1]) - ramp(p[0], p[1] + 2);
    });
    EXPECT_EQ(real_calls.load(), 1);
}

TEST_P(ExternStage, BoundsQueryAsksForMoreThanItsOutput) {
    Var x("x");
    Func g("g"), blur("blur");
    g(x) = x * 3 + 1;
    g.compute_root();
    blur.define_extern("ext_test_blur3", {g}, Int(32), 1);
    Buffer<int> r(25);
    r.set_min(-4);
    auto run = [&] { blur.realize(r); };
    if (refused_by_interpreter(run, "ext_test_blur3")) return;
    run();  // the C function returns -101 if g does not cover [x - 1, x + 1]
    loom_test::expect_buffer_eq(r, [](const std::vector<int> &p) {
        auto g = [](int x) { return x * 3 + 1; };
        return g(p[0] - 1) + g(p[0]) + g(p[0] + 1);
    });
    EXPECT_EQ(real_calls.load(), 1);
}

TEST_P(ExternStage, ComputedPerTileOfATiledConsumer) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func g("g"), box("box"), out("out");
    g(x, y) = x * 7 + y * 13;
    box.define_extern("ext_test_box_x", {g}, Int(32), {x, y});
    out(x, y) = box(x, y) + 1;
    out.tile(x, y, xo, yo, xi, yi, 8, 4);
    box.compute_at(out, xo);
    g.compute_at(out, xo);
    auto run = [&] { return Buffer<int>(out.realize({32, 12})); };
    if (refused_by_interpreter(run, "ext_test_box_x")) return;
    Buffer<int> r = run();
    loom_test::expect_buffer_eq(r, [](const std::vector<int> &p) {
        auto g = [](int x, int y) { return x * 7 + y * 13; };
        return g(p[0] - 1, p[1]) + 2 * g(p[0] + 1, p[1]) + 1;
    });
    EXPECT_EQ(real_calls.load(), 4 * 3);  // one call per 8x4 tile
}

TEST_P(ExternStage, PerTileInsideAParallelLoop) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func g("g"), box("box"), out("out");
    g(x, y) = x - 2 * y;
    box.define_extern("ext_test_box_x", {g}, Int(32), {x, y});
    out(x, y) = box(x, y) * 3;
    out.tile(x, y, xo, yo, xi, yi, 16, 2).parallel(yo);
    box.compute_at(out, xo);
    g.compute_at(out, xo);
    auto run = [&] { return Buffer<int>(out.realize({48, 20})); };
    if (refused_by_interpreter(run, "ext_test_box_x")) return;
    Buffer<int> r = run();
    loom_test::expect_buffer_eq(r, [](const std::vector<int> &p) {
        auto g = [](int x, int y) { return x - 2 * y; };
        return (g(p[0] - 1, p[1]) + 2 * g(p[0] + 1, p[1])) * 3;
    });
    EXPECT_EQ(real_calls.load(), 3 * 10);  // one call per 16x2 tile, whatever the thread count
}

TEST_P(ExternStage, TakesABufferAndAFloatParam) {
    Var x("x");
    ImageParam in(Float(32), 1, "in");
    Param<float> scale("scale");
    Func scaled("scaled"), out("out");
    scaled.define_extern("ext_test_scale", {in, scale}, Float(32), 1);
    out(x) = scaled(x) + 0.5f;
    Buffer<float> input(16);
    for (int i = 0; i < 16; i++) input(i) = float(i) * 0.25f;
    in.set(input);
    scale.set(3.0f);
    auto run = [&] { return Buffer<float>(out.realize({16})); };
    if (refused_by_interpreter(run, "ext_test_scale")) return;
    Buffer<float> r = run();
    loom_test::expect_buffer_eq(r, [](const std::vector<int> &p) { return float(p[0]) * 0.25f * 3.0f + 0.5f; });
}

TEST_P(ExternStage, FailureIsARuntimeErrorNamingTheFunction) {
    Var x("x");
    Func bad("bad"), out("out");
    bad.define_extern("ext_test_fail", {}, Int(32), 1);
    out(x) = bad(x) + 1;
    auto run = [&] { out.realize({4}); };
    if (refused_by_interpreter(run, "ext_test_fail")) return;
    std::string message = loom_test::runtime_error_message(run);
    EXPECT_TRUE(loom_test::contains(message, "ext_test_fail")) << message;
    EXPECT_TRUE(loom_test::contains(message, "bad")) << message;
    EXPECT_TRUE(loom_test::contains(message, "returned 17")) << message;
}

TEST_P(ExternStage, UserErrors) {
    Var x("x"), y("y");
    Func g("g");
    g(x) = x;
    // An Expr argument that varies per point.
    Func uses_var("uses_var");
    std::string m = loom_test::compile_error_message([&] { uses_var.define_extern("ext_test_ramp", {x + 1}, Int(32), 1); });
    EXPECT_TRUE(loom_test::contains(m, "uses the Var 'x'")) << m;
    // An undefined argument, an undefined Func.
    Func undefined_arg("undefined_arg");
    m = loom_test::compile_error_message(
        [&] { undefined_arg.define_extern("ext_test_ramp", {ExternFuncArgument()}, Int(32), 1); });
    EXPECT_TRUE(loom_test::contains(m, "Argument 0 of the extern stage 'undefined_arg'")) << m;
    Func nothing("nothing");
    m = loom_test::compile_error_message([&] { ExternFuncArgument a(nothing); });
    EXPECT_TRUE(loom_test::contains(m, "'nothing'")) << m;
    // C++ mangling, device APIs and a second definition are refused.
    Func mangled("mangled");
    m = loom_test::compile_error_message(
        [&] { mangled.define_extern("ext_test_ramp", {}, Int(32), 2, NameMangling::CPlusPlus); });
    EXPECT_TRUE(loom_test::contains(m, "C++ name mangling")) << m;
    m = loom_test::compile_error_message([&] { g.define_extern("ext_test_ramp", {}, Int(32), 1); });
    EXPECT_TRUE(loom_test::contains(m, "already has a definition")) << m;

    // Calling an extern Func with the wrong number of arguments.
    Func ramp("ramp"), wrong("wrong");
    ramp.define_extern("ext_test_ramp", {}, Int(32), 2);
    EXPECT_TRUE(ramp.is_extern());
    EXPECT_EQ(ramp.extern_function_name(), "ext_test_ramp");
    m = loom_test::compile_error_message([&] { wrong(x) = ramp(x); });
    EXPECT_TRUE(loom_test::contains(m, "ramp")) << m;
    EXPECT_TRUE(loom_test::contains(m, "called with 1")) << m;

    // An inlined input, a scheduled extern loop, a missing symbol.
    Func inlined_input("inlined_input");
    inlined_input.define_extern("ext_test_add_offset", {g, 1}, Int(32), 1);
    m = loom_test::compile_error_message([&] { inlined_input.realize({4}); });
    // (The interpreter refuses every extern stage before it looks at schedules.)
    EXPECT_TRUE(loom_test::contains(
        m, interpreter() ? "reference interpreter" : "Func 'g' cannot be scheduled to be computed inline"))
        << m;
    Func vectorized("vectorized"), out("out");
    vectorized.define_extern("ext_test_ramp", {}, Int(32), {x, y});
    vectorized.vectorize(x, 4);
    out(x, y) = vectorized(x, y);
    m = loom_test::compile_error_message([&] { out.realize({8, 8}); });
    EXPECT_TRUE(loom_test::contains(m, "'vectorized' is an extern stage")) << m;
    EXPECT_TRUE(loom_test::contains(m, interpreter() ? "reference interpreter" : "can't be split")) << m;
    // An input computed at root for an extern stage computed per tile: its
    // region is a query answer of each tile, which bounds inference can't
    // bound at the root.
    Func per_tile("per_tile"), tiled("tiled"), root_input("root_input");
    Var xo("xo"), xi("xi");
    root_input(x) = x;
    root_input.compute_root();
    per_tile.define_extern("ext_test_blur3", {root_input}, Int(32), 1);
    tiled(x) = per_tile(x);
    tiled.split(x, xo, xi, 8);
    per_tile.compute_at(tiled, xo);
    m = loom_test::compile_error_message([&] { tiled.realize({16}); });
    EXPECT_TRUE(loom_test::contains(m, interpreter() ? "reference interpreter" : "compute 'root_input' at the same loop"))
        << m;
    Func missing("missing");
    missing.define_extern("ext_test_no_such_function", {}, Int(32), 1);
    m = loom_test::compile_error_message([&] { missing.realize({4}); });
    EXPECT_TRUE(loom_test::contains(m, "ext_test_no_such_function")) << m;
    EXPECT_TRUE(loom_test::contains(m, interpreter() ? "reference interpreter" : "no symbol of that name")) << m;
}

TEST_P(ExternStage, TupleOutputsAreOneBufferEach) {
    Var x("x");
    Func pair("pair"), out("out");
    pair.define_extern("ext_test_pair", {}, {Int(32), Float(32)}, 1);
    out(x) = pair(x)[0] + cast<int>(pair(x)[1] * 4.0f);
    auto run = [&] { return Buffer<int>(out.realize({17})); };
    if (refused_by_interpreter(run, "ext_test_pair")) return;
    Buffer<int> r = run();
    loom_test::expect_buffer_eq(r, [](const std::vector<int> &p) { return 3 * p[0] + int(p[0] / 2.0f * 4.0f); });
}

TEST_P(ExternStage, TupleInputIsOneBufferPerElement) {
    Var x("x");
    Func ab("ab"), diff("diff");
    ab(x) = Tuple(x * x, x + 100);
    ab.compute_root();
    diff.define_extern("ext_test_tuple_input", {ab}, Int(32), 1);
    Buffer<int> r(12);
    r.set_min(-3);
    auto run = [&] { diff.realize(r); };
    if (refused_by_interpreter(run, "ext_test_tuple_input")) return;
    run();
    loom_test::expect_buffer_eq(r, [](const std::vector<int> &p) { return (p[0] + 2) * (p[0] + 2) - (p[0] + 100); });
}

TEST_P(ExternStage, ThroughACallable) {
    Var x("x");
    Func g("g"), f("f"), out("out");
    g(x) = x + 1;
    g.compute_root();
    Param<int> offset("offset");
    f.define_extern("ext_test_add_offset", {g, offset}, Int(32), 1);
    out(x) = f(x);
    if (interpreter()) {
        std::string m = loom_test::compile_error_message([&] { out.compile_to_callable({offset}); });
        EXPECT_TRUE(loom_test::contains(m, "reference interpreter")) << m;
        return;
    }
    Callable callable = out.compile_to_callable({offset});
    Buffer<int> r(9);
    ASSERT_EQ(callable(40, r), 0);
    loom_test::expect_buffer_eq(r, [](const std::vector<int> &p) { return p[0] + 1 + 40; });
}

LOOM_INSTANTIATE_BACKENDS(ExternStage);

}  // namespace
