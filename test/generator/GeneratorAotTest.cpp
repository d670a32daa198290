// Libraries made at build time by loom_add_library() from the test
// generators (test/CMakeLists.txt), called through their C headers and
// checked against plain C++ loops. This file includes only the generated
// headers, as an application would.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "test_aot_axpy.h"
#include "test_aot_axpy_vulkan.h"
#include "test_aot_brighten.h"
#include "test_aot_two_outputs.h"
#include "test_aot_func_inputs.h"
#include "test_aot_array_sum.h"
#include "test_aot_configured.h"

namespace {

template<typename T>
loom_type_t type_code();
template<>
loom_type_t type_code<uint8_t>() { return {loom_type_uint, 8, 1}; }
template<>
loom_type_t type_code<int16_t>() { return {loom_type_int, 16, 1}; }
template<>
loom_type_t type_code<int32_t>() { return {loom_type_int, 32, 1}; }
template<>
loom_type_t type_code<float>() { return {loom_type_float, 32, 1}; }

/** A dense host buffer with its loom_buffer_t, dimension 0 innermost. */
template<typename T>
struct HostBuffer {
    std::vector<T> data;
    std::vector<loom_dimension_t> dims;
    loom_buffer_t buf = {};

    explicit HostBuffer(std::vector<int> extents) {
        int stride = 1;
        for (int e : extents) {
            dims.push_back({0, e, stride, 0});
            stride *= e;
        }
        data.assign(stride, T(0));
        buf.host = reinterpret_cast<uint8_t *>(data.data());
        buf.type = type_code<T>();
        buf.dimensions = int32_t(dims.size());
        buf.dim = dims.data();
    }
    loom_buffer_t *raw() { return &buf; }
};

/** Bytes in a natural vector of the target a library was compiled for,
 * from the target string its metadata carries. */
int vector_bytes(const char *target) {
    const std::string t = target;
    if (t.find("avx512") != std::string::npos) return 64;
    if (t.find("avx2") != std::string::npos) return 32;
    return 16;  // SSE, NEON
}

TEST(GeneratorAot, BrightenWithParamsFromCMake) {
    // PARAMS offset=-7 mode=multiply: out = clamp(in * gain * -7) = 0 for in > 0,
    // so use a negative gain to see values.
    // The library is built for the host, and vectorized by its natural
    // vector: a row narrower than that would be read before x = 0 by the
    // shifted last vector (error -4). Two vectors and a tail, whatever the host.
    const int w = 2 * vector_bytes(test_aot_brighten_metadata()->target) + 13, h = 3;
    HostBuffer<uint8_t> in({w, h}), out({w, h});
    for (int i = 0; i < w * h; i++) in.data[i] = uint8_t(i * 5);
    const float gain = -0.25f;
    ASSERT_EQ(test_aot_brighten(in.raw(), gain, out.raw()), 0);
    for (int i = 0; i < w * h; i++) {
        float v = float(in.data[i]) * gain * -7.0f;
        uint8_t expected = uint8_t(std::min(std::max(v, 0.0f), 255.0f));
        ASSERT_EQ(out.data[i], expected) << "at " << i;
    }
}

TEST(GeneratorAot, ArgumentOrderIsDeclarationOrder) {
    // typed_axpy declares a, out, scale, b: the function takes a, scale, b, out.
    const int n = 21;
    HostBuffer<float> a({n}), b({n});
    HostBuffer<int16_t> out({n});
    for (int i = 0; i < n; i++) {
        a.data[i] = 1.5f * i - 4.0f;
        b.data[i] = 100.0f - 3.0f * i;
    }
    ASSERT_EQ(test_aot_axpy(a.raw(), 3.0f, b.raw(), out.raw()), 0);
    for (int i = 0; i < n; i++) EXPECT_EQ(out.data[i], int16_t(a.data[i] * 3.0f + b.data[i])) << i;
}

TEST(GeneratorAot, GpuScheduleForHostVulkan) {
    // typed_axpy's schedule tiles out for the GPU when its target has one:
    // the library was generated with target=host-vulkan.
    loom_vulkan_device_info_t info;
    if (loom_vulkan_get_device_info(nullptr, &info) != 0) {
        GTEST_SKIP() << "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";
    }
    const int n = 203;  // not a multiple of the 64-wide workgroups
    HostBuffer<float> a({n}), b({n}), out({n});
    for (int i = 0; i < n; i++) {
        a.data[i] = 0.5f * i - 30.0f;
        b.data[i] = 7.0f - 0.25f * i;
    }
    ASSERT_EQ(test_aot_axpy_vulkan(a.raw(), 3.0f, b.raw(), out.raw()), 0);
    // As with Halide, the caller copies a GPU output back.
    ASSERT_EQ(loom_copy_to_host(nullptr, out.raw()), 0);
    for (int i = 0; i < n; i++) EXPECT_EQ(out.data[i], a.data[i] * 3.0f + b.data[i]) << i;
    for (HostBuffer<float> *h : {&a, &b, &out}) EXPECT_EQ(loom_device_free(nullptr, h->raw()), 0);
}

TEST(GeneratorAot, TupleAndSecondOutput) {
    const int n = 9;
    HostBuffer<int32_t> a({n}), sum({n}), diff({n}), prod({n});
    for (int i = 0; i < n; i++) a.data[i] = i * i - 10;
    ASSERT_EQ(test_aot_two_outputs(a.raw(), 4, sum.raw(), diff.raw(), prod.raw()), 0);
    for (int i = 0; i < n; i++) {
        EXPECT_EQ(sum.data[i], a.data[i] + 4);
        EXPECT_EQ(diff.data[i], a.data[i] - 4);
        EXPECT_EQ(prod.data[i], a.data[i] * 4);
    }
}

TEST(GeneratorAot, InputFuncWithTypeAndDimsFromParams) {
    // PARAMS in.type=uint8 in.dim=2 level=out.y
    const int w = 13, h = 4;
    HostBuffer<uint8_t> in({w, h});
    HostBuffer<int32_t> bias({w}), out({w, h});
    for (int i = 0; i < w * h; i++) in.data[i] = uint8_t(i * 7);
    for (int x = 0; x < w; x++) bias.data[x] = 100 - x;
    ASSERT_EQ(test_aot_func_inputs(in.raw(), bias.raw(), out.raw()), 0);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            ASSERT_EQ(out.data[y * w + x], int(in.data[y * w + x]) * 3 + 100 - x) << x << ", " << y;
        }
    }
    EXPECT_LT(test_aot_func_inputs(bias.raw(), bias.raw(), out.raw()), 0);  // in must be uint8
}

TEST(GeneratorAot, ArraysOfInputsAndOutputs) {
    // PARAMS planes.size=3: planes_0..2, weights_0..1, outs_0..1, total_0.
    const int n = 10;
    HostBuffer<uint8_t> p0({n}), p1({n}), p2({n});
    HostBuffer<int32_t> w0({n}), w1({n}), o0({n}), o1({n}), total({n});
    for (int x = 0; x < n; x++) {
        p0.data[x] = uint8_t(x);
        p1.data[x] = uint8_t(200 + x);
        p2.data[x] = uint8_t(3 * x);
        w0.data[x] = x - 4;
        w1.data[x] = -2;
    }
    ASSERT_EQ(test_aot_array_sum(p0.raw(), p1.raw(), p2.raw(), w0.raw(), w1.raw(), o0.raw(), o1.raw(), total.raw()), 0);
    for (int x = 0; x < n; x++) {
        int s = x + 200 + x + 3 * x;
        EXPECT_EQ(total.data[x], s);
        EXPECT_EQ(o0.data[x], s * (x - 4));
        EXPECT_EQ(o1.data[x], s * -2);
    }
}

TEST(GeneratorAot, ConfigureAddedInputsAndOutputs) {
    // PARAMS extra_inputs=2 with_scale=true: a, extra0, extra1, scale, out, twice.
    const int n = 7;
    HostBuffer<int32_t> a({n}), e0({n}), e1({n}), out({n}), twice({n});
    for (int x = 0; x < n; x++) {
        a.data[x] = x;
        e0.data[x] = 5;
        e1.data[x] = x * x;
    }
    ASSERT_EQ(test_aot_configured(a.raw(), e0.raw(), e1.raw(), -3, out.raw(), twice.raw()), 0);
    for (int x = 0; x < n; x++) {
        EXPECT_EQ(out.data[x], (x + 5 + x * x) * -3);
        EXPECT_EQ(twice.data[x], (x + 5 + x * x) * -6);
    }
}

TEST(GeneratorAot, WrongBufferTypeIsAnErrorCode) {
    HostBuffer<float> wrong({8, 2});
    HostBuffer<uint8_t> out({8, 2});
    EXPECT_LT(test_aot_brighten(wrong.raw(), 1.0f, out.raw()), 0);
}

}  // namespace

#if LOOM_TEST_DISPATCH
#include "test_aot_dispatch.h"
extern "C" const char *test_aot_dispatch_loom_target(void);

namespace {

TEST(GeneratorAot, RuntimeDispatchPicksTheBestVariant) {
    __builtin_cpu_init();
    bool skylake = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                   __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512dq");
    bool avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    std::string expected = skylake ? "x86-64-linux-avx512_skylake" : avx2_fma ? "x86-64-linux-avx2-fma" : "x86-64-linux";
    EXPECT_EQ(std::string(test_aot_dispatch_loom_target()), expected);

    const int w = 70, h = 2;
    HostBuffer<uint8_t> in({w, h}), out({w, h});
    for (int i = 0; i < w * h; i++) in.data[i] = uint8_t(i * 3);
    ASSERT_EQ(test_aot_dispatch(in.raw(), -0.5f, out.raw()), 0);
    for (int i = 0; i < w * h; i++) {
        float v = float(in.data[i]) * -0.5f * -7.0f;
        ASSERT_EQ(out.data[i], uint8_t(std::min(std::max(v, 0.0f), 255.0f))) << "at " << i;
    }
}

}  // namespace
#endif
