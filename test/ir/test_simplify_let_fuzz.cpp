// Randomized check of let substitution: chains of Let/LetStmt whose values
// are mostly cheap affine forms (which the simplifier substitutes) and
// sometimes not, with loops and lets that rebind names already used by
// outer values (so a careless substitution would capture the wrong binding),
// must store the same values after simplify().
#include <gtest/gtest.h>

#include "SimplifyFuzzSupport.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/Simplify.h"

using namespace loom;
using namespace loom::internal;
using namespace loom::fuzz_support;

namespace {

/** Lets and loops over a small pool of names, so rebinding is common. */
struct LetChainGenerator {
    Generator &gen;
    int stores = 0;
    const Type t = Int(32);
    std::vector<std::string> bound;  // names visible at this point

    std::string some_name() {
        static const char *const pool[] = {"a", "b", "c", "d"};
        if (gen.below(4) == 0) return var_name(gen.below(3), t);  // rebinds a free variable
        return pool[gen.below(4)];
    }

    Expr some_var() {
        if (!bound.empty() && gen.below(4) != 0) return Variable::make(t, bound[gen.below((int)bound.size())]);
        return Variable::make(t, var_name(gen.below(3), t));
    }

    /** Mostly v*c1 + c2 (substituted), sometimes products, sums of two
     * names, divisions and lets (kept). */
    Expr value(int depth) {
        Expr v = some_var();
        switch (gen.below(8)) {
        case 0: return v;
        case 1: return Add::make(v, Expr(gen.in(-8, 8)));
        case 2: return Mul::make(v, Expr(gen.in(-4, 4)));
        case 3: return Add::make(Mul::make(v, Expr(gen.in(-4, 4))), Expr(gen.in(-8, 8)));
        case 4: return Sub::make(Expr(gen.in(-8, 8)), v);
        case 5: return Add::make(v, some_var());
        case 6: return Div::make(v, Expr(gen.in(-5, 5)));
        default: {
            if (depth <= 0) return Mul::make(v, some_var());
            std::string name = some_name();
            Expr inner = value(depth - 1);
            bound.push_back(name);
            Expr body = value(depth - 1);
            bound.pop_back();
            return Let::make(name, inner, body);
        }
        }
    }

    Stmt stmt(int depth) {
        int r = depth <= 0 ? 4 : gen.below(6);
        switch (r) {
        case 0:
        case 1: {
            std::string name = some_name();
            Expr v = value(2);
            bound.push_back(name);
            Stmt body = stmt(depth - 1);
            bound.pop_back();
            return LetStmt::make(name, v, body);
        }
        case 2: {
            std::string name = some_name();
            Expr min = gen.below(2) ? Expr(gen.in(-3, 3)) : Min::make(some_var(), Expr(3));
            bound.push_back(name);
            Stmt body = stmt(depth - 1);
            bound.pop_back();
            return For::make(name, min, Expr(gen.in(0, 3)), ForType::Serial, DeviceAPI::None, body);
        }
        case 3: return Block::make(stmt(depth - 1), stmt(depth - 1));
        case 5: {
            Expr cond = LT::make(value(1), value(1));
            return IfThenElse::make(cond, stmt(depth - 1), gen.below(2) ? stmt(depth - 1) : Stmt());
        }
        default: return Store::make("buf", Add::make(value(2), value(1)), Expr(stores++));
        }
    }
};

}  // namespace

TEST(SimplifyLetFuzz, SubstitutedLetsStoreTheSame) {
    Generator gen(fuzz_seed(5150));
    int checked = 0, lets_before = 0, lets_after = 0;
    for (int iter = 0; iter < 1500 * fuzz_scale(); iter++) {
        LetChainGenerator lg{gen};
        Stmt s = lg.stmt(6);
        Stmt simplified = simplify(s);
        std::string before = to_string(s), after = to_string(simplified);
        for (size_t p = before.find("let "); p != std::string::npos; p = before.find("let ", p + 1)) lets_before++;
        for (size_t p = after.find("let "); p != std::string::npos; p = after.find("let ", p + 1)) lets_after++;
        for (int k = 0; k < 6; k++) {
            StmtRunner a;
            for (int v = 0; v < 3; v++) a.ev.env[var_name(v, Int(32))] = gen.sample(Int(32), -20, 20);
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
    // Most lets are cheap affine forms: far fewer remain.
    EXPECT_LT(lets_after * 2, lets_before) << lets_before << " lets before, " << lets_after << " after";
}
