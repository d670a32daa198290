// Random expressions (the simplifier fuzzers' generator, test/ir) over every
// integer width and Float(32), run on a Vulkan device and compared bit for
// bit with the reference interpreter: scalar expressions with lets, selects,
// casts, Euclidean division; integer vector expressions of 3 to 16 lanes
// built from ramps and broadcasts. strict_float keeps float arithmetic
// unfused, as the interpreter computes it. The sign of a zero result is not
// compared (see below). Skipped without a device.
// LOOM_SPIRV_FUZZ_SEEDS=<n> runs more expressions; LOOM_SPIRV_FUZZ_SEED=<s>
// runs the one of seed s.

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "SpirvTestUtil.h"
#include "VulkanHarness.h"
#include "ir/IRVisitor.h"
#include "ir/SimplifyFuzzSupport.h"

namespace loom_test_spirv {
namespace {

using loom::fuzz_support::Generator;
using loom::fuzz_support::Value;

class FreeVariables : public IRVisitor {
public:
    std::set<std::string> names;

protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override { names.insert(op->name); }
};

int seed_count(int default_count) {
    const char *s = std::getenv("LOOM_SPIRV_FUZZ_SEEDS");
    return s && *s ? std::atoi(s) : default_count;
}

// LOOM_SPIRV_FUZZ_SEED=<seed> runs that one expression (to reproduce a failure).
int first_index(uint32_t base) {
    const char *s = std::getenv("LOOM_SPIRV_FUZZ_SEED");
    return s && *s ? int(std::atoi(s) - base) : 0;
}

// Runs out[x * lanes + l] = lane l of e for samples x of its free variables
// on the device and compares with the interpreter. Returns false on a
// mismatch (reported).
bool check_expression(VulkanHarness *device, Generator &gen, const Expr &e, uint32_t seed) {
    const Type t = e.type().element_of();
    const int lanes = e.type().lanes();
    const std::map<std::string, Type> all_types = loom::fuzz_support::fuzz_var_types();
    FreeVariables free;
    e.accept(&free);
    std::vector<std::pair<std::string, Type>> vars;
    for (const std::string &n : free.names) {
        auto it = all_types.find(n);
        if (it != all_types.end()) vars.emplace_back(n, it->second);
    }

    const int samples = 128;
    std::vector<std::vector<uint8_t>> inputs(vars.size());
    std::vector<std::map<std::string, Value>> envs(samples);
    for (size_t v = 0; v < vars.size(); v++) {
        Type vt = vars[v].second;
        inputs[v].resize(size_t(samples) * vt.bytes());
        auto [lo, hi] = loom::fuzz_support::full_range(vt);
        for (int s = 0; s < samples; s++) {
            Value value = gen.sample(vt, lo, hi);
            envs[s][vars[v].first] = value;
            const uint64_t bits = uint64_t(value.i);
            if (vt.is_float()) {
                const float f = float(value.f);
                std::memcpy(&inputs[v][size_t(s) * 4], &f, 4);
            } else {
                std::memcpy(&inputs[v][size_t(s) * vt.bytes()], &bits, vt.bytes());
            }
        }
    }

    Expr index = lanes == 1 ? var("x") : Ramp::make(Mul::make(var("x"), i32(lanes)), i32(1), lanes);
    Stmt body = Store::make("out", e, index);
    GPUKernel k;
    k.name = "fuzz_" + std::to_string(seed);
    for (size_t v = 0; v < vars.size(); v++) {
        body = LetStmt::make(vars[v].first, load(vars[v].second, "in_" + vars[v].first, var("x")), body);
        k.args.push_back(buffer_arg("in_" + vars[v].first, vars[v].second, true, false));
    }
    k.args.push_back(buffer_arg("out", t, false, true));
    k.workgroup_size[0] = 64;
    k.body = LetStmt::make("x", global_x(), body);

    std::vector<uint32_t> words = compile_ok(k, full_vulkan_target("vk_v12-strict_float"));
    if (words.empty()) return false;
    std::vector<uint8_t> out(size_t(samples) * lanes * t.bytes());
    std::vector<std::vector<uint8_t> *> buffers;
    for (auto &in : inputs) buffers.push_back(&in);
    buffers.push_back(&out);
    const uint32_t groups[3] = {uint32_t(samples / 64), 1, 1};
    std::string error = device->run(words, k.name, buffers, {}, groups);
    if (!error.empty()) {
        ADD_FAILURE() << "seed " << seed << ": " << error << "\n" << e;
        return false;
    }
    for (int s = 0; s < samples; s++) {
        for (int l = 0; l < lanes; l++) {
            Value expected = loom::fuzz_support::interpret_lane(e, l, envs[s], all_types);
            Value got;
            const uint8_t *p = &out[(size_t(s) * lanes + l) * t.bytes()];
            if (t.is_float()) {
                float f;
                std::memcpy(&f, p, 4);
                got.f = f;
            } else {
                uint64_t bits = 0;
                std::memcpy(&bits, p, t.bytes());
                got.i = loom::fuzz_support::wrap(t, int64_t(bits));
                expected.i = loom::fuzz_support::wrap(t, expected.i);
            }
            // lavapipe (Mesa 22.3) folds x * 0.0 to 0.0 and 0.0 - x to -x
            // even under SignedZeroInfNanPreserve: zeros match whatever
            // their sign.
            const bool both_zero = t.is_float() && got.f == 0 && expected.f == 0;
            if (!both_zero && !loom::fuzz_support::same_value(t, got, expected)) {
                std::ostringstream env;
                for (const auto &[name, value] : envs[s]) {
                    env << " " << name << "=" << loom::fuzz_support::describe(all_types.at(name), value);
                }
                ADD_FAILURE() << "seed " << seed << ", lane " << l << ":" << env.str() << ": device "
                              << loom::fuzz_support::describe(t, got) << ", interpreter "
                              << loom::fuzz_support::describe(t, expected) << "\n"
                              << e;
                return false;
            }
        }
    }
    return true;
}

TEST(SpirvFuzz, ScalarExpressionsMatchTheInterpreter) {
    std::string why;
    VulkanHarness *device = VulkanHarness::get(&why);
    if (!device) GTEST_SKIP() << why;
    const int first = first_index(1000), seeds = first ? first + 1 : seed_count(120);
    int failures = 0;
    for (int i = first; i < seeds && failures < 5; i++) {
        const uint32_t seed = 1000 + uint32_t(i);
        Generator gen(seed);
        const auto &types = loom::fuzz_support::fuzz_types();
        Type t = types[i % types.size()];
        Expr e = gen.gen(t, 4);
        if (!check_expression(device, gen, e, seed)) failures++;
    }
}

TEST(SpirvFuzz, VectorExpressionsMatchTheInterpreter) {
    std::string why;
    VulkanHarness *device = VulkanHarness::get(&why);
    if (!device) GTEST_SKIP() << why;
    const int first = first_index(5000), seeds = first ? first + 1 : seed_count(60);
    const int lane_counts[] = {3, 4, 8, 16, 2, 6};
    int failures = 0;
    for (int i = first; i < seeds && failures < 5; i++) {
        const uint32_t seed = 5000 + uint32_t(i);
        Generator gen(seed);
        const auto &types = loom::fuzz_support::integer_fuzz_types();
        Type t = types[i % types.size()];
        Expr e = gen.gen_vector(t, lane_counts[i % 6], 3);
        if (!check_expression(device, gen, e, seed)) failures++;
    }
}

}  // namespace
}  // namespace loom_test_spirv

namespace loom_test_spirv {
namespace {

// Mesa 22.3's lavapipe (Debian 12) orders a sign-extended int32 against a
// small int64 constant as if it were zero-extended: int64(-93) <= 9 is
// false there. The SPIR-V (OpSConvert, OpSLessThanEqual) is right and the
// CPU gets it right; the fuzzer met it as seeds 2456 and 3572 of a 3,000
// expression campaign. Enable this test to check a newer driver.
TEST(SpirvFuzz, DISABLED_LavapipeSignExtendedCompare) {
    std::string why;
    VulkanHarness *device = VulkanHarness::get(&why);
    if (!device) GTEST_SKIP() << why;
    Expr wide = Cast::make(loom::Int(64), var("a", loom::Int(32)));
    Expr le = LE::make(wide, IntImm::make(loom::Int(64), 9));
    GPUKernel k;
    k.name = "sext_compare";
    k.args = {buffer_arg("in", loom::Int(32), true, false), buffer_arg("out", loom::Int(32), false, true)};
    k.body = LetStmt::make("a", load(loom::Int(32), "in", i32(0)),
                           Store::make("out", Select::make(le, i32(1), i32(0)), i32(0)));
    std::vector<uint8_t> in = to_bytes(std::vector<int32_t>{-93}), out(4);
    const uint32_t groups[3] = {1, 1, 1};
    ASSERT_EQ(device->run(compile_ok(k, full_vulkan_target("vk_v12")), k.name, {&in, &out}, {}, groups), "");
    EXPECT_EQ(from_bytes<int32_t>(out)[0], 1);
}

}  // namespace
}  // namespace loom_test_spirv
