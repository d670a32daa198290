// Programs written against Halide's core API compile against Loom after
// `namespace Halide = loom;`. These define (without running) pipelines in the
// style of Halide's tutorials and check what was built.

#include <gtest/gtest.h>

#include "loom/Loom.h"

namespace Halide = loom;

namespace {

// A generator written for Halide: <loom/Loom.h> declares Generator, Input,
// Output and GeneratorParam, as Halide.h does.
class CompatBrighten : public Halide::Generator<CompatBrighten> {
public:
    GeneratorParam<float> gain{"gain", 2.0f};
    Input<Halide::Buffer<uint8_t>> input{"input", 2};
    Output<Halide::Buffer<uint8_t>> output{"output", 2};
    void generate() {
        Halide::Var x("x"), y("y");
        output(x, y) = Halide::saturating_cast<uint8_t>(Halide::cast<float>(input(x, y)) * gain);
    }
};

TEST(HalideCompat, GeneratorsComeWithTheUmbrellaHeader) {
    CompatBrighten g;
    g.set_generator_param("gain", "3");
    Halide::Buffer<uint8_t> in(8, 2);
    in.fill(50);
    g.input.set(in);
    Halide::Buffer<uint8_t> out = g.realize({8, 2})[0];
    EXPECT_EQ(out(3, 1), 150);
    EXPECT_EQ(out(0, 0), 150);
}

TEST(HalideCompat, BrightenWithImageParam) {
    Halide::ImageParam input(Halide::type_of<uint8_t>(), 3, "input");
    Halide::Param<float> factor("factor", 1.5f);
    Halide::Var x, y, c;
    Halide::Func brighter("brighter");
    Halide::Expr value = input(x, y, c);
    value = Halide::cast<float>(value);
    value = value * factor;
    value = Halide::min(value, 255.0f);
    value = Halide::cast<uint8_t>(value);
    brighter(x, y, c) = value;
    EXPECT_EQ(brighter.dimensions(), 3);
    EXPECT_EQ(brighter.output_type(), Halide::UInt(8));
}

TEST(HalideCompat, UpdatesReductionsAndSchedules) {
    Halide::Buffer<uint8_t> input({64, 48}, "img");
    Halide::Var x("x"), y("y"), i("i");
    Halide::Func histogram("histogram");
    histogram(i) = 0;
    Halide::RDom r(0, input.width(), 0, input.height());
    histogram(Halide::cast<int>(input(r.x, r.y))) += 1;
    EXPECT_EQ(histogram.num_update_definitions(), 1);

    Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(input);
    Halide::Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    blur_x.compute_root();
    Halide::Pipeline p(blur_y);
    EXPECT_EQ(p.outputs().size(), 1u);

    Halide::Func sum("sum");
    Halide::RDom k(0, 10);
    sum(x) += x * k;  // implicit pure definition of 0
    EXPECT_EQ(sum.update_args(0).size(), 1u);
}

TEST(HalideCompat, TuplesImplicitVarsAndLambdas) {
    Halide::Var x, y;
    Halide::Func single, multi;
    single(x, y) = x + y;
    multi(x, y) = {x + y, Halide::sin(Halide::cast<float>(x))};
    Halide::Expr first = multi(x, y)[0];
    Halide::Func argmin;
    Halide::RDom r(0, 100);
    argmin() = {0, multi(0, 0)[1]};
    Halide::Expr better = multi(r, 0)[1] < argmin()[1];
    argmin() = {Halide::select(better, r, argmin()[0]), Halide::min(multi(r, 0)[1], argmin()[1])};
    EXPECT_EQ(argmin.outputs(), 2);

    Halide::Func wrapped;
    wrapped(Halide::_) = single(Halide::_) * 2;
    EXPECT_EQ(wrapped.dimensions(), 2);
    Halide::Func g = Halide::lambda(x, y, x * y);
    EXPECT_EQ(g.dimensions(), 2);
    Halide::Target t = Halide::get_host_target();
    EXPECT_NE(t.bits, 0);
}

}  // namespace
