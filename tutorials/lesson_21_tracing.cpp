// Lesson 21: tracing, to see what a schedule does.
//
// print_loop_nest() shows the loops a schedule makes; tracing shows what they
// do when they run: every value a Func stores, every value read from it, and
// every region it is realized over. As in Halide:
//
//   f.trace_stores();        "Store f.0(x, y) = value" for each write
//   f.trace_loads();         "Load f.0(x, y) = value" for each read of f
//   f.trace_realizations();  "Begin realization f.0(min, extent, ...)" and
//                            "End realization ..." around f's storage, and
//                            "Produce"/"End produce", "Consume"/"End consume"
//                            around its computation and its consumers
//   f.add_trace_tag("text"); "Tag f.0() tag = "text"" once per run
//
// A run with anything traced starts with "Begin pipeline <output>.0()" and
// ends with "End pipeline <output>.0()". After Begin pipeline come Halide's
// automatic "func_type_and_dim:" tags: for each traced Func, its number of
// values, each value's type (code, bits, lanes), its number of dimensions
// and the min and extent of the region the run touches in each.
//
// The target feature trace_all traces every Func that is not inlined. The
// lines go through loom_print (loom_set_print_handler captures them), and
// loom_set_trace_handler replaces the printer by a function of your own that
// receives each event as a loom_trace_event_t (loom/runtime/loom_runtime.h).

#include <cstdio>
#include <string>
#include <vector>

#include <loom/Loom.h>

using namespace loom;

namespace {

std::string captured;
void capture(void *, const char *message) {
    captured += message;
    std::fputs(message, stdout);
}

int stores_seen = 0;
int32_t count_stores(void *, const loom_trace_event_t *e) {
    if (e->event == loom_trace_store) stores_seen += e->type.lanes;
    return 0;
}

int check(const std::string &what, const std::string &got, const std::string &expected) {
    if (got == expected) return 0;
    std::printf("MISMATCH in %s: expected\n%sgot\n%s", what.c_str(), expected.c_str(), got.c_str());
    return 1;
}

}  // namespace

int main() {
    int mismatches = 0;
    loom_print_handler_t previous_print = loom_set_print_handler(&capture);
    Var x("x"), y("y");

    // 1. The order in which a Func's points are computed: row by row, x
    //    fastest (the default loop order, innermost first).
    {
        Func gradient("gradient");
        gradient(x, y) = x + y;
        gradient.trace_stores();
        std::printf("1. gradient over a 3 x 2 grid:\n");
        captured.clear();
        gradient.realize({3, 2});
        mismatches += check("1", captured,
                            "Begin pipeline gradient.0()\n"
                            "Tag gradient.0() tag = \"func_type_and_dim: 1 0 32 1 2 0 3 0 2\"\n"
                            "Store gradient.0(0, 0) = 0\nStore gradient.0(1, 0) = 1\nStore gradient.0(2, 0) = 2\n"
                            "Store gradient.0(0, 1) = 1\nStore gradient.0(1, 1) = 2\nStore gradient.0(2, 1) = 3\n"
                            "End pipeline gradient.0()\n");
    }

    // 2. reorder(y, x) makes y the innermost loop: the trace shows it.
    {
        Func gradient("gradient_col_major");
        gradient(x, y) = x + y;
        gradient.reorder(y, x).trace_stores();
        std::printf("\n2. the same with reorder(y, x):\n");
        captured.clear();
        gradient.realize({2, 2});
        mismatches += check("2", captured,
                            "Begin pipeline gradient_col_major.0()\n"
                            "Tag gradient_col_major.0() tag = \"func_type_and_dim: 1 0 32 1 2 0 2 0 2\"\n"
                            "Store gradient_col_major.0(0, 0) = 0\nStore gradient_col_major.0(0, 1) = 1\n"
                            "Store gradient_col_major.0(1, 0) = 1\nStore gradient_col_major.0(1, 1) = 2\n"
                            "End pipeline gradient_col_major.0()\n");
    }

    // 3. A producer computed at the root and read by its consumer: the
    //    realization covers what the consumer reads (one more column), and
    //    the loads show which points it reads.
    {
        Func producer("producer"), consumer("consumer");
        producer(x) = x * x;
        consumer(x) = producer(x) + producer(x + 1);
        producer.compute_root().trace_realizations().trace_loads();
        std::printf("\n3. a producer read at x and x + 1:\n");
        captured.clear();
        consumer.realize({2});
        mismatches += check("3", captured,
                            "Begin pipeline consumer.0()\n"
                            "Tag producer.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 3\"\n"
                            "Begin realization producer.0(0, 3)\n"
                            "Produce producer.0(0, 3)\nEnd produce producer.0(0, 3)\n"
                            "Consume producer.0(0, 3)\n"
                            "Load producer.0(0) = 0\nLoad producer.0(1) = 1\n"
                            "Load producer.0(1) = 1\nLoad producer.0(2) = 4\n"
                            "End consume producer.0(0, 3)\n"
                            "End realization producer.0(0, 3)\n"
                            "End pipeline consumer.0()\n");
    }

    // 4. A handler of your own instead of the printer: count the stores of
    //    every Func (trace_all) of a two-stage pipeline.
    {
        Func producer("counted_producer"), consumer("counted_consumer");
        producer(x, y) = x * y;
        consumer(x, y) = producer(x, y) + 1;
        producer.compute_root();
        loom_trace_handler_t previous_trace = loom_set_trace_handler(&count_stores);
        consumer.realize({8, 8}, get_jit_target_from_environment().with_feature(Target::TraceAll));
        loom_set_trace_handler(previous_trace);
        std::printf("\n4. trace_all with a counting handler: %d stores (64 of each Func)\n", stores_seen);
        if (stores_seen != 128) mismatches++;
    }

    loom_set_print_handler(previous_print);
    if (mismatches) {
        std::printf("%d mismatches\n", mismatches);
        return 1;
    }
    std::printf("\nAll traces as expected.\n");
    return 0;
}
