// The autoscheduling API around the scheduler (loom/AutoSchedule.h): Halide
// 14's auto_schedule and MachineParams, the registry, load_plugin, estimates,
// and every refusal with its message.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "e2e/E2ETest.h"
#include "ir/IRUtil.h"
#include "loom/Loom.h"

namespace {

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;

const Target schedule_target("x86-64-linux-avx2");

/** out(x, y) = in(x, y) + in(x + 1, y) through a producer, for the tests below. */
struct SmallPipeline {
    ImageParam in{Float(32), 2, "small_in"};
    Var x{"x"}, y{"y"};
    Func producer{"producer"}, out{"small_out"};
    SmallPipeline() {
        producer(x, y) = in(x, y) * in(x, y) + 1.0f;
        out(x, y) = producer(x, y) + producer(x + 1, y);
    }
    void estimate_everything() {
        in.dim(0).set_estimate(0, 1000);
        in.dim(1).set_estimate(0, 1000);
        out.set_estimates({{0, 999}, {0, 1000}});
    }
};

TEST(AutoScheduleApi, MachineParamsStringForms) {
    EXPECT_EQ(MachineParams::generic().to_string(), "16,16777216,40");
    MachineParams p("4,1048576,12.5");
    EXPECT_EQ(p.parallelism, 4);
    EXPECT_EQ(p.last_level_cache_size, 1048576u);
    EXPECT_FLOAT_EQ(p.balance, 12.5f);
    EXPECT_EQ(p.to_string(), "4,1048576,12.5");
    for (const char *bad : {"", "4,5", "a,b,c", "0,10,10", "4,10,-1", "4,10,10,10"}) {
        EXPECT_TRUE(contains(compile_error_message([&] { MachineParams m(bad); }), "parallelism,last_level_cache_size"))
            << bad;
    }
    EXPECT_EQ(AutoschedulerParams("Adams2019", {{"parallelism", "8"}}).to_string(),
              "autoscheduler=Adams2019 autoscheduler.parallelism=8");
}

TEST(AutoScheduleApi, Halide14AutoScheduleWithMachineParams) {
    SmallPipeline s;
    s.estimate_everything();
    Pipeline p(s.out);
    AutoSchedulerResults r = p.auto_schedule(schedule_target, MachineParams(4, 1 << 20, 40));
    EXPECT_EQ(r.scheduler_name, "LoomHeuristic");
    EXPECT_EQ(r.machine_params_string, "4,1048576,40");
    EXPECT_EQ(r.target.to_string(), schedule_target.to_string());
    EXPECT_EQ(r.autoscheduler_params.extra.at("parallelism"), "4");
    EXPECT_TRUE(r.featurization.empty());
    EXPECT_TRUE(contains(r.schedule_source, "parallelism=4, last_level_cache_size=1048576")) << r.schedule_source;
    EXPECT_TRUE(contains(r.schedule_source, "small_out\n        .tile(")) << r.schedule_source;
    Buffer<float> input(12, 4);
    input.fill(2.0f);
    s.in.set(input);
    Buffer<float> result = p.realize({11, 4});
    loom_test::expect_buffer_eq(result, [](const std::vector<int> &) { return 10.0f; });
}

TEST(AutoScheduleApi, BalanceDecidesWhatIsCheapEnoughToInline) {
    // producer (two operations and two loads a point) is read twice a
    // point: kept (computed per tile) when moving a cache line costs 2
    // operations, inlined when it costs 200 (the cost model, CostModel.h).
    SmallPipeline s;
    s.estimate_everything();
    AutoSchedulerResults r = Pipeline(s.out).auto_schedule(schedule_target, MachineParams(16, 16 << 20, 2));
    EXPECT_TRUE(contains(r.schedule_source, "producer\n        .compute_at(small_out, ")) << r.schedule_source;
    SmallPipeline t;
    t.estimate_everything();
    r = Pipeline(t.out).auto_schedule(schedule_target, MachineParams(16, 16 << 20, 200));
    EXPECT_FALSE(contains(r.schedule_source, "producer")) << r.schedule_source;
    EXPECT_TRUE(contains(r.schedule_source, "balance=200")) << r.schedule_source;
    Buffer<float> input(12, 4);
    input.fill(3.0f);
    t.in.set(input);
    Buffer<float> result = Pipeline(t.out).realize({11, 4});
    loom_test::expect_buffer_eq(result, [](const std::vector<int> &) { return 20.0f; });
}

TEST(AutoScheduleApi, HalideSchedulerNamesSelectLoomsHeuristic) {
    for (const char *name : {"Mullapudi2016", "Adams2019", "Li2018", "Anderson2021"}) {
        SmallPipeline s;
        s.estimate_everything();
        AutoSchedulerResults r = Pipeline(s.out).apply_autoscheduler(schedule_target, {name});
        EXPECT_TRUE(contains(r.schedule_source, std::string("(asked for as \"") + name + "\")")) << r.schedule_source;
        EXPECT_EQ(r.autoscheduler_params.name, name);
    }
    SmallPipeline s;
    s.estimate_everything();
    AutoSchedulerResults r = Pipeline(s.out).auto_schedule("Mullapudi2016", schedule_target);
    EXPECT_EQ(r.scheduler_name, "Mullapudi2016");
    EXPECT_EQ(r.machine_params_string, "16,16777216,40");
}

TEST(AutoScheduleApi, MissingEstimatesNameTheFuncOrImageParam) {
    {
        SmallPipeline s;
        s.in.dim(0).set_estimate(0, 100);
        s.in.dim(1).set_estimate(0, 100);
        s.out.set_estimate(s.x, 0, 100);  // y is missing
        std::string m = compile_error_message([&] { Pipeline(s.out).apply_autoscheduler(schedule_target, {"LoomHeuristic"}); });
        EXPECT_TRUE(contains(m, "Func small_out")) << m;
        EXPECT_TRUE(contains(m, "dimension 1 ('y')")) << m;
        EXPECT_TRUE(contains(m, "small_out.set_estimate(y, min, extent)")) << m;
    }
    {
        SmallPipeline s;
        s.out.set_estimates({{0, 100}, {0, 100}});
        s.in.dim(0).set_estimate(0, 100);
        std::string m = compile_error_message([&] { Pipeline(s.out).apply_autoscheduler(schedule_target, {"LoomHeuristic"}); });
        EXPECT_TRUE(contains(m, "ImageParam small_in")) << m;
        EXPECT_TRUE(contains(m, "small_in.dim(1).set_estimate(min, extent)")) << m;
    }
    {
        // An ImageParam with a buffer bound to it needs no estimate: the buffer's shape is used.
        SmallPipeline s;
        s.out.set_estimates({{0, 100}, {0, 100}});
        Buffer<float> input(101, 100);
        s.in.set(input);
        EXPECT_NO_THROW(Pipeline(s.out).apply_autoscheduler(schedule_target, {"LoomHeuristic"}));
    }
}

TEST(AutoScheduleApi, ParamEstimatesSizeRegionsThatDependOnParams) {
    // lut is read at clamp(in, 0, n - 1), so its region is [0, n - 1]: with
    // n's estimate the scheduler sizes it (4 entries: too few to vectorize by
    // 8 floats; 4096: vectorized), without one it assumes a default size
    // (1024 entries).
    auto lut_schedule = [](const Expr &estimate) {
        ImageParam in(Int(32), 2, "lut_in");
        Param<int> n("n");
        if (estimate.defined()) n.set_estimate(estimate);
        Var x("x"), y("y"), i("i");
        Func lut("lut"), out("lut_out"), other("lut_other");
        lut(i) = sqrt(cast<float>(i) * 3.0f + 1.0f) * 2.0f - 1.0f;
        out(x, y) = lut(clamp(in(x, y), 0, n - 1));
        other(x, y) = lut(clamp(in(x, y) + 1, 0, n - 1));  // two consumers: lut is computed at the root
        in.dim(0).set_estimate(0, 1000);
        in.dim(1).set_estimate(0, 1000);
        out.set_estimates({{0, 1000}, {0, 1000}});
        other.set_estimates({{0, 1000}, {0, 1000}});
        AutoSchedulerResults r = Pipeline({out, other}).apply_autoscheduler(schedule_target, {"LoomHeuristic"});
        // The values do not depend on the schedule.
        Buffer<int32_t> input(9, 3);
        input.for_each_element([&](int px, int py) { input(px, py) = px * 3 - py * 5; });
        in.set(input);
        n.set(6);
        Buffer<float> result = out.realize({9, 3});
        loom_test::expect_buffer_eq(result, [&](const std::vector<int> &p) {
            const int index = std::min(std::max(input(p[0], p[1]), 0), 5);
            return std::sqrt(float(index) * 3.0f + 1.0f) * 2.0f - 1.0f;
        });
        const size_t at = r.schedule_source.find("lut\n");
        EXPECT_NE(at, std::string::npos) << r.schedule_source;
        return r.schedule_source.substr(at, r.schedule_source.find(';', at) - at);
    };
    EXPECT_FALSE(Param<int>("m").estimate().defined());
    const std::string small = lut_schedule(Expr(4)), large = lut_schedule(Expr(4096)), none = lut_schedule(Expr());
    EXPECT_FALSE(contains(small, "vectorize")) << small;
    EXPECT_TRUE(contains(large, "vectorize")) << large;
    EXPECT_TRUE(contains(none, "vectorize")) << none;  // the default size of an unknown region
    // Estimates are constants of the Param's type.
    Param<uint8_t> level("level");
    level.set_estimate(300 - 50);
    EXPECT_EQ(*internal::as_const_uint(level.estimate()), 250u);
    EXPECT_EQ(level.estimate().type(), UInt(8));
    Param<int> other("other");
    const std::string m = compile_error_message([&] { level.set_estimate(other + 1); });
    EXPECT_TRUE(contains(m, "Param level: set_estimate needs a constant value")) << m;
}

TEST(AutoScheduleApi, EstimateMistakes) {
    SmallPipeline s;
    Var z("z");
    EXPECT_TRUE(contains(compile_error_message([&] { s.out.set_estimate(z, 0, 10); }), "'z' is not a pure argument"));
    EXPECT_TRUE(contains(compile_error_message([&] { s.out.set_estimates({{0, 10}}); }), "give one per dimension"));
    EXPECT_TRUE(contains(compile_error_message([&] { s.out.set_estimate(s.x, 0, 0); }), "is not positive"));
    Param<int> w("w");
    EXPECT_TRUE(contains(compile_error_message([&] { s.out.set_estimate(s.x, 0, w); }), "integer constants"));
    Func undefined("undefined");
    EXPECT_TRUE(contains(compile_error_message([&] { undefined.set_estimate(s.x, 0, 10); }), "no definition yet"));
    // The estimate is recorded on the output buffer.
    s.out.set_estimate(s.y, 3, 40);
    EXPECT_EQ(*internal::as_const_int(s.out.output_buffer().dim(1).extent_estimate()), 40);
}

TEST(AutoScheduleApi, UnknownNamesAndParameters) {
    SmallPipeline s;
    s.estimate_everything();
    Pipeline p(s.out);
    std::string m = compile_error_message([&] { p.apply_autoscheduler(schedule_target, {"Nope2020"}); });
    EXPECT_TRUE(contains(m, "no autoscheduler named 'Nope2020'")) << m;
    EXPECT_TRUE(contains(m, "LoomHeuristic")) << m;
    EXPECT_TRUE(contains(m, "Adams2019")) << m;
    m = compile_error_message([&] { p.apply_autoscheduler(schedule_target, AutoschedulerParams()); });
    EXPECT_TRUE(contains(m, "needs the name of an autoscheduler")) << m;
    m = compile_error_message(
        [&] { p.apply_autoscheduler(schedule_target, AutoschedulerParams("Adams2019", {{"beam_size", "32"}})); });
    EXPECT_TRUE(contains(m, "has no parameter 'beam_size'")) << m;
    EXPECT_TRUE(contains(m, "parallelism, last_level_cache_size and balance")) << m;
    m = compile_error_message(
        [&] { p.apply_autoscheduler(schedule_target, AutoschedulerParams("LoomHeuristic", {{"parallelism", "0"}})); });
    EXPECT_TRUE(contains(m, "parallelism='0' is not a positive number")) << m;
    m = compile_error_message([&] { Pipeline::set_default_autoscheduler_name("Nope2020"); });
    EXPECT_TRUE(contains(m, "no autoscheduler named 'Nope2020'")) << m;
    m = compile_error_message([&] { p.apply_autoscheduler(Target("x86-64-linux-vulkan"), {"LoomHeuristic"}); });
    EXPECT_TRUE(contains(m, "GPU")) << m;
    EXPECT_TRUE(contains(compile_error_message([] { Pipeline().apply_autoscheduler(schedule_target, {"LoomHeuristic"}); }),
                         "undefined"));
}

TEST(AutoScheduleApi, HandSchedulesAndASecondRunAreRefused) {
    {
        SmallPipeline s;
        s.estimate_everything();
        s.out.parallel(s.y);
        std::string m = compile_error_message([&] { Pipeline(s.out).apply_autoscheduler(schedule_target, {"LoomHeuristic"}); });
        EXPECT_TRUE(contains(m, "Func small_out is already scheduled (loop directives")) << m;
    }
    {
        SmallPipeline s;
        s.estimate_everything();
        s.producer.compute_root();
        std::string m = compile_error_message([&] { Pipeline(s.out).apply_autoscheduler(schedule_target, {"LoomHeuristic"}); });
        EXPECT_TRUE(contains(m, "Func producer is already scheduled (compute_root)")) << m;
    }
    {
        SmallPipeline s;
        s.estimate_everything();
        s.producer.compute_at(s.out, s.y);
        std::string m = compile_error_message([&] { Pipeline(s.out).apply_autoscheduler(schedule_target, {"LoomHeuristic"}); });
        EXPECT_TRUE(contains(m, "Func producer is already scheduled (compute_at)")) << m;
    }
    {
        SmallPipeline s;
        s.estimate_everything();
        Pipeline p(s.out);
        p.apply_autoscheduler(schedule_target, {"LoomHeuristic"});
        std::string m = compile_error_message([&] { p.apply_autoscheduler(schedule_target, {"LoomHeuristic"}); });
        EXPECT_TRUE(contains(m, "already scheduled")) << m;
        EXPECT_TRUE(contains(m, "autoscheduled once")) << m;
    }
}

TEST(AutoScheduleApi, CustomAutoschedulersAndTheDefault) {
    Pipeline::add_autoscheduler("TestRootEverything",
                                [](const Pipeline &p, const Target &, const AutoschedulerParams &params,
                                   AutoSchedulerResults *results) {
                                    for (Func f : p.outputs()) f.compute_root();
                                    results->schedule_source = "// root, " + params.extra.at("tag");
                                });
    std::string m = compile_error_message([] {
        Pipeline::add_autoscheduler("TestRootEverything", [](const Pipeline &, const Target &,
                                                             const AutoschedulerParams &, AutoSchedulerResults *) {});
    });
    EXPECT_TRUE(contains(m, "already registered")) << m;
    EXPECT_TRUE(contains(compile_error_message([] { Pipeline::add_autoscheduler("", nullptr); }), "non-empty name"));

    SmallPipeline s;
    AutoSchedulerResults r =
        Pipeline(s.out).apply_autoscheduler(schedule_target, AutoschedulerParams("TestRootEverything", {{"tag", "7"}}));
    EXPECT_EQ(r.schedule_source, "// root, 7");

    // Halide 14's default autoscheduler: LoomHeuristic until changed.
    Pipeline::set_default_autoscheduler_name("Mullapudi2016");
    SmallPipeline t;
    t.estimate_everything();
    AutoSchedulerResults d = Pipeline(t.out).auto_schedule(schedule_target);
    EXPECT_EQ(d.scheduler_name, "Mullapudi2016");
    Pipeline::set_default_autoscheduler_name("LoomHeuristic");
}

TEST(AutoScheduleApi, ExternStagesAndRecurrencesAreLeftAlone) {
    {
        Buffer<float> input(64, 64);
        Var x("x"), y("y");
        Func ext("ext"), out("ext_out");
        ext.define_extern("autoschedule_test_extern", {input}, Float(32), 2);
        out(x, y) = ext(x, y) + ext(x + 1, y);
        out.set_estimates({{0, 512}, {0, 512}});
        const std::string s = Pipeline(out).apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
        EXPECT_FALSE(contains(s, "    ext\n")) << s;
        EXPECT_TRUE(contains(s, "    ext_out\n        .tile(")) << s;
    }
    {
        // state(r + 1) = step(r) with step reading state: a cycle through
        // another Func, left to its default schedule; the output is scheduled.
        Var x("x");
        RDom r(0, 9, "r");
        Func state("state"), step("step"), out("rec_out");
        state(x) = 1;
        step(x) = state(x) * 2 + 1;
        state(r + 1) = step(r);
        out(x) = state(x) + 3;
        out.set_estimate(x, 0, 10);
        const std::string s = Pipeline(out).apply_autoscheduler(schedule_target, {"LoomHeuristic"}).schedule_source;
        EXPECT_FALSE(contains(s, "    state")) << s;
        EXPECT_FALSE(contains(s, "    step")) << s;
        Buffer<int> result = Pipeline(out).realize({10});
        int v = 1;
        for (int i = 0; i < 10; i++) {
            EXPECT_EQ(result(i), v + 3) << i;
            v = v * 2 + 1;
        }
    }
}

TEST(AutoScheduleApi, LoadPlugin) {
    // Halide's plugins are built in by name: loading them loads nothing.
    EXPECT_NO_THROW(load_plugin("autoschedule_adams2019"));
    EXPECT_NO_THROW(load_plugin("/opt/halide/lib/libautoschedule_mullapudi2016.so"));
    // A real plugin: its static initializer registers TestPlugin2026.
    load_plugin(LOOM_TEST_AUTOSCHEDULER_PLUGIN);
    load_plugin(LOOM_TEST_AUTOSCHEDULER_PLUGIN);  // loading again registers nothing twice
    SmallPipeline s;
    AutoSchedulerResults r = Pipeline(s.out).apply_autoscheduler(schedule_target, {"TestPlugin2026"});
    EXPECT_TRUE(contains(r.schedule_source, "// TestPlugin2026 for x86-64-linux-avx2")) << r.schedule_source;
    EXPECT_TRUE(contains(r.schedule_source, "\nsmall_out.compute_root();\n")) << r.schedule_source;
    std::string m = compile_error_message([] { load_plugin("/nonexistent/libmy_scheduler.so"); });
    EXPECT_TRUE(contains(m, "can't load '/nonexistent/libmy_scheduler.so'")) << m;
    EXPECT_TRUE(contains(m, "Pipeline::add_autoscheduler")) << m;
}

}  // namespace
