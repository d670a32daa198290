// Alias information the LLVM back end gives element accesses
// (tag_buffer_access, CodeGen_LLVM_Memory.cpp): each allocation of the
// pipeline has a TBAA type of its own, and all input/output buffers share
// one, since the caller may pass overlapping memory.

#include <gtest/gtest.h>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "codegen_ir/CodeGenTestUtil.h"

namespace loom_test_ir {
namespace {

using loom::Int;

// tmp[i] = a[i] + b[i]; then out[i] = tmp[i] * 2, per row, over i < 16.
LoweredFunc two_inputs_and_scratch(ForType row_loop) {
    Expr i = var("i");
    Stmt fill = For::make("i", i32(0), i32(16), ForType::Serial, DeviceAPI::None,
                          Store::make("tmp", Add::make(Load::make(Int(32), "a", i), Load::make(Int(32), "b", i)), i));
    Stmt use = For::make("i", i32(0), i32(16), ForType::Serial, DeviceAPI::None,
                         Store::make("out", Mul::make(Load::make(Int(32), "tmp", i), i32(2)),
                                     Add::make(Mul::make(var("row"), i32(16)), i)));
    Stmt row = Allocate::make("tmp", Int(32), MemoryType::Heap, {i32(16)}, Expr(), Block::make(fill, use));
    Stmt body = For::make("row", i32(0), i32(4), row_loop, DeviceAPI::None, row);
    for (const char *b : {"a", "b", "out"}) body = with_buffer_lets(b, 1, body);
    return make_func("alias", {buffer_arg("a", LoweredArgument::InputBuffer, Int(32), 1),
                               buffer_arg("b", LoweredArgument::InputBuffer, Int(32), 1),
                               buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 1)},
                     body);
}

// The TBAA tag of every i32 element load/store, by the buffer its name says.
std::map<std::string, std::set<llvm::MDNode *>> tags_by_buffer(const llvm::Module &m) {
    std::map<std::string, std::set<llvm::MDNode *>> tags;
    for (const llvm::Function &f : m) {
        for (const llvm::BasicBlock &bb : f) {
            for (const llvm::Instruction &inst : bb) {
                const llvm::Value *pointer = nullptr;
                if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
                    if (!load->getType()->isIntegerTy(32)) continue;
                    pointer = load->getPointerOperand();
                } else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
                    if (!store->getValueOperand()->getType()->isIntegerTy(32)) continue;
                    pointer = store->getPointerOperand();
                } else {
                    continue;
                }
                // The address is a GEP from the buffer's host pointer.
                auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(pointer);
                if (!gep) continue;
                const std::string base = gep->getPointerOperand()->getName().str();
                std::string buffer = base.substr(0, base.find_first_of(".0123456789"));
                if (buffer != "a" && buffer != "b" && buffer != "out" && buffer != "tmp") continue;
                tags[buffer].insert(inst.getMetadata(llvm::LLVMContext::MD_tbaa));
            }
        }
    }
    return tags;
}

void expect_tags(ForType row_loop) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> m =
        codegen_llvm(two_inputs_and_scratch(row_loop), loom::Target("x86-64-linux-avx2-fma"), context);
    auto tags = tags_by_buffer(*m);
    for (const char *b : {"a", "b", "out", "tmp"}) {
        ASSERT_EQ(tags[b].size(), 1u) << b << " has " << tags[b].size() << " different tags";
        EXPECT_NE(*tags[b].begin(), nullptr) << b << " is untagged";
    }
    // Inputs and output may overlap: one tag. The allocation: another.
    EXPECT_EQ(*tags["a"].begin(), *tags["b"].begin());
    EXPECT_EQ(*tags["a"].begin(), *tags["out"].begin());
    EXPECT_NE(*tags["tmp"].begin(), *tags["a"].begin());
}

TEST(BufferAlias, AllocationHasItsOwnTbaaTypeInputsAndOutputsShareOne) { expect_tags(ForType::Serial); }

TEST(BufferAlias, TagsHoldInsideAParallelLoopBody) {
    // The body is its own function reaching tmp through the closure.
    expect_tags(ForType::Parallel);
}

TEST(BufferAlias, OverlappingInputAndOutputStillComputeCorrectly) {
    // out aliases a (the same memory): the shared tag must keep LLVM from
    // reordering the stores to out past the loads of a of later rows.
    std::vector<int32_t> data(64), b(16);
    for (int i = 0; i < 64; i++) data[i] = i;
    for (int i = 0; i < 16; i++) b[i] = 100 * i;
    RawBuffer a_buf(data.data(), loom_type_t{loom_type_int, 32, 1}, {{0, 16, 1, 0}});
    RawBuffer b_buf(b.data(), loom_type_t{loom_type_int, 32, 1}, {{0, 16, 1, 0}});
    RawBuffer out_buf(data.data(), loom_type_t{loom_type_int, 32, 1}, {{0, 64, 1, 0}});
    void *args[] = {&a_buf.buffer, &b_buf.buffer, &out_buf.buffer};
    JITPipeline p = compile_jit(two_inputs_and_scratch(ForType::Serial), jit_target());
    ASSERT_EQ(p.argv(args), 0);
    // Row 0 overwrites a (data[0..15]); rows 1-3 write past it and read
    // what row 0 wrote.
    std::vector<int32_t> row0(16), later(16);
    for (int i = 0; i < 16; i++) row0[i] = (i + b[i]) * 2;
    for (int i = 0; i < 16; i++) later[i] = (row0[i] + b[i]) * 2;
    for (int i = 0; i < 16; i++) {
        ASSERT_EQ(data[i], row0[i]) << i;
        for (int row = 1; row < 4; row++) ASSERT_EQ(data[row * 16 + i], later[i]) << row << ", " << i;
    }
}

}  // namespace
}  // namespace loom_test_ir
