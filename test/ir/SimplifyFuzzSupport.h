#ifndef LOOM_TEST_IR_SIMPLIFY_FUZZ_SUPPORT_H
#define LOOM_TEST_IR_SIMPLIFY_FUZZ_SUPPORT_H

// The pieces shared by the simplifier's randomized tests: an independent
// evaluator of scalar and vector expressions (exact arithmetic in 128 bits
// without undefined behaviour of its own, Euclidean division,
// x / 0 == x % 0 == 0, narrow types and UInt(32)/UInt(64) wrapping) that also
// reports Int(32)/Int(64) overflow, which Loom (like Halide) treats as
// undefined so samples that overflow are skipped; a cross-check of that
// evaluator against the reference interpreter (ir/Interpreter.h), which
// defines the semantics; and a generator of random expressions over every
// integer width, signed and unsigned, and Float(32).

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/Interpreter.h"

namespace loom {
namespace fuzz_support {

using namespace loom::internal;

/** Integers are held as the bits of their value, sign-extended for Int and
 * zero-extended for UInt (so a UInt(64) above INT64_MAX reads negative in i);
 * floats as double (rounded to float after every Float(32) operation). */
struct Value {
    int64_t i = 0;
    double f = 0;
};

inline int64_t wrap(Type t, int64_t v) {
    int bits = t.bits();
    if (bits >= 64) return v;
    uint64_t mask = (uint64_t(1) << bits) - 1;
    uint64_t u = (uint64_t)v & mask;
    if (t.is_int() && (u >> (bits - 1))) u |= ~mask;
    return (int64_t)u;
}

/** The mathematical value of an integer of type t. */
inline __int128 exact(Type t, const Value &v) { return t.is_uint() ? (__int128)(uint64_t)v.i : (__int128)v.i; }

inline double round_to(Type t, double v) { return t.bits() == 32 ? (double)(float)v : v; }

/** a + b, a - b and a * b in 128 bits without undefined behaviour. Operands
 * are values of types of at most 64 bits, so sums, differences and signed
 * products are exact; only a product of two large UInt(64) values exceeds
 * 128 bits, and then its value modulo 2^128 keeps the low 64 bits that the
 * wrapping type keeps. `wide` is set when the result is not exact. */
inline __int128 add_128(__int128 a, __int128 b, bool &wide) {
    __int128 r;
    wide |= __builtin_add_overflow(a, b, &r);
    return r;
}
inline __int128 sub_128(__int128 a, __int128 b, bool &wide) {
    __int128 r;
    wide |= __builtin_sub_overflow(a, b, &r);
    return r;
}
inline __int128 mul_128(__int128 a, __int128 b, bool &wide) {
    __int128 r;
    wide |= __builtin_mul_overflow(a, b, &r);
    return r;
}

/** Euclidean division and modulus, written from the definition: the remainder
 * is in [0, |b|) and a == (a / b) * b + a % b; b == 0 gives 0. */
inline __int128 ref_mod(__int128 a, __int128 b) {
    if (b == 0) return 0;
    __int128 r = a % b;
    if (r < 0) r += b < 0 ? -b : b;
    return r;
}
inline __int128 ref_div(__int128 a, __int128 b) {
    if (b == 0) return 0;
    return (a - ref_mod(a, b)) / b;
}

class Evaluator {
public:
    std::map<std::string, Value> env;
    bool overflow = false;  // an Int(32)/Int(64) operation overflowed

    /** Lane `lane` of e (0 for scalars). */
    Value eval(const Expr &e, int lane = 0) {
        int saved = lane_;
        lane_ = lane;
        Value v = eval_node(e);
        lane_ = saved;
        return v;
    }

private:
    int lane_ = 0;

    /** The value of type t whose mathematical value is r; `wide` says that r
     * is only known modulo 2^128 (see mul_128). Int(32) and Int(64) do not
     * wrap: a result outside their range sets `overflow`. */
    Value int_result(Type t, __int128 r, bool wide = false) {
        bool exact_type = t.is_int() && t.bits() >= 32;
        if (exact_type) {
            if (wide) overflow = true;
            __int128 lo = t.bits() == 32 ? (__int128)INT32_MIN : (__int128)INT64_MIN;
            __int128 hi = t.bits() == 32 ? (__int128)INT32_MAX : (__int128)INT64_MAX;
            if (r < lo || r > hi) overflow = true;
        }
        Value v;
        v.i = wrap(t, (int64_t)(uint64_t)(unsigned __int128)r);
        return v;
    }

    Value eval_node(const Expr &e) {
        Type t = e.type();
        Value r;
        switch (e.node_type()) {
        case IRNodeType::IntImm: r.i = e.as<IntImm>()->value; return r;
        case IRNodeType::UIntImm: r.i = (int64_t)e.as<UIntImm>()->value; return r;
        case IRNodeType::FloatImm: r.f = e.as<FloatImm>()->value; return r;
        case IRNodeType::Variable: {
            auto it = env.find(e.as<Variable>()->name);
            if (it == env.end()) throw std::runtime_error("unbound variable " + e.as<Variable>()->name);
            return it->second;
        }
        case IRNodeType::Add: return arith(t, e.as<Add>()->a, e.as<Add>()->b, '+');
        case IRNodeType::Sub: return arith(t, e.as<Sub>()->a, e.as<Sub>()->b, '-');
        case IRNodeType::Mul: return arith(t, e.as<Mul>()->a, e.as<Mul>()->b, '*');
        case IRNodeType::Div: return arith(t, e.as<Div>()->a, e.as<Div>()->b, '/');
        case IRNodeType::Mod: return arith(t, e.as<Mod>()->a, e.as<Mod>()->b, '%');
        case IRNodeType::Min: return arith(t, e.as<Min>()->a, e.as<Min>()->b, 'm');
        case IRNodeType::Max: return arith(t, e.as<Max>()->a, e.as<Max>()->b, 'M');
        case IRNodeType::EQ: return compare(e.as<EQ>()->a, e.as<EQ>()->b, "==");
        case IRNodeType::NE: return compare(e.as<NE>()->a, e.as<NE>()->b, "!=");
        case IRNodeType::LT: return compare(e.as<LT>()->a, e.as<LT>()->b, "<");
        case IRNodeType::LE: return compare(e.as<LE>()->a, e.as<LE>()->b, "<=");
        case IRNodeType::GT: return compare(e.as<GT>()->b, e.as<GT>()->a, "<");
        case IRNodeType::GE: return compare(e.as<GE>()->b, e.as<GE>()->a, "<=");
        case IRNodeType::And: r.i = eval_node(e.as<And>()->a).i & eval_node(e.as<And>()->b).i; return r;
        case IRNodeType::Or: r.i = eval_node(e.as<Or>()->a).i | eval_node(e.as<Or>()->b).i; return r;
        case IRNodeType::Not: r.i = !eval_node(e.as<Not>()->a).i; return r;
        case IRNodeType::Select: {
            const auto *s = e.as<Select>();
            return eval_node(s->condition).i ? eval_node(s->true_value) : eval_node(s->false_value);
        }
        case IRNodeType::Cast: return cast(t, e.as<Cast>()->value);
        case IRNodeType::Let: {
            const auto *l = e.as<Let>();
            Value v = eval_node(l->value);
            auto old = env.find(l->name);
            std::optional<Value> saved;
            if (old != env.end()) saved = old->second;
            env[l->name] = v;
            Value b = eval_node(l->body);
            if (saved) {
                env[l->name] = *saved;
            } else {
                env.erase(l->name);
            }
            return b;
        }
        case IRNodeType::Broadcast: {
            const auto *b = e.as<Broadcast>();
            return eval(b->value, lane_ % b->value.type().lanes());
        }
        case IRNodeType::Ramp: {
            const auto *rp = e.as<Ramp>();
            int base_lanes = rp->base.type().lanes();
            Type et = rp->base.type().element_of();
            Value base = eval(rp->base, lane_ % base_lanes);
            Value stride = eval(rp->stride, lane_ % base_lanes);
            __int128 step = lane_ / base_lanes;
            if (et.is_float()) {
                r.f = round_to(et, base.f + round_to(et, stride.f * (double)step));
                return r;
            }
            bool wide = false;
            __int128 lane_value = add_128(exact(et, base), mul_128(exact(et, stride), step, wide), wide);
            return int_result(et, lane_value, wide);
        }
        default: throw std::runtime_error("evaluator: unsupported node " + to_string(e));
        }
    }

    Value arith(Type t, const Expr &ea, const Expr &eb, char op) {
        Value a = eval_node(ea), b = eval_node(eb), r;
        t = t.element_of();
        if (t.is_float()) {
            double x = a.f, y = b.f;
            switch (op) {
            case '+': r.f = round_to(t, x + y); break;
            case '-': r.f = round_to(t, x - y); break;
            case '*': r.f = round_to(t, x * y); break;
            case '/': r.f = round_to(t, x / y); break;
            case 'm': r.f = y < x ? y : x; break;
            case 'M': r.f = y > x ? y : x; break;
            default: throw std::runtime_error("float %");
            }
            return r;
        }
        __int128 x = exact(t, a), y = exact(t, b);
        bool wide = false;
        switch (op) {
        case '+': return int_result(t, add_128(x, y, wide), wide);
        case '-': return int_result(t, sub_128(x, y, wide), wide);
        case '*': return int_result(t, mul_128(x, y, wide), wide);
        case '/': return int_result(t, ref_div(x, y));
        case '%': return int_result(t, ref_mod(x, y));
        case 'm': return y < x ? b : a;
        default: return y > x ? b : a;
        }
    }

    Value compare(const Expr &ea, const Expr &eb, const std::string &op) {
        Value a = eval_node(ea), b = eval_node(eb), r;
        Type t = ea.type().element_of();
        bool res;
        if (t.is_float()) {
            res = op == "==" ? a.f == b.f : op == "!=" ? a.f != b.f : op == "<" ? a.f < b.f : a.f <= b.f;
        } else {
            __int128 x = exact(t, a), y = exact(t, b);
            res = op == "==" ? x == y : op == "!=" ? x != y : op == "<" ? x < y : x <= y;
        }
        r.i = res;
        return r;
    }

    Value cast(Type t, const Expr &ev) {
        Value v = eval_node(ev), r;
        t = t.element_of();
        Type from = ev.type().element_of();
        if (t.is_float()) {
            r.f = from.is_float() ? round_to(t, v.f) : round_to(t, (double)exact(from, v));
            return r;
        }
        if (from.is_float()) {
            // Truncate, saturating out of range and NaN -> 0 (as the interpreter does).
            double x = std::trunc(v.f);
            if (std::isnan(x)) x = 0;
            if (t.is_uint()) {
                double limit = std::ldexp(1.0, t.bits());
                uint64_t top = t.bits() >= 64 ? UINT64_MAX : (uint64_t(1) << t.bits()) - 1;
                r.i = x <= 0 ? 0 : x >= limit ? (int64_t)top : (int64_t)(uint64_t)x;
            } else {
                double limit = std::ldexp(1.0, t.bits() - 1);
                int64_t top = t.bits() >= 64 ? INT64_MAX : (int64_t(1) << (t.bits() - 1)) - 1;
                r.i = x >= limit ? top : x < -limit ? -top - 1 : (int64_t)x;
            }
            return r;
        }
        if (t.is_bool()) {
            r.i = v.i != 0;
            return r;
        }
        r.i = wrap(t, v.i);
        return r;
    }
};

inline bool same_value(Type t, const Value &a, const Value &b) {
    if (!t.is_float()) return a.i == b.i;
    if (std::isnan(a.f) && std::isnan(b.f)) return true;
    return std::memcmp(&a.f, &b.f, sizeof(double)) == 0;  // 0.0 and -0.0 differ
}

inline bool value_le(Type t, const Value &a, const Value &b) {
    if (t.is_float()) return a.f <= b.f;
    return exact(t, a) <= exact(t, b);
}

inline std::string describe(Type t, const Value &v) {
    if (t.is_float()) return std::to_string(v.f);
    if (t.is_uint()) return std::to_string((uint64_t)v.i);
    return std::to_string(v.i);
}

/** Lane `lane` of e as the reference interpreter computes it, with the
 * evaluator's variables. */
inline Value interpret_lane(const Expr &e, int lane, const std::map<std::string, Value> &env,
                            const std::map<std::string, Type> &types) {
    std::map<std::string, ScalarValue> vars;
    for (const auto &[name, v] : env) {
        auto it = types.find(name);
        if (it == types.end()) continue;
        ScalarValue s;
        s.type = it->second;
        if (s.type.is_float()) {
            s.f = v.f;
        } else {
            s.i = v.i;
        }
        vars[name] = s;
    }
    Expr scalar = e.type().is_vector() ? Shuffle::make_extract_element(e, lane) : e;
    ScalarValue r = evaluate_scalar(scalar, vars);
    Value out;
    if (r.type.is_float()) {
        out.f = r.f;
    } else if (r.type.is_uint()) {
        out.i = (int64_t)r.u;
    } else {
        out.i = r.i;
    }
    return out;
}

// ---------------------------------------------------------------- random expressions

/** Every scalar type the simplifier fuzzers cover. */
inline const std::vector<Type> &fuzz_types() {
    static const std::vector<Type> types = {Int(32), UInt(8), Int(16), Float(32), Int(8),
                                            UInt(16), UInt(32), Int(64), UInt(64)};
    return types;
}
inline const std::vector<Type> &integer_fuzz_types() {
    static const std::vector<Type> types = {Int(32), UInt(8), Int(16), Int(8), UInt(16), UInt(32), Int(64), UInt(64)};
    return types;
}

inline std::string var_name(int v, Type t) {
    static const char *const names[] = {"x", "y", "z"};
    return std::string(names[v]) + "_" + t.to_string();
}

/** The free variables of every fuzz type, with their types (for the interpreter). */
inline std::map<std::string, Type> fuzz_var_types() {
    std::map<std::string, Type> types;
    for (Type t : fuzz_types()) {
        for (int v = 0; v < 3; v++) types[var_name(v, t)] = t;
    }
    return types;
}

/** Default ranges of variables: wide, but Int(32)/Int(64) small enough that
 * sums and products rarely overflow. */
inline std::pair<int64_t, int64_t> full_range(Type t) {
    if (t.is_float()) return {-4, 4};
    if (t.is_uint()) return {0, t.bits() >= 64 ? INT64_MAX : (int64_t)((uint64_t(1) << t.bits()) - 1)};
    if (t.bits() <= 16) return {-(int64_t(1) << (t.bits() - 1)), (int64_t(1) << (t.bits() - 1)) - 1};
    if (t.bits() == 32) return {-100, 100};
    return {-(int64_t(1) << 40), int64_t(1) << 40};
}

inline Expr bound_const(Type t, int64_t v) {
    if (t.is_float()) return FloatImm::make(t, (double)v);
    if (t.is_uint()) return UIntImm::make(t, (uint64_t)v);
    return IntImm::make(t, v);
}

struct Generator {
    std::mt19937 rng;
    int lets = 0;
    std::vector<std::pair<std::string, Type>> let_vars;
    /** Scalar types the Cast case may convert from. */
    std::vector<Type> cast_sources = fuzz_types();

    explicit Generator(uint32_t seed) : rng(seed) {}

    int below(int n) { return (int)(rng() % (uint32_t)n); }
    int in(int lo, int hi) { return lo + below(hi - lo + 1); }
    uint64_t bits64() { return ((uint64_t)rng() << 32) | rng(); }

    Expr constant(Type t) {
        t = t.element_of();
        if (t.is_float()) {
            int r = below(10);
            if (r == 0) return FloatImm::make(t, -0.0);
            if (r == 1) return FloatImm::make(t, 0.0);
            return FloatImm::make(t, in(-16, 16) * 0.5);
        }
        if (t.is_uint()) {
            uint64_t top = t.bits() >= 64 ? UINT64_MAX : (uint64_t(1) << t.bits()) - 1;
            return UIntImm::make(t, below(4) == 0 ? top - (uint64_t)in(0, 15) : (uint64_t)in(0, 16));
        }
        if (t.bits() < 32 && below(6) == 0) {
            int64_t half = int64_t(1) << (t.bits() - 1);
            return IntImm::make(t, below(2) ? half - 1 : -half);
        }
        return IntImm::make(t, in(-10, 10));
    }

    /** A divisor: mostly constants of either sign, zero included. */
    Expr divisor(Type t, int depth) {
        int r = below(8);
        if (r == 0) return bound_const(t.element_of(), 0);
        if (r <= 4 || depth <= 0) return constant(t);
        return gen(t, depth - 1);
    }

    Expr leaf(Type t) {
        if (below(10) < 4) return constant(t);
        std::vector<std::string> lets_of_t;
        for (const auto &[name, type] : let_vars) {
            if (type == t) lets_of_t.push_back(name);
        }
        if (!lets_of_t.empty() && below(2)) return Variable::make(t, lets_of_t[below((int)lets_of_t.size())]);
        return Variable::make(t, var_name(below(3), t));
    }

    Expr condition(Type t, int depth) {
        int r = below(10);
        if (depth > 1 && r == 0) return And::make(condition(t, depth - 1), condition(t, depth - 1));
        if (depth > 1 && r == 1) return Or::make(condition(t, depth - 1), condition(t, depth - 1));
        if (depth > 1 && r == 2) return Not::make(condition(t, depth - 1));
        Expr a = gen(t, depth - 1), b = gen(t, depth - 1);
        switch (below(6)) {
        case 0: return EQ::make(a, b);
        case 1: return NE::make(a, b);
        case 2: return LT::make(a, b);
        case 3: return LE::make(a, b);
        case 4: return GT::make(a, b);
        default: return GE::make(a, b);
        }
    }

    /** A random scalar expression of type t. */
    Expr gen(Type t, int depth) {
        if (depth <= 0 || below(8) == 0) return leaf(t);
        auto sub = [&]() { return gen(t, depth - 1); };
        int op = below(t.is_float() ? 8 : 11);
        switch (op) {
        case 0: return Add::make(sub(), sub());
        case 1: return Sub::make(sub(), sub());
        case 2: return Mul::make(sub(), below(4) ? constant(t) : sub());  // mostly by constants: less overflow
        case 3: return Min::make(sub(), sub());
        case 4: return Max::make(sub(), sub());
        case 5: return Select::make(condition(t, depth - 1), sub(), sub());
        case 6: {
            Type from;
            do {
                from = cast_sources[below((int)cast_sources.size())];
            } while (from == t || (t.is_float() && from.is_float()));
            return Cast::make(t, gen(from, depth - 1));
        }
        case 7: {
            std::string name = "l" + std::to_string(lets++);
            Expr value = sub();
            let_vars.emplace_back(name, t);
            Expr body = sub();
            let_vars.pop_back();
            return Let::make(name, value, body);
        }
        case 8: {
            Expr a = sub();
            return Div::make(a, divisor(t, depth));
        }
        case 9: {
            Expr a = sub();
            return Mod::make(a, divisor(t, depth));
        }
        default: return Add::make(sub(), constant(t));
        }
    }

    /** A random integer vector expression of `lanes` lanes and element type
     * t: ramps and broadcasts of scalar expressions combined lane-wise, with
     * division and modulus by broadcast constants of either sign. */
    Expr gen_vector(Type t, int lanes, int depth) {
        Type vt = t.with_lanes(lanes);
        if (depth <= 0 || below(6) == 0) {
            int r = below(8);
            if (r < 2) return Broadcast::make(gen(t, 1), lanes);
            if (r < 4) return Broadcast::make(constant(t), lanes);
            Expr stride = below(3) ? constant(t) : gen(t, 1);
            return Ramp::make(below(3) ? gen(t, 2) : aligned_base(t), stride, lanes);
        }
        auto sub = [&]() { return gen_vector(t, lanes, depth - 1); };
        auto vconst = [&]() { return Broadcast::make(constant(t), lanes); };
        switch (below(10)) {
        case 0: return Add::make(sub(), sub());
        case 1: return Sub::make(sub(), sub());
        case 2: return Mul::make(sub(), below(4) ? vconst() : sub());
        case 3: return Min::make(sub(), sub());
        case 4: return Max::make(sub(), sub());
        case 5: {
            Expr a = sub(), b = sub();
            Expr c = below(2) ? (Expr)LT::make(a, b) : (Expr)EQ::make(a, b);
            return Select::make(c, sub(), sub());
        }
        case 6:
        case 7: {
            Expr a = sub();
            Expr d = below(5) ? Broadcast::make(divisor(t, 0), lanes) : sub();
            return below(2) ? (Expr)Div::make(a, d) : (Expr)Mod::make(a, d);
        }
        case 8: {
            std::string name = "v" + std::to_string(lets++);
            Expr value = sub();
            Expr body = gen_vector(t, lanes, depth - 1);
            // The body reads the let's value through a use in a sum.
            return Let::make(name, value, Add::make(body, Variable::make(vt, name)));
        }
        default: {
            Type from = integer_fuzz_types()[below((int)integer_fuzz_types().size())];
            if (from == t) return sub();
            return Cast::make(vt, gen_vector(from, lanes, depth - 1));
        }
        }
    }

    /** x*c for a constant c, the shape of a tile's base (x*16). */
    Expr aligned_base(Type t) {
        static const int factors[] = {2, 4, 8, 16, -4};
        int c = factors[below(5)];
        if (t.is_uint() && c < 0) c = -c;
        Expr b = Mul::make(Variable::make(t, var_name(below(3), t)), bound_const(t, c));
        return below(2) ? b : (Expr)Add::make(b, constant(t));
    }

    /** A random value of a variable of type t inside [lo, hi]. */
    Value sample(Type t, int64_t lo, int64_t hi) {
        Value v;
        if (t.is_float()) {
            v.f = (double)(lo * 4 + below((int)((hi - lo) * 4 + 1))) / 4.0;
            return v;
        }
        uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;  // 0: all of uint64
        uint64_t r = bits64();
        // Small values and the ends of the range often: that is where rules break.
        switch (below(8)) {
        case 0: r = (uint64_t)below(16); break;
        case 1: r = span - 1 - (uint64_t)below(16); break;
        default: break;
        }
        v.i = (int64_t)((uint64_t)lo + (span ? r % span : r));
        return v;
    }
};

/** Runs a small statement language (For, LetStmt, IfThenElse, Block, Store,
 * Evaluate) and logs every store in order. A binder that shadows a name
 * restores the outer value afterwards. */
struct StmtRunner {
    Evaluator ev;
    std::vector<std::pair<int64_t, int64_t>> stores;  // (index, value)

    void run(const Stmt &s) {
        if (const auto *b = s.as<Block>()) {
            run(b->first);
            run(b->rest);
        } else if (const auto *f = s.as<For>()) {
            int64_t lo = ev.eval(f->min).i, extent = ev.eval(f->extent).i;
            std::optional<Value> outer = saved(f->name);
            for (int64_t i = lo; i < lo + extent; i++) {
                ev.env[f->name].i = i;
                run(f->body);
            }
            restore(f->name, outer);
        } else if (const auto *l = s.as<LetStmt>()) {
            Value v = ev.eval(l->value);
            std::optional<Value> outer = saved(l->name);
            ev.env[l->name] = v;
            run(l->body);
            restore(l->name, outer);
        } else if (const auto *c = s.as<IfThenElse>()) {
            if (ev.eval(c->condition).i) {
                run(c->then_case);
            } else if (c->else_case.defined()) {
                run(c->else_case);
            }
        } else if (const auto *st = s.as<Store>()) {
            stores.emplace_back(ev.eval(st->index).i, ev.eval(st->value).i);
        } else if (const auto *e = s.as<Evaluate>()) {
            ev.eval(e->value);
        } else {
            throw std::runtime_error("StmtRunner: unsupported statement " + to_string(s));
        }
    }

private:
    std::optional<Value> saved(const std::string &name) {
        auto it = ev.env.find(name);
        if (it == ev.env.end()) return std::nullopt;
        return it->second;
    }
    void restore(const std::string &name, const std::optional<Value> &outer) {
        if (outer) {
            ev.env[name] = *outer;
        } else {
            ev.env.erase(name);
        }
    }
};

/** LOOM_FUZZ_SCALE multiplies the number of expressions and LOOM_FUZZ_SEED
 * changes the seed, for longer runs by hand; the defaults keep CI fast. */
inline int fuzz_scale() {
    const char *s = std::getenv("LOOM_FUZZ_SCALE");
    return s ? std::max(1, std::atoi(s)) : 1;
}

inline uint32_t fuzz_seed(uint32_t base) {
    const char *s = std::getenv("LOOM_FUZZ_SEED");
    return s ? base + (uint32_t)std::atoi(s) : base;
}

inline std::string describe_env(const Evaluator &ev) {
    std::ostringstream os;
    for (const auto &[name, v] : ev.env) os << " " << name << "=" << v.i << "/" << v.f;
    return os.str();
}

}  // namespace fuzz_support
}  // namespace loom

#endif
