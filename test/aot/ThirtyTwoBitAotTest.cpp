// 32-bit targets ahead of time. x86-32 Linux static libraries are linked
// into a 32-bit C program (clang -m32 against Debian's i386 glibc,
// libc6-dev-i386) and run on this x86-64 machine: buffer fields, narrow,
// 64-bit and double scalars, 64-bit division (libgcc), heap allocations,
// parallel loops, vectors, errors, bounds queries, NAME_argv and metadata,
// compared with C++ references; async, memoize, tracing and profiling. ARM-32 Linux libraries and the objects of
// Halide's lesson 11 (arm-32-android, arm-32-ios-armv7s) cannot run here:
// their headers, build attributes and disassembled loops are checked.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "AotPipelines.h"
#include "AotTestSupport.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int W = 37, H = 19;

uint8_t input_value(int x, int y) { return (uint8_t)((x * 7 + y * 13) % 251); }

/** A pipeline of the things 32-bit code generation can get wrong: a uint8,
 * an int16, an int64 and a double scalar, 64-bit division, a heap
 * allocation (tmp, compute_root), vectors and a parallel loop. */
struct MixedPipeline {
    ImageParam in{UInt(8), 2, "in"};
    Param<uint8_t> offset{"offset"};
    Param<int64_t> big{"big"};
    Param<double> scale{"scale"};
    Param<int16_t> neg{"neg"};
    Func tmp{"tmp"}, out{"mixed"};

    MixedPipeline() {
        Var x("x"), y("y");
        tmp(x, y) = cast<int64_t>(in(x, y)) * big / 7 + x;
        out(x, y) = cast<int32_t>(floor(sqrt(cast<double>(tmp(x, y)) * scale))) + cast<int32_t>(neg) +
                    cast<int32_t>(offset);
        tmp.compute_root().vectorize(x, 4);
        out.vectorize(x, 8).parallel(y);
    }
    std::vector<Argument> args() const { return {in, offset, big, scale, neg}; }

    static int32_t reference(uint8_t v, int x, int offset, int64_t big, double scale, int neg) {
        const int64_t t = int64_t(v) * big / 7 + x;  // positive: C's division is Euclidean here
        return (int32_t)std::floor(std::sqrt((double)t * scale)) + neg + offset;
    }
};

constexpr int kOffset = 200, kNeg = -3;
constexpr int64_t kBig = 5000000000LL;  // needs 64 bits
constexpr double kScale = 0.25;

const char *kMainProgram = R"(
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

std::string clang() { return find_tool({"clang-19", "clang"}); }
std::string objdump() { return find_tool({"llvm-objdump-19", "llvm-objdump"}); }
std::string readelf() { return find_tool({"llvm-readelf-19", "llvm-readelf"}); }
std::string nm() { return find_tool({"llvm-nm-19", "llvm-nm"}); }

// clang -m32 links through gcc's 32-bit crtbegin and libgcc (lib32gcc-12-dev,
// which pulls in the x32 libraries as well); glibc's own start files, libc
// and the shared libgcc_s that libc6-i386 and lib32gcc-s1 install suffice.
std::string link_32bit_command(const std::string &objects, const std::string &exe) {
    return clang() + " -m32 -no-pie -nostdlib /usr/lib32/crt1.o /usr/lib32/crti.o " + objects +
           " -L/usr/lib32 -lc -lm -lpthread /usr/lib32/libgcc_s.so.1 /usr/lib32/crtn.o -o " + exe + " 2>&1";
}

constexpr const char *k32BitHint =
    "a 32-bit x86 C program could not be built: clang-19 and Debian's i386 glibc (libc6-dev-i386) are needed; "
    "scripts/setup.sh installs them";

TEST(ThirtyTwoBitAot, X86StaticLibrariesRunInA32BitProgram) {
    ASSERT_FALSE(clang().empty()) << k32BitHint;
    ScratchDir dir;
    const Target target("x86-32-linux");
    BrightenPipeline b;
    b.out.compile_to_static_library(dir.file("brighten"), b.args(), "brighten", target);
    MixedPipeline m;
    m.out.compile_to_static_library(dir.file("mixed"), m.args(), "mixed", target);

    std::ostringstream defines;
    defines << "#include <stdint.h>\n#define W " << W << "\n#define H " << H << "\n#define OFFSET " << kOffset
            << "\n#define BIG " << kBig << "LL\n#define SCALE " << kScale << "\n#define NEG " << kNeg << "\n";
    write_file(dir.file("main.c"), defines.str() + kMainProgram);
    CommandResult built = run_command("cd '" + dir.path() + "' && " + clang() +
                                      " -m32 -std=c11 -O1 -Wall -Werror -c main.c -o main.o 2>&1 && " +
                                      link_32bit_command("main.o brighten.a mixed.a", "main"));
    ASSERT_EQ(built.exit_code, 0) << k32BitHint << "\n" << built.output;
    const std::string header = run_command(readelf() + " -h '" + dir.file("main") + "' 2>&1").output;
    EXPECT_NE(header.find("ELF32"), std::string::npos) << header;
    EXPECT_NE(header.find("Intel 80386"), std::string::npos) << header;

    CommandResult ran = run_command("LOOM_NUM_THREADS=4 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(ran.exit_code, 0) << ran.output;
    std::istringstream out(ran.output);
    std::string word, line;
    int pointer_bytes = 0, host = 0, flags = 0, type = 0, dim = 0, size = 0;
    out >> word >> pointer_bytes >> host >> flags >> type >> dim >> size;
    ASSERT_EQ(word, "layout") << ran.output;
    // What the generated code assumed (test/codegen/ThirtyTwoBitTargetTest.cpp) is the C layout.
    EXPECT_EQ(pointer_bytes, 4);
    EXPECT_EQ(host, 12);
    EXPECT_EQ(flags, 16);
    EXPECT_EQ(type, 24);
    EXPECT_EQ(dim, 32);
    EXPECT_EQ(size, 40);

    int rc = -1;
    out >> word >> rc;
    ASSERT_EQ(word, "brighten");
    EXPECT_EQ(rc, 0);
    int mismatches = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int v = -1;
            out >> v;
            if (v != BrightenPipeline::reference(input_value(x, y), 3, -20) && mismatches++ < 5) {
                ADD_FAILURE() << "brighten(" << x << ", " << y << ") = " << v;
            }
        }
    }
    out >> word >> rc;
    ASSERT_EQ(word, "mixed");
    EXPECT_EQ(rc, 0);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int64_t v = -1;
            out >> v;
            const int32_t want = MixedPipeline::reference(input_value(x, y), x, kOffset, kBig, kScale, kNeg);
            if (v != want && mismatches++ < 10) ADD_FAILURE() << "mixed(" << x << ", " << y << ") = " << v << ", not " << want;
        }
    }
    EXPECT_EQ(mismatches, 0);
    std::getline(out, line);  // the end of the last value's line

    std::getline(out, line);
    EXPECT_EQ(line, "query 0 0 " + std::to_string(W) + " 0 " + std::to_string(H) + " " + std::to_string(W));
    std::getline(out, line);
    EXPECT_EQ(line, "too small -4: Input buffer in is accessed at 36, which is beyond the max (35) in dimension 0.");
    std::getline(out, line);
    EXPECT_EQ(line, "metadata mixed x86-32-linux 6 in:8 offset:8 big:64 scale:64 neg:16 mixed:32");
}

const char *kFeaturesProgram = R"(
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

// The runtime's other structs with pointers, on i386: Func::async (fork
// threads, semaphores on the stack), memoize (its cache), tracing (the
// loom_trace_event_t the generated code builds) and the profile feature
// (its per-run instance, reported at exit).
TEST(ThirtyTwoBitAot, X86RuntimeFeaturesRunInA32BitProgram) {
    ASSERT_FALSE(clang().empty()) << k32BitHint;
    ScratchDir dir;
    const Target target("x86-32-linux");
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
    CommandResult built = run_command("cd '" + dir.path() + "' && " + clang() +
                                      " -m32 -std=c11 -O1 -Wall -Werror -c main.c -o main.o 2>&1 && " +
                                      link_32bit_command("main.o async.a traced.a", "main"));
    ASSERT_EQ(built.exit_code, 0) << k32BitHint << "\n" << built.output;
    CommandResult ran = run_command("LOOM_NUM_THREADS=4 '" + dir.file("main") + "' 2>&1");
    ASSERT_EQ(ran.exit_code, 0) << ran.output;
    const std::string &o = ran.output;
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

// RuntimePlatform.h's freestanding declarations against i386 glibc's real
// headers (the hosted build checks x86-64's).
TEST(ThirtyTwoBitAot, FreestandingRuntimeDeclarationsMatchI386Glibc) {
    ASSERT_FALSE(clang().empty()) << k32BitHint;
    const std::string root = repository_root();
    CommandResult r = run_command(clang() + " -m32 -std=gnu11 -fsyntax-only -I'" + root + "/include' -I'" + root +
                                  "/src' '" + root + "/src/runtime/RuntimePlatformCheck.c' 2>&1");
    EXPECT_EQ(r.exit_code, 0) << k32BitHint << "\n" << r.output;
}

// arm-32-linux: an ARMv7 hard-float library with the runtime (weak, no
// libatomic calls) and NEON code for the vectorized loop.
TEST(ThirtyTwoBitAot, ArmLinuxStaticLibrary) {
    ASSERT_FALSE(objdump().empty() || readelf().empty() || nm().empty()) << kToolsHint;
    ScratchDir dir;
    BrightenPipeline b;
    b.out.compile_to_static_library(dir.file("brighten"), b.args(), "brighten", Target("arm-32-linux"));
    const std::string library = dir.file("brighten.a");
    const std::string header = run_command(readelf() + " -h '" + library + "' 2>&1").output;
    EXPECT_NE(header.find("ELF32"), std::string::npos) << header;
    EXPECT_NE(header.find("ARM"), std::string::npos) << header;
    const std::string attributes = run_command(readelf() + " --arch-specific '" + library + "' 2>&1").output;
    EXPECT_NE(attributes.find("AAPCS VFP"), std::string::npos) << attributes;  // hard-float arguments
    EXPECT_NE(attributes.find("NEON"), std::string::npos) << attributes;
    const std::string symbols = run_command(nm() + " '" + library + "' 2>&1").output;
    for (const char *s : {" T brighten\n", " T brighten_argv\n", " T brighten_metadata\n", " W loom_malloc\n",
                          " W loom_do_par_for\n"}) {
        EXPECT_NE(symbols.find(s), std::string::npos) << s << symbols;
    }
    EXPECT_EQ(symbols.find("__atomic"), std::string::npos) << symbols;
    const std::string code = run_command(objdump() + " -d '" + library + "' 2>&1").output;
    // vectorize(x, 8) of uint8 * int32: widening NEON arithmetic on q registers.
    EXPECT_NE(code.find("vmovl.u8"), std::string::npos) << code;
    EXPECT_NE(code.find("vst1.8"), std::string::npos) << code;
}

// Halide's lesson 11 compiles brighter(x, y) = input(x, y) + offset,
// vectorized by 16, for 32-bit ARM Android and iOS (armv7s) with
// compile_to_file, and checks the object headers.
TEST(ThirtyTwoBitAot, Lesson11ArmObjects) {
    ASSERT_FALSE(objdump().empty() || readelf().empty()) << kToolsHint;
    ScratchDir dir;
    Param<uint8_t> offset("offset");
    ImageParam input(UInt(8), 2, "input");
    Var x("x"), y("y");
    Func brighter("brighter");
    brighter(x, y) = input(x, y) + offset;
    brighter.vectorize(x, 16).parallel(y);
    const std::vector<Argument> args = {input, offset};

    Target android;
    android.os = Target::Android;
    android.arch = Target::ARM;
    android.bits = 32;
    brighter.compile_to_file(dir.file("android"), args, "brighter", android);
    const std::string elf = read_file(dir.file("android.o"));
    ASSERT_GE(elf.size(), 20u);
    EXPECT_EQ(elf.substr(0, 7), std::string("\x7f" "ELF\x01\x01\x01", 7));  // ELFCLASS32, little-endian
    EXPECT_EQ((uint8_t)elf[18], 40);                                        // e_machine EM_ARM
    const std::string attributes = run_command(readelf() + " --arch-specific '" + dir.file("android.o") + "'").output;
    EXPECT_EQ(attributes.find("AAPCS VFP"), std::string::npos) << attributes;  // armeabi-v7a: soft-float arguments
    const std::string android_code = run_command(objdump() + " -d '" + dir.file("android.o") + "' 2>&1").output;
    EXPECT_NE(android_code.find("vadd.i8\tq"), std::string::npos) << android_code;

    Target ios = android;
    ios.os = Target::IOS;
    ios.set_features({Target::ARMv7s});
    brighter.compile_to_file(dir.file("ios"), args, "brighter", ios);
    const std::string macho = read_file(dir.file("ios.o"));
    ASSERT_GE(macho.size(), 16u);
    uint32_t words[4];
    std::memcpy(words, macho.data(), sizeof words);
    EXPECT_EQ(words[0], 0xfeedfaceu);  // 32-bit Mach-O
    EXPECT_EQ(words[1], 12u);          // CPU_TYPE_ARM
    EXPECT_EQ(words[2], 11u);          // CPU_SUBTYPE_ARM_V7S
    EXPECT_EQ(words[3], 1u);           // MH_OBJECT
    // llvm-objdump does not take the CPU from a Mach-O subtype: name NEON.
    const std::string ios_code = run_command(objdump() + " -d --mattr=+neon '" + dir.file("ios.o") + "' 2>&1").output;
    EXPECT_NE(ios_code.find("vadd.i8\tq"), std::string::npos) << ios_code;
    EXPECT_NE(ios_code.find("_brighter_argv"), std::string::npos) << ios_code;

    // No Loom runtime exists for Android or iOS: a static library is refused
    // with the outputs that do work, and nothing is written.
    try {
        brighter.compile_to_static_library(dir.file("refused"), args, "brighter", android);
        ADD_FAILURE() << "compile_to_static_library for arm-32-android did not throw";
    } catch (const CompileError &e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("No Loom runtime for target arm-32-android"), std::string::npos) << m;
        EXPECT_NE(m.find("compile_to_file"), std::string::npos) << m;
    }
    EXPECT_FALSE(file_exists(dir.file("refused.a")));
    EXPECT_FALSE(file_exists(dir.file("refused.h")));
}

}  // namespace
