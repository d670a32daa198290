#ifndef LOOM_TEST_AOT_CROSS_TARGET_PROGRAMS_H
#define LOOM_TEST_AOT_CROSS_TARGET_PROGRAMS_H

// Two C programs that link static libraries compiled for another target and
// print what they computed, with the checks of that output: the 32-bit x86
// tests (ThirtyTwoBitAotTest.cpp) run them natively, the ARM tests
// (CrossArchAotTest.cpp) under qemu-user. The main program runs brighten
// and mixed (buffer fields, narrow, 64-bit and double scalars, 64-bit
// division, a heap allocation, vectors, a parallel loop, NAME_argv, a bounds
// query, an error, metadata); the features program runs async with a ring
// buffer, memoize, tracing and the profile feature.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "AotPipelines.h"
#include "AotTestSupport.h"

namespace loom_test {

constexpr int kMixedW = 37, kMixedH = 19;

inline uint8_t mixed_input_value(int x, int y) { return (uint8_t)((x * 7 + y * 13) % 251); }

/** A pipeline of the things 32-bit code generation can get wrong: a uint8,
 * an int16, an int64 and a double scalar, 64-bit division, a heap
 * allocation (tmp, compute_root), vectors and a parallel loop. */
struct MixedPipeline {
    loom::ImageParam in{loom::UInt(8), 2, "in"};
    loom::Param<uint8_t> offset{"offset"};
    loom::Param<int64_t> big{"big"};
    loom::Param<double> scale{"scale"};
    loom::Param<int16_t> neg{"neg"};
    loom::Func tmp{"tmp"}, out{"mixed"};

    MixedPipeline() {
        loom::Var x("x"), y("y");
        tmp(x, y) = loom::cast<int64_t>(in(x, y)) * big / 7 + x;
        out(x, y) = loom::cast<int32_t>(loom::floor(loom::sqrt(loom::cast<double>(tmp(x, y)) * scale))) + loom::cast<int32_t>(neg) +
                    loom::cast<int32_t>(offset);
        tmp.compute_root().vectorize(x, 4);
        out.vectorize(x, 8).parallel(y);
    }
    std::vector<loom::Argument> args() const { return {in, offset, big, scale, neg}; }

    static int32_t reference(uint8_t v, int x, int offset, int64_t big, double scale, int neg) {
        const int64_t t = int64_t(v) * big / 7 + x;  // positive: C's division is Euclidean here
        return (int32_t)std::floor(std::sqrt((double)t * scale)) + neg + offset;
    }
};

constexpr int kMixedOffset = 200, kMixedNeg = -3;
constexpr int64_t kMixedBig = 5000000000LL;  // needs 64 bits
constexpr double kMixedScale = 0.25;

inline const char *kMainProgram = R"(
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "brighten.h"
#include "mixed.h"

static char last_error[1024];
static void on_error(void *user_context, const char *message) {
    (void)user_context;
    strncpy(last_error, message, sizeof last_error - 1);
}

static loom_buffer_t make_buffer(loom_type_t type, int bytes, loom_dimension_t *dims) {
    loom_buffer_t b;
    memset(&b, 0, sizeof b);
    b.host = (uint8_t *)calloc((size_t)(W * H), (size_t)bytes);
    b.type = type;
    b.dimensions = 2;
    b.dim = dims;
    dims[0].min = 0; dims[0].extent = W; dims[0].stride = 1; dims[0].flags = 0;
    dims[1].min = 0; dims[1].extent = H; dims[1].stride = W; dims[1].flags = 0;
    return b;
}

int main(void) {
    printf("layout %d %d %d %d %d %d\n", (int)sizeof(void *), (int)offsetof(loom_buffer_t, host),
           (int)offsetof(loom_buffer_t, flags), (int)offsetof(loom_buffer_t, type), (int)offsetof(loom_buffer_t, dim),
           (int)sizeof(loom_buffer_t));
    const loom_type_t u8 = {loom_type_uint, 8, 1}, i32 = {loom_type_int, 32, 1};
    loom_dimension_t d_in[2], d_bright[2], d_mixed[2];
    loom_buffer_t in = make_buffer(u8, 1, d_in);
    loom_buffer_t bright = make_buffer(u8, 1, d_bright);
    loom_buffer_t mixed_out = make_buffer(i32, 4, d_mixed);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) in.host[x + y * W] = (uint8_t)((x * 7 + y * 13) % 251);

    printf("brighten %d\n", brighten(&in, 3, -20, &bright));
    for (int i = 0; i < W * H; i++) printf("%d\n", bright.host[i]);

    uint8_t offset = OFFSET;
    int64_t big = BIG;
    double scale = SCALE;
    int16_t neg = NEG;
    void *args[] = {&in, &offset, &big, &scale, &neg, &mixed_out};
    printf("mixed %d\n", mixed_argv(args));
    for (int i = 0; i < W * H; i++) printf("%d\n", ((int32_t *)mixed_out.host)[i]);

    /* A bounds query: the input's host pointer is NULL. */
    loom_dimension_t d_query[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    loom_buffer_t query = in;
    query.host = NULL;
    query.dim = d_query;
    int rc = mixed(&query, OFFSET, BIG, SCALE, NEG, &mixed_out);
    printf("query %d %d %d %d %d %d\n", rc, d_query[0].min, d_query[0].extent, d_query[1].min, d_query[1].extent,
           d_query[1].stride);

    /* An input one column short: an error code and a message, no crash. */
    loom_set_error_handler(on_error);
    d_in[0].extent = W - 1;
    rc = mixed(&in, OFFSET, BIG, SCALE, NEG, &mixed_out);
    printf("too small %d: %s\n", rc, last_error);

    const loom_pipeline_metadata_t *m = mixed_metadata();
    printf("metadata %s %s %d", m->name, m->target, m->num_arguments);
    for (int i = 0; i < m->num_arguments; i++) printf(" %s:%d", m->arguments[i].name, m->arguments[i].type.bits);
    printf("\n");
    return 0;
}
)";


/** Compiles brighten.a/.h and mixed.a/.h for `target` into `dir` and writes
 * main.c. */
inline void write_main_program(const ScratchDir &dir, const loom::Target &target) {
    BrightenPipeline b;
    b.out.compile_to_static_library(dir.file("brighten"), b.args(), "brighten", target);
    MixedPipeline m;
    m.out.compile_to_static_library(dir.file("mixed"), m.args(), "mixed", target);
    std::ostringstream defines;
    defines << "#include <stdint.h>\n#define W " << kMixedW << "\n#define H " << kMixedH << "\n#define OFFSET "
            << kMixedOffset << "\n#define BIG " << kMixedBig << "LL\n#define SCALE " << kMixedScale << "\n#define NEG "
            << kMixedNeg << "\n";
    write_file(dir.file("main.c"), defines.str() + kMainProgram);
}

/** Where the C compiler of the target put loom_buffer_t's fields. */
struct BufferLayout {
    int pointer_bytes, host, flags, type, dim, size;
};

/** Checks what main.c printed: the layout, every value against the C++
 * references, the bounds query, the error message and the metadata. */
inline void check_main_program_output(const std::string &output, const BufferLayout &want,
                                      const std::string &target_name) {
    std::istringstream out(output);
    std::string word, line;
    BufferLayout got{};
    out >> word >> got.pointer_bytes >> got.host >> got.flags >> got.type >> got.dim >> got.size;
    ASSERT_EQ(word, "layout") << output;
    // What the generated code assumed (test/codegen/ThirtyTwoBitTargetTest.cpp) is the C layout.
    EXPECT_EQ(got.pointer_bytes, want.pointer_bytes);
    EXPECT_EQ(got.host, want.host);
    EXPECT_EQ(got.flags, want.flags);
    EXPECT_EQ(got.type, want.type);
    EXPECT_EQ(got.dim, want.dim);
    EXPECT_EQ(got.size, want.size);

    int rc = -1;
    out >> word >> rc;
    ASSERT_EQ(word, "brighten") << output;
    EXPECT_EQ(rc, 0);
    int mismatches = 0;
    for (int y = 0; y < kMixedH; y++) {
        for (int x = 0; x < kMixedW; x++) {
            int v = -1;
            out >> v;
            if (v != BrightenPipeline::reference(mixed_input_value(x, y), 3, -20) && mismatches++ < 5) {
                ADD_FAILURE() << "brighten(" << x << ", " << y << ") = " << v;
            }
        }
    }
    out >> word >> rc;
    ASSERT_EQ(word, "mixed") << output;
    EXPECT_EQ(rc, 0);
    for (int y = 0; y < kMixedH; y++) {
        for (int x = 0; x < kMixedW; x++) {
            int64_t v = -1;
            out >> v;
            const int32_t want_value =
                MixedPipeline::reference(mixed_input_value(x, y), x, kMixedOffset, kMixedBig, kMixedScale, kMixedNeg);
            if (v != want_value && mismatches++ < 10) {
                ADD_FAILURE() << "mixed(" << x << ", " << y << ") = " << v << ", not " << want_value;
            }
        }
    }
    EXPECT_EQ(mismatches, 0);
    std::getline(out, line);  // the end of the last value's line

    std::getline(out, line);
    EXPECT_EQ(line, "query 0 0 " + std::to_string(kMixedW) + " 0 " + std::to_string(kMixedH) + " " +
                        std::to_string(kMixedW));
    std::getline(out, line);
    EXPECT_EQ(line, "too small -4: Input buffer in is accessed at 36, which is beyond the max (35) in dimension 0.");
    std::getline(out, line);
    EXPECT_EQ(line, "metadata mixed " + target_name + " 6 in:8 offset:8 big:64 scale:64 neg:16 mixed:32");
}

inline const char *kFeaturesProgram = R"(
#include <stdio.h>
#include <stdlib.h>
#include "async.h"
#include "traced.h"

int main(void) {
    enum { W = 40, H = 24 };
    loom_dimension_t d_in[2] = {{0, W + 1, 1, 0}, {0, H, W + 1, 0}}, d_out[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    loom_buffer_t in = {0}, out = {0};
    int32_t *in_host = (int32_t *)malloc(sizeof(int32_t) * (W + 1) * H), *out_host = (int32_t *)malloc(sizeof(int32_t) * W * H);
    for (int i = 0; i < (W + 1) * H; i++) in_host[i] = i % 97;
    in.host = (uint8_t *)in_host; in.type.code = loom_type_int; in.type.bits = 32; in.type.lanes = 1;
    in.dimensions = 2; in.dim = d_in;
    out.host = (uint8_t *)out_host; out.type = in.type; out.dimensions = 2; out.dim = d_out;
    int rc = async_producer(&in, &out);
    int wrong = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (out_host[x + y * W] != 3 * in_host[x + y * (W + 1)] + 3 * in_host[x + 1 + y * (W + 1)]) wrong++;
    printf("async %d wrong %d\n", rc, wrong);
    fflush(stdout);

    loom_dimension_t d_t[1] = {{0, 4, 1, 0}};
    int32_t t_host[4];
    loom_buffer_t t = {0};
    t.host = (uint8_t *)t_host; t.type = in.type; t.dimensions = 1; t.dim = d_t;
    for (int run = 0; run < 2; run++) {
        rc = traced(10, &t);
        fflush(stdout);
        printf("traced %d %d %d %d %d\n", rc, t_host[0], t_host[1], t_host[2], t_host[3]);
    }
    return 0;
}
)";


/** Compiles async.a/.h (a producer per tile, async with a ring buffer of
 * two hoisted slots) and traced.a/.h (memoize, trace_stores, the profile
 * feature) for `target` into `dir` and writes main.c. */
inline void write_features_program(const ScratchDir &dir, const loom::Target &target) {
    using namespace loom;
    {
        ImageParam in(Int(32), 2, "in");
        Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        Func p("p"), c("c");
        p(x, y) = in(x, y) * 3;
        c(x, y) = p(x, y) + p(x + 1, y);
        c.tile(x, y, xo, yo, xi, yi, 8, 8);
        p.compute_at(c, xo).hoist_storage(c, yo).async().ring_buffer(2);
        c.compile_to_static_library(dir.file("async"), {in}, "async_producer", target);
    }
    {
        Param<int> k("k");
        Var x("x");
        Func m("m"), o("o");
        m(x) = x * 5 + k;
        m.compute_root().memoize();
        o(x) = m(x) * 2;
        o.trace_stores();
        o.compile_to_static_library(dir.file("traced"), {k}, "traced", target.with_feature(Target::Profile));
    }
    write_file(dir.file("main.c"), kFeaturesProgram);
}

inline void check_features_program_output(const std::string &o) {
    EXPECT_NE(o.find("async 0 wrong 0\n"), std::string::npos) << o;
    // Each run traces its four stores, then prints the values (10 + 5x) * 2.
    const std::string run = "Store o.0(0) = 20\nStore o.0(1) = 30\nStore o.0(2) = 40\nStore o.0(3) = 50\n"
                            "End pipeline o.0()\ntraced 0 20 30 40 50\n";
    const size_t first = o.find(run);
    EXPECT_NE(first, std::string::npos) << o;
    EXPECT_NE(o.find(run, first + run.size()), std::string::npos) << o;
    // The profiler's report at exit: two runs, m's allocations counted.
    EXPECT_NE(o.find("traced\n total time:"), std::string::npos) << o;
    EXPECT_NE(o.find("runs: 2"), std::string::npos) << o;
    EXPECT_NE(o.find("  m: "), std::string::npos) << o;
}

}  // namespace loom_test

#endif
