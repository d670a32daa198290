// Ahead of time, specializations and buffer constraints become error codes:
// a static library specialized on its input's stride (planar: dense fast
// path, interleaved: strided path, anything else: specialize_fail) and with
// a constrained output min is called from C with buffers that meet and that
// violate the constraints.

#include <gtest/gtest.h>

#include <sstream>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

const char *kProgram = R"(
#include <stdio.h>
#include "spec_aot.h"

enum { W = 11, H = 2, C = 3 };

/* rc, then the sum of out(x, y, c) * (1 + x + 7 y + 31 c) */
static void run(uint8_t *in_host, const loom_dimension_t *in_shape, int out_min) {
    const loom_type_t u8 = {loom_type_uint, 8, 1};
    uint8_t out_host[W * H * C];
    loom_dimension_t in_dim[3] = {in_shape[0], in_shape[1], in_shape[2]};
    loom_dimension_t out_dim[3] = {{out_min, W, 1, 0}, {0, H, W, 0}, {0, C, W * H, 0}};
    loom_buffer_t in = {0}, out = {0};
    in.host = in_host; in.type = u8; in.dimensions = 3; in.dim = in_dim;
    out.host = out_host; out.type = u8; out.dimensions = 3; out.dim = out_dim;
    int rc = spec_aot(&in, 5, &out);
    long sum = 0;
    if (rc == 0)
        for (int c = 0; c < C; c++)
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) sum += (long)out_host[x + W * y + W * H * c] * (1 + x + 7 * y + 31 * c);
    printf("%d %ld\n", rc, sum);
}

int main(void) {
    uint8_t image[W * H * C * 2];
    for (int i = 0; i < W * H * C * 2; i++) image[i] = (uint8_t)(i * 7 % 250);
    const loom_dimension_t planar[3] = {{0, W, 1, 0}, {0, H, W, 0}, {0, C, W * H, 0}};
    const loom_dimension_t interleaved[3] = {{0, W, C, 0}, {0, H, W * C, 0}, {0, C, 1, 0}};
    const loom_dimension_t every_other[3] = {{0, W, 2, 0}, {0, H, 2 * W, 0}, {0, C, 2 * W * H, 0}};
    run(image, planar, 0);
    run(image, interleaved, 0);
    run(image, every_other, 0);
    run(image, planar, 1);
    return 0;
}
)";

constexpr int W = 11, H = 2, C = 3;

long reference_sum(int sx, int sy, int sc) {
    long sum = 0;
    for (int c = 0; c < C; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int i = x * sx + y * sy + c * sc;
                int v = (uint8_t)(i * 7 % 250) + 5;
                sum += (long)(uint8_t)v * (1 + x + 7 * y + 31 * c);
            }
    return sum;
}

TEST(SpecializeAot, StrideSpecializationsAndConstraintsGiveErrorCodes) {
    ASSERT_TRUE(have_tool("cc")) << kToolsHint;
    ImageParam in(UInt(8), 3, "in");
    Param<uint8_t> offset("offset");
    Var x("x"), y("y"), c("c");
    in.dim(0).set_stride(Expr());
    Func f("spec_aot");
    f(x, y, c) = in(x, y, c) + offset;
    f.specialize(in.dim(0).stride() == 1).vectorize(x, 8);
    f.specialize(in.dim(0).stride() == 3);
    f.specialize_fail("the input must be planar or interleaved");
    f.output_buffer().dim(0).set_min(0);

    ScratchDir dir;
    f.compile_to_static_library(dir.file("spec_aot"), {in, offset}, "spec_aot");
    write_file(dir.file("main.c"), kProgram);
    CommandResult build =
        run_command("cd '" + dir.path() + "' && cc -std=c11 -O1 -Wall -o main main.c spec_aot.a -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    CommandResult run = run_command("timeout 60 '" + dir.file("main") + "' 2>/dev/null");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    std::istringstream out(run.output);
    int rc = 1;
    long sum = -1;
    out >> rc >> sum;
    EXPECT_EQ(rc, 0) << run.output;
    EXPECT_EQ(sum, reference_sum(1, W, W * H)) << "planar";
    out >> rc >> sum;
    EXPECT_EQ(rc, 0) << run.output;
    EXPECT_EQ(sum, reference_sum(C, W * C, 1)) << "interleaved";
    out >> rc >> sum;
    EXPECT_EQ(rc, loom_error_code_user_assertion) << "stride 2 reaches specialize_fail: " << run.output;
    out >> rc >> sum;
    EXPECT_EQ(rc, loom_error_code_bad_argument) << "output min 1 violates set_min(0): " << run.output;

    // The messages name what failed.
    CommandResult messages = run_command("timeout 60 '" + dir.file("main") + "' 2>&1 >/dev/null");
    EXPECT_NE(messages.output.find("the input must be planar or interleaved"), std::string::npos) << messages.output;
    EXPECT_NE(messages.output.find("Output buffer spec_aot has min 1 in dimension 0, but the pipeline requires min 0"),
              std::string::npos)
        << messages.output;
}

}  // namespace
