// Arrays of buffer Inputs in generator stubs, as Halide's: each element of
// an Input<Buffer<T>[]> takes a Func or a Buffer (StubInputBuffers, Halide's
// std::vector<StubInputBuffer>), while an Input<Func[]> takes Funcs (a
// std::vector<Func>). A Buffer element is read directly and the generator
// may read its shape, as for a single Input<Buffer<>>. Through
// array_sum.stub.h (made by loom_add_stub) and build_generator_stub,
// against C++ loops; the errors name the element.

#include <gtest/gtest.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "array_sum.stub.h"
#include "lang/GeneratorDriver.h"
#include "lang/LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;
using internal::build_generator_stub;
using internal::StubInput;
using internal::StubInputBuffer;
using internal::StubInputBuffers;

/** Reads each element's shape: out(x) = sum over i of
 * (ins[i](clamp(x, min_i, max_i)) * (i + 1) + width_i). */
class StubArrayShapeReader : public loom::Generator<StubArrayShapeReader> {
public:
    Input<Buffer<int32_t>[]> ins{"ins", 1};
    Output<Buffer<int32_t>> out{"out", 1};
    void generate() {
        Expr sum = 0;
        for (size_t i = 0; i < ins.size(); i++) {
            Expr at = clamp(x, ins[i].dim(0).min(), ins[i].dim(0).max());
            sum = sum + ins[i](at) * int(i + 1) + ins[i].width();
        }
        out(x) = sum;
    }
    Var x{"x"};
};
LOOM_REGISTER_GENERATOR(StubArrayShapeReader, stub_array_shape_reader)

/** An open element type: out(x) = int32(in[0](x)) + int32(in[1](x)) * 10. */
class StubOpenArray : public loom::Generator<StubOpenArray> {
public:
    Input<Buffer<>[2]> in{"in", 1};
    Output<Buffer<int32_t>> out{"out", 1};
    void generate() { out(x) = loom::cast<int32_t>(in[0](x)) + loom::cast<int32_t>(in[1](x)) * 10; }
    Var x{"x"};
};
LOOM_REGISTER_GENERATOR(StubOpenArray, stub_open_array)

/** An open-size Input<Func[]>: out(x) = sum of fs[i](x). */
class StubFuncArray : public loom::Generator<StubFuncArray> {
public:
    Input<Func[]> fs{"fs", Int(32), 1};
    Output<Buffer<int32_t>> out{"out", 1};
    void generate() {
        Expr sum = 0;
        for (size_t i = 0; i < fs.size(); i++) sum = sum + fs[i](x);
        out(x) = sum;
    }
    Var x{"x"};
};
LOOM_REGISTER_GENERATOR(StubFuncArray, stub_func_array)

namespace {

Buffer<int32_t> ramp(int min, int extent, int scale) {
    Buffer<int32_t> b(extent);
    b.set_min(min);
    for (int x = min; x < min + extent; x++) b(x) = x * scale - 7;
    return b;
}

}  // namespace

TEST(GeneratorStubArrays, BuffersWhoseShapesTheGeneratorReads) {
    const std::vector<Buffer<int32_t>> buffers = {ramp(0, 5, 3), ramp(3, 4, -2), ramp(-6, 9, 1)};
    std::vector<std::vector<Func>> outs =
        build_generator_stub("stub_array_shape_reader", GeneratorContext(), {}, {StubInput("ins", buffers)});
    Buffer<int32_t> result(16);
    result.set_min(-4);
    outs[0][0].realize(result);
    for (int x = -4; x < 12; x++) {
        int expected = 0;
        for (size_t i = 0; i < buffers.size(); i++) {
            const Buffer<int32_t> &b = buffers[i];
            const int at = std::min(std::max(x, b.dim(0).min()), b.dim(0).max());
            expected += b(at) * int(i + 1) + b.width();
        }
        EXPECT_EQ(result(x), expected) << x;
    }
}

TEST(GeneratorStubArrays, FuncsAndBuffersMixedThroughTheStubHeader) {
    Var x("x");
    Func plane0("stub_plane0"), plane2("stub_plane2"), weight1("stub_weight1");
    plane0(x) = loom::cast<uint8_t>(x * 3 % 40);
    plane2(x) = loom::cast<uint8_t>(x + 9);
    weight1(x) = 2 - x;
    Buffer<uint8_t> plane1(16);
    for (int i = 0; i < 16; i++) plane1(i) = (uint8_t)(200 - i * 7);
    Buffer<int32_t> weight0(16);
    for (int i = 0; i < 16; i++) weight0(i) = i * i - 30;

    loom_stub::array_sum::Inputs in;
    in.planes = {plane0, plane1, plane2};  // Input<Buffer<uint8_t>[]>: Func, Buffer, Func
    in.weights = {Func(weight0), weight1};  // Input<Func[2]>: a std::vector<Func>, as in Halide
    loom_stub::array_sum::Outputs out = loom_stub::array_sum::generate(GeneratorContext(), in);
    Realization r = out.realize({16});
    ASSERT_EQ(r.size(), 3u);
    for (int i = 0; i < 16; i++) {
        const int s = i * 3 % 40 + (200 - i * 7) + (i + 9);
        EXPECT_EQ(Buffer<int32_t>(r[0])(i), s * (i * i - 30)) << i;
        EXPECT_EQ(Buffer<int32_t>(r[1])(i), s * (2 - i)) << i;
        EXPECT_EQ(Buffer<int32_t>(r[2])(i), s) << i;
    }

    // A std::vector of Buffers, as a std::vector of Funcs before.
    std::vector<Buffer<uint8_t>> planes(2, Buffer<uint8_t>());
    planes[0] = Buffer<uint8_t>(16);
    planes[1] = Buffer<uint8_t>(16);
    for (int i = 0; i < 16; i++) {
        planes[0](i) = (uint8_t)i;
        planes[1](i) = (uint8_t)(3 * i);
    }
    in.planes = planes;
    in.weights = std::vector<Func>{weight1, weight1};
    Buffer<int32_t> total = loom_stub::array_sum::generate(GeneratorContext(), in).total[0].realize({16});
    for (int i = 0; i < 16; i++) EXPECT_EQ(total(i), 4 * i) << i;
}

TEST(GeneratorStubArrays, AnOpenElementTypeComesFromElementZero) {
    Buffer<uint16_t> a(8), b(8);
    for (int i = 0; i < 8; i++) {
        a(i) = (uint16_t)(60000 + i);
        b(i) = (uint16_t)(i * 5);
    }
    std::vector<std::vector<Func>> outs =
        build_generator_stub("stub_open_array", GeneratorContext(), {}, {StubInput("in", StubInputBuffers{a, b})});
    Buffer<int32_t> result = outs[0][0].realize({8});
    for (int i = 0; i < 8; i++) EXPECT_EQ(result(i), 60000 + i + i * 5 * 10) << i;
}

TEST(GeneratorStubArrays, TheStubHeaderTellsBufferArraysFromFuncArrays) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("array_sum");
    const std::string text = internal::cpp_stub_text(*g, "loom_stub::array_sum");
    // Input<Buffer<uint8_t>[]>: a Func or a Buffer per element.
    EXPECT_NE(text.find("loom::internal::StubInputBuffers planes;"), std::string::npos) << text;
    // Input<Func[2]>: Funcs.
    EXPECT_NE(text.find("std::vector<loom::Func> weights;"), std::string::npos) << text;
    EXPECT_EQ(text.find("StubInputBuffers weights"), std::string::npos) << text;
    // Open-size arrays too, and an open element type (Input<Buffer<>[2]>).
    std::unique_ptr<GeneratorBase> shapes = GeneratorRegistry::create("stub_array_shape_reader");
    const std::string shapes_text = internal::cpp_stub_text(*shapes, "shape_reader");
    EXPECT_NE(shapes_text.find("loom::internal::StubInputBuffers ins;"), std::string::npos) << shapes_text;
    std::unique_ptr<GeneratorBase> open = GeneratorRegistry::create("stub_open_array");
    const std::string open_text = internal::cpp_stub_text(*open, "open_array");
    EXPECT_NE(open_text.find("loom::internal::StubInputBuffers in;"), std::string::npos) << open_text;
    std::unique_ptr<GeneratorBase> funcs = GeneratorRegistry::create("stub_func_array");
    const std::string funcs_text = internal::cpp_stub_text(*funcs, "func_array");
    EXPECT_NE(funcs_text.find("std::vector<loom::Func> fs;"), std::string::npos) << funcs_text;
}

// The stub's Input<Func[]> member is a std::vector<Func>: a Buffer converts
// to it only through an explicit Func, never as a Buffer read directly.
static_assert(std::is_same_v<decltype(loom_stub::array_sum::Inputs::weights), std::vector<Func>>);
static_assert(std::is_same_v<decltype(loom_stub::array_sum::Inputs::planes), StubInputBuffers>);
static_assert(!std::is_assignable_v<std::vector<Func> &, std::vector<Buffer<int32_t>>>);

TEST(GeneratorStubArrays, Errors) {
    Var x("x");
    Func f("stub_array_func");
    f(x) = x;
    // The generator reads element 1's shape, and element 1 is a Func.
    EXPECT_COMPILE_ERROR(build_generator_stub("stub_array_shape_reader", GeneratorContext(), {},
                                              {StubInput("ins", StubInputBuffers{ramp(0, 4, 1), f})}),
                         "reads the buffer shape of Input 'ins_1'", "Give that Input a Buffer instead");
    // An element Buffer of another type or dimension count names the element.
    Buffer<float> floats(4);
    EXPECT_COMPILE_ERROR(build_generator_stub("stub_array_shape_reader", GeneratorContext(), {},
                                              {StubInput("ins", StubInputBuffers{ramp(0, 4, 1), floats})}),
                         "Input 'ins' (element ins_1) has element type int32", "of type float32");
    Buffer<int32_t> two_d(4, 4);
    EXPECT_COMPILE_ERROR(build_generator_stub("stub_array_shape_reader", GeneratorContext(), {},
                                              {StubInput("ins", StubInputBuffers{two_d})}),
                         "Input 'ins' (element ins_0) has 1 dimensions", "with 2");
    // An element given neither a Func nor a Buffer.
    EXPECT_COMPILE_ERROR(build_generator_stub("stub_array_shape_reader", GeneratorContext(), {},
                                              {StubInput("ins", StubInputBuffers{ramp(0, 4, 1), StubInputBuffer()})}),
                         "(element ins_1) is bound to an undefined Func");
    // A fixed-size array given another number of elements.
    EXPECT_COMPILE_ERROR(build_generator_stub("stub_open_array", GeneratorContext(), {},
                                              {StubInput("in", StubInputBuffers{ramp(0, 4, 1)})}),
                         "Input 'in' has 2 elements, but 1 are given");
}
