// SPIR-V for constants, conversions, arithmetic, comparisons, logic and
// vector shapes, with the CPU back end's semantics
// (codegen/llvm/CodeGen_LLVM_Arith.cpp):
// - + - * wrap; integer / and % are Euclidean and x / 0 == x % 0 == 0,
//   computed with divisors made safe first (OpSDiv of INT_MIN by -1 and
//   division by zero are undefined in SPIR-V);
// - float -> int conversions saturate and take NaN to 0 (out-of-range
//   OpConvertFToS is undefined);
// - float min/max are b < a ? b : a and b > a ? b : a;
// - Float(16) arithmetic is computed in Float(32) and rounded back once per
//   operation, like the CPU's;
// - strict_float marks float + - * NoContraction (no fused multiply-add).
//   Float modulus a - b * floor(a / b) is never contracted.

#include "codegen/spirv/CodeGen_SPIRV_Internal.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"

#include <spirv/unified1/GLSL.std.450.h>

#include <cmath>

namespace loom {
namespace internal {
namespace spirv {

// ------------------------------------------------------------------ plumbing

SpvValue CodeGenSPIRV::codegen(const Expr &e) {
    if (!e.defined()) throw InternalError("spirv: undefined expression in kernel '" + kernel_.name + "'");
    value_ = SpvValue();
    e.accept(this);
    if (value_.type != e.type() || value_.pieces.size() != size_t(piece_count(e.type().lanes()))) {
        throw InternalError("spirv: code generation of an expression of type " + SpirvTypes::describe(e.type()) +
                            " made a value of type " + SpirvTypes::describe(value_.type));
    }
    return value_;
}

void CodeGenSPIRV::codegen(const Stmt &s) {
    if (s.defined()) s.accept(this);
}

Id CodeGenSPIRV::lane(const SpvValue &v, int i) {
    const int piece = i / 4;
    if (piece_lanes(v.type.lanes(), piece) == 1) return v.pieces[piece];
    return module_.emit(spv::Op::OpCompositeExtract, types_.of(v.type.element_of()),
                        {v.pieces[piece], uint32_t(i % 4)});
}

std::vector<Id> CodeGenSPIRV::lanes_of(const SpvValue &v) {
    std::vector<Id> lanes;
    for (int i = 0; i < v.type.lanes(); i++) lanes.push_back(lane(v, i));
    return lanes;
}

SpvValue CodeGenSPIRV::from_lanes(Type t, const std::vector<Id> &scalars) {
    if ((int)scalars.size() != t.lanes()) throw InternalError("spirv: from_lanes with the wrong number of lanes");
    return map_pieces(t, [&](int p, Id type) {
        const int n = piece_lanes(t.lanes(), p);
        if (n == 1) return scalars[4 * p];
        std::vector<uint32_t> parts(scalars.begin() + 4 * p, scalars.begin() + 4 * p + n);
        return module_.emit(spv::Op::OpCompositeConstruct, type, parts);
    });
}

SpvValue CodeGenSPIRV::splat(Type t, Id scalar) { return from_lanes(t, std::vector<Id>(t.lanes(), scalar)); }

SpvValue CodeGenSPIRV::constant_value(Type t, int64_t value) {
    return map_pieces(t, [&](int p, Id) { return types_.constant(piece_loom_type(t, p), value); });
}

SpvValue CodeGenSPIRV::float_constant_value(Type t, double value) {
    return map_pieces(t, [&](int p, Id) { return types_.constant_float(piece_loom_type(t, p), value); });
}

SpvValue CodeGenSPIRV::map_pieces(Type result, const std::function<Id(int, Id)> &f) {
    SpvValue v{result, {}};
    for (int p = 0; p < piece_count(result.lanes()); p++) v.pieces.push_back(f(p, piece_type(result, p)));
    return v;
}

SpvValue CodeGenSPIRV::unary(spv::Op op, Type result, const SpvValue &a) {
    return map_pieces(result, [&](int p, Id type) { return module_.emit(op, type, {a.pieces[p]}); });
}

SpvValue CodeGenSPIRV::binary(spv::Op op, Type result, const SpvValue &a, const SpvValue &b) {
    if (a.pieces.size() != b.pieces.size()) throw InternalError("spirv: operands of different lane counts");
    return map_pieces(result, [&](int p, Id type) { return module_.emit(op, type, {a.pieces[p], b.pieces[p]}); });
}

SpvValue CodeGenSPIRV::select(const SpvValue &c, const SpvValue &t, const SpvValue &f) {
    SpvValue condition = c;
    if (c.type.lanes() != t.type.lanes()) condition = splat(Bool(t.type.lanes()), lane(c, 0));
    return map_pieces(t.type, [&](int p, Id type) {
        return module_.emit(spv::Op::OpSelect, type, {condition.pieces[p], t.pieces[p], f.pieces[p]});
    });
}

SpvValue CodeGenSPIRV::glsl(int instruction, Type result, const std::vector<SpvValue> &args) {
    const Id set = module_.glsl_std_450();
    return map_pieces(result, [&](int p, Id type) {
        std::vector<uint32_t> operands = {set, uint32_t(instruction)};
        for (const SpvValue &a : args) operands.push_back(a.pieces[p]);
        return module_.emit(spv::Op::OpExtInst, type, operands);
    });
}

// Debug names for the disassembly (compile_to_assembly, LOOM_DEBUG_SPIRV).
void CodeGenSPIRV::name_value(const std::string &name, const SpvValue &v) {
    for (size_t p = 0; p < v.pieces.size(); p++) {
        module_.name_value(v.pieces[p], v.pieces.size() == 1 ? name : name + ".piece" + std::to_string(p));
    }
}

void CodeGenSPIRV::no_contraction(Id id) { module_.decorate(id, spv::Decoration::NoContraction); }

SpvValue CodeGenSPIRV::float_arith(spv::Op op, const SpvValue &a, const SpvValue &b) {
    Type t = a.type;
    if (t.bits() == 16) {
        Type wide = Float(32, t.lanes());
        return convert(float_arith(op, convert(a, wide), convert(b, wide)), t);
    }
    SpvValue r = binary(op, t, a, b);
    const bool contractible = op == spv::Op::OpFAdd || op == spv::Op::OpFSub || op == spv::Op::OpFMul;
    if (contractible && target_.has_feature(Target::StrictFloat)) {
        for (Id piece : r.pieces) no_contraction(piece);
    }
    return r;
}

SpvValue CodeGenSPIRV::add(const SpvValue &a, const SpvValue &b) {
    if (a.type.is_float()) return float_arith(spv::Op::OpFAdd, a, b);
    return binary(spv::Op::OpIAdd, a.type, a, b);
}

SpvValue CodeGenSPIRV::mul(const SpvValue &a, const SpvValue &b) {
    if (a.type.is_float()) return float_arith(spv::Op::OpFMul, a, b);
    return binary(spv::Op::OpIMul, a.type, a, b);
}

// ------------------------------------------------------------------ constants and names

void CodeGenSPIRV::visit(const IntImm *op) { value_ = constant_value(op->type, op->value); }

void CodeGenSPIRV::visit(const UIntImm *op) {
    value_ = map_pieces(op->type, [&](int p, Id) { return types_.constant_uint(piece_loom_type(op->type, p), op->value); });
}

void CodeGenSPIRV::visit(const FloatImm *op) { value_ = float_constant_value(op->type, op->value); }

void CodeGenSPIRV::visit(const StringImm *op) {
    throw InternalError("spirv: kernel '" + kernel_.name + "' uses the string \"" + op->value + "\"");
}

void CodeGenSPIRV::visit(const Variable *op) {
    const SpvValue *v = symbols_.find(op->name);
    if (!v) throw InternalError("spirv: kernel '" + kernel_.name + "' uses '" + op->name + "', which is not bound");
    value_ = *v;
    if (value_.type != op->type) {
        throw InternalError("spirv: '" + op->name + "' is bound to a " + SpirvTypes::describe(value_.type) +
                            " but used as a " + SpirvTypes::describe(op->type));
    }
}

void CodeGenSPIRV::visit(const Let *op) {
    SpvValue v = codegen(op->value);
    name_value(op->name, v);
    ScopedBinding<SpvValue> bind(symbols_, op->name, v);
    value_ = codegen(op->body);
}

// ------------------------------------------------------------------ conversions

void CodeGenSPIRV::visit(const Cast *op) { value_ = convert(codegen(op->value), op->type); }

SpvValue CodeGenSPIRV::convert(const SpvValue &v, Type to) {
    Type from = v.type;
    if (from == to) return v;
    if (from.lanes() != to.lanes()) throw InternalError("spirv: conversion between different lane counts");
    if (to.is_bool()) {
        if (from.is_float()) return binary(spv::Op::OpFUnordNotEqual, to, v, float_constant_value(from, 0.0));
        return binary(spv::Op::OpINotEqual, to, v, constant_value(from, 0));
    }
    if (from.is_bool()) {
        if (to.is_float()) return select(v, float_constant_value(to, 1.0), float_constant_value(to, 0.0));
        return select(v, constant_value(to, 1), constant_value(to, 0));
    }
    if (from.is_float() && to.is_float()) {
        if (from.bits() == 64 && to.bits() == 16) return double_to_half(v);
        return unary(spv::Op::OpFConvert, to, v);
    }
    if (from.is_float()) return float_to_int(v, to);
    if (to.is_float()) return unary(from.is_int() ? spv::Op::OpConvertSToF : spv::Op::OpConvertUToF, to, v);
    return int_convert(v, to);
}

// Float64 to Float16, correctly rounded as on the CPU. Drivers may convert
// through float32 and round twice (1 + 2^-11 + 2^-40 becomes the tie 1 + 2^-11,
// then 1.0). Rounding to float32 towards zero with the lowest bit set when
// inexact ("round to odd") keeps the information a second rounding needs,
// since float32 has more than two bits beyond float16's precision.
SpvValue CodeGenSPIRV::double_to_half(const SpvValue &v) {
    const Type d = v.type, f = d.with_bits(32), u = UInt(32, d.lanes()), b = Bool(d.lanes());
    SpvValue nearest = unary(spv::Op::OpFConvert, f, v);
    SpvValue bits = bitcast(nearest, u);
    // Rounded away from zero: step the magnitude back by one unit.
    SpvValue away = binary(spv::Op::OpFOrdGreaterThan, b, glsl(GLSLstd450FAbs, d, {unary(spv::Op::OpFConvert, d, nearest)}),
                           glsl(GLSLstd450FAbs, d, {v}));
    bits = select(away, binary(spv::Op::OpISub, u, bits, constant_value(u, 1)), bits);
    SpvValue toward_zero = bitcast(bits, f);
    SpvValue inexact = binary(spv::Op::OpFOrdNotEqual, b, unary(spv::Op::OpFConvert, d, toward_zero), v);
    bits = select(inexact, binary(spv::Op::OpBitwiseOr, u, bits, constant_value(u, 1)), bits);
    return unary(spv::Op::OpFConvert, d.with_bits(16), bitcast(bits, f));
}

// Integer to integer: wrap or extend by the source's signedness. OpUConvert
// must produce an unsigned type, so signed narrowing uses OpSConvert (a
// truncation too).
SpvValue CodeGenSPIRV::int_convert(const SpvValue &v, Type to) {
    Type from = v.type;
    if (from.bits() == to.bits()) return bitcast(v, to);
    if (from.bits() < to.bits()) {
        if (from.is_int()) return unary(spv::Op::OpSConvert, to, v);
        return bitcast(unary(spv::Op::OpUConvert, to.with_code(TypeCode::UInt), v), to);
    }
    return unary(to.is_int() ? spv::Op::OpSConvert : spv::Op::OpUConvert, to, v);
}

// Saturating, NaN to 0, as llvm.fpto[su]i.sat on the CPU. Values in range
// convert directly; the others pick the type's bound by their sign. The
// bounds are powers of two, exact in every float type (Float(16) values are
// converted from Float(32), where 2^63 is finite).
SpvValue CodeGenSPIRV::float_to_int(const SpvValue &x0, Type to) {
    SpvValue x = x0.type.bits() == 16 ? convert(x0, Float(32, to.lanes())) : x0;
    Type ft = x.type, bt = Bool(to.lanes());
    const double two_to_bits = std::ldexp(1.0, to.bits() - (to.is_int() ? 1 : 0));
    SpvValue in_range;
    if (to.is_int()) {
        SpvValue above = binary(spv::Op::OpFOrdGreaterThanEqual, bt, x, float_constant_value(ft, -two_to_bits));
        SpvValue below = binary(spv::Op::OpFOrdLessThan, bt, x, float_constant_value(ft, two_to_bits));
        in_range = binary(spv::Op::OpLogicalAnd, bt, above, below);
    } else {
        SpvValue above = binary(spv::Op::OpFOrdGreaterThan, bt, x, float_constant_value(ft, -1.0));
        SpvValue below = binary(spv::Op::OpFOrdLessThan, bt, x, float_constant_value(ft, two_to_bits));
        in_range = binary(spv::Op::OpLogicalAnd, bt, above, below);
    }
    SpvValue safe = select(in_range, x, float_constant_value(ft, 0.0));
    SpvValue converted = unary(to.is_int() ? spv::Op::OpConvertFToS : spv::Op::OpConvertFToU, to, safe);
    const int bits = to.bits();
    SpvValue max, min;
    if (to.is_int()) {
        max = map_pieces(to, [&](int p, Id) {
            return types_.constant_uint(piece_loom_type(to, p), (uint64_t(1) << (bits - 1)) - 1);
        });
        min = map_pieces(to, [&](int p, Id) {
            return types_.constant_uint(piece_loom_type(to, p), uint64_t(1) << (bits - 1));
        });
    } else {
        max = constant_value(to, -1);  // all ones
        min = constant_value(to, 0);
    }
    SpvValue positive = binary(spv::Op::OpFOrdGreaterThan, bt, x, float_constant_value(ft, 0.0));
    SpvValue negative = binary(spv::Op::OpFOrdLessThan, bt, x, float_constant_value(ft, 0.0));
    SpvValue outside = select(positive, max, select(negative, min, constant_value(to, 0)));
    return select(in_range, converted, outside);
}

void CodeGenSPIRV::visit(const Reinterpret *op) { value_ = bitcast(codegen(op->value), op->type); }

// OpBitcast piece by piece when the lane counts agree; otherwise lanes are
// grouped: k narrow lanes (k <= 4) make one wide lane, or one wide lane
// splits into k narrow ones.
SpvValue CodeGenSPIRV::bitcast(const SpvValue &v, Type to) {
    Type from = v.type;
    if (from == to) return v;
    if (from.is_bool() || to.is_bool()) throw InternalError("spirv: reinterpret of a bool");
    if (from.lanes() == to.lanes()) return unary(spv::Op::OpBitcast, to, v);
    std::vector<Id> out;
    if (from.lanes() > to.lanes()) {
        const int k = from.lanes() / to.lanes();
        if (k > 4 || from.lanes() % to.lanes()) throw InternalError("spirv: unsupported reinterpret lane ratio");
        const Id group_type = types_.of(from.with_lanes(k));
        for (int j = 0; j < to.lanes(); j++) {
            std::vector<uint32_t> parts;
            for (int i = 0; i < k; i++) parts.push_back(lane(v, j * k + i));
            const Id group = module_.emit(spv::Op::OpCompositeConstruct, group_type, parts);
            out.push_back(module_.emit(spv::Op::OpBitcast, types_.of(to.element_of()), {group}));
        }
    } else {
        const int k = to.lanes() / from.lanes();
        if (k > 4 || to.lanes() % from.lanes()) throw InternalError("spirv: unsupported reinterpret lane ratio");
        const Id group_type = types_.of(to.with_lanes(k));
        for (int j = 0; j < from.lanes(); j++) {
            const Id group = module_.emit(spv::Op::OpBitcast, group_type, {lane(v, j)});
            for (int i = 0; i < k; i++) {
                out.push_back(module_.emit(spv::Op::OpCompositeExtract, types_.of(to.element_of()),
                                           {group, uint32_t(i)}));
            }
        }
    }
    return from_lanes(to, out);
}

// ------------------------------------------------------------------ arithmetic

// Operands are generated a first, then b (C++ leaves the order of function
// arguments open), so that modules read in the order of the IR.
std::pair<SpvValue, SpvValue> CodeGenSPIRV::operands(const Expr &a, const Expr &b) {
    SpvValue va = codegen(a);
    SpvValue vb = codegen(b);
    return {va, vb};
}

void CodeGenSPIRV::visit(const Add *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = add(a, b);
}

void CodeGenSPIRV::visit(const Sub *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = op->type.is_float() ? float_arith(spv::Op::OpFSub, a, b) : binary(spv::Op::OpISub, op->type, a, b);
}

void CodeGenSPIRV::visit(const Mul *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = mul(a, b);
}

void CodeGenSPIRV::visit(const Div *op) {
    if (auto zero = as_const_float(op->b); op->type.is_float() && zero && *zero == 0.0) {
        // x / +-0 is x * +-inf in IEEE arithmetic (0 and NaN give NaN, the
        // rest a signed infinity). Mesa's compiler folds a division by a
        // constant zero to 0, so the multiplication is what it is given.
        Expr inf = make_const(op->type, std::signbit(*zero) ? -INFINITY : INFINITY);
        value_ = float_arith(spv::Op::OpFMul, codegen(op->a), codegen(inf));
        return;
    }
    auto [a, b] = operands(op->a, op->b);
    value_ = op->type.is_float() ? float_arith(spv::Op::OpFDiv, a, b) : div_euclid(a, b);
}

// Float modulus: a - b * floor(a / b), never contracted; Float(16) runs the
// whole formula in Float(32) and rounds once.
void CodeGenSPIRV::visit(const Mod *op) {
    auto [a, b] = operands(op->a, op->b);
    if (!op->type.is_float()) {
        value_ = mod_euclid(a, b);
        return;
    }
    Type t = op->type, ft = t.bits() == 16 ? Float(32, t.lanes()) : t;
    SpvValue p = convert(a, ft), q = convert(b, ft);
    SpvValue ratio = glsl(GLSLstd450Floor, ft, {binary(spv::Op::OpFDiv, ft, p, q)});
    SpvValue product = binary(spv::Op::OpFMul, ft, q, ratio);
    SpvValue r = binary(spv::Op::OpFSub, ft, p, product);
    for (Id id : product.pieces) no_contraction(id);
    for (Id id : r.pieces) no_contraction(id);
    value_ = convert(r, t);
}

// As on the CPU: divide a + 1 instead of a when a < 0 (that cannot
// overflow), then step the truncated quotient away from zero.
SpvValue CodeGenSPIRV::div_euclid(const SpvValue &a, const SpvValue &b) {
    Type t = a.type, bt = Bool(t.lanes());
    SpvValue zero = constant_value(t, 0), one = constant_value(t, 1);
    SpvValue b_is_zero = binary(spv::Op::OpIEqual, bt, b, zero);
    SpvValue b_safe = select(b_is_zero, one, b);
    if (t.is_uint()) return select(b_is_zero, zero, binary(spv::Op::OpUDiv, t, a, b_safe));
    SpvValue a_sign = binary(spv::Op::OpShiftRightArithmetic, t, a, constant_value(t, t.bits() - 1));
    SpvValue q = binary(spv::Op::OpSDiv, t, binary(spv::Op::OpISub, t, a, a_sign), b_safe);
    SpvValue step = select(binary(spv::Op::OpSLessThan, bt, b_safe, zero), one, constant_value(t, -1));
    q = binary(spv::Op::OpIAdd, t, q, binary(spv::Op::OpBitwiseAnd, t, a_sign, step));
    return select(b_is_zero, zero, q);
}

// The remainder of a + 1 (for a < 0) lies in (-|b|, 0]; shifting it by
// |b| - 1 puts it in [0, |b|). The truncated remainder is n - (n / b) * b
// (OpSDiv truncates) rather than OpSRem, which some drivers get wrong for
// negative operands.
SpvValue CodeGenSPIRV::mod_euclid(const SpvValue &a, const SpvValue &b) {
    Type t = a.type, bt = Bool(t.lanes());
    SpvValue zero = constant_value(t, 0), one = constant_value(t, 1);
    SpvValue b_is_zero = binary(spv::Op::OpIEqual, bt, b, zero);
    SpvValue b_safe = select(b_is_zero, one, b);
    if (t.is_uint()) return select(b_is_zero, zero, binary(spv::Op::OpUMod, t, a, b_safe));
    SpvValue a_sign = binary(spv::Op::OpShiftRightArithmetic, t, a, constant_value(t, t.bits() - 1));
    SpvValue n = binary(spv::Op::OpISub, t, a, a_sign);
    SpvValue q = binary(spv::Op::OpSDiv, t, n, b_safe);
    SpvValue r = binary(spv::Op::OpISub, t, n, binary(spv::Op::OpIMul, t, q, b_safe));
    SpvValue negative_b = binary(spv::Op::OpSLessThan, bt, b_safe, zero);
    SpvValue abs_b = select(negative_b, binary(spv::Op::OpISub, t, zero, b_safe), b_safe);
    SpvValue shift = binary(spv::Op::OpBitwiseAnd, t, a_sign, binary(spv::Op::OpISub, t, abs_b, one));
    return select(b_is_zero, zero, binary(spv::Op::OpIAdd, t, r, shift));
}

SpvValue CodeGenSPIRV::min_value(const SpvValue &a, const SpvValue &b) {
    SpvValue b_less = compare(spv::Op::OpSLessThan, spv::Op::OpULessThan, spv::Op::OpFOrdLessThan, b, a);
    return select(b_less, b, a);
}

SpvValue CodeGenSPIRV::max_value(const SpvValue &a, const SpvValue &b) {
    SpvValue b_greater = compare(spv::Op::OpSGreaterThan, spv::Op::OpUGreaterThan, spv::Op::OpFOrdGreaterThan, b, a);
    return select(b_greater, b, a);
}

void CodeGenSPIRV::visit(const Min *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = min_value(a, b);
}

void CodeGenSPIRV::visit(const Max *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = max_value(a, b);
}

// ------------------------------------------------------------------ comparisons and logic

// Bools compare equal or not with OpLogical[Not]Equal; ordered comparisons
// of bools compare them as 0 and 1.
SpvValue CodeGenSPIRV::compare(spv::Op signed_int, spv::Op unsigned_int, spv::Op fp, const SpvValue &a0,
                               const SpvValue &b0) {
    SpvValue a = a0, b = b0;
    Type t = a.type, bt = Bool(t.lanes());
    if (t.is_float()) return binary(fp, bt, a, b);
    if (t.is_bool()) {
        if (signed_int == spv::Op::OpIEqual) return binary(spv::Op::OpLogicalEqual, bt, a, b);
        if (signed_int == spv::Op::OpINotEqual) return binary(spv::Op::OpLogicalNotEqual, bt, a, b);
        a = convert(a, UInt(32, t.lanes()));
        b = convert(b, UInt(32, t.lanes()));
        t = a.type;
    }
    return binary(t.is_int() ? signed_int : unsigned_int, bt, a, b);
}

void CodeGenSPIRV::visit(const EQ *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = compare(spv::Op::OpIEqual, spv::Op::OpIEqual, spv::Op::OpFOrdEqual, a, b);
}
void CodeGenSPIRV::visit(const NE *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = compare(spv::Op::OpINotEqual, spv::Op::OpINotEqual, spv::Op::OpFUnordNotEqual, a, b);
}
void CodeGenSPIRV::visit(const LT *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = compare(spv::Op::OpSLessThan, spv::Op::OpULessThan, spv::Op::OpFOrdLessThan, a, b);
}
void CodeGenSPIRV::visit(const LE *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = compare(spv::Op::OpSLessThanEqual, spv::Op::OpULessThanEqual, spv::Op::OpFOrdLessThanEqual, a, b);
}
void CodeGenSPIRV::visit(const GT *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = compare(spv::Op::OpSGreaterThan, spv::Op::OpUGreaterThan, spv::Op::OpFOrdGreaterThan, a, b);
}
void CodeGenSPIRV::visit(const GE *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = compare(spv::Op::OpSGreaterThanEqual, spv::Op::OpUGreaterThanEqual, spv::Op::OpFOrdGreaterThanEqual, a, b);
}

void CodeGenSPIRV::visit(const And *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = binary(spv::Op::OpLogicalAnd, op->type, a, b);
}
void CodeGenSPIRV::visit(const Or *op) {
    auto [a, b] = operands(op->a, op->b);
    value_ = binary(spv::Op::OpLogicalOr, op->type, a, b);
}
void CodeGenSPIRV::visit(const Not *op) { value_ = unary(spv::Op::OpLogicalNot, op->type, codegen(op->a)); }

void CodeGenSPIRV::visit(const Select *op) {
    SpvValue c = codegen(op->condition);
    SpvValue t = codegen(op->true_value);
    SpvValue f = codegen(op->false_value);
    value_ = select(c, t, f);
}

// ------------------------------------------------------------------ vectors

void CodeGenSPIRV::visit(const Ramp *op) {
    auto [base, stride] = operands(op->base, op->stride);
    Type et = op->base.type();
    if (et.is_vector()) {
        // A ramp of vectors: base, base + stride, ... concatenated.
        std::vector<Id> all;
        SpvValue v = base;
        for (int i = 0; i < op->lanes; i++) {
            for (Id l : lanes_of(v)) all.push_back(l);
            if (i + 1 < op->lanes) v = add(v, stride);
        }
        value_ = from_lanes(op->type, all);
        return;
    }
    Type t = op->type;
    SpvValue lane_numbers = map_pieces(t, [&](int p, Id type) {
        const int n = piece_lanes(t.lanes(), p);
        std::vector<Id> numbers;
        for (int j = 0; j < n; j++) {
            numbers.push_back(et.is_float() ? types_.constant_float(et, 4 * p + j) : types_.constant(et, 4 * p + j));
        }
        return n == 1 ? numbers[0] : module_.constant_composite(type, numbers);
    });
    value_ = add(splat(t, base.pieces[0]), mul(splat(t, stride.pieces[0]), lane_numbers));
}

void CodeGenSPIRV::visit(const Broadcast *op) {
    SpvValue v = codegen(op->value);
    if (v.type.is_scalar()) {
        value_ = splat(op->type, v.pieces[0]);
        return;
    }
    std::vector<Id> one = lanes_of(v), all;
    for (int i = 0; i < op->lanes; i++) all.insert(all.end(), one.begin(), one.end());
    value_ = from_lanes(op->type, all);
}

void CodeGenSPIRV::visit(const Shuffle *op) {
    std::vector<SpvValue> vs;
    for (const Expr &e : op->vectors) vs.push_back(codegen(e));
    std::vector<Id> picked;
    for (int index : op->indices) {
        int l = index;
        size_t k = 0;
        while (k < vs.size() && l >= vs[k].type.lanes()) l -= vs[k++].type.lanes();
        if (k == vs.size() || l < 0) throw InternalError("spirv: Shuffle index out of range");
        picked.push_back(lane(vs[k], l));
    }
    value_ = from_lanes(op->type, picked);
}

// Lanes are combined in order within each group of adjacent lanes, as on
// the CPU, so float sums match a sequential loop.
void CodeGenSPIRV::visit(const VectorReduce *op) {
    SpvValue v = codegen(op->value);
    Type t = op->type, et = t.element_of();
    const int in_lanes = v.type.lanes(), out_lanes = t.lanes();
    if (out_lanes < 1 || in_lanes % out_lanes != 0) throw InternalError("spirv: bad VectorReduce lanes");
    const int group = in_lanes / out_lanes;
    std::vector<Id> result;
    for (int j = 0; j < out_lanes; j++) {
        SpvValue acc{et, {lane(v, j * group)}};
        for (int i = 1; i < group; i++) {
            SpvValue x{et, {lane(v, j * group + i)}};
            switch (op->op) {
            case VectorReduce::Add: acc = add(acc, x); break;
            case VectorReduce::Mul: acc = mul(acc, x); break;
            case VectorReduce::Min: acc = min_value(acc, x); break;
            case VectorReduce::Max: acc = max_value(acc, x); break;
            case VectorReduce::And:
                acc = binary(et.is_bool() ? spv::Op::OpLogicalAnd : spv::Op::OpBitwiseAnd, et, acc, x);
                break;
            case VectorReduce::Or:
                acc = binary(et.is_bool() ? spv::Op::OpLogicalOr : spv::Op::OpBitwiseOr, et, acc, x);
                break;
            }
        }
        result.push_back(acc.pieces[0]);
    }
    value_ = from_lanes(t, result);
}

}  // namespace spirv
}  // namespace internal
}  // namespace loom
