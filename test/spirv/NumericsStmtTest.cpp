// Kernels with control flow, memory and vector shapes run on a Vulkan device
// (lavapipe in CI), checked against C++ loops: block and thread ids,
// predicated loads and stores, shared memory with barriers, kernel-local
// arrays, loops, push constants, bool buffers, Ramp/Shuffle/VectorReduce.

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "SpirvTestUtil.h"
#include "VulkanHarness.h"

namespace loom_test_spirv {
namespace {

using loom::Bool;
using loom::Float;
using loom::Int;
using loom::UInt;

#define REQUIRE_DEVICE()                                    \
    std::string why_no_device;                              \
    VulkanHarness *device = VulkanHarness::get(&why_no_device); \
    if (!device) GTEST_SKIP() << why_no_device

std::string run(VulkanHarness *device, const GPUKernel &k, const Target &t, std::vector<std::vector<uint8_t> *> buffers,
                uint32_t groups_x, uint32_t groups_y = 1, uint32_t groups_z = 1,
                const std::vector<uint8_t> &push_constants = {}) {
    std::vector<uint32_t> words = compile_ok(k, t);
    if (words.empty()) return "did not compile";
    const uint32_t groups[3] = {groups_x, groups_y, groups_z};
    return device->run(words, k.name, buffers, push_constants, groups);
}

Expr ramp(Expr base, int stride, int lanes) { return Ramp::make(base, i32(stride), lanes); }

TEST(SpirvNumericsStmt, BlockAndThreadIdsIn3D) {
    REQUIRE_DEVICE();
    GPUKernel k;
    k.name = "ids3d";
    k.args = {buffer_arg("out", Int(32), false, true)};
    k.workgroup_size[0] = 4;
    k.workgroup_size[1] = 3;
    k.workgroup_size[2] = 2;
    // Grid 2 x 3 x 2 workgroups: global coordinates gx < 8, gy < 9, gz < 4.
    Expr gx = Add::make(Mul::make(block_id(0), i32(4)), thread_id(0));
    Expr gy = Add::make(Mul::make(block_id(1), i32(3)), thread_id(1));
    Expr gz = Add::make(Mul::make(block_id(2), i32(2)), thread_id(2));
    Expr index = Add::make(gx, Mul::make(Add::make(gy, Mul::make(gz, i32(9))), i32(8)));
    Expr code = Add::make(Mul::make(block_id(0), i32(100000)),
                          Add::make(Mul::make(block_id(1), i32(10000)), Mul::make(block_id(2), i32(1000))));
    code = Add::make(code, Add::make(Mul::make(thread_id(0), i32(100)),
                                     Add::make(Mul::make(thread_id(1), i32(10)), thread_id(2))));
    k.body = Store::make("out", code, index);
    std::vector<int32_t> out(8 * 9 * 4, -1);
    std::vector<uint8_t> bytes = to_bytes(out);
    ASSERT_EQ(run(device, k, vulkan_target(), {&bytes}, 2, 3, 2), "");
    out = from_bytes<int32_t>(bytes);
    for (int z = 0; z < 4; z++) {
        for (int y = 0; y < 9; y++) {
            for (int x = 0; x < 8; x++) {
                const int expected = (x / 4) * 100000 + (y / 3) * 10000 + (z / 2) * 1000 + (x % 4) * 100 +
                                     (y % 3) * 10 + (z % 2);
                ASSERT_EQ(out[x + 8 * (y + 9 * z)], expected) << x << " " << y << " " << z;
            }
        }
    }
}

TEST(SpirvNumericsStmt, PredicatedLoadsAndStores) {
    REQUIRE_DEVICE();
    // 8-lane vectors over 512 elements, of which the first n = 101 are valid:
    // masked lanes read as zero and are not stored.
    const int n = 101, lanes = 8;
    for (const std::string &version : {std::string(""), std::string("vk_v13")}) {
        GPUKernel k;
        k.name = "predicated";
        k.workgroup_size[0] = 64;
        k.args = {scalar_arg("n", Int(32)), buffer_arg("in", Int(32), true, false),
                  buffer_arg("out", Int(32), false, true), buffer_arg("raw", Int(32), false, true)};
        Expr index = ramp(Mul::make(var("x"), i32(lanes)), 1, lanes);
        Expr valid = LT::make(index, Broadcast::make(var("n"), lanes));
        Expr loaded = load(Int(32, lanes), "in", index, valid);
        Stmt store = Store::make("out", Mul::make(loaded, Broadcast::make(i32(2), lanes)), index, valid);
        Stmt raw = Store::make("raw", loaded, index);
        k.body = LetStmt::make("x", global_x(), Block::make(store, raw));
        std::vector<int32_t> in(512), out(512, -7), raw_out(512, -7);
        std::iota(in.begin(), in.end(), 1000);
        std::vector<uint8_t> bin = to_bytes(in), bout = to_bytes(out), braw = to_bytes(raw_out);
        std::vector<uint8_t> push = to_bytes(std::vector<int32_t>{n});
        ASSERT_EQ(run(device, k, vulkan_target(version), {&bin, &bout, &braw}, 1, 1, 1, push), "");
        out = from_bytes<int32_t>(bout);
        raw_out = from_bytes<int32_t>(braw);
        for (int i = 0; i < 512; i++) {
            EXPECT_EQ(out[i], i < n ? 2 * (1000 + i) : -7) << i;
            EXPECT_EQ(raw_out[i], i < n ? 1000 + i : 0) << i;
        }
    }
}

TEST(SpirvNumericsStmt, SharedMemoryBarrierAndLocalArrays) {
    REQUIRE_DEVICE();
    // shared[t] = in[b * 64 + t]; barrier; local[j] = shared[(t + j) % 64]
    // for j < 4; out[b * 64 + t] = shared[63 - t] * 1000 + sum(local).
    Expr t = thread_id(0), g = global_x();
    Stmt fill = Store::make("shared", load(Int(32), "in", g), t);
    Stmt fill_local = For::make("j", i32(0), i32(4), ForType::Serial, DeviceAPI::None,
                                Store::make("local", load(Int(32), "shared", Mod::make(Add::make(t, var("j")), i32(64))),
                                            var("j")));
    Expr local_sum = i32(0);
    for (int j = 0; j < 4; j++) local_sum = Add::make(local_sum, load(Int(32), "local", i32(j)));
    Stmt result = Store::make("out", Add::make(Mul::make(load(Int(32), "shared", Sub::make(i32(63), t)), i32(1000)),
                                               local_sum),
                              g);
    Stmt local = Allocate::make("local", Int(32), MemoryType::Register, {i32(4)}, Expr(),
                                Block::make(fill_local, result));
    GPUKernel k;
    k.name = "shared_reverse";
    k.args = {buffer_arg("in", Int(32), true, false), buffer_arg("out", Int(32), false, true)};
    k.workgroup_size[0] = 64;
    k.body = Allocate::make("shared", Int(32), MemoryType::GPUShared, {i32(64)}, Expr(),
                            Block::make({fill, barrier(), local}));
    std::vector<int32_t> in(64 * 5), out(64 * 5);
    for (size_t i = 0; i < in.size(); i++) in[i] = int32_t(i * 7 % 101);
    std::vector<uint8_t> bin = to_bytes(in), bout = to_bytes(out);
    ASSERT_EQ(run(device, k, vulkan_target("vk_v12"), {&bin, &bout}, 5), "");
    out = from_bytes<int32_t>(bout);
    for (int b = 0; b < 5; b++) {
        for (int i = 0; i < 64; i++) {
            int sum = 0;
            for (int j = 0; j < 4; j++) sum += in[b * 64 + (i + j) % 64];
            ASSERT_EQ(out[b * 64 + i], in[b * 64 + 63 - i] * 1000 + sum) << b << " " << i;
        }
    }
}

TEST(SpirvNumericsStmt, LoopsWhileAndConditionals) {
    REQUIRE_DEVICE();
    // out[x] = number of Collatz steps of x + 1 (while loop with an if
    // inside), plus the sum over i < n of in[(x + i) % 64] (for loop).
    Expr x = var("x");
    Stmt collatz = Allocate::make(
        "state", Int(32), MemoryType::Register, {i32(2)}, Expr(),
        Block::make({Store::make("state", Add::make(x, i32(1)), i32(0)), Store::make("state", i32(0), i32(1)),
                     While::make(NE::make(load(Int(32), "state", i32(0)), i32(1)),
                                 Block::make(IfThenElse::make(
                                                 EQ::make(Mod::make(load(Int(32), "state", i32(0)), i32(2)), i32(0)),
                                                 Store::make("state", Div::make(load(Int(32), "state", i32(0)), i32(2)),
                                                             i32(0)),
                                                 Store::make("state",
                                                             Add::make(Mul::make(load(Int(32), "state", i32(0)),
                                                                                 i32(3)),
                                                                       i32(1)),
                                                             i32(0))),
                                             Store::make("state", Add::make(load(Int(32), "state", i32(1)), i32(1)),
                                                         i32(1)))),
                     For::make("i", i32(0), var("n"), ForType::Serial, DeviceAPI::None,
                               Store::make("state",
                                           Add::make(load(Int(32), "state", i32(1)),
                                                     load(Int(32), "in", Mod::make(Add::make(x, var("i")), i32(64)))),
                                           i32(1))),
                     Store::make("out", load(Int(32), "state", i32(1)), x)}));
    GPUKernel k;
    k.name = "loops";
    k.args = {scalar_arg("n", Int(32)), buffer_arg("in", Int(32), true, false), buffer_arg("out", Int(32), false, true)};
    k.workgroup_size[0] = 64;
    k.body = LetStmt::make("x", global_x(), collatz);
    std::vector<int32_t> in(64), out(128);
    for (int i = 0; i < 64; i++) in[i] = i * i - 100;
    std::vector<uint8_t> bin = to_bytes(in), bout = to_bytes(out);
    const int n = 13;
    ASSERT_EQ(run(device, k, vulkan_target(), {&bin, &bout}, 2, 1, 1, to_bytes(std::vector<int32_t>{n})), "");
    out = from_bytes<int32_t>(bout);
    for (int xv = 0; xv < 128; xv++) {
        int s = xv + 1, steps = 0;
        while (s != 1) {
            s = s % 2 == 0 ? s / 2 : 3 * s + 1;
            steps++;
        }
        for (int i = 0; i < n; i++) steps += in[(xv + i) % 64];
        ASSERT_EQ(out[xv], steps) << xv;
    }
}

TEST(SpirvNumericsStmt, PushConstantsOfEveryWidth) {
    REQUIRE_DEVICE();
    if (!device->features().float64 || !device->features().int64) GTEST_SKIP() << "no float64/int64";
    GPUKernel k;
    k.name = "scalars";
    k.args = {buffer_arg("out", Float(64), false, true), scalar_arg("a", Int(32)), scalar_arg("b", Float(64)),
              scalar_arg("c", Float(32)), scalar_arg("d", UInt(64)), scalar_arg("e", Int(16)), scalar_arg("f", Bool())};
    Expr sum = Add::make(Cast::make(Float(64), var("a")), var("b", Float(64)));
    sum = Add::make(sum, Cast::make(Float(64), var("c", Float(32))));
    sum = Add::make(sum, Cast::make(Float(64), var("d", UInt(64))));
    sum = Add::make(sum, Cast::make(Float(64), var("e", Int(16))));
    sum = Select::make(var("f", Bool()), sum, FloatImm::make(Float(64), -1));
    k.body = Store::make("out", sum, thread_id(0));
    // C layout: a@0 b@8 c@16 d@24 e@32 (as 32 bits) f@36 (as 32 bits).
    std::vector<uint8_t> push(40);
    const int32_t a = -5;
    const double b = 0.25;
    const float c = 1.5f;
    const uint64_t d = uint64_t(1) << 40;
    const int32_t e = -300, f = 1;
    std::memcpy(&push[0], &a, 4);
    std::memcpy(&push[8], &b, 8);
    std::memcpy(&push[16], &c, 4);
    std::memcpy(&push[24], &d, 8);
    std::memcpy(&push[32], &e, 4);
    std::memcpy(&push[36], &f, 4);
    std::vector<uint8_t> bout(8);
    ASSERT_EQ(run(device, k, full_vulkan_target(), {&bout}, 1, 1, 1, push), "");
    EXPECT_EQ(from_bytes<double>(bout)[0], -5 + 0.25 + 1.5 + double(d) - 300);
}

TEST(SpirvNumericsStmt, BoolBuffersAreBytes) {
    REQUIRE_DEVICE();
    // out[x] = in[x] != (x % 3 == 0), with 4-lane vectors.
    Expr index = ramp(Mul::make(var("x"), i32(4)), 1, 4);
    Expr third = EQ::make(Mod::make(index, Broadcast::make(i32(3), 4)), Broadcast::make(i32(0), 4));
    GPUKernel k;
    k.name = "bools";
    k.workgroup_size[0] = 64;
    k.args = {buffer_arg("in", Bool(), true, false), buffer_arg("out", Bool(), false, true)};
    k.body = LetStmt::make("x", global_x(), Store::make("out", NE::make(load(Bool(4), "in", index), third), index));
    std::vector<uint8_t> in(256), out(256, 7);
    for (int i = 0; i < 256; i++) in[i] = (i % 5 == 0) ? 1 : 0;
    ASSERT_EQ(run(device, k, vulkan_target("vk_int8"), {&in, &out}, 1), "");
    for (int i = 0; i < 256; i++) ASSERT_EQ(out[i], uint8_t((i % 5 == 0) != (i % 3 == 0))) << i;
}

TEST(SpirvNumericsStmt, RampShuffleAndVectorReduce) {
    REQUIRE_DEVICE();
    Expr x = var("x");
    Expr v = ramp(x, 1, 8);                        // x .. x+7
    Expr w = ramp(Mul::make(x, i32(10)), -3, 8);   // 10x, 10x-3, ...
    Expr shuffled = Shuffle::make({v, w}, {15, 0, 9, 3, 3, 12, 7, 1});
    Expr sums = VectorReduce::make(VectorReduce::Add, Add::make(v, w), 4);  // 4 lanes, groups of 2
    Expr top = VectorReduce::make(VectorReduce::Max, shuffled, 1);
    Expr bottom = VectorReduce::make(VectorReduce::Min, w, 1);
    Expr product = VectorReduce::make(VectorReduce::Mul, ramp(Add::make(Mod::make(x, i32(3)), i32(1)), 1, 3), 1);
    Expr any_big = VectorReduce::make(VectorReduce::Or, GT::make(w, Broadcast::make(i32(600), 8)), 1);
    Expr vectors_ramp = Ramp::make(ramp(x, 2, 2), Broadcast::make(i32(100), 2), 3);  // 6 lanes
    Expr base = Mul::make(x, i32(24));
    Stmt body = Block::make({Store::make("out", shuffled, ramp(base, 1, 8)),
                             Store::make("out", sums, ramp(Add::make(base, i32(8)), 1, 4)),
                             Store::make("out", top, Add::make(base, i32(12))),
                             Store::make("out", bottom, Add::make(base, i32(13))),
                             Store::make("out", product, Add::make(base, i32(14))),
                             Store::make("out", Select::make(any_big, i32(1), i32(0)), Add::make(base, i32(15))),
                             Store::make("out", vectors_ramp, ramp(Add::make(base, i32(16)), 1, 6)),
                             // A reversed (stride -1) store of a broadcast of a reduction.
                             Store::make("out", Broadcast::make(VectorReduce::make(VectorReduce::Add, v, 1), 2),
                                         ramp(Add::make(base, i32(23)), -1, 2))});
    GPUKernel k;
    k.name = "shapes";
    k.workgroup_size[0] = 64;
    k.args = {buffer_arg("out", Int(32), false, true)};
    k.body = LetStmt::make("x", global_x(), body);
    std::vector<int32_t> out(64 * 24);
    std::vector<uint8_t> bout = to_bytes(out);
    ASSERT_EQ(run(device, k, vulkan_target(), {&bout}, 1), "");
    out = from_bytes<int32_t>(bout);
    for (int xv = 0; xv < 64; xv++) {
        int vv[8], ww[8], all[16];
        for (int i = 0; i < 8; i++) {
            vv[i] = xv + i;
            ww[i] = 10 * xv - 3 * i;
            all[i] = vv[i];
            all[8 + i] = ww[i];
        }
        const int picks[8] = {15, 0, 9, 3, 3, 12, 7, 1};
        const int32_t *o = &out[xv * 24];
        int top_expected = INT32_MIN;
        for (int i = 0; i < 8; i++) {
            ASSERT_EQ(o[i], all[picks[i]]) << xv << " lane " << i;
            top_expected = std::max(top_expected, all[picks[i]]);
        }
        for (int j = 0; j < 4; j++) ASSERT_EQ(o[8 + j], vv[2 * j] + ww[2 * j] + vv[2 * j + 1] + ww[2 * j + 1]);
        ASSERT_EQ(o[12], top_expected);
        ASSERT_EQ(o[13], ww[7]);
        const int m = xv % 3 + 1;
        ASSERT_EQ(o[14], m * (m + 1) * (m + 2));
        ASSERT_EQ(o[15], 10 * xv > 600 ? 1 : 0);
        for (int r = 0; r < 3; r++) {
            for (int l = 0; l < 2; l++) ASSERT_EQ(o[16 + 2 * r + l], xv + 2 * l + 100 * r);
        }
        int total = 0;
        for (int i = 0; i < 8; i++) total += vv[i];
        ASSERT_EQ(o[22], total);
        ASSERT_EQ(o[23], total);
    }
}

}  // namespace
}  // namespace loom_test_spirv

namespace loom_test_spirv {
namespace {

TEST(SpirvHarness, ValidationLayerReportsErrors) {
    REQUIRE_DEVICE();
    if (!device->features().validation) GTEST_SKIP() << "VK_LAYER_KHRONOS_validation is not installed";
    // The kernel reads a push constant that the pipeline layout (no push
    // constants given) does not provide.
    GPUKernel k = elementwise_kernel("missing_push_constant", Int(32), var("n"), {scalar_arg("n", Int(32))});
    std::vector<uint8_t> out(64 * 4);
    std::string error = run(device, k, vulkan_target(), {&out}, 1);
    EXPECT_NE(error.find("validation layer"), std::string::npos) << error;
}

}  // namespace
}  // namespace loom_test_spirv
