// Parallel loops nested directly in a parallel loop (iir_blur: channels,
// then strips of rows): the LLVM back end runs each loop as written, one
// loom_do_par_for per loop, the inner ones started by the outer loop's task
// (CodeGen_LLVM_Parallel.cpp), and the runtime shares a loop started on a
// pool worker with idle threads (ThreadPool.c, ThreadPoolTest). Each case is
// checked against plain expectations and, byte for byte, against the
// reference interpreter, and the module is checked for one task function
// per loop (43f57ab had fused the inner loops with the outer one into one
// loop over the product, which a custom_do_par_for handler saw as one call
// where Halide makes one per loop).

#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "codegen_ir/CodeGenTestUtil.h"
#include "codegen/llvm/CodeGen_LLVM.h"
#include "ir/Interpreter.h"
#include "loom/runtime/Buffer.h"
#include "runtime/RuntimeInternal.h"

namespace loom_test_ir {
namespace {

using loom::Int;
using loom::Runtime::Buffer;

// Four threads, even on a two-core machine, so that tasks really run
// concurrently; the previous count is restored afterwards.
class NestedParallelTest : public testing::Test {
protected:
    void SetUp() override { saved_threads_ = loom_set_num_threads(4); }
    void TearDown() override { loom_set_num_threads(saved_threads_); }

private:
    int saved_threads_ = 0;
};

constexpr int kBlock = 5;     // columns per block
constexpr int kPattern = 0x5a5a5a5a;

// How many functions of f's LLVM module have `piece` in their names.
int functions_named(const LoweredFunc &f, const std::string &piece) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = codegen_llvm(f, jit_target(), context);
    int count = 0;
    for (const llvm::Function &fn : module->functions()) {
        if (fn.getName().str().find(piece) != std::string::npos) count++;
    }
    return count;
}

// Runs f compiled and interpreted on a (3 kBlock) x height output filled
// with kPattern, with the given scalar arguments first; both must agree on
// the result code and every element. Returns the compiled output.
Buffer<int32_t> run_both(const LoweredFunc &f, int height, std::vector<void *> scalars) {
    Buffer<int32_t> outputs[2];
    int codes[2];
    JITPipeline p = compile_jit(f, jit_target());
    for (int compiled = 0; compiled < 2; compiled++) {
        Buffer<int32_t> &out = outputs[compiled];
        out = Buffer<int32_t>(3 * kBlock, height);
        out.set_min(2, -3);
        std::memset(out.data(), 0x5a, out.size_in_bytes());
        std::vector<void *> args = scalars;
        args.push_back(out.raw_buffer());
        codes[compiled] = compiled ? p.argv(args.data()) : interpret(f, args.data());
    }
    EXPECT_EQ(codes[0], 0);
    EXPECT_EQ(codes[1], 0);
    EXPECT_EQ(std::memcmp(outputs[0].data(), outputs[1].data(), outputs[0].size_in_bytes()), 0)
        << "compiled and interpreted outputs differ";
    return outputs[1];
}

// out(x, y) = x * 1000 + y + c * 7 for the columns of block c, x and y
// relative to the output's mins:
//
//   parallel for (c, 0, blocks) {
//     let base = c * 7 (+ table[c] if let_reads_memory)
//     parallel for (y, out.min.1, split) {row}
//     let base2 = base + 0
//     parallel for (y, out.min.1 + split, out.extent.1 - split (+ c - c if rest_names_c)) {row}
//   }
struct NestOptions {
    bool let_reads_memory = false;
    bool rest_names_c = false;
};

// The columns of block c of row y: out(x, y) = x * 1000 + y + base.
Stmt block_row(const std::string &base) {
    Expr c = var("c"), y = var("y"), xi = var("xi");
    Expr x = Add::make(Add::make(var("out.min.0"), Mul::make(c, i32(kBlock))), xi);
    Expr column = Sub::make(x, var("out.min.0")), row = Sub::make(y, var("out.min.1"));
    Expr value = Add::make(Add::make(Mul::make(column, i32(1000)), row), var(base));
    return For::make("xi", i32(0), i32(kBlock), ForType::Serial, DeviceAPI::None,
                     Store::make("out", value, flat_index("out", {x, y})));
}

LoweredFunc block_nest(const NestOptions &o) {
    Expr c = var("c");
    Stmt first = For::make("y", var("out.min.1"), var("split"), ForType::Parallel, DeviceAPI::None, block_row("base"));
    Expr rest = Sub::make(var("out.extent.1"), var("split"));
    if (o.rest_names_c) rest = Add::make(rest, Sub::make(c, c));
    Stmt second = LetStmt::make("base2", Add::make(var("base"), i32(0)),
                                For::make("y", Add::make(var("out.min.1"), var("split")), rest, ForType::Parallel,
                                          DeviceAPI::None, block_row("base2")));
    Expr base = Mul::make(c, i32(7));
    if (o.let_reads_memory) base = Add::make(base, Load::make(Int(32), "table", c));
    Stmt outer = For::make("c", i32(0), var("blocks"), ForType::Parallel, DeviceAPI::None,
                           LetStmt::make("base", base, Block::make(first, second)));
    if (o.let_reads_memory) {
        // table[c] = 0, written before the loops.
        Stmt fill = For::make("t", i32(0), i32(3), ForType::Serial, DeviceAPI::None,
                              Store::make("table", i32(0), var("t")));
        outer = Allocate::make("table", Int(32), MemoryType::Stack, {i32(3)}, Expr(), Block::make(fill, outer));
    }
    return make_func("nest",
                     {scalar_arg("blocks", Int(32)), scalar_arg("split", Int(32)),
                      buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 2)},
                     with_buffer_lets("out", 2, outer));
}

void expect_blocks_written(const Buffer<int32_t> &out, int blocks) {
    for (int yy = 0; yy < out.dim(1).extent(); yy++) {
        for (int xx = 0; xx < 3 * kBlock; xx++) {
            const int c = xx / kBlock;
            const int expected = c < blocks ? xx * 1000 + yy + c * 7 : kPattern;
            ASSERT_EQ(out(2 + xx, -3 + yy), expected) << xx << ", " << yy;
        }
    }
}

TEST_F(NestedParallelTest, EachLoopIsOneParallelLoop) {
    LoweredFunc f = block_nest({});
    // A task function for c, and one for each loop over y, outlined from
    // c's task (named after it); nothing fused.
    EXPECT_EQ(functions_named(f, ".par_for."), 3);
    EXPECT_EQ(functions_named(f, ".par_for.c.par_for.y"), 2);
    EXPECT_EQ(functions_named(f, ".fused"), 0);
    int32_t blocks = 3, split = 4;
    for (int height : {11, 4, 1}) {
        SCOPED_TRACE(height);
        split = std::min(4, height);
        expect_blocks_written(run_both(f, height, {&blocks, &split}), blocks);
    }
}

TEST_F(NestedParallelTest, EmptyLoopsRunNothing) {
    LoweredFunc f = block_nest({});
    // An empty outer loop, an empty inner loop (split 0: the second loop
    // runs alone), and both extents negative, whose product is positive.
    int32_t blocks = 0, split = 3;
    expect_blocks_written(run_both(f, 7, {&blocks, &split}), 0);
    blocks = 2;
    split = 0;
    expect_blocks_written(run_both(f, 7, {&blocks, &split}), 2);
    blocks = -2;
    split = -3;  // the second loop's extent 7 + 3 runs nothing either: no block
    expect_blocks_written(run_both(f, 7, {&blocks, &split}), 0);
}

TEST_F(NestedParallelTest, ALetReadingMemoryBetweenTheLoops) {
    NestOptions o;
    o.let_reads_memory = true;
    LoweredFunc f = block_nest(o);
    int32_t blocks = 3, split = 2;
    expect_blocks_written(run_both(f, 6, {&blocks, &split}), blocks);
}

TEST_F(NestedParallelTest, InnerBoundsNamingTheOuterLoop) {
    NestOptions o;
    o.rest_names_c = true;
    LoweredFunc f = block_nest(o);
    int32_t blocks = 3, split = 2;
    expect_blocks_written(run_both(f, 6, {&blocks, &split}), blocks);
}

}  // namespace
}  // namespace loom_test_ir
