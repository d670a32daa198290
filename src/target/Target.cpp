#include "loom/Target.h"

#include "loom/Error.h"
#include "loom/Type.h"
#include "loom/runtime/loom_runtime.h"
#include "runtime/ErrorCapture.h"

#include <algorithm>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#define LOOM_HOST_X86 1
#include <cpuid.h>
#endif

#if defined(__aarch64__) && defined(__linux__)
#define LOOM_HOST_AARCH64_LINUX 1
#include <sys/auxv.h>
#endif

namespace loom {

namespace {

template<typename E>
struct NamedValue {
    const char *name;
    E value;
};

constexpr NamedValue<Target::Arch> arch_names[] = {
    {"x86", Target::X86},
    {"arm", Target::ARM},
    {"riscv", Target::RISCV},
    {"wasm", Target::WebAssembly},
};

constexpr NamedValue<Target::OS> os_names[] = {
    {"linux", Target::Linux},
    {"windows", Target::Windows},
    {"osx", Target::OSX},
    {"android", Target::Android},
    {"noos", Target::NoOS},
    {"ios", Target::IOS},
};

// Indexed by Feature; the order is the canonical to_string() order.
constexpr const char *feature_names[Target::FeatureEnd] = {
    "sse41", "avx", "avx2", "fma", "f16c", "avx512", "avx512_skylake", "avx512_cannonlake",
    "avx512_sapphirerapids", "avx512_zen4", "avxvnni",
    "no_neon", "arm_fp16", "arm_dot_prod", "sve", "sve2", "armv7s",
    "rvv", "wasm_simd128",
    "vulkan", "vk_int8", "vk_int16", "vk_int64", "vk_float16", "vk_float64", "vk_v12", "vk_v13",
    "debug", "no_asserts", "no_bounds_query", "strict_float", "jit", "no_runtime", "large_buffers",
    "profile", "trace_all", "trace_loads", "trace_stores", "trace_realizations", "trace_pipeline",
    "cuda", "opencl", "metal", "d3d12compute", "openglcompute", "webgpu",
};

// The architecture a feature belongs to, or ArchUnknown for features that
// are valid everywhere.
Target::Arch feature_arch(Target::Feature f) {
    if (f >= Target::SSE41 && f <= Target::AVXVNNI) return Target::X86;
    if (f >= Target::NoNEON && f <= Target::ARMv7s) return Target::ARM;
    if (f == Target::RVV) return Target::RISCV;
    if (f == Target::WasmSimd128) return Target::WebAssembly;
    return Target::ArchUnknown;
}

template<typename E, size_t N>
const char *name_of(const NamedValue<E> (&table)[N], E value, const char *unknown) {
    for (const auto &entry : table) {
        if (entry.value == value) return entry.name;
    }
    return unknown;
}

template<typename E, size_t N>
bool lookup_name(const NamedValue<E> (&table)[N], const std::string &name, E *value) {
    for (const auto &entry : table) {
        if (name == entry.name) {
            *value = entry.value;
            return true;
        }
    }
    return false;
}

bool lookup_feature(const std::string &name, Target::Feature *f) {
    for (int i = 0; i < Target::FeatureEnd; i++) {
        if (name == feature_names[i]) {
            *f = Target::Feature(i);
            return true;
        }
    }
    return false;
}

template<typename E, size_t N>
std::string join_names(const NamedValue<E> (&table)[N]) {
    std::string s;
    for (const auto &entry : table) {
        if (!s.empty()) s += ", ";
        s += entry.name;
    }
    return s;
}

std::string valid_tokens_message() {
    std::string features;
    for (const char *name : feature_names) {
        if (!features.empty()) features += ", ";
        features += name;
    }
    return "Valid tokens are: 'host' (first token only); architectures " + join_names(arch_names) +
           "; bits 32, 64; operating systems " + join_names(os_names) + "; features " + features + ".";
}

[[noreturn]] void bad_target_string(const std::string &s, const std::string &why) {
    throw CompileError("Invalid target string '" + s + "': " + why + " " + valid_tokens_message());
}

void check_features_fit_arch(const Target &t, const std::string &context) {
    if (t.arch == Target::ArchUnknown) return;
    for (int i = 0; i < Target::FeatureEnd; i++) {
        auto f = Target::Feature(i);
        Target::Arch owner = feature_arch(f);
        if (!t.has_feature(f) || owner == Target::ArchUnknown || owner == t.arch) continue;
        throw CompileError(context + "feature '" + feature_names[i] + "' is for " +
                           name_of(arch_names, owner, "?") + " targets, not " +
                           name_of(arch_names, t.arch, "?") + ".");
    }
}

void check_bits(Target::Arch arch, int bits, const std::string &context) {
    if (bits != 32 && bits != 64) {
        throw CompileError(context + "bits must be 32 or 64, not " + std::to_string(bits) + ".");
    }
    if (arch == Target::WebAssembly && bits != 32) {
        throw CompileError(context + "wasm targets are 32-bit.");
    }
}

std::vector<std::string> split_tokens(const std::string &s) {
    std::vector<std::string> tokens;
    size_t start = 0;
    while (true) {
        size_t dash = s.find('-', start);
        tokens.push_back(s.substr(start, dash - start));
        if (dash == std::string::npos) break;
        start = dash + 1;
    }
    return tokens;
}

#ifdef LOOM_HOST_X86

struct CpuidRegs {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidRegs cpuid(unsigned leaf, unsigned subleaf) {
    CpuidRegs r;
    if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) return CpuidRegs{};
    return r;
}

// The register state the OS saves on context switch (XCR0). A CPU feature is
// only usable if the OS also saves its registers.
uint64_t os_saved_state() {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t(hi) << 32) | lo;
}

void detect_x86_features(Target &t) {
    auto bit = [](unsigned reg, int n) { return ((reg >> n) & 1u) != 0; };

    CpuidRegs leaf1 = cpuid(1, 0);
    CpuidRegs leaf7 = cpuid(7, 0);
    CpuidRegs leaf7_1 = cpuid(7, 1);

    const bool osxsave = bit(leaf1.ecx, 27);
    const uint64_t xcr0 = osxsave ? os_saved_state() : 0;
    const bool os_saves_ymm = (xcr0 & 0x6) == 0x6;            // XMM and YMM
    const bool os_saves_zmm = os_saves_ymm && (xcr0 & 0xe0) == 0xe0;  // opmask, ZMM_Hi256, Hi16_ZMM

    const bool sse41 = bit(leaf1.ecx, 19);
    const bool avx = bit(leaf1.ecx, 28) && os_saves_ymm;
    const bool fma = bit(leaf1.ecx, 12) && avx;
    const bool f16c = bit(leaf1.ecx, 29) && avx;
    const bool avx2 = bit(leaf7.ebx, 5) && avx;

    const bool avx512f = bit(leaf7.ebx, 16) && os_saves_zmm;
    const bool avx512dq = bit(leaf7.ebx, 17);
    const bool avx512ifma = bit(leaf7.ebx, 21);
    const bool avx512cd = bit(leaf7.ebx, 28);
    const bool avx512bw = bit(leaf7.ebx, 30);
    const bool avx512vl = bit(leaf7.ebx, 31);
    const bool avx512vbmi = bit(leaf7.ecx, 1);
    const bool avx512vbmi2 = bit(leaf7.ecx, 6);
    const bool avx512vnni = bit(leaf7.ecx, 11);
    const bool avx512bitalg = bit(leaf7.ecx, 12);
    const bool avx512vpopcntdq = bit(leaf7.ecx, 14);
    const bool avx512fp16 = bit(leaf7.edx, 23);
    const bool avxvnni = bit(leaf7_1.eax, 4) && avx;
    const bool avx512bf16 = bit(leaf7_1.eax, 5);

    t.set_feature(Target::SSE41, sse41);
    t.set_feature(Target::AVX, avx);
    t.set_feature(Target::AVX2, avx2);
    t.set_feature(Target::FMA, fma);
    t.set_feature(Target::F16C, f16c);
    t.set_feature(Target::AVXVNNI, avxvnni);

    const bool base512 = avx512f && avx512cd && avx2 && fma && f16c;
    const bool skylake = base512 && avx512vl && avx512bw && avx512dq;
    const bool cannonlake = skylake && avx512ifma && avx512vbmi;
    const bool sapphire = cannonlake && avx512vnni && avx512bf16 && avx512fp16 && avxvnni;
    const bool zen4 = cannonlake && avx512vnni && avx512bf16 && avx512vbmi2 && avx512bitalg &&
                      avx512vpopcntdq;
    t.set_feature(Target::AVX512, base512);
    t.set_feature(Target::AVX512_Skylake, skylake);
    t.set_feature(Target::AVX512_Cannonlake, cannonlake);
    t.set_feature(Target::AVX512_SapphireRapids, sapphire);
    t.set_feature(Target::AVX512_Zen4, zen4);
}

#endif  // LOOM_HOST_X86

#ifdef LOOM_HOST_AARCH64_LINUX

void detect_aarch64_features(Target &t) {
    // Bit positions of the Linux arm64 hwcaps (asm/hwcap.h), spelled out so
    // that an older kernel header does not hide them.
    const unsigned long hwcap = getauxval(AT_HWCAP);
    const unsigned long hwcap2 = getauxval(AT_HWCAP2);
    const bool asimd = (hwcap >> 1) & 1;
    const bool asimdhp = (hwcap >> 10) & 1;
    const bool asimddp = (hwcap >> 20) & 1;
    const bool sve = (hwcap >> 22) & 1;
    const bool sve2 = (hwcap2 >> 1) & 1;
    t.set_feature(Target::NoNEON, !asimd);
    t.set_feature(Target::ARMFp16, asimdhp);
    t.set_feature(Target::ARMDotProd, asimddp);
    t.set_feature(Target::SVE, sve);
    t.set_feature(Target::SVE2, sve2);
}

#endif  // LOOM_HOST_AARCH64_LINUX

Target detect_host_target() {
    Target t;
#if defined(__ANDROID__)
    t.os = Target::Android;
#elif defined(__linux__)
    t.os = Target::Linux;
#elif defined(_WIN32)
    t.os = Target::Windows;
#elif defined(__APPLE__)
    t.os = Target::OSX;
#endif

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
    t.arch = Target::X86;
#elif defined(__aarch64__) || defined(__arm__)
    t.arch = Target::ARM;
#elif defined(__riscv)
    t.arch = Target::RISCV;
#elif defined(__wasm__)
    t.arch = Target::WebAssembly;
#endif
    t.bits = int(sizeof(void *) * 8);

#ifdef LOOM_HOST_X86
    detect_x86_features(t);
#endif
#ifdef LOOM_HOST_AARCH64_LINUX
    detect_aarch64_features(t);
#endif
    return t;
}

std::string getenv_string(const char *name) {
    const char *value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

/** host-vulkan: the vk_* features of the Vulkan device this process would
 * run on. Without a usable device only `vulkan` stays, and running a kernel
 * reports why there is no device. */
void add_host_vulkan_features(Target &t) {
    loom_vulkan_device_info_t info;
    internal::ScopedErrorCapture quiet;  // no device: the first dispatch says so
    if (loom_vulkan_get_device_info(nullptr, &info) != 0) return;
    const std::pair<uint64_t, Target::Feature> map[] = {
        {loom_vulkan_feature_int8, Target::VkInt8},       {loom_vulkan_feature_int16, Target::VkInt16},
        {loom_vulkan_feature_int64, Target::VkInt64},     {loom_vulkan_feature_float16, Target::VkFloat16},
        {loom_vulkan_feature_float64, Target::VkFloat64}, {loom_vulkan_feature_v12, Target::VkV12},
        {loom_vulkan_feature_v13, Target::VkV13},
    };
    for (const auto &[bit, feature] : map) {
        if (info.features & bit) t.set_feature(feature);
    }
}

}  // namespace

Target::Target(const std::string &s) {
    if (s.empty()) {
        *this = get_host_target();
        return;
    }

    // After "host" (Halide's rule), an architecture, bit width or operating
    // system may still be given once each: it replaces the host's
    // (host-x86-64-no_runtime, host-windows). Without "host", all three are needed.
    bool arch_set = false, bits_set = false, os_set = false, from_host = false;
    const std::vector<std::string> tokens = split_tokens(s);
    for (size_t i = 0; i < tokens.size(); i++) {
        const std::string &tok = tokens[i];
        Arch a;
        OS o;
        Feature f;
        if (tok.empty()) {
            bad_target_string(s, "empty token (two dashes in a row, or a leading or trailing dash).");
        } else if (tok == "host") {
            if (i != 0) bad_target_string(s, "'host' must be the first token.");
            *this = get_host_target();
            from_host = true;
        } else if (lookup_name(arch_names, tok, &a)) {
            if (arch_set) bad_target_string(s, "architecture given twice at token '" + tok + "'.");
            arch = a;
            arch_set = true;
        } else if (tok == "32" || tok == "64") {
            if (bits_set) bad_target_string(s, "bits given twice at token '" + tok + "'.");
            bits = std::stoi(tok);
            bits_set = true;
        } else if (lookup_name(os_names, tok, &o)) {
            if (os_set) bad_target_string(s, "operating system given twice at token '" + tok + "'.");
            os = o;
            os_set = true;
        } else if (lookup_feature(tok, &f)) {
            set_feature(f);
        } else {
            bad_target_string(s, "unknown token '" + tok + "'.");
        }
    }

    if (!from_host && (!arch_set || !bits_set || !os_set)) {
        std::string missing;
        if (!arch_set) missing += " architecture";
        if (!bits_set) missing += " bits";
        if (!os_set) missing += " operating-system";
        bad_target_string(s, "missing" + missing + " (write arch-bits-os, e.g. x86-64-linux, or start with host).");
    }
    const std::string context = "Invalid target string '" + s + "': ";
    check_bits(arch, bits, context);
    check_features_fit_arch(*this, context);
    if (tokens[0] == "host" && has_feature(Vulkan)) add_host_vulkan_features(*this);
}

Target::Target(OS os_, Arch arch_, int bits_, const std::vector<Feature> &features)
    : os(os_), arch(arch_), bits(bits_) {
    set_features(features);
    check_bits(arch, bits, "Invalid target: ");
    check_features_fit_arch(*this, "Invalid target " + to_string() + ": ");
}

bool Target::features_any_of(const std::vector<Feature> &fs) const {
    return std::any_of(fs.begin(), fs.end(), [&](Feature f) { return has_feature(f); });
}

bool Target::features_all_of(const std::vector<Feature> &fs) const {
    return std::all_of(fs.begin(), fs.end(), [&](Feature f) { return has_feature(f); });
}

void Target::set_feature(Feature f, bool value) {
    if (f < 0 || f >= FeatureEnd) throw InternalError("Target::set_feature: feature out of range");
    if (value && f >= CUDA) {
        throw CompileError(std::string("Target feature '") + feature_names[f] + "': Loom has no " +
                           feature_names[f] + " back end; its GPU schedules run through Vulkan. Use the feature "
                           "'vulkan' (Target::Vulkan) instead, e.g. get_host_target().with_feature(Target::Vulkan).");
    }
    features_.set(f, value);
}

void Target::set_features(const std::vector<Feature> &fs, bool value) {
    for (Feature f : fs) set_feature(f, value);
}

Target Target::with_feature(Feature f) const {
    Target t = *this;
    t.set_feature(f, true);
    return t;
}

Target Target::without_feature(Feature f) const {
    Target t = *this;
    t.set_feature(f, false);
    return t;
}

std::string Target::to_string() const {
    std::string s = name_of(arch_names, arch, "arch_unknown");
    s += '-';
    s += std::to_string(bits);
    s += '-';
    s += name_of(os_names, os, "os_unknown");
    for (int i = 0; i < FeatureEnd; i++) {
        if (!features_.test(i)) continue;
        s += '-';
        s += feature_names[i];
    }
    return s;
}

int Target::vector_bits() const {
    switch (arch) {
    case X86:
        if (features_any_of({AVX512, AVX512_Skylake, AVX512_Cannonlake, AVX512_SapphireRapids,
                             AVX512_Zen4})) {
            return 512;
        }
        if (has_feature(AVX2)) return 256;
        return 128;  // SSE2 is part of every x86-64 CPU (and assumed for x86-32)
    case ARM:
        return has_feature(NoNEON) ? 0 : 128;
    case RISCV:
        // RVV registers are sized by the hardware; 128 is the minimum VLEN
        // of the application profiles.
        return has_feature(RVV) ? 128 : 0;
    case WebAssembly:
        return has_feature(WasmSimd128) ? 128 : 0;
    case ArchUnknown:
        break;
    }
    return 0;
}

int Target::natural_vector_size_for(int element_bits, bool is_float) const {
    if (element_bits <= 0) throw InternalError("natural_vector_size_for: element_bits must be positive");
    int width = vector_bits();
    // AVX without AVX2 has 256-bit float arithmetic but 128-bit integers.
    if (is_float && arch == X86 && width < 256 && has_feature(AVX)) width = 256;
    return std::max(1, width / element_bits);
}

int Target::natural_vector_size(const Type &t) const {
    return natural_vector_size_for(t.bytes() * 8, t.is_float());
}

bool Target::validate_target_string(const std::string &s) {
    try {
        Target t(s);
        (void)t;
        return true;
    } catch (const CompileError &) {
        return false;
    }
}

std::string Target::feature_to_name(Feature f) {
    if (f < 0 || f >= FeatureEnd) throw InternalError("Target::feature_to_name: feature out of range");
    return feature_names[f];
}

Target::Feature Target::feature_from_name(const std::string &name) {
    Feature f;
    if (!lookup_feature(name, &f)) {
        std::string all;
        for (const char *n : feature_names) all += std::string(all.empty() ? "" : ", ") + n;
        throw CompileError("Unknown target feature '" + name + "'. Valid features are: " + all + ".");
    }
    return f;
}

Target get_host_target() {
    static const Target host = detect_host_target();
    return host;
}

Target get_jit_target_from_environment() {
    const Target host = get_host_target();
    const std::string env = getenv_string("LOOM_JIT_TARGET");
    Target t = env.empty() ? host : Target(env);
    if (t.arch != host.arch || t.bits != host.bits || t.os != host.os) {
        throw CompileError("LOOM_JIT_TARGET='" + env + "' is not runnable in this process: the JIT needs the host's "
                           "arch, bits and OS (" + host.to_string() + ").");
    }
    t.set_feature(Target::JIT);
    return t;
}

Target get_target_from_environment() {
    const std::string env = getenv_string("LOOM_TARGET");
    return env.empty() ? get_host_target() : Target(env);
}

}  // namespace loom
