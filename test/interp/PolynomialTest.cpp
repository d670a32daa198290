// Integer trees of Add, Sub and Mul over variables and constants run as one
// polynomial node (ir/interpreter/CompilePolynomial.cpp): values against
// plain C++ that wraps after every operation, for every integer width, with
// products of sums, terms that cancel, and trees too big to expand.

#include <gtest/gtest.h>

#include <functional>

#include "InterpTestUtil.h"
#include "ir/IRUtil.h"

namespace loom {
namespace internal {
namespace {

using namespace interp_test;

/** v wrapped to t, as t holds it (sign- or zero-extended). */
int64_t wrap(Type t, uint64_t v) {
    if (t.bits() == 64) return (int64_t)v;
    const uint64_t mask = (uint64_t(1) << t.bits()) - 1;
    v &= mask;
    if (t.is_int() && (v >> (t.bits() - 1))) v |= ~mask;
    return (int64_t)v;
}

struct Case {
    const char *what;
    std::function<Expr(Expr, Expr, Expr, Type)> tree;
    std::function<uint64_t(Type, int64_t, int64_t, int64_t)> reference;  // wraps after every operation
};

TEST(InterpPolynomial, TreesMatchPlainCppWithWrapAfterEveryOperation) {
    auto k = [](Type t, int64_t v) { return make_const(t, v); };
    const std::vector<Case> cases = {
        {"(x - a)*s + y*3 - b",
         [&](Expr x, Expr y, Expr z, Type t) { return Sub::make(Add::make(Mul::make(Sub::make(x, k(t, 5)), z), Mul::make(y, k(t, 3))), k(t, 9)); },
         [](Type t, int64_t x, int64_t y, int64_t z) {
             int64_t d = wrap(t, (uint64_t)x - 5);
             int64_t p = wrap(t, (uint64_t)d * (uint64_t)z);
             int64_t q = wrap(t, (uint64_t)y * 3);
             return (uint64_t)wrap(t, (uint64_t)wrap(t, (uint64_t)p + (uint64_t)q) - 9);
         }},
        {"(x + y)*(y - z)*(z + 7)",
         [&](Expr x, Expr y, Expr z, Type t) { return Mul::make(Mul::make(Add::make(x, y), Sub::make(y, z)), Add::make(z, k(t, 7))); },
         [](Type t, int64_t x, int64_t y, int64_t z) {
             int64_t a = wrap(t, (uint64_t)x + (uint64_t)y), b = wrap(t, (uint64_t)y - (uint64_t)z);
             int64_t c = wrap(t, (uint64_t)z + 7);
             return (uint64_t)wrap(t, (uint64_t)wrap(t, (uint64_t)a * (uint64_t)b) * (uint64_t)c);
         }},
        {"x*y - y*x + z (cancels)",
         [&](Expr x, Expr y, Expr z, Type t) { return Add::make(Sub::make(Mul::make(x, y), Mul::make(y, x)), z); },
         [](Type t, int64_t, int64_t, int64_t z) { return (uint64_t)wrap(t, (uint64_t)z); }},
        {"x*x*x*y (four factors: not expanded)",
         [&](Expr x, Expr y, Expr, Type) { return Mul::make(Mul::make(Mul::make(x, x), x), y); },
         [](Type t, int64_t x, int64_t y, int64_t) {
             int64_t a = wrap(t, (uint64_t)x * (uint64_t)x);
             int64_t b = wrap(t, (uint64_t)a * (uint64_t)x);
             return (uint64_t)wrap(t, (uint64_t)b * (uint64_t)y);
         }},
        {"(x+y+z+1)*(x-y-z-2)*(x+1) (too many terms: not expanded)",
         [&](Expr x, Expr y, Expr z, Type t) {
             Expr a = Add::make(Add::make(Add::make(x, y), z), k(t, 1));
             Expr b = Sub::make(Sub::make(Sub::make(x, y), z), k(t, 2));
             return Mul::make(Mul::make(a, b), Add::make(x, k(t, 1)));
         },
         [](Type t, int64_t x, int64_t y, int64_t z) {
             int64_t a = wrap(t, (uint64_t)wrap(t, (uint64_t)wrap(t, (uint64_t)x + (uint64_t)y) + (uint64_t)z) + 1);
             int64_t b = wrap(t, (uint64_t)wrap(t, (uint64_t)wrap(t, (uint64_t)x - (uint64_t)y) - (uint64_t)z) - 2);
             int64_t c = wrap(t, (uint64_t)x + 1);
             return (uint64_t)wrap(t, (uint64_t)wrap(t, (uint64_t)a * (uint64_t)b) * (uint64_t)c);
         }},
    };
    const std::vector<int64_t> values = {0, 1, -1, 7, -128, 127, 255, 40000, -70000, int64_t(1) << 40, INT64_MIN};
    for (Type t : {Int(8), UInt(8), Int(16), UInt(16), Int(32), UInt(32), Int(64), UInt(64)}) {
        for (const Case &c : cases) {
            Expr e = c.tree(var("x", t), var("y", t), var("z", t), t);
            for (size_t i = 0; i < values.size(); i++) {
                // Three values from the list, staggered.
                const int64_t xv = wrap(t, values[i]), yv = wrap(t, values[(i + 3) % values.size()]);
                const int64_t zv = wrap(t, values[(i + 7) % values.size()]);
                std::map<std::string, ScalarValue> vars;
                for (auto [name, v] : {std::pair<const char *, int64_t>{"x", xv}, {"y", yv}, {"z", zv}}) {
                    ScalarValue s;
                    s.type = t;
                    s.i = v;
                    vars[name] = s;
                }
                const uint64_t expected = (uint64_t)wrap(t, c.reference(t, xv, yv, zv));
                EXPECT_EQ(evaluate_scalar(e, vars).u, expected) << t << " " << c.what << " x=" << xv << " y=" << yv
                                                                << " z=" << zv;
            }
        }
    }
}

// A polynomial of loop variables as a store index and value, in a program,
// against a plain C++ loop: out[(y - 1)*w + x] = (x + y)*(x - y)*3.
TEST(InterpPolynomial, LoopIndicesMatchAPlainLoop) {
    Expr x = var("x"), y = var("y"), w = var("w");
    Expr index = Add::make(Mul::make(Sub::make(y, i32(1)), w), x);
    Expr value = Mul::make(Mul::make(Add::make(x, y), Sub::make(x, y)), i32(3));
    LoweredFunc func;
    func.name = "polynomial_loops";
    func.args = {scalar_arg("w", Int(32)), buffer_arg("out", Int(32), 1, true)};
    func.body = with_host("out", serial_for("y", i32(1), i32(4), serial_for("x", i32(0), w, Store::make("out", value, index))));
    const int wv = 6;
    TestBuffer out(Int(32), {0}, {wv * 4});
    int32_t w_arg = wv;
    void *args[] = {&w_arg, &out.buf};
    ASSERT_EQ(interpret(func, args), 0);
    for (int yv = 1; yv < 5; yv++) {
        for (int xv = 0; xv < wv; xv++) EXPECT_EQ(out.at<int32_t>({(yv - 1) * wv + xv}), (xv + yv) * (xv - yv) * 3);
    }
}

}  // namespace
}  // namespace internal
}  // namespace loom
