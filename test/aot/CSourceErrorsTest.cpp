// What the C back end (compile_to_c) refuses: each case is a CompileError
// that names the thing and says what to do, and no file is written.

#include <gtest/gtest.h>

#include <string>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

/** Compiles f to C and returns the CompileError's message ("" if none). */
std::string c_source_error(Func f, const std::vector<Argument> &args, const Target &target = Target()) {
    ScratchDir dir;
    const std::string path = dir.file("refused.loom_generated.cpp");
    try {
        if (target.arch == Target::ArchUnknown) {
            f.compile_to_c(path, args, "refused");
        } else {
            f.compile_to_c(path, args, "refused", target);
        }
    } catch (const CompileError &e) {
        EXPECT_FALSE(file_exists(path)) << "a refused source was written";
        return e.what();
    }
    return "";
}

void expect_mentions(const std::string &message, std::initializer_list<const char *> words) {
    EXPECT_FALSE(message.empty()) << "no CompileError";
    for (const char *w : words) EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
}

TEST(CSourceErrors, TracingIsRefused) {
    Var x("x");
    Func f("traced");
    f(x) = x * 2;
    f.trace_stores();
    expect_mentions(c_source_error(f, {}), {"compile_to_c", "C back end", "tracing", "compile_to_object"});
}

TEST(CSourceErrors, AsyncIsRefused) {
    Var x("x");
    Func producer("producer"), consumer("consumer");
    producer(x) = x + 1;
    consumer(x) = producer(x) * 2;
    producer.compute_root().async();
    expect_mentions(c_source_error(consumer, {}), {"C back end", "async"});
}

TEST(CSourceErrors, ThirtyTwoBitTargetsAreRefused) {
    Var x("x");
    Func f("narrow");
    f(x) = x;
    expect_mentions(c_source_error(f, {}, Target("x86-32-linux")), {"C back end", "64-bit", "x86-32-linux"});
}

TEST(CSourceErrors, LargeBuffersAreRefused) {
    Var x("x");
    Func f("large");
    f(x) = x;
    expect_mentions(c_source_error(f, {}, get_host_target().with_feature(Target::LargeBuffers)),
                    {"C back end", "large_buffers"});
}

TEST(CSourceErrors, GpuTargetsAreRefused) {
    Var x("x");
    Func f("gpu");
    f(x) = x;
    expect_mentions(c_source_error(f, {}, get_host_target().with_feature(Target::Vulkan)),
                    {"C back end", "GPU", "compile_to_object"});
}

TEST(CSourceErrors, EmbeddedBuffersAreRefused) {
    Buffer<int32_t> table({8}, "c_table");
    for (int i = 0; i < 8; i++) table(i) = i * i;
    Var x("x");
    Func f("lookup");
    f(x) = table(x % 8);
    expect_mentions(c_source_error(f, {}), {"C back end", "c_table", "ImageParam"});
}

TEST(CSourceErrors, MemoizeIsRefused) {
    Var x("x");
    Func cached("cached"), out("uses_cache");
    cached(x) = x * 3;
    cached.compute_root().memoize();
    out(x) = cached(x) + 1;
    expect_mentions(c_source_error(out, {}), {"C back end", "memoize"});
}

TEST(CSourceErrors, ExternStagesAreRefused) {
    Var x("x");
    Func g("g"), shifted("shifted"), out("uses_extern");
    g(x) = x * x;
    g.compute_root();
    shifted.define_extern("c_source_test_shift", {g}, Int(32), 1);
    out(x) = shifted(x) + 2;
    expect_mentions(c_source_error(out, {}), {"C back end", "extern stage", "define_extern", "compile_to_object"});
}

}  // namespace
