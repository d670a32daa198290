// The gradient module (generator driver -d 1, lang/GeneratorGradient.h):
// Halide's argument names and order, its values against the derivative
// written out in C++, and the driver's files.

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gens/TestGenerators.h"
#include "lang/GeneratorDriver.h"
#include "lang/GeneratorGradient.h"
#include "lang/LangTestUtil.h"

namespace {

using namespace loom;
using loom::internal::build_gradient_pipeline;
using loom::internal::GradientPipeline;
using loom::internal::parse_generator_command;
using loom::internal::run_generator_command;
using loom_test::TypedAxpy;

namespace fs = std::filesystem;

// typed_axpy: out = a * scale + b, so d loss / d a = scale * d out and
// d loss / d b = d out.
TEST(GeneratorGradient, ArgumentsAndValuesOfTypedAxpy) {
    TypedAxpy g;
    GradientPipeline grad = build_gradient_pipeline(g);
    std::vector<std::string> names;
    for (const Argument &a : grad.arguments) names.push_back(a.name);
    EXPECT_EQ(names, (std::vector<std::string>{"a", "scale", "b", "_grad_loss_for_out"}));
    std::vector<std::string> outputs;
    for (const Func &f : grad.pipeline.outputs()) outputs.push_back(f.name());
    EXPECT_EQ(outputs, (std::vector<std::string>{"_grad_loss_out_wrt_a", "_grad_loss_out_wrt_b"}));

    const int N = 10;
    Buffer<float> a(std::vector<int>{N}, "a_values"), b(std::vector<int>{N}, "b_values");
    Buffer<float> d_out(std::vector<int>{N - 2}, "d_out");
    for (int i = 0; i < N; i++) {
        a(i) = (float)i;
        b(i) = 2.0f * (float)i;
    }
    for (int i = 0; i < N - 2; i++) d_out(i) = 1.0f + (float)(i % 3);
    g.a.set(a);
    g.b.set(b);
    g.scale.set(3.0f);
    grad.output_adjoints[0].set(d_out);
    Realization r = grad.pipeline.realize({N});
    Buffer<float> d_a = r[0], d_b = r[1];
    for (int i = 0; i < N; i++) {
        // The adjoint buffer covers [0, N - 2): zero past it.
        const float adjoint = i < N - 2 ? d_out(i) : 0.0f;
        EXPECT_EQ(d_a(i), 3.0f * adjoint) << i;
        EXPECT_EQ(d_b(i), adjoint) << i;
    }
}

TEST(GeneratorGradient, DriverWritesTheModuleAndRefusesWhatItCantDescribe) {
    fs::path dir = fs::temp_directory_path() / ("loom_gradient_test_" + std::to_string(getpid()));
    fs::remove_all(dir);
    std::ostringstream out, err;
    int code = run_generator_command(parse_generator_command({"-g", "typed_axpy", "-o", dir.string(), "-d", "1", "-e",
                                                              "static_library,h,function_info_header", "-f",
                                                              "axpy_grad"}),
                                     out, err);
    ASSERT_EQ(code, 0) << err.str();
    EXPECT_TRUE(fs::exists(dir / "axpy_grad.a"));
    std::ifstream header(dir / "axpy_grad.h");
    std::stringstream text;
    text << header.rdbuf();
    const std::string h = text.str();
    for (const char *part : {"axpy_grad(", "_grad_loss_for_out", "_grad_loss_out_wrt_a", "_grad_loss_out_wrt_b"}) {
        EXPECT_NE(h.find(part), std::string::npos) << part << " in\n" << h;
    }
    std::ifstream info(dir / "axpy_grad.function_info.h");
    std::stringstream info_text;
    info_text << info.rdbuf();
    EXPECT_NE(info_text.str().find("_grad_loss_out_wrt_b"), std::string::npos) << info_text.str();

    std::ostringstream out2, err2;
    code = run_generator_command(
        parse_generator_command({"-g", "typed_axpy", "-o", dir.string(), "-d", "1", "-e", "schedule"}), out2, err2);
    EXPECT_EQ(code, 1);
    EXPECT_NE(err2.str().find("not written for a gradient module"), std::string::npos) << err2.str();
    fs::remove_all(dir);
}

TEST(GeneratorGradient, IntegerOutputsAreRefusedNamingTheGenerator) {
    TypedAxpy g;
    g.set_generator_param("type", "int32");
    EXPECT_COMPILE_ERROR(build_gradient_pipeline(g), "Generator 'typed_axpy'", "must have one floating-point value");
}

}  // namespace
