// Generators with an autoscheduler (docs/AUTOSCHEDULER.md): Halide 16's
// autoscheduler=NAME and autoscheduler.KEY=VALUE GeneratorParams, Halide
// 14's auto_schedule=true and machine_params, using_autoscheduler(),
// estimates on Inputs and Outputs, the driver's -p, -s, -t and -d, and the
// `schedule` emit holding the autoscheduler's schedule.

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "aot/AotTestSupport.h"
#include "lang/GeneratorDriver.h"
#include "lang/LangTestUtil.h"
#include "loom/Generator.h"

namespace {

using namespace loom;
namespace fs = std::filesystem;

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

/** A 3x3 box blur of a float image. Its schedule() sets estimates when an
 * autoscheduler runs and schedules by hand otherwise (Halide's idiom). */
class AutoBlur : public Generator<AutoBlur> {
public:
    GeneratorParam<bool> estimates{"estimates", true};
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Func bounded = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = bounded(x - 1, y) + bounded(x, y) + bounded(x + 1, y);
        output(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 9.0f;
    }
    void schedule() {
        if (using_autoscheduler()) {
            if (!estimates) return;
            input.set_estimates({{0, 1024}, {0, 1024}});
            output.set_estimates({{0, 1024}, {0, 1024}});
        } else {
            blur_x.compute_root();
        }
    }

    Func blur_x{"auto_blur_x"};
    Var x{"x"}, y{"y"};
};

/** Halide 14's way to write it: `if (auto_schedule)`, estimates through
 * dim(d).set_estimate and Param::set_estimate. Gradients of a gray image
 * (a stencil), their products, and two outputs of one result. */
class Halide14Style : public Generator<Halide14Style> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<float> factor{"factor"};
    Output<Buffer<float>> output1{"output1", 2};
    Output<Buffer<float>> output2{"output2", 2};

    void generate() {
        Func in_b = BoundaryConditions::repeat_edge(input);
        gray(x, y) = 0.25f * in_b(x, y, 0) + 0.5f * in_b(x, y, 1) + 0.25f * in_b(x, y, 2);
        gx(x, y) = gray(x + 1, y) - gray(x - 1, y);
        gy(x, y) = gray(x, y + 1) - gray(x, y - 1);
        score(x, y) = gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y) - gx(x, y) * gy(x, y);
        output1(x, y) = score(x + 1, y + 1);
        output2(x, y) = factor * score(x + 1, y + 1);
    }
    void schedule() {
        if (auto_schedule) {
            input.dim(0).set_estimate(0, 1024);
            input.dim(1).set_estimate(0, 1024);
            input.dim(2).set_estimate(0, 3);
            factor.set_estimate(2.0f);
            output1.set_estimates({{0, 1024}, {0, 1024}});
            output2.set_estimates({{0, 1024}, {0, 1024}});
        } else {
            gray.compute_root();
        }
    }

    Var x{"x"}, y{"y"};
    Func gray{"gray"}, gx{"gx"}, gy{"gy"}, score{"score"};
};

}  // namespace

LOOM_REGISTER_GENERATOR(AutoBlur, auto_blur)
LOOM_REGISTER_GENERATOR(Halide14Style, halide14_style)

namespace {

Buffer<float> test_image() {
    Buffer<float> b(21, 13);
    for (int y = 0; y < 13; y++) {
        for (int x = 0; x < 21; x++) b(x, y) = float((x * 5 + y * 11) % 17);
    }
    return b;
}

void expect_blurred(const Buffer<float> &in, const Buffer<float> &out) {
    auto at = [&](int x, int y) { return in(std::clamp(x, 0, in.width() - 1), std::clamp(y, 0, in.height() - 1)); };
    for (int y = 0; y < out.height(); y++) {
        for (int x = 0; x < out.width(); x++) {
            auto bx = [&](int yy) { return at(x - 1, yy) + at(x, yy) + at(x + 1, yy); };
            ASSERT_FLOAT_EQ(out(x, y), (bx(y - 1) + bx(y) + bx(y + 1)) / 9.0f) << x << ", " << y;
        }
    }
}

TEST(GeneratorAutoschedule, AutoschedulerParamSchedulesAfterSchedule) {
    AutoBlur g;
    EXPECT_FALSE(g.using_autoscheduler());
    g.set_generator_param("target", "x86-64-linux-avx2");
    g.set_generator_param("autoscheduler", "Mullapudi2016");
    g.set_generator_param("autoscheduler.parallelism", "4");
    EXPECT_TRUE(g.using_autoscheduler());
    EXPECT_EQ(g.autoscheduler_results(), nullptr);
    Buffer<float> in = test_image();
    g.input.set(in);
    Buffer<float> out = g.realize({21, 13});
    expect_blurred(in, out);
    const AutoSchedulerResults *r = g.autoscheduler_results();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->autoscheduler_params.name, "Mullapudi2016");
    // Realized (at the root: with parallelism=4 a core's share of the cache holds it), not inlined.
    EXPECT_TRUE(contains(r->schedule_source, "auto_blur_x\n        .compute_root()")) << r->schedule_source;
    EXPECT_TRUE(contains(r->schedule_source, "parallelism=4")) << r->schedule_source;
    EXPECT_TRUE(contains(r->schedule_source, ".parallel(")) << r->schedule_source;
    EXPECT_COMPILE_ERROR(g.set_generator_param("autoscheduler", "Adams2019"), "after the pipeline was built");
}

TEST(GeneratorAutoschedule, Halide14AutoScheduleAndMachineParams) {
    AutoBlur g;
    g.set_generator_param("auto_schedule", "true");
    g.set_generator_param("machine_params", "2,1048576,40");
    EXPECT_TRUE(g.using_autoscheduler());
    Buffer<float> in = test_image();
    g.input.set(in);
    Buffer<float> out = g.realize({21, 13});
    expect_blurred(in, out);
    ASSERT_NE(g.autoscheduler_results(), nullptr);
    EXPECT_EQ(g.autoscheduler_results()->machine_params_string, "2,1048576,40");
}

TEST(GeneratorAutoschedule, Halide14GeneratorReadsAutoScheduleAsAMember) {
    Buffer<float> in(23, 17, 3);
    in.fill([](int x, int y, int c) { return float((x * 3 + y * 5 + c * 7) % 13); });
    auto expected = [&](int x, int y) {
        auto g = [&](int i, int j) {
            i = std::clamp(i, 0, 22), j = std::clamp(j, 0, 16);
            return 0.25f * in(i, j, 0) + 0.5f * in(i, j, 1) + 0.25f * in(i, j, 2);
        };
        float dx = g(x + 2, y + 1) - g(x, y + 1), dy = g(x + 1, y + 2) - g(x + 1, y);
        return dx * dx + dy * dy - dx * dy;
    };
    for (const char *on : {"false", "true"}) {
        Halide14Style g;
        g.set_generator_param("target", "x86-64-linux-avx2");
        g.set_generator_param("auto_schedule", on);
        g.input.set(in);
        g.factor.set(2.0f);
        Realization r = g.realize({20, 15});
        Buffer<float> out1 = r[0], out2 = r[1];
        for (int y = 0; y < 15; y++) {
            for (int x = 0; x < 20; x++) {
                ASSERT_FLOAT_EQ(out1(x, y), expected(x, y)) << on << " " << x << ", " << y;
                ASSERT_FLOAT_EQ(out2(x, y), 2.0f * expected(x, y)) << on << " " << x << ", " << y;
            }
        }
        EXPECT_EQ(g.autoscheduler_results() != nullptr, std::string(on) == "true");
    }
}

TEST(GeneratorAutoschedule, OffValuesScheduleByHand) {
    AutoBlur g;
    g.set_generator_param("autoscheduler", "");
    g.set_generator_param("auto_schedule", "false");
    EXPECT_FALSE(g.using_autoscheduler());
    Buffer<float> in = test_image();
    g.input.set(in);
    expect_blurred(in, g.realize({21, 13}));
    EXPECT_EQ(g.autoscheduler_results(), nullptr);
}

TEST(GeneratorAutoschedule, Errors) {
    {
        AutoBlur g;
        g.set_generator_param("autoscheduler", "Nope2020");
        EXPECT_COMPILE_ERROR(g.realize({4, 4}), "Generator 'auto_blur'", "no autoscheduler named 'Nope2020'",
                             "LoomHeuristic");
        // The build is not retried: the same error again.
        EXPECT_COMPILE_ERROR(g.realize({4, 4}), "no autoscheduler named 'Nope2020'");
    }
    {
        AutoBlur g;
        g.set_generator_param("autoscheduler", "LoomHeuristic");
        g.set_generator_param("autoscheduler.beam_size", "32");
        EXPECT_COMPILE_ERROR(g.realize({4, 4}), "has no parameter 'beam_size'");
    }
    {
        AutoBlur g;
        g.set_generator_param("autoscheduler.parallelism", "8");
        EXPECT_FALSE(g.using_autoscheduler());
        g.set_generator_param("auto_schedule", "true");
        EXPECT_COMPILE_ERROR(g.realize({4, 4}), "autoscheduler.parallelism goes with autoscheduler=NAME");
    }
    {
        AutoBlur g;
        g.set_generator_param("autoscheduler", "LoomHeuristic");
        g.set_generator_param("auto_schedule", "true");
        EXPECT_COMPILE_ERROR(g.realize({4, 4}), "give one of them");
    }
    {
        AutoBlur g;
        g.set_generator_param("autoscheduler", "LoomHeuristic");
        g.set_generator_param("estimates", "false");
        EXPECT_COMPILE_ERROR(g.realize({4, 4}), "Generator 'auto_blur'", "Func output", "set_estimate");
    }
    {
        AutoBlur g;
        EXPECT_COMPILE_ERROR(g.set_generator_param("auto_schedule", "maybe"), "auto_schedule");
        EXPECT_COMPILE_ERROR(g.set_generator_param("machine_params", "16"), "parallelism,last_level_cache_size");
        EXPECT_COMPILE_ERROR(g.set_generator_param("autoscheduler.", "1"), "names no parameter");
    }
}

// ---- The driver ---------------------------------------------------------------------------

using loom::internal::parse_generator_command;
using loom::internal::run_generator_command;

fs::path fresh_dir(const std::string &name) {
    fs::path dir = fs::temp_directory_path() / ("loom_autoschedule_test_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    return dir;
}

using loom_test::read_file;

TEST(GeneratorAutoscheduleDriver, ParsesTheAutoschedulerOptions) {
    auto c = parse_generator_command({"-g", "auto_blur", "-o", "d", "-p", "autoschedule_adams2019,libmine.so", "-s",
                                      "Adams2019", "-t", "0", "-d", "0"});
    EXPECT_EQ(c.plugins, (std::vector<std::string>{"autoschedule_adams2019", "libmine.so"}));
    EXPECT_EQ(c.default_autoscheduler, "Adams2019");
    EXPECT_EQ(c.timeout_seconds, 0);
    EXPECT_EQ(parse_generator_command({"-g", "auto_blur", "-o", "d"}).timeout_seconds, 900);
    EXPECT_FALSE(c.gradient);
    EXPECT_TRUE(parse_generator_command({"-g", "auto_blur", "-o", "d", "-d", "1"}).gradient);
    EXPECT_COMPILE_ERROR(parse_generator_command({"-g", "auto_blur", "-o", "d", "-d", "yes"}), "-d takes 0 or 1");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-g", "auto_blur", "-o", "d", "-t", "-5"}), "-t takes a number");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-g", "auto_blur", "-o", "d", "-t", "soon"}), "-t takes a number");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-g", "auto_blur", "-o", "d", "-s"}), "-s needs a value");
}

TEST(GeneratorAutoscheduleDriver, ScheduleEmitHoldsTheAutoschedulersSchedule) {
    fs::path dir = fresh_dir("emit");
    std::ostringstream out, err;
    int code = run_generator_command(
        parse_generator_command({"-g", "auto_blur", "-o", dir.string(), "-e", "static_library,h,schedule", "-t", "600",
                                 "target=x86-64-linux-avx2", "autoscheduler=LoomHeuristic",
                                 "autoscheduler.last_level_cache_size=1048576"}),
        out, err);
    ASSERT_EQ(code, 0) << err.str();
    EXPECT_TRUE(fs::exists(dir / "auto_blur.a"));
    std::string schedule = read_file(dir / "auto_blur.schedule.h");
    EXPECT_TRUE(contains(schedule, "autoscheduler=LoomHeuristic autoscheduler.last_level_cache_size=1048576"))
        << schedule;
    EXPECT_TRUE(contains(schedule, "auto_blur_x\n        .compute_at(output, x_o)")) << schedule;
    fs::remove_all(dir);
}

TEST(GeneratorAutoscheduleDriver, DefaultAutoschedulerAndPlugins) {
    fs::path dir = fresh_dir("default");
    std::ostringstream out, err;
    int code = run_generator_command(
        parse_generator_command({"-g", "auto_blur", "-o", dir.string(), "-e", "schedule", "-p",
                                 "libautoschedule_mullapudi2016.so", "-s", "Mullapudi2016", "auto_schedule=true"}),
        out, err);
    ASSERT_EQ(code, 0) << err.str();
    EXPECT_TRUE(contains(read_file(dir / "auto_blur.schedule.h"), "(asked for as \"Mullapudi2016\")"));
    Pipeline::set_default_autoscheduler_name("LoomHeuristic");

    std::ostringstream out2, err2;
    code = run_generator_command(
        parse_generator_command({"-g", "auto_blur", "-o", dir.string(), "-p", "/nonexistent/libplugin.so"}), out2, err2);
    EXPECT_EQ(code, 1);
    EXPECT_TRUE(contains(err2.str(), "can't load '/nonexistent/libplugin.so'")) << err2.str();
    std::ostringstream out3, err3;
    code = run_generator_command(parse_generator_command({"-g", "auto_blur", "-o", dir.string(), "-s", "Nope2020"}),
                                 out3, err3);
    EXPECT_EQ(code, 1);
    EXPECT_TRUE(contains(err3.str(), "no autoscheduler named 'Nope2020'")) << err3.str();
    fs::remove_all(dir);
}

}  // namespace
