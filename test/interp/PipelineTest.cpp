// Whole lowered programs run by interpret(): loops over buffers with mins and
// strides, intermediates, assertions, bounds checks, vectors, printing.

#include <gtest/gtest.h>

#include <chrono>

#include "InterpTestUtil.h"
#include "loom/Error.h"

namespace loom {
namespace internal {
namespace {

using namespace interp_test;

// out(x) = x * 2, for x over out's domain.
LoweredFunc doubling_func() {
    Expr x = var("x");
    Stmt store = Store::make("out", Mul::make(x, i32(2)), Sub::make(x, buf_min("out", 0)));
    Stmt loop = serial_for("x", buf_min("out", 0), buf_extent("out", 0), store);
    LoweredFunc f;
    f.name = "doubling";
    f.args = {buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("out", loop);
    return f;
}

TEST(InterpPipeline, LoopWritesOutput) {
    TestBuffer out(Int(32), {-3}, {10});
    void *args[] = {&out.buf};
    EXPECT_EQ(interpret(doubling_func(), args), 0);
    for (int x = -3; x < 7; x++) EXPECT_EQ(out.at<int32_t>({x}), x * 2) << x;
}

// out(x, y) = in(x, y) + scale, both 2-D with arbitrary mins and strides.
LoweredFunc add_scalar_2d() {
    Expr x = var("x"), y = var("y");
    auto index = [&](const std::string &b) {
        Expr dx = Mul::make(Sub::make(x, buf_min(b, 0)), buf_stride(b, 0));
        Expr dy = Mul::make(Sub::make(y, buf_min(b, 1)), buf_stride(b, 1));
        return Add::make(dx, dy);
    };
    Expr value = Add::make(Load::make(Int(16), "in", index("in")), Cast::make(Int(16), var("scale")));
    Stmt store = Store::make("out", value, index("out"));
    Stmt inner = serial_for("x", buf_min("out", 0), buf_extent("out", 0), store);
    Stmt outer = serial_for("y", buf_min("out", 1), buf_extent("out", 1), inner);
    LoweredFunc f;
    f.name = "add_scalar_2d";
    f.args = {buffer_arg("in", Int(16), 2, false), scalar_arg("scale", Int(32)), buffer_arg("out", Int(16), 2, true)};
    f.body = with_host("in", with_host("out", outer));
    return f;
}

TEST(InterpPipeline, TwoDimensionalMinsAndStrides) {
    // Input larger than needed, rows padded to 9, starting at (2, -4).
    TestBuffer in(Int(16), {2, -4}, {6, 7}, {1, 9});
    for (int y = -4; y < 3; y++)
        for (int x = 2; x < 8; x++) in.at<int16_t>({x, y}) = (int16_t)(x * 100 + y);
    // Output transposed in memory (x is the outer stride), over (3..6, -2..1).
    TestBuffer out(Int(16), {3, -2}, {4, 4}, {4, 1});
    int32_t scale = 7;
    void *args[] = {&in.buf, &scale, &out.buf};
    ASSERT_EQ(interpret(add_scalar_2d(), args), 0);
    for (int y = -2; y < 2; y++)
        for (int x = 3; x < 7; x++) EXPECT_EQ(out.at<int16_t>({x, y}), x * 100 + y + 7) << x << "," << y;
}

TEST(InterpPipeline, NegativeStrideInput) {
    // The input is flipped vertically: its host pointer is at the last row.
    TestBuffer in(Int(16), {0, 0}, {3, 3}, {1, -3});
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) in.at<int16_t>({x, y}) = (int16_t)(10 * y + x);
    TestBuffer out(Int(16), {0, 0}, {3, 3});
    int32_t scale = 0;
    void *args[] = {&in.buf, &scale, &out.buf};
    ASSERT_EQ(interpret(add_scalar_2d(), args), 0);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) EXPECT_EQ(out.at<int16_t>({x, y}), 10 * y + x);
}

TEST(InterpPipeline, AllocatedIntermediate) {
    // tmp[i] = i * i for i in [0, 10); out[x] = tmp[x] + tmp[9 - x].
    Expr i = var("i"), x = var("x");
    Stmt produce = ProducerConsumer::make_produce(
        "tmp", serial_for("i", i32(0), i32(10), Store::make("tmp", Mul::make(i, i), i)));
    Expr sum = Add::make(Load::make(Int(32), "tmp", x), Load::make(Int(32), "tmp", Sub::make(i32(9), x)));
    Stmt consume = ProducerConsumer::make_consume("tmp", serial_for("x", i32(0), i32(10), Store::make("out", sum, x)));
    Stmt body = Allocate::make("tmp", Int(32), MemoryType::Heap, {i32(5), i32(2)}, Expr(),
                               Block::make({produce, consume, Free::make("tmp")}));
    LoweredFunc f;
    f.args = {buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("out", body);
    TestBuffer out(Int(32), {0}, {10});
    void *args[] = {&out.buf};
    ASSERT_EQ(interpret(f, args), 0);
    for (int k = 0; k < 10; k++) EXPECT_EQ(out.at<int32_t>({k}), k * k + (9 - k) * (9 - k));
}

TEST(InterpPipeline, FailedAssertReturnsCodeAndReportsMessage) {
    // for x: out[x] = x; assert(x < limit, error(-8, "x is ", x, " but limit is ", limit, " at ", 0.5f))
    Expr x = var("x"), limit = var("limit");
    Expr message = error_call(-8, {StringImm::make("x is "), x, StringImm::make(" but limit is "), limit,
                                   StringImm::make(" at "), FloatImm::make(Float(32), 0.5)});
    Stmt body = Block::make(Store::make("out", x, x), AssertStmt::make(LT::make(x, limit), message));
    // An allocation around the loop is unwound too.
    Stmt alloc = Allocate::make("scratch", UInt(8), MemoryType::Auto, {i32(64)}, Expr(),
                                serial_for("x", i32(0), i32(10), body));
    LoweredFunc f;
    f.args = {scalar_arg("limit", Int(32)), buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("out", alloc);
    TestBuffer out(Int(32), {0}, {10});
    for (int k = 0; k < 10; k++) out.at<int32_t>({k}) = -1;
    int32_t lim = 3;
    void *args[] = {&lim, &out.buf};
    MessageCapture capture;
    EXPECT_EQ(interpret(f, args), -8);
    ASSERT_EQ(MessageCapture::errors().size(), 1u);
    EXPECT_EQ(MessageCapture::errors()[0], "x is 3 but limit is 3 at 0.5");
    for (int k = 0; k < 10; k++) EXPECT_EQ(out.at<int32_t>({k}), k <= 3 ? k : -1) << k;
    // With a large enough limit the run succeeds and reports nothing.
    lim = 100;
    EXPECT_EQ(interpret(f, args), 0);
    EXPECT_EQ(MessageCapture::errors().size(), 1u);
}

TEST(InterpPipeline, OutOfBoundsStoreThrows) {
    // Writes one element past the end.
    Expr x = var("x");
    Stmt loop = serial_for("x", i32(0), Add::make(buf_extent("out", 0), i32(1)), Store::make("out", x, x));
    LoweredFunc f;
    f.args = {buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("out", loop);
    TestBuffer out(Int(32), {0}, {8});
    void *args[] = {&out.buf};
    EXPECT_THROW(interpret(f, args), InternalError);
    // The allocation past the host pointer stays untouched; in-range writes happened.
    EXPECT_EQ(out.at<int32_t>({7}), 7);
}

TEST(InterpPipeline, OutOfBoundsLoadsThrow) {
    auto run_load = [](Expr index) {
        Stmt s = Store::make("out", Load::make(Int(32), "out", index), i32(0));
        LoweredFunc f;
        f.args = {buffer_arg("out", Int(32), 1, true)};
        f.body = with_host("out", s);
        TestBuffer out(Int(32), {0}, {4});
        void *args[] = {&out.buf};
        return interpret(f, args);
    };
    EXPECT_EQ(run_load(i32(3)), 0);
    EXPECT_THROW(run_load(i32(4)), InternalError);
    EXPECT_THROW(run_load(i32(-1)), InternalError);
    // Loads from an Allocate are checked against its size.
    Stmt s = Allocate::make("t", UInt(8), MemoryType::Stack, {i32(4)}, Expr(),
                            Evaluate::make(Load::make(UInt(8), "t", i32(4))));
    LoweredFunc f;
    f.body = s;
    EXPECT_THROW(interpret(f, nullptr), InternalError);
    // An allocation whose condition is false is null: any access throws.
    Stmt cond = Allocate::make("t", UInt(8), MemoryType::Stack, {i32(4)}, EQ::make(i32(0), i32(1)),
                               Evaluate::make(Load::make(UInt(8), "t", i32(0))));
    f.body = cond;
    EXPECT_THROW(interpret(f, nullptr), InternalError);
}

TEST(InterpPipeline, VectorRampLoadStore) {
    // for xo in [0, 4): out[ramp(xo*4, 1, 4)] = in[ramp(xo*4, 1, 4)] * 3
    // then a predicated store writes only the even lanes of out2.
    Expr xo = var("xo");
    Expr base = Mul::make(xo, i32(4));
    Expr ramp = Ramp::make(base, i32(1), 4);
    Expr loaded = Load::make(Float(32, 4), "in", ramp);
    Expr value = Mul::make(loaded, Broadcast::make(FloatImm::make(Float(32), 3.0), 4));
    Expr even = EQ::make(Mod::make(ramp, Broadcast::make(i32(2), 4)), Broadcast::make(i32(0), 4));
    // A general (gathered) vector index: reversed lanes.
    Expr reversed = Ramp::make(Add::make(base, i32(3)), i32(-1), 4);
    Stmt body = Block::make({Store::make("out", value, ramp),
                             Store::make("out2", Load::make(Float(32, 4), "in", reversed), ramp, even)});
    LoweredFunc f;
    f.args = {buffer_arg("in", Float(32), 1, false), buffer_arg("out", Float(32), 1, true),
              buffer_arg("out2", Float(32), 1, true)};
    f.body = with_host("in", with_host("out", with_host("out2", serial_for("xo", i32(0), i32(4), body))));
    TestBuffer in(Float(32), {0}, {16}), out(Float(32), {0}, {16}), out2(Float(32), {0}, {16});
    for (int k = 0; k < 16; k++) in.at<float>({k}) = 0.5f * k;
    void *args[] = {&in.buf, &out.buf, &out2.buf};
    ASSERT_EQ(interpret(f, args), 0);
    for (int k = 0; k < 16; k++) {
        EXPECT_EQ(out.at<float>({k}), 1.5f * k) << k;
        int mirrored = (k / 4) * 4 + 3 - k % 4;
        EXPECT_EQ(out2.at<float>({k}), k % 2 == 0 ? 0.5f * mirrored : 0.0f) << k;
    }
    // A vector store that reaches past the end throws and writes none of its lanes.
    Stmt bad = Store::make("out", Broadcast::make(FloatImm::make(Float(32), 9.0), 4), Ramp::make(i32(14), i32(1), 4));
    f.body = with_host("in", with_host("out", with_host("out2", bad)));
    EXPECT_THROW(interpret(f, args), InternalError);
    EXPECT_EQ(out.at<float>({14}), 1.5f * 14);
}

TEST(InterpPipeline, WhileIfAndBoolBuffers) {
    // i = 0 (in a one-element allocation); while (i < 5) { flags[i] = i % 2 == 1; i += 1 }
    Expr i = Load::make(Int(32), "i", i32(0));
    Stmt body = Block::make(Store::make("flags", EQ::make(Mod::make(i, i32(2)), i32(1)), i),
                            Store::make("i", Add::make(i, i32(1)), i32(0)));
    Stmt loop = While::make(LT::make(i, i32(5)), body);
    Stmt tail = IfThenElse::make(EQ::make(i, i32(5)), Store::make("flags", EQ::make(i32(0), i32(0)), i32(5)),
                                 Store::make("flags", EQ::make(i32(0), i32(1)), i32(5)));
    LoweredFunc f;
    f.args = {buffer_arg("flags", Bool(), 1, true)};
    f.body = with_host("flags", Allocate::make("i", Int(32), MemoryType::Stack, {}, Expr(), Block::make(loop, tail)));
    TestBuffer flags(Bool(), {0}, {6});
    void *args[] = {&flags.buf};
    ASSERT_EQ(interpret(f, args), 0);
    std::vector<int> expected = {0, 1, 0, 1, 0, 1};
    for (int k = 0; k < 6; k++) EXPECT_EQ(flags.at<uint8_t>({k}), expected[k]) << k;
}

TEST(InterpPipeline, PrintThroughHandler) {
    Expr pv = Call::make(Int(32), intrinsic::print_value, {i32(42), StringImm::make("is the answer")},
                         CallType::Intrinsic);
    Expr p = Call::make(Int(32), intrinsic::print, {StringImm::make("x ="), FloatImm::make(Float(64), 1.25)},
                        CallType::Intrinsic);
    Expr when = Call::make(Int(32), intrinsic::print_value_when, {EQ::make(i32(1), i32(2)), i32(7)},
                           CallType::Intrinsic);
    LoweredFunc f;
    f.args = {buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("out", Block::make({Store::make("out", pv, i32(0)), Evaluate::make(p),
                                           Store::make("out", when, i32(1))}));
    TestBuffer out(Int(32), {0}, {2});
    void *args[] = {&out.buf};
    MessageCapture capture;
    ASSERT_EQ(interpret(f, args), 0);
    ASSERT_EQ(MessageCapture::prints().size(), 2u);
    EXPECT_EQ(MessageCapture::prints()[0], "42 is the answer\n");
    EXPECT_EQ(MessageCapture::prints()[1], "x = 1.25\n");
    EXPECT_EQ(out.at<int32_t>({0}), 42);
    EXPECT_EQ(out.at<int32_t>({1}), 7);
}

TEST(InterpPipeline, BufferQueriesAndNullChecks) {
    // out[0] = dims, out[1] = type code, out[2] = type bits, out[3] = in is null, out[4] = host null.
    auto q = [](Type t, const char *name) { return Call::make(t, name, {buffer_var("in")}, CallType::PureIntrinsic); };
    Stmt s = Block::make({
        Store::make("out", q(Int(32), intrinsic::buffer_get_dimensions), i32(0)),
        Store::make("out", Cast::make(Int(32), q(UInt(8), intrinsic::buffer_get_type_code)), i32(1)),
        Store::make("out", Cast::make(Int(32), q(UInt(8), intrinsic::buffer_get_type_bits)), i32(2)),
        Store::make("out", Cast::make(Int(32), q(Bool(), intrinsic::buffer_is_null)), i32(3)),
        Store::make("out", Cast::make(Int(32), q(Bool(), intrinsic::buffer_host_is_null)), i32(4)),
    });
    LoweredFunc f;
    f.args = {buffer_arg("in", UInt(16), 3, false), buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("out", s);
    TestBuffer in(UInt(16), {0, 0, 0}, {2, 2, 2}), out(Int(32), {0}, {5});
    in.buf.host = nullptr;
    void *args[] = {&in.buf, &out.buf};
    ASSERT_EQ(interpret(f, args), 0);
    EXPECT_EQ(out.at<int32_t>({0}), 3);
    EXPECT_EQ(out.at<int32_t>({1}), (int)loom_type_uint);
    EXPECT_EQ(out.at<int32_t>({2}), 16);
    EXPECT_EQ(out.at<int32_t>({3}), 0);
    EXPECT_EQ(out.at<int32_t>({4}), 1);
}

TEST(InterpPipeline, NonLoweredNodesThrow) {
    LoweredFunc f;
    f.body = Provide::make("g", {i32(1)}, {i32(0)});
    EXPECT_THROW(interpret(f, nullptr), InternalError);
    f.body = Realize::make("g", {Int(32)}, MemoryType::Auto, {Range(i32(0), i32(4))}, Expr(),
                           Evaluate::make(i32(0)));
    EXPECT_THROW(interpret(f, nullptr), InternalError);
    // A Store to a name nothing binds.
    f.body = Store::make("nowhere", i32(1), i32(0));
    EXPECT_THROW(interpret(f, nullptr), InternalError);
}

// A three-stage 256x256 pipeline (blur-like), to keep the interpreter usable
// on real image sizes.
TEST(InterpPipeline, ThreeStagePerformance) {
    const int W = 256, H = 256;
    Expr x = var("x"), y = var("y");
    auto at = [&](const char *name, Expr xx, Expr yy, int stride) {
        return Load::make(Float(32), name, Add::make(xx, Mul::make(yy, i32(stride))));
    };
    // bx(x, y) = in(x, y) + in(x+1, y) + in(x+2, y) over (W) x (H + 2)
    Expr bx = Add::make(Add::make(at("in", x, y, W + 2), at("in", Add::make(x, i32(1)), y, W + 2)),
                        at("in", Add::make(x, i32(2)), y, W + 2));
    Stmt stage1 = serial_for("y", i32(0), i32(H + 2),
                             serial_for("x", i32(0), i32(W), Store::make("bx", bx, Add::make(x, Mul::make(y, i32(W))))));
    Expr by = Add::make(Add::make(at("bx", x, y, W), at("bx", x, Add::make(y, i32(1)), W)),
                        at("bx", x, Add::make(y, i32(2)), W));
    Expr result = Cast::make(UInt(8), Min::make(Mul::make(by, FloatImm::make(Float(32), 1.0 / 9)),
                                                 FloatImm::make(Float(32), 255.0)));
    Stmt stage2 = serial_for("y", i32(0), i32(H),
                             serial_for("x", i32(0), i32(W), Store::make("out", result, Add::make(x, Mul::make(y, i32(W))))));
    Stmt body = Allocate::make("bx", Float(32), MemoryType::Heap, {i32(W), i32(H + 2)}, Expr(),
                               Block::make(stage1, stage2));
    LoweredFunc f;
    f.args = {buffer_arg("in", Float(32), 2, false), buffer_arg("out", UInt(8), 2, true)};
    f.body = with_host("in", with_host("out", body));
    TestBuffer in(Float(32), {0, 0}, {W + 2, H + 2}), out(UInt(8), {0, 0}, {W, H});
    for (int yy = 0; yy < H + 2; yy++)
        for (int xx = 0; xx < W + 2; xx++) in.at<float>({xx, yy}) = (float)((xx * 7 + yy * 13) % 256);
    void *args[] = {&in.buf, &out.buf};
    auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(interpret(f, args), 0);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (int yy = 0; yy < H; yy += 37) {
        for (int xx = 0; xx < W; xx += 41) {
            float sum = 0;
            for (int dy = 0; dy < 3; dy++) {
                float row = 0;
                for (int dx = 0; dx < 3; dx++) row = row + in.at<float>({xx + dx, yy + dy});
                sum = dy == 0 ? row : sum + row;
            }
            float expected = std::min(sum * (float)(1.0 / 9), 255.0f);
            EXPECT_EQ(out.at<uint8_t>({xx, yy}), (uint8_t)expected) << xx << "," << yy;
        }
    }
    EXPECT_LT(seconds, 5.0);
    RecordProperty("seconds", std::to_string(seconds));
}

}  // namespace
}  // namespace internal
}  // namespace loom
