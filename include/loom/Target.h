#ifndef LOOM_TARGET_H
#define LOOM_TARGET_H

/** \file
 * Target: the machine a pipeline is compiled for.
 *
 * A Target is an architecture, a pointer width, an operating system and a set
 * of features (instruction-set extensions, GPU APIs, code-generation flags).
 * It has a string form `arch-bits-os-feature1-feature2...`:
 *
 *     Target t("x86-64-linux-avx2-fma");
 *     Target cross("arm-64-linux-arm_dot_prod");
 *     Target host("host");             // the CPU running this program
 *     Target dbg("host-debug");        // the host plus the debug feature
 *     t.to_string();                   // "x86-64-linux-avx2-fma"
 *
 * Features are written in the canonical order of the Feature enum by
 * to_string(), so Target(t.to_string()) == t. A malformed string raises
 * loom::CompileError naming the bad token and listing the valid ones.
 *
 * This header has no LLVM dependency; src/codegen/llvm/LLVMTarget.h maps a
 * Target onto an LLVM triple, CPU and feature string.
 */

#include <bitset>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace loom {

struct Type;

struct Target {
    enum OS { OSUnknown = 0, Linux, Windows, OSX, Android, NoOS, IOS };

    enum Arch { ArchUnknown = 0, X86, ARM, RISCV, WebAssembly };

    /** Features, in canonical to_string() order. Names in comments are the
     * tokens of the string form. */
    enum Feature {
        // x86 instruction sets. A higher level does not set the lower ones
        // implicitly in the feature set, but code generation treats it as
        // implying them (avx512_skylake implies avx512, avx2, avx, sse41...).
        SSE41,                  ///< sse41
        AVX,                    ///< avx
        AVX2,                   ///< avx2
        FMA,                    ///< fma
        F16C,                   ///< f16c
        AVX512,                 ///< avx512: AVX-512 F + CD
        AVX512_Skylake,         ///< avx512_skylake: + VL, BW, DQ
        AVX512_Cannonlake,      ///< avx512_cannonlake: + IFMA, VBMI
        AVX512_SapphireRapids,  ///< avx512_sapphirerapids: + VNNI, BF16, FP16, AVX-VNNI
        AVX512_Zen4,            ///< avx512_zen4: + VNNI, BF16, VBMI2, BITALG, VPOPCNTDQ
        AVXVNNI,                ///< avxvnni
        // ARM. NEON is on by default for ARM targets; no_neon turns it off.
        NoNEON,      ///< no_neon
        ARMFp16,     ///< arm_fp16: half-precision arithmetic
        ARMDotProd,  ///< arm_dot_prod: SDOT/UDOT
        SVE,         ///< sve
        SVE2,        ///< sve2
        ARMv7s,      ///< armv7s: 32-bit ARM of Apple's A6 (Swift) CPUs
        // Other architectures.
        RVV,          ///< rvv: RISC-V vector extension
        WasmSimd128,  ///< wasm_simd128
        // GPU APIs.
        Vulkan,     ///< vulkan: GPU schedules run through Vulkan (SPIR-V kernels)
        VkInt8,     ///< vk_int8: 8-bit integers in kernels and their buffers
        VkInt16,    ///< vk_int16: 16-bit integers in kernels and their buffers
        VkInt64,    ///< vk_int64: 64-bit integers in kernels
        VkFloat16,  ///< vk_float16: half floats in kernels and their buffers
        VkFloat64,  ///< vk_float64: double floats in kernels
        VkV12,      ///< vk_v12: Vulkan 1.2 (SPIR-V 1.5)
        VkV13,      ///< vk_v13: Vulkan 1.3 (SPIR-V 1.6)
        // Code-generation flags, valid on every architecture.
        Debug,          ///< debug: extra runtime checks and logging
        NoAsserts,      ///< no_asserts: omit runtime assertions
        NoBoundsQuery,  ///< no_bounds_query: omit bounds-query mode
        StrictFloat,    ///< strict_float: no fused or reassociated float math
        JIT,            ///< jit: compiling for the JIT in this process
        NoRuntime,      ///< no_runtime: AOT output without the runtime
        LargeBuffers,   ///< large_buffers: buffers may exceed 2^31 bytes
        Profile,        ///< profile: instrument for the profiler
        TraceAll,       ///< trace_all: trace every load, store and realization (Func::trace_*)
        TraceLoads,         ///< trace_loads: trace the loads of every Func and input buffer (Halide's)
        TraceStores,        ///< trace_stores: trace the stores of every Func (Halide's)
        TraceRealizations,  ///< trace_realizations: trace every realization, produce and consume (Halide's)
        TracePipeline,      ///< trace_pipeline: Begin/End pipeline events on every run (Halide's)
        // Halide's other GPU APIs. Loom runs GPU schedules through Vulkan
        // only: these names exist so that Halide programs compile, and
        // setting one (set_feature, with_feature, a target string) throws a
        // CompileError that says to use Vulkan instead.
        CUDA,           ///< cuda (refused)
        OpenCL,         ///< opencl (refused)
        Metal,          ///< metal (refused)
        D3D12Compute,   ///< d3d12compute (refused)
        OpenGLCompute,  ///< openglcompute (refused)
        WebGPU,         ///< webgpu (refused)
        FeatureEnd
    };

    OS os = OSUnknown;
    Arch arch = ArchUnknown;
    int bits = 0;

    /** An unknown target (arch_unknown-0-os_unknown); mostly a placeholder. */
    Target() = default;

    /** Parses the string form. The empty string means "host".
     * \throws CompileError on an unknown token, a repeated or missing
     * arch/bits/os, or a feature that does not belong to the architecture. */
    explicit Target(const std::string &s);
    explicit Target(const char *s) : Target(std::string(s)) {}

    /** \throws CompileError if bits is not 32 or 64, or a feature does not
     * belong to the architecture. */
    Target(OS os, Arch arch, int bits, const std::vector<Feature> &features = {});

    bool has_feature(Feature f) const { return features_.test(f); }
    bool features_any_of(const std::vector<Feature> &fs) const;
    bool features_all_of(const std::vector<Feature> &fs) const;

    /** \throws CompileError when setting one of Halide's GPU APIs other than
     * Vulkan (CUDA, OpenCL, Metal, ...), which Loom has no back end for. */
    void set_feature(Feature f, bool value = true);
    void set_features(const std::vector<Feature> &fs, bool value = true);

    /** Copies with one feature added or removed. */
    Target with_feature(Feature f) const;
    Target without_feature(Feature f) const;

    /** True if a GPU API feature (vulkan) is set. */
    bool has_gpu_feature() const { return has_feature(Vulkan); }

    /** `arch-bits-os[-feature...]`, features in enum order. */
    std::string to_string() const;

    /** Width in bits of the SIMD registers that integer and float code both
     * use efficiently: 512 with any avx512 level, 256 with avx2, 128 with
     * sse41/avx alone or baseline x86-64 SSE2, 128 for NEON and wasm_simd128,
     * 0 when the target has no SIMD unit Loom uses (no_neon, riscv without
     * rvv). AVX without AVX2 has 256-bit float but only 128-bit integer
     * operations, hence 128 here; natural_vector_size<float>() says 8. */
    int vector_bits() const;

    /** Lanes of a natural vector of t's element type (at least 1): e.g. 8
     * for Float(32) and 32 for UInt(8) with avx2. t's own lanes are ignored;
     * bool counts as a byte. */
    int natural_vector_size(const Type &t) const;

    /** Lanes of a natural vector of element type T (at least 1). */
    template<typename T>
    int natural_vector_size() const {
        static_assert(std::is_arithmetic_v<T>, "natural_vector_size needs a scalar element type");
        return natural_vector_size_for(int(sizeof(T)) * 8, std::is_floating_point_v<T>);
    }

    /** Lanes of a natural vector of elements of element_bits bits (at least 1). */
    int natural_vector_size_for(int element_bits, bool is_float) const;

    bool operator==(const Target &other) const {
        return os == other.os && arch == other.arch && bits == other.bits && features_ == other.features_;
    }
    bool operator!=(const Target &other) const { return !(*this == other); }

    /** True if s parses. */
    static bool validate_target_string(const std::string &s);

    /** The token of a feature ("avx2"); feature_from_name throws CompileError
     * for an unknown name. */
    static std::string feature_to_name(Feature f);
    static Feature feature_from_name(const std::string &name);

private:
    std::bitset<FeatureEnd> features_;
};

/** The machine running this process, detected from the CPU (cpuid on x86,
 * hwcaps on AArch64 Linux). Computed once. */
Target get_host_target();

/** Target for JIT compilation: $LOOM_JIT_TARGET if set and non-empty, else
 * the host; the jit feature is always set.
 * \throws CompileError if the string is malformed or names a different
 * arch, bits or OS than the host. */
Target get_jit_target_from_environment();

/** Target for AOT compilation: $LOOM_TARGET if set and non-empty, else the host.
 * \throws CompileError if the string is malformed. */
Target get_target_from_environment();

}  // namespace loom

#endif
