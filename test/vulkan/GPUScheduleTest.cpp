// GPU schedules run on Vulkan (lavapipe in CI), compared with plain C++
// loops and with the same pipeline on the CPU JIT: integers bit-exact.

#include <cmath>

#include "e2e/E2ETest.h"
#include "aot/AotTestSupport.h"
#include "lang/LangTestUtil.h"
#include "runtime/VulkanDebug.h"
#include "vulkan/VulkanTestUtil.h"

using namespace loom;
using loom_test::expect_buffer_eq;

namespace {

int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int euclid_mod(int a, int b) { return ((a % b) + b) % b; }

TEST(GPUSchedule, GpuTileMatchesReference) {
    LOOM_REQUIRE_VULKAN();
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    Func f("f");
    f(x, y) = (x * 7 - y * 3) / 4 + (x - y) % 5;
    f.gpu_tile(x, y, bx, by, tx, ty, 8, 4);
    Buffer<int> out = f.realize({37, 21}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        return floor_div(p[0] * 7 - p[1] * 3, 4) + euclid_mod(p[0] - p[1], 5);
    });
}

TEST(GPUSchedule, SameResultsAsCpu) {
    LOOM_REQUIRE_VULKAN();
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Buffer<int> input(40, 30);
    for (int j = 0; j < 30; j++) {
        for (int i = 0; i < 40; i++) input(i, j) = (i * 37 + j * 101) % 251 - 120;
    }
    auto build = [&](bool gpu) {
        Func clamped("clamped"), blur_x("blur_x"), blur_y("blur_y");
        clamped = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = clamped(x - 1, y) + 2 * clamped(x, y) + clamped(x + 1, y);
        blur_y(x, y) = (blur_x(x, y - 1) + 2 * blur_x(x, y) + blur_x(x, y + 1)) / 16;
        blur_x.compute_root();
        if (gpu) {
            blur_x.gpu_tile(x, y, xi, yi, 16, 8);
            blur_y.gpu_tile(x, y, xi, yi, 8, 8);
        }
        return blur_y;
    };
    Buffer<int> cpu = build(false).realize({40, 30}, loom_test::cpu_jit_target());
    Buffer<int> gpu = build(true).realize({40, 30}, loom_test::vulkan_jit_target());
    expect_buffer_eq(gpu, [&](const std::vector<int> &p) { return cpu(p[0], p[1]); });
}

TEST(GPUSchedule, MixedCpuAndGpuStages) {
    LOOM_REQUIRE_VULKAN();
    // CPU -> GPU -> CPU -> GPU: every hand-over copies through dirty bits.
    Var x("x"), xi("xi");
    Func a("a"), b("b"), c("c"), d("d");
    a(x) = x * 3;
    b(x) = a(x) + a(x + 1);
    c(x) = b(x) * 2 - b(x + 2);
    d(x) = c(x) + c(x + 1) + a(x);
    a.compute_root();
    b.compute_root().gpu_tile(x, xi, 16);
    c.compute_root();
    d.gpu_tile(x, xi, 32);
    Buffer<int> out = d.realize({100}, loom_test::vulkan_jit_target());
    auto A = [](int x) { return x * 3; };
    auto B = [&](int x) { return A(x) + A(x + 1); };
    auto C = [&](int x) { return B(x) * 2 - B(x + 2); };
    expect_buffer_eq(out, [&](const std::vector<int> &p) { return C(p[0]) + C(p[0] + 1) + A(p[0]); });
}

TEST(GPUSchedule, UpdateStageWithSerialReduction) {
    LOOM_REQUIRE_VULKAN();
    // Each thread runs its RDom loop serially.
    Var x("x"), y("y"), xi("xi"), yi("yi");
    RDom r(0, 5, "r");
    Func f("f");
    f(x, y) = x + y;
    f(x, y) += f(x, y) * r + (x ^ 0) * 0 + r;
    f.gpu_tile(x, y, xi, yi, 4, 4);
    // An update may not compute a point twice: guard the partial tiles.
    f.update(0).gpu_tile(x, y, xi, yi, 4, 4, TailStrategy::GuardWithIf);
    Buffer<int> out = f.realize({10, 9}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        int v = p[0] + p[1];
        for (int r = 0; r < 5; r++) v += v * r + r;
        return v;
    });
}

TEST(GPUSchedule, SharedMemoryAtBlockLevel) {
    LOOM_REQUIRE_VULKAN();
    // The producer is computed per workgroup into shared memory by the
    // workgroup's invocations, then read after a barrier.
    Var x("x"), xo("xo"), xi("xi");
    Func p("p"), c("c");
    p(x) = x * x - 3 * x;
    c(x) = p(x - 1) + p(x) + p(x + 1);
    c.split(x, xo, xi, 16).gpu_blocks(xo).gpu_threads(xi);
    p.compute_at(c, xo).split(x, xo, xi, 18).gpu_threads(xi);
    Buffer<int> out = c.realize({64}, loom_test::vulkan_jit_target());
    auto P = [](int x) { return x * x - 3 * x; };
    expect_buffer_eq(out, [&](const std::vector<int> &q) { return P(q[0] - 1) + P(q[0]) + P(q[0] + 1); });
}

TEST(GPUSchedule, RegistersAtThreadLevel) {
    LOOM_REQUIRE_VULKAN();
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func p("p"), c("c");
    p(x, y) = x * 2 + y;
    c(x, y) = p(x, y) * p(x, y) + p(x, y);
    c.gpu_tile(x, y, xi, yi, 8, 8);
    p.compute_at(c, xi);
    Buffer<int> out = c.realize({20, 12}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &q) {
        int v = q[0] * 2 + q[1];
        return v * v + v;
    });
}

TEST(GPUSchedule, SingleThread) {
    LOOM_REQUIRE_VULKAN();
    Var x("x");
    RDom r(1, 19, "r");
    Func scan("scan");
    scan(x) = x;
    scan(r) = scan(r - 1) + scan(r);  // a prefix sum: sequential
    scan.update(0).gpu_single_thread();
    Buffer<int> out = scan.realize({20}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &q) { return q[0] * (q[0] + 1) / 2; });
}

TEST(GPUSchedule, FloatMath) {
    LOOM_REQUIRE_VULKAN();
    Var x("x"), xi("xi");
    Func f("f");
    Expr v = cast<float>(x) * 0.25f - 3.0f;
    f(x) = sqrt(abs(v)) + sin(v) * cos(v) + exp(v * 0.1f) + floor(v) + select(v > 1.0f, v, -v);
    f.gpu_tile(x, xi, 32);
    Buffer<float> out = f.realize({64}, loom_test::vulkan_jit_target());
    for (int i = 0; i < 64; i++) {
        float w = float(i) * 0.25f - 3.0f;
        float expected = std::sqrt(std::fabs(w)) + std::sin(w) * std::cos(w) + std::exp(w * 0.1f) + std::floor(w) +
                         (w > 1.0f ? w : -w);
        EXPECT_NEAR(out(i), expected, 1e-4f * (1.0f + std::fabs(expected))) << "at " << i;
    }
}

TEST(GPUSchedule, ParamsAndNarrowScalars) {
    LOOM_REQUIRE_VULKAN();
    Param<int16_t> offset("offset");
    Param<float> scale("scale");
    Var x("x"), xi("xi");
    Func f("f");
    f(x) = cast<int>(cast<float>(x) * scale) + offset;
    f.gpu_tile(x, xi, 8);
    offset.set(-300);
    scale.set(2.5f);
    Buffer<int> out = f.realize({30}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &q) { return int(float(q[0]) * 2.5f) - 300; });
    // A new Param value does not recompile and is seen by the kernel.
    offset.set(7);
    out = f.realize({30}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &q) { return int(float(q[0]) * 2.5f) + 7; });
}

TEST(GPUSchedule, InputBufferReadAgainAfterHostChange) {
    LOOM_REQUIRE_VULKAN();
    Buffer<int> in(16);
    for (int i = 0; i < 16; i++) in(i) = i;
    Var x("x"), xi("xi");
    Func f("f");
    f(x) = in(x) * 10;
    f.gpu_tile(x, xi, 4);
    Buffer<int> out = f.realize({16}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &q) { return q[0] * 10; });
    for (int i = 0; i < 16; i++) in(i) = 100 - i;
    in.set_host_dirty();
    out = f.realize({16}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &q) { return (100 - q[0]) * 10; });
}

// ---------------------------------------------------------------- errors

TEST(GPUScheduleErrors, TargetWithoutGpuApi) {
    Var x("x"), xi("xi");
    Func f("f");
    f(x) = x;
    f.gpu_tile(x, xi, 8);
    EXPECT_COMPILE_ERROR(f.realize({16}, loom_test::cpu_jit_target()), "loop x of Func f", "no GPU API", "vulkan");
}

TEST(GPUScheduleErrors, ThreadsOutsideBlocks) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    f.gpu_threads(x);
    EXPECT_COMPILE_ERROR(f.realize({8, 8}, loom_test::vulkan_jit_target()), "loop x of Func f", "outside every GPU block loop",
                         "gpu_blocks");
}

TEST(GPUScheduleErrors, FourBlockDimensions) {
    Var a("a"), b("b"), c("c"), d("d");
    Func f("f");
    f(a, b, c, d) = a + b + c + d;
    f.gpu_blocks(a, b, c);
    EXPECT_COMPILE_ERROR(f.gpu_blocks(d), "Func f", "d", "at most three");
}

TEST(GPUScheduleErrors, ThreadLoopWithoutConstantExtent) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    f.gpu_blocks(y).gpu_threads(x);
    EXPECT_COMPILE_ERROR(f.realize({8, 8}, loom_test::vulkan_jit_target()), "loop x of Func f", "not a constant",
                         "gpu_tile");
}

TEST(GPUScheduleErrors, ParallelLoopCannotBecomeGpuLoop) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    f.parallel(y);
    EXPECT_COMPILE_ERROR(f.gpu_blocks(y), "Func f", "y", "parallel");
}

TEST(GPUScheduleErrors, DependentRVarCannotBeGpuLoop) {
    Var x("x");
    RDom r(1, 9, "r");
    Func f("f");
    f(x) = x;
    f(r) = f(r - 1) + 1;
    EXPECT_COMPILE_ERROR(f.update(0).gpu_blocks(r), "f", "r");
}

loom_vulkan_device_info_t device_info() {
    loom_vulkan_device_info_t info{};
    EXPECT_EQ(loom_vulkan_get_device_info(nullptr, &info), 0);
    return info;
}

TEST(GPUScheduleErrors, WorkgroupOverTheDevicesInvocationsAtCompileTime) {
    LOOM_REQUIRE_VULKAN();
    const loom_vulkan_device_info_t info = device_info();
    // A square workgroup just over the limit (each side within its own).
    int side = 1;
    while (side * side <= int(info.max_workgroup_invocations)) side *= 2;
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func f("wide");
    f(x, y) = x + y;
    f.gpu_tile(x, y, xi, yi, side, side);
    const int before = internal::jit_compile_count();
    EXPECT_COMPILE_ERROR(f.realize({side, side}, loom_test::vulkan_jit_target()), "loop y of Func wide",
                         std::to_string(side * side) + " invocations", "maxComputeWorkGroupInvocations",
                         info.device_name, "smaller");
    EXPECT_EQ(internal::jit_compile_count(), before);  // refused before any code was made
}

TEST(GPUScheduleErrors, WorkgroupDimensionOverTheDevicesSize) {
    LOOM_REQUIRE_VULKAN();
    const loom_vulkan_device_info_t info = device_info();
    const int z = int(info.max_workgroup_size[2]) + 1;
    Var x("x"), y("y"), c("c"), xi("xi"), yi("yi"), ci("ci");
    Func f("deep");
    f(x, y, c) = x + y + c;
    f.gpu_tile(x, y, c, xi, yi, ci, 1, 1, z);
    EXPECT_COMPILE_ERROR(f.realize({1, 1, z}, loom_test::vulkan_jit_target()), "loop c of Func deep",
                         "z may be at most " + std::to_string(info.max_workgroup_size[2]), "maxComputeWorkGroupSize");
}

TEST(GPUScheduleErrors, SharedMemoryOverTheDevicesLimit) {
    LOOM_REQUIRE_VULKAN();
    const loom_vulkan_device_info_t info = device_info();
    // g at the block loop covers a 16-row strip as wide as the window of r:
    // 16 * (16 + extent - 1) floats, just over the limit.
    const int extent = int(info.max_shared_memory_bytes) / (16 * 4) + 1;
    Var x("x"), y("y"), xi("xi"), yi("yi");
    RDom r(0, extent, "r");
    Func g("window"), f("sums");
    g(x, y) = cast<float>(x + y);
    f(x, y) = 0.0f;
    f(x, y) += g(x + r, y);
    g.compute_at(f, x);  // the block loop of the update
    f.gpu_tile(x, y, xi, yi, 16, 16);
    f.update(0).gpu_tile(x, y, xi, yi, 16, 16);
    EXPECT_COMPILE_ERROR(f.realize({16, 16}, loom_test::vulkan_jit_target()), "loop y of update 0 of Func sums",
                         "shared memory", std::to_string(info.max_shared_memory_bytes) + " bytes",
                         "maxComputeSharedMemorySize");
}

TEST(GPUSchedule, WorkgroupAtTheDevicesLimitRuns) {
    LOOM_REQUIRE_VULKAN();
    const loom_vulkan_device_info_t info = device_info();
    const int n = std::min(int(info.max_workgroup_invocations), int(info.max_workgroup_size[0]));
    Var x("x"), xi("xi");
    Func f("full");
    f(x) = x * 3;
    f.gpu_tile(x, xi, n);
    Buffer<int> out = f.realize({2 * n}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &p) { return p[0] * 3; });
}

/** out(x, y) = sum over k of in_k(x, y) * p_k: 8 inputs (a min per
 * dimension and a stride each) and 16 Params are 160 bytes of scalars, past
 * the 128 bytes of push constants every Vulkan device has. */
struct ManyScalars {
    std::vector<ImageParam> inputs;
    std::vector<Param<int>> params;
    Func out{"many_scalars"};
    ManyScalars() {
        Var x("x"), y("y");
        Expr e = 0;
        for (int k = 0; k < 8; k++) inputs.emplace_back(Int(32), 2, "in" + std::to_string(k));
        for (int k = 0; k < 16; k++) params.emplace_back("p" + std::to_string(k));
        for (int k = 0; k < 8; k++) e = e + inputs[k](x, y) * params[k] + params[k + 8];
        out(x, y) = e;
    }
};

TEST(GPUSchedule, ScalarsPastPushConstantsGoInAUniformBuffer) {
    LOOM_REQUIRE_VULKAN();
    ManyScalars p;
    Var x("x"), y("y"), xi("xi"), yi("yi");
    p.out.gpu_tile(x, y, xi, yi, 8, 8);
    std::vector<Buffer<int>> buffers;
    for (int k = 0; k < 8; k++) {
        buffers.emplace_back(40, 40);
        buffers[k].set_min({k - 3, 2 * k});  // every buffer has its own mins
        buffers[k].for_each_element([&](const std::vector<int> &c) { buffers[k](c) = c[0] * (k + 1) - c[1] * 7; });
        p.inputs[k].set(buffers[k]);
    }
    for (int k = 0; k < 16; k++) p.params[k].set(k * 3 - 5);
    Buffer<int> out(16, 9);
    out.set_min({4, 14});
    p.out.realize(out, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [&](const std::vector<int> &c) {
        int e = 0;
        for (int k = 0; k < 8; k++) e += buffers[k](c[0], c[1]) * (k * 3 - 5) + ((k + 8) * 3 - 5);
        return e;
    });
    // Again with other Params: the uniform buffer is per dispatch.
    for (int k = 0; k < 16; k++) p.params[k].set(7 - k);
    p.out.realize(out, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [&](const std::vector<int> &c) {
        int e = 0;
        for (int k = 0; k < 8; k++) e += buffers[k](c[0], c[1]) * (7 - k) + (7 - (k + 8));
        return e;
    });
}

TEST(GPUSchedule, KernelWithManyScalarsReadsThemFromAUniformBlock) {
    loom_test::ScratchDir dir;
    ManyScalars p;
    Var x("x"), y("y"), xi("xi"), yi("yi");
    p.out.gpu_tile(x, y, xi, yi, 8, 8);
    std::vector<Argument> args;
    for (auto &in : p.inputs) args.push_back(in);
    for (auto &param : p.params) args.push_back(param);
    p.out.compile_to_assembly(dir.file("many.s"), args, "many", Target("x86-64-linux-vulkan"));
    const std::string text = loom_test::read_file(dir.file("many.s"));
    EXPECT_NE(text.find("%_ptr_Uniform_"), std::string::npos) << "the scalars are not in a uniform block";
    EXPECT_EQ(text.find("PushConstant"), std::string::npos) << "the scalars are still push constants";
    EXPECT_NE(text.find("Binding 9"), std::string::npos) << "the uniform block is not bound after the 9 buffers";
}

int64_t live_vulkan_objects(int kind) {
    loom_vk_debug_counts_t c;
    loom_vulkan_debug_counts(&c);
    return c.created[kind] - c.destroyed[kind];
}

TEST(GPUSchedule, PipelinesReleaseTheirVulkanModulesWhenTheyGo) {
    LOOM_REQUIRE_VULKAN();
    auto realize_a_new_pipeline = [](int i) {
        Var x("x"), xi("xi");
        Func f("short_lived_" + std::to_string(i));
        f(x) = x * i;
        f.gpu_tile(x, xi, 16);
        Buffer<int> out = f.realize({32}, loom_test::vulkan_jit_target());
        EXPECT_EQ(out(31), 31 * i);
    };  // the Func, its compiled pipeline and the pipeline's kernels go here
    realize_a_new_pipeline(0);
    const int64_t modules = live_vulkan_objects(loom_vk_object_shader_module);
    const int64_t pipelines = live_vulkan_objects(loom_vk_object_pipeline);
    for (int i = 1; i <= 20; i++) realize_a_new_pipeline(i);
    EXPECT_LE(live_vulkan_objects(loom_vk_object_shader_module), modules);
    EXPECT_LE(live_vulkan_objects(loom_vk_object_pipeline), pipelines);
}

TEST(GPUScheduleErrors, TypeTheTargetDoesNotEnableNamesTheLoop) {
    Var x("x"), xi("xi");
    Func f("doubles");
    f(x) = cast<double>(x) * 0.5;
    f.gpu_tile(x, xi, 16);
    Target t = Target("x86-64-linux-vulkan").without_feature(Target::VkFloat64);
    EXPECT_COMPILE_ERROR(f.compile_to_assembly(loom_test::ScratchDir().file("d.s"), {}, "d", t),
                         "GPU kernel of loop x of Func doubles", "float64", "vk_float64");
}

TEST(GPUSchedule, SharedProducerOfAGuardedTailTileGetsTheFullTile) {
    LOOM_REQUIRE_VULKAN();
    // With GuardWithIf the last tile is short, so g's region per block is
    // min(x + 15, x_max) - x + 2 elements: not a constant, but never more
    // than 17, which is what the workgroup's shared memory gets (as Halide).
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func g("tail_producer"), f("tail_consumer");
    g(x, y) = x * 3 - y;
    f(x, y) = g(x, y) + g(x + 1, y) * 2 + g(x, y + 1);
    f.gpu_tile(x, y, xo, yo, xi, yi, 16, 4, TailStrategy::GuardWithIf);
    g.compute_at(f, xo);
    Buffer<int> out = f.realize({37, 10}, loom_test::vulkan_jit_target());
    expect_buffer_eq(out, [](const std::vector<int> &p) {
        auto G = [](int x, int y) { return x * 3 - y; };
        return G(p[0], p[1]) + G(p[0] + 1, p[1]) * 2 + G(p[0], p[1] + 1);
    });
}

}  // namespace
