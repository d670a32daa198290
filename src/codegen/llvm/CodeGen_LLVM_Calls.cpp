// Code generation of Call nodes: Loom intrinsics (buffer fields, abs, bit
// operations, shifts, error and print), math functions by their C names,
// and calls to other C functions.
//
// Shifts follow the interpreter: a negative (signed) amount shifts the other
// way; an amount of the type's width or more shifts everything out, leaving
// 0, or all sign bits for a signed right shift. LLVM's own shifts by such
// amounts are poison, so the amount is bounded first. shift_right is
// arithmetic for signed types, logical for unsigned ones.
//
// Messages (error, print) are formatted at run time by loom_msg_format
// (runtime/RuntimeInternal.h) into a 1024-byte buffer in the entry block: error concatenates its pieces; print and print_value separate
// them with spaces and end the line with "\n". Number formats are those of
// RuntimeInternal.h (the interpreter's); vectors print as [a, b, c].

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "lower/Memoize.h"
#include "ir/IRUtil.h"
#include "ir/LowerBitIntrinsics.h"
#include "loom/Error.h"
#include "lower/ExternStages.h"

namespace loom {
namespace internal {

void CodeGenLLVM::visit(const Call *op) {
    switch (op->call_type) {
    case CallType::Image:
    case CallType::Func:
        throw InternalError("codegen_llvm: call to '" + op->name + "' should have been lowered to a Load");
    case CallType::Intrinsic:
    case CallType::PureIntrinsic:
        value_ = codegen_intrinsic(op);
        return;
    case CallType::Extern:
    case CallType::PureExtern:
        value_ = codegen_math_call(op);
        if (!value_) value_ = codegen_extern_call(op);
        return;
    }
    throw InternalError("codegen_llvm: unknown call type for '" + op->name + "'");
}

// ------------------------------------------------------------------ intrinsics

llvm::Value *CodeGenLLVM::codegen_intrinsic(const Call *op) {
    const std::string &n = op->name;
    auto arity = [&](size_t count) {
        if (op->args.size() != count) {
            throw InternalError("codegen_llvm: intrinsic " + n + " takes " + std::to_string(count) + " arguments");
        }
    };
    if (llvm::Value *v = codegen_gpu_intrinsic(op)) return v;
    if (n.rfind("buffer_", 0) == 0) return codegen_buffer_intrinsic(op);
    if (n == intrinsic::extern_make_buffer || n == intrinsic::extern_buffer_min ||
        n == intrinsic::extern_buffer_extent) {
        return codegen_extern_buffer_intrinsic(op);
    }
    if (n == intrinsic::prefetch) return codegen_prefetch(op);
    if (n == memoize_lookup_intrinsic || n == memoize_store_intrinsic) return codegen_memoize(op);
    if (n == intrinsic::cleanup_on_failure) {
        throw InternalError("codegen_llvm: cleanup_on_failure that is not the first statement of a Block");
    }
    if (n == intrinsic::atomic_update) {
        throw InternalError("codegen_llvm: atomic_update outside the value of a Store");
    }
    if (n == intrinsic::likely || n == intrinsic::promise_clamped) {
        if (op->args.empty()) throw InternalError("codegen_llvm: " + n + " needs an argument");
        return codegen(op->args[0]);
    }
    if (n == intrinsic::abs) {
        arity(1);
        Type t = op->args[0].type();
        llvm::Value *x = codegen(op->args[0]);
        if (t.is_float()) return builder_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
        if (t.is_uint()) return x;
        // abs(INT_MIN) = INT_MIN's bits = 2^(bits-1) in the unsigned result.
        return builder_->CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, builder_->getFalse());
    }
    if (n == intrinsic::is_nan) {
        arity(1);
        llvm::Value *x = codegen(op->args[0]);
        return builder_->CreateFCmpUNO(x, x);
    }
    if (n == intrinsic::bitwise_and || n == intrinsic::bitwise_or || n == intrinsic::bitwise_xor) {
        arity(2);
        llvm::Value *a = codegen(op->args[0]), *b = codegen(op->args[1]);
        if (n == intrinsic::bitwise_and) return builder_->CreateAnd(a, b);
        if (n == intrinsic::bitwise_or) return builder_->CreateOr(a, b);
        return builder_->CreateXor(a, b);
    }
    if (n == intrinsic::bitwise_not) {
        arity(1);
        return builder_->CreateNot(codegen(op->args[0]));
    }
    if (n == intrinsic::shift_left || n == intrinsic::shift_right) return codegen_shift(op, n == intrinsic::shift_left);
    if (n == intrinsic::error) {
        if (op->args.empty()) throw InternalError("codegen_llvm: error intrinsic needs a code");
        llvm::Value *code = codegen(op->args[0]);
        call_loom_error(build_message(evaluate_pieces(op->args, 1), "", ""));
        return builder_->CreateSExtOrTrunc(code, llvm_type_of(op->type));
    }
    if (n == intrinsic::print) {
        llvm::Value *text = build_message(evaluate_pieces(op->args), " ", "\n");
        llvm::Type *ptr = builder_->getPtrTy();
        builder_->CreateCall(declare_function("loom_print", builder_->getVoidTy(), {ptr, ptr}),
                             {user_context(), text});
        return llvm::Constant::getNullValue(llvm_type_of(op->type));
    }
    if (n == intrinsic::print_value || n == intrinsic::print_value_when) {
        const size_t first = n == intrinsic::print_value ? 0 : 1;
        if (op->args.size() <= first) throw InternalError("codegen_llvm: " + n + " needs a value");
        llvm::Value *condition = first ? codegen(op->args[0]) : nullptr;
        llvm::Value *value = codegen(op->args[first]);
        llvm::BasicBlock *after = nullptr;
        if (condition) {
            if (condition->getType()->isVectorTy()) condition = builder_->CreateOrReduce(condition);
            llvm::BasicBlock *print_block = llvm::BasicBlock::Create(context_, "print", function_);
            after = llvm::BasicBlock::Create(context_, "printed", function_);
            builder_->CreateCondBr(condition, print_block, after);
            builder_->SetInsertPoint(print_block);
        }
        std::vector<MessagePiece> pieces = {MessagePiece{value, op->args[first].type(), false, {}}};
        for (const MessagePiece &p : evaluate_pieces(op->args, first + 1)) pieces.push_back(p);
        llvm::Value *text = build_message(pieces, " ", "\n");
        llvm::Type *ptr = builder_->getPtrTy();
        builder_->CreateCall(declare_function("loom_print", builder_->getVoidTy(), {ptr, ptr}),
                             {user_context(), text});
        if (after) {
            builder_->CreateBr(after);
            builder_->SetInsertPoint(after);
        }
        return value;
    }
    if (n == intrinsic::require) {
        // (condition, value, error call): where the condition fails in any
        // lane, report the error and return its code from the pipeline.
        if (op->args.size() != 3) throw InternalError("codegen_llvm: require takes (condition, value, error)");
        llvm::Value *condition = codegen(op->args[0]);
        if (condition->getType()->isVectorTy()) condition = builder_->CreateAndReduce(condition);
        llvm::BasicBlock *failed = llvm::BasicBlock::Create(context_, "require_failed", function_);
        llvm::BasicBlock *passed = llvm::BasicBlock::Create(context_, "require_passed", function_);
        builder_->CreateCondBr(condition, passed, failed, llvm::MDBuilder(context_).createLikelyBranchWeights());
        builder_->SetInsertPoint(failed);
        emit_return_with_frees(codegen(op->args[2]));
        builder_->SetInsertPoint(passed);
        return codegen(op->args[1]);
    }
    if (n == intrinsic::trace) return codegen_trace(op);
    if (llvm::Value *v = codegen_semaphore_intrinsic(op)) return v;
    if (llvm::Value *v = codegen_bit_intrinsic(op)) return v;
    throw InternalError("codegen_llvm: unknown intrinsic '" + n + "'");
}

// saturating_add/sub, the bit counts and fma: one LLVM intrinsic each,
// which x86 turns into paddus/psubs, lzcnt/tzcnt/popcnt (where the target
// has them) and vfmadd.
llvm::Value *CodeGenLLVM::codegen_bit_intrinsic(const Call *op) {
    if (!is_bit_intrinsic(op)) return nullptr;
    Type t = op->type;
    std::vector<llvm::Value *> args;
    for (const Expr &a : op->args) args.push_back(codegen(a));
    const bool is_signed = t.is_int();
    if (op->is_intrinsic(intrinsic::saturating_add) || op->is_intrinsic(intrinsic::saturating_sub)) {
        const bool add = op->is_intrinsic(intrinsic::saturating_add);
        llvm::Intrinsic::ID id = add ? (is_signed ? llvm::Intrinsic::sadd_sat : llvm::Intrinsic::uadd_sat)
                                     : (is_signed ? llvm::Intrinsic::ssub_sat : llvm::Intrinsic::usub_sat);
        return builder_->CreateBinaryIntrinsic(id, args[0], args[1]);
    }
    if (op->is_intrinsic(intrinsic::popcount)) return builder_->CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, args[0]);
    if (op->is_intrinsic(intrinsic::count_leading_zeros) || op->is_intrinsic(intrinsic::count_trailing_zeros)) {
        // The count of 0 is the width: "zero is poison" stays false.
        llvm::Intrinsic::ID id =
            op->is_intrinsic(intrinsic::count_leading_zeros) ? llvm::Intrinsic::ctlz : llvm::Intrinsic::cttz;
        return builder_->CreateBinaryIntrinsic(id, args[0], builder_->getFalse());
    }
    if (op->is_intrinsic(intrinsic::fma)) {
        return builder_->CreateIntrinsic(llvm::Intrinsic::fma, {args[0]->getType()}, args);
    }
    throw InternalError("codegen_llvm: unhandled bit intrinsic '" + op->name + "'");
}

llvm::Value *CodeGenLLVM::codegen_buffer_intrinsic(const Call *op) {
    const std::string &n = op->name;
    if (op->args.empty()) throw InternalError("codegen_llvm: " + n + " needs a buffer");
    llvm::Value *buffer = codegen(op->args[0]);
    auto dimension = [&](DimensionField field) {
        if (op->args.size() != 2) throw InternalError("codegen_llvm: " + n + " takes a buffer and a dimension");
        return dimension_field(buffer, codegen(op->args[1]), field);
    };
    llvm::Value *null = llvm::ConstantPointerNull::get(builder_->getPtrTy());
    if (n == intrinsic::buffer_get_host) return buffer_field(buffer, BufHost);
    if (n == intrinsic::buffer_get_min) return dimension(DimMin);
    if (n == intrinsic::buffer_get_extent) return dimension(DimExtent);
    if (n == intrinsic::buffer_get_stride) return dimension(DimStride);
    if (n == intrinsic::buffer_get_dimensions) return buffer_field(buffer, BufDimensions);
    if (n == intrinsic::buffer_is_null) return builder_->CreateIsNull(buffer);
    if (n == intrinsic::buffer_host_is_null) return builder_->CreateICmpEQ(buffer_field(buffer, BufHost), null);
    if (n == intrinsic::buffer_set_bounds) {
        if (op->args.size() != 4) throw InternalError("codegen_llvm: buffer_set_bounds takes 4 arguments");
        llvm::Type *i32 = builder_->getInt32Ty();
        llvm::Function *fn = declare_function("loom_buffer_set_bounds", i32, {builder_->getPtrTy(), i32, i32, i32});
        return builder_->CreateCall(fn, {buffer, codegen(op->args[1]), codegen(op->args[2]), codegen(op->args[3])});
    }
    if (n == intrinsic::buffer_get_type_code || n == intrinsic::buffer_get_type_bits) {
        llvm::StructType *bt = buffer_struct_type(context_);
        const unsigned field = n == intrinsic::buffer_get_type_code ? TypeCodeField : TypeBitsField;
        llvm::Value *p = builder_->CreateInBoundsGEP(
            bt, buffer, {builder_->getInt32(0), builder_->getInt32(BufType), builder_->getInt32(field)});
        llvm::LoadInst *load = builder_->CreateLoad(builder_->getInt8Ty(), p);
        load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(context_, {}));
        return load;
    }
    throw InternalError("codegen_llvm: unknown buffer intrinsic '" + n + "'");
}

llvm::Value *CodeGenLLVM::codegen_shift(const Call *op, bool left) {
    if (op->args.size() != 2) throw InternalError("codegen_llvm: " + op->name + " takes two arguments");
    Type ta = op->args[0].type(), tb = op->args[1].type();
    if (!ta.is_int_or_uint() || !tb.is_int_or_uint()) throw InternalError("codegen_llvm: shift of a non-integer");
    llvm::Value *a = codegen(op->args[0]);
    llvm::Value *b = codegen(op->args[1]);
    if (tb.is_scalar() && ta.is_vector()) b = splat(b, ta.lanes());
    llvm::Type *aty = a->getType();
    const int bits = ta.bits();

    // A negative amount shifts the other way by its magnitude (read as
    // unsigned, so that |INT_MIN| is large rather than negative).
    llvm::Value *reverse = nullptr;
    if (tb.is_int()) {
        reverse = builder_->CreateICmpSLT(b, llvm::Constant::getNullValue(b->getType()));
        b = builder_->CreateSelect(reverse, builder_->CreateNeg(b), b);
    }
    llvm::Value *amount = builder_->CreateZExt(b, llvm_type_of(UInt(64, ta.lanes())));
    llvm::Value *too_far = builder_->CreateICmpUGE(amount, llvm::ConstantInt::get(amount->getType(), bits));
    llvm::Value *safe = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::umin, amount,
                                                        llvm::ConstantInt::get(amount->getType(), bits - 1));
    safe = builder_->CreateTrunc(safe, aty);
    llvm::Value *zero = llvm::Constant::getNullValue(aty);
    llvm::Value *shl = builder_->CreateSelect(too_far, zero, builder_->CreateShl(a, safe));
    // Shifting a signed value right by bits - 1 already leaves only sign bits.
    llvm::Value *shr = ta.is_int() ? builder_->CreateAShr(a, safe)
                                   : builder_->CreateSelect(too_far, zero, builder_->CreateLShr(a, safe));
    if (!reverse) return left ? shl : shr;
    return builder_->CreateSelect(reverse, left ? shr : shl, left ? shl : shr);
}

// ------------------------------------------------------------------ math and C calls

namespace {

struct MathIntrinsic {
    const char *f32, *f64;
    llvm::Intrinsic::ID id;
    int arity;
};

// C math functions that have an LLVM intrinsic: those work on vectors too
// (LLVM scalarises them into libm calls where no instruction exists).
// nearbyint/rint use roundeven: the same in the default rounding mode, which
// is the only one generated code runs in. roundf keeps C's half-away-from-zero.
const MathIntrinsic math_intrinsics[] = {
    {"sqrtf", "sqrt", llvm::Intrinsic::sqrt, 1},      {"floorf", "floor", llvm::Intrinsic::floor, 1},
    {"ceilf", "ceil", llvm::Intrinsic::ceil, 1},      {"truncf", "trunc", llvm::Intrinsic::trunc, 1},
    {"fabsf", "fabs", llvm::Intrinsic::fabs, 1},      {"expf", "exp", llvm::Intrinsic::exp, 1},
    {"logf", "log", llvm::Intrinsic::log, 1},         {"powf", "pow", llvm::Intrinsic::pow, 2},
    {"sinf", "sin", llvm::Intrinsic::sin, 1},         {"cosf", "cos", llvm::Intrinsic::cos, 1},
    {"roundf", "round", llvm::Intrinsic::round, 1},   {"nearbyintf", "nearbyint", llvm::Intrinsic::roundeven, 1},
    {"rintf", "rint", llvm::Intrinsic::roundeven, 1}, {"roundevenf", "roundeven", llvm::Intrinsic::roundeven, 1},
    {"fminf", "fmin", llvm::Intrinsic::minnum, 2},    {"fmaxf", "fmax", llvm::Intrinsic::maxnum, 2},
    {"copysignf", "copysign", llvm::Intrinsic::copysign, 2},
};

}  // namespace

// A Float(16) math call (the front end never makes one: it computes math
// on halves in Float(32) itself) is the Float(32) call of the same name on
// extended arguments, truncated back to half, as in the interpreter.
llvm::Value *CodeGenLLVM::codegen_math_call(const Call *op) {
    if (!op->type.is_float()) return nullptr;
    if (op->type.bits() == 16) {
        std::vector<Expr> wide_args;
        for (const Expr &a : op->args) {
            const bool half = a.type().is_float() && a.type().bits() == 16;
            wide_args.push_back(half ? Cast::make(a.type().with_bits(32), a) : a);
        }
        Expr wide = Call::make(op->type.with_bits(32), op->name, wide_args, op->call_type);
        return builder_->CreateFPTrunc(codegen(wide), llvm_type_of(op->type));
    }
    for (const MathIntrinsic &m : math_intrinsics) {
        if (op->name != m.f32 && op->name != m.f64) continue;
        if ((int)op->args.size() != m.arity) return nullptr;
        for (const Expr &a : op->args) {
            if (a.type() != op->type) return nullptr;
        }
        if (m.arity == 1) return builder_->CreateUnaryIntrinsic(m.id, codegen(op->args[0]));
        llvm::Value *a = codegen(op->args[0]), *b = codegen(op->args[1]);
        return builder_->CreateBinaryIntrinsic(m.id, a, b);
    }
    return nullptr;
}

namespace {
/** reinterpret<Handle>(0): how lowering writes a NULL pointer. */
bool is_null_handle(const Expr &e) {
    if (!e.type().is_handle() || !e.type().is_scalar()) return false;
    const Reinterpret *r = e.as<Reinterpret>();
    return r && is_const_zero(r->value);
}

// A C function's bool, 8- and 16-bit integer arguments and result are
// extended to 32 bits as a C compiler extends them (the caller extends the
// arguments on 32-bit ARM, x86 and x86-64 alike, the callee the result): an
// argument with garbage in its upper bits would reach a C function that
// relies on them (an extern stage's uint8_t Param, say).
void add_c_extension_attributes(llvm::Function *fn, const Call *op) {
    auto extension = [](Type t) {
        if (t.is_bool() || (t.is_uint() && t.bits() < 32)) return llvm::Attribute::ZExt;
        if (t.is_int() && t.bits() < 32) return llvm::Attribute::SExt;
        return llvm::Attribute::None;
    };
    for (size_t i = 0; i < op->args.size(); i++) {
        const llvm::Attribute::AttrKind kind = extension(op->args[i].type().element_of());
        if (kind != llvm::Attribute::None) fn->addParamAttr((unsigned)i, kind);
    }
    const llvm::Attribute::AttrKind result = extension(op->type.element_of());
    if (result != llvm::Attribute::None) fn->addRetAttr(result);
}

}  // namespace

// A C function of scalars; vector arguments call it once per lane, in order.
llvm::Value *CodeGenLLVM::codegen_extern_call(const Call *op) {
    std::vector<llvm::Value *> args;
    std::vector<llvm::Type *> arg_types;
    for (const Expr &a : op->args) {
        args.push_back(codegen(a));
        arg_types.push_back(llvm_type_of(a.type().element_of()));
    }
    // Lowering has no user_context and passes NULL to the runtime's device
    // calls (LowerGPULaunches.cpp); the function's own goes instead, so that
    // a JIT run's handlers see their errors too.
    if (op->name.rfind("loom_", 0) == 0 && !op->args.empty() && is_null_handle(op->args[0])) {
        args[0] = user_context();
    }
    llvm::Function *fn = declare_function(op->name, llvm_type_of(op->type.element_of()), arg_types);
    add_c_extension_attributes(fn, op);
    if (op->call_type == CallType::PureExtern) {
        fn->setDoesNotAccessMemory();
        fn->setDoesNotThrow();
    }
    if (op->type.is_scalar()) {
        for (size_t i = 0; i < args.size(); i++) {
            if (op->args[i].type().is_vector()) throw InternalError("codegen_llvm: scalar call " + op->name + " of a vector");
        }
        return builder_->CreateCall(fn, args);
    }
    llvm::Value *result = llvm::PoisonValue::get(llvm_type_of(op->type));
    for (int lane = 0; lane < op->type.lanes(); lane++) {
        std::vector<llvm::Value *> lane_args;
        for (size_t i = 0; i < args.size(); i++) {
            lane_args.push_back(op->args[i].type().is_vector() ? builder_->CreateExtractElement(args[i], uint64_t(lane))
                                                               : args[i]);
        }
        result = builder_->CreateInsertElement(result, builder_->CreateCall(fn, lane_args), uint64_t(lane));
    }
    return result;
}

// ------------------------------------------------------------------ messages

std::vector<CodeGenLLVM::MessagePiece> CodeGenLLVM::evaluate_pieces(const std::vector<Expr> &pieces, size_t first) {
    std::vector<MessagePiece> result;
    for (size_t i = first; i < pieces.size(); i++) {
        if (const StringImm *s = pieces[i].as<StringImm>()) {
            result.push_back(string_piece(s->value));
        } else {
            result.push_back(MessagePiece{codegen(pieces[i]), pieces[i].type(), false, {}});
        }
    }
    return result;
}

CodeGenLLVM::MessagePiece CodeGenLLVM::string_piece(const std::string &s) {
    return MessagePiece{nullptr, Handle(), true, s};
}

llvm::Value *CodeGenLLVM::message_buffer() {
    if (!message_buffer_) {
        llvm::AllocaInst *a = entry_alloca(llvm::ArrayType::get(builder_->getInt8Ty(), kMessageCapacity), nullptr,
                                           "message");
        message_buffer_ = a;
    }
    return message_buffer_;
}

namespace {

// Literal text in a loom_msg_format format: the marker byte is doubled.
void append_literal(std::string &format, const std::string &text) {
    for (char c : text) {
        format += c;
        if (c == kMessageValueMarker) format += c;
    }
}

}  // namespace

void CodeGenLLVM::add_message_value(std::string &format, std::vector<llvm::Value *> &values, llvm::Value *value,
                                    Type t) {
    if (t.is_vector()) {
        format += '[';
        for (int lane = 0; lane < t.lanes(); lane++) {
            if (lane > 0) format += ", ";
            add_message_value(format, values, builder_->CreateExtractElement(value, uint64_t(lane)), t.element_of());
        }
        format += ']';
        return;
    }
    llvm::Type *i64 = builder_->getInt64Ty();
    format += kMessageValueMarker;
    if (t.is_float()) {
        format += 'f';
        values.push_back(builder_->CreateBitCast(builder_->CreateFPExt(value, builder_->getDoubleTy()), i64));
    } else if (t.is_int()) {
        format += 'i';
        values.push_back(builder_->CreateSExt(value, i64));
    } else if (t.is_uint()) {
        format += 'u';
        values.push_back(builder_->CreateZExt(value, i64));
    } else {
        format += 'p';
        values.push_back(builder_->CreatePtrToInt(value, i64));
    }
}

// One call per message, however many pieces it has: the values go into a
// stack array and the text with a marker per value into one constant (see
// loom_msg_format in RuntimeInternal.h). A call per piece made messages a
// third of the IR of a pipeline's bounds checks, and calls are what
// instruction selection spends most on.
llvm::Value *CodeGenLLVM::build_message(const std::vector<MessagePiece> &pieces, const char *separator,
                                        const char *suffix) {
    std::string format;
    std::vector<llvm::Value *> values;
    for (size_t i = 0; i < pieces.size(); i++) {
        if (i > 0) append_literal(format, separator);
        if (pieces[i].is_string) {
            append_literal(format, pieces[i].text);
        } else {
            add_message_value(format, values, pieces[i].value, pieces[i].type);
        }
    }
    append_literal(format, suffix);

    llvm::Type *ptr = builder_->getPtrTy(), *i64 = builder_->getInt64Ty();
    llvm::Value *array = llvm::ConstantPointerNull::get(builder_->getPtrTy());
    if (!values.empty()) {
        llvm::Type *array_type = llvm::ArrayType::get(i64, values.size());
        array = entry_alloca(array_type, nullptr, "message.values");
        for (size_t i = 0; i < values.size(); i++) {
            builder_->CreateStore(values[i], builder_->CreateConstInBoundsGEP2_64(array_type, array, 0, i));
        }
    }
    llvm::Value *buffer = message_buffer();
    builder_->CreateCall(declare_function("loom_msg_format", builder_->getVoidTy(), {ptr, i64, ptr, ptr}),
                         {buffer, builder_->getInt64(kMessageCapacity), string_constant(format), array});
    return buffer;
}

void CodeGenLLVM::call_loom_error(llvm::Value *message) {
    llvm::Type *ptr = builder_->getPtrTy();
    builder_->CreateCall(declare_function("loom_error", builder_->getVoidTy(), {ptr, ptr}),
                         {user_context(), message});
}

}  // namespace internal
}  // namespace loom
