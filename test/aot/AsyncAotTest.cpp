// Func::async in ahead-of-time code: the static library carries the
// semaphores and fork threads (src/runtime/Fork.c) and needs nothing from
// libLoom. A program linking it runs a pipeline with a ring-buffered async
// producer inside a parallel loop and compares it with a plain C++ loop; a
// failing require() in the async producer makes the call return its error
// code (never hang). The stmt_html page shows both halves of a fork.

#include <gtest/gtest.h>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

const char *kProgram = R"(
#include <cstdio>
#include "async_stencil.h"
#include "loom/runtime/Buffer.h"
int main() {
    loom::Runtime::Buffer<int> out(64, 48);
    int mismatches = 0;
    for (int run = 0; run < 3; run++) {
        int rc = async_stencil(7, out);
        if (rc != 0) { std::printf("rc %d\n", rc); return 1; }
        for (int y = 0; y < 48; y++)
            for (int x = 0; x < 64; x++)
                if (out(x, y) != 3 * (x + y) * 7) mismatches++;
    }
    int failing = async_stencil(-1, out);
    std::printf("mismatches %d failing %d\n", mismatches, failing);
    return mismatches == 0 && failing == -8 ? 0 : 1;
}
)";

}  // namespace

TEST(AsyncAot, RingBufferedProducerInAParallelLoopRunsFromAStaticLibrary) {
    Param<int> scale("scale");
    Func producer("producer"), consumer("consumer");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    producer(x, y) = require(scale > 0, (x + y) * scale, "scale must be positive");
    consumer(x, y) = producer(x - 1, y - 1) + producer(x, y) + producer(x + 1, y + 1);
    consumer.compute_root().tile(x, y, xo, yo, xi, yi, 16, 16, TailStrategy::RoundUp).parallel(yo);
    producer.compute_at(consumer, xo).hoist_storage(consumer, yo).ring_buffer(2).async();

    ScratchDir dir;
    consumer.compile_to_static_library(dir.file("async_stencil"), {scale}, "async_stencil");
    write_file(dir.file("main.cpp"), kProgram);
    CommandResult build = run_command("cd '" + dir.path() + "' && c++ -std=c++17 -O1 -I'" + repository_root() +
                                      "/include' -o main main.cpp async_stencil.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output << "\n" << kToolsHint;
    CommandResult run = run_command("'" + dir.file("main") + "' 2>&1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(run.output.find("mismatches 0 failing -8\n") != std::string::npos) << run.output;
}

TEST(AsyncAot, StmtHtmlShowsBothHalvesOfTheFork) {
    Func producer("producer"), consumer("consumer");
    Var x("x"), y("y");
    producer(x, y) = x + y;
    consumer(x, y) = producer(x, y) + producer(x + 1, y);
    producer.compute_at(consumer, y).async();
    ScratchDir dir;
    consumer.compile_to_lowered_stmt(dir.file("c.stmt.html"), {}, HTML);
    const std::string html = read_file(dir.file("c.stmt.html"));
    EXPECT_NE(html.find("fork</span> (the async producer's half)"), std::string::npos);
    EXPECT_NE(html.find("fork</span> (at the same time: the consumers' half)"), std::string::npos);
    EXPECT_NE(html.find("semaphore_acquire"), std::string::npos);
}
