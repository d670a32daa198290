// Lesson 23: async producers and ring buffers.
//
// Normally a producer and its consumer take turns: the producer computes the
// region the consumer needs, then the consumer reads it, on the same thread.
// producer.async() (as in Halide) gives the producer a thread of its own:
// Loom splits the code that uses the producer's storage into a producer half
// and a consumer half and runs them at once, with semaphores so that
//   - a consumer never reads a region before it is produced, and
//   - the producer never overwrites storage a consumer still reads.
// How far ahead the producer may run depends on its storage:
//
//   producer.compute_root().async();             // all of it, while the consumer waits
//   producer.compute_at(c, y).store_root().async();  // row y + 1 while c reads row y
//   producer.compute_at(c, xo).hoist_storage(c, yo).ring_buffer(2).async();
//                                                // double buffering over tiles
//
// hoist_storage() makes one allocation serve every tile of a row of tiles;
// ring_buffer(2) gives it two copies used in turn, so the producer can fill
// tile i + 1 while the consumer reads tile i. The lowered statement shows the
// two halves as "fork { producer half } { consumer half }".

#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <loom/Loom.h>

using namespace loom;

namespace {

int expected(int x, int y) { return (x - 1 + y - 1) + (x + y) + (x + 1 + y + 1); }

int check(const Buffer<int> &out) {
    int mismatches = 0;
    for (int y = 0; y < out.height(); y++)
        for (int x = 0; x < out.width(); x++)
            if (out(x, y) != expected(x, y)) mismatches++;
    return mismatches;
}

// A trace handler recording which thread produced and consumed each tile.
std::mutex events_mutex;
std::vector<std::pair<int, std::thread::id>> events;  // (event code, thread)
int32_t record(void *, const loom_trace_event_t *e) {
    std::lock_guard<std::mutex> lock(events_mutex);
    if (e->event == loom_trace_produce || e->event == loom_trace_end_consume) {
        events.push_back({e->event, std::this_thread::get_id()});
    }
    return 0;
}

}  // namespace

int main() {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    int mismatches = 0;

    // 1. An async compute_root producer.
    {
        Func producer("producer"), consumer("consumer");
        producer(x, y) = x + y;
        consumer(x, y) = producer(x - 1, y - 1) + producer(x, y) + producer(x + 1, y + 1);
        producer.compute_root().async();
        mismatches += check(consumer.realize({128, 128}));
        std::printf("1. compute_root().async(): computed on its own thread, consumer waited for it\n");
    }

    // 2. Double buffering: tiles of 16x16, the producer one tile ahead.
    {
        Func producer("tile_producer"), consumer("tile_consumer");
        producer(x, y) = x + y;
        consumer(x, y) = producer(x - 1, y - 1) + producer(x, y) + producer(x + 1, y + 1);
        consumer.compute_root().tile(x, y, xo, yo, xi, yi, 16, 16);
        producer.compute_at(consumer, xo).hoist_storage(consumer, yo).ring_buffer(2).async();
        producer.trace_realizations();
        loom_trace_handler_t previous = loom_set_trace_handler(&record);
        mismatches += check(consumer.realize({128, 128}));
        loom_set_trace_handler(previous);
        int produced = 0, on_other_thread = 0;
        std::thread::id consumer_thread;
        for (const auto &[code, thread] : events) {
            if (code == loom_trace_end_consume) consumer_thread = thread;
        }
        for (const auto &[code, thread] : events) {
            if (code != loom_trace_produce) continue;
            produced++;
            if (thread != consumer_thread) on_other_thread++;
        }
        std::printf("2. ring_buffer(2) over tiles: %d tiles produced, %d of them on the producer's own thread\n",
                    produced, on_other_thread);
        if (produced != 64 || on_other_thread != 64) mismatches++;
    }

    // 3. ring_buffer() needs a hoist_storage() level outside the store level.
    {
        Func producer("lonely_producer"), consumer("lonely_consumer");
        producer(x, y) = x + y;
        consumer(x, y) = producer(x, y) * 2;
        producer.compute_at(consumer, y).ring_buffer(2).async();
        try {
            consumer.realize({8, 8});
            mismatches++;
        } catch (const CompileError &e) {
            std::printf("3. without hoist_storage: %s\n", e.what());
        }
    }

    if (mismatches) {
        std::printf("%d mismatches\n", mismatches);
        return 1;
    }
    std::printf("\nAll results match the C++ reference.\n");
    return 0;
}
