// Lesson 14: the type system.
//
// Every Expr has a type: Int(8|16|32|64), UInt(1|8|16|32|64), Float(16|32|64)
// (Bool() is UInt(1)). When an operator mixes types, Loom follows Halide's
// rules rather than C's:
//   - an int literal takes the other operand's type (u8 + 1 is uint8), and
//     it is a CompileError if it does not fit (u8 + 300);
//   - a float literal makes an integer operand float (x + 0.5f is float32);
//   - int op float is float; two floats or two same-signed ints: the wider;
//   - signed op unsigned: signed, of the wider width (u8 + i16 is int16).
// Integer arithmetic wraps at the type's width and never has undefined
// behaviour; / rounds toward negative infinity and % is never negative for a
// positive divisor. cast<T>() converts explicitly: to a narrower integer it
// keeps the low bits, from float to integer it truncates toward zero and
// saturates at the type's limits.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>

#include <loom/Loom.h>

using namespace loom;

namespace {

int problems = 0;

void expect_type(const char *what, const Expr &e, Type expected) {
    bool ok = e.type() == expected;
    std::cout << "  " << what << " is " << e.type() << (ok ? "" : "  <-- expected " + expected.to_string()) << "\n";
    if (!ok) problems++;
}

template<typename T>
void expect_value(const char *what, const Expr &e, T expected) {
    T actual = evaluate<T>(e);
    bool ok = actual == expected;
    std::cout << "  " << what << " = " << +actual << (ok ? "" : "  <-- expected " + std::to_string(+expected))
              << "\n";
    if (!ok) problems++;
}

}  // namespace

int main() {
    Var x("x");
    Param<uint8_t> u8("u8", 200);
    Param<int16_t> i16("i16", -300);
    Param<float> f32("f32", 2.5f);

    std::printf("Implicit type rules:\n");
    expect_type("u8 + 1", u8 + 1, UInt(8));
    expect_type("x + 0.5f", x + 0.5f, Float(32));
    expect_type("x + 0.5 (a double literal)", x + 0.5, Float(64));
    expect_type("u8 + i16", u8 + i16, Int(16));
    expect_type("cast<uint32_t>(x) + i16", cast<uint32_t>(x) + i16, Int(32));
    expect_type("x + f32", x + f32, Float(32));
    expect_type("u8 < 3", u8 < 3, Bool());
    expect_type("abs(i16)", abs(i16), UInt(16));

    // A literal that does not fit the other side's type is an error at the
    // point where you write it, not a silent wrap.
    try {
        Expr bad = u8 + 300;
        std::printf("  u8 + 300 was accepted  <-- expected a CompileError\n");
        problems++;
    } catch (const CompileError &e) {
        std::printf("  u8 + 300 is refused: %s\n", e.what());
    }

    std::printf("Integer arithmetic (evaluated by compiled code):\n");
    expect_value<uint8_t>("u8 + u8 (200 + 200 wraps)", u8 + u8, (uint8_t)(200 + 200));
    expect_value<int16_t>("i16 * 200 (-60000 wraps)", i16 * 200, (int16_t)(-300 * 200));
    expect_value<int>("-7 / 2 (rounds down)", Expr(-7) / 2, -4);
    expect_value<int>("-7 % 2 (never negative)", Expr(-7) % 2, 1);
    expect_value<int>("7 / 0 (defined as 0)", Expr(7) / Expr(0), 0);

    std::printf("Explicit casts:\n");
    expect_value<uint8_t>("cast<uint8_t>(300) keeps the low bits", cast<uint8_t>(Expr(300)), (uint8_t)44);
    expect_value<int8_t>("cast<int8_t>(200)", cast<int8_t>(Expr(200)), (int8_t)-56);
    expect_value<int>("cast<int>(-2.7f) truncates", cast<int>(Expr(-2.7f)), -2);
    // Float-to-integer casts saturate, so clamping in float and casting is
    // the idiom for "convert and saturate".
    expect_value<uint8_t>("cast<uint8_t>(300.0f) saturates", cast<uint8_t>(Expr(300.0f)), (uint8_t)255);
    expect_value<uint8_t>("cast<uint8_t>(-5.0f) saturates", cast<uint8_t>(Expr(-5.0f)), (uint8_t)0);
    // Integer-to-narrower-integer casts wrap; saturate by clamping first.
    expect_value<uint8_t>("cast<uint8_t>(clamp(i16, 0, 255))", cast<uint8_t>(clamp(i16, 0, 255)), (uint8_t)0);
    expect_value<int>("reinterpret<int>(1.0f)", reinterpret<int>(Expr(1.0f)), 0x3f800000);

    // A typical 8-bit pipeline: widen, compute, saturate, narrow.
    std::printf("An 8-bit pipeline, widened to avoid overflow:\n");
    Buffer<uint8_t> a(8), b(8);
    for (int i = 0; i < 8; i++) {
        a(i) = (uint8_t)(i * 30);
        b(i) = 150;
    }
    Func average("average"), saturated("saturated");
    average(x) = cast<uint8_t>((cast<uint16_t>(a(x)) + b(x)) / 2);
    saturated(x) = cast<uint8_t>(min(cast<uint16_t>(a(x)) + b(x), 255));
    Buffer<uint8_t> avg = average.realize({8});
    Buffer<uint8_t> sat = saturated.realize({8});
    for (int i = 0; i < 8; i++) {
        int sum = a(i) + b(i);
        if (avg(i) != sum / 2 || sat(i) != (sum > 255 ? 255 : sum)) problems++;
    }
    std::printf("  a + b saturated: ");
    for (int i = 0; i < 8; i++) std::printf("%d ", sat(i));
    std::printf("\n");

    // Float(16): half precision. Each operation computes in float and rounds
    // the result to half (ties to even); float16_t does the same in C++.
    std::printf("Float(16):\n");
    Buffer<float16_t> halves(6);
    for (int i = 0; i < 6; i++) halves(i) = float16_t(1.0f + i / 3.0f);
    Func scaled("scaled");
    // A float literal or an int literal next to a Float(16) stays Float(16).
    scaled(x) = halves(x) * 3.0f + 1;
    expect_type("halves(x) * 3.0f + 1", scaled.value(), Float(16));
    Buffer<float16_t> out = scaled.realize({6});
    for (int i = 0; i < 6; i++) {
        float16_t product(float(halves(i)) * 3.0f);
        float16_t expected(float(product) + 1.0f);
        if (out(i).to_bits() != expected.to_bits()) problems++;
    }
    std::printf("  halves(2) = %.6f; times 3 plus 1 = %.6f in half precision (%.6f in float)\n",
                float(halves(2)), float(out(2)), float(halves(2)) * 3.0f + 1.0f);
    // Mixing Float(16) with Float(32) widens to Float(32).
    expect_type("halves(x) + f32", halves(x) + f32, Float(32));

    std::printf("%s: %d problems\n", problems ? "FAILED" : "Success", problems);
    return problems ? 1 : 0;
}
