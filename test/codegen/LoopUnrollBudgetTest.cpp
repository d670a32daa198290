// Loom's pipeline runs LLVM's loop unroller only on functions of at most
// kLoopUnrollInstructionBudget instructions (Optimize.cpp): a small function's
// 8-iteration loop is unrolled fully, the same loop copied as many times as a
// schedule's unrolling copies it stays a loop in every copy, and the two are
// decided per function in one module. A loop whose trip count is known only
// at run time (a histogram's counting loop) is unrolled with a remainder
// loop, as in Halide 14's LLVM pipeline.

#include <gtest/gtest.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <sstream>
#include <string>

#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "loom/Target.h"

namespace {

using loom::internal::kLoopUnrollInstructionBudget;

// A function named name with copies loops one after the other, loop k
// setting out[8k + i] = in[8k + i] * 3 for i in [0, 8): the shape of an
// 8-iteration inner loop inside a loop the schedule unrolled copies times.
std::string function_with_loops(const std::string &name, int copies) {
    std::ostringstream ir;
    ir << "define void @" << name << "(ptr noalias %in, ptr noalias %out) {\n"
       << "entry:\n  br label %h0\n";
    for (int k = 0; k < copies; k++) {
        const std::string prev = k == 0 ? "entry" : "h" + std::to_string(k - 1);
        const std::string next = "h" + std::to_string(k + 1);
        ir << "h" << k << ":\n"
           << "  %i" << k << " = phi i64 [0, %" << prev << "], [%n" << k << ", %h" << k << "]\n"
           << "  %a" << k << " = add nsw i64 %i" << k << ", " << 8 * k << "\n"
           << "  %p" << k << " = getelementptr inbounds i32, ptr %in, i64 %a" << k << "\n"
           << "  %v" << k << " = load i32, ptr %p" << k << ", align 4\n"
           << "  %m" << k << " = mul nsw i32 %v" << k << ", 3\n"
           << "  %q" << k << " = getelementptr inbounds i32, ptr %out, i64 %a" << k << "\n"
           << "  store i32 %m" << k << ", ptr %q" << k << ", align 4\n"
           << "  %n" << k << " = add nuw nsw i64 %i" << k << ", 1\n"
           << "  %c" << k << " = icmp eq i64 %n" << k << ", 8\n"
           << "  br i1 %c" << k << ", label %" << next << ", label %h" << k << "\n";
    }
    ir << "h" << copies << ":\n  ret void\n}\n";
    return ir.str();
}

std::unique_ptr<llvm::Module> parse(const std::string &ir, llvm::LLVMContext &context) {
    llvm::SMDiagnostic error;
    std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(ir, error, context);
    if (!m) {
        std::string text;
        llvm::raw_string_ostream os(text);
        error.print("LoopUnrollBudgetTest", os);
        ADD_FAILURE() << os.str();
    }
    return m;
}

int count_loops(llvm::Function &f) {
    llvm::DominatorTree dt(f);
    llvm::LoopInfo loops(dt);
    int n = 0;
    for (const llvm::Loop *l : loops.getLoopsInPreorder()) {
        (void)l;
        n++;
    }
    return n;
}

template<typename Inst>
int count(const llvm::Function &f) {
    int n = 0;
    for (const llvm::BasicBlock &bb : f) {
        for (const llvm::Instruction &inst : bb) n += llvm::isa<Inst>(inst);
    }
    return n;
}

int count_loads(const llvm::Function &f) { return count<llvm::LoadInst>(f); }

// hist[in[i]] += 1 for i in [0, n), n an argument: histogram_equalize's
// counting loop, whose trip count is known only at run time.
const char *kCountingLoop = R"(
define void @count(ptr noalias %in, ptr noalias %hist, i64 %n) {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i64 [0, %entry], [%next, %loop]
  %p = getelementptr inbounds i8, ptr %in, i64 %i
  %v = load i8, ptr %p, align 1
  %bin = zext i8 %v to i64
  %q = getelementptr inbounds i32, ptr %hist, i64 %bin
  %old = load i32, ptr %q, align 4
  %new = add nsw i32 %old, 1
  store i32 %new, ptr %q, align 4
  %next = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
)";

// More than budget instructions even if the clean-up passes left only
// eight of each loop's nine.
int copies_over_budget() { return int(kLoopUnrollInstructionBudget / 8) + 1; }

TEST(LoopUnrollBudget, SmallFunctionsLoopIsUnrolledTheCopiedOnesStayLoops) {
    const int copies = copies_over_budget();
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> m =
        parse(function_with_loops("small", 1) + function_with_loops("large", copies), context);
    ASSERT_NE(m, nullptr);
    auto tm = loom::internal::make_target_machine(loom::Target("x86-64-linux-avx2-fma"));
    m->setTargetTriple(tm->getTargetTriple().str());
    m->setDataLayout(tm->createDataLayout());
    llvm::Function *small = m->getFunction("small");
    llvm::Function *large = m->getFunction("large");
    ASSERT_EQ(count_loops(*small), 1);
    ASSERT_EQ(count_loops(*large), copies);

    loom::internal::optimize_module(*m, *tm, 3);
    EXPECT_NO_THROW(loom::internal::verify_module(*m));

    // Below the budget: LLVM's unroller still runs (8 iterations, fully).
    EXPECT_EQ(count_loops(*small), 0);
    EXPECT_EQ(count_loads(*small), 8);
    // Above it: every copy is still a loop of one load.
    EXPECT_EQ(count_loops(*large), copies);
    EXPECT_EQ(count_loads(*large), copies);
    EXPECT_GT(large->getInstructionCount(), kLoopUnrollInstructionBudget);
}

TEST(LoopUnrollBudget, RunTimeTripCountLoopIsUnrolledWithARemainderLoop) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> m = parse(kCountingLoop, context);
    ASSERT_NE(m, nullptr);
    auto tm = loom::internal::make_target_machine(loom::Target("x86-64-linux-avx2-fma"));
    m->setTargetTriple(tm->getTargetTriple().str());
    m->setDataLayout(tm->createDataLayout());
    llvm::Function *f = m->getFunction("count");
    ASSERT_EQ(count_loops(*f), 1);
    ASSERT_EQ(count<llvm::StoreInst>(*f), 1);

    loom::internal::optimize_module(*m, *tm, 3);
    EXPECT_NO_THROW(loom::internal::verify_module(*m));

    // The unrolled loop and its remainder: one increment in the remainder,
    // several in the unrolled body (LLVM chooses how many).
    EXPECT_EQ(count_loops(*f), 2);
    EXPECT_GE(count<llvm::StoreInst>(*f), 3);
}

TEST(LoopUnrollBudget, LevelsZeroAndOneNeverUnroll) {
    // Levels 0 and 1 never unroll, whatever the size.
    for (int level = 0; level <= 1; level++) {
        SCOPED_TRACE(level);
        llvm::LLVMContext context;
        std::unique_ptr<llvm::Module> m = parse(function_with_loops("small", 1), context);
        ASSERT_NE(m, nullptr);
        auto tm = loom::internal::make_target_machine(loom::Target("x86-64-linux-avx2-fma"));
        m->setTargetTriple(tm->getTargetTriple().str());
        m->setDataLayout(tm->createDataLayout());
        loom::internal::optimize_module(*m, *tm, level);
        EXPECT_EQ(count_loops(*m->getFunction("small")), 1);
    }
}

}  // namespace
