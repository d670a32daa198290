/* The running CPU's features in loom::Target's terms (CpuFeatures.h): what a
 * multi-target library's dispatcher compares with each variant's target.
 * Portable C like Runtime.c; the cpuid instruction is written as inline
 * assembly because the freestanding bitcode build has no <cpuid.h>. */

#include "runtime/CpuFeatures.h"
#include "runtime/RuntimePlatform.h"

#if defined(__x86_64__) || defined(__i386__)

typedef struct {
    uint32_t eax, ebx, ecx, edx;
} loom_cpuid_t;

static loom_cpuid_t loom_cpuid(uint32_t leaf, uint32_t subleaf) {
    loom_cpuid_t r;
    __asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx) : "a"(leaf), "c"(subleaf));
    return r;
}

static int loom_bit(uint32_t reg, int n) { return (int)((reg >> n) & 1u); }

static uint64_t loom_detect_cpu_features(void) {
    const uint32_t max_leaf = loom_cpuid(0, 0).eax;
    const loom_cpuid_t leaf1 = loom_cpuid(1, 0);
    const loom_cpuid_t none = {0, 0, 0, 0};
    const loom_cpuid_t leaf7 = max_leaf >= 7 ? loom_cpuid(7, 0) : none;
    const loom_cpuid_t leaf7_1 = max_leaf >= 7 && leaf7.eax >= 1 ? loom_cpuid(7, 1) : none;

    /* Usable only if the OS saves the registers (XCR0): XMM+YMM, and the
     * opmask and ZMM state for AVX-512. */
    uint64_t xcr0 = 0;
    if (loom_bit(leaf1.ecx, 27)) {
        uint32_t lo = 0, hi = 0;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        xcr0 = ((uint64_t)hi << 32) | lo;
    }
    const int ymm = (xcr0 & 0x6) == 0x6;
    const int zmm = ymm && (xcr0 & 0xe0) == 0xe0;

    const int sse41 = loom_bit(leaf1.ecx, 19);
    const int avx = loom_bit(leaf1.ecx, 28) && ymm;
    const int fma = loom_bit(leaf1.ecx, 12) && avx;
    const int f16c = loom_bit(leaf1.ecx, 29) && avx;
    const int avx2 = loom_bit(leaf7.ebx, 5) && avx;
    const int avxvnni = loom_bit(leaf7_1.eax, 4) && avx;
    const int base512 = loom_bit(leaf7.ebx, 16) && zmm && loom_bit(leaf7.ebx, 28) && avx2 && fma && f16c;
    const int skylake = base512 && loom_bit(leaf7.ebx, 31) && loom_bit(leaf7.ebx, 30) && loom_bit(leaf7.ebx, 17);
    const int cannonlake = skylake && loom_bit(leaf7.ebx, 21) && loom_bit(leaf7.ecx, 1);
    const int vnni_bf16 = loom_bit(leaf7.ecx, 11) && loom_bit(leaf7_1.eax, 5);
    const int sapphire = cannonlake && vnni_bf16 && loom_bit(leaf7.edx, 23) && avxvnni;
    const int zen4 = cannonlake && vnni_bf16 && loom_bit(leaf7.ecx, 6) && loom_bit(leaf7.ecx, 12) &&
                     loom_bit(leaf7.ecx, 14);

    /* In loom::Target::Feature order: SSE41, AVX, AVX2, FMA, F16C, AVX512,
     * AVX512_Skylake, AVX512_Cannonlake, AVX512_SapphireRapids, AVX512_Zen4,
     * AVXVNNI. */
    const int has[11] = {sse41, avx, avx2, fma, f16c, base512, skylake, cannonlake, sapphire, zen4, avxvnni};
    uint64_t features = 0;
    for (int i = 0; i < 11; i++) features |= (uint64_t)(has[i] != 0) << (LOOM_CPU_FEATURE_SSE41 + i);
    return features;
}

#else

static uint64_t loom_detect_cpu_features(void) { return 0; }

#endif

LOOM_RUNTIME_EXPORT uint64_t loom_cpu_target_features(void) {
    /* Computed once; a race computes the same value twice. */
    static loom_atomic_uint64_t cached = 0; /* bit 63: computed */
    uint64_t v = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (v) return v & ~(1ull << 63);
    v = loom_detect_cpu_features();
    __atomic_store_n(&cached, v | (1ull << 63), __ATOMIC_RELEASE);
    return v;
}
