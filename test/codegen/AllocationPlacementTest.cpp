// Where the LLVM back end puts an Allocate (CodeGen_LLVM_Memory.cpp): Auto
// allocations of a constant size up to 16 KiB on the stack (like Halide), so
// that a block of accumulators computed per tile lives in registers; larger
// or run-time-sized ones, and Heap ones, come from loom_malloc. Each case is
// also run, so that the placement does not change the result.

#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "codegen_ir/CodeGenTestUtil.h"

namespace loom_test_ir {
namespace {

using loom::Int;

// For each row: tmp[i] = in[i] * 3 over i < n, then out[row*n + i] = tmp[i]
// + 1; tmp is allocated per row with the given memory type and extent.
LoweredFunc per_row_scratch(MemoryType memory, Expr extent, int n) {
    Expr i = var("i");
    Stmt fill = For::make("i", i32(0), i32(n), ForType::Serial, DeviceAPI::None,
                          Store::make("tmp", Mul::make(Load::make(Int(32), "in", i), i32(3)), i));
    Expr out_index = Add::make(Mul::make(var("row"), i32(n)), i);
    Stmt use = For::make("i", i32(0), i32(n), ForType::Serial, DeviceAPI::None,
                         Store::make("out", Add::make(Load::make(Int(32), "tmp", i), i32(1)), out_index));
    Stmt row = Allocate::make("tmp", Int(32), memory, {extent}, Expr(), Block::make(fill, use));
    Stmt body = For::make("row", i32(0), i32(4), ForType::Serial, DeviceAPI::None, row);
    return make_func("scratch",
                     {buffer_arg("in", LoweredArgument::InputBuffer, Int(32), 1),
                      buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1), scalar_arg("k", Int(32))},
                     with_buffer_lets("in", 1, with_buffer_lets("out", 1, body)));
}

std::string unoptimised_ir(const LoweredFunc &f) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = codegen_llvm(f, loom::Target("x86-64-linux-avx2-fma"), context);
    std::string text;
    llvm::raw_string_ostream stream(text);
    module->print(stream, nullptr);
    stream.flush();
    return text;
}

bool calls_malloc(const std::string &ir) { return std::regex_search(ir, std::regex(R"(call [^\n]*@loom_malloc\()")); }
bool allocas_tmp(const std::string &ir) { return std::regex_search(ir, std::regex(R"(%tmp\d* = alloca )")); }

void expect_runs_correctly(const LoweredFunc &f, int n) {
    std::vector<int32_t> in(n), out(4 * n, -1);
    for (int i = 0; i < n; i++) in[i] = i - 7;
    RawBuffer in_buf(in.data(), loom_type_t{loom_type_int, 32, 1}, {{0, n, 1, 0}});
    RawBuffer out_buf(out.data(), loom_type_t{loom_type_int, 32, 1}, {{0, 4 * n, 1, 0}});
    int32_t k = 0;
    void *args[] = {&in_buf.buffer, &out_buf.buffer, &k};
    JITPipeline p = compile_jit(f, jit_target());
    ASSERT_EQ(p.argv(args), 0);
    for (int j = 0; j < 4 * n; j++) ASSERT_EQ(out[j], in[j % n] * 3 + 1) << "at " << j;
}

TEST(AllocationPlacement, SmallConstantAutoAllocationIsOnTheStack) {
    const LoweredFunc f = per_row_scratch(MemoryType::Auto, i32(64), 64);  // 256 bytes
    const std::string ir = unoptimised_ir(f);
    EXPECT_TRUE(allocas_tmp(ir)) << ir;
    EXPECT_FALSE(calls_malloc(ir)) << ir;
    expect_runs_correctly(f, 64);
}

TEST(AllocationPlacement, AutoAllocationOver16KiBIsOnTheHeap) {
    const LoweredFunc f = per_row_scratch(MemoryType::Auto, i32(4097), 4097);  // 16388 bytes
    const std::string ir = unoptimised_ir(f);
    EXPECT_FALSE(allocas_tmp(ir)) << ir;
    EXPECT_TRUE(calls_malloc(ir)) << ir;
    expect_runs_correctly(f, 4097);
}

TEST(AllocationPlacement, AutoAllocationOfExactly16KiBIsOnTheStack) {
    const LoweredFunc f = per_row_scratch(MemoryType::Auto, i32(4096), 4096);
    const std::string ir = unoptimised_ir(f);
    EXPECT_TRUE(allocas_tmp(ir)) << ir;
    EXPECT_FALSE(calls_malloc(ir)) << ir;
    expect_runs_correctly(f, 4096);
}

TEST(AllocationPlacement, RunTimeSizedAndHeapAllocationsUseMalloc) {
    // Sized by the scalar argument k plus 64: unknown at compile time.
    const LoweredFunc sized = per_row_scratch(MemoryType::Auto, Add::make(var("k"), i32(64)), 64);
    EXPECT_TRUE(calls_malloc(unoptimised_ir(sized)));
    expect_runs_correctly(sized, 64);
    const LoweredFunc heap = per_row_scratch(MemoryType::Heap, i32(64), 64);
    EXPECT_TRUE(calls_malloc(unoptimised_ir(heap)));
    expect_runs_correctly(heap, 64);
}

}  // namespace
}  // namespace loom_test_ir
