// SPIR-V for Call nodes: the GPU intrinsics (block and thread ids, the
// barrier), Loom's pure intrinsics with the CPU back end's meaning
// (codegen/llvm/CodeGen_LLVM_Calls.cpp), and the C math functions through
// GLSL.std.450.
//
// Where GLSL.std.450 differs from C, the C meaning is built instead:
// roundf rounds half away from zero (GLSL's Round leaves the direction of
// halves to the implementation), nearbyint/rint/roundeven are RoundEven,
// fmin/fmax are NMin/NMax (a NaN operand yields the other), copysign moves
// the sign bit. GLSL's transcendental functions (sin, exp, pow...) exist
// for 16- and 32-bit floats only, so their double forms are a CompileError.
// A Float(16) math call runs in Float(32) and rounds back, as on the CPU.

#include <spirv/unified1/GLSL.std.450.h>

#include "codegen/spirv/CodeGen_SPIRV_Internal.h"
#include "ir/LowerBitIntrinsics.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"
#include "lower/ExternStages.h"

namespace loom {
namespace internal {
namespace spirv {

namespace {

struct MathFunction {
    const char *f32, *f64;
    int glsl;  // GLSLstd450 instruction, or -1 for those built here
    int arity;
    bool has_f64;  // GLSL.std.450 accepts 64-bit operands
};

constexpr int kRound = -1, kCopysign = -2, kAsin = -3, kAcos = -4;

const MathFunction math_functions[] = {
    {"sqrtf", "sqrt", GLSLstd450Sqrt, 1, true},
    {"floorf", "floor", GLSLstd450Floor, 1, true},
    {"ceilf", "ceil", GLSLstd450Ceil, 1, true},
    {"truncf", "trunc", GLSLstd450Trunc, 1, true},
    {"fabsf", "fabs", GLSLstd450FAbs, 1, true},
    {"nearbyintf", "nearbyint", GLSLstd450RoundEven, 1, true},
    {"rintf", "rint", GLSLstd450RoundEven, 1, true},
    {"roundevenf", "roundeven", GLSLstd450RoundEven, 1, true},
    {"roundf", "round", kRound, 1, true},
    {"fminf", "fmin", GLSLstd450NMin, 2, true},
    {"fmaxf", "fmax", GLSLstd450NMax, 2, true},
    {"copysignf", "copysign", kCopysign, 2, true},
    {"expf", "exp", GLSLstd450Exp, 1, false},
    {"exp2f", "exp2", GLSLstd450Exp2, 1, false},
    {"logf", "log", GLSLstd450Log, 1, false},
    {"log2f", "log2", GLSLstd450Log2, 1, false},
    {"powf", "pow", GLSLstd450Pow, 2, false},
    {"sinf", "sin", GLSLstd450Sin, 1, false},
    {"cosf", "cos", GLSLstd450Cos, 1, false},
    {"tanf", "tan", GLSLstd450Tan, 1, false},
    {"asinf", "asin", kAsin, 1, false},
    {"acosf", "acos", kAcos, 1, false},
    {"atanf", "atan", GLSLstd450Atan, 1, false},
    {"atan2f", "atan2", GLSLstd450Atan2, 2, false},
    {"sinhf", "sinh", GLSLstd450Sinh, 1, false},
    {"coshf", "cosh", GLSLstd450Cosh, 1, false},
    {"tanhf", "tanh", GLSLstd450Tanh, 1, false},
    {"asinhf", "asinh", GLSLstd450Asinh, 1, false},
    {"acoshf", "acosh", GLSLstd450Acosh, 1, false},
    {"atanhf", "atanh", GLSLstd450Atanh, 1, false},
};

}  // namespace

void CodeGenSPIRV::visit(const Call *op) {
    switch (op->call_type) {
    case CallType::Image:
    case CallType::Func:
        throw InternalError("spirv: call to '" + op->name + "' should have been lowered to a Load");
    case CallType::Intrinsic:
    case CallType::PureIntrinsic:
        value_ = codegen_intrinsic(op);
        return;
    case CallType::Extern:
    case CallType::PureExtern:
        value_ = codegen_math(op);
        return;
    }
    throw InternalError("spirv: unknown call type for '" + op->name + "'");
}

// ------------------------------------------------------------------ intrinsics

SpvValue CodeGenSPIRV::codegen_intrinsic(const Call *op) {
    const std::string &n = op->name;
    if (n == intrinsic::extern_make_buffer) {
        throw CompileError(describe_kernel(kernel_) + " holds an extern stage (define_extern), whose C function runs "
                           "on the CPU. Compute the extern stage outside the GPU loops.");
    }
    auto arity = [&](size_t count) {
        if (op->args.size() != count) {
            throw InternalError("spirv: intrinsic " + n + " takes " + std::to_string(count) + " arguments");
        }
    };
    if (n == intrinsic::gpu_block_id) return gpu_index(op, spv::BuiltIn::WorkgroupId);
    if (n == intrinsic::gpu_thread_id) return gpu_index(op, spv::BuiltIn::LocalInvocationId);
    if (n == intrinsic::gpu_barrier) {
        // Workgroup execution and memory scope; acquire-release ordering of
        // workgroup (shared) and storage-buffer memory.
        const uint32_t semantics = uint32_t(spv::MemorySemanticsMask::AcquireRelease) |
                                   uint32_t(spv::MemorySemanticsMask::WorkgroupMemory) |
                                   uint32_t(spv::MemorySemanticsMask::UniformMemory);
        const Id workgroup = types_.u32(uint32_t(spv::Scope::Workgroup));
        module_.emit_void(spv::Op::OpControlBarrier, {workgroup, workgroup, types_.u32(semantics)});
        return constant_value(op->type, 0);
    }
    if (n == intrinsic::likely || n == intrinsic::promise_clamped) {
        if (op->args.empty()) throw InternalError("spirv: " + n + " needs an argument");
        return codegen(op->args[0]);
    }
    if (n == intrinsic::abs) {
        arity(1);
        SpvValue x = codegen(op->args[0]);
        Type t = x.type;
        if (t.is_float()) return glsl(GLSLstd450FAbs, t, {x});
        if (t.is_uint()) return x;
        // abs(INT_MIN) wraps to INT_MIN, whose bits are 2^(bits-1) unsigned.
        SpvValue zero = constant_value(t, 0);
        SpvValue negative = binary(spv::Op::OpSLessThan, Bool(t.lanes()), x, zero);
        return bitcast(select(negative, binary(spv::Op::OpISub, t, zero, x), x), op->type);
    }
    if (n == intrinsic::is_nan) {
        arity(1);
        return unary(spv::Op::OpIsNan, op->type, codegen(op->args[0]));
    }
    if (n == intrinsic::bitwise_and || n == intrinsic::bitwise_or || n == intrinsic::bitwise_xor) {
        arity(2);
        auto [a, b] = operands(op->args[0], op->args[1]);
        const bool is_bool = a.type.is_bool();
        spv::Op o = n == intrinsic::bitwise_and ? (is_bool ? spv::Op::OpLogicalAnd : spv::Op::OpBitwiseAnd)
                    : n == intrinsic::bitwise_or ? (is_bool ? spv::Op::OpLogicalOr : spv::Op::OpBitwiseOr)
                                                 : (is_bool ? spv::Op::OpLogicalNotEqual : spv::Op::OpBitwiseXor);
        return binary(o, op->type, a, b);
    }
    if (n == intrinsic::bitwise_not) {
        arity(1);
        SpvValue a = codegen(op->args[0]);
        return unary(a.type.is_bool() ? spv::Op::OpLogicalNot : spv::Op::OpNot, op->type, a);
    }
    if (n == intrinsic::shift_left || n == intrinsic::shift_right) return codegen_shift(op, n == intrinsic::shift_left);
    if (n == intrinsic::fma) {
        arity(3);
        return glsl(GLSLstd450Fma, op->type, {codegen(op->args[0]), codegen(op->args[1]), codegen(op->args[2])});
    }
    // saturating_add/sub and the bit counts: their plain-IR form.
    if (Expr lowered = lower_bit_intrinsic(op); lowered.defined()) return codegen(lowered);
    if (n == intrinsic::print || n == intrinsic::print_value || n == intrinsic::print_value_when ||
        n == intrinsic::error) {
        throw CompileError(describe_kernel(kernel_) + " calls " + n +
                           ", which GPU kernels do not support; compute the Func on the CPU to print from it.");
    }
    if (n == intrinsic::require) {
        throw CompileError(describe_kernel(kernel_) + " uses require(), which GPU kernels do not support (a kernel "
                           "cannot stop the pipeline); compute the Func that uses it on the CPU.");
    }
    throw InternalError("spirv: kernel '" + kernel_.name + "' uses the intrinsic '" + n +
                        "', which has no SPIR-V translation");
}

SpvValue CodeGenSPIRV::gpu_index(const Call *op, spv::BuiltIn builtin) {
    if (op->args.size() != 1) throw InternalError("spirv: " + op->name + " takes one argument");
    std::optional<int64_t> d = as_const_int(op->args[0]);
    if (!d || *d < 0 || *d > 2) throw InternalError("spirv: " + op->name + " needs a constant dimension 0..2");
    Id &component = builtin_components_[{builtin, int(*d)}];
    if (!component) {
        auto &[variable, loaded] = builtins_[builtin];
        const Id uvec3 = types_.of(UInt(32, 3));
        if (!variable) {
            variable = module_.global_variable(module_.type_pointer(spv::StorageClass::Input, uvec3),
                                               spv::StorageClass::Input);
            module_.decorate(variable, spv::Decoration::BuiltIn, {uint32_t(builtin)});
            module_.add_name(variable, builtin == spv::BuiltIn::WorkgroupId ? "workgroup_id" : "local_invocation_id");
            loaded = module_.emit_preamble(spv::Op::OpLoad, uvec3, {variable});
        }
        const Id u = module_.emit_preamble(spv::Op::OpCompositeExtract, types_.uint32(), {loaded, uint32_t(*d)});
        component = module_.emit_preamble(spv::Op::OpBitcast, types_.int32(), {u});
    }
    return convert(SpvValue{Int(32), {component}}, op->type);
}

// As on the CPU: a negative (signed) amount shifts the other way; an amount
// of the type's width or more shifts everything out (0, or all sign bits
// for a signed right shift). SPIR-V shifts by the width or more are
// undefined, so the amount is bounded first.
SpvValue CodeGenSPIRV::codegen_shift(const Call *op, bool left) {
    if (op->args.size() != 2) throw InternalError("spirv: " + op->name + " takes two arguments");
    Type ta = op->args[0].type(), tb = op->args[1].type();
    if (!ta.is_int_or_uint() || !tb.is_int_or_uint() || ta.is_bool() || tb.is_bool()) {
        throw InternalError("spirv: shift of a non-integer");
    }
    auto [a, b] = operands(op->args[0], op->args[1]);
    if (tb.is_scalar() && ta.is_vector()) {
        tb = tb.with_lanes(ta.lanes());
        b = splat(tb, b.pieces[0]);
    }
    const int bits = ta.bits();
    Type bt = Bool(ta.lanes());
    SpvValue reverse;
    if (tb.is_int()) {
        SpvValue zero = constant_value(tb, 0);
        reverse = binary(spv::Op::OpSLessThan, bt, b, zero);
        b = select(reverse, binary(spv::Op::OpISub, tb, zero, b), b);
    }
    // From here on the amount is unsigned (|INT_MIN| is large, not negative).
    Type tu = tb.with_code(TypeCode::UInt);
    SpvValue amount = bitcast(b, tu);
    SpvValue too_far = binary(spv::Op::OpUGreaterThanEqual, bt, amount, constant_value(tu, bits));
    SpvValue safe = select(too_far, constant_value(tu, bits - 1), amount);
    SpvValue zero = constant_value(ta, 0);
    SpvValue shl = select(too_far, zero, binary(spv::Op::OpShiftLeftLogical, ta, a, safe));
    SpvValue shr = ta.is_int() ? binary(spv::Op::OpShiftRightArithmetic, ta, a, safe)
                               : select(too_far, zero, binary(spv::Op::OpShiftRightLogical, ta, a, safe));
    if (reverse.pieces.empty()) return left ? shl : shr;
    return select(reverse, left ? shr : shl, left ? shl : shr);
}

// ------------------------------------------------------------------ math

SpvValue CodeGenSPIRV::codegen_math(const Call *op) {
    const MathFunction *f = nullptr;
    for (const MathFunction &m : math_functions) {
        if (op->name == m.f32 || op->name == m.f64) {
            f = &m;
            break;
        }
    }
    if (!f || !op->type.is_float()) {
        throw CompileError(describe_kernel(kernel_) + " calls the C function '" + op->name +
                           "', which has no SPIR-V equivalent; compute it on the CPU.");
    }
    if ((int)op->args.size() != f->arity) {
        throw InternalError("spirv: " + op->name + " takes " + std::to_string(f->arity) + " arguments");
    }
    for (const Expr &a : op->args) {
        if (a.type() != op->type) throw InternalError("spirv: argument of " + op->name + " of another type");
    }
    Type t = op->type;
    if (t.bits() == 16) {
        // Computed in Float(32) and rounded back, as on the CPU.
        std::vector<Expr> wide_args;
        for (const Expr &a : op->args) wide_args.push_back(Cast::make(a.type().with_bits(32), a));
        Expr wide = Call::make(t.with_bits(32), f->f32, wide_args, op->call_type);
        return convert(codegen(wide), t);
    }
    if (t.bits() == 64 && !f->has_f64) {
        throw CompileError(describe_kernel(kernel_) + " calls " + op->name +
                           " on float64, which SPIR-V's GLSL.std.450 provides only for float32 (and float16); "
                           "cast its argument to float32.");
    }
    std::vector<SpvValue> args;
    for (const Expr &a : op->args) args.push_back(codegen(a));
    if (f->glsl >= 0) return glsl(f->glsl, t, args);

    Type bt = Bool(t.lanes());
    if (f->glsl == kRound) {
        // trunc(x), plus sign(x) when the dropped fraction is at least 1/2
        // (x - trunc(x) and trunc(x) +- 1 are exact).
        SpvValue x = args[0];
        SpvValue whole = glsl(GLSLstd450Trunc, t, {x});
        SpvValue fraction = glsl(GLSLstd450FAbs, t, {binary(spv::Op::OpFSub, t, x, whole)});
        SpvValue up = binary(spv::Op::OpFOrdGreaterThanEqual, bt, fraction, float_constant_value(t, 0.5));
        return select(up, binary(spv::Op::OpFAdd, t, whole, glsl(GLSLstd450FSign, t, {x})), whole);
    }
    if (f->glsl == kAsin || f->glsl == kAcos) {
        // Through atan2 of the two legs, sqrt((1 - x)(1 + x)) and x: drivers'
        // Asin and Acos may be far less accurate than their Atan2 (Mesa's
        // lavapipe: 4e-4 against 1e-7), which Vulkan's precision rules
        // let them be. |x| > 1 gives a NaN leg, hence NaN, as in C.
        SpvValue x = args[0], one = float_constant_value(t, 1.0);
        SpvValue leg = glsl(GLSLstd450Sqrt, t, {binary(spv::Op::OpFMul, t, binary(spv::Op::OpFSub, t, one, x),
                                                       binary(spv::Op::OpFAdd, t, one, x))});
        return f->glsl == kAsin ? glsl(GLSLstd450Atan2, t, {x, leg}) : glsl(GLSLstd450Atan2, t, {leg, x});
    }
    // copysign: |a| or -|a| by the sign bit of b, read through its bits (a
    // double as two 32-bit words, the high one second) so that -0.0 and NaNs
    // count too.
    SpvValue magnitude = glsl(GLSLstd450FAbs, t, {args[0]});
    std::vector<Id> negative_lanes;
    for (int i = 0; i < t.lanes(); i++) {
        Id sign_word = 0;
        const Id b = lane(args[1], i);
        if (t.bits() == 64) {
            const Id words = module_.emit(spv::Op::OpBitcast, types_.of(UInt(32, 2)), {b});
            sign_word = module_.emit(spv::Op::OpCompositeExtract, types_.uint32(), {words, 1u});
        } else {
            sign_word = module_.emit(spv::Op::OpBitcast, types_.uint32(), {b});
        }
        const Id masked = module_.emit(spv::Op::OpBitwiseAnd, types_.uint32(), {sign_word, types_.u32(0x80000000u)});
        negative_lanes.push_back(module_.emit(spv::Op::OpINotEqual, types_.bool_type(), {masked, types_.u32(0)}));
    }
    return select(from_lanes(bt, negative_lanes), unary(spv::Op::OpFNegate, t, magnitude), magnitude);
}

}  // namespace spirv
}  // namespace internal
}  // namespace loom
