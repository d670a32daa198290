// Randomized checks of the simplifier and of bounds inference: random
// expressions of depth <= 5 over three variables of every integer width
// (signed and unsigned) and Float(32) must evaluate the same after
// simplify(), and every value they take for variables inside a scope must lie
// inside bounds_of_expr_in_scope. Values come from the independent evaluator
// of SimplifyFuzzSupport.h, which is itself checked against the reference
// interpreter (so a rule that assumes other division semantics than Loom's
// Euclidean ones fails here).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "SimplifyFuzzSupport.h"
#include "ir/Bounds.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"

using namespace loom;
using namespace loom::internal;
using namespace loom::fuzz_support;

namespace {

std::string describe_ranges(const std::map<std::string, std::pair<int64_t, int64_t>> &ranges) {
    std::ostringstream os;
    for (const auto &[name, r] : ranges) os << " " << name << " in [" << r.first << ", " << r.second << "]";
    return os.str();
}

/** Every variable of every fuzz type, sampled from its full range. */
Evaluator sample_everything(Generator &gen) {
    Evaluator ev;
    for (Type vt : fuzz_types()) {
        auto [lo, hi] = full_range(vt);
        for (int v = 0; v < 3; v++) ev.env[var_name(v, vt)] = gen.sample(vt, lo, hi);
    }
    return ev;
}

}  // namespace

TEST(SimplifyFuzz, SimplifiedExpressionsEvaluateTheSame) {
    Generator gen(fuzz_seed(20240611));
    const auto types = fuzz_var_types();
    int checked = 0, skipped = 0, interpreted = 0;
    for (int iter = 0; iter < 4000 * fuzz_scale(); iter++) {
        Type t = fuzz_types()[iter % fuzz_types().size()];
        Expr e = gen.gen(t, 5);
        Expr s = simplify(e);
        ASSERT_EQ(s.type(), e.type()) << e;
        for (int k = 0; k < 8; k++) {
            Evaluator ev = sample_everything(gen);
            Evaluator ev2 = ev;
            Value want = ev.eval(e);
            Value got = ev2.eval(s);
            if (ev.overflow || ev2.overflow) {
                skipped++;
                continue;
            }
            checked++;
            std::string context = "expression: " + to_string(e) + "\nsimplified: " + to_string(s) +
                                  "\nvalues:" + describe_env(ev);
            ASSERT_TRUE(same_value(t, want, got))
                << context << "\nwant " << describe(t, want) << ", got " << describe(t, got);
            if (k < 2) {
                // The evaluator and the simplified form agree with the interpreter.
                Value reference = interpret_lane(e, 0, ev.env, types);
                ASSERT_TRUE(same_value(t, want, reference))
                    << context << "\ntest evaluator " << describe(t, want) << ", interpreter " << describe(t, reference);
                ASSERT_TRUE(same_value(t, got, interpret_lane(s, 0, ev.env, types))) << context;
                interpreted++;
            }
        }
    }
    EXPECT_GT(checked, 10 * skipped) << "too many samples overflowed to be a useful test";
    EXPECT_GT(interpreted, 6000);
}

/** Division and modulus of every integer type by constants of either sign
 * (zero included), of numerators of either sign: the simplified form, the
 * evaluator's Euclidean definition and the interpreter must all agree. */
TEST(SimplifyFuzz, DivisionByNegativeAndZeroDivisorsIsEuclidean) {
    Generator gen(fuzz_seed(4242));
    const auto types = fuzz_var_types();
    int checked = 0, skipped = 0, negative_divisors = 0;
    for (int iter = 0; iter < 3000 * fuzz_scale(); iter++) {
        Type t = integer_fuzz_types()[iter % integer_fuzz_types().size()];
        Expr a = gen.gen(t, 2);
        if (gen.below(3) == 0) a = Add::make(gen.aligned_base(t), gen.constant(t));
        int64_t k = t.is_uint() ? gen.in(0, 20) : gen.in(-20, 20);
        Expr d = bound_const(t, k);
        Expr e = gen.below(2) ? (Expr)Div::make(a, d) : (Expr)Mod::make(a, d);
        if (gen.below(2)) e = Add::make(e, Mul::make(Div::make(a, d), d));  // the pair of div and mod
        Scope<Interval> scope;
        if (gen.below(2)) {
            // A narrow range for the numerator's variables, often all negative.
            for (int v = 0; v < 3; v++) {
                int64_t lo = t.is_uint() ? gen.in(0, 40) : gen.in(-40, 20);
                scope.push(var_name(v, t), Interval(bound_const(t, lo), bound_const(t, lo + gen.in(0, 6))));
            }
        }
        Expr s = simplify(e, scope);
        for (int sample = 0; sample < 4; sample++) {
            Evaluator ev = sample_everything(gen);
            scope.for_each([&](const std::string &name, const Interval &i) {
                int64_t lo = t.is_uint() ? (int64_t)*as_const_uint(i.min) : *as_const_int(i.min);
                int64_t hi = t.is_uint() ? (int64_t)*as_const_uint(i.max) : *as_const_int(i.max);
                ev.env[name] = gen.sample(t, lo, hi);
            });
            Evaluator ev2 = ev;
            Value want = ev.eval(e), got = ev2.eval(s);
            if (ev.overflow || ev2.overflow) {
                skipped++;
                continue;
            }
            checked++;
            if (k < 0) negative_divisors++;
            Value reference = interpret_lane(e, 0, ev.env, types);
            std::string context = "expression: " + to_string(e) + "\nsimplified: " + to_string(s) +
                                  "\nvalues:" + describe_env(ev);
            ASSERT_TRUE(same_value(t, want, reference))
                << context << "\ntest evaluator " << describe(t, want) << ", interpreter " << describe(t, reference);
            ASSERT_TRUE(same_value(t, want, got)) << context << "\nwant " << describe(t, want) << ", got "
                                                  << describe(t, got);
        }
    }
    EXPECT_GT(checked, 10000);
    EXPECT_GT(checked, 10 * skipped) << "too many samples overflowed to be a useful test";
    EXPECT_GT(negative_divisors, 2000);
}

/** Vector expressions (ramps and broadcasts combined lane by lane, divided by
 * broadcast constants of either sign) must evaluate the same in every lane. */
TEST(SimplifyFuzz, VectorExpressionsEvaluateTheSame) {
    Generator gen(fuzz_seed(31337));
    const auto types = fuzz_var_types();
    const Type vector_types[] = {Int(32), Int(16), UInt(8), Int(64), UInt(32), Int(8)};
    int checked = 0, skipped = 0;
    for (int iter = 0; iter < 1500 * fuzz_scale(); iter++) {
        Type t = vector_types[iter % std::size(vector_types)];
        int lanes = gen.below(2) ? 4 : 8;
        Expr e = gen.gen_vector(t, lanes, 4);
        Expr s = simplify(e);
        ASSERT_EQ(s.type(), e.type()) << e;
        for (int sample = 0; sample < 3; sample++) {
            Evaluator ev = sample_everything(gen);
            for (int lane = 0; lane < lanes; lane++) {
                Evaluator ev2 = ev, ev3 = ev;
                Value want = ev2.eval(e, lane), got = ev3.eval(s, lane);
                if (ev2.overflow || ev3.overflow) {
                    skipped++;
                    continue;
                }
                checked++;
                std::string context = "expression: " + to_string(e) + "\nsimplified: " + to_string(s) +
                                      "\nlane " + std::to_string(lane) + ", values:" + describe_env(ev);
                ASSERT_TRUE(same_value(t, want, got))
                    << context << "\nwant " << describe(t, want) << ", got " << describe(t, got);
                if (sample == 0 && (lane == 0 || lane == lanes - 1)) {
                    Value reference = interpret_lane(e, lane, ev.env, types);
                    ASSERT_TRUE(same_value(t, want, reference)) << context << "\ntest evaluator " << describe(t, want)
                                                                << ", interpreter " << describe(t, reference);
                    ASSERT_TRUE(same_value(t, got, interpret_lane(s, lane, ev.env, types))) << context;
                }
            }
        }
    }
    EXPECT_GT(checked, 10 * skipped) << "too many samples overflowed to be a useful test";
}

TEST(SimplifyFuzz, ValuesLieInsideBoundsAndScopedSimplification) {
    Generator gen(fuzz_seed(7));
    int checked = 0, skipped = 0, bounded = 0;
    for (int iter = 0; iter < 2000 * fuzz_scale(); iter++) {
        Type t = fuzz_types()[iter % fuzz_types().size()];
        Expr e = gen.gen(t, 5);
        // A random box for every variable.
        Scope<Interval> scope;
        std::map<std::string, std::pair<int64_t, int64_t>> ranges;
        for (Type vt : fuzz_types()) {
            auto [lo, hi] = full_range(vt);
            for (int v = 0; v < 3; v++) {
                int64_t a = gen.sample(Int(64), lo, hi).i, b = gen.sample(Int(64), lo, hi).i;
                if (gen.below(3) == 0) b = a + std::min<int64_t>(gen.below(8), hi - a);  // some narrow ranges
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
            for (Type vt : fuzz_types()) {
                for (int v = 0; v < 3; v++) {
                    std::string name = var_name(v, vt);
                    ev.env[name] = gen.sample(vt, ranges[name].first, ranges[name].second);
                }
            }
            Evaluator ev2 = ev;
            Value value = ev.eval(e);
            Value simplified = ev2.eval(s);
            if (ev.overflow || ev2.overflow) {
                skipped++;
                continue;
            }
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
    EXPECT_GT(checked, 10 * skipped) << "too many samples overflowed to be a useful test";
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
    int checked = 0, skipped = 0;
    for (int iter = 0; iter < 1000 * fuzz_scale(); iter++) {
        Expr e = gen.gen(t, 4);
        int a = gen.in(0, 20), b = gen.in(0, 20);
        Scope<Interval> scope;
        scope.push(xn, Interval(y, Add::make(y, Expr(a))));
        scope.push(zn, Interval(Expr(0), Add::make(y, Expr(b))));
        Interval bounds = bounds_of_expr_in_scope(e, scope);
        Expr s = simplify(e, scope);
        for (int k = 0; k < 8; k++) {
            Evaluator ev = sample_everything(gen);
            int64_t yv = gen.in(0, 50);
            ev.env[yn].i = yv;
            ev.env[xn].i = yv + gen.in(0, a);
            ev.env[zn].i = gen.in(0, (int)yv + b);
            Evaluator ev2 = ev, bev = ev;
            Value value = ev.eval(e);
            Value simplified = ev2.eval(s);
            if (ev.overflow || ev2.overflow) {
                skipped++;
                continue;
            }
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
    EXPECT_GT(checked, 10 * skipped) << "too many samples overflowed to be a useful test";
}

// ---------------------------------------------------------------- statements

namespace {

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
    int checked = 0, skipped = 0;
    for (int iter = 0; iter < 1500 * fuzz_scale(); iter++) {
        StmtGenerator sg{gen};
        Stmt s = sg.stmt(4);
        Stmt simplified = simplify(s);
        for (int k = 0; k < 6; k++) {
            StmtRunner a;
            for (Type vt : fuzz_types()) {
                for (int v = 0; v < 3; v++) {
                    auto [lo, hi] = vt == Int(32) ? std::pair<int64_t, int64_t>(-10, 10) : full_range(vt);
                    a.ev.env[var_name(v, vt)] = gen.sample(vt, lo, hi);
                }
            }
            StmtRunner b = a;
            a.run(s);
            b.run(simplified);
            if (a.ev.overflow || b.ev.overflow) {
                skipped++;
                continue;
            }
            checked++;
            ASSERT_EQ(a.stores, b.stores) << "statement:\n" << s << "\nsimplified:\n" << simplified
                                          << "\nvalues:" << describe_env(a.ev);
        }
    }
    EXPECT_GT(checked, 6000);
    EXPECT_GT(checked, 10 * skipped) << "too many samples overflowed to be a useful test";
}

/** Ramps whose base is aligned (x*m + c), divided and reduced by constants
 * near the alignment: every lane must match, including ramps that end
 * exactly at, or just past, the end of a block. */
TEST(SimplifyFuzz, AlignedRampDivisionAndModulus) {
    Generator gen(fuzz_seed(777));
    const auto types = fuzz_var_types();
    const int divisors[] = {2, 4, 8, 16, -4, -8, 3, 6};
    int checked = 0, skipped = 0, folded = 0;
    for (int iter = 0; iter < 3000 * fuzz_scale(); iter++) {
        Type t = gen.below(4) ? Int(32) : Int(64);
        int k = divisors[gen.below((int)std::size(divisors))];
        int lanes = gen.below(2) ? 4 : 8;
        int m = std::abs(k) * gen.in(1, 3);
        Expr x = Variable::make(t, var_name(gen.below(3), t));
        Expr base = Add::make(Mul::make(x, bound_const(t, m)), bound_const(t, gen.in(-m, 2 * m)));
        Expr stride = bound_const(t, gen.in(-3, 3));
        Expr r = Ramp::make(base, stride, lanes);
        Expr d = Broadcast::make(bound_const(t, k), lanes);
        Expr e = gen.below(2) ? (Expr)Div::make(r, d) : (Expr)Mod::make(r, d);
        Expr s = simplify(e);
        if (!s.as<Div>() && !s.as<Mod>()) folded++;
        for (int sample = 0; sample < 2; sample++) {
            Evaluator ev = sample_everything(gen);
            ev.env[var_name(0, t)].i = gen.in(-50, 50);
            for (int lane = 0; lane < lanes; lane++) {
                Evaluator a = ev, b = ev;
                Value want = a.eval(e, lane), got = b.eval(s, lane);
                if (a.overflow || b.overflow) {
                    skipped++;
                    continue;
                }
                checked++;
                ASSERT_TRUE(same_value(t, want, got)) << "expression: " << e << "\nsimplified: " << s << "\nlane "
                                                      << lane << ", values:" << describe_env(ev) << "\nwant "
                                                      << describe(t, want) << ", got " << describe(t, got);
                if (sample == 0 && lane == lanes - 1) {
                    ASSERT_TRUE(same_value(t, want, interpret_lane(e, lane, ev.env, types))) << e;
                }
            }
        }
    }
    EXPECT_GT(checked, 30000);
    EXPECT_GT(checked, 10 * skipped) << "too many samples overflowed to be a useful test";
    EXPECT_GT(folded, 600) << "the alignment rules should fire often";
}
