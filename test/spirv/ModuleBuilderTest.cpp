// SpirvModule (the word-level builder), validate_spirv and disassemble_spirv.

#include <gtest/gtest.h>

#include "SpirvTestUtil.h"
#include "codegen/spirv/SpirvModule.h"

namespace loom_test_spirv {
namespace {

using loom::internal::spirv::Id;
using loom::internal::spirv::SpirvModule;

// The smallest valid compute module: an empty GLCompute entry point.
std::vector<uint32_t> empty_compute_module(SpirvModule &m) {
    m.add_capability(spv::Capability::Shader);
    const Id void_type = m.type_void();
    const Id function = m.reserve_id();
    m.begin_function(function, void_type, m.type_function(void_type, {}));
    m.emit_void(spv::Op::OpReturn, {});
    m.end_function();
    m.add_entry_point(spv::ExecutionModel::GLCompute, function, "main", {});
    m.add_execution_mode(function, spv::ExecutionMode::LocalSize, {1, 1, 1});
    return m.finish();
}

TEST(SpirvModule, TypesAndConstantsAreMadeOnce) {
    SpirvModule m(0x00010000);
    const Id i32 = m.type_int(32, true);
    EXPECT_EQ(m.type_int(32, true), i32);
    EXPECT_NE(m.type_int(32, false), i32);
    EXPECT_NE(m.type_int(16, true), i32);
    const Id v4 = m.type_vector(i32, 4);
    EXPECT_EQ(m.type_vector(i32, 4), v4);
    const Id seven = m.constant(i32, {7});
    EXPECT_EQ(m.constant(i32, {7}), seven);
    EXPECT_NE(m.constant(i32, {8}), seven);
    EXPECT_EQ(m.constant_composite(v4, {seven, seven, seven, seven}),
              m.constant_composite(v4, {seven, seven, seven, seven}));
    const Id b = m.type_bool();
    EXPECT_NE(m.constant_bool(b, true), m.constant_bool(b, false));
    EXPECT_EQ(m.constant_bool(b, true), m.constant_bool(b, true));
    // Structs are never merged: they may be decorated differently.
    EXPECT_NE(m.type_struct({i32}), m.type_struct({i32}));
}

TEST(SpirvModule, StringsArePaddedWithNuls) {
    std::vector<uint32_t> words;
    SpirvModule::append_string(words, "abc");
    ASSERT_EQ(words.size(), 1u);
    EXPECT_EQ(words[0], 0x00636261u);
    words.clear();
    SpirvModule::append_string(words, "abcd");
    ASSERT_EQ(words.size(), 2u);  // a whole word of nuls ends it
    EXPECT_EQ(words[1], 0u);
    words.clear();
    SpirvModule::append_string(words, "");
    EXPECT_EQ(words, std::vector<uint32_t>{0u});
}

TEST(SpirvModule, HeaderAndSectionOrder) {
    SpirvModule m(0x00010500);
    std::vector<uint32_t> words = empty_compute_module(m);
    ASSERT_GE(words.size(), 5u);
    EXPECT_EQ(words[0], spv::MagicNumber);
    EXPECT_EQ(words[1], 0x00010500u);
    // The bound is one more than the largest id.
    EXPECT_GT(words[3], 1u);
    // The first instruction is OpCapability Shader, the second OpMemoryModel.
    EXPECT_EQ(words[5] & 0xffff, uint32_t(spv::Op::OpCapability));
    EXPECT_EQ(words[6], uint32_t(spv::Capability::Shader));
    EXPECT_EQ(words[7] & 0xffff, uint32_t(spv::Op::OpMemoryModel));
    EXPECT_EQ(validate_spirv(words, vulkan_target("vk_v12")), "");
    EXPECT_EQ(validate_spirv(words, vulkan_target("vk_v13")), "");
}

TEST(SpirvModule, EmptyKernelValidatesInVulkan10) {
    SpirvModule m(0x00010000);
    EXPECT_EQ(validate_spirv(empty_compute_module(m), vulkan_target()), "");
}

TEST(ValidateSpirv, ReportsCorruptedModules) {
    SpirvModule m(0x00010000);
    std::vector<uint32_t> good = empty_compute_module(m);
    ASSERT_EQ(validate_spirv(good, vulkan_target()), "");

    std::vector<uint32_t> bad_magic = good;
    bad_magic[0] = 0xdeadbeef;
    EXPECT_NE(validate_spirv(bad_magic, vulkan_target()), "");

    std::vector<uint32_t> truncated(good.begin(), good.end() - 1);  // no OpFunctionEnd
    EXPECT_NE(validate_spirv(truncated, vulkan_target()), "");

    // A word count of zero in the first instruction.
    std::vector<uint32_t> bad_count = good;
    bad_count[5] = uint32_t(spv::Op::OpCapability);
    EXPECT_NE(validate_spirv(bad_count, vulkan_target()), "");

    // An id beyond the bound.
    std::vector<uint32_t> bad_bound = good;
    bad_bound[3] = 1;
    EXPECT_NE(validate_spirv(bad_bound, vulkan_target()), "");

    EXPECT_NE(validate_spirv({}, vulkan_target()), "");
}

TEST(ValidateSpirv, ChecksTheVulkanVersion) {
    // A SPIR-V 1.6 module is not a Vulkan 1.0 module.
    SpirvModule m(0x00010600);
    std::vector<uint32_t> words = empty_compute_module(m);
    EXPECT_EQ(validate_spirv(words, vulkan_target("vk_v13")), "");
    EXPECT_NE(validate_spirv(words, vulkan_target()), "");
}

TEST(DisassembleSpirv, NamesTheEntryPoint) {
    SpirvModule m(0x00010000);
    std::string text = disassemble_spirv(empty_compute_module(m));
    EXPECT_NE(text.find("OpEntryPoint GLCompute"), std::string::npos) << text;
    EXPECT_NE(text.find("\"main\""), std::string::npos) << text;
    EXPECT_NE(text.find("LocalSize 1 1 1"), std::string::npos) << text;
    EXPECT_NE(disassemble_spirv({1, 2, 3}).find("failed"), std::string::npos);
}

}  // namespace
}  // namespace loom_test_spirv
