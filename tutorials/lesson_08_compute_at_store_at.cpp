// Lesson 8: compute_at and store_at.
//
// Lesson 7 had two extremes: inline (recompute everything, no memory) and
// compute_root (compute everything first, a whole buffer of memory). In
// between, producer.compute_at(consumer, y) computes the producer inside the
// consumer's loop over y: just the rows one iteration of y needs, right
// before they are used, while they are still in cache.
//
// Where the producer is *stored* is a second choice. store_root() with
// compute_at(consumer, y) keeps the buffer alive across iterations of y, so
// rows computed for one row of the consumer are reused by the next: a
// sliding window. Only the rows still needed are live at a time, so Loom
// folds that dimension of storage into a small circular buffer (storage
// folding); fold_storage(y, n) asks for it explicitly.
//
// The consumer is a vertical 3-tap sum. Each schedule is checked against a
// C++ loop, and a print handler counts producer evaluations as in lesson 7.

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

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

const int kWidth = 6, kHeight = 8;

int producer_reference(int x, int y) { return x * x + 3 * y; }

// Runs the pipeline, checks it, and checks the number of producer
// evaluations. Returns the number of problems.
int run(Func consumer, const char *title, int expected_evaluations) {
    std::printf("--- %s\n", title);
    consumer.print_loop_nest();
    evaluations = 0;
    Buffer<int> out = consumer.realize({kWidth, kHeight});
    int problems = 0;
    for (int j = 0; j < kHeight; j++) {
        for (int i = 0; i < kWidth; i++) {
            int expected = producer_reference(i, j - 1) + producer_reference(i, j) + producer_reference(i, j + 1);
            if (out(i, j) != expected) problems++;
        }
    }
    std::printf("producer evaluated %d times (expected %d); %d wrong values\n", (int)evaluations,
                expected_evaluations, problems);
    if (evaluations != expected_evaluations) problems++;
    return problems;
}

// The allocation lines of the lowered statement: how much memory each
// schedule asks for. Sizes named *.extent_realized are computed at run time
// from what the consumer needs; a folded dimension is a constant number of
// slots.
void print_allocations(Func f, const std::string &file) {
    f.compile_to_lowered_stmt(file);
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        size_t at = line.find("allocate");
        if (at != std::string::npos) std::printf("  %s\n", line.c_str() + at);
    }
    std::printf("\n");
}

struct ProducerConsumer {
    Func producer, consumer;
};

ProducerConsumer make_pipeline(const std::string &suffix) {
    Var x("x"), y("y");
    ProducerConsumer p{Func("producer_" + suffix), Func("consumer_" + suffix)};
    p.producer(x, y) = print(x * x + 3 * y, "producer");
    p.consumer(x, y) = p.producer(x, y - 1) + p.producer(x, y) + p.producer(x, y + 1);
    return p;
}

}  // namespace

int main() {
    loom_print_handler_t previous = loom_set_print_handler(count_lines);
    Var x("x"), y("y");
    int problems = 0;

    // compute_root: the whole (height + 2)-row region first.
    ProducerConsumer root = make_pipeline("root");
    root.producer.compute_root();
    problems += run(root.consumer, "producer.compute_root()", kWidth * (kHeight + 2));
    print_allocations(root.consumer, "lesson_08_root.stmt");

    // compute_at(consumer, y): three rows per row of the consumer, recomputed
    // every time; only three rows of storage.
    ProducerConsumer at_y = make_pipeline("at_y");
    at_y.producer.compute_at(at_y.consumer, y);
    problems += run(at_y.consumer, "producer.compute_at(consumer, y)", kWidth * kHeight * 3);
    print_allocations(at_y.consumer, "lesson_08_at_y.stmt");

    // compute_at(consumer, x): three values per pixel.
    ProducerConsumer at_x = make_pipeline("at_x");
    at_x.producer.compute_at(at_x.consumer, x);
    problems += run(at_x.consumer, "producer.compute_at(consumer, x)", kWidth * kHeight * 3);

    // store_root + compute_at(consumer, y): a sliding window. The first row
    // of the consumer computes three producer rows, every later row only
    // the one new row, so the total is what compute_root computes, yet each
    // row is used right after it is computed. The storage folds to the
    // 3 rows in flight, rounded up to 4.
    ProducerConsumer sliding = make_pipeline("sliding");
    sliding.producer.store_root().compute_at(sliding.consumer, y);
    problems += run(sliding.consumer, "producer.store_root().compute_at(consumer, y)", kWidth * (kHeight + 2));
    print_allocations(sliding.consumer, "lesson_08_sliding.stmt");

    // fold_storage(y, 4) states the circular buffer explicitly; Loom checks
    // at run time that no value is overwritten while still needed.
    ProducerConsumer folded = make_pipeline("folded");
    folded.producer.store_root().compute_at(folded.consumer, y).fold_storage(y, 4);
    problems += run(folded.consumer, "store_root().compute_at(consumer, y).fold_storage(y, 4)",
                    kWidth * (kHeight + 2));
    print_allocations(folded.consumer, "lesson_08_folded.stmt");

    loom_set_print_handler(previous);
    std::printf("%s: %d problems (values against C++ loops and evaluation counts)\n",
                problems ? "FAILED" : "Success", problems);
    return problems ? 1 : 0;
}
