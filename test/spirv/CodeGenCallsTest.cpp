// Intrinsics, math functions and vector shapes (Ramp, Broadcast, Shuffle,
// VectorReduce) compile to valid modules.

#include <gtest/gtest.h>

#include "SpirvTestUtil.h"

namespace loom_test_spirv {
namespace {

using loom::Bool;
using loom::Float;
using loom::Int;
using loom::UInt;

Expr vector_index(int lanes) {
    return lanes == 1 ? var("x") : Ramp::make(Mul::make(var("x"), i32(lanes)), i32(1), lanes);
}

TEST(SpirvCalls, IntegerIntrinsicsInEveryWidth) {
    for (Type et : {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)}) {
        for (int lanes : {1, 3, 8}) {
            Type t = et.with_lanes(lanes);
            SCOPED_TRACE(t.to_string());
            Expr a = load(t, "a", vector_index(lanes)), b = load(t, "b", vector_index(lanes));
            Expr v = intrinsic_call(t, intrinsic::bitwise_and, {a, b});
            v = intrinsic_call(t, intrinsic::bitwise_or, {v, b});
            v = intrinsic_call(t, intrinsic::bitwise_xor, {v, a});
            v = intrinsic_call(t, intrinsic::bitwise_not, {v});
            v = intrinsic_call(t, intrinsic::shift_left, {v, b});
            v = intrinsic_call(t, intrinsic::shift_right, {v, a});
            // Shift amounts of another type, and a scalar amount of a vector.
            v = intrinsic_call(t, intrinsic::shift_left, {v, Cast::make(Int(32, lanes), b)});
            v = intrinsic_call(t, intrinsic::shift_right, {v, i32(3)});
            Type ut = t.with_code(loom::TypeCode::UInt);
            Expr absolute = intrinsic_call(ut, intrinsic::abs, {v});
            v = Add::make(v, Reinterpret::make(t, absolute));
            v = intrinsic_call(t, intrinsic::likely, {v});
            v = intrinsic_call(t, intrinsic::promise_clamped, {v});
            GPUKernel k;
            k.name = "int_intrinsics";
            k.args = {buffer_arg("a", et, true, false), buffer_arg("b", et, true, false),
                      buffer_arg("out", et, false, true)};
            k.body = LetStmt::make("x", global_x(), Store::make("out", v, vector_index(lanes)));
            compile_ok(k, full_vulkan_target());
            compile_ok(k, full_vulkan_target("vk_v13"));
        }
    }
}

TEST(SpirvCalls, BoolBitwiseIntrinsics) {
    Expr a = load(Bool(), "a", var("x")), b = load(Bool(), "b", var("x"));
    Expr v = intrinsic_call(Bool(), intrinsic::bitwise_and, {a, b});
    v = intrinsic_call(Bool(), intrinsic::bitwise_xor, {v, intrinsic_call(Bool(), intrinsic::bitwise_not, {a})});
    v = intrinsic_call(Bool(), intrinsic::bitwise_or, {v, b});
    compile_ok(elementwise_kernel("bool_bits", Bool(), v,
                                  {buffer_arg("a", Bool(), true, false), buffer_arg("b", Bool(), true, false)}),
               vulkan_target("vk_int8"));
}

TEST(SpirvCalls, MathFunctionsInFloat32AndFloat16) {
    const char *unary[] = {"sqrtf", "floorf", "ceilf", "truncf", "fabsf", "nearbyintf", "rintf", "roundevenf",
                           "roundf", "expf", "exp2f", "logf", "log2f", "sinf", "cosf", "tanf", "asinf", "acosf",
                           "atanf", "sinhf", "coshf", "tanhf", "asinhf", "acoshf", "atanhf"};
    const char *binary[] = {"powf", "atan2f", "fminf", "fmaxf", "copysignf"};
    for (Type et : {Float(32), Float(16)}) {
        for (int lanes : {1, 4, 6}) {
            Type t = et.with_lanes(lanes);
            SCOPED_TRACE(t.to_string());
            Expr a = load(t, "a", vector_index(lanes)), b = load(t, "b", vector_index(lanes));
            Expr v = a;
            for (const char *f : unary) v = Add::make(v, math_call(t, f, {a}));
            for (const char *f : binary) v = Add::make(v, math_call(t, f, {v, b}));
            v = Select::make(intrinsic_call(Bool(lanes), intrinsic::is_nan, {v}), a, v);
            v = Add::make(v, intrinsic_call(t, intrinsic::abs, {b}));
            GPUKernel k;
            k.name = "math_" + t.to_string();
            k.args = {buffer_arg("a", et, true, false), buffer_arg("b", et, true, false),
                      buffer_arg("out", et, false, true)};
            k.body = LetStmt::make("x", global_x(), Store::make("out", v, vector_index(lanes)));
            compile_ok(k, full_vulkan_target());
            compile_ok(k, full_vulkan_target("vk_v12"));
        }
    }
}

TEST(SpirvCalls, MathFunctionsInFloat64) {
    const char *unary[] = {"sqrt", "floor", "ceil", "trunc", "fabs", "nearbyint", "rint", "round"};
    const char *binary[] = {"fmin", "fmax", "copysign"};
    for (int lanes : {1, 2, 5}) {
        Type t = Float(64, lanes);
        Expr a = load(t, "a", vector_index(lanes));
        Expr v = a;
        for (const char *f : unary) v = Add::make(v, math_call(t, f, {a}));
        for (const char *f : binary) v = Add::make(v, math_call(t, f, {v, a}));
        v = Select::make(intrinsic_call(Bool(lanes), intrinsic::is_nan, {v}), a, v);
        GPUKernel k;
        k.name = "math_f64";
        k.args = {buffer_arg("a", Float(64), true, false), buffer_arg("out", Float(64), false, true)};
        k.body = LetStmt::make("x", global_x(), Store::make("out", v, vector_index(lanes)));
        compile_ok(k, vulkan_target("vk_float64"));
    }
}

TEST(SpirvCalls, TranscendentalFloat64IsACompileError) {
    GPUKernel k = elementwise_kernel("sin64", Float(64), math_call(Float(64), "sin", {load(Float(64), "a", var("x"))}),
                                     {buffer_arg("a", Float(64), true, false)});
    std::string message = compile_error_of(k, vulkan_target("vk_float64"));
    EXPECT_NE(message.find("sin"), std::string::npos) << message;
    EXPECT_NE(message.find("sin64"), std::string::npos) << message;
    EXPECT_NE(message.find("float32"), std::string::npos) << message;
}

TEST(SpirvCalls, UnknownExternAndPrintAreCompileErrors) {
    GPUKernel k = elementwise_kernel("mystery", Float(32), math_call(Float(32), "my_function", {Expr(1.0f)}), {});
    EXPECT_NE(compile_error_of(k, vulkan_target()).find("my_function"), std::string::npos);
    Expr printed = Call::make(Int(32), intrinsic::print_value, {var("x"), StringImm::make("x is")},
                              CallType::Intrinsic);
    k = elementwise_kernel("printer", Int(32), printed, {});
    EXPECT_NE(compile_error_of(k, vulkan_target()).find("print_value"), std::string::npos);
}

TEST(SpirvCalls, BlockAndThreadIdsInThreeDimensionsAndBarrier) {
    GPUKernel k;
    k.name = "ids";
    k.args = {buffer_arg("out", Int(32), false, true)};
    k.workgroup_size[0] = 4;
    k.workgroup_size[1] = 4;
    k.workgroup_size[2] = 2;
    Expr sum = i32(0);
    for (int d = 0; d < 3; d++) sum = Add::make(sum, Add::make(block_id(d), thread_id(d)));
    k.body = Block::make({barrier(), Store::make("out", sum, thread_id(0)), barrier()});
    for (const std::string &v : vulkan_versions()) {
        std::vector<uint32_t> words = compile_ok(k, vulkan_target(v));
        std::string text = disassemble_spirv(words);
        EXPECT_NE(text.find("BuiltIn WorkgroupId"), std::string::npos);
        EXPECT_NE(text.find("BuiltIn LocalInvocationId"), std::string::npos);
        EXPECT_NE(text.find("OpControlBarrier"), std::string::npos);
        EXPECT_NE(text.find("LocalSize 4 4 2"), std::string::npos);
    }
}

TEST(SpirvVectors, RampBroadcastShuffleAndReduce) {
    for (Type et : {Int(32), Float(32), UInt(8), Float(16), Int(64)}) {
        SCOPED_TRACE(et.to_string());
        Expr base = Cast::make(et, var("x"));
        Expr ramp8 = Ramp::make(base, imm(et, 3), 8);
        Expr ramp3 = Ramp::make(base, imm(et, 1), 3);
        Expr ramp_of_vectors = Ramp::make(ramp3, Broadcast::make(imm(et, 2), 3), 2);  // 6 lanes
        Expr wide = Broadcast::make(ramp3, 4);                                        // 12 lanes
        Expr picked = Shuffle::make({ramp8, ramp_of_vectors, wide}, {0, 25, 7, 9, 3, 14, 20, 1});
        Expr v = Add::make(picked, ramp8);
        Expr sum4 = VectorReduce::make(VectorReduce::Add, v, 4);
        Expr prod2 = VectorReduce::make(VectorReduce::Mul, sum4, 2);
        Expr low = VectorReduce::make(VectorReduce::Min, v, 1);
        Expr high = VectorReduce::make(VectorReduce::Max, wide, 1);
        Expr scalar = Add::make(Add::make(Shuffle::make_extract_element(prod2, 1), low), high);
        scalar = Add::make(scalar, Shuffle::make_extract_element(ramp_of_vectors, 5));
        Expr concat = Shuffle::make_concat({ramp3, Broadcast::make(scalar, 5)});
        Expr final_value = VectorReduce::make(VectorReduce::Add, concat, 1);
        Expr any = VectorReduce::make(VectorReduce::Or, LT::make(ramp8, Broadcast::make(scalar, 8)), 1);
        Expr all = VectorReduce::make(VectorReduce::And, GT::make(ramp8, Broadcast::make(scalar, 8)), 2);
        Expr cond = And::make(any, Shuffle::make_extract_element(all, 1));
        // A scalar condition choosing between whole vectors.
        Expr whole = Select::make(cond, ramp8, Broadcast::make(scalar, 8));
        Expr picked_lane = Shuffle::make_extract_element(whole, 5);
        GPUKernel k = elementwise_kernel("shapes", et, Select::make(cond, final_value, picked_lane), {});
        compile_ok(k, full_vulkan_target());
        compile_ok(k, full_vulkan_target("vk_v13"));
    }
}

}  // namespace
}  // namespace loom_test_spirv
