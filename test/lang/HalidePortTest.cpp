// Halide spellings that Halide's tutorial lessons use and Loom provides for
// them to port through the namespace alias: HALIDE_REGISTER_GENERATOR and
// Output<Buffer<>>::type() before the output is defined (lesson 15's
// cast(output.type(), ...) with the type from `output.type=`).

#include <gtest/gtest.h>

#include <cmath>

#include <loom/Loom.h>

#include "lang/LangTestUtil.h"

namespace Halide {
using namespace loom;
}

namespace {

class ScaledAnyType : public Halide::Generator<ScaledAnyType> {
public:
    Halide::GeneratorParam<float> scale{"scale", 1.0f, 0.0f, 100.0f};
    Halide::Input<Halide::Buffer<uint8_t>> input{"input", 1};
    Halide::Output<Halide::Buffer<>> output{"output", 1};
    Halide::Var x;
    void generate() {
        // The type is the one `output.type=` gave: the output has no definition yet.
        output(x) = Halide::cast(output.type(), scale * input(x));
        output.vectorize(x, natural_vector_size(output.type()));
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ScaledAnyType, halide_port_scaled_any_type)

namespace {

using namespace loom;

template<typename T>
void check_scaled(const std::string &type_name, float scale) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("halide_port_scaled_any_type");
    auto *gen = dynamic_cast<ScaledAnyType *>(g.get());
    ASSERT_NE(gen, nullptr);
    gen->set_generator_param_values({{"output.type", type_name}, {"scale", std::to_string(scale)}});
    Buffer<uint8_t> in(100);
    for (int i = 0; i < 100; i++) in(i) = uint8_t(i * 5);
    gen->input.set(in);
    Buffer<T> out = gen->realize({100})[0];
    EXPECT_EQ(gen->output.type(), type_of<T>());
    for (int i = 0; i < 100; i++) EXPECT_EQ(out(i), static_cast<T>(scale * float(in(i)))) << type_name << " " << i;
}

TEST(HalidePort, RegisteredWithHalidesMacroAndTypedFromTheCommandLine) {
    check_scaled<uint16_t>("uint16", 3.0f);
    check_scaled<float>("float32", 9.0f);
    check_scaled<double>("float64", 1.0f);
}

class UntypedOutput : public Generator<UntypedOutput> {
public:
    Input<Buffer<uint8_t>> input{"input", 1};
    Output<Buffer<>> output{"output", 1};
    Var x;
    void generate() { output(x) = cast(output.type(), input(x)); }
};

TEST(HalidePort, OutputTypeWithoutADeclaredTypeIsAnError) {
    UntypedOutput g;
    EXPECT_COMPILE_ERROR(g.build_pipeline(), "output", "no definition");
}

}  // namespace
