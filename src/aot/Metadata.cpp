#include "aot/Metadata.h"

#include <cstddef>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

// The layouts of loom_runtime.h's structs that the constants below spell out.
static_assert(offsetof(loom_argument_info_t, kind) == 8 && offsetof(loom_argument_info_t, dimensions) == 12);
static_assert(offsetof(loom_argument_info_t, type) == 16 && sizeof(loom_argument_info_t) == 24);
static_assert(offsetof(loom_pipeline_metadata_t, num_arguments) == 4);
static_assert(offsetof(loom_pipeline_metadata_t, arguments) == 8 && offsetof(loom_pipeline_metadata_t, target) == 16);
static_assert(offsetof(loom_pipeline_metadata_t, name) == 24 && sizeof(loom_pipeline_metadata_t) == 32);

llvm::Constant *string_global(llvm::Module &m, const std::string &text, const std::string &name) {
    llvm::Constant *data = llvm::ConstantDataArray::getString(m.getContext(), text);
    auto *global = new llvm::GlobalVariable(m, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data, name);
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return global;
}

int32_t kind_code(LoweredArgument::Kind k) {
    switch (k) {
    case LoweredArgument::InputScalar: return loom_argument_input_scalar;
    case LoweredArgument::InputBuffer: return loom_argument_input_buffer;
    case LoweredArgument::OutputBuffer: return loom_argument_output_buffer;
    }
    return -1;
}

}  // namespace

void add_metadata_function(llvm::Module &m, const LoweredFunc &f, const Target &t) {
    llvm::LLVMContext &c = m.getContext();
    llvm::Type *i8 = llvm::Type::getInt8Ty(c);
    llvm::Type *i16 = llvm::Type::getInt16Ty(c);
    llvm::Type *i32 = llvm::Type::getInt32Ty(c);
    llvm::Type *ptr = llvm::PointerType::get(c, 0);
    llvm::StructType *type_t = llvm::StructType::get(c, {i8, i8, i16});
    llvm::StructType *argument_t = llvm::StructType::get(c, {ptr, i32, i32, type_t});
    llvm::StructType *metadata_t = llvm::StructType::get(c, {i32, i32, ptr, ptr, ptr});

    std::vector<llvm::Constant *> arguments;
    for (const LoweredArgument &a : f.args) {
        const loom_type_t rt = a.type.to_runtime();
        llvm::Constant *type = llvm::ConstantStruct::get(
            type_t, {llvm::ConstantInt::get(i8, rt.code), llvm::ConstantInt::get(i8, rt.bits),
                     llvm::ConstantInt::get(i16, rt.lanes)});
        arguments.push_back(llvm::ConstantStruct::get(
            argument_t, {string_global(m, a.name, f.name + ".metadata.name"), llvm::ConstantInt::get(i32, kind_code(a.kind)),
                         llvm::ConstantInt::get(i32, a.is_buffer() ? a.dimensions : 0), type}));
    }
    llvm::ArrayType *array_t = llvm::ArrayType::get(argument_t, arguments.size());
    auto *argument_array = new llvm::GlobalVariable(m, array_t, true, llvm::GlobalValue::PrivateLinkage,
                                                    llvm::ConstantArray::get(array_t, arguments),
                                                    f.name + ".metadata.arguments");
    llvm::Constant *metadata = llvm::ConstantStruct::get(
        metadata_t, {llvm::ConstantInt::get(i32, LOOM_PIPELINE_METADATA_VERSION),
                     llvm::ConstantInt::get(i32, (int)f.args.size()), argument_array,
                     string_global(m, t.to_string(), f.name + ".metadata.target"),
                     string_global(m, f.name, f.name + ".metadata.function")});
    auto *metadata_global = new llvm::GlobalVariable(m, metadata_t, true, llvm::GlobalValue::PrivateLinkage,
                                                     metadata, f.name + ".metadata");

    llvm::Function *fn = llvm::Function::Create(llvm::FunctionType::get(ptr, {}, false),
                                                llvm::Function::ExternalLinkage, f.name + "_metadata", &m);
    llvm::IRBuilder<> builder(llvm::BasicBlock::Create(c, "entry", fn));
    builder.CreateRet(metadata_global);
}

}  // namespace internal
}  // namespace loom
