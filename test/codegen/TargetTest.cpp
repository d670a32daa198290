// loom::Target: parsing, printing, host detection, environment variables.

#include "ScopedEnv.h"
#include "loom/Error.h"
#include "loom/Target.h"
#include "loom/Type.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

using loom::CompileError;
using loom::Target;

// The message of the CompileError that parsing `s` raises ("" if none).
std::string parse_error(const std::string &s) {
    try {
        Target t(s);
        (void)t;
    } catch (const CompileError &e) {
        return e.what();
    }
    return "";
}

TEST(Target, CanonicalStringsRoundTrip) {
    for (const char *s : {"x86-64-linux", "x86-64-linux-avx2-fma", "arm-64-linux", "arm-64-android-arm_dot_prod",
                          "x86-32-windows-sse41", "x86-64-osx-avx-avx2-fma-f16c-avx512-avx512_skylake",
                          "arm-64-osx-arm_fp16-sve-sve2", "riscv-64-linux-rvv", "wasm-32-noos-wasm_simd128",
                          "x86-64-linux-vulkan-debug-no_asserts-no_bounds_query-strict_float-jit"}) {
        SCOPED_TRACE(s);
        Target t(s);
        EXPECT_EQ(t.to_string(), s);
        EXPECT_EQ(Target(t.to_string()), t);
    }
}

TEST(Target, FeaturesPrintInCanonicalOrder) {
    Target t("x86-64-linux-fma-debug-avx2");
    EXPECT_EQ(t.to_string(), "x86-64-linux-avx2-fma-debug");
    EXPECT_EQ(Target("linux-fma-64-x86-avx2"), Target("x86-64-linux-avx2-fma"));
}

TEST(Target, FieldsFromString) {
    Target t("arm-64-linux-arm_dot_prod");
    EXPECT_EQ(t.arch, Target::ARM);
    EXPECT_EQ(t.bits, 64);
    EXPECT_EQ(t.os, Target::Linux);
    EXPECT_TRUE(t.has_feature(Target::ARMDotProd));
    EXPECT_FALSE(t.has_feature(Target::ARMFp16));
}

TEST(Target, ConstructorFromParts) {
    Target t(Target::Linux, Target::X86, 64, {Target::FMA, Target::AVX2});
    EXPECT_EQ(t.to_string(), "x86-64-linux-avx2-fma");
    EXPECT_EQ(t, Target("x86-64-linux-avx2-fma"));
    EXPECT_THROW(Target(Target::Linux, Target::X86, 48), CompileError);
    EXPECT_THROW(Target(Target::Linux, Target::ARM, 64, {Target::AVX2}), CompileError);
}

TEST(Target, DefaultIsUnknown) {
    Target t;
    EXPECT_EQ(t.arch, Target::ArchUnknown);
    EXPECT_EQ(t.os, Target::OSUnknown);
    EXPECT_EQ(t.bits, 0);
    EXPECT_EQ(t.to_string(), "arch_unknown-0-os_unknown");
}

TEST(Target, FeatureEditing) {
    Target t("x86-64-linux");
    Target avx2 = t.with_feature(Target::AVX2);
    EXPECT_FALSE(t.has_feature(Target::AVX2));
    EXPECT_TRUE(avx2.has_feature(Target::AVX2));
    EXPECT_NE(t, avx2);
    EXPECT_EQ(avx2.without_feature(Target::AVX2), t);

    t.set_feature(Target::Debug);
    EXPECT_TRUE(t.has_feature(Target::Debug));
    t.set_feature(Target::Debug, false);
    EXPECT_FALSE(t.has_feature(Target::Debug));

    t.set_features({Target::SSE41, Target::AVX});
    EXPECT_TRUE(t.features_all_of({Target::SSE41, Target::AVX}));
    EXPECT_FALSE(t.features_all_of({Target::SSE41, Target::AVX2}));
    EXPECT_TRUE(t.features_any_of({Target::AVX2, Target::AVX}));
    EXPECT_FALSE(t.features_any_of({Target::AVX2, Target::FMA}));
}

TEST(Target, FeatureNames) {
    EXPECT_EQ(Target::feature_to_name(Target::AVX512_Skylake), "avx512_skylake");
    EXPECT_EQ(Target::feature_from_name("no_bounds_query"), Target::NoBoundsQuery);
    for (int i = 0; i < Target::FeatureEnd; i++) {
        auto f = Target::Feature(i);
        EXPECT_EQ(Target::feature_from_name(Target::feature_to_name(f)), f);
    }
    EXPECT_THROW(Target::feature_from_name("avx3"), CompileError);
}

TEST(Target, HostMatchesCpu) {
    Target host = loom::get_host_target();
    EXPECT_EQ(host.bits, int(sizeof(void *) * 8));
#if defined(__linux__) && !defined(__ANDROID__)
    EXPECT_EQ(host.os, Target::Linux);
#endif
#if defined(__x86_64__) || defined(__i386__)
    EXPECT_EQ(host.arch, Target::X86);
    __builtin_cpu_init();
    EXPECT_EQ(host.has_feature(Target::SSE41), bool(__builtin_cpu_supports("sse4.1")));
    EXPECT_EQ(host.has_feature(Target::AVX), bool(__builtin_cpu_supports("avx")));
    EXPECT_EQ(host.has_feature(Target::AVX2), bool(__builtin_cpu_supports("avx2")));
    EXPECT_EQ(host.has_feature(Target::FMA), bool(__builtin_cpu_supports("fma")));
    if (host.has_feature(Target::AVX512_Skylake)) {
        EXPECT_TRUE(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"));
        EXPECT_TRUE(host.has_feature(Target::AVX512));
    }
    // Only x86 features on an x86 host.
    EXPECT_FALSE(host.features_any_of({Target::NoNEON, Target::ARMFp16, Target::SVE, Target::RVV}));
#elif defined(__aarch64__)
    EXPECT_EQ(host.arch, Target::ARM);
    EXPECT_FALSE(host.has_feature(Target::AVX2));
#endif
    EXPECT_EQ(Target(host.to_string()), host);
}

TEST(Target, HostStrings) {
    Target host = loom::get_host_target();
    EXPECT_EQ(Target("host"), host);
    EXPECT_EQ(Target(""), host);
    EXPECT_EQ(Target("host-debug"), host.with_feature(Target::Debug));
    Target t("host-debug-no_asserts");
    EXPECT_TRUE(t.has_feature(Target::Debug));
    EXPECT_TRUE(t.has_feature(Target::NoAsserts));
    EXPECT_EQ(t.arch, host.arch);
}

TEST(Target, BadTokenIsNamed) {
    std::string message = parse_error("x86-64-linux-avx3");
    EXPECT_NE(message.find("'avx3'"), std::string::npos) << message;
    // The valid ones are listed.
    EXPECT_NE(message.find("avx2"), std::string::npos) << message;
    EXPECT_NE(message.find("linux"), std::string::npos) << message;
    EXPECT_NE(message.find("arm"), std::string::npos) << message;

    message = parse_error("x86-48-linux");
    EXPECT_NE(message.find("'48'"), std::string::npos) << message;
    message = parse_error("sparc-64-linux");
    EXPECT_NE(message.find("'sparc'"), std::string::npos) << message;
}

TEST(Target, MalformedStringsThrow) {
    EXPECT_NE(parse_error("x86-64"), "");                 // no OS
    EXPECT_NE(parse_error("x86-linux"), "");              // no bits
    EXPECT_NE(parse_error("64-linux"), "");               // no arch
    EXPECT_NE(parse_error("x86-64-linux-linux"), "");     // OS twice
    EXPECT_NE(parse_error("x86-64-32-linux"), "");        // bits twice
    EXPECT_NE(parse_error("x86--64-linux"), "");          // empty token
    EXPECT_NE(parse_error("x86-64-linux-"), "");          // trailing dash
    EXPECT_NE(parse_error("debug-host"), "");             // host not first
    EXPECT_NE(parse_error("host-x86-x86"), "");           // arch twice (once after host is allowed)
    EXPECT_NE(parse_error("wasm-64-noos"), "");           // wasm is 32-bit
    EXPECT_NE(parse_error("HOST"), "");                   // tokens are lower case

    std::string message = parse_error("arm-64-linux-avx2");
    EXPECT_NE(message.find("avx2"), std::string::npos) << message;
    EXPECT_NE(message.find("x86"), std::string::npos) << message;

    EXPECT_TRUE(Target::validate_target_string("arm-64-linux"));
    EXPECT_TRUE(Target::validate_target_string("host-debug"));
    EXPECT_FALSE(Target::validate_target_string("arm-64-linux-avx2"));
    EXPECT_FALSE(Target::validate_target_string("nonsense"));
}

TEST(Target, VectorWidths) {
    EXPECT_EQ(Target("x86-64-linux").vector_bits(), 128);
    EXPECT_EQ(Target("x86-64-linux-sse41").vector_bits(), 128);
    EXPECT_EQ(Target("x86-64-linux-avx").vector_bits(), 128);
    EXPECT_EQ(Target("x86-64-linux-avx-avx2").vector_bits(), 256);
    EXPECT_EQ(Target("x86-64-linux-avx512_skylake").vector_bits(), 512);
    EXPECT_EQ(Target("arm-64-linux").vector_bits(), 128);
    EXPECT_EQ(Target("arm-64-linux-no_neon").vector_bits(), 0);

    Target avx2("x86-64-linux-avx-avx2-fma");
    EXPECT_EQ(avx2.natural_vector_size(loom::Float(32)), 8);
    EXPECT_EQ(avx2.natural_vector_size(loom::UInt(8)), 32);
    EXPECT_EQ(avx2.natural_vector_size(loom::Int(16, 4)), 16);  // lanes of the argument are ignored
    EXPECT_EQ(avx2.natural_vector_size(loom::Bool()), 32);
    EXPECT_EQ(avx2.natural_vector_size<double>(), 4);
    EXPECT_EQ(avx2.natural_vector_size<uint16_t>(), 16);

    Target avx("x86-64-linux-avx");
    EXPECT_EQ(avx.natural_vector_size<float>(), 8);   // 256-bit float ops
    EXPECT_EQ(avx.natural_vector_size<int32_t>(), 4);  // but 128-bit integers

    EXPECT_EQ(Target("arm-64-linux-no_neon").natural_vector_size<float>(), 1);
    EXPECT_EQ(Target("x86-64-linux-avx512").natural_vector_size(loom::Float(32)), 16);
}

using loom_test::ScopedEnv;

TEST(Target, JitTargetFromEnvironment) {
    Target host = loom::get_host_target();
    {
        ScopedEnv env("LOOM_JIT_TARGET", nullptr);
        EXPECT_EQ(loom::get_jit_target_from_environment(), host.with_feature(Target::JIT));
    }
    {
        ScopedEnv env("LOOM_JIT_TARGET", "host-no_asserts");
        Target t = loom::get_jit_target_from_environment();
        EXPECT_TRUE(t.has_feature(Target::NoAsserts));
        EXPECT_TRUE(t.has_feature(Target::JIT));
    }
    {
        // The JIT cannot run code for another architecture.
        ScopedEnv env("LOOM_JIT_TARGET", host.arch == Target::X86 ? "arm-64-linux" : "x86-64-linux");
        EXPECT_THROW(loom::get_jit_target_from_environment(), CompileError);
    }
    {
        ScopedEnv env("LOOM_JIT_TARGET", "host-avx3");
        EXPECT_THROW(loom::get_jit_target_from_environment(), CompileError);
    }
}

TEST(Target, AotTargetFromEnvironment) {
    {
        ScopedEnv env("LOOM_TARGET", nullptr);
        EXPECT_EQ(loom::get_target_from_environment(), loom::get_host_target());
    }
    {
        ScopedEnv env("LOOM_TARGET", "arm-64-linux-arm_fp16");
        EXPECT_EQ(loom::get_target_from_environment(), Target("arm-64-linux-arm_fp16"));
    }
    {
        ScopedEnv env("LOOM_TARGET", "arm-64");
        EXPECT_THROW(loom::get_target_from_environment(), CompileError);
    }
}

}  // namespace
