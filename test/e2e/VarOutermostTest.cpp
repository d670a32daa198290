// Var::outermost(): the loop level around all of a Func's loops (Halide's
// "__outermost"), in compute_at, store_at and LoopLevel, against plain C++
// loops; and where the producer lands in the loop nest.

#include "e2e/E2ETest.h"

#include <string>

using namespace loom;

namespace {

class VarOutermost : public loom_test::BackendTest {};

int producer_value(int x, int y) { return x * 3 + y * 100; }

TEST_P(VarOutermost, ComputeAtOutermostOfAConsumer) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x * 3 + y * 100;
    consumer(x, y) = producer(x, y) + producer(x + 1, y + 2);
    producer.compute_at(consumer, Var::outermost());
    consumer.split(y, yo, yi, 4);
    Buffer<int> out = consumer.realize({13, 10});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) {
        return producer_value(p[0], p[1]) + producer_value(p[0] + 1, p[1] + 2);
    });
}

TEST_P(VarOutermost, InsideAFuncComputedPerRowOfAnother) {
    // middle is computed per row of out; inner at middle's outermost level:
    // once per row of out, around all of middle's loops.
    Var x("x"), y("y");
    Func inner("inner"), middle("middle"), out("out");
    inner(x, y) = x + y;
    middle(x, y) = inner(x, y) * 2 + inner(x + 2, y);
    out(x, y) = middle(x, y) - middle(x + 1, y);
    middle.compute_at(out, y);
    inner.compute_at(LoopLevel(middle, Var::outermost()));
    Buffer<int> result = out.realize({9, 6});
    loom_test::expect_buffer_eq(result, [](const std::vector<int> &p) {
        auto mid = [](int x, int y) { return (x + y) * 2 + (x + 2 + y); };
        return mid(p[0], p[1]) - mid(p[0] + 1, p[1]);
    });
}

TEST_P(VarOutermost, StoreAtOutermostComputeAtARow) {
    // Stored once per realization of consumer, computed per row: a sliding
    // window keeps the rows consumer's next row needs.
    Var x("x"), y("y");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x * 3 + y * 100;
    consumer(x, y) = producer(x, y) + producer(x, y + 1) + producer(x, y + 2);
    producer.store_at(consumer, Var::outermost()).compute_at(consumer, y);
    Buffer<int> out = consumer.realize({11, 7});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) {
        return producer_value(p[0], p[1]) + producer_value(p[0], p[1] + 1) + producer_value(p[0], p[1] + 2);
    });
}

TEST_P(VarOutermost, UpdateStagesHaveOneToo) {
    Var x("x");
    RDom r(0, 5);
    Func producer("producer"), consumer("consumer");
    producer(x) = x * x;
    consumer(x) = x;
    consumer(x) += producer(x + r);
    producer.compute_at(consumer, Var::outermost());
    Buffer<int> out = consumer.realize({8});
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) {
        int sum = p[0];
        for (int r = 0; r < 5; r++) sum += (p[0] + r) * (p[0] + r);
        return sum;
    });
}

LOOM_INSTANTIATE_BACKENDS(VarOutermost);

TEST(VarOutermostLoops, TheProducerIsInsideTheConsumersProductionAroundItsLoops) {
    Var x("x"), y("y");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x + y;
    consumer(x, y) = producer(x, y);
    producer.compute_at(consumer, Var::outermost());
    EXPECT_EQ(Var::outermost().name(), "__outermost");
    testing::internal::CaptureStdout();
    consumer.print_loop_nest();
    const std::string nest = testing::internal::GetCapturedStdout();
    const size_t produce_consumer = nest.find("produce consumer:");
    const size_t produce_producer = nest.find("produce producer:");
    const size_t consume_producer = nest.find("consume producer:");
    ASSERT_NE(produce_consumer, std::string::npos) << nest;
    ASSERT_NE(produce_producer, std::string::npos) << nest;
    ASSERT_NE(consume_producer, std::string::npos) << nest;
    // produce consumer { produce producer {...} consume producer { for y: for x: ... } }
    EXPECT_LT(produce_consumer, produce_producer) << nest;
    EXPECT_LT(produce_producer, consume_producer) << nest;
    EXPECT_NE(nest.find("for y:", consume_producer), std::string::npos) << nest;
    EXPECT_EQ(nest.find("__outermost"), std::string::npos) << nest;  // not shown
}

TEST(VarOutermostLoops, AnInlinedFuncHasNoOutermostLoop) {
    Var x("x");
    Func producer("producer"), middle("middle"), consumer("consumer");
    producer(x) = x;
    middle(x) = producer(x) + 1;
    consumer(x) = middle(x);
    producer.compute_at(middle, Var::outermost());  // middle is inlined
    EXPECT_THROW(consumer.realize({4}), CompileError);
}

}  // namespace
