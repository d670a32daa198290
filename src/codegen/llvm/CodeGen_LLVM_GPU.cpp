// The host side of GPU kernels (lower/LowerGPULaunches.h): each kernel's
// SPIR-V is compiled here (codegen/spirv) and embedded as a constant array
// with a module-state slot beside it; the GPU intrinsics that launch it
// become runtime calls and stack structs.

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "codegen/spirv/CodeGen_SPIRV.h"
#include "loom/Error.h"
#include "lower/LowerGPULaunches.h"

namespace loom {
namespace internal {

void CodeGenLLVM::embed_gpu_kernels(const std::vector<GPUKernel> &kernels) {
    for (const GPUKernel &k : kernels) {
        std::vector<uint32_t> words = compile_kernel_to_spirv(k, target_);
        llvm::ArrayType *array = llvm::ArrayType::get(builder_->getInt32Ty(), words.size());
        auto *blob = new llvm::GlobalVariable(*module_, array, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                              llvm::ConstantDataArray::get(context_, llvm::ArrayRef<uint32_t>(words)),
                                              k.name + ".spirv");
        blob->setAlignment(llvm::Align(4));
        auto *state = new llvm::GlobalVariable(*module_, builder_->getPtrTy(), /*isConstant=*/false,
                                               llvm::GlobalValue::InternalLinkage,
                                               llvm::ConstantPointerNull::get(builder_->getPtrTy()), k.name + ".state");
        gpu_kernels_[k.name] = GPUKernelGlobals{blob, uint32_t(words.size()), state};
    }
}

const CodeGenLLVM::GPUKernelGlobals &CodeGenLLVM::gpu_kernel_globals(const Call *op) const {
    const StringImm *name = op->args.empty() ? nullptr : op->args[0].as<StringImm>();
    if (!name) throw InternalError("codegen_llvm: " + op->name + " needs a kernel name");
    auto it = gpu_kernels_.find(name->value);
    if (it == gpu_kernels_.end()) throw InternalError("codegen_llvm: no GPU kernel named " + name->value);
    return it->second;
}

llvm::Value *CodeGenLLVM::codegen_gpu_intrinsic(const Call *op) {
    const std::string &n = op->name;
    llvm::Type *ptr = builder_->getPtrTy();
    llvm::Type *i32 = builder_->getInt32Ty();
    if (n == intrinsic::gpu_initialize_kernel) {
        const GPUKernelGlobals &g = gpu_kernel_globals(op);
        llvm::Function *init = declare_function("loom_vulkan_initialize_kernels", i32, {ptr, ptr, ptr, i32});
        return builder_->CreateCall(init, {user_context(), g.state, g.blob,
                                           builder_->getInt32(g.words)});
    }
    if (n == intrinsic::gpu_kernel_state) {
        return builder_->CreateLoad(ptr, gpu_kernel_globals(op).state);
    }
    if (n == intrinsic::make_struct) {
        std::vector<llvm::Value *> values;
        std::vector<llvm::Type *> types;
        for (const Expr &a : op->args) {
            llvm::Value *v = codegen(a);
            if (a.type().is_bool()) v = builder_->CreateZExt(v, builder_->getInt8Ty());
            values.push_back(v);
            types.push_back(v->getType());
        }
        llvm::StructType *t = llvm::StructType::get(context_, types);
        llvm::AllocaInst *s = entry_alloca(t, nullptr, "struct");
        for (size_t i = 0; i < values.size(); i++) builder_->CreateStore(values[i], builder_->CreateStructGEP(t, s, i));
        return s;
    }
    if (n == intrinsic::make_device_buffer) {
        if (op->args.size() != 4) throw InternalError("codegen_llvm: make_device_buffer takes 4 arguments");
        llvm::StructType *bt = buffer_struct_type(context_);
        llvm::StructType *dt = dimension_struct_type(context_);
        llvm::StructType *tt = type_struct_type(context_);
        llvm::AllocaInst *b = entry_alloca(bt, nullptr, "device_buffer");
        llvm::AllocaInst *d = entry_alloca(dt, nullptr, "device_buffer.dim");
        llvm::Value *host = codegen(op->args[0]);
        llvm::Value *code = codegen(op->args[1]), *bits = codegen(op->args[2]);
        llvm::Value *elements = codegen(op->args[3]);
        auto store = [&](llvm::Value *v, llvm::StructType *t, llvm::Value *base, unsigned field) {
            builder_->CreateStore(v, builder_->CreateStructGEP(t, base, field));
        };
        store(builder_->getInt64(0), bt, b, BufDevice);
        store(llvm::ConstantPointerNull::get(builder_->getPtrTy()), bt, b, BufDeviceInterface);
        store(host, bt, b, BufHost);
        store(builder_->getInt64(0), bt, b, BufFlags);
        llvm::Value *type = builder_->CreateStructGEP(bt, b, BufType);
        store(code, tt, type, TypeCodeField);
        store(bits, tt, type, TypeBitsField);
        store(builder_->getInt16(1), tt, type, TypeLanesField);
        store(builder_->getInt32(1), bt, b, BufDimensions);
        store(d, bt, b, BufDim);
        store(llvm::ConstantPointerNull::get(builder_->getPtrTy()), bt, b, BufPadding);
        store(builder_->getInt32(0), dt, d, DimMin);
        store(elements, dt, d, DimExtent);
        store(builder_->getInt32(1), dt, d, DimStride);
        store(builder_->getInt32(0), dt, d, DimFlags);
        return b;
    }
    if (n == intrinsic::buffer_set_dirty) {
        if (op->args.size() != 3) throw InternalError("codegen_llvm: buffer_set_dirty takes 3 arguments");
        llvm::StructType *bt = buffer_struct_type(context_);
        llvm::Value *b = codegen(op->args[0]);
        llvm::Value *host = builder_->CreateZExt(codegen(op->args[1]), builder_->getInt64Ty());
        llvm::Value *device = builder_->CreateZExt(codegen(op->args[2]), builder_->getInt64Ty());
        llvm::Value *slot = builder_->CreateStructGEP(bt, b, BufFlags);
        llvm::Value *flags = builder_->CreateLoad(builder_->getInt64Ty(), slot);
        flags = builder_->CreateAnd(flags, builder_->getInt64(~uint64_t(3)));
        flags = builder_->CreateOr(flags, host);
        flags = builder_->CreateOr(flags, builder_->CreateShl(device, 1));
        builder_->CreateStore(flags, slot);
        return builder_->getInt32(0);
    }
    return nullptr;
}

}  // namespace internal
}  // namespace loom
