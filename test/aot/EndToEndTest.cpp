// Ahead-of-time end to end: two pipelines compiled to static libraries, used
// from a plain C program (compiled with cc at test time) that includes both
// headers, fills loom_buffer_t by hand and links both libraries with only
// -lpthread -ldl -lm. Its output is compared with a plain C++ reference.
// Then the error paths: bad arguments return negative codes and reach a
// replaced error handler (or stderr by default) without aborting.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "AotPipelines.h"
#include "AotTestSupport.h"

using namespace loom;
using namespace loom_test;

namespace {

constexpr int W = 37, H = 19;

// Shared by the C program and the reference.
const char *kInputFormulas = R"(
static uint8_t brighten_input(int x, int y) { return (uint8_t)((x * 7 + y * 13) % 256); }
static float blur_input(int x, int y) { return (float)(((x + 1) * 31 + (y + 1) * 17) % 100) / 10.0f; }
)";
uint8_t brighten_input(int x, int y) { return (uint8_t)((x * 7 + y * 13) % 256); }
float blur_input(int x, int y) { return (float)(((x + 1) * 31 + (y + 1) * 17) % 100) / 10.0f; }

const char *kMainProgram = R"(
#include <stdio.h>
#include <stdlib.h>
#include "brighten.h"
#include "blur.h"

static loom_buffer_t make_buffer(loom_type_t type, int bytes, int min_x, int w, int min_y, int h,
                                 loom_dimension_t *dims) {
    loom_buffer_t b = {0};
    b.host = (uint8_t *)calloc((size_t)(w * h), (size_t)bytes);
    b.type = type;
    b.dimensions = 2;
    b.dim = dims;
    dims[0].min = min_x; dims[0].extent = w; dims[0].stride = 1; dims[0].flags = 0;
    dims[1].min = min_y; dims[1].extent = h; dims[1].stride = w; dims[1].flags = 0;
    return b;
}

int main(void) {
    const loom_type_t u8 = {loom_type_uint, 8, 1}, f32 = {loom_type_float, 32, 1}, i32 = {loom_type_int, 32, 1};
    loom_dimension_t d_in[2], d_out[2], d_image[2], d_blur[2], d_p0[2], d_p1[2];
    loom_buffer_t in = make_buffer(u8, 1, 0, W, 0, H, d_in);
    loom_buffer_t out = make_buffer(u8, 1, 0, W, 0, H, d_out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) in.host[x + y * W] = brighten_input(x, y);
    int rc = brighten(&in, 3, -20, &out);
    printf("brighten %d\n", rc);
    for (int i = 0; i < W * H; i++) printf("%d\n", out.host[i]);

    /* The blur reads one pixel beyond the output on every side. */
    loom_buffer_t image = make_buffer(f32, 4, -1, W + 2, -1, H + 2, d_image);
    float *image_host = (float *)image.host;
    for (int y = -1; y <= H; y++)
        for (int x = -1; x <= W; x++) image_host[(x + 1) + (y + 1) * (W + 2)] = blur_input(x, y);
    loom_buffer_t blurred = make_buffer(f32, 4, 0, W, 0, H, d_blur);
    loom_buffer_t p0 = make_buffer(f32, 4, 0, W, 0, H, d_p0);
    loom_buffer_t p1 = make_buffer(i32, 4, 0, W, 0, H, d_p1);
    float weight = 0.5f;
    void *argv[] = {&image, &weight, &blurred, &p0, &p1};
    rc = blur_argv(argv);
    printf("blur %d\n", rc);
    for (int i = 0; i < W * H; i++)
        printf("%.9g %.9g %d\n", ((float *)blurred.host)[i], ((float *)p0.host)[i], ((int32_t *)p1.host)[i]);

    const loom_pipeline_metadata_t *m = blur_metadata();
    printf("metadata %d %d %s %s\n", m->version, m->num_arguments, m->name, m->target);
    for (int i = 0; i < m->num_arguments; i++) {
        const loom_argument_info_t *a = &m->arguments[i];
        printf("argument %s %d %d %d %d %d\n", a->name, a->kind, a->dimensions, a->type.code, a->type.bits,
               a->type.lanes);
    }
    printf("threads %d\n", loom_get_num_threads());
    return 0;
}
)";

struct Compiled {
    ScratchDir dir;
    std::string program;  // path of the linked executable, "" on failure
    std::string log;
};

/** Compiles both pipelines to static libraries in a new directory and builds
 * `main_source` (C) against them. */
void build_program(Compiled &c, const std::string &main_source) {
    BrightenPipeline b;
    b.out.compile_to_static_library(c.dir.file("brighten"), b.args(), "brighten");
    BlurPipeline blur;
    blur.pipeline().compile_to_static_library(c.dir.file("blur"), blur.args(), "blur");
    std::string source = "#include <stdint.h>\n#define W " + std::to_string(W) + "\n#define H " + std::to_string(H) +
                         "\n" + kInputFormulas + main_source;
    write_file(c.dir.file("main.c"), source);
    const std::string exe = c.dir.file("main");
    CommandResult r = run_command("cd '" + c.dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c brighten.a blur.a "
                                  "-lpthread -ldl -lm 2>&1");
    c.log = r.output;
    if (r.exit_code == 0) c.program = exe;
}

TEST(AotEndToEnd, TwoLibrariesInOneCProgramMatchTheReference) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    Compiled c;
    build_program(c, kMainProgram);
    ASSERT_FALSE(c.program.empty()) << c.log;
    if (have_tool("ldd")) {
        // Self-contained: neither libLoom nor the C++ library is needed.
        const std::string libraries = run_command("ldd '" + c.program + "' 2>&1").output;
        EXPECT_EQ(libraries.find("libLoom"), std::string::npos) << libraries;
        EXPECT_EQ(libraries.find("libstdc++"), std::string::npos) << libraries;
        EXPECT_EQ(libraries.find("libLLVM"), std::string::npos) << libraries;
    }
    CommandResult run = run_command("LOOM_NUM_THREADS=3 '" + c.program + "' 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    std::istringstream out(run.output);

    std::string word;
    int rc = 1;
    out >> word >> rc;
    ASSERT_EQ(word, "brighten");
    ASSERT_EQ(rc, 0) << run.output.substr(0, 400);
    int mismatches = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int v = -1;
            out >> v;
            if (v != BrightenPipeline::reference(brighten_input(x, y), 3, -20) && mismatches++ < 5) {
                ADD_FAILURE() << "brighten(" << x << ", " << y << ") = " << v;
            }
        }
    }

    out >> word >> rc;
    ASSERT_EQ(word, "blur");
    ASSERT_EQ(rc, 0);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float blurred = 0, doubled = 0;
            int as_int = 0;
            out >> blurred >> doubled >> as_int;
            auto bx = [](int x, int y) { return (blur_input(x - 1, y) + blur_input(x, y) + blur_input(x + 1, y)) / 3.0f; };
            const float expected = (bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) / 3.0f * 0.5f;
            if (std::fabs(blurred - expected) > 1e-5f && mismatches++ < 5) {
                ADD_FAILURE() << "blur_y(" << x << ", " << y << ") = " << blurred << ", expected " << expected;
            }
            if (doubled != blur_input(x, y) * 2.0f && mismatches++ < 5) ADD_FAILURE() << "pair.0 at " << x << "," << y;
            if (as_int != (int)blur_input(x, y) + x && mismatches++ < 5) ADD_FAILURE() << "pair.1 at " << x << "," << y;
        }
    }
    EXPECT_EQ(mismatches, 0);

    int version = 0, count = 0;
    std::string name, target;
    out >> word >> version >> count >> name >> target;
    EXPECT_EQ(word, "metadata");
    EXPECT_EQ(version, 1);
    EXPECT_EQ(count, 5);
    EXPECT_EQ(name, "blur");
    EXPECT_EQ(target, get_target_from_environment().to_string());
    const char *expected_arguments[] = {"image 1 2 2 32 1", "weight 0 0 2 32 1", "blur_y 2 2 2 32 1",
                                        "pair.0 2 2 2 32 1", "pair.1 2 2 0 32 1"};
    std::string line;
    std::getline(out, line);
    for (const char *expected : expected_arguments) {
        std::getline(out, line);
        EXPECT_EQ(line, std::string("argument ") + expected);
    }
    int threads = 0;
    out >> word >> threads;
    EXPECT_EQ(word, "threads");
    EXPECT_EQ(threads, 3) << "LOOM_NUM_THREADS is honoured by the embedded runtime";
}

const char *kErrorProgram = R"(
#include <stdio.h>
#include <string.h>
#include "brighten.h"
#include "blur.h"

static char last_message[2048];
static int messages = 0;
static void remember(void *user_context, const char *message) {
    (void)user_context;
    messages++;
    strncpy(last_message, message, sizeof last_message - 1);
}

static uint8_t pixels[64 * 64];
static float floats[64 * 64];

static void report(const char *what, int rc) {
    printf("%s rc=%d messages=%d message=%s\n", what, rc, messages, last_message);
    messages = 0;
    last_message[0] = 0;
}

int main(void) {
    loom_dimension_t d_in[2] = {{0, 16, 1, 0}, {0, 16, 16, 0}};
    loom_dimension_t d_out[2] = {{0, 16, 1, 0}, {0, 16, 16, 0}};
    loom_buffer_t in = {0}, out = {0};
    in.host = pixels; in.type.code = loom_type_uint; in.type.bits = 8; in.type.lanes = 1;
    in.dimensions = 2; in.dim = d_in;
    out = in; out.dim = d_out; out.host = pixels + 256;

    /* Before a handler is installed: the default handler writes to stderr. */
    in.dimensions = 1;
    report("default", brighten(&in, 1, 0, &out));
    in.dimensions = 2;

    loom_set_error_handler(&remember);
    in.dimensions = 1;
    report("rank", brighten(&in, 1, 0, &out));
    in.dimensions = 2;

    in.type.code = loom_type_float; in.type.bits = 32;
    report("type", brighten(&in, 1, 0, &out));
    in.type.code = loom_type_uint; in.type.bits = 8;

    d_in[0].extent = 8;  /* the output needs 16 columns of input */
    report("small", brighten(&in, 1, 0, &out));
    d_in[0].extent = 16;

    out.host = NULL;
    report("nullhost", brighten(&in, 1, 0, &out));
    out.host = pixels + 256;

    report("nullbuffer", brighten(&in, 1, 0, NULL));

    loom_dimension_t d_image[2] = {{-1, 18, 1, 0}, {-1, 18, 18, 0}};
    loom_dimension_t d_f[2] = {{0, 16, 1, 0}, {0, 16, 16, 0}};
    loom_buffer_t image = {0}, f0 = {0}, f1 = {0}, i1 = {0};
    image.host = (uint8_t *)floats; image.type.code = loom_type_float; image.type.bits = 32; image.type.lanes = 1;
    image.dimensions = 2; image.dim = d_image;
    f0 = image; f0.dim = d_f; f0.host = (uint8_t *)(floats + 400);
    f1 = f0; f1.host = (uint8_t *)(floats + 800);
    i1 = f0; i1.host = (uint8_t *)(floats + 1200); i1.type.code = loom_type_int;
    d_image[1].extent = 10;  /* rows beyond 8 are missing */
    report("blur_small", blur(&image, 1.0f, &f0, &f1, &i1));
    d_image[1].extent = 18;
    report("blur_ok", blur(&image, 1.0f, &f0, &f1, &i1));

    report("ok", brighten(&in, 1, 0, &out));
    printf("done\n");
    return 0;
}
)";

TEST(AotEndToEnd, BadArgumentsReturnCodesAndReachTheErrorHandler) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    Compiled c;
    build_program(c, kErrorProgram);
    ASSERT_FALSE(c.program.empty()) << c.log;
    CommandResult run = run_command("'" + c.program + "' 2>'" + c.dir.file("stderr.txt") + "'");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    std::map<std::string, std::string> lines;
    std::istringstream out(run.output);
    std::string line;
    while (std::getline(out, line)) lines[line.substr(0, line.find(' '))] = line;

    EXPECT_EQ(lines["default"], "default rc=-3 messages=0 message=");
    const std::string err = read_file(c.dir.file("stderr.txt"));
    EXPECT_EQ(err, "Error: Input buffer input has 1 dimensions, but the pipeline expects 2.\n");

    EXPECT_EQ(lines["rank"], "rank rc=-3 messages=1 message=Input buffer input has 1 dimensions, but the pipeline "
                             "expects 2.");
    EXPECT_EQ(lines["type"].rfind("type rc=-2 messages=1 message=Input buffer input has type code 2 with 32 bits", 0),
              0u)
        << lines["type"];
    EXPECT_EQ(lines["small"].rfind("small rc=-4 messages=1 message=Input buffer input is accessed at 15", 0), 0u)
        << lines["small"];
    // An output without host memory is a bounds query (as in Halide): it
    // says what the pipeline writes, here the region asked for, and computes
    // nothing.
    EXPECT_EQ(lines["nullhost"], "nullhost rc=0 messages=0 message=");
    EXPECT_EQ(lines["nullbuffer"], "nullbuffer rc=-7 messages=1 message=Output buffer brighten is NULL.");
    EXPECT_EQ(lines["blur_small"].rfind("blur_small rc=-4 messages=1 message=Input buffer image is accessed at", 0),
              0u)
        << lines["blur_small"];
    EXPECT_EQ(lines["blur_ok"], "blur_ok rc=0 messages=0 message=");
    EXPECT_EQ(lines["ok"], "ok rc=0 messages=0 message=");
    EXPECT_EQ(lines["done"], "done");
}

// The runtime inside a library is hidden: a shared object made from one
// exports the pipeline's functions and nothing of the runtime.
TEST(AotEndToEnd, SharedObjectFromALibraryExportsOnlyThePipeline) {
    ASSERT_TRUE(have_tool("cc") && have_tool("nm")) << kToolsHint;
    ScratchDir dir;
    BrightenPipeline b;
    b.out.compile_to_static_library(dir.file("brighten"), b.args(), "brighten");
    CommandResult link = run_command("cd '" + dir.path() + "' && cc -shared -o libbrighten.so -Wl,--whole-archive "
                                     "brighten.a -Wl,--no-whole-archive -lpthread -lm 2>&1");
    ASSERT_EQ(link.exit_code, 0) << link.output;
    const std::string exported = run_command("nm -D --defined-only '" + dir.file("libbrighten.so") + "' 2>&1").output;
    EXPECT_NE(exported.find(" T brighten\n"), std::string::npos) << exported;
    EXPECT_NE(exported.find(" T brighten_argv\n"), std::string::npos) << exported;
    EXPECT_NE(exported.find(" T brighten_metadata\n"), std::string::npos) << exported;
    EXPECT_EQ(exported.find("loom_"), std::string::npos) << exported;
}

}  // namespace
