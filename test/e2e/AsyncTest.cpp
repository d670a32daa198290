// Func::async and Func::ring_buffer (Halide's semantics): pipelines whose
// producers run on threads of their own, against plain C++ loops; what the
// semaphores guarantee (a consumer never reads an unproduced tile, a
// producer never runs more than ring_buffer copies ahead, the producer runs
// on another thread), seen through a trace handler; failures in either half;
// the schedule errors. On the Vulkan run these pipelines fall back to the
// CPU: async() is refused in GPU loop nests.

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "e2e/E2ETest.h"

using namespace loom;
using loom_test::compile_error_message;
using loom_test::contains;
using loom_test::expect_buffer_eq;
using loom_test::runtime_error_message;

namespace {

class Async : public loom_test::BackendTest {};

int stencil_expected(int x, int y) { return (x - 1 + y - 1) + (x + y) + (x + 1 + y + 1); }

/** consumer(x, y) = producer(x - 1, y - 1) + producer(x, y) + producer(x + 1, y + 1), producer = x + y. */
struct Stencil {
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    Func producer, consumer;
    explicit Stencil(const std::string &name) : producer(name + "_producer"), consumer(name + "_consumer") {
        producer(x, y) = x + y;
        consumer(x, y) = producer(x - 1, y - 1) + producer(x, y) + producer(x + 1, y + 1);
    }
    void check(int w, int h) {
        Buffer<int> out = consumer.realize({w, h});
        expect_buffer_eq(out, [](const std::vector<int> &p) { return stencil_expected(p[0], p[1]); });
    }
};

TEST_P(Async, ComputeRootProducer) {
    Stencil s("async_root");
    s.consumer.compute_root();
    s.producer.compute_root().async();
    s.check(61, 37);
    EXPECT_TRUE(contains(loom_test::lowered_stmt(s.consumer, "async_root.stmt"), "fork {"));
}

TEST_P(Async, ProducerComputedPerRowStoredAtRoot) {
    // A sliding window over y with folded storage: the producer may run one
    // row ahead of its consumer and no more.
    Stencil s("async_rows");
    s.producer.compute_at(s.consumer, s.y).store_root().async();
    s.check(45, 29);
}

TEST_P(Async, ProducerComputedPerTile) {
    // Storage per tile, inside the tile loop: each tile forks.
    Stencil s("async_tile");
    s.consumer.tile(s.x, s.y, s.xo, s.yo, s.xi, s.yi, 8, 8, TailStrategy::GuardWithIf);
    s.producer.compute_at(s.consumer, s.xo).async();
    s.check(50, 27);
}

TEST_P(Async, TupleProducerWithAnUpdate) {
    // Two storages (one per Tuple element), all stages inside the production.
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("async_tuple_f"), g("async_tuple_g");
    f(x, y) = Tuple(x + y, x - y);
    f(x, y) = Tuple(f(x, y)[0] * 2, f(x, y)[1] + 3);
    g(x, y) = f(x, y)[0] + f(x + 1, y)[1];
    g.compute_root().split(x, xo, xi, 8, TailStrategy::RoundUp);
    f.compute_at(g, xo).hoist_storage(g, y).ring_buffer(2).async();
    Buffer<int> out = g.realize({40, 12});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return 2 * (p[0] + p[1]) + (p[0] + 1 - p[1]) + 3; });
    Func h("async_tuple_h"), k("async_tuple_k");
    h(x, y) = Tuple(x * y, x + 2 * y);
    k(x, y) = h(x, y)[0] - h(x, y + 1)[1];
    h.compute_root().async();
    Buffer<int> out2 = k.realize({17, 9});
    expect_buffer_eq(out2, [](const std::vector<int> &p) { return p[0] * p[1] - (p[0] + 2 * (p[1] + 1)); });
}

TEST_P(Async, ChainOfTwoAsyncProducers) {
    Var x("x"), y("y");
    Func p1("async_chain_p1"), p2("async_chain_p2"), consumer("async_chain_consumer");
    p1(x, y) = x + 2 * y;
    p2(x, y) = p1(x, y) + p1(x + 1, y) * 3;
    consumer(x, y) = p2(x, y) - p1(x, y + 1);
    p1.compute_root().async();
    p2.compute_root().async();
    Buffer<int> out = consumer.realize({40, 30});
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        auto f1 = [](int x, int y) { return x + 2 * y; };
        return f1(p[0], p[1]) + f1(p[0] + 1, p[1]) * 3 - f1(p[0], p[1] + 1);
    });
}

TEST_P(Async, ChainOfTwoRingBufferedProducersOverTiles) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func p1("async_ring_chain_p1"), p2("async_ring_chain_p2"), consumer("async_ring_chain_consumer");
    p1(x, y) = x + y;
    p2(x, y) = p1(x, y) + x * y;
    consumer(x, y) = p2(x, y) * 2;
    consumer.compute_root().tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::RoundUp);
    p1.compute_at(consumer, xo).hoist_storage(consumer, yo).ring_buffer(2).async();
    p2.compute_at(consumer, xo).hoist_storage(consumer, yo).ring_buffer(2).async();
    Buffer<int> out = consumer.realize({64, 48});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return 2 * (p[0] + p[1] + p[0] * p[1]); });
}

TEST_P(Async, RingBufferWithHoistStorageOverATiledConsumer) {
    for (int copies : {1, 2, 3}) {
        Stencil s("async_ring" + std::to_string(copies));
        s.consumer.compute_root().tile(s.x, s.y, s.xo, s.yo, s.xi, s.yi, 16, 16, TailStrategy::RoundUp);
        s.producer.compute_at(s.consumer, s.xo).hoist_storage(s.consumer, s.yo).ring_buffer(copies).async();
        s.check(64, 48);
    }
    Stencil root("async_ring_root");
    root.consumer.compute_root().tile(root.x, root.y, root.xo, root.yo, root.xi, root.yi, 16, 16,
                                      TailStrategy::RoundUp);
    root.producer.compute_at(root.consumer, root.xo).hoist_storage_root().ring_buffer(2).async();
    root.check(64, 48);
    // Vectorized on both sides, with an unrolled loop in the producer.
    Stencil vec("async_ring_vec");
    vec.consumer.compute_root().tile(vec.x, vec.y, vec.xo, vec.yo, vec.xi, vec.yi, 16, 8, TailStrategy::RoundUp);
    vec.consumer.vectorize(vec.xi, 8);
    vec.producer.compute_at(vec.consumer, vec.xo).hoist_storage(vec.consumer, vec.yo).ring_buffer(2).async();
    vec.producer.vectorize(vec.x, 4).unroll(vec.y, 2);
    vec.check(64, 48);
}

TEST_P(Async, RingBufferedProducersWithIntermediateConsumers) {
    // Halide's ring_buffer.cpp: one async producer read by three
    // intermediates (and directly), then three async producers with
    // different ring sizes read by two intermediates, one of them hoisted.
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    {
        Func producer("ringi_p"), consumer("ringi_c"), i1("ringi_1"), i2("ringi_2"), i3("ringi_3");
        producer(x, y) = x + y;
        i1(x, y) = producer(x - 1, y - 1);
        i2(x, y) = producer(x, y);
        i3(x, y) = producer(x + 1, y + 1);
        consumer(x, y) = i1(x, y) + i2(x, y) + i3(x, y) + producer(x, y + 2);
        consumer.compute_root().tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::RoundUp);
        producer.compute_at(consumer, xo).hoist_storage(consumer, yo).ring_buffer(2).async();
        i1.compute_at(consumer, xo);
        i2.compute_at(consumer, xo);
        i3.compute_at(consumer, xo);
        Buffer<int> out = consumer.realize({64, 48});
        expect_buffer_eq(out, [](const std::vector<int> &p) { return 3 * (p[0] + p[1]) + p[0] + p[1] + 2; });
    }
    {
        Func p1("ring3_p1"), p2("ring3_p2"), p3("ring3_p3"), i1("ring3_i1"), i2("ring3_i2"), consumer("ring3_c");
        p1(x, y) = x + y;
        p2(x, y) = x + y;
        p3(x, y) = x * y;
        i1(x, y) = p1(x - 1, y + 1) + p2(x, y) + p3(x - 1, y - 1);
        i2(x, y) = p1(x, y) + p2(x + 1, y - 1) + p3(x + 1, y + 1);
        consumer(x, y) = i1(x, y) + i2(x, y);
        consumer.compute_root().tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::RoundUp);
        i1.compute_at(consumer, xo);
        i2.compute_at(consumer, xo).hoist_storage(consumer, yo);
        p1.compute_at(consumer, xo).hoist_storage(consumer, yo).ring_buffer(2).async();
        p2.compute_at(consumer, xo).hoist_storage(consumer, yo).ring_buffer(3).async();
        p3.compute_at(consumer, xo).hoist_storage(consumer, yo).ring_buffer(4).async();
        Buffer<int> out = consumer.realize({64, 48});
        expect_buffer_eq(out, [](const std::vector<int> &p) {
            const int x = p[0], y = p[1];
            return 4 * (x + y) + (x - 1) * (y - 1) + (x + 1) * (y + 1);
        });
    }
}

TEST_P(Async, RingBufferWithoutAsyncRotatesTheStorage) {
    // Legal in Halide: the copies are used in turn, by one thread.
    Stencil s("ring_only");
    s.consumer.compute_root().tile(s.x, s.y, s.xo, s.yo, s.xi, s.yi, 16, 16, TailStrategy::RoundUp);
    s.producer.compute_at(s.consumer, s.xo).hoist_storage(s.consumer, s.yo).ring_buffer(3);
    s.check(64, 32);
}

TEST_P(Async, InsideAParallelLoop) {
    // Every iteration of the parallel loop forks; the fork threads are not
    // the pool's, so this works whatever the thread count.
    for (int threads : {1, 3}) {
        const int previous = loom_set_num_threads(threads);
        Stencil s("async_par" + std::to_string(threads));
        s.consumer.split(s.y, s.yo, s.yi, 4, TailStrategy::GuardWithIf).parallel(s.yo);
        s.producer.compute_at(s.consumer, s.yo).async();
        s.check(33, 30);
        Stencil r("async_par_ring" + std::to_string(threads));
        r.consumer.split(r.y, r.yo, r.yi, 8, TailStrategy::GuardWithIf).parallel(r.yo);
        r.consumer.split(r.x, r.xo, r.xi, 8, TailStrategy::RoundUp);
        r.producer.compute_at(r.consumer, r.xo).hoist_storage(r.consumer, r.yo).ring_buffer(2).async();
        r.check(48, 30);
        loom_set_num_threads(previous);
    }
}

// ---- the schedules of Halide's correctness test async.cpp (without its
// slow extern): sliding windows and folds in one and two dimensions,
// flipped folds, several async producers, nested async producers.

void expect_2xy(Func &consumer, int w, int h, int factor) {
    Buffer<int> out = consumer.realize({w, h});
    expect_buffer_eq(out, [factor](const std::vector<int> &p) { return factor * (p[0] + p[1]); });
}

TEST_P(Async, SlidingAndFoldingOverOneVariable) {
    Var x("x");
    {
        Func producer("async_fold1_p"), consumer("async_fold1_c");
        producer(x) = x * 3;
        consumer(x) = producer(x) + producer(x - 1);
        consumer.compute_root();
        producer.store_root().fold_storage(x, 8).compute_at(consumer, x).async();
        Buffer<int> out = consumer.realize({40});
        expect_buffer_eq(out, [](const std::vector<int> &p) { return 3 * (2 * p[0] - 1); });
    }
    {
        // Flipped: the footprint moves down, the fold is not forward.
        Func producer("async_flip_p"), consumer("async_flip_c");
        producer(x) = x * 3;
        consumer(x) = producer(-x) + producer(-x + 1);
        consumer.compute_root();
        producer.store_root().fold_storage(x, 8, false).compute_at(consumer, x).async();
        Buffer<int> out = consumer.realize({40});
        expect_buffer_eq(out, [](const std::vector<int> &p) { return 3 * (-2 * p[0] + 1); });
    }
}

TEST_P(Async, SlidingAndFoldingOverTwoDimensions) {
    Var x("x"), y("y");
    {
        Func producer("async_fy_p"), consumer("async_fy_c");
        producer(x, y) = x + y;
        consumer(x, y) = producer(x - 1, y - 1) + producer(x + 1, y + 1);
        consumer.compute_root();
        producer.store_root().fold_storage(y, 8).compute_at(consumer, y).async();
        expect_2xy(consumer, 16, 16, 2);
    }
    {
        Func producer("async_fxy_p"), consumer("async_fxy_c");
        producer(x, y) = x + y;
        consumer(x, y) = producer(x - 1, y - 1) + producer(x + 1, y + 1);
        consumer.compute_root();
        producer.store_root().fold_storage(y, 8).compute_at(consumer, x).async();
        expect_2xy(consumer, 16, 16, 2);
    }
    {
        Func producer("async_fxfy_p"), consumer("async_fxfy_c");
        producer(x, y) = x + y;
        consumer(x, y) = producer(x - 1, y) + producer(x + 1, y);
        consumer.compute_root();
        producer.store_root().fold_storage(x, 8).fold_storage(y, 2).compute_at(consumer, x).async();
        expect_2xy(consumer, 16, 16, 2);
    }
    {
        // A footprint of varying size (clamped), and a 2x downsample.
        Func producer("async_var_p"), consumer("async_var_c");
        producer(x, y) = x + y;
        consumer(x, y) = producer(x - 1, min(y - 1, 15)) + producer(x + 1, min(y + 1, 17));
        consumer.compute_root();
        producer.store_root().fold_storage(y, 8).compute_at(consumer, y).async();
        Buffer<int> out = consumer.realize({32, 32});
        expect_buffer_eq(out, [](const std::vector<int> &p) {
            return (p[0] - 1 + std::min(p[1] - 1, 15)) + (p[0] + 1 + std::min(p[1] + 1, 17));
        });
        Func down_p("async_down_p"), down_c("async_down_c");
        down_p(x, y) = x + y;
        down_c(x, y) = down_p(x, 2 * y - 1) + down_p(x, 2 * y) + down_p(x, 2 * y + 1) + down_p(x, 2 * y + 2);
        down_c.compute_root();
        down_p.store_root().fold_storage(y, 8).compute_at(down_c, y).async();
        Buffer<int> d = down_c.realize({16, 32});
        expect_buffer_eq(d, [](const std::vector<int> &p) { return 4 * p[0] + 8 * p[1] + 2; });
    }
}

TEST_P(Async, SeveralAndNestedAsyncProducers) {
    Var x("x"), y("y");
    {
        Func p1("async_multi_p1"), p2("async_multi_p2"), consumer("async_multi_c");
        p1(x, y) = x;
        p2(x, y) = y;
        consumer(x, y) = p1(x - 1, y) + p1(x + 1, y) + p2(x - 2, y) + p2(x + 2, y);
        p1.compute_root().async();
        p2.compute_root().async();
        expect_2xy(consumer, 16, 16, 2);
    }
    {
        Func p1("async_multipar_p1"), p2("async_multipar_p2"), consumer("async_multipar_c");
        p1(x, y) = x;
        p2(x, y) = y;
        consumer(x, y) = p1(x - 1, y) + p1(x + 1, y) + p2(x - 2, y) + p2(x + 2, y);
        p1.compute_at(consumer, x).store_at(consumer, y).async();
        p2.compute_at(consumer, x).store_at(consumer, y).async();
        consumer.parallel(y);
        expect_2xy(consumer, 16, 16, 2);
    }
    {
        Func f0("async_nest_f0"), f1("async_nest_f1"), f2("async_nest_f2");
        f0(x, y) = x + y;
        f1(x, y) = f0(x - 1, y - 1) + f0(x + 1, y + 1);
        f2(x, y) = f1(x - 1, y - 1) + f1(x + 1, y + 1);
        f2.compute_root();
        f1.compute_at(f2, y).async();
        f0.compute_at(f1, x).async();
        expect_2xy(f2, 16, 16, 4);
    }
    {
        // Two async producer-consumer pairs over x, themselves a
        // producer-consumer pair over y.
        Func producer_1("async_pair_p1"), consumer_1("async_pair_c1"), producer_2("async_pair_p2"),
            consumer_2("async_pair_c2");
        producer_1(x, y) = x + y;
        consumer_1(x, y) = producer_1(x - 1, y) + producer_1(x + 1, y);
        producer_2(x, y) = consumer_1(x, y - 1) + consumer_1(x, y + 1);
        consumer_2(x, y) = producer_2(x - 1, y) + producer_2(x + 1, y);
        consumer_2.compute_root();
        producer_2.store_at(consumer_2, y).compute_at(consumer_2, x).async();
        consumer_1.store_root().compute_at(consumer_2, y).async();
        producer_1.store_at(consumer_2, y).compute_at(consumer_1, x).async();
        expect_2xy(consumer_2, 16, 16, 8);
    }
}

}  // namespace

/** An extern producer for the async test below: out(x, y) = x + 100 * y. */
extern "C" int async_test_ext_ramp(loom_buffer_t *out) {
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++) {
            ((int32_t *)out->host)[(x - out->dim[0].min) * out->dim[0].stride +
                                   (y - out->dim[1].min) * out->dim[1].stride] = x + 100 * y;
        }
    }
    return 0;
}

namespace {

TEST_P(Async, ExternProducer) {
    // The C function runs on the fork thread, per row of the consumer.
    Var x("x"), y("y");
    Func ramp("async_ext_ramp"), out("async_ext_out");
    ramp.define_extern("async_test_ext_ramp", {}, Int(32), {x, y});
    out(x, y) = ramp(x, y) * 2 + ramp(x + 1, y) - ramp(x, y + 2);
    ramp.compute_at(out, y).async();
    auto run = [&] { return Buffer<int>(out.realize({20, 9})); };
    if (GetParam() == loom::internal::Backend::Interpreter) {
        EXPECT_TRUE(contains(compile_error_message(run), "async_test_ext_ramp"));  // it can't call C functions
        return;
    }
    expect_buffer_eq(run(), [](const std::vector<int> &p) {
        auto r = [](int x, int y) { return x + 100 * y; };
        return r(p[0], p[1]) * 2 + r(p[0] + 1, p[1]) - r(p[0], p[1] + 2);
    });
}

// ---- what the semaphores guarantee, through the trace of productions and
// consumptions of a ring-buffered async producer over 16x16 tiles.

struct Event {
    int code;
    std::string func;
    std::vector<int> region;  // min, extent per dimension
    std::thread::id thread;
};
std::mutex events_mutex;
std::vector<Event> &events() {
    static std::vector<Event> e;
    return e;
}
int32_t record_event(void *, const loom_trace_event_t *e) {
    std::lock_guard<std::mutex> lock(events_mutex);
    Event ev{e->event, e->func ? e->func : "", {}, std::this_thread::get_id()};
    if (e->coordinates && e->event >= loom_trace_begin_realization && e->event <= loom_trace_end_consume) {
        ev.region.assign(e->coordinates, e->coordinates + e->dimensions);
    }
    events().push_back(ev);
    return (int32_t)events().size();
}

TEST_P(Async, ConsumerWaitsForEachTileAndProducerStaysWithinTheRing) {
    const int copies = 2;
    Stencil s("async_order");
    s.consumer.compute_root().tile(s.x, s.y, s.xo, s.yo, s.xi, s.yi, 16, 16, TailStrategy::RoundUp);
    s.producer.compute_at(s.consumer, s.xo).hoist_storage(s.consumer, s.yo).ring_buffer(copies).async();
    s.producer.trace_realizations();
    events().clear();
    loom_trace_handler_t previous = loom_set_trace_handler(&record_event);
    s.check(64, 64);
    loom_set_trace_handler(previous);

    // Positions in the log of the k-th Produce, End produce, Consume and
    // End consume of the producer (one of each per tile, in tile order).
    const std::string name = s.producer.name();
    std::map<int, std::vector<size_t>> at;
    std::vector<std::thread::id> producer_threads, consumer_threads;
    for (size_t i = 0; i < events().size(); i++) {
        const Event &e = events()[i];
        if (e.func != name) continue;
        at[e.code].push_back(i);
        if (e.code == loom_trace_produce) producer_threads.push_back(e.thread);
        if (e.code == loom_trace_consume) consumer_threads.push_back(e.thread);
    }
    const size_t tiles = 16;
    ASSERT_EQ(at[loom_trace_produce].size(), tiles);
    ASSERT_EQ(at[loom_trace_end_produce].size(), tiles);
    ASSERT_EQ(at[loom_trace_consume].size(), tiles);
    ASSERT_EQ(at[loom_trace_end_consume].size(), tiles);
    for (size_t k = 0; k < tiles; k++) {
        // The consumer of tile k starts only once tile k is produced.
        EXPECT_LT(at[loom_trace_end_produce][k], at[loom_trace_consume][k]) << "tile " << k;
        // The producer of tile k + copies starts only once tile k is consumed
        // (its copy of the storage is free again).
        if (k + copies < tiles) {
            EXPECT_LT(at[loom_trace_end_consume][k], at[loom_trace_produce][k + copies]) << "tile " << k;
        }
        // Each Consume reports the region its Produce did.
        EXPECT_EQ(events()[at[loom_trace_produce][k]].region, events()[at[loom_trace_consume][k]].region);
    }
    // Productions run on a thread of their own.
    for (const std::thread::id &p : producer_threads) {
        EXPECT_TRUE(std::find(consumer_threads.begin(), consumer_threads.end(), p) == consumer_threads.end());
    }
}

TEST_P(Async, FoldedStorageLetsTheProducerRunAsFarAheadAsTheFoldHolds) {
    // fold_storage(y, 8) with a window of 3 rows per consumer row: as in
    // Halide the producer may run 8 - 3 = 5 rows ahead, so 1 + 5 = 6
    // productions fit in the fold and row k + 6 is produced only after row k
    // is consumed (1 + (F - W) / s: docs/SCHEDULING.md).
    Stencil s("async_foldahead");
    s.consumer.compute_root();
    s.producer.store_root().fold_storage(s.y, 8).compute_at(s.consumer, s.y).async().trace_realizations();
    EXPECT_TRUE(contains(loom_test::lowered_stmt(s.consumer, "async_foldahead.stmt"),
                         "async_foldahead_producer.space_semaphore = make_semaphore(6)"));
    events().clear();
    loom_trace_handler_t previous = loom_set_trace_handler(&record_event);
    s.check(20, 24);
    loom_set_trace_handler(previous);
    std::map<int, std::vector<size_t>> at;
    for (size_t i = 0; i < events().size(); i++) {
        if (events()[i].func == s.producer.name()) at[events()[i].code].push_back(i);
    }
    ASSERT_EQ(at[loom_trace_produce].size(), 24u);
    ASSERT_EQ(at[loom_trace_end_consume].size(), 24u);
    for (size_t k = 0; k + 6 < 24; k++) {
        EXPECT_LT(at[loom_trace_end_consume][k], at[loom_trace_produce][k + 6]) << "row " << k;
    }
    for (size_t k = 0; k < 24; k++) {
        EXPECT_LT(at[loom_trace_end_produce][k], at[loom_trace_consume][k]) << "row " << k;
    }
}

// ---- failures in either half end the run with the error, never a hang.

TEST_P(Async, AFailingProducerStopsTheConsumer) {
    Param<int> p1("async_fail_p1"), p2("async_fail_p2");
    Var x("x");
    Func f("async_fail_f"), g("async_fail_g");
    f(x) = require(p1 + p2 == 7829, (p1 + p2) * 7919, "The parameters should add to exactly", 7829);
    g(x) = f(x) + f(x + 1);
    f.compute_at(g, x).async();
    p1.set(1);
    p2.set(2);
    const std::string m = runtime_error_message([&] { g.realize({8}); });
    EXPECT_TRUE(contains(m, "The parameters should add to exactly")) << m;
    p1.set(7000);
    p2.set(829);
    Buffer<int> out = g.realize({8});
    expect_buffer_eq(out, [](const std::vector<int> &) { return 2 * 7829 * 7919; });
}

TEST_P(Async, AFailingConsumerStopsARingBufferedProducer) {
    // The consumer fails on its first tile while the producer waits for a
    // free copy of the storage.
    Param<int> limit("async_consumer_limit");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("async_cfail_f"), g("async_cfail_g");
    f(x, y) = x + y;
    g(x, y) = require(f(x, y) < limit, f(x, y), "g reads too large a value");
    g.compute_root().split(x, xo, xi, 8, TailStrategy::RoundUp);
    f.compute_at(g, xo).hoist_storage(g, y).ring_buffer(2).async();
    limit.set(0);
    const std::string m = runtime_error_message([&] { g.realize({64, 4}); });
    EXPECT_TRUE(contains(m, "g reads too large a value")) << m;
    limit.set(1000);
    Buffer<int> out = g.realize({64, 4});
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] + p[1]; });
}

// ---- schedule errors, as Halide gives them.

TEST_P(Async, ErrorsNameTheFunc) {
    Var x("x"), y("y");
    {
        Func f("async_inline_f"), g("async_inline_g");
        f(x) = x;
        g(x) = f(x) + 1;
        f.async();
        const std::string m = compile_error_message([&] { g.realize({4}); });
        EXPECT_TRUE(contains(m, "async_inline_f") && contains(m, "computed inline")) << m;
    }
    {
        Func f("async_output_f");
        f(x) = x;
        f.async();
        const std::string m = compile_error_message([&] { f.realize({4}); });
        EXPECT_TRUE(contains(m, "async_output_f") && contains(m, "output")) << m;
    }
    {
        // ring_buffer() needs an explicit hoist_storage().
        Func f("ring_nohoist_f"), g("ring_nohoist_g"), h("ring_nohoist_h");
        f(x) = x;
        g(x) = f(x);
        h(x, y) = g(x);
        g.compute_at(h, y);
        f.compute_root().ring_buffer(2);
        const std::string m = compile_error_message([&] { h.realize({10, 10}); });
        EXPECT_TRUE(contains(m, "ring_nohoist_f") &&
                    contains(m, "ring_buffer(), but has matching store_at and hoist_storage levels"))
            << m;
    }
    {
        Func f("async_memo_f"), g("async_memo_g");
        f(x) = x;
        g(x) = f(x) + 1;
        f.compute_root().memoize().async();
        const std::string m = compile_error_message([&] { g.realize({4}); });
        EXPECT_TRUE(contains(m, "async_memo_f") && contains(m, "memoize()")) << m;
    }
    {
        Func p("async_cw_p"), q("async_cw_q"), c("async_cw_c");
        p(x, y) = x + y;
        q(x, y) = x * y;
        c(x, y) = p(x, y) + q(x, y);
        p.compute_root().async();
        q.compute_root().compute_with(p, y);
        const std::string m = compile_error_message([&] { c.realize({20, 10}); });
        EXPECT_TRUE(contains(m, "async_cw_p") && contains(m, "compute_with")) << m;
    }
    {
        Func f("ring_zero_f");
        f(x) = x;
        const std::string m = compile_error_message([&] { f.ring_buffer(0); });
        EXPECT_TRUE(contains(m, "ring_zero_f") && contains(m, "positive integer")) << m;
    }
    {
        // Halide's bad_async_producer: f is computed between g's storage and
        // g's computation, but only the consumers of g stay in order with it.
        Func f("bad_async_f"), g("bad_async_g"), h("bad_async_h");
        f(x) = cast<uint8_t>(x + 7);
        g(x) = f(x);
        h(x) = g(x);
        f.store_root().compute_at(h, x);
        g.store_root().compute_at(h, x).async();
        const std::string m = compile_error_message([&] { h.realize({32}); });
        EXPECT_TRUE(contains(m, "The Func bad_async_f is consumed by async Func bad_async_g")) << m;
        // Halide's fix: f inside g's loops.
        f.store_root().compute_at(g, x);
        Buffer<uint8_t> out = h.realize({32});
        expect_buffer_eq(out, [](const std::vector<int> &p) { return (uint8_t)(p[0] + 7); });
    }
}

TEST_P(Async, GpuLoopsAreRefused) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("async_gpu_f"), g("async_gpu_g");
    f(x, y) = x + y;
    g(x, y) = f(x, y) * 2;
    g.compute_root().gpu_tile(x, xo, xi, 8);
    f.compute_at(g, xo).async();
    const std::string m =
        compile_error_message([&] { g.compile_to_lowered_stmt(::testing::TempDir() + "gpu.stmt", Target("host-vulkan")); });
    EXPECT_TRUE(contains(m, "async_gpu_f") && contains(m, "GPU")) << m;
}

LOOM_INSTANTIATE_BACKENDS(Async);

}  // namespace
