#ifndef LOOM_RUNTIME_RUNTIME_PLATFORM_H
#define LOOM_RUNTIME_RUNTIME_PLATFORM_H

/* What the portable runtime core (Runtime.c, ErrorFormat.c, BoundsQuery.c,
 * ThreadPool.c, Device.c, DebugToFile.c and the Vulkan*.c files) needs from libc and pthreads.
 *
 * The core is compiled twice:
 *   - into libLoom by the host C compiler, with the system headers (this is
 *     the JIT's runtime; JIT_GLUE below is on);
 *   - to LLVM bitcode for each AOT triple by clang with -ffreestanding
 *     -nostdlibinc -DLOOM_RUNTIME_FREESTANDING (cmake/LoomRuntime.cmake), so
 *     that no target sysroot is needed. The declarations below then stand in
 *     for the system headers. They describe glibc on x86-64, AArch64, i386
 *     and ARMv7 hard-float Linux, the only triples the AOT runtime is built
 *     for. The hosted build checks them against the real headers
 *     (RuntimePlatformCheck.c); test/aot/ThirtyTwoBitAotTest.cpp compiles
 *     the same check with clang -m32 against i386 glibc.
 *
 * The core uses no C++ library, no exceptions, no thread_local destructors:
 * an AOT static library links with `cc ... -lpthread -ldl -lm`.
 */

#include <stddef.h>
#include <stdint.h>

/* glibc's ABI facts the freestanding declarations rely on. On the 32-bit
 * targets (i386, ARMv7 hard-float) long and pointers are 4 bytes, and so is
 * the alignment of pthread_mutex_t. */
#if defined(__x86_64__)
#define LOOM_PTHREAD_MUTEX_BYTES 40
#elif defined(__aarch64__)
#define LOOM_PTHREAD_MUTEX_BYTES 48
#elif defined(__i386__) || defined(__arm__)
#define LOOM_PTHREAD_MUTEX_BYTES 24
#endif
#define LOOM_PTHREAD_COND_BYTES 48
#define LOOM_GLIBC_SC_NPROCESSORS_ONLN 84
#define LOOM_GLIBC_RTLD_NOW 2
#define LOOM_GLIBC_RTLD_LOCAL 0
#define LOOM_GLIBC_CLOCK_MONOTONIC 1

#ifdef LOOM_RUNTIME_FREESTANDING

typedef struct loom_libc_FILE FILE;
extern FILE *stdout;
extern FILE *stderr;
int fputs(const char *text, FILE *stream);
int fflush(FILE *stream);
FILE *fopen(const char *path, const char *mode); /* Func::debug_to_file (DebugToFile.c) */
size_t fwrite(const void *data, size_t size, size_t count, FILE *stream);
int fclose(FILE *stream);
int snprintf(char *buffer, size_t capacity, const char *format, ...);
size_t strlen(const char *text);
void *memcpy(void *destination, const void *source, size_t bytes);
void *aligned_alloc(size_t alignment, size_t bytes);
void free(void *ptr);
void *memset(void *destination, int value, size_t bytes);
char *getenv(const char *name);
long strtol(const char *text, char **end, int base);
long sysconf(int name);
#define _SC_NPROCESSORS_ONLN LOOM_GLIBC_SC_NPROCESSORS_ONLN

/* The Vulkan runtime opens the loader at run time (VulkanLoader.c). */
void *dlopen(const char *path, int mode);
void *dlsym(void *handle, const char *name);
int dlclose(void *handle);
char *dlerror(void);
#define RTLD_NOW LOOM_GLIBC_RTLD_NOW
#define RTLD_LOCAL LOOM_GLIBC_RTLD_LOCAL

/* pthread types: opaque storage of glibc's size and alignment; all-zero
 * bytes are glibc's static initialisers for the default kinds. */
#ifndef LOOM_PTHREAD_MUTEX_BYTES
#error "The freestanding Loom runtime supports x86-64, AArch64, i386 and ARMv7 Linux only"
#endif
typedef unsigned long pthread_t;
typedef union {
    char bytes[LOOM_PTHREAD_MUTEX_BYTES];
    long align;
} pthread_mutex_t;
typedef union {
    char bytes[LOOM_PTHREAD_COND_BYTES];
    long long align;
} pthread_cond_t;
typedef union pthread_attr_t pthread_attr_t;
#define PTHREAD_MUTEX_INITIALIZER {{0}}
#define PTHREAD_COND_INITIALIZER {{0}}
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int pthread_join(pthread_t thread, void **result);
int pthread_mutex_lock(pthread_mutex_t *mutex);
int pthread_mutex_unlock(pthread_mutex_t *mutex);
int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
int pthread_cond_broadcast(pthread_cond_t *cond);

/* The profiler's clock and its sampling thread's sleep (Profiler.c). */
struct timespec {
    long tv_sec;
    long tv_nsec;
};
typedef int clockid_t;
int clock_gettime(clockid_t clock, struct timespec *now);
int nanosleep(const struct timespec *duration, struct timespec *remaining);
#define CLOCK_MONOTONIC LOOM_GLIBC_CLOCK_MONOTONIC

#else

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* libLoom's copy of the core also serves the JIT: errors reported while the
 * JIT front end captures them become a loom::RuntimeError (ErrorCapture.cpp). */
#define LOOM_RUNTIME_JIT_GLUE 1

#endif

/* 64-bit values that __atomic builtins update (also through pointers):
 * 8-byte aligned on every target. int64_t alone is only 4-byte aligned on
 * i386, and clang turns an atomic on an under-aligned value into a call of
 * libatomic's generic __atomic_load / __atomic_compare_exchange, which AOT
 * libraries do not link. */
typedef int64_t loom_atomic_int64_t __attribute__((aligned(8)));
typedef uint64_t loom_atomic_uint64_t __attribute__((aligned(8)));

/* Runtime entry points keep C linkage and default visibility in libLoom;
 * the AOT linker (src/aot/RuntimeModule.cpp) makes them weak and hidden. */
#define LOOM_RUNTIME_EXPORT __attribute__((visibility("default")))

#ifdef LOOM_RUNTIME_JIT_GLUE
#ifdef __cplusplus
extern "C" {
#endif
/* Implemented in ErrorCapture.cpp. */
int loom_jit_capture_error(const char *message);
void *loom_jit_current_capture(void);
int loom_jit_run_captured(void *capture, int (*body)(void *, int, uint8_t *), void *user_context, int index,
                          uint8_t *closure);
/* Implemented in JITHandlers.cpp: when user_context is a JITUserContext
 * whose run has a custom handler for the call, each calls it (storing what
 * it returned in *result) and returns 1; otherwise returns 0. */
struct loom_trace_event_t;
int loom_jit_custom_error(void *user_context, const char *message);
int loom_jit_custom_print(void *user_context, const char *message);
int loom_jit_custom_malloc(void *user_context, size_t bytes, void **result);
int loom_jit_custom_free(void *user_context, void *ptr);
int loom_jit_custom_trace(void *user_context, const struct loom_trace_event_t *event, int32_t *result);
int loom_jit_custom_do_par_for(void *user_context, int (*body)(void *, int, uint8_t *), int min, int extent,
                               uint8_t *closure, int *result);
#ifdef __cplusplus
}
#endif
#endif

#endif
