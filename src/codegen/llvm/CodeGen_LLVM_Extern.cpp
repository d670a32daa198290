// Extern stages (lower/ExternStages.h): the loom_buffer_t structs passed to
// the C function are built on the stack of the generated function. The call
// itself is an ordinary Extern call (codegen_extern_call).

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "loom/Error.h"
#include "lower/ExternStages.h"

namespace loom {
namespace internal {

llvm::Value *CodeGenLLVM::codegen_extern_buffer_intrinsic(const Call *op) {
    if (op->name == intrinsic::extern_buffer_min || op->name == intrinsic::extern_buffer_extent) {
        // A plain load: the bounds query wrote the field after the struct was made.
        if (op->args.size() != 2) throw InternalError("codegen_llvm: " + op->name + " takes a buffer and a dimension");
        llvm::StructType *dt = dimension_struct_type(context_);
        llvm::Value *dims = builder_->CreateLoad(builder_->getPtrTy(),
                                                 builder_->CreateStructGEP(buffer_struct_type(context_),
                                                                           codegen(op->args[0]), BufDim));
        llvm::Value *d = builder_->CreateSExtOrTrunc(codegen(op->args[1]), builder_->getInt64Ty());
        const unsigned field = op->name == intrinsic::extern_buffer_min ? DimMin : DimExtent;
        llvm::Value *p = builder_->CreateInBoundsGEP(dt, dims, {d, builder_->getInt32(field)});
        return builder_->CreateLoad(builder_->getInt32Ty(), p);
    }
    // (host, type code, bits, element offset, then min, extent, stride per dimension)
    if (op->args.size() < 4 || (op->args.size() - 4) % 3 != 0) {
        throw InternalError("codegen_llvm: extern_make_buffer takes host, code, bits, offset and 3 values per dimension");
    }
    const int dims = int((op->args.size() - 4) / 3);
    llvm::StructType *bt = buffer_struct_type(context_);
    llvm::StructType *dt = dimension_struct_type(context_);
    llvm::StructType *tt = type_struct_type(context_);
    llvm::AllocaInst *b = entry_alloca(bt, nullptr, "extern_buffer");
    llvm::Value *d = dims > 0 ? static_cast<llvm::Value *>(entry_alloca(dt, builder_->getInt32(dims), "extern_buffer.dim"))
                              : llvm::ConstantPointerNull::get(builder_->getPtrTy());
    auto store = [&](llvm::Value *v, llvm::StructType *t, llvm::Value *base, unsigned field) {
        builder_->CreateStore(v, builder_->CreateStructGEP(t, base, field));
    };

    llvm::Value *host = codegen(op->args[0]);
    const auto *bits_imm = op->args[2].as<UIntImm>();
    if (!bits_imm) throw InternalError("codegen_llvm: extern_make_buffer needs constant element bits");
    const uint64_t bytes = std::max<uint64_t>(1, (bits_imm->value + 7) / 8);
    // host + offset elements; a null host (a bounds query) stays null.
    llvm::Value *offset = builder_->CreateMul(builder_->CreateSExt(codegen(op->args[3]), builder_->getInt64Ty()),
                                              builder_->getInt64(bytes));
    llvm::Value *moved = builder_->CreateGEP(builder_->getInt8Ty(), host, offset);
    host = builder_->CreateSelect(builder_->CreateIsNull(host), host, moved);

    store(builder_->getInt64(0), bt, b, BufDevice);
    store(llvm::ConstantPointerNull::get(builder_->getPtrTy()), bt, b, BufDeviceInterface);
    store(host, bt, b, BufHost);
    store(builder_->getInt64(0), bt, b, BufFlags);
    llvm::Value *type = builder_->CreateStructGEP(bt, b, BufType);
    store(codegen(op->args[1]), tt, type, TypeCodeField);
    store(codegen(op->args[2]), tt, type, TypeBitsField);
    store(builder_->getInt16(1), tt, type, TypeLanesField);
    store(builder_->getInt32(dims), bt, b, BufDimensions);
    store(d, bt, b, BufDim);
    store(llvm::ConstantPointerNull::get(builder_->getPtrTy()), bt, b, BufPadding);
    for (int i = 0; i < dims; i++) {
        llvm::Value *dim = builder_->CreateConstGEP1_32(dt, d, unsigned(i));
        store(codegen(op->args[4 + 3 * i]), dt, dim, DimMin);
        store(codegen(op->args[5 + 3 * i]), dt, dim, DimExtent);
        store(codegen(op->args[6 + 3 * i]), dt, dim, DimStride);
        store(builder_->getInt32(0), dt, dim, DimFlags);
    }
    return b;
}

}  // namespace internal
}  // namespace loom
