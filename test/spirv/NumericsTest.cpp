// The numbers: kernels run on a Vulkan device (Mesa's lavapipe in CI)
// through the test-only VulkanHarness, compared element by element with the
// reference interpreter (ir/Interpreter.h), which defines what the IR means
// and which the CPU back end is tested against. Integer results must match
// bit for bit; so must the float operations that are exact (conversions,
// rounding, min/max, abs, copysign, comparisons). Skipped without a device.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "SpirvTestUtil.h"
#include "VulkanHarness.h"
#include "ir/IRUtil.h"
#include "ir/Interpreter.h"
#include "loom/runtime/float16.h"

namespace loom_test_spirv {
namespace {

using loom::Bool;
using loom::Float;
using loom::Int;
using loom::UInt;
using loom::internal::ScalarValue;

using BinaryFn = std::function<Expr(Expr, Expr)>;

VulkanHarness *harness_or_skip_reason(std::string *why) { return VulkanHarness::get(why); }

#define REQUIRE_DEVICE()                                     \
    std::string why_no_device;                               \
    VulkanHarness *device = harness_or_skip_reason(&why_no_device); \
    if (!device) GTEST_SKIP() << why_no_device

// Whether the device can run a kernel using element type t in buffers.
bool device_supports(VulkanHarness *device, Type t) {
    const VulkanDeviceFeatures &f = device->features();
    if (t.is_bool() || t.bits() == 8) return f.int8 && f.storage8;
    if (t.bits() == 16) return (t.is_float() ? f.float16 : f.int16) && f.storage16;
    if (t.bits() == 64) return t.is_float() ? f.float64 : f.int64;
    return true;
}

// ------------------------------------------------------------------ scalar values in memory

ScalarValue read_scalar(Type t, const uint8_t *p) {
    ScalarValue v;
    v.type = t;
    if (t.is_bool()) {
        v.u = *p != 0;
    } else if (t.is_float()) {
        if (t.bits() == 16) {
            uint16_t h;
            std::memcpy(&h, p, 2);
            v.f = loom::float16_t::make_from_bits(h).to_float();
        } else if (t.bits() == 32) {
            float x;
            std::memcpy(&x, p, 4);
            v.f = x;
        } else {
            std::memcpy(&v.f, p, 8);
        }
    } else {
        uint64_t bits = 0;
        std::memcpy(&bits, p, t.bytes());
        if (t.is_int()) {
            const int shift = 64 - t.bits();
            v.i = int64_t(bits << shift) >> shift;
        } else {
            v.u = bits;
        }
    }
    return v;
}

void write_scalar(Type t, const ScalarValue &v, uint8_t *p) {
    if (t.is_bool()) {
        *p = v.u ? 1 : 0;
    } else if (t.is_float()) {
        if (t.bits() == 16) {
            const uint16_t h = loom::float16_t(v.f).to_bits();
            std::memcpy(p, &h, 2);
        } else if (t.bits() == 32) {
            const float x = float(v.f);
            std::memcpy(p, &x, 4);
        } else {
            std::memcpy(p, &v.f, 8);
        }
    } else {
        const uint64_t bits = t.is_int() ? uint64_t(v.i) : v.u;
        std::memcpy(p, &bits, t.bytes());
    }
}

std::string show(Type t, const uint8_t *p) {
    ScalarValue v = read_scalar(t, p);
    std::ostringstream s;
    if (t.is_float()) {
        s.precision(17);
        s << v.f;
    } else if (t.is_int()) {
        s << v.i;
    } else {
        s << v.u;
    }
    return s.str();
}

// Interesting values of t, as bytes (one element each).
std::vector<std::vector<uint8_t>> interesting_values(Type t) {
    std::vector<ScalarValue> values;
    auto add_int = [&](int64_t x) {
        ScalarValue v;
        v.type = t;
        if (t.is_bool()) {
            v.u = x & 1;
        } else if (t.is_int()) {
            v.i = loom::internal::wrap_int(t, x);
        } else {
            v.u = loom::internal::wrap_uint(t, uint64_t(x));
        }
        values.push_back(v);
    };
    if (t.is_float()) {
        for (double x : {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, 7.25, -7.75, 100.0,
                         255.5, 256.0, -129.0, 65535.5, 65536.0, 3e9, -3e9, 1e10, -1e10, 1e19, 2e19, -1e19,
                         123456.789, double(INFINITY), -double(INFINITY), double(NAN), 1e-3, -3.0, 3.0}) {
            ScalarValue v;
            v.type = t;
            v.f = t.bits() == 16 ? double(loom::float16_t(x).to_float()) : t.bits() == 32 ? double(float(x)) : x;
            values.push_back(v);
        }
    } else {
        for (int64_t x : {0, 1, -1, 2, -2, 3, -3, 7, -7, 8, 100, -100, 127, -128, 255, 32767, -32768, 65535}) add_int(x);
        add_int(std::numeric_limits<int64_t>::min() >> (64 - t.bits()));  // the type's minimum
        add_int(std::numeric_limits<int64_t>::max() >> (64 - t.bits()));  // the type's maximum
        add_int((std::numeric_limits<int64_t>::min() >> (64 - t.bits())) + 1);
        add_int(int64_t(0x123456789abcdefll));
    }
    std::vector<std::vector<uint8_t>> bytes;
    for (const ScalarValue &v : values) {
        std::vector<uint8_t> b(t.bytes());
        write_scalar(t, v, b.data());
        bytes.push_back(b);
    }
    return bytes;
}

// ------------------------------------------------------------------ running and comparing

struct BinaryCase {
    std::string name;
    Type in_a, in_b, out;  // element types
    BinaryFn f;
};

// out[i] = f(a[i], b[i]) over every pair of interesting values, on the
// device with vectors of `lanes`, against the interpreter.
void check_binary(VulkanHarness *device, const BinaryCase &c, int lanes, const Target &target) {
    for (Type t : {c.in_a, c.in_b, c.out}) {
        if (!device_supports(device, t)) {
            std::cout << "[ SKIPPED  ] " << c.name << ": device lacks " << type_name(t) << "\n";
            return;
        }
    }
    std::vector<std::vector<uint8_t>> as = interesting_values(c.in_a), bs = interesting_values(c.in_b);
    const int pairs = int(as.size() * bs.size());
    const int per_group = 64 * lanes;
    const int groups = (pairs + per_group - 1) / per_group;
    const int count = groups * per_group;
    std::vector<uint8_t> a(size_t(count) * c.in_a.bytes()), b(size_t(count) * c.in_b.bytes()),
        out(size_t(count) * c.out.bytes());
    for (int i = 0; i < count; i++) {
        const int k = i % pairs;
        std::memcpy(&a[size_t(i) * c.in_a.bytes()], as[k / bs.size()].data(), c.in_a.bytes());
        std::memcpy(&b[size_t(i) * c.in_b.bytes()], bs[k % bs.size()].data(), c.in_b.bytes());
    }

    Expr index = lanes == 1 ? var("x") : Ramp::make(Mul::make(var("x"), i32(lanes)), i32(1), lanes);
    Expr va = var("a", c.in_a.with_lanes(lanes)), vb = var("b", c.in_b.with_lanes(lanes));
    Expr value = c.f(va, vb);
    GPUKernel k;
    k.name = c.name;
    k.args = {buffer_arg("in_a", c.in_a, true, false), buffer_arg("in_b", c.in_b, true, false),
              buffer_arg("out", c.out, false, true)};
    k.workgroup_size[0] = 64;
    k.body = LetStmt::make(
        "x", global_x(),
        LetStmt::make("a", load(c.in_a.with_lanes(lanes), "in_a", index),
                      LetStmt::make("b", load(c.in_b.with_lanes(lanes), "in_b", index),
                                    Store::make("out", value, index))));
    std::vector<uint32_t> words = compile_ok(k, target);
    if (words.empty()) return;
    const uint32_t grid[3] = {uint32_t(groups), 1, 1};
    std::string error = device->run(words, k.name, {&a, &b, &out}, {}, grid);
    ASSERT_EQ(error, "");

    Expr scalar = c.f(var("a", c.in_a), var("b", c.in_b));
    int mismatches = 0;
    for (int i = 0; i < pairs && mismatches < 10; i++) {
        std::map<std::string, ScalarValue> vars = {{"a", read_scalar(c.in_a, &a[size_t(i) * c.in_a.bytes()])},
                                                   {"b", read_scalar(c.in_b, &b[size_t(i) * c.in_b.bytes()])}};
        ScalarValue expected = loom::internal::evaluate_scalar(scalar, vars);
        std::vector<uint8_t> want(c.out.bytes());
        write_scalar(c.out, expected, want.data());
        const uint8_t *got = &out[size_t(i) * c.out.bytes()];
        // NaNs compare by being NaN (payloads may differ).
        const bool both_nan = c.out.is_float() && std::isnan(read_scalar(c.out, got).f) && std::isnan(expected.f);
        if (!both_nan && std::memcmp(got, want.data(), want.size()) != 0) {
            ADD_FAILURE() << c.name << " x" << lanes << " on " << target.to_string() << ": a = "
                          << show(c.in_a, &a[size_t(i) * c.in_a.bytes()])
                          << ", b = " << show(c.in_b, &b[size_t(i) * c.in_b.bytes()]) << ": device "
                          << show(c.out, got) << ", interpreter " << show(c.out, want.data());
            mismatches++;
        }
    }
}

void check_everywhere(VulkanHarness *device, const BinaryCase &c) {
    for (int lanes : {1, 4, 8}) {
        check_binary(device, c, lanes, full_vulkan_target());
        if (lanes == 4) check_binary(device, c, lanes, full_vulkan_target("vk_v12"));
    }
}

Expr like(const Expr &e, int64_t v) { return loom::internal::make_const(e.type(), v); }

std::vector<Type> integer_types() {
    return {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)};
}

// ------------------------------------------------------------------ tests

TEST(SpirvNumerics, EuclideanDivisionAndModulus) {
    REQUIRE_DEVICE();
    for (Type t : integer_types()) {
        check_everywhere(device, {"div_" + type_name(t), t, t, t, [](Expr a, Expr b) { return Div::make(a, b); }});
        check_everywhere(device, {"mod_" + type_name(t), t, t, t, [](Expr a, Expr b) { return Mod::make(a, b); }});
    }
}

TEST(SpirvNumerics, IntegerArithmeticAndComparisons) {
    REQUIRE_DEVICE();
    for (Type t : integer_types()) {
        check_everywhere(device, {"arith_" + type_name(t), t, t, t, [](Expr a, Expr b) {
                                      Expr v = Sub::make(Mul::make(a, b), Add::make(a, like(a, 3)));
                                      v = Add::make(v, Min::make(a, b));
                                      return Select::make(LT::make(a, b), v, Max::make(a, b));
                                  }});
        check_everywhere(device, {"compare_" + type_name(t), t, t, Bool(), [](Expr a, Expr b) {
                                      Expr lt = LT::make(a, b), le = LE::make(a, b), eq = EQ::make(a, b);
                                      Expr ne = NE::make(a, b), gt = GT::make(a, b), ge = GE::make(a, b);
                                      return Or::make(And::make(lt, Not::make(eq)),
                                                      And::make(Or::make(ne, ge), And::make(gt, le)));
                                  }});
    }
}

TEST(SpirvNumerics, ShiftsAndBitwise) {
    REQUIRE_DEVICE();
    for (Type t : integer_types()) {
        for (Type amount : {Int(32), t}) {
            check_everywhere(device, {"shl_" + type_name(t) + "_" + type_name(amount), t, amount, t,
                                      [](Expr a, Expr b) {
                                          return intrinsic_call(a.type(), intrinsic::shift_left, {a, b});
                                      }});
            check_everywhere(device, {"shr_" + type_name(t) + "_" + type_name(amount), t, amount, t,
                                      [](Expr a, Expr b) {
                                          return intrinsic_call(a.type(), intrinsic::shift_right, {a, b});
                                      }});
        }
        check_everywhere(device, {"bits_" + type_name(t), t, t, t, [](Expr a, Expr b) {
                                      Type ty = a.type();
                                      Expr v = intrinsic_call(ty, intrinsic::bitwise_and, {a, b});
                                      v = intrinsic_call(ty, intrinsic::bitwise_xor, {v, intrinsic_call(ty, intrinsic::bitwise_not, {b})});
                                      return intrinsic_call(ty, intrinsic::bitwise_or, {v, like(a, 16)});
                                  }});
        Type ut = t.with_code(loom::TypeCode::UInt);
        check_everywhere(device, {"abs_" + type_name(t), t, t, ut, [ut](Expr a, Expr) {
                                      return intrinsic_call(ut.with_lanes(a.type().lanes()), intrinsic::abs, {a});
                                  }});
    }
}

TEST(SpirvNumerics, CastsBetweenAllTypes) {
    REQUIRE_DEVICE();
    std::vector<Type> types = integer_types();
    for (Type f : {Float(16), Float(32), Float(64), Bool()}) types.push_back(f);
    for (Type from : types) {
        for (Type to : types) {
            check_binary(device, {"cast_" + type_name(from) + "_to_" + type_name(to), from, UInt(32), to,
                                  [to](Expr a, Expr) { return Cast::make(to.with_lanes(a.type().lanes()), a); }},
                         4, full_vulkan_target());
        }
    }
}

TEST(SpirvNumerics, ExactFloatOperations) {
    REQUIRE_DEVICE();
    const char *unary[] = {"floor", "ceil", "trunc", "round", "nearbyint", "rint", "fabs"};
    const char *binary[] = {"fmin", "fmax", "copysign"};
    for (Type t : {Float(32), Float(64), Float(16)}) {
        auto name = [t](const char *base) {
            return t.bits() == 64 ? std::string(base) : std::string(base) + "f";
        };
        for (const char *f : unary) {
            const std::string fn = name(f);
            check_everywhere(device, {fn + "_" + type_name(t), t, t, t,
                                      [fn](Expr a, Expr) { return math_call(a.type(), fn, {a}); }});
        }
        for (const char *f : binary) {
            const std::string fn = name(f);
            check_everywhere(device, {fn + "_" + type_name(t), t, t, t,
                                      [fn](Expr a, Expr b) { return math_call(a.type(), fn, {a, b}); }});
        }
        check_everywhere(device, {"minmax_" + type_name(t), t, t, t, [](Expr a, Expr b) {
                                      return Select::make(LT::make(a, b), Min::make(a, b), Max::make(b, a));
                                  }});
        check_everywhere(device, {"fcompare_" + type_name(t), t, t, Bool(), [](Expr a, Expr b) {
                                      Expr nan = intrinsic_call(Bool(a.type().lanes()), intrinsic::is_nan, {a});
                                      return Or::make(And::make(NE::make(a, b), Not::make(nan)),
                                                      And::make(GE::make(a, b), LE::make(b, a)));
                                  }});
        check_everywhere(device, {"fabs_intrinsic_" + type_name(t), t, t, t, [](Expr a, Expr) {
                                      return intrinsic_call(a.type(), intrinsic::abs, {a});
                                  }});
    }
}

TEST(SpirvNumerics, FloatArithmeticOnExactValues) {
    // + - * / on the interesting values are correctly rounded on lavapipe;
    // Float(16) computes in Float(32) and rounds once per operation.
    REQUIRE_DEVICE();
    // strict_float: no fused multiply-add, like the interpreter.
    for (Type t : {Float(32), Float(64), Float(16)}) {
        BinaryCase c{"farith_" + type_name(t), t, t, t, [](Expr a, Expr b) {
                         return Add::make(Mul::make(a, b), Sub::make(a, Div::make(b, a)));
                     }};
        for (int lanes : {1, 4}) check_binary(device, c, lanes, full_vulkan_target("strict_float"));
    }
}

}  // namespace
}  // namespace loom_test_spirv

namespace loom_test_spirv {
namespace {

// The transcendental functions are GLSL.std.450's, whose precision Vulkan
// leaves to the driver within bounds (e.g. sin/cos to 2^-11 absolute on
// [-pi, pi], exp to 3 + 2|x| ulp): these checks catch a function wired to
// the wrong instruction or argument order, not last-bit differences.
struct ToleranceCase {
    const char *name;
    int arity;
    double lo, hi;  // domain of the first argument (the second is in [0.5, 3])
    double (*reference)(double, double);
};

const ToleranceCase tolerance_cases[] = {
    {"sin", 1, -3, 3, [](double x, double) { return std::sin(x); }},
    {"cos", 1, -3, 3, [](double x, double) { return std::cos(x); }},
    {"tan", 1, -1.2, 1.2, [](double x, double) { return std::tan(x); }},
    {"asin", 1, -0.99, 0.99, [](double x, double) { return std::asin(x); }},
    {"acos", 1, -0.99, 0.99, [](double x, double) { return std::acos(x); }},
    {"atan", 1, -20, 20, [](double x, double) { return std::atan(x); }},
    {"sinh", 1, -4, 4, [](double x, double) { return std::sinh(x); }},
    {"cosh", 1, -4, 4, [](double x, double) { return std::cosh(x); }},
    {"tanh", 1, -4, 4, [](double x, double) { return std::tanh(x); }},
    {"asinh", 1, -10, 10, [](double x, double) { return std::asinh(x); }},
    {"acosh", 1, 1.01, 10, [](double x, double) { return std::acosh(x); }},
    {"atanh", 1, -0.9, 0.9, [](double x, double) { return std::atanh(x); }},
    {"exp", 1, -8, 8, [](double x, double) { return std::exp(x); }},
    {"exp2", 1, -8, 8, [](double x, double) { return std::exp2(x); }},
    {"log", 1, 0.01, 1000, [](double x, double) { return std::log(x); }},
    {"log2", 1, 0.01, 1000, [](double x, double) { return std::log2(x); }},
    {"sqrt", 1, 0, 1000, [](double x, double) { return std::sqrt(x); }},
    {"pow", 2, 0.1, 10, [](double x, double y) { return std::pow(x, y); }},
    {"atan2", 2, -5, 5, [](double x, double y) { return std::atan2(x, y); }},
};

TEST(SpirvNumerics, TranscendentalsWithinTolerance) {
    REQUIRE_DEVICE();
    const int n = 256;
    for (Type t : {Float(32), Float(16)}) {
        if (!device_supports(device, t)) continue;
        for (const ToleranceCase &c : tolerance_cases) {
            const std::string fn = std::string(c.name) + "f";
            SCOPED_TRACE(fn + " " + type_name(t));
            std::vector<float> a(n), b(n);
            for (int i = 0; i < n; i++) {
                a[i] = float(c.lo + (c.hi - c.lo) * i / (n - 1));
                b[i] = float(0.5 + 2.5 * ((i * 37) % n) / (n - 1));
                if (t.bits() == 16) {
                    a[i] = loom::float16_t(a[i]).to_float();
                    b[i] = loom::float16_t(b[i]).to_float();
                }
            }
            std::vector<uint8_t> ba, bb;
            if (t.bits() == 16) {
                std::vector<uint16_t> ha(n), hb(n);
                for (int i = 0; i < n; i++) {
                    ha[i] = loom::float16_t(a[i]).to_bits();
                    hb[i] = loom::float16_t(b[i]).to_bits();
                }
                ba = to_bytes(ha);
                bb = to_bytes(hb);
            } else {
                ba = to_bytes(a);
                bb = to_bytes(b);
            }
            std::vector<uint8_t> out(size_t(n) * t.bytes());
            Expr x = load(t.with_lanes(4), "a", Ramp::make(Mul::make(var("x"), i32(4)), i32(1), 4));
            Expr y = load(t.with_lanes(4), "b", Ramp::make(Mul::make(var("x"), i32(4)), i32(1), 4));
            std::vector<Expr> args = {x};
            if (c.arity == 2) args.push_back(y);
            GPUKernel k;
            k.name = "tolerance_" + fn;
            k.args = {buffer_arg("a", t, true, false), buffer_arg("b", t, true, false), buffer_arg("out", t, false, true)};
            k.workgroup_size[0] = 64;
            k.body = LetStmt::make("x", global_x(), Store::make("out", math_call(t.with_lanes(4), fn, args),
                                                                 Ramp::make(Mul::make(var("x"), i32(4)), i32(1), 4)));
            std::vector<uint32_t> words = compile_ok(k, full_vulkan_target("vk_v12"));
            const uint32_t groups[3] = {1, 1, 1};
            ASSERT_EQ(device->run(words, k.name, {&ba, &bb, &out}, {}, groups), "");
            const double tolerance = t.bits() == 16 ? 1e-2 : 1e-3;
            for (int i = 0; i < n; i++) {
                const double want = c.reference(a[i], b[i]);
                const double got = read_scalar(t, &out[size_t(i) * t.bytes()]).f;
                ASSERT_NEAR(got, want, tolerance * std::max(1.0, std::fabs(want)))
                    << fn << "(" << a[i] << (c.arity == 2 ? ", " + std::to_string(b[i]) : std::string()) << ")";
            }
        }
    }
}

}  // namespace
}  // namespace loom_test_spirv
