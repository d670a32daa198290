#include "codegen/llvm/LLVMTarget.h"

#include "loom/Error.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include <mutex>
#include <vector>

namespace loom::internal {

namespace {

class FeatureList {
public:
    void add(const char *llvm_features) {
        if (!text_.empty()) text_ += ',';
        text_ += llvm_features;
    }
    const std::string &str() const { return text_; }

private:
    std::string text_;
};

bool has_avx512_level(const Target &t) {
    return t.features_any_of({Target::AVX512, Target::AVX512_Skylake, Target::AVX512_Cannonlake,
                              Target::AVX512_SapphireRapids, Target::AVX512_Zen4});
}

bool has_skylake_level(const Target &t) {
    return t.features_any_of({Target::AVX512_Skylake, Target::AVX512_Cannonlake,
                              Target::AVX512_SapphireRapids, Target::AVX512_Zen4});
}

bool has_cannonlake_level(const Target &t) {
    return t.features_any_of({Target::AVX512_Cannonlake, Target::AVX512_SapphireRapids, Target::AVX512_Zen4});
}

// Loom's x86 levels are cumulative: each one brings everything below it.
std::string x86_features(const Target &t) {
    const bool avx512 = has_avx512_level(t);
    const bool avx2 = avx512 || t.has_feature(Target::AVX2);
    const bool fma = avx512 || t.has_feature(Target::FMA);
    const bool f16c = avx512 || t.has_feature(Target::F16C);
    const bool avxvnni = t.features_any_of({Target::AVXVNNI, Target::AVX512_SapphireRapids});
    const bool avx = avx2 || fma || f16c || avxvnni || t.has_feature(Target::AVX);
    const bool sse41 = avx || t.has_feature(Target::SSE41);

    FeatureList fl;
    if (sse41) fl.add("+sse4.1");
    if (avx) fl.add("+sse4.2,+popcnt,+avx");
    if (avx2) fl.add("+avx2");
    // Tuning, not an instruction set: every AVX2 CPU loads and stores
    // unaligned 32 bytes at full speed, but the generic CPU chosen for an
    // AVX2 target without F16C (x86-64-v2) assumes Sandy Bridge and splits
    // each unaligned ymm access into two xmm halves.
    if (avx2) fl.add("-slow-unaligned-mem-32");
    if (fma) fl.add("+fma");
    if (f16c) fl.add("+f16c");
    if (avxvnni) fl.add("+avxvnni");
    if (avx512) fl.add("+avx512f,+avx512cd");
    if (has_skylake_level(t)) fl.add("+avx512vl,+avx512bw,+avx512dq");
    if (has_cannonlake_level(t)) fl.add("+avx512ifma,+avx512vbmi");
    if (t.has_feature(Target::AVX512_SapphireRapids)) fl.add("+avx512vnni,+avx512bf16,+avx512fp16");
    if (t.has_feature(Target::AVX512_Zen4)) {
        fl.add("+avx512vnni,+avx512bf16,+avx512vbmi2,+avx512bitalg,+avx512vpopcntdq");
    }
    return fl.str();
}

std::string arm_features(const Target &t) {
    FeatureList fl;
    fl.add(t.has_feature(Target::NoNEON) ? "-neon" : "+neon");
    if (t.has_feature(Target::ARMFp16)) fl.add("+fullfp16");
    if (t.has_feature(Target::ARMDotProd)) fl.add("+dotprod");
    if (t.has_feature(Target::SVE) || t.has_feature(Target::SVE2)) fl.add("+sve");
    if (t.has_feature(Target::SVE2)) fl.add("+sve2");
    return fl.str();
}

const std::string &host_features() {
    static const std::string features = [] {
        std::string s;
        for (const auto &entry : llvm::sys::getHostCPUFeatures()) {
            if (!s.empty()) s += ',';
            s += entry.second ? '+' : '-';
            s += entry.first().str();
        }
        return s;
    }();
    return features;
}

const char *x86_generic_cpu(const Target &t) {
    if (t.bits == 32) return "pentium4";
    if (has_skylake_level(t)) return "x86-64-v4";
    const bool avx2 = has_avx512_level(t) || t.has_feature(Target::AVX2);
    const bool fma = has_avx512_level(t) || t.has_feature(Target::FMA);
    const bool f16c = has_avx512_level(t) || t.has_feature(Target::F16C);
    if (avx2 && fma && f16c) return "x86-64-v3";
    // Every AVX CPU has SSE4.2, POPCNT and CMPXCHG16B, which is x86-64-v2.
    if (avx2 || fma || f16c || t.has_feature(Target::AVX) || t.has_feature(Target::AVXVNNI)) return "x86-64-v2";
    return "x86-64";
}

// What the LLVM back end cannot compile, as CompileErrors that say what to
// use instead. 32-bit targets are compiled with 32-bit pointers (the
// target's DataLayout decides every struct offset and pointer argument).
void check_llvm_back_end_supports(const Target &t) {
    if (t.arch != Target::X86 && t.arch != Target::ARM) {
        throw CompileError("Target " + t.to_string() + " has no LLVM back end in Loom; use an x86 or arm target.");
    }
    if (t.has_feature(Target::ARMv7s) && t.bits != 32) {
        throw CompileError("Target " + t.to_string() + " has armv7s, a feature of 32-bit ARM CPUs. Remove armv7s, "
                           "or use a 32-bit target such as arm-32-ios-armv7s.");
    }
    if (t.bits != 32) return;
    if (t.has_feature(Target::SVE) || t.has_feature(Target::SVE2)) {
        throw CompileError("Target " + t.to_string() + " has sve/sve2, which only 64-bit ARM (AArch64) CPUs have. "
                           "Remove them, or use an arm-64 target.");
    }
    if (t.has_feature(Target::LargeBuffers)) {
        throw CompileError("Target " + t.to_string() + " has large_buffers, but a 32-bit target cannot address "
                           "buffers of 2^31 bytes or more. Remove large_buffers, or use a 64-bit target.");
    }
    if (t.has_feature(Target::Vulkan)) {
        throw CompileError("Target " + t.to_string() + " has vulkan, but Loom runs Vulkan pipelines from 64-bit "
                           "hosts only. Remove vulkan, or use a 64-bit target.");
    }
}

}  // namespace

bool is_isa_feature(Target::Feature f) {
    // The enum lists the instruction sets first, SSE41 to WasmSimd128.
    return f >= Target::SSE41 && f <= Target::WasmSimd128;
}

void initialize_llvm_targets() {
    static std::once_flag once;
    std::call_once(once, [] {
        LLVMInitializeX86TargetInfo();
        LLVMInitializeX86Target();
        LLVMInitializeX86TargetMC();
        LLVMInitializeX86AsmPrinter();
        // Object emission parses the runtime's inline assembly (cpuid in
        // runtime/CpuFeatures.c, the thread pool's spin-wait hint).
        LLVMInitializeX86AsmParser();
        LLVMInitializeAArch64TargetInfo();
        LLVMInitializeAArch64Target();
        LLVMInitializeAArch64TargetMC();
        LLVMInitializeAArch64AsmPrinter();
        LLVMInitializeAArch64AsmParser();
        LLVMInitializeARMTargetInfo();
        LLVMInitializeARMTarget();
        LLVMInitializeARMTargetMC();
        LLVMInitializeARMAsmPrinter();
        LLVMInitializeARMAsmParser();
        // Registering an already registered target is a no-op, so this only
        // matters on a host that is neither x86 nor AArch64.
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
    });
}

bool is_host_isa(const Target &t) {
    const Target host = get_host_target();
    if (t.arch != host.arch || t.bits != host.bits || t.os != host.os) return false;
    for (int i = 0; i < Target::FeatureEnd; i++) {
        auto f = Target::Feature(i);
        if (is_isa_feature(f) && t.has_feature(f) != host.has_feature(f)) return false;
    }
    return true;
}

std::string llvm_triple(const Target &t) {
    std::string arch_name;
    switch (t.arch) {
    case Target::X86: arch_name = t.bits == 64 ? "x86_64" : "i386"; break;
    case Target::ARM:
        if (t.bits == 64) {
            arch_name = t.os == Target::OSX || t.os == Target::IOS ? "arm64" : "aarch64";
        } else {
            arch_name = t.has_feature(Target::ARMv7s) ? "armv7s" : "armv7";
        }
        break;
    case Target::RISCV: arch_name = t.bits == 64 ? "riscv64" : "riscv32"; break;
    case Target::WebAssembly: arch_name = "wasm32"; break;
    case Target::ArchUnknown: break;
    }
    if (arch_name.empty() || (t.bits != 32 && t.bits != 64)) {
        throw CompileError("No LLVM triple for target " + t.to_string() + ": the architecture and bits must be known.");
    }

    switch (t.os) {
    case Target::Linux:
        if (t.arch == Target::ARM && t.bits == 32) return arch_name + "-unknown-linux-gnueabihf";
        return arch_name + "-unknown-linux-gnu";
    case Target::Android:
        if (t.arch == Target::ARM && t.bits == 32) return arch_name + "-unknown-linux-androideabi";
        return arch_name + "-unknown-linux-android";
    case Target::Windows: return arch_name + "-pc-windows-msvc";
    case Target::OSX: return arch_name + "-apple-macosx";
    case Target::IOS: return arch_name + "-apple-ios";
    case Target::NoOS:
        if (t.arch == Target::WebAssembly) return arch_name + "-unknown-unknown";
        return arch_name + "-unknown-none-elf";
    case Target::OSUnknown: break;
    }
    throw CompileError("No LLVM triple for target " + t.to_string() + ": the operating system must be known.");
}

std::string llvm_cpu_name(const Target &t) {
    if (is_host_isa(t)) return llvm::sys::getHostCPUName().str();
    switch (t.arch) {
    case Target::X86: return x86_generic_cpu(t);
    case Target::ARM: return t.bits == 64 ? "generic" : t.has_feature(Target::ARMv7s) ? "swift" : "cortex-a9";
    case Target::RISCV: return t.bits == 64 ? "generic-rv64" : "generic-rv32";
    case Target::WebAssembly: return "generic";
    case Target::ArchUnknown: break;
    }
    return "generic";
}

std::string llvm_feature_string(const Target &t) {
    if (is_host_isa(t)) {
        // LLVM's view of the host is complete (BMI2, POPCNT, ...); fall back
        // to Loom's own list where LLVM cannot detect the features.
        const std::string &host = host_features();
        if (!host.empty()) return host;
    }
    switch (t.arch) {
    case Target::X86: return x86_features(t);
    case Target::ARM: return arm_features(t);
    case Target::RISCV: return std::string("+m,+a,+f,+d,+c") + (t.has_feature(Target::RVV) ? ",+v" : "");
    case Target::WebAssembly: return t.has_feature(Target::WasmSimd128) ? "+simd128" : "";
    case Target::ArchUnknown: break;
    }
    return "";
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target &t) {
    initialize_llvm_targets();
    check_llvm_back_end_supports(t);

    const std::string triple = llvm_triple(t);
    std::string error;
    const llvm::Target *llvm_target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!llvm_target) {
        throw CompileError("LLVM has no back end for " + triple + " (target " + t.to_string() + "): " + error);
    }

    llvm::TargetOptions options;
    // Fuse a*b+c only where the IR carries the `contract` flag, so that the
    // code generator decides; strict_float forbids fusion altogether.
    options.AllowFPOpFusion =
        t.has_feature(Target::StrictFloat) ? llvm::FPOpFusion::Strict : llvm::FPOpFusion::Standard;

    llvm::TargetMachine *tm = llvm_target->createTargetMachine(
        triple, llvm_cpu_name(t), llvm_feature_string(t), options, llvm::Reloc::PIC_, std::nullopt,
        llvm::CodeGenOptLevel::Aggressive);
    if (!tm) throw InternalError("LLVM could not create a target machine for " + triple);
    return std::unique_ptr<llvm::TargetMachine>(tm);
}

}  // namespace loom::internal
