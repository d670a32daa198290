// Randomized checks of the simplifier and of bounds inference: random
// Int(32)/UInt(8)/Int(16)/Float(32) expressions of depth <= 5 over three
// variables per type must evaluate the same after simplify(), and every value
// they take for variables inside a scope must lie inside
// bounds_of_expr_in_scope. The evaluator below is private to this test so
// that it can also report Int(32) overflow, which Loom (like Halide) treats
// as undefined: samples that overflow are skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <sstream>

#include "ir/Bounds.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/Simplify.h"

using namespace loom;
using namespace loom::internal;

namespace {

// ---------------------------------------------------------------- evaluator

/** Integers are held sign- or zero-extended to int64, floats as double
 * (rounded to float after every Float(32) operation). */
struct Value {
    int64_t i = 0;
    double f = 0;
};

int64_t wrap(Type t, int64_t v) {
    int bits = t.bits();
    if (bits >= 64) return v;
    uint64_t mask = (uint64_t(1) << bits) - 1;
    uint64_t u = (uint64_t)v & mask;
    if (t.is_int() && (u >> (bits - 1))) u |= ~mask;
    return (int64_t)u;
}

double round_to(Type t, double v) { return t.bits() == 32 ? (double)(float)v : v; }

int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

int64_t euclid_mod(int64_t a, int64_t b) {
    int64_t r = a % b;
    return r < 0 ? r + (b < 0 ? -b : b) : r;
}

struct Evaluator {
    std::map<std::string, Value> env;
    bool overflow = false;  // an Int(32) operation overflowed

    /** The exact result r of an integer operation of type t, wrapped. */
    Value int_result(Type t, __int128 r) {
        if (t.is_int() && t.bits() == 32 && (r < INT32_MIN || r > INT32_MAX)) overflow = true;
        Value v;
        v.i = wrap(t, (int64_t)r);
        return v;
    }

    Value eval(const Expr &e) {
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
        case IRNodeType::And: r.i = eval(e.as<And>()->a).i & eval(e.as<And>()->b).i; return r;
        case IRNodeType::Or: r.i = eval(e.as<Or>()->a).i | eval(e.as<Or>()->b).i; return r;
        case IRNodeType::Not: r.i = !eval(e.as<Not>()->a).i; return r;
        case IRNodeType::Select: {
            const auto *s = e.as<Select>();
            return eval(s->condition).i ? eval(s->true_value) : eval(s->false_value);
        }
        case IRNodeType::Cast: return cast(t, e.as<Cast>()->value);
        case IRNodeType::Let: {
            const auto *l = e.as<Let>();
            Value v = eval(l->value);
            auto old = env.find(l->name);
            std::optional<Value> saved;
            if (old != env.end()) saved = old->second;
            env[l->name] = v;
            Value b = eval(l->body);
            if (saved) {
                env[l->name] = *saved;
            } else {
                env.erase(l->name);
            }
            return b;
        }
        default: throw std::runtime_error("evaluator: unsupported node " + to_string(e));
        }
    }

    Value arith(Type t, const Expr &ea, const Expr &eb, char op) {
        Value a = eval(ea), b = eval(eb), r;
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
        __int128 x = a.i, y = b.i;
        switch (op) {
        case '+': return int_result(t, x + y);
        case '-': return int_result(t, x - y);
        case '*': return int_result(t, x * y);
        case '/': return int_result(t, y == 0 ? 0 : (__int128)floor_div(a.i, b.i));
        case '%': return int_result(t, y == 0 ? 0 : (__int128)euclid_mod(a.i, b.i));
        case 'm': r.i = std::min(a.i, b.i); return r;
        default: r.i = std::max(a.i, b.i); return r;
        }
    }

    Value compare(const Expr &ea, const Expr &eb, const std::string &op) {
        Value a = eval(ea), b = eval(eb), r;
        bool res;
        if (ea.type().is_float()) {
            res = op == "==" ? a.f == b.f : op == "!=" ? a.f != b.f : op == "<" ? a.f < b.f : a.f <= b.f;
        } else {
            res = op == "==" ? a.i == b.i : op == "!=" ? a.i != b.i : op == "<" ? a.i < b.i : a.i <= b.i;
        }
        r.i = res;
        return r;
    }

    Value cast(Type t, const Expr &ev) {
        Value v = eval(ev), r;
        Type from = ev.type();
        if (t.is_float()) {
            r.f = from.is_float() ? round_to(t, v.f) : round_to(t, (double)v.i);
            return r;
        }
        if (from.is_float()) {
            // Truncate, saturating out of range (as the interpreter does).
            double x = std::trunc(v.f);
            double lo = t.is_uint() ? 0 : -std::ldexp(1.0, t.bits() - 1);
            double hi = t.is_uint() ? std::ldexp(1.0, t.bits()) - 1 : std::ldexp(1.0, t.bits() - 1) - 1;
            if (std::isnan(x)) x = 0;
            r.i = (int64_t)std::min(std::max(x, lo), hi);
            return r;
        }
        r.i = wrap(t, v.i);
        return r;
    }
};

bool same_value(Type t, const Value &a, const Value &b) {
    if (!t.is_float()) return a.i == b.i;
    if (std::isnan(a.f) && std::isnan(b.f)) return true;
    return std::memcmp(&a.f, &b.f, sizeof(double)) == 0;  // 0.0 and -0.0 differ
}

// ---------------------------------------------------------------- random expressions

const Type kTypes[] = {Int(32), UInt(8), Int(16), Float(32)};
const char *const kVarNames[] = {"x", "y", "z"};

std::string var_name(int v, Type t) { return std::string(kVarNames[v]) + "_" + t.to_string(); }

struct Generator {
    std::mt19937 rng;
    int lets = 0;
    std::vector<std::pair<std::string, Type>> let_vars;

    explicit Generator(uint32_t seed) : rng(seed) {}

    int below(int n) { return (int)(rng() % (uint32_t)n); }
    int in(int lo, int hi) { return lo + below(hi - lo + 1); }

    Expr constant(Type t) {
        if (t.is_float()) {
            int r = below(10);
            if (r == 0) return FloatImm::make(t, -0.0);
            if (r == 1) return FloatImm::make(t, 0.0);
            return FloatImm::make(t, in(-16, 16) * 0.5);
        }
        if (t.is_uint()) return UIntImm::make(t, below(4) == 0 ? in(240, 255) : in(0, 16));
        if (t.bits() == 16 && below(6) == 0) return IntImm::make(t, below(2) ? 32767 : -32768);
        return IntImm::make(t, in(-10, 10));
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
                from = kTypes[below(4)];
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
        case 8:
        case 9: {
            Expr d = below(4) ? constant(t) : sub();
            return op == 8 ? Div::make(sub(), d) : Mod::make(sub(), d);
        }
        default: return Add::make(sub(), constant(t));
        }
    }

    /** A random value of a variable of type t inside [lo, hi]. */
    Value sample(Type t, int64_t lo, int64_t hi) {
        Value v;
        if (t.is_float()) {
            v.f = (double)(lo * 4 + below((int)((hi - lo) * 4 + 1))) / 4.0;
        } else {
            v.i = lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1));
        }
        return v;
    }
};

/** Wide default ranges for variables, and a narrower random scope. */
std::pair<int64_t, int64_t> full_range(Type t) {
    if (t.is_float()) return {-4, 4};
    if (t.is_uint()) return {0, 255};
    if (t.bits() == 16) return {-32768, 32767};
    return {-100, 100};
}

Expr bound_const(Type t, int64_t v) {
    if (t.is_float()) return FloatImm::make(t, (double)v);
    if (t.is_uint()) return UIntImm::make(t, (uint64_t)v);
    return IntImm::make(t, v);
}

bool value_le(Type t, const Value &a, const Value &b) { return t.is_float() ? a.f <= b.f : a.i <= b.i; }

std::string describe_ranges(const std::map<std::string, std::pair<int64_t, int64_t>> &ranges) {
    std::ostringstream os;
    for (const auto &[name, r] : ranges) os << " " << name << " in [" << r.first << ", " << r.second << "]";
    return os.str();
}

std::string describe_env(const Evaluator &ev) {
    std::ostringstream os;
    for (const auto &[name, v] : ev.env) os << " " << name << "=" << v.i << "/" << v.f;
    return os.str();
}

/** LOOM_FUZZ_SCALE multiplies the number of expressions and LOOM_FUZZ_SEED
 * changes the seed, for longer runs by hand; the defaults keep CI fast. */
int fuzz_scale() {
    const char *s = std::getenv("LOOM_FUZZ_SCALE");
    return s ? std::max(1, std::atoi(s)) : 1;
}

uint32_t fuzz_seed(uint32_t base) {
    const char *s = std::getenv("LOOM_FUZZ_SEED");
    return s ? base + (uint32_t)std::atoi(s) : base;
}

}  // namespace

TEST(SimplifyFuzz, SimplifiedExpressionsEvaluateTheSame) {
    Generator gen(fuzz_seed(20240611));
    int checked = 0, skipped = 0;
    for (int iter = 0; iter < 3000 * fuzz_scale(); iter++) {
        Type t = kTypes[iter % 4];
        Expr e = gen.gen(t, 5);
        Expr s = simplify(e);
        ASSERT_EQ(s.type(), e.type()) << e;
        for (int k = 0; k < 8; k++) {
            Evaluator ev;
            for (Type vt : kTypes) {
                auto [lo, hi] = full_range(vt);
                for (int v = 0; v < 3; v++) ev.env[var_name(v, vt)] = gen.sample(vt, lo, hi);
            }
            Evaluator ev2 = ev;
            Value want = ev.eval(e);
            Value got = ev2.eval(s);
            if (ev.overflow || ev2.overflow) {
                skipped++;
                continue;
            }
            checked++;
            ASSERT_TRUE(same_value(t, want, got))
                << "expression: " << e << "\nsimplified: " << s << "\nvalues:" << describe_env(ev) << "\nwant "
                << want.i << "/" << want.f << ", got " << got.i << "/" << got.f;
        }
    }
    EXPECT_GT(checked, 10 * skipped) << "too many samples overflowed to be a useful test";
}

TEST(SimplifyFuzz, ValuesLieInsideBoundsAndScopedSimplification) {
    Generator gen(fuzz_seed(7));
    int checked = 0, bounded = 0;
    for (int iter = 0; iter < 2000 * fuzz_scale(); iter++) {
        Type t = kTypes[iter % 4];
        Expr e = gen.gen(t, 5);
        // A random box for every variable.
        Scope<Interval> scope;
        std::map<std::string, std::pair<int64_t, int64_t>> ranges;
        for (Type vt : kTypes) {
            auto [lo, hi] = full_range(vt);
            for (int v = 0; v < 3; v++) {
                int64_t a = gen.sample(Int(64), lo, hi).i, b = gen.sample(Int(64), lo, hi).i;
                if (gen.below(3) == 0) b = std::min(hi, a + gen.below(8));  // some narrow ranges
                if (a > b) std::swap(a, b);
                std::string name = var_name(v, vt);
                ranges[name] = {a, b};
                scope.push(name, Interval(bound_const(vt, a), bound_const(vt, b)));
            }
        }
        Interval b = bounds_of_expr_in_scope(e, scope);
        Expr s = simplify(e, scope);
        if (b.min.defined() || b.max.defined()) bounded++;
        for (int k = 0; k < 8; k++) {
            Evaluator ev;
            for (Type vt : kTypes) {
                for (int v = 0; v < 3; v++) {
                    std::string name = var_name(v, vt);
                    ev.env[name] = gen.sample(vt, ranges[name].first, ranges[name].second);
                }
            }
            Evaluator ev2 = ev;
            Value value = ev.eval(e);
            Value simplified = ev2.eval(s);
            if (ev.overflow || ev2.overflow) continue;
            if (t.is_float() && std::isnan(value.f)) continue;
            checked++;
            ASSERT_TRUE(same_value(t, value, simplified))
                << "expression: " << e << "\nsimplified in scope: " << s << "\nvalues:" << describe_env(ev)
                << "\nscope:" << describe_ranges(ranges);
            Evaluator bev = ev;
            if (b.min.defined()) {
                Value lo = bev.eval(b.min);
                ASSERT_TRUE(value_le(t, lo, value)) << "expression: " << e << "\nlower bound " << b.min << " = " << lo.i
                                                    << "/" << lo.f << " > " << value.i << "/" << value.f
                                                    << "\nvalues:" << describe_env(ev);
            }
            if (b.max.defined()) {
                Value hi = bev.eval(b.max);
                ASSERT_TRUE(value_le(t, value, hi)) << "expression: " << e << "\nupper bound " << b.max << " = " << hi.i
                                                    << "/" << hi.f << " < " << value.i << "/" << value.f
                                                    << "\nvalues:" << describe_env(ev);
            }
        }
    }
    EXPECT_GT(checked, 8000);
    EXPECT_GT(bounded, 1000);
}

TEST(SimplifyFuzz, SymbolicScopes) {
    // x in [y, y + a] and z in [0, y + b], with y free: the simplifier's
    // fallback to symbolic bounds and bounds inference over symbolic
    // intervals must both stay sound.
    Generator gen(fuzz_seed(99));
    Type t = Int(32);
    std::string xn = var_name(0, t), yn = var_name(1, t), zn = var_name(2, t);
    Expr y = Variable::make(t, yn);
    int checked = 0;
    for (int iter = 0; iter < 1000 * fuzz_scale(); iter++) {
        Expr e = gen.gen(t, 4);
        int a = gen.in(0, 20), b = gen.in(0, 20);
        Scope<Interval> scope;
        scope.push(xn, Interval(y, Add::make(y, Expr(a))));
        scope.push(zn, Interval(Expr(0), Add::make(y, Expr(b))));
        Interval bounds = bounds_of_expr_in_scope(e, scope);
        Expr s = simplify(e, scope);
        for (int k = 0; k < 8; k++) {
            Evaluator ev;
            for (Type vt : kTypes) {
                auto [lo, hi] = full_range(vt);
                for (int v = 0; v < 3; v++) ev.env[var_name(v, vt)] = gen.sample(vt, lo, hi);
            }
            int64_t yv = gen.in(0, 50);
            ev.env[yn].i = yv;
            ev.env[xn].i = yv + gen.in(0, a);
            ev.env[zn].i = gen.in(0, (int)yv + b);
            Evaluator ev2 = ev, bev = ev;
            Value value = ev.eval(e);
            Value simplified = ev2.eval(s);
            if (ev.overflow || ev2.overflow) continue;
            checked++;
            std::string context = "expression: " + to_string(e) + "\nsimplified: " + to_string(s) +
                                  "\nscope: x in [y, y + " + std::to_string(a) + "], z in [0, y + " +
                                  std::to_string(b) + "]\nvalues:" + describe_env(ev);
            ASSERT_EQ(value.i, simplified.i) << context;
            if (bounds.min.defined()) {
                Value lo = bev.eval(bounds.min);
                if (!bev.overflow) {
                    ASSERT_LE(lo.i, value.i) << context << "\nlower bound " << bounds.min;
                }
            }
            if (bounds.max.defined()) {
                Value hi = bev.eval(bounds.max);
                if (!bev.overflow) {
                    ASSERT_LE(value.i, hi.i) << context << "\nupper bound " << bounds.max;
                }
            }
        }
    }
    EXPECT_GT(checked, 4000);
}

// ---------------------------------------------------------------- statements

namespace {

/** Runs the small statement language of the test (For, LetStmt,
 * IfThenElse, Block, Store, Evaluate) and logs every store in order. */
struct StmtRunner {
    Evaluator ev;
    std::vector<std::pair<int64_t, int64_t>> stores;  // (index, value)

    void run(const Stmt &s) {
        if (const auto *b = s.as<Block>()) {
            run(b->first);
            run(b->rest);
        } else if (const auto *f = s.as<For>()) {
            int64_t lo = ev.eval(f->min).i, extent = ev.eval(f->extent).i;
            for (int64_t i = lo; i < lo + extent; i++) {
                ev.env[f->name].i = i;
                run(f->body);
            }
            ev.env.erase(f->name);
        } else if (const auto *l = s.as<LetStmt>()) {
            ev.env[l->name] = ev.eval(l->value);
            run(l->body);
            ev.env.erase(l->name);
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
};

struct StmtGenerator {
    Generator &gen;
    int names = 0, stores = 0;
    Type t = Int(32);

    Expr extent() {
        Expr free = Variable::make(t, var_name(gen.below(3), t));
        switch (gen.below(4)) {
        case 0: return Min::make(free, Expr(5));
        case 1: return Min::make(Sub::make(free, Variable::make(t, var_name(gen.below(3), t))), Expr(4));
        default: return Expr(gen.in(-1, 4));
        }
    }

    Stmt stmt(int depth) {
        int r = depth <= 0 ? 4 : gen.below(6);
        switch (r) {
        case 0: {
            std::string name = "i" + std::to_string(names++);
            Expr min = gen.below(2) ? Expr(gen.in(-3, 3)) : gen.gen(t, 2);
            Expr ext = extent();
            gen.let_vars.emplace_back(name, t);
            Stmt body = stmt(depth - 1);
            gen.let_vars.pop_back();
            return For::make(name, min, ext, ForType::Serial, DeviceAPI::None, body);
        }
        case 1: {
            Expr cond = gen.condition(t, 2);
            Stmt then_case = stmt(depth - 1);
            Stmt else_case = gen.below(2) ? stmt(depth - 1) : Stmt();
            return IfThenElse::make(cond, then_case, else_case);
        }
        case 2: {
            std::string name = "s" + std::to_string(names++);
            Expr value = gen.gen(t, 2);
            gen.let_vars.emplace_back(name, t);
            Stmt body = stmt(depth - 1);
            gen.let_vars.pop_back();
            return LetStmt::make(name, value, body);
        }
        case 3: return Block::make(stmt(depth - 1), stmt(depth - 1));
        default: return Store::make("buf", gen.gen(t, 3), Expr(stores++));
        }
    }
};

}  // namespace

TEST(SimplifyFuzz, SimplifiedStatementsStoreTheSame) {
    Generator gen(fuzz_seed(1234));
    int checked = 0;
    for (int iter = 0; iter < 1500 * fuzz_scale(); iter++) {
        StmtGenerator sg{gen};
        Stmt s = sg.stmt(4);
        Stmt simplified = simplify(s);
        for (int k = 0; k < 6; k++) {
            StmtRunner a;
            for (Type vt : kTypes) {
                for (int v = 0; v < 3; v++) {
                    auto [lo, hi] = vt == Int(32) ? std::pair<int64_t, int64_t>(-10, 10) : full_range(vt);
                    a.ev.env[var_name(v, vt)] = gen.sample(vt, lo, hi);
                }
            }
            StmtRunner b = a;
            a.run(s);
            b.run(simplified);
            if (a.ev.overflow || b.ev.overflow) continue;
            checked++;
            ASSERT_EQ(a.stores, b.stores) << "statement:\n" << s << "\nsimplified:\n" << simplified
                                          << "\nvalues:" << describe_env(a.ev);
        }
    }
    EXPECT_GT(checked, 6000);
}
