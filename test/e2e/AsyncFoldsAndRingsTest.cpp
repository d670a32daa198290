// async() over folded storage and ring_buffer() with hoist_storage(), against
// plain C++ loops, run many times: a producer that overwrote a slot of the
// fold (or a copy of the ring) its consumer still reads would give wrong
// values in some runs. The consumers are slow (a reduction per point) so
// that an unsynchronized producer would run ahead.

#include <string>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::contains;
using loom_test::expect_buffer_eq;

namespace {

class AsyncFoldsAndRings : public loom_test::BackendTest {
protected:
    /** Many runs on the JIT, fewer on the (much slower) interpreter. */
    int runs() const { return GetParam() == internal::Backend::Interpreter ? 4 : 60; }
};

/** producer(x, y) = x + 100 * y: each row has values of its own, so a row
 * read from the wrong slot is seen. */
int produced(int x, int y) { return x + 100 * y; }

/** A sum of `terms` reads of e's value, each scaled, so the consumer spends
 * time on each point. */
Expr slow_sum(const Expr &e, int terms, const std::string &name) {
    RDom r(0, terms, name);
    return sum(e * (r + 1), name + "_sum") / (terms * (terms + 1) / 2);
}

/** A 4x downsample reads 2 rows of every 4 (a window of 2, a step of 4):
 * with fold_storage(y, 8) the producer may be one production ahead, not
 * 8 / 2 - 1 = 3 (production k + 2 writes the slots that row k reads). */
TEST_P(AsyncFoldsAndRings, FoldedDownsampleRunsOnlyAsFarAheadAsItsStepAllows) {
    Var x("x"), y("y");
    Func producer("afr_down_p"), consumer("afr_down_c");
    producer(x, y) = x + 100 * y;
    consumer(x, y) = slow_sum(producer(x, 4 * y) + producer(x, 4 * y + 1), 32, "afr_down_r");
    consumer.compute_root();
    producer.store_root().fold_storage(y, 8).compute_at(consumer, y).async();
    EXPECT_TRUE(contains(loom_test::lowered_stmt(consumer, "afr_down.stmt"),
                         "afr_down_p.space_semaphore = make_semaphore(2)"));
    for (int run = 0; run < runs(); run++) {
        Buffer<int> out = consumer.realize({24, 40});
        expect_buffer_eq(out, [](const std::vector<int> &p) {
            return produced(p[0], 4 * p[1]) + produced(p[0], 4 * p[1] + 1);
        });
        if (::testing::Test::HasFailure()) break;
    }
}

/** A stencil with an automatic fold (a window of 3 rows, 4 slots) and one
 * with fold_storage(y, 4): the producer of row k + 1 may run while row k is
 * consumed (1 + (4 - 3) / 1 = 2 productions in the fold), no further. */
TEST_P(AsyncFoldsAndRings, FoldedStencilNeverOverwritesRowsInUse) {
    for (bool explicit_fold : {false, true}) {
        SCOPED_TRACE(explicit_fold ? "fold_storage(y, 4)" : "automatic fold");
        Var x("x"), y("y");
        const std::string name = explicit_fold ? "afr_fold4" : "afr_auto";
        Func producer(name + "_p"), consumer(name + "_c");
        producer(x, y) = x + 100 * y;
        consumer(x, y) = slow_sum(producer(x, y - 1) + producer(x, y) + producer(x, y + 1), 24, name + "_r");
        consumer.compute_root();
        producer.store_root().compute_at(consumer, y).async();
        if (explicit_fold) producer.fold_storage(y, 4);
        EXPECT_TRUE(contains(loom_test::lowered_stmt(consumer, name + ".stmt"),
                             name + "_p.space_semaphore = make_semaphore(2)"));
        for (int run = 0; run < runs(); run++) {
            Buffer<int> out = consumer.realize({24, 48});
            expect_buffer_eq(out, [](const std::vector<int> &p) {
                return produced(p[0], p[1] - 1) + produced(p[0], p[1]) + produced(p[0], p[1] + 1);
            });
            if (::testing::Test::HasFailure()) break;
        }
    }
}

/** Halide's limit over folded storage: with F slots, a window of W rows and
 * a step of s rows per production, the producer may run (F - W) / s
 * productions ahead, so the space semaphore starts at 1 + (F - W) / s (the
 * first production, then one per step the fold still has room for). One
 * more and the producer would overwrite a row its slow consumer still
 * reads. */
TEST_P(AsyncFoldsAndRings, FoldedWindowsRunAsFarAheadAsHalideAllows) {
    struct Case {
        std::string name;
        int fold, window_rows, step, semaphore;
    };
    // 3-row stencil: 1 + (8 - 3) = 6; 2-row window: 1 + (8 - 2) = 7;
    // 2x downsample of 2 rows: 1 + (8 - 2) / 2 = 4; fold of 16: 1 + 13 = 14.
    for (const Case &c : {Case{"afr_far3", 8, 3, 1, 6}, Case{"afr_far2", 8, 2, 1, 7}, Case{"afr_farhalf", 8, 2, 2, 4},
                          Case{"afr_far16", 16, 3, 1, 14}}) {
        SCOPED_TRACE(c.name);
        Var x("x"), y("y");
        Func producer(c.name + "_p"), consumer(c.name + "_c");
        producer(x, y) = x + 100 * y;
        Expr window = 0;
        for (int r = 0; r < c.window_rows; r++) window = window + producer(x, c.step * y + r - 1);
        consumer(x, y) = slow_sum(window, 24, c.name + "_r");
        consumer.compute_root();
        producer.store_root().fold_storage(y, c.fold).compute_at(consumer, y).async();
        const std::string stmt = loom_test::lowered_stmt(consumer, c.name + ".stmt");
        EXPECT_TRUE(contains(stmt, c.name + "_p.space_semaphore = make_semaphore(" + std::to_string(c.semaphore) + ")"))
            << stmt;
        for (int run = 0; run < runs(); run++) {
            Buffer<int> out = consumer.realize({24, 48});
            expect_buffer_eq(out, [&](const std::vector<int> &p) {
                int expected = 0;
                for (int r = 0; r < c.window_rows; r++) expected += produced(p[0], c.step * p[1] + r - 1);
                return expected;
            });
            if (::testing::Test::HasFailure()) break;
        }
    }
}

/** ring_buffer with its storage hoisted to the root and stored per strip of
 * 8 rows (store_at yo), computed per row (compute_at yi): the rows of one
 * strip slide, so they share the strip's copy of the ring; strips alternate
 * copies. With and without async(). */
TEST_P(AsyncFoldsAndRings, RingBufferCopiesArePerStoreIteration) {
    for (bool async : {false, true}) {
        SCOPED_TRACE(async ? "async" : "not async");
        Var x("x"), y("y"), yo("yo"), yi("yi");
        const std::string name = async ? "afr_ring_async" : "afr_ring";
        Func producer(name + "_p"), consumer(name + "_c");
        producer(x, y) = x + 100 * y;
        consumer(x, y) = slow_sum(producer(x - 1, y - 1) + producer(x, y) + producer(x + 1, y + 1), 16, name + "_r");
        consumer.compute_root().split(y, yo, yi, 8);
        producer.compute_at(consumer, yi).store_at(consumer, yo).hoist_storage_root().ring_buffer(2);
        if (async) producer.async();
        for (int run = 0; run < runs(); run++) {
            Buffer<int> out = consumer.realize({20, 48});
            expect_buffer_eq(out, [](const std::vector<int> &p) {
                return produced(p[0] - 1, p[1] - 1) + produced(p[0], p[1]) + produced(p[0] + 1, p[1] + 1);
            });
            if (::testing::Test::HasFailure()) break;
        }
    }
}

/** ring_buffer(3) hoisted to the row of tiles (hoist_storage(consumer, yo)),
 * the producer stored and computed per tile: tile xo uses copy xo mod 3, and
 * the producer runs at most 3 tiles ahead. */
TEST_P(AsyncFoldsAndRings, RingBufferHoistedToAnOuterLoopOverTiles) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func producer("afr_tiles_p"), consumer("afr_tiles_c");
    producer(x, y) = x + 100 * y;
    consumer(x, y) = slow_sum(producer(x - 1, y) + producer(x + 1, y + 1), 8, "afr_tiles_r");
    consumer.compute_root().tile(x, y, xo, yo, xi, yi, 8, 8);
    producer.compute_at(consumer, xo).hoist_storage(consumer, yo).ring_buffer(3).async();
    for (int run = 0; run < runs(); run++) {
        Buffer<int> out = consumer.realize({40, 32});
        expect_buffer_eq(out, [](const std::vector<int> &p) {
            return produced(p[0] - 1, p[1]) + produced(p[0] + 1, p[1] + 1);
        });
        if (::testing::Test::HasFailure()) break;
    }
}

LOOM_INSTANTIATE_BACKENDS(AsyncFoldsAndRings);

}  // namespace
