// optimize_module (Optimize.cpp): every level runs and leaves a valid module;
// Loom's pipeline (levels 2-3) keeps an accumulator allocation in registers
// and a scan's running value out of memory; a bad level is an InternalError.

#include <gtest/gtest.h>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "HandWrittenIR.h"
#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "codegen_ir/CodeGenTestUtil.h"
#include "loom/Error.h"

namespace loom_test_ir {
namespace {

using loom::Int;

TEST(Optimize, EveryLevelRunsAndKeepsTheModuleValid) {
    for (int level = 0; level <= 3; level++) {
        SCOPED_TRACE(level);
        auto mc = loom_test::make_sum_module();
        auto tm = make_target_machine(loom::Target("x86-64-linux-avx2-fma"));
        mc.module->setTargetTriple(tm->getTargetTriple().str());
        mc.module->setDataLayout(tm->createDataLayout());
        ASSERT_NO_THROW(optimize_module(*mc.module, *tm, level));
        EXPECT_NO_THROW(verify_module(*mc.module));
        EXPECT_NE(mc.module->getFunction("sum_i32"), nullptr);
    }
}

TEST(Optimize, LevelOutsideZeroToThreeIsAnInternalError) {
    auto mc = loom_test::make_sum_module();
    auto tm = make_target_machine(loom::Target("x86-64-linux"));
    EXPECT_THROW(optimize_module(*mc.module, *tm, 4), loom::InternalError);
    EXPECT_THROW(optimize_module(*mc.module, *tm, -1), loom::InternalError);
}

// rows[x] = rows[x - 1] + in[x] over x in [1, 64), rows[0] = in[0], in a
// 64-element allocation, then out[x] = rows[x]: a scan through memory.
LoweredFunc prefix_sum() {
    Expr x = var("s");
    Stmt init = Store::make("rows", Load::make(Int(32), "in", i32(0)), i32(0));
    Stmt scan = For::make("s", i32(1), i32(63), ForType::Serial, DeviceAPI::None,
                          Store::make("rows",
                                      Add::make(Load::make(Int(32), "rows", Sub::make(x, i32(1))),
                                                Load::make(Int(32), "in", x)),
                                      x));
    Stmt copy = For::make("c", i32(0), i32(64), ForType::Serial, DeviceAPI::None,
                          Store::make("out", Load::make(Int(32), "rows", var("c")), var("c")));
    Stmt body = Allocate::make("rows", Int(32), MemoryType::Heap, {i32(64)}, Expr(),
                               Block::make({init, scan, copy}));
    body = with_buffer_lets("in", 1, with_buffer_lets("out", 1, body));
    return make_func("prefix_sum", {buffer_arg("in", LoweredArgument::InputBuffer, Int(32), 1),
                                    buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                     body);
}

TEST(Optimize, ScanKeepsItsRunningValueOutOfMemory) {
    // The load of rows[x - 1] is the value stored in the previous iteration;
    // with the allocation's own TBAA type (the store to rows cannot change
    // in) the pipeline forwards it, so the scan loop loads only from in.
    const loom::Target target("x86-64-linux-avx2-fma");
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = codegen_llvm(prefix_sum(), target, context);
    auto tm = make_target_machine(target);
    optimize_module(*module, *tm);
    // Loads in the scan loop's blocks (named after its variable, "s.").
    int rows_loads = 0, in_loads = 0;
    std::string blocks;
    for (const llvm::Function &f : *module) {
        for (const llvm::BasicBlock &bb : f) {
            blocks += bb.getName().str() + " ";
            if (!bb.getName().starts_with("s.")) continue;
            for (const llvm::Instruction &inst : bb) {
                if (!llvm::isa<llvm::LoadInst>(inst)) continue;
                if (inst.getName().starts_with("rows")) rows_loads++;
                if (inst.getName().starts_with("in")) in_loads++;
            }
        }
    }
    EXPECT_GT(in_loads, 0) << "no scan loop found among the blocks " << blocks;
    EXPECT_EQ(rows_loads, 0) << "the scan reloads rows[s - 1] in the blocks " << blocks;

    std::vector<int32_t> in(64), out(64, -1);
    for (int i = 0; i < 64; i++) in[i] = i * 3 - 50;
    RawBuffer in_buf(in.data(), loom_type_t{loom_type_int, 32, 1}, {{0, 64, 1, 0}});
    RawBuffer out_buf(out.data(), loom_type_t{loom_type_int, 32, 1}, {{0, 64, 1, 0}});
    void *args[] = {&in_buf.buffer, &out_buf.buffer};
    JITPipeline p = compile_jit(prefix_sum(), jit_target());
    ASSERT_EQ(p.argv(args), 0);
    int32_t sum = 0;
    for (int i = 0; i < 64; i++) {
        sum += in[i];
        ASSERT_EQ(out[i], sum) << i;
    }
}

}  // namespace
}  // namespace loom_test_ir
