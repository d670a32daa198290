// Approximate and extra math functions (declared in loom/IROperator.h):
// fast_sin, fast_cos, fast_exp, fast_log, fast_pow, fast_tanh, fast_inverse,
// fast_inverse_sqrt, erf, hypot and fma.
//
// The fast_* functions are polynomials on a reduced argument, written as
// plain float IR so they vectorize and run the same on every back end (no
// libm call per lane). Each needs Float(32), like Halide's.

#include "ir/IR.h"
#include "ir/IRUtil.h"
#include "lang/IROperatorInternal.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {

using namespace internal;

namespace {

void require_float32(const Expr &x, const char *op) {
    if (!x.defined()) throw CompileError(std::string(op) + "(): the argument is an undefined Expr.");
    if (x.type().element_of() != Float(32)) {
        throw CompileError(std::string(op) + "() needs a Float(32) argument, but " + describe_operand(x) +
                           " is not one; cast it first.");
    }
}

// c[0] + x * (c[1] + x * (c[2] + ...)), by Horner's rule.
Expr polynomial(const Expr &x, std::initializer_list<double> c) {
    std::vector<double> coefficients(c);
    Expr result = make_const(x.type(), coefficients.back());
    for (size_t i = coefficients.size() - 1; i-- > 0;) result = result * x + make_const(x.type(), coefficients[i]);
    return result;
}

Expr f32_const(const Expr &like, double v) { return make_const(like.type(), v); }

// The sine and cosine of r in [-pi/4, pi/4] (Taylor series, error < 1e-9).
Expr sin_reduced(const Expr &r) {
    Expr r2 = r * r;
    return r * polynomial(r2, {1.0, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880});
}

Expr cos_reduced(const Expr &r) {
    Expr r2 = r * r;
    return polynomial(r2, {1.0, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800});
}

// x = k * pi/2 + r with |r| <= pi/4; the quadrant is k mod 4.
Expr fast_trig(const Expr &x, bool sine) {
    require_float32(x, sine ? "fast_sin" : "fast_cos");
    Expr k = floor(x * f32_const(x, 0.63661977236758134) + f32_const(x, 0.5));
    // pi/2 in two pieces, so that k * pi/2 loses little precision.
    Expr r = (x - k * f32_const(x, 1.5707963705062866)) + k * f32_const(x, 4.371139000186243e-8);
    Expr quadrant = cast(Int(32, x.type().lanes()), k) & 3;
    Expr s = sin_reduced(r), c = cos_reduced(r);
    if (sine) return select(quadrant == 0, s, quadrant == 1, c, quadrant == 2, -s, -c);
    return select(quadrant == 0, c, quadrant == 1, -s, quadrant == 2, -c, s);
}

}  // namespace

Expr fast_sin(const Expr &x) { return fast_trig(x, true); }
Expr fast_cos(const Expr &x) { return fast_trig(x, false); }

Expr fast_exp(const Expr &x) {
    require_float32(x, "fast_exp");
    const int lanes = x.type().lanes();
    // exp(x) = 2^k * exp(r), |r| <= ln(2)/2.
    Expr k = floor(x * f32_const(x, 1.4426950408889634) + f32_const(x, 0.5));
    Expr r = (x - k * f32_const(x, 0.693145751953125)) - k * f32_const(x, 1.4286068203094172e-6);
    Expr p = polynomial(r, {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040});
    // 2^k from its exponent bits: 0 below the normal range, inf above.
    Expr biased = clamp(cast(Int(32, lanes), k) + 127, 0, 255);
    Expr two_to_k = reinterpret(Float(32, lanes), biased << 23);
    return p * two_to_k;
}

Expr fast_log(const Expr &x) {
    require_float32(x, "fast_log");
    const int lanes = x.type().lanes();
    // x = 2^e * m with m in [sqrt(1/2), sqrt(2)), log(m) from the series of
    // atanh: log(m) = 2 * atanh((m - 1) / (m + 1)).
    Expr bits = reinterpret(Int(32, lanes), x);
    Expr exponent = ((bits >> 23) & 0xff) - 127;
    Expr m = reinterpret(Float(32, lanes), (bits & 0x007fffff) | 0x3f800000);
    Expr big = m > f32_const(x, 1.4142135623730951);
    m = select(big, m * f32_const(x, 0.5), m);
    exponent = select(big, exponent + 1, exponent);
    Expr t = (m - f32_const(x, 1.0)) / (m + f32_const(x, 1.0));
    Expr log_m = f32_const(x, 2.0) * t * polynomial(t * t, {1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9});
    return cast(Float(32, lanes), exponent) * f32_const(x, 0.6931471805599453) + log_m;
}

Expr fast_pow(Expr x, Expr y) {
    if (x.defined() && !x.type().is_float()) x = cast(Float(32, x.type().lanes()), x);
    if (y.defined() && !y.type().is_float()) y = cast(Float(32, y.type().lanes()), y);
    require_float32(x, "fast_pow");
    require_float32(y, "fast_pow");
    Expr zero = make_zero(x.type());
    return select(x == zero, zero, fast_exp(fast_log(x) * y));
}

// The rational function of Eigen's and ONNX Runtime's (MLAS) float tanh:
// an odd degree-13 numerator over an even degree-6 denominator on x clamped
// to +-7.905 (where tanh rounds to +-1 in float), x itself below 4e-4 (the
// ratio loses relative precision there), NaN passed through.
Expr fast_tanh(const Expr &v) {
    require_float32(v, "fast_tanh");
    Expr x = clamp(v, f32_const(v, -7.90531110763549805), f32_const(v, 7.90531110763549805));
    Expr x2 = x * x;
    Expr p = x * polynomial(x2, {4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
                                 5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
                                 -2.76076847742355e-16});
    Expr q = polynomial(x2, {4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06});
    return select(abs(v) < f32_const(v, 0.0004) || is_nan(v), v, p / q);
}

Expr fast_inverse(Expr x) {
    if (!x.defined() || !x.type().is_float()) {
        throw CompileError("fast_inverse() needs a floating-point argument" +
                           (x.defined() ? ", but " + describe_operand(x) + " is not one." : "."));
    }
    return make_one(x.type()) / x;
}

Expr fast_inverse_sqrt(Expr x) {
    if (!x.defined() || !x.type().is_float()) {
        throw CompileError("fast_inverse_sqrt() needs a floating-point argument" +
                           (x.defined() ? ", but " + describe_operand(x) + " is not one." : "."));
    }
    return make_one(x.type()) / sqrt(x);
}

// Abramowitz and Stegun 7.1.26 (absolute error 1.5e-7), odd in x.
Expr erf(const Expr &x) {
    require_float32(x, "erf");
    Expr ax = abs(x);
    Expr t = f32_const(x, 1.0) / (f32_const(x, 1.0) + f32_const(x, 0.3275911) * ax);
    Expr p = t * polynomial(t, {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429});
    Expr y = f32_const(x, 1.0) - p * exp(-(ax * ax));
    return select(x < make_zero(x.type()), -y, y);
}

Expr hypot(const Expr &x, const Expr &y) {
    Expr fx = x, fy = y;
    if (!fx.defined() || !fy.defined()) throw CompileError("hypot(): an argument is an undefined Expr.");
    if (!fx.type().is_float()) fx = cast(Float(32, fx.type().lanes()), fx);
    if (!fy.type().is_float()) fy = cast(Float(32, fy.type().lanes()), fy);
    return sqrt(fx * fx + fy * fy);
}

Expr fma(const Expr &a, const Expr &b, const Expr &c) {
    for (const Expr *e : {&a, &b, &c}) {
        if (!e->defined()) throw CompileError("fma(): an argument is an undefined Expr.");
        if (!e->type().is_float()) {
            throw CompileError("fma() needs floating-point arguments, but " + describe_operand(*e) + " is not one.");
        }
    }
    if (a.type() != b.type() || a.type() != c.type()) {
        throw CompileError("fma() needs three arguments of one type, not " + describe_operand(a) + ", " +
                           describe_operand(b) + " and " + describe_operand(c) + ".");
    }
    return Call::make(a.type(), intrinsic::fma, {a, b, c}, CallType::PureIntrinsic);
}

}  // namespace loom
