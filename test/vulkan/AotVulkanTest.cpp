// A pipeline with GPU schedules compiled ahead of time for host-vulkan: the
// static library embeds its kernels' SPIR-V and the Vulkan runtime, and a
// plain C program (compiled with cc at test time) calls it, linking nothing
// beyond -lpthread -ldl -lm.

#include "aot/AotTestSupport.h"
#include "vulkan/VulkanTestUtil.h"

using namespace loom;

namespace {

const char *kProgram = R"(
#include <stdio.h>
#include <stdlib.h>
#include "gpu_scale.h"

int main(void) {
    enum { W = 37, H = 19 };
    static int32_t in_data[W * H], out_data[W * H];
    for (int i = 0; i < W * H; i++) in_data[i] = i * 3 - 500;
    loom_dimension_t in_dims[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    loom_dimension_t out_dims[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    loom_buffer_t in = {0}, out = {0};
    in.host = (uint8_t *)in_data;
    in.type.code = loom_type_int; in.type.bits = 32; in.type.lanes = 1;
    in.dimensions = 2; in.dim = in_dims;
    out = in;
    out.host = (uint8_t *)out_data;
    out.dim = out_dims;
    int offset = 11;
    int err = gpu_scale(&in, offset, &out);
    if (err != 0) { printf("pipeline failed: %d\n", err); return 1; }
    if (!(out.flags & loom_buffer_flag_device_dirty)) { printf("output not device-dirty\n"); return 1; }
    err = loom_copy_to_host(NULL, &out);
    if (err != 0) { printf("copy_to_host failed: %d\n", err); return 1; }
    int bad = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int expected = in_data[y * W + x] * 2 + offset + x;
            if (out_data[y * W + x] != expected && bad++ < 5) {
                printf("at (%d, %d): expected %d, got %d\n", x, y, expected, out_data[y * W + x]);
            }
        }
    }
    loom_device_free(NULL, &in);
    loom_device_free(NULL, &out);
    loom_device_release(NULL, loom_vulkan_device_interface());
    printf("%d mismatches\n", bad);
    return bad != 0;
}
)";

TEST(AotVulkan, CProgramCallsAVulkanStaticLibrary) {
    LOOM_REQUIRE_VULKAN();
    ASSERT_TRUE(loom_test::have_tool("cc")) << loom_test::kToolsHint;
    loom_test::ScratchDir dir;
    ASSERT_FALSE(dir.path().empty());

    ImageParam input(Int(32), 2, "input");
    Param<int> offset("offset");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func f("gpu_scale");
    f(x, y) = input(x, y) * 2 + offset + x;
    f.gpu_tile(x, y, xi, yi, 8, 8);
    f.compile_to_static_library(dir.file("gpu_scale"), {input, offset}, "gpu_scale", Target("x86-64-linux-vulkan"));

    loom_test::write_file(dir.file("main.c"), kProgram);
    loom_test::CommandResult build = loom_test::run_command("cc -std=c99 -o " + dir.file("main") + " " +
                                                            dir.file("main.c") + " -I" + dir.path() + " " +
                                                            dir.file("gpu_scale.a") + " -lpthread -ldl -lm 2>&1");
    ASSERT_EQ(build.exit_code, 0) << build.output;
    loom_test::CommandResult run = loom_test::run_command(dir.file("main") + " 2>&1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("0 mismatches"), std::string::npos) << run.output;
}

TEST(AotVulkan, AssemblyListsTheKernelsSpirv) {
    loom_test::ScratchDir dir;
    Var x("x"), xi("xi");
    Func f("gpu_iota");
    f(x) = x * 5;
    f.gpu_tile(x, xi, 16);
    f.compile_to_assembly(dir.file("gpu_iota.s"), {}, "gpu_iota", Target("x86-64-linux-vulkan"));
    std::string text = loom_test::read_file(dir.file("gpu_iota.s"));
    EXPECT_NE(text.find("SPIR-V of GPU kernel"), std::string::npos);
    EXPECT_NE(text.find("OpEntryPoint GLCompute"), std::string::npos);
    EXPECT_NE(text.find("loom_vulkan_run"), std::string::npos);
}

}  // namespace
