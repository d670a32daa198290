// Callable (loom/Callable.h): compile once, call with arguments in the
// caller's order, checked at each call; compared with plain C++ loops on
// every JIT back end.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"
#include "lang/Backend.h"

namespace {

using namespace loom;
using loom_test::contains;

class CallableTest : public loom_test::BackendTest {};

struct ErrorContext : JITUserContext {
    std::vector<std::string> errors;
    std::vector<std::string> printed;
};

void keep_error(JITUserContext *c, const char *m) { static_cast<ErrorContext *>(c)->errors.push_back(m); }
void keep_print(JITUserContext *c, const char *m) { static_cast<ErrorContext *>(c)->printed.push_back(m); }

Buffer<uint8_t> ramp(int w, int h, int a, int b) {
    Buffer<uint8_t> in(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) in(x, y) = uint8_t(a * x + b * y);
    }
    return in;
}

/** f(x, y) = img(x, y) + p_int / p_float, as Halide's callable test. */
struct Offset {
    Param<int32_t> p_int{"p_int", 42};
    Param<float> p_float{"p_float", 1.0f};
    ImageParam img{UInt(8), 2, "img"};
    Var x{"x"}, y{"y"};
    Func f{"f"};
    Offset() { f(x, y) = img(x, y) + cast<uint8_t>(p_int / p_float); }
};

TEST_P(CallableTest, RunsWithNewValuesWithoutRecompiling) {
    Offset o;
    Callable c = o.f.compile_to_callable({o.img, o.p_int, o.p_float});
    ASSERT_EQ(c.arguments().size(), 4u);
    EXPECT_EQ(c.arguments()[0].name, "img");
    EXPECT_EQ(c.arguments()[3].kind, Argument::OutputBuffer);
    const int compiles = internal::jit_compile_count();

    Buffer<uint8_t> in1 = ramp(10, 10, 1, 10), in2 = ramp(10, 10, 10, 1);
    struct Case {
        Buffer<uint8_t> *in;
        int i;
        float f;
    };
    for (Case k : {Case{&in1, 42, 1.0f}, Case{&in2, 22, 2.0f}, Case{&in1, 12, 1.0f}, Case{&in2, 16, 0.5f}}) {
        Buffer<uint8_t> out(10, 10);
        ASSERT_EQ(c(*k.in, k.i, k.f, out), 0);
        loom_test::expect_buffer_eq(out, [&](const std::vector<int> &p) {
            return uint8_t((*k.in)(p[0], p[1]) + uint8_t(int(float(k.i) / k.f)));
        });
    }
    EXPECT_EQ(internal::jit_compile_count(), compiles);
}

TEST_P(CallableTest, TakesAJITUserContextFirst) {
    Var x("x");
    Param<int> k("k");
    Func f("f");
    f(x) = print(x + k);
    Callable c = f.compile_to_callable({k});
    ErrorContext ctx;
    ctx.handlers.custom_print = keep_print;
    Buffer<int> out(3);
    ASSERT_EQ(c(&ctx, 10, out), 0);
    EXPECT_EQ(ctx.printed, (std::vector<std::string>{"10\n", "11\n", "12\n"}));
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] + 10; });
}

TEST_P(CallableTest, MakeStdFunction) {
    Offset o;
    Callable c = o.f.compile_to_callable({o.img, o.p_int, o.p_float});
    auto fn = c.make_std_function<Buffer<uint8_t>, int32_t, float, Buffer<uint8_t>>();
    Buffer<uint8_t> in = ramp(8, 4, 3, 5), out(8, 4);
    ASSERT_EQ(fn(in, 7, 1.0f, out), 0);
    loom_test::expect_buffer_eq(out, [&](const std::vector<int> &p) { return uint8_t(in(p[0], p[1]) + 7); });
    auto with_context = c.make_std_function<JITUserContext *, Buffer<uint8_t>, int32_t, float, Buffer<uint8_t>>();
    JITUserContext ctx;
    ASSERT_EQ(with_context(&ctx, in, 9, 1.0f, out), 0);
    EXPECT_EQ(out(1, 1), uint8_t(in(1, 1) + 9));

    std::string msg = loom_test::compile_error_message([&] { c.make_std_function<Buffer<uint8_t>, int32_t>(); });
    EXPECT_TRUE(contains(msg, "takes 4 arguments")) << msg;
    msg = loom_test::compile_error_message(
        [&] { c.make_std_function<Buffer<uint8_t>, double, float, Buffer<uint8_t>>(); });
    EXPECT_TRUE(contains(msg, "'p_int'") && contains(msg, "int32")) << msg;
    msg = loom_test::compile_error_message(
        [&] { c.make_std_function<Buffer<float>, int32_t, float, Buffer<uint8_t>>(); });
    EXPECT_TRUE(contains(msg, "'img'")) << msg;
}

TEST_P(CallableTest, WrongArgumentsAreReportedAtTheCall) {
    Offset o;
    Callable c = o.f.compile_to_callable({o.img, o.p_int, o.p_float});
    Buffer<uint8_t> in = ramp(4, 4, 1, 1), out(4, 4);
    Buffer<float> wrong_type(4, 4);
    Buffer<uint8_t> wrong_rank(16);

    std::string msg = loom_test::runtime_error_message([&] { c(in, 1, 1.0f); });
    EXPECT_TRUE(contains(msg, "takes 4 arguments (img, p_int, p_float, f)") && contains(msg, "called with 3")) << msg;
    msg = loom_test::runtime_error_message([&] { c(in, 1, 1.0, out); });  // a double for a float
    EXPECT_TRUE(contains(msg, "Argument 3") && contains(msg, "'p_float'") && contains(msg, "float64")) << msg;
    msg = loom_test::runtime_error_message([&] { c(wrong_type, 1, 1.0f, out); });
    EXPECT_TRUE(contains(msg, "'img'") && contains(msg, "float32")) << msg;
    msg = loom_test::runtime_error_message([&] { c(in, 1, 1.0f, wrong_rank); });
    EXPECT_TRUE(contains(msg, "'f'") && contains(msg, "1 dimensions")) << msg;
    msg = loom_test::runtime_error_message([&] { c(in, in, 1.0f, out); });
    EXPECT_TRUE(contains(msg, "'p_int'") && contains(msg, "a buffer")) << msg;

    // With a custom_error handler: reported there, and an error code back.
    ErrorContext ctx;
    ctx.handlers.custom_error = keep_error;
    EXPECT_EQ(c(&ctx, in, 1, out), loom_error_code_bad_argument);
    ASSERT_EQ(ctx.errors.size(), 1u);
    EXPECT_TRUE(contains(ctx.errors[0], "called with 3")) << ctx.errors[0];
    JITUserContext misplaced;
    msg = loom_test::runtime_error_message([&] { c(in, &misplaced, 1.0f, out); });
    EXPECT_TRUE(contains(msg, "only the first argument may be a JITUserContext")) << msg;

    Callable undefined;
    msg = loom_test::compile_error_message([&] { undefined(out); });
    EXPECT_TRUE(contains(msg, "undefined")) << msg;
}

TEST_P(CallableTest, RuntimeFailureThrowsOrReturnsTheCode) {
    Offset o;
    Callable c = o.f.compile_to_callable({o.img, o.p_int, o.p_float});
    Buffer<uint8_t> small = ramp(4, 4, 1, 1), out(8, 8);
    std::string msg = loom_test::runtime_error_message([&] { c(small, 1, 1.0f, out); });
    EXPECT_TRUE(contains(msg, "img")) << msg;
    ErrorContext ctx;
    ctx.handlers.custom_error = keep_error;
    int result = c(&ctx, small, 1, 1.0f, out);
    EXPECT_LT(result, 0);
    ASSERT_EQ(ctx.errors.size(), 1u);
    EXPECT_EQ(ctx.errors[0], msg);
}

TEST_P(CallableTest, InputBoundsQuery) {
    Offset o;
    Var x("x"), y("y");
    Func g("g");
    g(x, y) = o.f(x + 1, y) + o.f(x, y + 2);
    Callable c = g.compile_to_callable({o.img, o.p_int, o.p_float});
    Runtime::Buffer<uint8_t> query(nullptr, 1, 1);  // no host memory: a bounds query
    Buffer<uint8_t> out(20, 10);
    ASSERT_EQ(c(query, 1, 1.0f, out), 0);
    EXPECT_EQ(query.dim(0).min(), 0);
    EXPECT_EQ(query.dim(0).extent(), 21);
    EXPECT_EQ(query.dim(1).min(), 0);
    EXPECT_EQ(query.dim(1).extent(), 12);
}

void *frozen_malloc(JITUserContext *, size_t bytes) {
    static_cast<void>(bytes);
    return nullptr;  // fails every allocation
}
int frozen_mallocs = 0;
void *counting_malloc(JITUserContext *, size_t bytes) {
    frozen_mallocs++;
    return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
}
void plain_free(JITUserContext *, void *p) { std::free(p); }

TEST_P(CallableTest, HandlersAreTakenWhenTheCallableIsMade) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = x;
    g(x) = f(x) + f(x + 1);
    f.compute_root();
    g.jit_handlers().custom_malloc = counting_malloc;
    g.jit_handlers().custom_free = plain_free;
    Callable c = g.compile_to_callable({});
    g.jit_handlers().custom_malloc = frozen_malloc;  // later changes do not reach c
    frozen_mallocs = 0;
    Buffer<int> out(100000);
    ASSERT_EQ(c(out), 0);
    EXPECT_GE(frozen_mallocs, 1);
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return 2 * p[0] + 1; });
    // ... while g itself now runs with the failing allocator (on the CPU:
    // on the GPU, f may live in device memory only).
    if (GetParam() != internal::Backend::Vulkan) {
        std::string msg = loom_test::runtime_error_message([&] { g.realize({100000}); });
        EXPECT_TRUE(contains(msg, "Out of memory")) << msg;
    }
}

TEST_P(CallableTest, PipelineWithTwoOutputsAndAHandle) {
    Var x("x");
    Param<void *> handle("handle");
    Param<int16_t> k("k");
    Func a("a"), b("b");
    a(x) = reinterpret<uint64_t>(handle);
    b(x) = cast<int16_t>(x) * k;
    Pipeline p({a, b});
    Callable c = p.compile_to_callable({k, handle});
    int anchor = 0;
    Buffer<uint64_t> out_a(4);
    Buffer<int16_t> out_b(4);
    int16_t three = 3;
    ASSERT_EQ(c(three, (void *)&anchor, out_a, out_b), 0);
    for (int i = 0; i < 4; i++) {
        EXPECT_EQ(out_a(i), uint64_t(uintptr_t(&anchor)));
        EXPECT_EQ(out_b(i), int16_t(3 * i));
    }
    std::string msg = loom_test::runtime_error_message([&] { c(3, (void *)&anchor, out_a, out_b); });
    EXPECT_TRUE(contains(msg, "'k'") && contains(msg, "int16")) << msg;
}

TEST_P(CallableTest, ConcurrentCallsFromSeveralThreads) {
    Offset o;
    Callable c = o.f.compile_to_callable({o.img, o.p_int, o.p_float});
    Buffer<uint8_t> in = ramp(16, 8, 1, 16);
    std::vector<Buffer<uint8_t>> outs;
    for (int t = 0; t < 4; t++) outs.emplace_back(16, 8);
    std::vector<int> results(4, -1);
    std::vector<ErrorContext> contexts(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&, t] {
            int r = 0;
            // Alternately without a context and with one of the thread's own.
            for (int rep = 0; rep < 10 && r == 0; rep++) {
                r = rep % 2 ? c(&contexts[t], in, t * 10, 1.0f, outs[t]) : c(in, t * 10, 1.0f, outs[t]);
            }
            results[t] = r;
        });
    }
    for (std::thread &th : threads) th.join();
    for (int t = 0; t < 4; t++) {
        EXPECT_EQ(results[t], 0);
        loom_test::expect_buffer_eq(outs[t], [&](const std::vector<int> &p) { return uint8_t(in(p[0], p[1]) + t * 10); });
    }
}

/** Counts its allocations; the first one waits until `all` runs are inside
 * one (runtime/JITHandlers.cpp: more runs at once than its table of live
 * contexts holds). */
struct GatheringContext : JITUserContext {
    std::atomic<int> mallocs{0};
    struct Gate {
        std::mutex mutex;
        std::condition_variable cv;
        int inside = 0, all = 0;
    } *gate = nullptr;
};

void *gathering_malloc(JITUserContext *c, size_t bytes) {
    auto *ctx = static_cast<GatheringContext *>(c);
    if (ctx->mallocs++ == 0) {
        std::unique_lock<std::mutex> lock(ctx->gate->mutex);
        ctx->gate->inside++;
        ctx->gate->cv.notify_all();
        // A bounded wait: a run whose handler is not reached cannot hang the test.
        ctx->gate->cv.wait_for(lock, std::chrono::seconds(20), [&] { return ctx->gate->inside == ctx->gate->all; });
    }
    return std::malloc(bytes);
}

TEST(CallableContexts, EachOfManyConcurrentRunsReachesItsOwnHandlers) {
    // 72 runs at once, each with its own context: more than the 64 slots of
    // the glue's table, so some are found in its overflow list.
    constexpr int kRuns = 72;
    Var x("x");
    Param<int> k("k");
    Func producer("producer"), out("out");
    producer(x) = x * k;
    out(x) = producer(x) + producer(x + 1);
    producer.compute_root();
    Callable c = out.compile_to_callable({k});
    GatheringContext::Gate gate;
    gate.all = kRuns;
    std::vector<GatheringContext> contexts(kRuns);
    std::vector<Buffer<int>> outs;
    for (int t = 0; t < kRuns; t++) outs.emplace_back(16);
    std::vector<int> results(kRuns, -1);
    std::vector<std::thread> threads;
    for (int t = 0; t < kRuns; t++) {
        contexts[t].gate = &gate;
        contexts[t].handlers.custom_malloc = gathering_malloc;
        contexts[t].handlers.custom_free = [](JITUserContext *, void *p) { std::free(p); };
        threads.emplace_back([&, t] { results[t] = c(&contexts[t], t, outs[t]); });
    }
    for (std::thread &th : threads) th.join();
    EXPECT_EQ(gate.inside, kRuns);
    for (int t = 0; t < kRuns; t++) {
        EXPECT_EQ(results[t], 0) << t;
        EXPECT_EQ(contexts[t].mallocs.load(), 1) << "run " << t << " did not reach its own custom_malloc";
        loom_test::expect_buffer_eq(outs[t], [&](const std::vector<int> &p) { return p[0] * t + (p[0] + 1) * t; });
    }
}

TEST_P(CallableTest, MissingArgumentIsACompileError) {
    Offset o;
    std::string msg = loom_test::compile_error_message([&] { o.f.compile_to_callable({o.img, o.p_int}); });
    EXPECT_TRUE(contains(msg, "p_float")) << msg;
}

LOOM_INSTANTIATE_BACKENDS(CallableTest);

}  // namespace
