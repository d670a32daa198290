// Tracing (Func::trace_stores/trace_loads/trace_realizations, add_trace_tag,
// the trace_all Target feature): the exact text the default handler prints
// (Halide's format), a replaced handler, and the errors. Every backend: the
// Vulkan conformance run keeps traced pipelines on the CPU (lower refuses a
// trace inside a GPU loop, and the conformance mode then compiles for the CPU).

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "E2ETest.h"

namespace {

using namespace loom;
using loom_test::BackendTest;

/** Collects what loom_print prints while it lives. */
class CapturePrints {
public:
    CapturePrints() {
        text().clear();
        previous_ = loom_set_print_handler(&append);
    }
    ~CapturePrints() { loom_set_print_handler(previous_); }
    std::string str() const { return text(); }

private:
    static std::string &text() {
        static std::string t;
        return t;
    }
    static void append(void *, const char *message) { text() += message; }
    loom_print_handler_t previous_;
};

class Tracing : public BackendTest {};

TEST_P(Tracing, StoresAndRealizationsPrintInHalidesFormat) {
    Func f("trace_f"), g("trace_g");
    Var x("x"), y("y");
    f(x, y) = x + y;
    g(x, y) = f(x, y) * 2;
    f.compute_root().trace_stores().trace_realizations();
    g.trace_stores().trace_realizations();  // an output: its buffer's region
    CapturePrints capture;
    Buffer<int> out = g.realize({2, 2});
    EXPECT_EQ(capture.str(),
              "Begin pipeline trace_g.0()\n"
              "Tag trace_f.0() tag = \"func_type_and_dim: 1 0 32 1 2 0 2 0 2\"\n"
              "Tag trace_g.0() tag = \"func_type_and_dim: 1 0 32 1 2 0 2 0 2\"\n"
              "Begin realization trace_g.0(0, 2, 0, 2)\n"
              "Begin realization trace_f.0(0, 2, 0, 2)\n"
              "Produce trace_f.0(0, 2, 0, 2)\n"
              "Store trace_f.0(0, 0) = 0\n"
              "Store trace_f.0(1, 0) = 1\n"
              "Store trace_f.0(0, 1) = 1\n"
              "Store trace_f.0(1, 1) = 2\n"
              "End produce trace_f.0(0, 2, 0, 2)\n"
              "Consume trace_f.0(0, 2, 0, 2)\n"
              "Produce trace_g.0(0, 2, 0, 2)\n"
              "Store trace_g.0(0, 0) = 0\n"
              "Store trace_g.0(1, 0) = 2\n"
              "Store trace_g.0(0, 1) = 2\n"
              "Store trace_g.0(1, 1) = 4\n"
              "End produce trace_g.0(0, 2, 0, 2)\n"
              "End consume trace_f.0(0, 2, 0, 2)\n"
              "End realization trace_f.0(0, 2, 0, 2)\n"
              "End realization trace_g.0(0, 2, 0, 2)\n"
              "End pipeline trace_g.0()\n");
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return 2 * (p[0] + p[1]); });
}

TEST_P(Tracing, LoadsFloatsAndTags) {
    Func f("trace_lf"), g("trace_lg");
    Var x("x");
    f(x) = cast<float>(x) * 0.5f;
    g(x) = f(x + 1) + 1.0f;
    f.compute_root().trace_loads().add_trace_tag("half steps");
    CapturePrints capture;
    Buffer<float> out = g.realize({3});
    EXPECT_EQ(capture.str(),
              "Begin pipeline trace_lg.0()\n"
              "Tag trace_lf.0() tag = \"func_type_and_dim: 1 2 32 1 1 1 3\"\n"
              "Tag trace_lf.0() tag = \"half steps\"\n"
              "Load trace_lf.0(1) = 0.500000\n"
              "Load trace_lf.0(2) = 1.000000\n"
              "Load trace_lf.0(3) = 1.500000\n"
              "End pipeline trace_lg.0()\n");
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] + 1) * 0.5f + 1.0f; });
}

TEST_P(Tracing, TraceAllTracesEveryRealizedFunc) {
    Func f("trace_af"), g("trace_ag");
    Var x("x");
    f(x) = x * 3;
    g(x) = f(x) + 1;
    f.compute_root();
    CapturePrints capture;
    Buffer<int> out = g.realize({2}, get_jit_target_from_environment().with_feature(Target::TraceAll));
    EXPECT_EQ(capture.str(),
              "Begin pipeline trace_ag.0()\n"
              "Tag trace_af.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 2\"\n"
              "Tag trace_ag.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 2\"\n"
              "Begin realization trace_ag.0(0, 2)\n"
              "Begin realization trace_af.0(0, 2)\n"
              "Produce trace_af.0(0, 2)\n"
              "Store trace_af.0(0) = 0\n"
              "Store trace_af.0(1) = 3\n"
              "End produce trace_af.0(0, 2)\n"
              "Consume trace_af.0(0, 2)\n"
              "Produce trace_ag.0(0, 2)\n"
              "Load trace_af.0(0) = 0\n"
              "Store trace_ag.0(0) = 1\n"
              "Load trace_af.0(1) = 3\n"
              "Store trace_ag.0(1) = 4\n"
              "End produce trace_ag.0(0, 2)\n"
              "End consume trace_af.0(0, 2)\n"
              "End realization trace_af.0(0, 2)\n"
              "End realization trace_ag.0(0, 2)\n"
              "End pipeline trace_ag.0()\n");
    // Without the feature (a different compiled pipeline), nothing is traced.
    // (realize({2}) alone would run the code compiled last, the traced one,
    // as in Halide.)
    CapturePrints quiet;
    g.realize({2}, get_jit_target_from_environment());
    EXPECT_EQ(quiet.str(), "");
}

/** A custom handler (Halide's custom_trace) that counts and records events. */
struct Recorded {
    std::mutex mutex;
    int stores = 0, store_lanes = 0, loads = 0, begins = 0, ends = 0;
    std::vector<int> store_values;
    int max_lanes = 0;
};
Recorded &recorded() {
    static Recorded r;
    return r;
}
int32_t count_events(void *, const loom_trace_event_t *e) {
    Recorded &r = recorded();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (e->event == loom_trace_store) {
        r.stores++;
        r.store_lanes += e->type.lanes;
        for (int i = 0; i < e->type.lanes; i++) r.store_values.push_back(static_cast<const int32_t *>(e->value)[i]);
    }
    if (e->event == loom_trace_load) r.loads++;
    if (e->event == loom_trace_begin_realization) r.begins++;
    if (e->event == loom_trace_end_realization) r.ends++;
    if (e->type.lanes > r.max_lanes) r.max_lanes = e->type.lanes;
    return 0;
}

/** Every event with the id a handler gave it and its parent_id. */
struct Nested {
    int event, id, parent;
    std::string func;
};
std::vector<Nested> &nested() {
    static std::vector<Nested> n;
    return n;
}
int32_t record_nesting(void *, const loom_trace_event_t *e) {
    const int id = 1000 + (int)nested().size();
    nested().push_back({e->event, id, e->parent_id, e->func ? e->func : ""});
    return id;
}

TEST_P(Tracing, EventsNestThroughParentIds) {
    // As in Halide: the pipeline's events have parent -1; a realization's
    // parent is the pipeline; Produce and Consume have the realization as
    // parent; stores inside a Produce have the Produce as parent, and loads
    // of a Func inside its Consume have the Consume; each End event has the
    // id of its Begin.
    Func f("nest_f"), g("nest_g");
    Var x("x");
    f(x) = x + 1;
    g(x) = f(x) * 2;
    f.compute_root().trace_stores().trace_loads().trace_realizations();
    nested().clear();
    loom_trace_handler_t previous = loom_set_trace_handler(&record_nesting);
    Buffer<int> out = g.realize({2});
    loom_set_trace_handler(previous);
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return 2 * (p[0] + 1); });
    std::map<int, Nested> by_id;
    for (const Nested &n : nested()) by_id[n.id] = n;
    auto parent_event = [&](const Nested &n) { return by_id.count(n.parent) ? by_id[n.parent].event : -1; };
    std::vector<int> events;
    for (const Nested &n : nested()) events.push_back(n.event);
    const std::vector<int> expected = {loom_trace_begin_pipeline, loom_trace_tag,          loom_trace_begin_realization,
                                       loom_trace_produce,        loom_trace_store,        loom_trace_store,
                                       loom_trace_end_produce,    loom_trace_consume,      loom_trace_load,
                                       loom_trace_load,           loom_trace_end_consume,  loom_trace_end_realization,
                                       loom_trace_end_pipeline};
    ASSERT_EQ(events, expected);
    const std::vector<Nested> &n = nested();
    EXPECT_EQ(n[0].parent, -1);
    EXPECT_EQ(n[0].func, "nest_g");
    EXPECT_EQ(n[1].parent, n[0].id);         // nest_f's func_type_and_dim tag
    EXPECT_EQ(n[1].func, "nest_f");
    EXPECT_EQ(n[2].parent, n[0].id);         // realization in the pipeline
    EXPECT_EQ(n[3].parent, n[2].id);         // produce in the realization
    EXPECT_EQ(n[4].parent, n[3].id);         // stores in the produce
    EXPECT_EQ(n[5].parent, n[3].id);
    EXPECT_EQ(n[6].parent, n[3].id);         // End produce: its Produce
    EXPECT_EQ(n[7].parent, n[2].id);         // consume in the realization
    EXPECT_EQ(parent_event(n[8]), loom_trace_consume);
    EXPECT_EQ(n[10].parent, n[7].id);
    EXPECT_EQ(n[11].parent, n[2].id);        // End realization
    EXPECT_EQ(n[12].parent, n[0].id);        // End pipeline
}

TEST_P(Tracing, CustomHandlerCountsEvents) {
    Func f("trace_cf"), g("trace_cg");
    Var x("x"), y("y");
    f(x, y) = x * 10 + y;
    g(x, y) = f(x, y) + f(x, 2 - y);
    f.compute_root().trace_stores().trace_loads().trace_realizations();
    f.vectorize(x, 4);  // as in Halide: one store event for the 4 lanes
    {
        Recorded &r = recorded();
        r.stores = r.store_lanes = r.loads = r.begins = r.ends = r.max_lanes = 0;
        r.store_values.clear();
    }
    {
        CapturePrints capture;  // nothing may reach the default printer
        loom_trace_handler_t previous = loom_set_trace_handler(&count_events);
        g.realize({8, 3});
        loom_set_trace_handler(previous);
        EXPECT_EQ(capture.str(), "");
    }
    const Recorded &r = recorded();
    EXPECT_EQ(r.stores, 8 * 3 / 4);
    EXPECT_EQ(r.store_lanes, 8 * 3);
    EXPECT_EQ(r.max_lanes, 4);
    EXPECT_EQ(r.loads, 2 * 8 * 3);  // g is not vectorized
    EXPECT_EQ(r.begins, 1);
    EXPECT_EQ(r.ends, 1);
    int sum = 0;
    for (int v : r.store_values) sum += v;
    int expected = 0;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 8; x++) expected += x * 10 + y;
    EXPECT_EQ(sum, expected);
}

TEST_P(Tracing, ParallelLoopsAndComputeAt) {
    Func f("trace_pf"), g("trace_pg");
    Var x("x"), y("y");
    f(x, y) = x * 10 + y;
    g(x, y) = f(x, y) + f(x + 1, y);
    f.compute_at(g, y).trace_stores().trace_realizations();
    g.parallel(y);
    {
        Recorded &r = recorded();
        r.stores = r.store_lanes = r.loads = r.begins = r.ends = r.max_lanes = 0;
        r.store_values.clear();
    }
    loom_trace_handler_t previous = loom_set_trace_handler(&count_events);
    Buffer<int> out = g.realize({5, 16});
    loom_set_trace_handler(previous);
    const Recorded &r = recorded();
    EXPECT_EQ(r.begins, 16);  // one realization of f per row of g
    EXPECT_EQ(r.ends, 16);
    EXPECT_EQ(r.stores, 6 * 16);
    EXPECT_EQ(r.loads, 0);
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return 20 * p[0] + 10 + 2 * p[1]; });
}

// A vectorized traced Func reports one event per vector, as Halide does:
// the coordinates grouped by dimension and the values in angle brackets.
TEST_P(Tracing, VectorizedStoresAreOneEventPerVector) {
    Func f("trace_vf");
    Var x("x"), y("y");
    f(x, y) = x * 2 + y;
    f.vectorize(x, 4).trace_stores();
    CapturePrints capture;
    Buffer<int> out = f.realize({8, 1});
    EXPECT_EQ(capture.str(),
              "Begin pipeline trace_vf.0()\n"
              "Tag trace_vf.0() tag = \"func_type_and_dim: 1 0 32 1 2 0 8 0 1\"\n"
              "Store trace_vf.0(<0, 1, 2, 3>, <0, 0, 0, 0>) = <0, 2, 4, 6>\n"
              "Store trace_vf.0(<4, 5, 6, 7>, <0, 0, 0, 0>) = <8, 10, 12, 14>\n"
              "End pipeline trace_vf.0()\n");
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 2 + p[1]; });
}

// A GuardWithIf tail: full vectors are one event each, the lanes of the
// partial vector are stored (and traced) one by one.
TEST_P(Tracing, AGuardedVectorTailTracesOnlyTheLanesItStores) {
    Func f("trace_tf");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x + 100;
    f.split(x, xo, xi, 4, TailStrategy::GuardWithIf).vectorize(xi).trace_stores();
    {
        Recorded &r = recorded();
        r.stores = r.store_lanes = r.loads = r.begins = r.ends = r.max_lanes = 0;
        r.store_values.clear();
    }
    loom_trace_handler_t previous = loom_set_trace_handler(&count_events);
    Buffer<int> out = f.realize({6});
    loom_set_trace_handler(previous);
    const Recorded &r = recorded();
    EXPECT_EQ(r.store_lanes, 6);
    EXPECT_EQ(r.max_lanes, 4);
    std::vector<int> stored = r.store_values;
    std::sort(stored.begin(), stored.end());
    EXPECT_EQ(stored, (std::vector<int>{100, 101, 102, 103, 104, 105}));
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] + 100; });
}

// Halide's trace_loads target feature traces every load, the input
// buffers' included, and the realizations that parent them.
TEST_P(Tracing, TraceLoadsFeatureTracesInputBuffers) {
    ImageParam in(Int(32), 1, "trace_in");
    Func g("trace_ing");
    Var x("x");
    g(x) = in(x + 1) * 10;
    Buffer<int> input(3);
    for (int i = 0; i < 3; i++) input(i) = i + 5;
    in.set(input);
    CapturePrints capture;
    Buffer<int> out = g.realize({2}, get_jit_target_from_environment().with_feature(Target::TraceLoads));
    EXPECT_EQ(capture.str(),
              "Begin pipeline trace_ing.0()\n"
              "Tag trace_in.0() tag = \"func_type_and_dim: 1 0 32 1 1 1 2\"\n"
              "Tag trace_ing.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 2\"\n"
              "Begin realization trace_ing.0(0, 2)\n"
              "Produce trace_ing.0(0, 2)\n"
              "Load trace_in.0(1) = 6\n"
              "Load trace_in.0(2) = 7\n"
              "End produce trace_ing.0(0, 2)\n"
              "End realization trace_ing.0(0, 2)\n"
              "End pipeline trace_ing.0()\n");
    EXPECT_EQ(out(0), 60);
    EXPECT_EQ(out(1), 70);
}

// Halide's ImageParam::trace_loads() and add_trace_tag(): the loads of one
// input, without a target feature.
TEST_P(Tracing, ImageParamTraceLoadsAndTags) {
    ImageParam in(Int(32), 1, "trace_pin");
    Func g("trace_ping");
    Var x("x");
    g(x) = in(x) * 2;
    Buffer<int> input(2);
    input(0) = 4;
    input(1) = 9;
    in.set(input);
    {
        CapturePrints capture;
        g.realize({2});
        EXPECT_EQ(capture.str(), "");  // nothing traced yet
    }
    in.trace_loads().add_trace_tag("input tag");  // the compiled pipeline is redone
    CapturePrints capture;
    Buffer<int> out = g.realize({2});
    EXPECT_EQ(capture.str(),
              "Begin pipeline trace_ping.0()\n"
              "Tag trace_pin.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 2\"\n"
              "Tag trace_pin.0() tag = \"input tag\"\n"
              "Load trace_pin.0(0) = 4\n"
              "Load trace_pin.0(1) = 9\n"
              "End pipeline trace_ping.0()\n");
    EXPECT_EQ(out(0), 8);
    EXPECT_EQ(out(1), 18);
}

TEST_P(Tracing, TraceStoresAndTracePipelineFeatures) {
    Func f("trace_sf"), g("trace_sg");
    Var x("x");
    f(x) = x + 1;
    g(x) = f(x) * 2;
    f.compute_root();
    {
        CapturePrints capture;
        g.realize({1}, get_jit_target_from_environment().with_feature(Target::TraceStores));
        EXPECT_EQ(capture.str(),
                  "Begin pipeline trace_sg.0()\n"
                  "Tag trace_sf.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 1\"\n"
                  "Tag trace_sg.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 1\"\n"
                  "Begin realization trace_sg.0(0, 1)\n"
                  "Begin realization trace_sf.0(0, 1)\n"
                  "Produce trace_sf.0(0, 1)\n"
                  "Store trace_sf.0(0) = 1\n"
                  "End produce trace_sf.0(0, 1)\n"
                  "Consume trace_sf.0(0, 1)\n"
                  "Produce trace_sg.0(0, 1)\n"
                  "Store trace_sg.0(0) = 2\n"
                  "End produce trace_sg.0(0, 1)\n"
                  "End consume trace_sf.0(0, 1)\n"
                  "End realization trace_sf.0(0, 1)\n"
                  "End realization trace_sg.0(0, 1)\n"
                  "End pipeline trace_sg.0()\n");
    }
    // trace_pipeline alone: the pipeline's own events, nothing inside.
    CapturePrints capture;
    Buffer<int> out = g.realize({1}, get_jit_target_from_environment().with_feature(Target::TracePipeline));
    EXPECT_EQ(capture.str(), "Begin pipeline trace_sg.0()\nEnd pipeline trace_sg.0()\n");
    EXPECT_EQ(out(0), 2);
}

TEST_P(Tracing, UpdateDefinitionsAndTuplesAreStores) {
    Func f("trace_uf");
    Var x("x");
    f(x) = Tuple(x, x * 2);
    f(x) = Tuple(f(x)[0] + 1, f(x)[1]);
    f.trace_stores();
    CapturePrints capture;
    f.realize({1});
    EXPECT_EQ(capture.str(),
              "Begin pipeline trace_uf.0()\n"
              "Tag trace_uf.0() tag = \"func_type_and_dim: 2 0 32 1 0 32 1 1 0 1\"\n"
              "Store trace_uf.0(0) = 0\n"
              "Store trace_uf.1(0) = 0\n"
              "Store trace_uf.0(0) = 1\n"
              "Store trace_uf.1(0) = 0\n"
              "End pipeline trace_uf.0()\n");
}

TEST_P(Tracing, AnInlinedFuncTracesNothingAsInHalide) {
    Func f("trace_inlined"), g("trace_ig");
    Var x("x");
    f(x) = x * 3;
    g(x) = f(x) + 1;
    f.trace_stores().trace_loads().trace_realizations();
    f.add_trace_tag("inlined tag");
    {
        CapturePrints capture;
        Buffer<int> out = g.realize({4});
        EXPECT_EQ(capture.str(), "");  // inlined: no stores, loads or storage of its own
        for (int i = 0; i < 4; i++) EXPECT_EQ(out(i), i * 3 + 1) << i;
    }
    f.compute_root();  // now it has stores of its own
    CapturePrints capture;
    g.realize({1});
    EXPECT_NE(capture.str().find("Store trace_inlined.0(0) = 0\n"), std::string::npos) << capture.str();
    EXPECT_NE(capture.str().find("inlined tag"), std::string::npos) << capture.str();
}

LOOM_INSTANTIATE_BACKENDS(Tracing);

}  // namespace

namespace {

TEST(TracingErrors, TraceInsideAGpuScheduleIsACompileError) {
    using namespace loom;
    Func f("trace_gpu_f");
    Var x("x"), bx("bx"), tx("tx");
    f(x) = x * 2;
    f.gpu_tile(x, bx, tx, 8).trace_stores();
    const std::string file = ::testing::TempDir() + "trace_gpu_f.stmt";
    try {
        f.compile_to_lowered_stmt(file, Target("host-vulkan"));
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("Func trace_gpu_f is traced (trace_stores) inside the GPU loop"), std::string::npos)
            << what;
    }
}

TEST(TracingErrors, TraceFormatOfAVectorEvent) {
    // The layout Halide uses for a vector access: coordinates grouped by
    // dimension, values in angle brackets.
    const int32_t coordinates[4] = {0, 1, 2, 2};
    const int16_t values[2] = {5, -6};
    loom_trace_event_t e = {};
    e.func = "v";
    e.value = values;
    e.coordinates = coordinates;
    e.type = {loom_type_int, 16, 2};
    e.event = loom_trace_store;
    e.dimensions = 4;
    char line[128];
    int n = loom_trace_format(&e, line, sizeof line);
    EXPECT_EQ(std::string(line), "Store v.0(<0, 1>, <2, 2>) = <5, -6>\n");
    EXPECT_EQ(n, (int)std::string(line).size());
    char small[8];
    EXPECT_EQ(loom_trace_format(&e, small, sizeof small), n);  // what it needs, like snprintf
    EXPECT_EQ(std::string(small), "Store v");
}

}  // namespace
