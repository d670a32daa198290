#ifndef LOOM_RUNTIME_CPU_FEATURES_H
#define LOOM_RUNTIME_CPU_FEATURES_H

/* The CPU features of the running machine, for the dispatcher of a
 * multi-target library (src/aot/MultiTarget.cpp): bit i of the result is
 * loom::Target::Feature i, for the x86 features SSE41 (0) to AVXVNNI (10)
 * (MultiTarget.cpp checks the numbering against Target.h), set when the CPU
 * has the feature and the OS saves its registers, with the same meaning as
 * host target detection (src/target/Target.cpp). 0 on other architectures.
 * Part of the runtime that AOT libraries carry (runtime/CpuFeatures.c). */

#include <stdint.h>

#define LOOM_CPU_FEATURE_SSE41 0
#define LOOM_CPU_FEATURE_AVXVNNI 10

#ifdef __cplusplus
extern "C" {
#endif
uint64_t loom_cpu_target_features(void);
#ifdef __cplusplus
}
#endif

#endif
