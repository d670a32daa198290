// GPU loops whose extent is 0 or negative run no iteration, like the serial
// loops they replace (GPU fuzz seeds 2311, 2445, 2491, 2498, 2784, 2888,
// 2889): the host launches a kernel only when every block count is
// positive, and a thread loop of a constant empty extent is dropped from its
// kernel instead of being refused. test/vulkan/EmptyGPULoopTest.cpp runs
// such pipelines.

#include <gtest/gtest.h>

#include <string>

#include "ir/IRPrinter.h"
#include "loom/IROperator.h"
#include "lower/ExtractGPUKernels.h"
#include "lower/LowerGPULaunches.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

Stmt block_loop(const std::string &name, const Expr &extent, const Stmt &body) {
    return For::make(name, Expr(0), extent, ForType::GPUBlock, DeviceAPI::Vulkan, body);
}

Stmt thread_loop(const std::string &name, int extent, const Stmt &body) {
    return For::make(name, Expr(0), Expr(extent), ForType::GPUThread, DeviceAPI::Vulkan, body);
}

std::vector<GPUKernel> extract(Stmt &s) {
    std::vector<GPUKernel> kernels;
    s = extract_gpu_kernels(s, "pipe", Target("host-vulkan"), kernels);
    return kernels;
}

TEST(EmptyGPULoopLowering, LaunchIsGuardedByEveryBlockCountBeingPositive) {
    // Two block loops, extents n and m - 4: one let per count, then the
    // launch under 0 < each.
    Stmt body = thread_loop("t", 4, Store::make("out", var("t"), var("bx") + var("by") * 64 + var("t") * 16));
    Stmt s = block_loop("by", var("m") - 4, block_loop("bx", var("n"), body));
    std::vector<GPUKernel> kernels = extract(s);
    ASSERT_EQ(kernels.size(), 1u);
    const std::string host = to_string(lower_gpu_launches(s, kernels));
    for (const char *part : {"let gpu.blocks.0.x = n\n", "let gpu.blocks.0.y = m + -4\n",
                             "if (0 < gpu.blocks.0.x && 0 < gpu.blocks.0.y) {",
                             "gpu.blocks.0.x, gpu.blocks.0.y, 1, 4, 1, 1,"}) {
        EXPECT_NE(host.find(part), std::string::npos) << "missing \"" << part << "\" in:\n" << host;
    }
    // Everything the launch does is inside the guard.
    EXPECT_LT(host.find("if (0 < gpu.blocks.0.x"), host.find("gpu_initialize_kernel"));
    EXPECT_LT(host.find("if (0 < gpu.blocks.0.x"), host.find("loom_copy_to_device"));
}

TEST(EmptyGPULoopLowering, ConstantEmptyGridLaunchesNothingAndConstantFullOneNeedsNoGuard) {
    for (int extent : {0, -3}) {
        Stmt s = block_loop("bx", Expr(extent), thread_loop("t", 4, Store::make("out", var("t"), var("t"))));
        std::vector<GPUKernel> kernels = extract(s);
        ASSERT_EQ(kernels.size(), 1u);
        const std::string host = to_string(lower_gpu_launches(s, kernels));
        EXPECT_EQ(host.find("loom_vulkan_run"), std::string::npos) << host;
        EXPECT_EQ(host.find("loom_copy_to_device"), std::string::npos) << host;
    }
    Stmt s = block_loop("bx", Expr(3), thread_loop("t", 4, Store::make("out", var("t"), var("t"))));
    std::vector<GPUKernel> kernels = extract(s);
    const std::string host = to_string(lower_gpu_launches(s, kernels));
    EXPECT_NE(host.find("\"pipe_k0_bx\", 3, 1, 1, 4, 1, 1,"), std::string::npos) << host;
    EXPECT_EQ(host.find("if ("), std::string::npos) << host;
}

TEST(EmptyGPULoopLowering, ThreadLoopOfConstantEmptyExtentIsDropped) {
    for (int extent : {0, -2}) {
        SCOPED_TRACE("extent " + std::to_string(extent));
        // An empty nest beside a nest of 4 threads: the kernel keeps only the
        // latter, and its workgroup is 4 wide.
        Stmt empty = thread_loop("t", extent, Store::make("a", Expr(1), var("t")));
        Stmt full = thread_loop("u", 4, Store::make("b", var("u"), var("u")));
        Stmt s = block_loop("bx", var("n"), Block::make(empty, full));
        std::vector<GPUKernel> kernels = extract(s);
        ASSERT_EQ(kernels.size(), 1u);
        EXPECT_EQ(kernels[0].workgroup_size[0], 4);
        EXPECT_EQ(kernels[0].workgroup_size[1], 1);
        ASSERT_EQ(kernels[0].args.size(), 1u);
        EXPECT_EQ(kernels[0].args[0].name, "b");
        EXPECT_EQ(to_string(kernels[0].body).find("a["), std::string::npos) << kernels[0].body;

        // Alone, it leaves a kernel that does nothing, one invocation wide.
        Stmt alone = block_loop("bx", var("n"), thread_loop("t", extent, Store::make("a", Expr(1), var("t"))));
        kernels = extract(alone);
        ASSERT_EQ(kernels.size(), 1u);
        EXPECT_EQ(kernels[0].workgroup_size[0], 1);
        EXPECT_TRUE(kernels[0].args.empty());
    }
}

}  // namespace
