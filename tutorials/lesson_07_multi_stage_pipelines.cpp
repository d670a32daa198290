// Lesson 7: pipelines of several stages, inline or compute_root.
//
// A Func that calls another Func makes a pipeline: a producer and a
// consumer. By default a producer is *inlined*: its formula is substituted
// into the consumer wherever the consumer calls it, so no memory is used,
// but a value the consumer reads several times is computed several times.
// producer.compute_root() instead computes all of the producer that the
// consumer needs, into a buffer, before the consumer starts: each value is
// computed once, at the cost of memory and of reading it back.
//
// To *see* the difference, the producer below wraps its value in print():
// each line printed is one evaluation. A print handler counts the lines.

#include <atomic>
#include <cstdio>
#include <cstring>

#include <loom/Loom.h>
#include <loom/runtime/loom_runtime.h>

using namespace loom;

namespace {

std::atomic<int> evaluations{0};

void count_lines(void *, const char *message) {
    for (const char *c = message; *c; c++) {
        if (*c == '\n') evaluations++;
    }
}

const int kSize = 4;

int producer_reference(int x, int y) { return x * 10 + y; }

// consumer(x, y) is the sum of a 2 x 2 box of the producer.
int check(const Buffer<int> &out) {
    int mismatches = 0;
    for (int j = 0; j < kSize; j++) {
        for (int i = 0; i < kSize; i++) {
            int expected = producer_reference(i, j) + producer_reference(i + 1, j) + producer_reference(i, j + 1) +
                           producer_reference(i + 1, j + 1);
            if (out(i, j) != expected) mismatches++;
        }
    }
    return mismatches;
}

}  // namespace

int main() {
    loom_print_handler_t previous = loom_set_print_handler(count_lines);
    Var x("x"), y("y");
    int mismatches = 0;

    // --- Inline (the default) -------------------------------------------
    Func producer("producer"), consumer("consumer");
    producer(x, y) = print(x * 10 + y, "producer");
    consumer(x, y) = producer(x, y) + producer(x + 1, y) + producer(x, y + 1) + producer(x + 1, y + 1);
    std::printf("producer inlined into consumer:\n");
    consumer.print_loop_nest();
    evaluations = 0;
    Buffer<int> inlined = consumer.realize({kSize, kSize});
    int inline_count = evaluations;
    mismatches += check(inlined);
    // 4 x 4 outputs, 4 producer evaluations each.
    std::printf("producer evaluated %d times (4 x 4 outputs x 4 reads)\n\n", inline_count);
    if (inline_count != kSize * kSize * 4) mismatches++;

    // --- compute_root -----------------------------------------------------
    // Now the loop nest has two parts: produce producer (over the 5 x 5
    // region the consumer needs, found by bounds inference), then the
    // consumer reading it.
    producer.compute_root();
    std::printf("producer.compute_root():\n");
    consumer.print_loop_nest();
    evaluations = 0;
    Buffer<int> rooted = consumer.realize({kSize, kSize});
    int root_count = evaluations;
    mismatches += check(rooted);
    std::printf("producer evaluated %d times (a 5 x 5 region, each point once)\n\n", root_count);
    if (root_count != (kSize + 1) * (kSize + 1)) mismatches++;

    // --- A three-stage pipeline, each stage scheduled on its own ---------
    // The schedule of one stage does not change the others' values.
    Func scaled("scaled"), shifted("shifted"), total("total");
    scaled(x) = x * 3;
    shifted(x) = scaled(x + 2) - 1;
    total(x) = shifted(x) + scaled(x);
    scaled.compute_root().vectorize(x, 4);
    shifted.compute_root();
    std::printf("three stages, scaled and shifted computed at the root:\n");
    total.print_loop_nest();
    Buffer<int> sums = total.realize({10});
    for (int i = 0; i < 10; i++) {
        if (sums(i) != ((i + 2) * 3 - 1) + i * 3) mismatches++;
    }

    loom_set_print_handler(previous);
    std::printf("%s: %d mismatches against the C++ loops and the expected counts\n",
                mismatches ? "FAILED" : "Success", mismatches);
    return mismatches ? 1 : 0;
}
