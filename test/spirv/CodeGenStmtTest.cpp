// Statements (loops, conditionals, lets, allocations), predicated loads and
// stores, and scalar arguments compile to valid, structured modules.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "SpirvTestUtil.h"

namespace loom_test_spirv {
namespace {

using loom::Bool;
using loom::Float;
using loom::Int;
using loom::UInt;

// for (i, 0, n) { for (j, i, 3) { if (...) out[...] = ... else ...; } } with
// a while loop, lets, nested ifs and producer/consumer markers.
TEST(SpirvStmt, NestedLoopsAndConditionals) {
    Expr x = var("x"), i = var("i"), j = var("j"), n = var("n");
    Stmt store_a = Store::make("out", Add::make(i, j), Add::make(x, j));
    Stmt store_b = Store::make("out", Sub::make(i, j), x);
    Stmt inner_if = IfThenElse::make(LT::make(j, i32(2)), store_a, store_b);
    Stmt only_then = IfThenElse::make(EQ::make(i, n), Store::make("out", i32(0), x));
    Stmt inner = For::make("j", i, i32(3), ForType::Unrolled, DeviceAPI::None, Block::make(inner_if, only_then));
    Stmt outer = For::make("i", i32(0), n, ForType::Serial, DeviceAPI::None,
                           ProducerConsumer::make_produce("f", inner));
    // while (out[x] < 100) out[x] = out[x] * 2 + 1
    Expr current = load(Int(32), "out", x);
    Stmt doubling = While::make(LT::make(current, i32(100)),
                                Store::make("out", Add::make(Mul::make(current, i32(2)), i32(1)), x));
    Stmt body = Block::make({outer, ProducerConsumer::make_consume("f", doubling),
                             Evaluate::make(i32(0))});
    GPUKernel k;
    k.name = "control_flow";
    k.args = {scalar_arg("n", Int(32)), buffer_arg("out", Int(32), true, true)};
    k.workgroup_size[0] = 64;
    k.body = LetStmt::make("x", global_x(), body);
    for (const std::string &v : vulkan_versions()) {
        std::vector<uint32_t> words = compile_ok(k, vulkan_target(v));
        std::string text = disassemble_spirv(words);
        EXPECT_NE(text.find("OpLoopMerge"), std::string::npos);
        EXPECT_NE(text.find("Unroll"), std::string::npos);
        EXPECT_NE(text.find("OpSelectionMerge"), std::string::npos);
        EXPECT_NE(text.find("PushConstant"), std::string::npos);
    }
}

TEST(SpirvStmt, LoopsWithEmptyBodiesAndConditionsWithLoads) {
    // A while loop whose condition holds a predicated load (a selection
    // construct inside the loop's condition block), and an empty for loop.
    Expr x = var("x");
    Expr guarded = load(Int(32), "in", x, LT::make(x, i32(10)));
    Stmt w = While::make(GT::make(guarded, load(Int(32), "out", x)),
                         Store::make("out", Add::make(load(Int(32), "out", x), i32(1)), x));
    Stmt empty_for = For::make("e", i32(0), i32(4), ForType::Serial, DeviceAPI::None, Evaluate::make(i32(0)));
    GPUKernel k;
    k.name = "while_predicated";
    k.args = {buffer_arg("in", Int(32), true, false), buffer_arg("out", Int(32), true, true)};
    k.body = LetStmt::make("x", global_x(), Block::make(empty_for, w));
    compile_ok(k, vulkan_target());
    compile_ok(k, vulkan_target("vk_v13"));
}

TEST(SpirvStmt, PredicatedVectorLoadsAndStores) {
    for (Type et : {Int(32), Float(32), UInt(8), Bool(), Float(16)}) {
        for (int lanes : {1, 4, 8}) {
            Type t = et.with_lanes(lanes);
            SCOPED_TRACE(type_name(t));
            Expr index = lanes == 1 ? var("x") : Ramp::make(Mul::make(var("x"), i32(lanes)), i32(1), lanes);
            Expr lane_index = lanes == 1 ? index : Ramp::make(i32(0), i32(1), lanes);
            Expr predicate = LT::make(lane_index, lanes == 1 ? var("n") : Broadcast::make(var("n"), lanes));
            Expr loaded = load(t, "in", index, predicate);
            // A uniform predicate; a gather index.
            Expr gather_index = lanes == 1 ? index : Ramp::make(var("x"), i32(-2), lanes);
            Expr uniform = LT::make(var("x"), var("n"));
            if (lanes > 1) uniform = Broadcast::make(uniform, lanes);
            Stmt store = Store::make("out", loaded, gather_index, uniform);
            Stmt store2 = Store::make("out", loaded, index, predicate);
            GPUKernel k;
            k.name = "predicated";
            k.args = {scalar_arg("n", Int(32)), buffer_arg("in", et, true, false), buffer_arg("out", et, false, true)};
            k.body = LetStmt::make("x", global_x(), Block::make(store, store2));
            compile_ok(k, full_vulkan_target());
            compile_ok(k, full_vulkan_target("vk_v12"));
        }
    }
}

TEST(SpirvStmt, SharedAndFunctionAllocations) {
    for (Type et : {Int(32), Float(32), Bool(), UInt(8), Float(64), Int(16)}) {
        SCOPED_TRACE(type_name(et));
        Expr t = thread_id(0);
        Expr value = et.is_bool() ? LT::make(t, i32(3)) : Cast::make(et, t);
        // shared[t] = value; barrier; local[t % 4] = shared[63 - t]; out[t] = local[t % 4]
        Stmt fill = Store::make("shared", value, t);
        Expr mirrored = load(et, "shared", Sub::make(i32(63), t));
        Stmt local_fill = Store::make("local", mirrored, Mod::make(t, i32(4)));
        Stmt out = Store::make("out", load(et, "local", Mod::make(t, i32(4))), t);
        Stmt local = Allocate::make("local", et, MemoryType::Register, {i32(4)}, Expr(),
                                    Block::make({local_fill, out, Free::make("local")}));
        Stmt shared = Allocate::make("shared", et, MemoryType::GPUShared, {i32(8), i32(8)}, Expr(),
                                     Block::make({fill, barrier(), local}));
        GPUKernel k;
        k.name = "allocations";
        k.args = {buffer_arg("out", et, false, true)};
        k.workgroup_size[0] = 64;
        k.body = shared;
        for (const std::string &v : vulkan_versions()) {
            std::vector<uint32_t> words = compile_ok(k, full_vulkan_target(v));
            std::string text = disassemble_spirv(words);
            EXPECT_NE(text.find("Workgroup"), std::string::npos);
            EXPECT_NE(text.find("Function"), std::string::npos);
        }
    }
}

TEST(SpirvStmt, ScalarArgumentsArePushConstantsInCLayout) {
    GPUKernel k;
    k.name = "scalars";
    k.args = {scalar_arg("a", Int(32)), buffer_arg("out", Float(64), false, true), scalar_arg("b", Float(64)),
              scalar_arg("c", Float(32)), scalar_arg("d", UInt(64)), scalar_arg("e", Int(16)),
              scalar_arg("f", Bool())};
    Expr sum = Add::make(Cast::make(Float(64), var("a")), var("b", Float(64)));
    sum = Add::make(sum, Cast::make(Float(64), var("c", Float(32))));
    sum = Add::make(sum, Cast::make(Float(64), var("d", UInt(64))));
    sum = Add::make(sum, Cast::make(Float(64), var("e", Int(16))));
    sum = Select::make(var("f", Bool()), sum, FloatImm::make(Float(64), 0));
    k.body = LetStmt::make("x", global_x(), Store::make("out", sum, var("x")));
    std::vector<uint32_t> words = compile_ok(k, full_vulkan_target());
    std::string text = disassemble_spirv(words);
    // a at 0, b at 8 (aligned to 8), c at 16, d at 24, e (widened to 32 bits) at 32, f at 36.
    for (const char *offset : {"0 Offset 0", "1 Offset 8", "2 Offset 16", "3 Offset 24", "4 Offset 32",
                               "5 Offset 36"}) {
        EXPECT_NE(text.find(offset), std::string::npos) << offset << "\n" << text;
    }
    // The buffer takes binding 0: scalars take none.
    EXPECT_NE(text.find("OpDecorate %out Binding 0"), std::string::npos) << text;
}

TEST(SpirvStmt, BuffersBindInArgumentOrder) {
    GPUKernel k;
    k.name = "bindings";
    k.args = {buffer_arg("p", Float(32), true, false), scalar_arg("s", Int(32)), buffer_arg("q", Int(32), true, false),
              buffer_arg("out", Float(32), false, true)};
    Expr v = Add::make(load(Float(32), "p", var("x")), Cast::make(Float(32), load(Int(32), "q", var("s"))));
    k.body = LetStmt::make("x", global_x(), Store::make("out", v, var("x")));
    std::string text = disassemble_spirv(compile_ok(k, vulkan_target()));
    EXPECT_NE(text.find("OpDecorate %p Binding 0"), std::string::npos) << text;
    EXPECT_NE(text.find("OpDecorate %q Binding 1"), std::string::npos) << text;
    EXPECT_NE(text.find("OpDecorate %out Binding 2"), std::string::npos) << text;
}

TEST(SpirvStmt, LetsShadowAndScopesEnd) {
    Expr x = var("x");
    Expr inner = Let::make("y", Mul::make(x, i32(2)), Let::make("y", Add::make(var("y"), i32(1)), var("y")));
    Stmt body = LetStmt::make("y", i32(5), Store::make("out", Add::make(inner, var("y")), x));
    GPUKernel k;
    k.name = "lets";
    k.args = {buffer_arg("out", Int(32), false, true)};
    k.body = LetStmt::make("x", global_x(), body);
    compile_ok(k, vulkan_target());
}

TEST(SpirvStmt, DebugDumpWritesModuleAndAssembly) {
    const std::string dir = ::testing::TempDir() + "/loom_spirv_dump";
    std::system(("mkdir -p " + dir).c_str());
    setenv("LOOM_DEBUG_SPIRV", dir.c_str(), 1);
    GPUKernel k = elementwise_kernel("dumped/kernel", Int(32), var("x"), {});
    compile_ok(k, vulkan_target());
    unsetenv("LOOM_DEBUG_SPIRV");
    FILE *spv = std::fopen((dir + "/dumped_kernel.spv").c_str(), "rb");
    FILE *text = std::fopen((dir + "/dumped_kernel.spvasm").c_str(), "r");
    EXPECT_NE(spv, nullptr);
    EXPECT_NE(text, nullptr);
    if (spv) std::fclose(spv);
    if (text) std::fclose(text);
}

}  // namespace
}  // namespace loom_test_spirv
