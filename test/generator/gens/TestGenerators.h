#ifndef LOOM_TEST_GENERATOR_TEST_GENERATORS_H
#define LOOM_TEST_GENERATOR_TEST_GENERATORS_H

// Generators shared by test_generator (JIT and metadata tests) and the
// generator executable loom_test_generators (driver and AOT tests). The
// registrations are in TestGenerators.cpp.

#include "loom/Generator.h"

namespace loom_test {

/** output(x, y) = clamp(input(x, y) * gain + offset) (mode add) or
 * clamp(input(x, y) * gain * offset) (mode multiply), as uint8. */
class Brighten : public loom::Generator<Brighten> {
public:
    enum class Mode { Add, Multiply };

    GeneratorParam<int> offset{"offset", 10, -255, 255};
    GeneratorParam<Mode> mode{"mode", Mode::Add, {{"add", Mode::Add}, {"multiply", Mode::Multiply}}};
    GeneratorParam<bool> vectorize{"vectorize", true};
    Input<Buffer<uint8_t>> input{"input", 2};
    Input<float> gain{"gain", 1.0f, 0.0f, 10.0f};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        Expr v = loom::cast<float>(input(x, y)) * gain;
        v = mode == Mode::Add ? v + offset : v * offset;
        output(x, y) = loom::cast<uint8_t>(loom::clamp(v, 0.0f, 255.0f));
    }
    void schedule() {
        if (vectorize) output.vectorize(x, natural_vector_size<uint8_t>());
    }

    loom::Var x{"x"}, y{"y"};
};

/** out(x) = cast(type, a(x) * scale + b(x)): inputs declared around the
 * output to check the argument order (a, scale, b, then out). */
class TypedAxpy : public loom::Generator<TypedAxpy> {
public:
    GeneratorParam<loom::Type> type{"type", loom::Float(32)};
    Input<Buffer<float>> a{"a", 1};
    Output<Buffer<>> out{"out", 1};
    Input<float> scale{"scale", 2.0f};
    Input<Buffer<float>> b{"b", 1};

    void generate() { out(x) = loom::cast(type, a(x) * scale + b(x)); }
    void schedule() {
        // For a GPU target (target=host-vulkan, x86-64-linux-vulkan, ...):
        // 64 invocations a workgroup, the tail guarded.
        if (get_target().has_gpu_feature()) out.gpu_tile(x, xi, 64, loom::TailStrategy::GuardWithIf);
    }

    loom::Var x{"x"}, xi{"xi"};
};

/** Two outputs, one of them a Tuple: sum_diff(x) = {a + b, a - b}, prod(x) = a * b. */
class TwoOutputs : public loom::Generator<TwoOutputs> {
public:
    Input<Buffer<int32_t>> a{"a", 1};
    Input<int32_t> b{"b"};
    Output<Buffer<>> sum_diff{"sum_diff", {loom::Int(32), loom::Int(32)}, 1};
    Output<Buffer<int32_t>> prod{"prod", 1};

    void generate() {
        sum_diff(x) = loom::Tuple(a(x) + b, a(x) - b);
        prod(x) = a(x) * b;
    }

    loom::Var x{"x"};
};

}  // namespace loom_test

#endif
