// JITUserContext and JITHandlers (loom/JITUserContext.h): each custom
// handler is really called by the pipeline's runtime calls, per run (a
// context) or per Func/Pipeline (jit_handlers()), compared with plain C++.

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "e2e/E2ETest.h"

namespace {

using namespace loom;
using loom::internal::Backend;

class JITUserContextTest : public loom_test::BackendTest {};

/** A context that records what its handlers saw. */
struct RecordingContext : JITUserContext {
    std::mutex mutex;
    std::vector<std::string> printed;
    std::vector<std::string> errors;
    int mallocs = 0, frees = 0;
    size_t bytes = 0;
    int par_fors = 0;
    int stores = 0;
};

RecordingContext *recording(JITUserContext *c) { return static_cast<RecordingContext *>(c); }

void record_print(JITUserContext *c, const char *message) {
    std::lock_guard<std::mutex> lock(recording(c)->mutex);
    recording(c)->printed.push_back(message);
}

void record_error(JITUserContext *c, const char *message) {
    std::lock_guard<std::mutex> lock(recording(c)->mutex);
    recording(c)->errors.push_back(message);
}

void *counting_malloc(JITUserContext *c, size_t bytes) {
    {
        std::lock_guard<std::mutex> lock(recording(c)->mutex);
        recording(c)->mallocs++;
        recording(c)->bytes += bytes;
    }
    return std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
}

void counting_free(JITUserContext *c, void *p) {
    {
        std::lock_guard<std::mutex> lock(recording(c)->mutex);
        recording(c)->frees++;
    }
    std::free(p);
}

int serial_par_for(JITUserContext *c, JITParallelBody body, int min, int extent, uint8_t *closure) {
    {
        std::lock_guard<std::mutex> lock(recording(c)->mutex);
        recording(c)->par_fors++;
    }
    for (int i = min; i < min + extent; i++) {
        int result = body(c, i, closure);
        if (result != 0) return result;
    }
    return 0;
}

int32_t count_stores(JITUserContext *c, const loom_trace_event_t *e) {
    if (e->event == loom_trace_store) {
        std::lock_guard<std::mutex> lock(recording(c)->mutex);
        recording(c)->stores++;
    }
    return 0;
}

TEST_P(JITUserContextTest, CustomPrintGetsPrintOutput) {
    Var x("x");
    Func f("f");
    f(x) = print(x * 3, "is three times", x);
    RecordingContext ctx;
    ctx.handlers.custom_print = record_print;
    Buffer<int> out = f.realize(&ctx, {5});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 3; });
    ASSERT_EQ(ctx.printed.size(), 5u);
    for (int i = 0; i < 5; i++) {
        EXPECT_EQ(ctx.printed[i], std::to_string(i * 3) + " is three times " + std::to_string(i) + "\n");
    }
}

TEST_P(JITUserContextTest, CustomPrintGetsPrintWhenOutput) {
    Var x("x");
    Func f("f");
    f(x) = print_when(x % 4 == 1, x + 100, "odd one");
    RecordingContext ctx;
    ctx.handlers.custom_print = record_print;
    Buffer<int> out = f.realize(&ctx, {10});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] + 100; });
    std::vector<std::string> expected = {"101 odd one\n", "105 odd one\n", "109 odd one\n"};
    EXPECT_EQ(ctx.printed, expected);
}

TEST_P(JITUserContextTest, CustomMallocAndFreeGetTheHeapAllocations) {
    // 100000 int32 (400000 bytes) is too large for the stack: it is heap memory.
    const int n = 100000;
    Var x("x");
    Func f("f"), g("g");
    f(x) = x * 2;
    g(x) = f(x) + f(x + 1);
    f.compute_root();
    RecordingContext ctx;
    ctx.handlers.custom_malloc = counting_malloc;
    ctx.handlers.custom_free = counting_free;
    Buffer<int> out = g.realize(&ctx, {n});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 2 + (p[0] + 1) * 2; });
    EXPECT_EQ(ctx.mallocs, ctx.frees);
    if (GetParam() != Backend::Vulkan) {  // on the GPU, f may live in device memory only
        EXPECT_GE(ctx.mallocs, 1);
        EXPECT_GE(ctx.bytes, size_t(n + 1) * sizeof(int));
    }
    // Without the context, the default allocator again (nothing counted).
    RecordingContext idle;
    Buffer<int> again = g.realize(&idle, {n});
    EXPECT_EQ(idle.mallocs, 0);
    EXPECT_EQ(again(7), out(7));
}

TEST_P(JITUserContextTest, MallocWithoutFreeIsACompileError) {
    Var x("x");
    Func f("f");
    f(x) = x;
    RecordingContext ctx;
    ctx.handlers.custom_malloc = counting_malloc;
    std::string msg = loom_test::compile_error_message([&] { f.realize(&ctx, {4}); });
    EXPECT_TRUE(loom_test::contains(msg, "custom_malloc and custom_free must be set together")) << msg;
}

TEST_P(JITUserContextTest, CustomErrorGetsTheFailedBoundsCheck) {
    ImageParam in(Int(32), 1, "in");
    Buffer<int> small(10);
    small.fill(1);
    in.set(small);
    Var x("x");
    Func f("f");
    f(x) = in(x) + 1;
    RecordingContext ctx;
    ctx.handlers.custom_error = record_error;
    // The handler gets the message and realize returns (as in Halide).
    Buffer<int> out(20);
    f.realize(&ctx, out);
    ASSERT_EQ(ctx.errors.size(), 1u);
    EXPECT_TRUE(loom_test::contains(ctx.errors[0], "in")) << ctx.errors[0];
    // Without a handler, the same run throws.
    std::string msg = loom_test::runtime_error_message([&] { f.realize(out); });
    EXPECT_EQ(msg, ctx.errors[0]);
}

// realize(sizes) asks the pipeline for the region it writes before it runs
// (RealizeCropTest.cpp); whichever of the two fails, the handler hears the
// error once.
TEST_P(JITUserContextTest, CustomErrorHearsAFailingRealizeOnce) {
    ImageParam in(Int(32), 1, "in");
    Buffer<int> small(10);
    small.fill(1);
    in.set(small);
    Var x("x"), xo("xo"), xi("xi");
    Func f("f"), g("g");
    f(x) = in(x) + 1;
    {
        RecordingContext ctx;
        ctx.handlers.custom_error = record_error;
        f.realize(&ctx, {20});  // the input is too small
        ASSERT_EQ(ctx.errors.size(), 1u);
        EXPECT_TRUE(loom_test::contains(ctx.errors[0], "in")) << ctx.errors[0];
    }
    g(x) = x;
    g.split(x, xo, xi, 8, TailStrategy::RoundUp);  // writes 16 when asked for 10
    g.output_buffer().dim(0).set_extent(10);        // but its buffer must be 10 wide
    RecordingContext ctx;
    ctx.handlers.custom_error = record_error;
    g.realize(&ctx, {10});
    ASSERT_EQ(ctx.errors.size(), 1u);
    EXPECT_TRUE(loom_test::contains(ctx.errors[0], "g")) << ctx.errors[0];
}

TEST_P(JITUserContextTest, FuncHandlersAreTheDefaultsAndAContextOverridesThem) {
    Var x("x");
    Func f("f");
    f(x) = print(x);
    static std::vector<std::string> from_func;
    from_func.clear();
    f.jit_handlers().custom_print = [](JITUserContext *, const char *m) { from_func.push_back(m); };
    f.realize({3});
    EXPECT_EQ(from_func, (std::vector<std::string>{"0\n", "1\n", "2\n"}));
    RecordingContext ctx;
    ctx.handlers.custom_print = record_print;
    f.realize(&ctx, {2});
    EXPECT_EQ(ctx.printed, (std::vector<std::string>{"0\n", "1\n"}));
    EXPECT_EQ(from_func.size(), 3u);
    // A context without a print handler falls back to the Func's.
    RecordingContext plain;
    f.realize(&plain, {1});
    EXPECT_EQ(from_func.size(), 4u);
}

TEST_P(JITUserContextTest, PipelineHandlersAreTheDefaults) {
    Var x("x");
    Func a("a"), b("b");
    a(x) = x;
    b(x) = print_when(x == 2, x * 5);
    Pipeline p({a, b});
    static std::vector<std::string> printed;
    printed.clear();
    p.jit_handlers().custom_print = [](JITUserContext *, const char *m) { printed.push_back(m); };
    Realization r = p.realize({4});
    EXPECT_EQ(printed, (std::vector<std::string>{"10\n"}));
    RecordingContext ctx;
    ctx.handlers.custom_print = record_print;
    p.realize(&ctx, {4});
    EXPECT_EQ(ctx.printed, (std::vector<std::string>{"10\n"}));
    EXPECT_EQ(printed.size(), 1u);
}

TEST_P(JITUserContextTest, CustomTraceGetsEveryStore) {
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = x + y;
    g(x, y) = f(x, y) * 2;
    f.compute_root().trace_stores();
    RecordingContext ctx;
    ctx.handlers.custom_trace = count_stores;
    Buffer<int> out = g.realize(&ctx, {6, 4});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] + p[1]) * 2; });
    EXPECT_EQ(ctx.stores, 6 * 4);
}

TEST_P(JITUserContextTest, DefaultTraceHandlerPrintsThroughCustomPrint) {
    Var x("x");
    Func f("f"), g("g");
    f(x) = x * 7;
    g(x) = f(x);
    f.compute_root().trace_stores();
    RecordingContext ctx;
    ctx.handlers.custom_print = record_print;
    g.realize(&ctx, {2});
    EXPECT_EQ(ctx.printed, (std::vector<std::string>{"Begin pipeline g.0()\n",
                                                     "Tag f.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 2\"\n",
                                                     "Store f.0(0) = 0\n", "Store f.0(1) = 7\n",
                                                     "End pipeline g.0()\n"}));
}

TEST_P(JITUserContextTest, CustomDoParForRunsTheParallelLoops) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x * 10 + y;
    f.parallel(y);
    RecordingContext ctx;
    ctx.handlers.custom_do_par_for = serial_par_for;
    ctx.handlers.custom_malloc = counting_malloc;  // reached from inside the bodies too
    ctx.handlers.custom_free = counting_free;
    Buffer<int> out = f.realize(&ctx, {8, 5});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 10 + p[1]; });
    // Both CPU back ends call the handler (a GPU run may put the loop on the
    // device).
    if (GetParam() != Backend::Vulkan) EXPECT_EQ(ctx.par_fors, 1);
}

/** Runs every iteration on a std::thread of its own, in reverse order of
 * starting, recording the indices; the first failure is the result. */
struct ThreadsContext : JITUserContext {
    std::mutex mutex;
    std::vector<std::pair<int, int>> loops;  // (min, extent) of each call
    std::vector<int> indices;
};

int threads_par_for(JITUserContext *c, JITParallelBody body, int min, int extent, uint8_t *closure) {
    auto *ctx = static_cast<ThreadsContext *>(c);
    {
        std::lock_guard<std::mutex> lock(ctx->mutex);
        ctx->loops.emplace_back(min, extent);
    }
    std::vector<int> results(extent > 0 ? extent : 0, 0);
    std::vector<std::thread> threads;
    for (int i = min + extent - 1; i >= min; i--) {
        threads.emplace_back([&, i] {
            results[i - min] = body(c, i, closure);
            std::lock_guard<std::mutex> lock(ctx->mutex);
            ctx->indices.push_back(i);
        });
    }
    for (std::thread &t : threads) t.join();
    for (int r : results) {
        if (r != 0) return r;
    }
    return 0;
}

// The handler gets each parallel loop (nested ones too) with the loop's min
// and extent and may run the iterations on threads of its own; the values
// are those of the serial loops, on the JIT and the interpreter alike.
TEST_P(JITUserContextTest, CustomDoParForOnThreadsOfItsOwn) {
    if (GetParam() == Backend::Vulkan) GTEST_SKIP() << "the loops may run on the device";
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = x * 3 + y;
    g(x, y) = f(x, y) + f(x + 1, y);
    f.compute_at(g, y).parallel(x);
    g.parallel(y);
    ThreadsContext ctx;
    ctx.handlers.custom_do_par_for = threads_par_for;
    Buffer<int> out = g.realize(&ctx, {6, 4});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 6 + 3 + 2 * p[1]; });
    ASSERT_EQ(ctx.loops.size(), 5u) << "g's loop over y, then f's loop over x in each of its 4 iterations";
    EXPECT_EQ(ctx.loops[0], std::make_pair(0, 4));
    for (size_t k = 1; k < ctx.loops.size(); k++) EXPECT_EQ(ctx.loops[k], std::make_pair(0, 7)) << k;
    EXPECT_EQ(ctx.indices.size(), 4u + 4u * 7u);
}

// A failing iteration's error code is what the handler returns, and the run
// fails with it.
TEST_P(JITUserContextTest, CustomDoParForReturnsTheFailure) {
    if (GetParam() == Backend::Vulkan) GTEST_SKIP() << "the loops may run on the device";
    Var x("x"), y("y");
    Param<int> limit("limit");
    Func f("f");
    f(x, y) = require(y < limit, x + y, "y is past the limit:", y);
    f.parallel(y);
    ThreadsContext ctx;
    ctx.handlers.custom_do_par_for = threads_par_for;
    limit.set(3);
    bool failed = false;
    try {
        f.realize(&ctx, {2, 5});
    } catch (const RuntimeError &) {
        failed = true;  // (the message was reported on the handler's threads, outside the run's capture)
    }
    EXPECT_TRUE(failed);
    // Loop partitioning may split the loop at the require()'s condition
    // (here [0, 3) and [3, 5)): the calls cover y = 0..4 in order, once.
    ASSERT_FALSE(ctx.loops.empty());
    int next = 0;
    for (const auto &[min, extent] : ctx.loops) {
        EXPECT_EQ(min, next);
        next = min + extent;
    }
    EXPECT_EQ(next, 5);
    EXPECT_EQ(ctx.indices.size(), 5u) << "the handler ran every iteration it was given";
}

LOOM_INSTANTIATE_BACKENDS(JITUserContextTest);

}  // namespace
