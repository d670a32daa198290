// The runtime's thread pool (src/runtime/ThreadPool.c) through its C entry
// points: every iteration runs once, errors stop the loop and are returned,
// the thread count is honoured, nested and concurrent loops finish, and a
// loop started inside an iteration on a pool worker is shared by threads.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "loom/runtime/loom_runtime.h"
#include "runtime/ErrorCapture.h"
#include "runtime/RuntimeInternal.h"

namespace {

// Restores the thread count and LOOM_NUM_THREADS after each test.
class ThreadPoolTest : public testing::Test {
protected:
    void SetUp() override {
        const char *env = std::getenv("LOOM_NUM_THREADS");
        had_env_ = env != nullptr;
        if (env) saved_env_ = env;
        saved_threads_ = loom_get_num_threads();
    }
    void TearDown() override {
        if (had_env_) {
            setenv("LOOM_NUM_THREADS", saved_env_.c_str(), 1);
        } else {
            unsetenv("LOOM_NUM_THREADS");
        }
        loom_set_num_threads(saved_threads_);
    }

private:
    bool had_env_ = false;
    std::string saved_env_;
    int saved_threads_ = 0;
};

// ------------------------------------------------------------------ every iteration once

struct Counts {
    int min;
    std::vector<std::atomic<int>> runs;
    explicit Counts(int min, int extent) : min(min), runs(extent) {}
};

int count_iteration(void *, int index, uint8_t *closure) {
    auto *counts = reinterpret_cast<Counts *>(closure);
    counts->runs[index - counts->min]++;
    return 0;
}

TEST_F(ThreadPoolTest, RunsEveryIterationExactlyOnce) {
    for (int threads : {1, 2, 4, 7}) {
        loom_set_num_threads(threads);
        for (int extent : {1, 2, 3, 100, 10000}) {
            Counts counts(-37, extent);
            ASSERT_EQ(loom_do_par_for(nullptr, &count_iteration, -37, extent, reinterpret_cast<uint8_t *>(&counts)), 0);
            for (int i = 0; i < extent; i++) {
                ASSERT_EQ(counts.runs[i].load(), 1) << "threads " << threads << ", extent " << extent << ", i " << i;
            }
        }
    }
}

int never_called(void *, int, uint8_t *) {
    ADD_FAILURE() << "an empty loop ran an iteration";
    return -1;
}

TEST_F(ThreadPoolTest, EmptyAndNegativeExtentsRunNothing) {
    loom_set_num_threads(4);
    EXPECT_EQ(loom_do_par_for(nullptr, &never_called, 5, 0, nullptr), 0);
    EXPECT_EQ(loom_do_par_for(nullptr, &never_called, 5, -3, nullptr), 0);
}

int check_user_context(void *user_context, int, uint8_t *closure) {
    return user_context == closure ? 0 : -1;
}

TEST_F(ThreadPoolTest, PassesUserContextAndClosureThrough) {
    loom_set_num_threads(3);
    int token = 0;
    auto *p = reinterpret_cast<uint8_t *>(&token);
    EXPECT_EQ(loom_do_par_for(p, &check_user_context, 0, 50, p), 0);
}

// ------------------------------------------------------------------ errors

struct FailingLoop {
    int failing_index;
    std::atomic<int> ran{0};
};

int fail_at(void *, int index, uint8_t *closure) {
    auto *loop = reinterpret_cast<FailingLoop *>(closure);
    loop->ran++;
    if (index == loop->failing_index) return loom_error_code_user_assertion;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    return 0;
}

TEST_F(ThreadPoolTest, FirstErrorIsReturnedAndStopsTheLoop) {
    for (int threads : {1, 4}) {
        loom_set_num_threads(threads);
        FailingLoop loop;
        loop.failing_index = 3;
        const int extent = 100000;
        EXPECT_EQ(loom_do_par_for(nullptr, &fail_at, 0, extent, reinterpret_cast<uint8_t *>(&loop)),
                  loom_error_code_user_assertion);
        // Iterations already taken finish, but no new ones are handed out.
        EXPECT_LT(loop.ran.load(), 1000) << threads << " threads";
    }
}

int fail_odd(void *, int index, uint8_t *) { return index % 2 ? -(index % 7) - 1 : 0; }

TEST_F(ThreadPoolTest, OneOfSeveralErrorsIsReturned) {
    loom_set_num_threads(4);
    const int code = loom_do_par_for(nullptr, &fail_odd, 0, 1000, nullptr);
    EXPECT_LT(code, 0);
    EXPECT_GE(code, -7);
}

int report_error(void *, int index, uint8_t *) {
    if (index != 17) return 0;
    loom_error(nullptr, "iteration 17 failed");
    return loom_error_code_generic;
}

// The JIT front end captures errors on its own thread; messages reported on
// pool threads must reach that capture.
TEST_F(ThreadPoolTest, ErrorsOnWorkersReachTheCallersCapture) {
    loom_set_num_threads(4);
    for (int attempt = 0; attempt < 20; attempt++) {
        loom::internal::ScopedErrorCapture capture;
        EXPECT_EQ(loom_do_par_for(nullptr, &report_error, 0, 64, nullptr), loom_error_code_generic);
        EXPECT_EQ(capture.message(), "iteration 17 failed");
    }
}

// ------------------------------------------------------------------ thread count

// Each iteration records its thread and waits (up to a timeout) until
// `wanted` distinct threads have been seen, so that every allowed thread
// gets to take part even on a busy machine. With wanted = the allowed count
// the wait ends as soon as all have come (the long timeout only guards a
// busy machine); with wanted above it, each iteration waits out a short
// timeout in which an extra thread could join.
struct ThreadRecorder {
    int wanted;
    std::chrono::milliseconds timeout;
    std::mutex mutex;
    std::condition_variable changed;
    std::set<std::thread::id> seen;
};

int record_thread(void *, int, uint8_t *closure) {
    auto *r = reinterpret_cast<ThreadRecorder *>(closure);
    std::unique_lock<std::mutex> lock(r->mutex);
    r->seen.insert(std::this_thread::get_id());
    r->changed.notify_all();
    r->changed.wait_for(lock, r->timeout, [&] { return (int)r->seen.size() >= r->wanted; });
    return 0;
}

size_t distinct_threads_used(int wanted, int extent) {
    ThreadRecorder r;
    r.wanted = wanted;
    r.timeout = std::chrono::milliseconds(wanted <= std::min(loom_get_num_threads(), extent) ? 5000 : 100);
    EXPECT_EQ(loom_do_par_for(nullptr, &record_thread, 0, extent, reinterpret_cast<uint8_t *>(&r)), 0);
    return r.seen.size();
}

TEST_F(ThreadPoolTest, SetNumThreadsIsHonoured) {
    loom_set_num_threads(3);
    EXPECT_EQ(loom_get_num_threads(), 3);
    EXPECT_EQ(distinct_threads_used(3, 40), 3u);
    // Fewer threads than before: the pool keeps its workers, but a loop uses
    // no more than asked for (each iteration waits a while for a third).
    loom_set_num_threads(2);
    EXPECT_EQ(distinct_threads_used(3, 6), 2u);
    loom_set_num_threads(1);
    EXPECT_EQ(distinct_threads_used(1, 20), 1u);
    // A loop never uses more threads than it has iterations.
    loom_set_num_threads(5);
    EXPECT_EQ(distinct_threads_used(2, 2), 2u);
}

TEST_F(ThreadPoolTest, SetNumThreadsReturnsThePreviousCount) {
    loom_set_num_threads(6);
    EXPECT_EQ(loom_set_num_threads(2), 6);
    EXPECT_EQ(loom_set_num_threads(1000), 2);
    EXPECT_EQ(loom_get_num_threads(), 256);
}

TEST_F(ThreadPoolTest, DefaultComesFromLoomNumThreadsOrTheCores) {
    setenv("LOOM_NUM_THREADS", "5", 1);
    loom_set_num_threads(0);
    EXPECT_EQ(loom_get_num_threads(), 5);
    EXPECT_EQ(distinct_threads_used(5, 30), 5u);

    const int cores = (int)std::max(1u, std::thread::hardware_concurrency());
    for (const char *bad : {"0", "-2", "four", "3x", ""}) {
        setenv("LOOM_NUM_THREADS", bad, 1);
        loom_set_num_threads(-1);
        EXPECT_EQ(loom_get_num_threads(), std::min(cores, 256)) << "LOOM_NUM_THREADS=" << bad;
    }
    unsetenv("LOOM_NUM_THREADS");
    loom_set_num_threads(0);
    EXPECT_EQ(loom_get_num_threads(), std::min(cores, 256));
}

// ------------------------------------------------------------------ nesting and concurrency

struct Grid {
    int width, height;
    std::vector<std::atomic<int>> cells;
    Grid(int w, int h) : width(w), height(h), cells(w * h) {}
};

struct Row {
    Grid *grid;
    int y;
};

int inner_cell(void *, int x, uint8_t *closure) {
    auto *row = reinterpret_cast<Row *>(closure);
    row->grid->cells[row->y * row->grid->width + x]++;
    return 0;
}

int outer_row(void *user_context, int y, uint8_t *closure) {
    auto *grid = reinterpret_cast<Grid *>(closure);
    Row row{grid, y};
    return loom_do_par_for(user_context, &inner_cell, 0, grid->width, reinterpret_cast<uint8_t *>(&row));
}

TEST_F(ThreadPoolTest, NestedLoopsFinish) {
    for (int threads : {2, 4, 8}) {
        loom_set_num_threads(threads);
        for (int height : {1, 3, 64}) {
            Grid grid(50, height);
            ASSERT_EQ(loom_do_par_for(nullptr, &outer_row, 0, height, reinterpret_cast<uint8_t *>(&grid)), 0);
            for (int i = 0; i < 50 * height; i++) ASSERT_EQ(grid.cells[i].load(), 1) << i;
        }
    }
}

int failing_inner(void *, int x, uint8_t *) { return x == 7 ? -4 : 0; }

int outer_with_failing_inner(void *, int y, uint8_t *) {
    return y == 2 ? loom_do_par_for(nullptr, &failing_inner, 0, 20, nullptr) : 0;
}

TEST_F(ThreadPoolTest, ErrorsOfInnerLoopsPropagate) {
    loom_set_num_threads(4);
    EXPECT_EQ(loom_do_par_for(nullptr, &outer_with_failing_inner, 0, 10, nullptr), -4);
}

// Three levels: every innermost cell once, whichever threads ran the levels.
struct Cube {
    int size;
    std::vector<std::atomic<int>> cells;
    explicit Cube(int n) : size(n), cells(n * n * n) {}
};

struct CubeRow {
    Cube *cube;
    int z, y;
};

int cube_cell(void *, int x, uint8_t *closure) {
    auto *row = reinterpret_cast<CubeRow *>(closure);
    row->cube->cells[(row->z * row->cube->size + row->y) * row->cube->size + x]++;
    return 0;
}

struct CubePlane {
    Cube *cube;
    int z;
};

int cube_row(void *user_context, int y, uint8_t *closure) {
    auto *plane = reinterpret_cast<CubePlane *>(closure);
    CubeRow row{plane->cube, plane->z, y};
    return loom_do_par_for(user_context, &cube_cell, 0, plane->cube->size, reinterpret_cast<uint8_t *>(&row));
}

int cube_plane(void *user_context, int z, uint8_t *closure) {
    auto *cube = reinterpret_cast<Cube *>(closure);
    CubePlane plane{cube, z};
    return loom_do_par_for(user_context, &cube_row, 0, cube->size, reinterpret_cast<uint8_t *>(&plane));
}

TEST_F(ThreadPoolTest, ThreeLevelsOfNestedLoopsFinish) {
    for (int threads : {2, 3, 8}) {
        loom_set_num_threads(threads);
        for (int size : {1, 2, 5, 12}) {
            for (int repeat = 0; repeat < 10; repeat++) {
                Cube cube(size);
                ASSERT_EQ(loom_do_par_for(nullptr, &cube_plane, 0, size, reinterpret_cast<uint8_t *>(&cube)), 0);
                for (int i = 0; i < size * size * size; i++) {
                    ASSERT_EQ(cube.cells[i].load(), 1) << threads << " threads, size " << size << ", cell " << i;
                }
            }
        }
    }
}

// The outer loop's two iterations wait for each other (so that one runs on
// a pool worker), then each starts an inner loop whose iterations wait
// until a second thread has joined it. Before a nested loop became a job of
// the pool, a loop started on a worker ran serially on it (the iir_blur's
// channels x strips left a thread idle for a third of a pass).
struct SharedNest {
    std::thread::id caller;
    std::mutex mutex;
    std::condition_variable changed;
    std::set<std::thread::id> outer_threads;
    std::set<std::thread::id> inner_threads[2];
    bool started_on_worker[2] = {false, false};
};

struct SharedInner {
    SharedNest *nest;
    int outer;
};

constexpr std::chrono::seconds kSharedNestTimeout(10);  // only a very busy machine waits this long

int shared_inner(void *, int, uint8_t *closure) {
    auto *inner = reinterpret_cast<SharedInner *>(closure);
    SharedNest *nest = inner->nest;
    std::unique_lock<std::mutex> lock(nest->mutex);
    std::set<std::thread::id> &seen = nest->inner_threads[inner->outer];
    seen.insert(std::this_thread::get_id());
    nest->changed.notify_all();
    nest->changed.wait_for(lock, kSharedNestTimeout, [&] { return seen.size() >= 2; });
    return 0;
}

int shared_outer(void *user_context, int index, uint8_t *closure) {
    auto *nest = reinterpret_cast<SharedNest *>(closure);
    {
        std::unique_lock<std::mutex> lock(nest->mutex);
        nest->outer_threads.insert(std::this_thread::get_id());
        nest->started_on_worker[index] = std::this_thread::get_id() != nest->caller;
        nest->changed.notify_all();
        nest->changed.wait_for(lock, kSharedNestTimeout, [&] { return nest->outer_threads.size() >= 2; });
    }
    SharedInner inner{nest, index};
    return loom_do_par_for(user_context, &shared_inner, 0, 6, reinterpret_cast<uint8_t *>(&inner));
}

TEST_F(ThreadPoolTest, LoopsStartedOnWorkersAreShared) {
    loom_set_num_threads(3);
    SharedNest nest;
    nest.caller = std::this_thread::get_id();
    ASSERT_EQ(loom_do_par_for(nullptr, &shared_outer, 0, 2, reinterpret_cast<uint8_t *>(&nest)), 0);
    ASSERT_EQ(nest.outer_threads.size(), 2u) << "the outer loop ran on one thread";
    for (int outer = 0; outer < 2; outer++) {
        EXPECT_GE(nest.inner_threads[outer].size(), 2u)
            << "the inner loop started on the " << (nest.started_on_worker[outer] ? "worker" : "caller")
            << " ran on one thread";
    }
    EXPECT_TRUE(nest.started_on_worker[0] || nest.started_on_worker[1]);
}

int failing_on_worker_inner(void *, int x, uint8_t *) { return x == 3 ? -9 : 0; }

// An inner loop failing on a worker (the outer loop's iterations wait for
// each other, as above): its error reaches the outermost caller.
int outer_failing_on_worker(void *user_context, int index, uint8_t *closure) {
    auto *nest = reinterpret_cast<SharedNest *>(closure);
    bool on_worker = false;
    {
        std::unique_lock<std::mutex> lock(nest->mutex);
        nest->outer_threads.insert(std::this_thread::get_id());
        on_worker = std::this_thread::get_id() != nest->caller;
        nest->started_on_worker[index] = on_worker;
        nest->changed.notify_all();
        nest->changed.wait_for(lock, kSharedNestTimeout, [&] { return nest->outer_threads.size() >= 2; });
    }
    if (!on_worker) return 0;
    return loom_do_par_for(user_context, &failing_on_worker_inner, 0, 40, nullptr);
}

TEST_F(ThreadPoolTest, ErrorsOfLoopsStartedOnWorkersPropagate) {
    loom_set_num_threads(3);
    SharedNest nest;
    nest.caller = std::this_thread::get_id();
    EXPECT_EQ(loom_do_par_for(nullptr, &outer_failing_on_worker, 0, 2, reinterpret_cast<uint8_t *>(&nest)), -9);
    EXPECT_TRUE(nest.started_on_worker[0] || nest.started_on_worker[1]);
}

TEST_F(ThreadPoolTest, ConcurrentCallersFromSeveralThreads) {
    loom_set_num_threads(3);
    std::vector<std::thread> callers;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; t++) {
        callers.emplace_back([&] {
            for (int k = 0; k < 20; k++) {
                Grid grid(30, 8);
                if (loom_do_par_for(nullptr, &outer_row, 0, 8, reinterpret_cast<uint8_t *>(&grid)) != 0) failures++;
                for (int i = 0; i < 30 * 8; i++) {
                    if (grid.cells[i].load() != 1) failures++;
                }
            }
        });
    }
    for (std::thread &t : callers) t.join();
    EXPECT_EQ(failures.load(), 0);
}

}  // namespace
