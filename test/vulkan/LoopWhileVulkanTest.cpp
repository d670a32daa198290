// A loop that stops early with GPU loops inside: each iteration launches a
// kernel over the state, and the condition, evaluated on the host before
// the next iteration, reads the state the kernel wrote (the state is copied
// back first). Checked against a plain C++ loop.

#include <gtest/gtest.h>

#include <vector>

#include "VulkanTestUtil.h"

using namespace loom;

namespace {

TEST(LoopWhileVulkan, KernelPerIterationAndHostCondition) {
    LOOM_REQUIRE_VULKAN();
    const int n = 64;
    Var i("i"), x("x"), xo("xo"), xi("xi");
    Param<float> limit("limit");
    Func state("state"), step("step"), last("last"), count("count");
    state(i, x) = undef<float>();
    state(0, x) = cast<float>(x) * 0.25f;
    step(i, x) = state(i, (x + 3) % n) + 1.0f;
    RDom r(0, 1000, "r");
    r.loop_while(state(r, 0) < limit);
    state(r + 1, x) = step(r, x);
    last(x) = state(r.trip_count(), x);
    count() = r.trip_count();
    state.compute_root().fold_storage(i, 2).bound(x, 0, n);
    state.update(1).gpu_tile(x, xo, xi, 16);
    Pipeline p({last, count});
    for (float lim : {0.0f, 20.0f, 1e9f}) {
        limit.set(lim);
        Buffer<float> last_buffer(n);
        Buffer<int> count_buffer = Buffer<int>::make_scalar();
        Realization out(last_buffer, count_buffer);
        p.realize(out, loom_test::vulkan_jit_target());
        last_buffer.copy_to_host();
        count_buffer.copy_to_host();

        std::vector<float> s(n);
        for (int k = 0; k < n; k++) s[k] = k * 0.25f;
        int trips = 0;
        while (trips < 1000 && s[0] < lim) {
            std::vector<float> next(n);
            for (int k = 0; k < n; k++) next[k] = s[(k + 3) % n] + 1.0f;
            s = next;
            trips++;
        }
        EXPECT_EQ(count_buffer(), trips) << "limit " << lim;
        for (int k = 0; k < n; k++) EXPECT_EQ(last_buffer(k), s[k]) << "limit " << lim << ", x = " << k;
    }
}

}  // namespace
