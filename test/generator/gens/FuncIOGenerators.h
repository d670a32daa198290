#ifndef LOOM_TEST_GENERATOR_FUNC_IO_GENERATORS_H
#define LOOM_TEST_GENERATOR_FUNC_IO_GENERATORS_H

// Generators with Input<Func>/Output<Func>, arrays, configure() and a
// GeneratorParam<LoopLevel>, shared by test_generator and
// loom_test_generators (registered in TestGenerators.cpp).

#include <vector>

#include "loom/Generator.h"

namespace loom_test {

/** out(x, y) = int32(in(x, y)) * 3 + bias(x), through a helper Func computed
 * at `level`. in's type and dimensions come from in.type= and in.dim=. */
class FuncInputs : public loom::Generator<FuncInputs> {
public:
    GeneratorParam<LoopLevel> level{"level", LoopLevel::inlined()};
    Input<Func> in{"in"};
    Input<Func> bias{"bias", loom::Int(32), 1};
    Output<Func> out{"out", loom::Int(32), 2};

    void generate() {
        helper(x, y) = loom::cast<int32_t>(in(x, y)) * 3;
        out(x, y) = helper(x, y) + bias(x);
    }
    void schedule() { helper.compute_at(level); }

    loom::Func helper{"helper"};
    loom::Var x{"x"}, y{"y"};
};

/** Arrays: planes (size from planes.size=), two weights, outs resized to 2
 * in generate(), one fixed-size output:
 *   s(x) = sum of planes[i](x); outs_k(x) = s(x) * weights_k(x); total_0(x) = s(x). */
class ArraySum : public loom::Generator<ArraySum> {
public:
    Input<Buffer<uint8_t>[]> planes{"planes", 1};
    Input<Func[2]> weights{"weights", loom::Int(32), 1};
    Output<Func[]> outs{"outs", loom::Int(32), 1};
    Output<Buffer<int32_t>[1]> total{"total", 1};

    void generate() {
        Expr s = 0;
        for (size_t i = 0; i < planes.size(); i++) s = s + loom::cast<int32_t>(planes[i](x));
        outs.resize(2);
        for (size_t k = 0; k < outs.size(); k++) outs[k](x) = s * weights[k](x);
        total[0](x) = s;
    }

    loom::Var x{"x"};
};

/** configure() adds `extra_inputs` buffers, a scalar when `with_scale`, and
 * an output: out(x) = (a(x) + extras...) * scale, twice(x) = 2 * out(x). */
class Configured : public loom::Generator<Configured> {
public:
    GeneratorParam<int> extra_inputs{"extra_inputs", 1, 0, 4};
    GeneratorParam<bool> with_scale{"with_scale", false};
    Input<Buffer<int32_t>> a{"a", 1};
    Output<Buffer<int32_t>> out{"out", 1};

    void configure() {
        for (int i = 0; i < extra_inputs; i++) {
            extras.push_back(add_input<Buffer<int32_t>>("extra" + std::to_string(i), 1));
        }
        if (with_scale) scale = add_input<int32_t>("scale");
        twice = add_output<Func>("twice", loom::Int(32), 1);
    }
    void generate() {
        Expr v = a(x);
        for (Input<Buffer<int32_t>> *e : extras) v = v + (*e)(x);
        if (scale) v = v * Expr(*scale);
        out(x) = v;
        (*twice)(x) = out(x) * 2;
    }

    std::vector<Input<Buffer<int32_t>> *> extras;
    Input<int32_t> *scale = nullptr;
    Output<Func> *twice = nullptr;
    loom::Var x{"x"};
};

/** Buffers whose shapes come from the command line: in.type, in.dim, k.dim,
 * and out's from its definition: out(x, y) = int32(in(x, y)) + k(x). */
class OpenBuffers : public loom::Generator<OpenBuffers> {
public:
    Input<Buffer<>> in{"in"};
    Input<Buffer<int16_t>> k{"k"};
    Output<Buffer<>> out{"out"};

    void generate() { out(x, y) = loom::cast<int32_t>(in(x, y)) + k(x); }

    loom::Var x{"x"}, y{"y"};
};

}  // namespace loom_test

#endif
