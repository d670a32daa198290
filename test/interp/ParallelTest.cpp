// Parallel loops in the interpreter run on the runtime's thread pool, as
// compiled code's do: iterations on several threads at once, each with its
// own slots and scratch, atomic updates that take turns per element, and
// errors of any iteration reaching the caller. The thread count is set with
// loom_set_num_threads, so nothing depends on the host's cores; waits in the
// print handler make threads meet inside iterations instead of relying on
// timing (a timeout only ends a wait that the program cannot satisfy).

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "InterpTestUtil.h"
#include "lang/Backend.h"
#include "loom/Error.h"
#include "loom/Loom.h"
#include "runtime/RuntimeInternal.h"

namespace loom {
namespace internal {
namespace {

using namespace interp_test;

// A print handler where the first `rounds` * `per_round` prints meet in
// rounds: each waits (up to `timeout`) until `per_round` prints of its round
// have started, so that many iterations are inside the loop body at once.
// Later prints, and every print after a wait timed out, pass. Records the
// printing threads.
struct Meeting {
    static std::mutex mutex;
    static std::condition_variable changed;
    static std::set<std::thread::id> threads;
    static int arrived, per_round, rounds;
    static std::chrono::milliseconds timeout;
    static bool timed_out;

    static void reset(int prints_per_round, int round_count, std::chrono::milliseconds wait) {
        std::lock_guard<std::mutex> lock(mutex);
        threads.clear();
        arrived = 0;
        per_round = prints_per_round;
        rounds = round_count;
        timeout = wait;
        timed_out = false;
    }
    static bool met() { return !timed_out && arrived >= per_round * rounds; }
    static void on_print(void *, const char *) {
        std::unique_lock<std::mutex> lock(mutex);
        threads.insert(std::this_thread::get_id());
        const int me = ++arrived;
        if (me > per_round * rounds || timed_out) return;
        const int round_end = (me + per_round - 1) / per_round * per_round;
        changed.notify_all();
        if (!changed.wait_for(lock, timeout, [&] { return arrived >= round_end || timed_out; })) {
            timed_out = true;
            changed.notify_all();
        }
    }
};
std::mutex Meeting::mutex;
std::condition_variable Meeting::changed;
std::set<std::thread::id> Meeting::threads;
int Meeting::arrived = 0, Meeting::per_round = 0, Meeting::rounds = 0;
std::chrono::milliseconds Meeting::timeout{0};
bool Meeting::timed_out = false;

class InterpParallel : public testing::Test {
protected:
    void SetUp() override {
        saved_threads_ = loom_set_num_threads(4);
        saved_print_ = loom_set_print_handler(&Meeting::on_print);
        Meeting::reset(0, 0, std::chrono::milliseconds(0));
    }
    void TearDown() override {
        loom_set_num_threads(saved_threads_);
        loom_set_print_handler(saved_print_);
    }

private:
    int saved_threads_ = 0;
    loom_print_handler_t saved_print_ = nullptr;
};

Expr str(const std::string &s) { return StringImm::make(s); }

// out(y) = y * 1000 + print_value(y): the product waits in its node's
// scratch while print_value runs, and the let v while the print statement
// runs, so iterations sharing either would read each other's.
LoweredFunc meeting_rows() {
    Expr y = var("y"), v = var("v");
    Expr printed = Call::make(Int(32), intrinsic::print_value, {y, str("row")}, CallType::Intrinsic);
    Expr value = Add::make(Add::make(Mul::make(y, i32(1000)), printed), v);
    Stmt print = Evaluate::make(Call::make(Int(32), intrinsic::print, {str("let"), y}, CallType::Intrinsic));
    Stmt body = LetStmt::make("v", Mul::make(y, i32(7)),
                              Block::make(print, Store::make("out", value, Sub::make(y, buf_min("out", 0)))));
    Stmt loop = For::make("y", buf_min("out", 0), buf_extent("out", 0), ForType::Parallel, DeviceAPI::None, body);
    LoweredFunc f;
    f.name = "meeting_rows";
    f.args = {buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("out", loop);
    return f;
}

TEST_F(InterpParallel, IterationsRunAtOnceOnThePoolsThreads) {
    for (int threads : {3, 2}) {
        loom_set_num_threads(threads);
        // Round 1 meets at the print statement, round 2 at print_value: each
        // needs `threads` iterations inside the body at once.
        Meeting::reset(threads, 2, std::chrono::seconds(10));
        TestBuffer out(Int(32), {-4}, {12});
        void *args[] = {&out.buf};
        ASSERT_EQ(interpret(meeting_rows(), args), 0);
        EXPECT_TRUE(Meeting::met()) << threads << " iterations were never inside the loop at once";
        EXPECT_EQ(Meeting::threads.size(), (size_t)threads);
        for (int y = -4; y < 8; y++) EXPECT_EQ(out.at<int32_t>({y}), y * 1000 + y + 7 * y) << y;
    }
}

TEST_F(InterpParallel, OneThreadRunsTheIterationsOnTheCaller) {
    loom_set_num_threads(1);
    Meeting::reset(2, 1, std::chrono::milliseconds(20));
    TestBuffer out(Int(32), {0}, {5});
    void *args[] = {&out.buf};
    ASSERT_EQ(interpret(meeting_rows(), args), 0);
    EXPECT_FALSE(Meeting::met()) << "two iterations met with one thread";
    ASSERT_EQ(Meeting::threads.size(), 1u);
    EXPECT_EQ(*Meeting::threads.begin(), std::this_thread::get_id());
    for (int y = 0; y < 5; y++) EXPECT_EQ(out.at<int32_t>({y}), y * 1008) << y;
}

// Parallel rows of parallel columns, each cell with a stack allocation, a
// serial loop and vector lets: every thread's Frame is its own.
TEST_F(InterpParallel, NestedLoopsWithAllocationsAndVectors) {
    Expr x = var("x"), y = var("y"), k = var("k");
    Expr acc = Load::make(Int(32), "acc", i32(0));
    Stmt sum = serial_for("k", i32(0), i32(5), Store::make("acc", Add::make(acc, Mul::make(k, y)), i32(0)));
    // w = <x, x + 1, x + 2, x + 3> * 3; out = acc + w[0] + w[3].
    Expr w = Mul::make(Ramp::make(x, i32(1), 4), Broadcast::make(i32(3), 4));
    Expr lanes = Add::make(Shuffle::make_extract_element(var("w", Int(32, 4)), 0),
                           Shuffle::make_extract_element(var("w", Int(32, 4)), 3));
    Stmt store = Store::make("out", Add::make(acc, lanes),
                             Add::make(Sub::make(x, buf_min("out", 0)), Mul::make(Sub::make(y, buf_min("out", 1)),
                                                                                  buf_stride("out", 1))));
    Stmt cell = Block::make({Store::make("acc", x, i32(0)), sum, LetStmt::make("w", w, store)});
    cell = Allocate::make("acc", Int(32), MemoryType::Stack, {i32(1)}, Expr(), cell);
    Stmt columns = For::make("x", buf_min("out", 0), buf_extent("out", 0), ForType::Parallel, DeviceAPI::None, cell);
    Stmt rows = For::make("y", buf_min("out", 1), buf_extent("out", 1), ForType::Parallel, DeviceAPI::None, columns);
    LoweredFunc f;
    f.name = "nested";
    f.args = {buffer_arg("out", Int(32), 2, true)};
    f.body = with_host("out", rows);
    for (int attempt = 0; attempt < 5; attempt++) {
        TestBuffer out(Int(32), {2, -3}, {37, 29});
        void *args[] = {&out.buf};
        ASSERT_EQ(interpret(f, args), 0);
        for (int yy = -3; yy < 26; yy++) {
            for (int xx = 2; xx < 39; xx++) {
                ASSERT_EQ(out.at<int32_t>({xx, yy}), xx + 10 * yy + 3 * xx + 3 * (xx + 3)) << xx << ", " << yy;
            }
        }
    }
}

// Six parallel loops nested in one another, each binding a let its body
// reads: more levels than a thread keeps Frames for by run
// (CompileParallel.cpp), so a thread takes a Frame again for a run whose
// Frame it no longer finds, and each later iteration of a run finds the one
// its thread took. out[a + 2b + 4c + 8d + 16e + 32f] = the lets' sum.
TEST_F(InterpParallel, DeeplyNestedLoopsFindTheirThreadsFrames) {
    const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
    Expr index = i32(0), sum = i32(0);
    for (size_t k = 0; k < names.size(); k++) {
        index = Add::make(index, Mul::make(var(names[k]), i32(1 << k)));
        sum = Add::make(sum, var(names[k] + ".v"));
    }
    Stmt body = Store::make("out", sum, index);
    for (size_t k = names.size(); k-- > 0;) {
        // let x.v = x * (k + 1) * 100 in <inner loops>
        body = LetStmt::make(names[k] + ".v", Mul::make(var(names[k]), i32((int)(k + 1) * 100)), body);
        body = For::make(names[k], i32(0), i32(2), ForType::Parallel, DeviceAPI::None, body);
    }
    LoweredFunc f;
    f.name = "deeply_nested";
    f.args = {buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("out", body);
    for (int attempt = 0; attempt < 3; attempt++) {
        TestBuffer out(Int(32), {0}, {64});
        void *args[] = {&out.buf};
        ASSERT_EQ(interpret(f, args), 0);
        for (int i = 0; i < 64; i++) {
            int expected = 0;
            for (int k = 0; k < 6; k++) expected += ((i >> k) & 1) * (k + 1) * 100;
            ASSERT_EQ(out.at<int32_t>({i}), expected) << i;
        }
    }
}

// hist[0] = atomic_update(hist[0] + print_value(1)) in every iteration:
// the first update waits in print_value for a second one, which could only
// join it without the element's lock (and would then read the same old
// value and lose an increment); none comes, and all 400 count.
TEST_F(InterpParallel, AtomicUpdatesOfOneElementTakeTurns) {
    Expr one = Call::make(Int(32), intrinsic::print_value, {i32(1)}, CallType::Intrinsic);
    Expr update = Call::make(Int(32), intrinsic::atomic_update, {Add::make(Load::make(Int(32), "hist", i32(0)), one)},
                             CallType::Intrinsic);
    Stmt loop = For::make("r", i32(0), i32(400), ForType::Parallel, DeviceAPI::None, Store::make("hist", update, i32(0)));
    LoweredFunc f;
    f.name = "histogram";
    f.args = {buffer_arg("hist", Int(32), 1, true)};
    f.body = with_host("hist", loop);
    Meeting::reset(2, 1, std::chrono::milliseconds(500));
    TestBuffer hist(Int(32), {0}, {1});
    void *args[] = {&hist.buf};
    ASSERT_EQ(interpret(f, args), 0);
    EXPECT_EQ(hist.at<int32_t>({0}), 400);
    EXPECT_FALSE(Meeting::met()) << "two updates of one element ran at once";
}

// A vector atomic update: each lane takes its element's lock in turn.
TEST_F(InterpParallel, VectorAtomicUpdatesOfOneElement) {
    Expr r = var("r");
    Expr index = Broadcast::make(Call::make(Int(32), intrinsic::bitwise_and, {r, i32(3)}, CallType::PureIntrinsic), 8);
    Expr value = Add::make(Load::make(Int(32, 8), "hist", index), Broadcast::make(i32(1), 8));
    Expr update = Call::make(Int(32, 8), intrinsic::atomic_update, {value}, CallType::Intrinsic);
    Stmt loop = For::make("r", i32(0), i32(4000), ForType::Parallel, DeviceAPI::None, Store::make("hist", update, index));
    LoweredFunc f;
    f.name = "vector_histogram";
    f.args = {buffer_arg("hist", Int(32), 1, true)};
    f.body = with_host("hist", loop);
    TestBuffer hist(Int(32), {0}, {4});
    void *args[] = {&hist.buf};
    ASSERT_EQ(interpret(f, args), 0);
    for (int b = 0; b < 4; b++) EXPECT_EQ(hist.at<int32_t>({b}), 8000) << b;
}

// An internal error in an iteration on any thread (here an out-of-bounds
// store) is rethrown on the caller's thread, naming the buffer.
TEST_F(InterpParallel, AnIterationsInternalErrorReachesTheCaller) {
    Expr r = var("r");
    Stmt loop = For::make("r", i32(0), i32(64), ForType::Parallel, DeviceAPI::None,
                          Store::make("out", r, Select::make(EQ::make(r, i32(37)), i32(1000), r)));
    LoweredFunc f;
    f.name = "out_of_bounds";
    f.args = {buffer_arg("out", Int(32), 1, true)};
    f.body = with_host("out", loop);
    TestBuffer out(Int(32), {0}, {64});
    void *args[] = {&out.buf};
    try {
        interpret(f, args);
        FAIL() << "expected an InternalError";
    } catch (const InternalError &e) {
        EXPECT_NE(std::string(e.what()).find("Store to 'out' at index 1000"), std::string::npos) << e.what();
    }
}

// Through the front end: an atomic histogram with its RDom in parallel,
// realized on the interpreter against a plain C++ loop.
TEST_F(InterpParallel, AtomicHistogramThroughRealize) {
    const Backend previous = jit_backend();
    set_jit_backend(Backend::Interpreter);
    Buffer<uint8_t> in(5000);
    for (int i = 0; i < 5000; i++) in(i) = (uint8_t)((i * 37 + i / 11) % 13);
    Func hist("hist");
    Var b("b");
    RDom r(0, 5000);
    hist(b) = 0;
    hist(clamp(cast<int>(in(r)), 0, 12)) += 1;
    hist.update().atomic().parallel(r);
    Buffer<int32_t> result = hist.realize({13});
    set_jit_backend(previous);
    std::vector<int> expected(13, 0);
    for (int i = 0; i < 5000; i++) expected[in(i)]++;
    for (int k = 0; k < 13; k++) EXPECT_EQ(result(k), expected[k]) << k;
}

}  // namespace
}  // namespace internal
}  // namespace loom
