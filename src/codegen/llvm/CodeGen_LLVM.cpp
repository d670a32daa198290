// The LLVM back end's entry points and the parts of CodeGenLLVM every node
// family uses: the pipeline function and its argv wrapper, the runtime
// struct types, type mapping, symbols and early returns. The node visitors
// live in CodeGen_LLVM_{Arith,Memory,Calls,Stmt}.cpp.

#include "codegen/llvm/CodeGen_LLVM.h"

#include <cstddef>

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/llvm/BufferLayout.h"
#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "codegen/llvm/JITModule.h"
#include "codegen/llvm/LLVMTarget.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimeInternal.h"

namespace loom {
namespace internal {

// The struct types below list loom_buffer_t's fields in order; these pin the
// C layout they must reproduce (the tests also compare LLVM's layout).
static_assert(offsetof(loom_buffer_t, device) == 0);
static_assert(offsetof(loom_buffer_t, device_interface) == 8);
static_assert(offsetof(loom_buffer_t, host) == 16);
static_assert(offsetof(loom_buffer_t, flags) == 24);
static_assert(offsetof(loom_buffer_t, type) == 32);
static_assert(offsetof(loom_buffer_t, dimensions) == 36);
static_assert(offsetof(loom_buffer_t, dim) == 40);
static_assert(offsetof(loom_buffer_t, padding) == 48);
static_assert(sizeof(loom_buffer_t) == 56);
static_assert(offsetof(loom_dimension_t, min) == 0 && offsetof(loom_dimension_t, extent) == 4);
static_assert(offsetof(loom_dimension_t, stride) == 8 && offsetof(loom_dimension_t, flags) == 12);
static_assert(sizeof(loom_dimension_t) == 16 && sizeof(loom_type_t) == 4);

// ------------------------------------------------------------------ struct types

llvm::StructType *CodeGenLLVM::type_struct_type(llvm::LLVMContext &c) {
    if (auto *t = llvm::StructType::getTypeByName(c, "loom_type_t")) return t;
    return llvm::StructType::create(c, {llvm::Type::getInt8Ty(c), llvm::Type::getInt8Ty(c), llvm::Type::getInt16Ty(c)},
                                    "loom_type_t");
}

llvm::StructType *CodeGenLLVM::dimension_struct_type(llvm::LLVMContext &c) {
    if (auto *t = llvm::StructType::getTypeByName(c, "loom_dimension_t")) return t;
    llvm::Type *i32 = llvm::Type::getInt32Ty(c);
    return llvm::StructType::create(c, {i32, i32, i32, i32}, "loom_dimension_t");
}

llvm::StructType *CodeGenLLVM::buffer_struct_type(llvm::LLVMContext &c) {
    if (auto *t = llvm::StructType::getTypeByName(c, "loom_buffer_t")) return t;
    llvm::Type *i64 = llvm::Type::getInt64Ty(c);
    llvm::Type *ptr = llvm::PointerType::get(c, 0);
    llvm::Type *i32 = llvm::Type::getInt32Ty(c);
    // device, device_interface, host, flags, type, dimensions, dim, padding
    return llvm::StructType::create(c, {i64, ptr, ptr, i64, type_struct_type(c), i32, ptr, ptr}, "loom_buffer_t");
}

RuntimeStructLayout llvm_runtime_struct_layout(const Target &target) {
    llvm::LLVMContext context;
    const llvm::DataLayout layout = make_target_machine(target)->createDataLayout();
    auto offsets = [&](llvm::StructType *t, std::vector<uint64_t> &out, uint64_t &size) {
        const llvm::StructLayout *sl = layout.getStructLayout(t);
        for (unsigned i = 0; i < t->getNumElements(); i++) out.push_back(sl->getElementOffset(i));
        size = sl->getSizeInBytes();
    };
    RuntimeStructLayout result;
    offsets(CodeGenLLVM::buffer_struct_type(context), result.buffer_offsets, result.buffer_size);
    offsets(CodeGenLLVM::dimension_struct_type(context), result.dimension_offsets, result.dimension_size);
    offsets(CodeGenLLVM::type_struct_type(context), result.type_offsets, result.type_size);
    return result;
}

// ------------------------------------------------------------------ entry points

std::unique_ptr<llvm::Module> codegen_llvm(const LoweredFunc &f, const Target &target, llvm::LLVMContext &context,
                                           bool user_context_argument) {
    CodeGenLLVM codegen(target, context);
    codegen.set_user_context_argument(user_context_argument);
    return codegen.compile(f);
}

namespace {

// Runtime functions that generated code calls beyond the public ABI (which
// JITModule resolves itself).
JITModule::SymbolMap runtime_helper_symbols() {
    return {
        {"loom_msg_begin", reinterpret_cast<void *>(&loom_msg_begin)},
        {"loom_msg_append_str", reinterpret_cast<void *>(&loom_msg_append_str)},
        {"loom_msg_append_int", reinterpret_cast<void *>(&loom_msg_append_int)},
        {"loom_msg_append_uint", reinterpret_cast<void *>(&loom_msg_append_uint)},
        {"loom_msg_append_float", reinterpret_cast<void *>(&loom_msg_append_float)},
        {"loom_msg_append_ptr", reinterpret_cast<void *>(&loom_msg_append_ptr)},
        {"loom_msg_format", reinterpret_cast<void *>(&loom_msg_format)},
        {"loom_buffer_set_bounds", reinterpret_cast<void *>(&loom_buffer_set_bounds)},
        {"loom_do_par_for", reinterpret_cast<void *>(&loom_do_par_for)},
    };
}

}  // namespace

JITPipeline compile_jit(const LoweredFunc &f, const Target &target) {
    // Nobody reads the JIT's IR as text: its values need no names.
    std::unique_ptr<llvm::LLVMContext> context = make_unnamed_llvm_context();
    std::unique_ptr<llvm::Module> module = codegen_llvm(f, target, *context, /*user_context_argument=*/true);
    // Each kernel's state slot is found by name after compiling, to release
    // its Vulkan module with the pipeline.
    for (const GPUKernel &k : f.kernels) {
        llvm::GlobalVariable *state = module->getGlobalVariable(k.name + ".state", /*AllowInternal=*/true);
        if (!state) throw InternalError("compile_jit: no state slot for GPU kernel " + k.name);
        state->setLinkage(llvm::GlobalValue::ExternalLinkage);
    }
    JITPipeline pipeline;
    pipeline.module = JITModule::compile(std::move(module), std::move(context), target, runtime_helper_symbols());
    pipeline.argv = reinterpret_cast<int (*)(void **)>(pipeline.module->lookup(f.name + "_argv"));
    pipeline.argv_with_context =
        reinterpret_cast<int (*)(void *, void **)>(pipeline.module->lookup(f.name + "_argv_with_context"));
    if (!f.kernels.empty()) {
        pipeline.kernels = std::make_shared<JITKernelStates>();
        for (const GPUKernel &k : f.kernels) {
            pipeline.kernels->states.push_back(static_cast<void **>(pipeline.module->lookup(k.name + ".state")));
        }
    }
    return pipeline;
}

JITKernelStates::~JITKernelStates() {
    for (void **state : states) {
        if (*state) loom_vulkan_finalize_kernels(nullptr, *state);
    }
}

// ------------------------------------------------------------------ the function

CodeGenLLVM::CodeGenLLVM(const Target &target, llvm::LLVMContext &context)
    : target_(target),
      large_buffers_(target.has_feature(Target::LargeBuffers)),
      index64_(!large_buffers_ && target.bits == 64),
      context_(context),
      builder_(std::make_unique<llvm::IRBuilder<>>(context)) {}

namespace {

// Scalars are passed like a C compiler passes them: narrow integers and bool
// are extended by the caller, so say which way.
void add_scalar_abi_attributes(llvm::Function *fn, unsigned i, Type t) {
    if (!t.is_int_or_uint() || t.bits() >= 32) return;
    fn->addParamAttr(i, t.is_int() ? llvm::Attribute::SExt : llvm::Attribute::ZExt);
}

}  // namespace

std::unique_ptr<llvm::Module> CodeGenLLVM::compile(const LoweredFunc &f) {
    if (f.name.empty()) throw InternalError("codegen_llvm: the LoweredFunc has no name");
    module_ = std::make_unique<llvm::Module>(f.name, context_);
    coordinate_lets_ = f.coordinate_lets;
    {
        // Struct offsets and alloca alignments follow the target's layout.
        std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(target_);
        module_->setTargetTriple(tm->getTargetTriple().str());
        module_->setDataLayout(tm->createDataLayout());
    }

    llvm::Type *i32 = builder_->getInt32Ty();
    llvm::Type *ptr = builder_->getPtrTy();
    std::vector<llvm::Type *> params;
    const unsigned first_arg = user_context_argument_ ? 1 : 0;
    if (user_context_argument_) params.push_back(ptr);
    for (const LoweredArgument &arg : f.args) {
        params.push_back(arg.is_buffer() ? ptr : scalar_argument_type(arg.type));
    }
    function_ = llvm::Function::Create(llvm::FunctionType::get(i32, params, false), llvm::Function::ExternalLinkage,
                                       f.name, module_.get());
    user_context_ = nullptr;
    if (user_context_argument_) {
        user_context_ = function_->getArg(0);
        user_context_->setName("user_context");
    }
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &arg = f.args[i];
        const unsigned index = first_arg + i;
        llvm::Argument *a = function_->getArg(index);
        if (arg.is_buffer()) {
            // The descriptor pointer never escapes. It is not readonly: a
            // bounds query writes the region it needs into an input's dims.
            // Host memory may alias between buffers, so no noalias anywhere.
            a->setName(arg.name + ".buffer");
            function_->addParamAttr(index, llvm::Attribute::NoCapture);
        } else {
            a->setName(arg.name);
            add_scalar_abi_attributes(function_, index, arg.type);
        }
    }

    entry_block_ = llvm::BasicBlock::Create(context_, "entry", function_);
    builder_->SetInsertPoint(entry_block_);
    embed_gpu_kernels(f.kernels);
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &arg = f.args[i];
        llvm::Value *value = function_->getArg(first_arg + i);
        if (!arg.is_buffer() && value->getType() != llvm_type_of(arg.type)) {
            value = builder_->CreateBitCast(value, llvm_type_of(arg.type), arg.name + ".value");  // Float(16) bits
        }
        symbols_.push(arg.is_buffer() ? arg.name + ".buffer" : arg.name, value);
    }
    codegen(f.body);
    if (!builder_->GetInsertBlock()->getTerminator()) builder_->CreateRet(builder_->getInt32(0));
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &arg = f.args[i];
        symbols_.pop(arg.is_buffer() ? arg.name + ".buffer" : arg.name);
    }

    // NAME_argv(void **args): the calling convention of LoweredFunc.h; with
    // a user_context argument also NAME_argv_with_context(void
    // *user_context, void **args), and NAME_argv passes NULL.
    emit_argv_wrapper(f, f.name + "_argv", /*with_context=*/false);
    if (user_context_argument_) {
        // One copy of the body behind both wrappers, whatever its size.
        function_->addFnAttr(llvm::Attribute::NoInline);
        emit_argv_wrapper(f, f.name + "_argv_with_context", /*with_context=*/true);
    }
    set_vector_width_preference();

    std::string problems;
    llvm::raw_string_ostream os(problems);
    if (llvm::verifyModule(*module_, &os)) {
        os.flush();
        throw InternalError("codegen_llvm produced an invalid module for '" + f.name + "': " + problems);
    }
    return std::move(module_);
}

void CodeGenLLVM::emit_argv_wrapper(const LoweredFunc &f, const std::string &name, bool with_context) {
    llvm::Type *i32 = builder_->getInt32Ty();
    llvm::Type *ptr = builder_->getPtrTy();
    std::vector<llvm::Type *> params;
    if (with_context) params.push_back(ptr);
    params.push_back(ptr);
    llvm::Function *fn = llvm::Function::Create(llvm::FunctionType::get(i32, params, false),
                                                llvm::Function::ExternalLinkage, name, module_.get());
    // args[i] is a pointer-sized slot: 4 bytes on 32-bit targets.
    const llvm::DataLayout &layout = module_->getDataLayout();
    llvm::Argument *args = fn->getArg(with_context ? 1 : 0);
    args->setName("args");
    builder_->SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", fn));
    std::vector<llvm::Value *> call_args;
    if (with_context) {
        fn->getArg(0)->setName("user_context");
        call_args.push_back(fn->getArg(0));
    } else if (user_context_argument_) {
        call_args.push_back(llvm::ConstantPointerNull::get(builder_->getPtrTy()));
    }
    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument &arg = f.args[i];
        llvm::Value *slot = builder_->CreateConstInBoundsGEP1_64(ptr, args, i);
        llvm::Value *p = builder_->CreateAlignedLoad(ptr, slot, layout.getPointerABIAlignment(0), arg.name + ".arg");
        if (arg.is_buffer()) {
            call_args.push_back(p);
            continue;
        }
        llvm::Type *mem = arg.type.is_bool() ? llvm_memory_type_of(arg.type) : scalar_argument_type(arg.type);
        // The C type's alignment, which is less than its size for int64_t and
        // double on i386.
        llvm::Value *v = builder_->CreateAlignedLoad(mem, p, layout.getABITypeAlign(mem), arg.name);
        if (arg.type.is_bool()) v = builder_->CreateICmpNE(v, llvm::ConstantInt::get(mem, 0));
        call_args.push_back(v);
    }
    llvm::CallInst *call = builder_->CreateCall(function_, call_args);
    call->setAttributes(function_->getAttributes());
    builder_->CreateRet(call);
}

// ------------------------------------------------------------------ helpers

llvm::Value *CodeGenLLVM::user_context() {
    if (user_context_) return user_context_;
    return llvm::ConstantPointerNull::get(builder_->getPtrTy());
}

// LLVM prefers 256-bit vectors on AVX-512 CPUs (Skylake-X and later, to
// avoid their frequency drop) and then splits Loom's 512-bit vector
// operations in two. Loom's schedules choose the vector width, so every
// function asks for the target's natural width, as Halide's do.
void CodeGenLLVM::set_vector_width_preference() {
    if (target_.arch != Target::X86 || target_.vector_bits() < 256) return;
    const std::string bits = std::to_string(target_.vector_bits());
    for (llvm::Function &fn : *module_) {
        if (fn.isDeclaration()) continue;
        fn.addFnAttr("prefer-vector-width", bits);
        fn.addFnAttr("min-legal-vector-width", bits);
    }
}

llvm::Value *CodeGenLLVM::codegen(const Expr &e) {
    if (!e.defined()) throw InternalError("codegen_llvm: undefined Expr");
    value_ = nullptr;
    e.accept(this);
    if (!value_) throw InternalError("codegen_llvm: no value for an Expr node");
    llvm::Value *v = value_;
    value_ = nullptr;
    return v;
}

void CodeGenLLVM::codegen(const Stmt &s) {
    if (s.defined()) s.accept(this);
}

llvm::Type *CodeGenLLVM::llvm_type_of(Type t) const {
    llvm::Type *element = nullptr;
    switch (t.code()) {
    case TypeCode::Int:
    case TypeCode::UInt:
    // BFloat(16) is emulated with its UInt(16) bits before code generation
    // (lower/EmulateBFloat16.h); scalar arguments of that type pass the bits.
    case TypeCode::BFloat:
        element = llvm::Type::getIntNTy(context_, t.bits());
        break;
    case TypeCode::Float:
        if (t.bits() == 16) element = llvm::Type::getHalfTy(context_);
        if (t.bits() == 32) element = llvm::Type::getFloatTy(context_);
        if (t.bits() == 64) element = llvm::Type::getDoubleTy(context_);
        break;
    case TypeCode::Handle:
        element = llvm::PointerType::get(context_, 0);
        break;
    }
    if (!element || t.lanes() < 1) throw InternalError("codegen_llvm: no LLVM type for " + t.to_string());
    if (t.is_scalar()) return element;
    return llvm::FixedVectorType::get(element, t.lanes());
}

llvm::Type *CodeGenLLVM::scalar_argument_type(Type t) const {
    // A 16-bit float argument passes its bits as an integer, so that C
    // callers declare it as a 16-bit struct or uint16_t (docs/AOT.md): the
    // calling conventions pass LLVM's half in floating-point registers.
    if (t.is_float() && t.bits() == 16) return llvm::Type::getInt16Ty(context_);
    return llvm_type_of(t);
}

llvm::Type *CodeGenLLVM::llvm_memory_type_of(Type t) const {
    if (t.is_bool()) return llvm::Type::getInt8Ty(context_);
    return llvm_type_of(t.element_of());
}

llvm::Value *CodeGenLLVM::lookup_symbol(const std::string &name) const {
    llvm::Value *const *v = symbols_.find(name);
    if (!v) throw InternalError("codegen_llvm: symbol '" + name + "' is not in scope");
    return *v;
}

llvm::Value *CodeGenLLVM::string_constant(const std::string &s) {
    llvm::Value *&global = strings_[s];
    if (!global) global = builder_->CreateGlobalString(s, "str", 0, module_.get());
    return global;
}

llvm::Function *CodeGenLLVM::declare_function(const std::string &name, llvm::Type *ret,
                                              const std::vector<llvm::Type *> &args) {
    llvm::FunctionType *type = llvm::FunctionType::get(ret, args, false);
    if (llvm::Function *existing = module_->getFunction(name)) {
        if (existing->getFunctionType() != type) {
            throw InternalError("codegen_llvm: function '" + name + "' is called with two different signatures");
        }
        return existing;
    }
    return llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module_.get());
}

llvm::AllocaInst *CodeGenLLVM::entry_alloca(llvm::Type *t, llvm::Value *count, const std::string &name) {
    llvm::IRBuilder<> entry(entry_block_, entry_block_->begin());
    return entry.CreateAlloca(t, count, name);
}

llvm::Value *CodeGenLLVM::splat(llvm::Value *scalar, int lanes) {
    if (lanes == 1 || scalar->getType()->isVectorTy()) return scalar;
    return builder_->CreateVectorSplat(lanes, scalar);
}

llvm::Value *CodeGenLLVM::index_to_i64(llvm::Value *index, Type index_type) {
    llvm::Type *target = llvm_type_of(Int(64, index_type.lanes()));
    if (index_type.is_uint()) return builder_->CreateZExtOrTrunc(index, target);
    return builder_->CreateSExtOrTrunc(index, target);
}

void CodeGenLLVM::emit_free_live_allocation(size_t i) {
    const LiveAllocation &a = live_allocations_[i];
    if (a.cleanup.defined()) {
        codegen(a.cleanup);
        return;
    }
    if (!a.slot) return;  // on the stack
    llvm::Type *ptr = builder_->getPtrTy();
    llvm::Value *p = builder_->CreateLoad(ptr, a.slot, a.name + ".to_free");
    // Frees only what is still allocated: after a Free, or when a conditional
    // Allocate skipped, the slot holds null and LLVM folds this away.
    llvm::BasicBlock *do_free = llvm::BasicBlock::Create(context_, a.name + ".free", function_);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, a.name + ".freed", function_);
    builder_->CreateCondBr(builder_->CreateIsNull(p), after, do_free);
    builder_->SetInsertPoint(do_free);
    llvm::Function *loom_free = declare_function("loom_free", builder_->getVoidTy(), {ptr, ptr});
    builder_->CreateCall(loom_free, {user_context(), p});
    builder_->CreateBr(after);
    builder_->SetInsertPoint(after);
}

void CodeGenLLVM::emit_return_with_frees(llvm::Value *code) {
    for (size_t i = live_allocations_.size(); i-- > 0;) emit_free_live_allocation(i);
    builder_->CreateRet(builder_->CreateSExtOrTrunc(code, builder_->getInt32Ty()));
}

}  // namespace internal
}  // namespace loom
