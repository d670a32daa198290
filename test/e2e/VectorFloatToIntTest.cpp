// Vectorized float -> int casts truncate and saturate as scalar ones do
// (docs/LANGUAGE.md: out-of-range values clamp, NaN becomes 0). On x86 the
// LLVM back end expands them into vector clamps, a conversion and selects
// rather than LLVM's scalarized saturating intrinsic (CodeGen_LLVM_Arith.cpp).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "E2ETest.h"

namespace {

using namespace loom;

class VectorFloatToInt : public loom_test::BackendTest {};

// The documented conversion, in plain C++.
template<typename I, typename F>
I saturating_cast_cpp(F v) {
    if (std::isnan(v)) return 0;
    const long double t = std::trunc((long double)v);
    if (t <= (long double)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (t >= (long double)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)t;
}

template<typename F>
std::vector<F> edge_values() {
    const F inf = std::numeric_limits<F>::infinity();
    return {F(0),        F(-0.0),     F(0.7),      F(-0.7),      F(2.5),         F(-2.5),       F(127.9),
            F(128.5),    F(-129.5),   F(255.9),    F(256.0),     F(-1.0),        F(32767.5),    F(-32769.0),
            F(65535.9),  F(65536.0),  F(2147483520.0), F(2147483648.0), F(-2147483648.0), F(-2147483904.0),
            F(4294967040.0), F(4294967296.0), F(1e10),  F(-1e10),    F(1e30),        inf,           -inf,
            std::numeric_limits<F>::quiet_NaN(), F(1234567.8), F(-7654321.2)};
}

template<typename I, typename F>
void check_cast(const char *what) {
    SCOPED_TRACE(what);
    const std::vector<F> values = edge_values<F>();
    const int n = (int)values.size();
    Buffer<F> input(n);
    for (int i = 0; i < n; i++) input(i) = values[i];
    ImageParam in(type_of<F>(), 1, "in");
    Var x("x");
    Func f("f");
    f(x) = cast<I>(in(x));
    f.vectorize(x, 8);  // 30 values: three vectors and a ShiftInwards tail
    in.set(input);
    Buffer<I> out = f.realize({n});
    for (int i = 0; i < n; i++) {
        EXPECT_EQ(+out(i), +saturating_cast_cpp<I>(values[i])) << "cast of " << values[i];
    }
}

TEST_P(VectorFloatToInt, SaturatesAndTruncatesLikeTheScalarCast) {
    check_cast<int32_t, float>("float -> int32");
    check_cast<uint32_t, float>("float -> uint32");
    check_cast<int16_t, float>("float -> int16");
    check_cast<uint8_t, float>("float -> uint8");
    check_cast<int64_t, float>("float -> int64");
    check_cast<int32_t, double>("double -> int32");
}

LOOM_INSTANTIATE_BACKENDS(VectorFloatToInt);

}  // namespace
