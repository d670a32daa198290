// Every arithmetic, comparison, logic and conversion node, in every type,
// compiles to a module that SPIRV-Tools validates for Vulkan 1.0, 1.2 and 1.3.

#include <gtest/gtest.h>

#include <cmath>

#include "SpirvTestUtil.h"

namespace loom_test_spirv {
namespace {

using loom::Bool;
using loom::Float;
using loom::Int;
using loom::UInt;

std::vector<Type> all_scalar_types() {
    return {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64),
            Float(16), Float(32), Float(64)};
}

// out[x] = op(a[x], b[x]) for every binary node in type t.
GPUKernel binary_ops_kernel(Type t) {
    Expr a = load(t, "a", var("x")), b = load(t, "b", var("x"));
    std::vector<Expr> results = {Add::make(a, b), Sub::make(a, b), Mul::make(a, b), Div::make(a, b),
                                 Mod::make(a, b), Min::make(a, b), Max::make(a, b)};
    std::vector<Expr> comparisons = {EQ::make(a, b), NE::make(a, b), LT::make(a, b),
                                     LE::make(a, b), GT::make(a, b), GE::make(a, b)};
    Expr sum = results[0];
    for (size_t i = 1; i < results.size(); i++) sum = Add::make(sum, results[i]);
    Expr any = comparisons[0];
    for (size_t i = 1; i < comparisons.size(); i++) {
        any = (i % 2) ? Or::make(any, comparisons[i]) : And::make(Not::make(any), comparisons[i]);
    }
    Expr value = Select::make(any, sum, a);
    return elementwise_kernel("binary_" + type_name(t), t, value,
                              {buffer_arg("a", t, true, false), buffer_arg("b", t, true, false)});
}

TEST(SpirvArith, BinaryOperatorsInEveryTypeAndVersion) {
    for (const std::string &version : vulkan_versions()) {
        for (Type t : all_scalar_types()) {
            SCOPED_TRACE(type_name(t) + " " + version);
            compile_ok(binary_ops_kernel(t), full_vulkan_target(version));
        }
    }
}

TEST(SpirvArith, Int32AndFloat32NeedNoFeatures) {
    compile_ok(binary_ops_kernel(Int(32)), vulkan_target());
    compile_ok(binary_ops_kernel(UInt(32)), vulkan_target());
    compile_ok(binary_ops_kernel(Float(32)), vulkan_target());
}

TEST(SpirvArith, VectorsOfEveryWidth) {
    // 2..4 lanes are one OpTypeVector, wider vectors several pieces.
    for (int lanes : {2, 3, 4, 5, 6, 8, 16}) {
        for (Type et : {Int(32), UInt(16), Float(32), Float(16), Int(8)}) {
            Type t = et.with_lanes(lanes);
            SCOPED_TRACE(type_name(t));
            Expr index = Ramp::make(Mul::make(var("x"), i32(lanes)), i32(1), lanes);
            Expr a = load(t, "a", index), b = load(t, "b", index);
            Expr value = Add::make(Div::make(a, b), Mod::make(a, b));
            value = Select::make(LT::make(a, b), Min::make(a, b), Max::make(value, b));
            GPUKernel k;
            k.name = "vector_" + type_name(t);
            k.args = {buffer_arg("a", et, true, false), buffer_arg("b", et, true, false),
                      buffer_arg("out", et, false, true)};
            k.workgroup_size[0] = 64;
            k.body = LetStmt::make("x", global_x(), Store::make("out", value, index));
            compile_ok(k, full_vulkan_target());
            compile_ok(k, full_vulkan_target("vk_v13"));
        }
    }
}

TEST(SpirvArith, CastsBetweenEveryPairOfTypes) {
    std::vector<Type> types = all_scalar_types();
    types.push_back(Bool());
    for (int lanes : {1, 4, 8}) {
        std::vector<GPUKernelArgument> args;
        std::vector<Stmt> stores;
        int n = 0;
        for (Type from : types) {
            const std::string in = "in_" + std::to_string(n);
            args.push_back(buffer_arg(in, from, true, false));
            Expr index = lanes == 1 ? var("x") : Ramp::make(Mul::make(var("x"), i32(lanes)), i32(1), lanes);
            Expr v = load(from.with_lanes(lanes), in, index);
            int m = 0;
            for (Type to : types) {
                const std::string out = "out_" + std::to_string(n) + "_" + std::to_string(m++);
                args.push_back(buffer_arg(out, to, false, true));
                stores.push_back(Store::make(out, Cast::make(to.with_lanes(lanes), v), index));
            }
            n++;
        }
        GPUKernel k;
        k.name = "casts_x" + std::to_string(lanes);
        k.args = args;
        k.workgroup_size[0] = 64;
        k.body = LetStmt::make("x", global_x(), Block::make(stores));
        SCOPED_TRACE(k.name);
        compile_ok(k, full_vulkan_target());
        compile_ok(k, full_vulkan_target("vk_v12"));
    }
}

TEST(SpirvArith, ReinterpretKeepsTheBits) {
    struct Case {
        Type from, to;
    } cases[] = {
        {Float(32), Int(32)},       {Int(32), Float(32)},        {UInt(64), Float(64)},  {Int(16), Float(16)},
        {Float(32, 4), UInt(32, 4)}, {UInt(8, 4), UInt(32)},      {UInt(32), UInt(8, 4)}, {Int(16, 8), Int(32, 4)},
        {Int(32, 4), Int(16, 8)},    {Float(32, 8), Int(32, 8)},
    };
    int n = 0;
    for (const Case &c : cases) {
        SCOPED_TRACE(type_name(c.from) + " -> " + type_name(c.to));
        Expr index = c.from.is_scalar() ? var("x") : Ramp::make(Mul::make(var("x"), i32(c.from.lanes())), i32(1),
                                                                c.from.lanes());
        Expr out_index = c.to.is_scalar() ? var("x") : Ramp::make(Mul::make(var("x"), i32(c.to.lanes())), i32(1),
                                                                  c.to.lanes());
        GPUKernel k;
        k.name = "reinterpret_" + std::to_string(n++);
        k.args = {buffer_arg("in", c.from.element_of(), true, false), buffer_arg("out", c.to.element_of(), false, true)};
        k.body = LetStmt::make("x", global_x(),
                               Store::make("out", Reinterpret::make(c.to, load(c.from, "in", index)), out_index));
        compile_ok(k, full_vulkan_target());
    }
}

TEST(SpirvArith, ConstantsOfEveryType) {
    for (Type t : all_scalar_types()) {
        SCOPED_TRACE(type_name(t));
        Expr v = imm(t, -3);
        if (t.is_uint()) v = UIntImm::make(t, ~uint64_t(0));
        Expr value = Add::make(Mul::make(v, imm(t, 7)), imm(t, 1));
        compile_ok(elementwise_kernel("constants_" + type_name(t), t, value, {}), full_vulkan_target());
    }
    compile_ok(elementwise_kernel("float_constants", Float(32),
                                  Add::make(FloatImm::make(Float(32), -0.0), FloatImm::make(Float(32), INFINITY)), {}),
               vulkan_target());
    compile_ok(elementwise_kernel("bool_constants", Bool(), And::make(UIntImm::make(Bool(), 1),
                                                                       UIntImm::make(Bool(), 0)), {}),
               vulkan_target("vk_int8"));
}

}  // namespace
}  // namespace loom_test_spirv
