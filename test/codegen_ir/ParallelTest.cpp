// Parallel loops in the LLVM back end: the body is outlined into a closure
// function run by the runtime's thread pool. Each case is checked against
// plain expectations and, byte for byte, against the reference interpreter
// (which runs parallel loops at once on the same thread pool).

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "CodeGenTestUtil.h"
#include "ir/Interpreter.h"
#include "loom/runtime/Buffer.h"
#include "runtime/ErrorCapture.h"
#include "runtime/RuntimeInternal.h"

namespace loom_test_ir {
namespace {

using loom::Float;
using loom::Int;
using loom::Runtime::Buffer;

// Four threads, even on a two-core machine, so that iterations really run
// concurrently; the previous count is restored afterwards.
class ParallelTest : public testing::Test {
protected:
    void SetUp() override { saved_threads_ = loom_set_num_threads(4); }
    void TearDown() override { loom_set_num_threads(saved_threads_); }

private:
    int saved_threads_ = 0;
};

Expr error_call(int code, const std::vector<Expr> &pieces) {
    std::vector<Expr> args = {i32(code)};
    args.insert(args.end(), pieces.begin(), pieces.end());
    return Call::make(Int(32), intrinsic::error, args, CallType::Intrinsic);
}

struct Outcome {
    int code = 0;
    std::string errors;
    Buffer<int32_t> out;
};

// Runs f on a fresh width x height output (filled with a pattern) plus the
// given leading arguments, compiled or interpreted.
Outcome run(const LoweredFunc &f, const JITPipeline *compiled, int width, int height,
            std::vector<void *> leading_args = {}) {
    Outcome r;
    r.out = Buffer<int32_t>(width, height);
    r.out.set_min(3, -2);
    std::memset(r.out.data(), 0x5a, r.out.size_in_bytes());
    std::vector<void *> args = leading_args;
    args.push_back(r.out.raw_buffer());
    CapturedMessages captured;
    r.code = compiled ? compiled->argv(args.data()) : interpret(f, args.data());
    r.errors = captured.errors();
    return r;
}

// Compiled and interpreted runs agree on the code, the messages and every byte.
Outcome run_both(const LoweredFunc &f, int width, int height, std::vector<void *> leading_args = {}) {
    JITPipeline p = compile_jit(f, jit_target());
    Outcome compiled = run(f, &p, width, height, leading_args);
    Outcome interpreted = run(f, nullptr, width, height, leading_args);
    EXPECT_EQ(compiled.code, interpreted.code);
    EXPECT_EQ(compiled.errors, interpreted.errors);
    EXPECT_EQ(std::memcmp(compiled.out.data(), interpreted.out.data(), compiled.out.size_in_bytes()), 0)
        << "compiled and interpreted outputs differ";
    return compiled;
}

LoweredArgument out_arg() { return buffer_arg("out", LoweredArgument::OutputBuffer, Int(32), 2); }

Stmt store_out(Expr value) { return Store::make("out", value, flat_index("out", {var("x"), var("y")})); }

// ------------------------------------------------------------------ rows

// out(x, y) = x * 1000 + y * k + offset + table[y & 7], with the rows in
// parallel: the body captures a scalar argument, an outer let, an outer
// stack allocation and the output's host pointer, mins and strides.
TEST_F(ParallelTest, EachIterationWritesItsOwnRow) {
    Expr x = var("x"), y = var("y");
    Expr table = Load::make(Int(32), "table", Call::make(Int(32), intrinsic::bitwise_and, {y, i32(7)},
                                                         CallType::PureIntrinsic));
    Expr value = Add::make(Add::make(Mul::make(x, i32(1000)), Mul::make(y, var("k"))),
                           Add::make(var("offset"), table));
    Stmt rows = loop_over("y", "out", 1, loop_over("x", "out", 0, store_out(value)), ForType::Parallel);
    Stmt fill = For::make("t", i32(0), i32(8), ForType::Serial, DeviceAPI::None,
                          Store::make("table", Mul::make(var("t"), i32(-3)), var("t")));
    Stmt body = Allocate::make("table", Int(32), MemoryType::Stack, {i32(8)}, Expr(), Block::make(fill, rows));
    body = LetStmt::make("offset", Mul::make(var("k"), i32(2)), body);
    LoweredFunc f = make_func("rows", {scalar_arg("k", Int(32)), out_arg()}, with_buffer_lets("out", 2, body));

    int32_t k = 7;
    Outcome r = run_both(f, 37, 101, {&k});
    ASSERT_EQ(r.code, 0);
    for (int yy = -2; yy < 99; yy++) {
        for (int xx = 3; xx < 40; xx++) {
            ASSERT_EQ(r.out(xx, yy), xx * 1000 + yy * 7 + 14 + (yy & 7) * -3) << xx << ", " << yy;
        }
    }
}

TEST_F(ParallelTest, FloatAndBoolCapturesAndAVectorBody) {
    // out(x, y) = (flag ? y : -y) + int(scale * x), the x loop as 4-lane vectors.
    Expr xo = var("xo"), y = var("y");
    Expr x_base = Add::make(Mul::make(xo, i32(4)), var("out.min.0"));
    Expr xs = Ramp::make(x_base, i32(1), 4);
    Expr scaled = Cast::make(Int(32, 4), Mul::make(Cast::make(Float(32, 4), xs), Broadcast::make(var("scale", Float(32)), 4)));
    Expr signed_y = Select::make(var("flag", loom::Bool()), y, Sub::make(i32(0), y));
    Expr value = Add::make(scaled, Broadcast::make(signed_y, 4));
    Expr row_start = Mul::make(Sub::make(y, var("out.min.1")), var("out.stride.1"));
    Expr index = Ramp::make(Add::make(row_start, Mul::make(xo, i32(4))), i32(1), 4);
    Stmt xloop = For::make("xo", i32(0), Div::make(var("out.extent.0"), i32(4)), ForType::Vectorized, DeviceAPI::None,
                           Store::make("out", value, index));
    Stmt rows = loop_over("y", "out", 1, xloop, ForType::Parallel);
    LoweredFunc f = make_func("vector_rows",
                              {scalar_arg("scale", Float(32)), scalar_arg("flag", loom::Bool()), out_arg()},
                              with_buffer_lets("out", 2, rows));
    float scale = 1.5f;
    bool flag = false;
    Outcome r = run_both(f, 16, 40, {&scale, &flag});
    ASSERT_EQ(r.code, 0);
    EXPECT_EQ(r.out(5, 10), int(5 * 1.5f) - 10);
    EXPECT_EQ(r.out(18, -2), int(18 * 1.5f) + 2);
}

// ------------------------------------------------------------------ allocations

// Each row fills a scratch row and reads it back reversed: if iterations
// shared their scratch memory, concurrent rows would corrupt each other.
LoweredFunc with_scratch(MemoryType memory, Expr extent) {
    Expr x = var("x"), y = var("y"), s = var("s");
    Expr w = var("out.extent.0");
    Stmt fill = For::make("s", i32(0), w, ForType::Serial, DeviceAPI::None,
                          Store::make("scratch", Add::make(Mul::make(s, i32(3)), Mul::make(y, i32(100))), s));
    Expr local = Sub::make(x, var("out.min.0"));
    Expr reversed = Load::make(Int(32), "scratch", Sub::make(Sub::make(w, i32(1)), local));
    Stmt use = loop_over("x", "out", 0, store_out(Add::make(reversed, Load::make(Int(32), "scratch", local))));
    Stmt body = Allocate::make("scratch", Int(32), memory, {extent}, Expr(), Block::make(fill, use));
    Stmt rows = loop_over("y", "out", 1, body, ForType::Parallel);
    return make_func("scratch_rows", {out_arg()}, with_buffer_lets("out", 2, rows));
}

void check_scratch(const Outcome &r) {
    ASSERT_EQ(r.code, 0);
    const int w = r.out.dim(0).extent();
    for (int yy = -2; yy < -2 + r.out.dim(1).extent(); yy++) {
        for (int i = 0; i < w; i++) {
            ASSERT_EQ(r.out(3 + i, yy), 3 * (w - 1) + 200 * yy) << i << ", " << yy;
        }
    }
}

TEST_F(ParallelTest, HeapAllocationInsideTheBodyIsPerIteration) {
    check_scratch(run_both(with_scratch(MemoryType::Heap, var("out.extent.0")), 300, 64));
}

TEST_F(ParallelTest, StackAllocationInsideTheBodyIsPerIteration) {
    check_scratch(run_both(with_scratch(MemoryType::Stack, i32(512)), 300, 64));
}

// ------------------------------------------------------------------ errors

// Row 13 fails an assertion inside a heap allocation that is itself inside
// an outer heap allocation; the pipeline returns its code after one message.
LoweredFunc failing_rows() {
    Expr x = var("x"), y = var("y");
    Stmt check = AssertStmt::make(NE::make(y, i32(13)),
                                  error_call(loom_error_code_user_assertion, {str("row "), y, str(" is unlucky")}));
    Stmt row = Block::make({Store::make("scratch", y, i32(0)), check,
                            loop_over("x", "out", 0, store_out(Add::make(Load::make(Int(32), "scratch", i32(0)),
                                                                         Load::make(Int(32), "outer", i32(1)))))});
    row = Allocate::make("scratch", Int(32), MemoryType::Heap, {var("out.extent.0")}, Expr(), row);
    Stmt rows = loop_over("y", "out", 1, row, ForType::Parallel);
    Stmt body = Block::make(Store::make("outer", i32(5), i32(1)), rows);
    body = Allocate::make("outer", Int(32), MemoryType::Heap, {var("out.extent.1")}, Expr(), body);
    return make_func("failing_rows", {out_arg()}, with_buffer_lets("out", 2, body));
}

TEST_F(ParallelTest, FailingAssertionInOneIterationReturnsItsCode) {
    LoweredFunc f = failing_rows();
    JITPipeline p = compile_jit(f, jit_target());
    for (int attempt = 0; attempt < 10; attempt++) {
        Outcome compiled = run(f, &p, 8, 64);
        EXPECT_EQ(compiled.code, loom_error_code_user_assertion);
        EXPECT_EQ(compiled.errors, "row 13 is unlucky\n");
    }
    Outcome interpreted = run(f, nullptr, 8, 64);
    EXPECT_EQ(interpreted.code, loom_error_code_user_assertion);
    EXPECT_EQ(interpreted.errors, "row 13 is unlucky\n");
    // Rows that ran are right (others may or may not have run).
    Outcome compiled = run(f, &p, 8, 64);
    for (int yy = -2; yy < 62; yy++) {
        if (compiled.out(3, yy) != 0x5a5a5a5a) EXPECT_EQ(compiled.out(3, yy), yy + 5) << yy;
    }
}

// The JIT front end turns errors into exceptions through a capture on the
// calling thread; the message of a row that failed on a worker reaches it.
TEST_F(ParallelTest, FailureOnAWorkerReachesTheCallersErrorCapture) {
    LoweredFunc f = failing_rows();
    JITPipeline p = compile_jit(f, jit_target());
    for (int attempt = 0; attempt < 10; attempt++) {
        Buffer<int32_t> out(8, 64);
        void *args[] = {out.raw_buffer()};
        loom::internal::ScopedErrorCapture capture;
        EXPECT_EQ(p.argv(args), loom_error_code_user_assertion);
        EXPECT_EQ(capture.message(), "row 13 is unlucky");
    }
}

// ------------------------------------------------------------------ nesting

// Parallel rows of parallel columns of a serial loop, with an allocation in
// the middle level; inner loops run serially on workers.
TEST_F(ParallelTest, NestedParallelLoops) {
    Expr x = var("x"), y = var("y"), k = var("k");
    Stmt sum = For::make("k", i32(0), i32(4), ForType::Serial, DeviceAPI::None,
                         Store::make("acc", Add::make(Load::make(Int(32), "acc", i32(0)), Mul::make(k, y)), i32(0)));
    Stmt cell = Block::make({Store::make("acc", x, i32(0)), sum, store_out(Load::make(Int(32), "acc", i32(0)))});
    cell = Allocate::make("acc", Int(32), MemoryType::Stack, {i32(1)}, Expr(), cell);
    Stmt columns = loop_over("x", "out", 0, cell, ForType::Parallel);
    Stmt row = Allocate::make("unused", Int(32), MemoryType::Heap, {var("out.extent.0")}, Expr(), columns);
    Stmt rows = loop_over("y", "out", 1, row, ForType::Parallel);
    LoweredFunc f = make_func("nested", {out_arg()}, with_buffer_lets("out", 2, rows));
    Outcome r = run_both(f, 45, 23);
    ASSERT_EQ(r.code, 0);
    for (int yy = -2; yy < 21; yy++) {
        for (int xx = 3; xx < 48; xx++) ASSERT_EQ(r.out(xx, yy), xx + 6 * yy) << xx << ", " << yy;
    }
}

TEST_F(ParallelTest, EmptyAndSingleIterationLoops) {
    Stmt rows = loop_over("y", "out", 1, loop_over("x", "out", 0, store_out(var("y"))), ForType::Parallel);
    LoweredFunc f = make_func("small", {out_arg()}, with_buffer_lets("out", 2, rows));
    EXPECT_EQ(run_both(f, 4, 0).code, 0);
    Outcome one = run_both(f, 4, 1);
    EXPECT_EQ(one.out(5, -2), -2);
}

// ------------------------------------------------------------------ thread count

// A print handler that records its thread and waits (up to a timeout) until
// `wanted` threads have printed, so that each allowed thread takes part.
struct ThreadLog {
    static std::mutex mutex;
    static std::condition_variable changed;
    static std::set<std::thread::id> seen;
    static size_t wanted;
    static std::chrono::milliseconds timeout;
    static void on_print(void *, const char *) {
        std::unique_lock<std::mutex> lock(mutex);
        seen.insert(std::this_thread::get_id());
        changed.notify_all();
        changed.wait_for(lock, timeout, [] { return seen.size() >= wanted; });
    }
};
std::mutex ThreadLog::mutex;
std::condition_variable ThreadLog::changed;
std::set<std::thread::id> ThreadLog::seen;
size_t ThreadLog::wanted = 0;
std::chrono::milliseconds ThreadLog::timeout{0};

// With wanted = the allowed count, the wait ends as soon as all have come
// (a long timeout only guards a busy machine); with wanted above it, each
// print waits out a short timeout in which an extra thread could join.
size_t threads_seen_by_print(const JITPipeline &p, size_t wanted, int allowed) {
    loom_set_num_threads(allowed);
    ThreadLog::seen.clear();
    ThreadLog::wanted = wanted;
    ThreadLog::timeout = std::chrono::milliseconds(wanted == size_t(allowed) ? 5000 : 50);
    loom_print_handler_t previous = loom_set_print_handler(&ThreadLog::on_print);
    EXPECT_EQ(p.argv(nullptr), 0);
    loom_set_print_handler(previous);
    return ThreadLog::seen.size();
}

TEST_F(ParallelTest, ThreadCountIsHonoured) {
    Expr print = Call::make(Int(32), intrinsic::print, {str("row"), var("y")}, CallType::Intrinsic);
    Stmt rows = For::make("y", i32(0), i32(9), ForType::Parallel, DeviceAPI::None, Evaluate::make(print));
    JITPipeline p = compile_jit(make_func("printing_rows", {}, rows), jit_target());
    EXPECT_EQ(threads_seen_by_print(p, 3, 3), 3u);
    EXPECT_EQ(threads_seen_by_print(p, 2, 1), 1u);
    EXPECT_EQ(threads_seen_by_print(p, 3, 2), 2u);
}

}  // namespace
}  // namespace loom_test_ir
