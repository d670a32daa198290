/* Checks, in libLoom's hosted build, the glibc ABI facts that the
 * freestanding declarations of RuntimePlatform.h hard-code for the AOT
 * runtime bitcode. A mismatch stops the build instead of breaking AOT
 * libraries at run time. */

#include "runtime/RuntimePlatform.h"

#ifndef LOOM_RUNTIME_FREESTANDING
#ifdef LOOM_PTHREAD_MUTEX_BYTES
_Static_assert(sizeof(pthread_mutex_t) == LOOM_PTHREAD_MUTEX_BYTES, "pthread_mutex_t size (RuntimePlatform.h)");
#endif
_Static_assert(sizeof(pthread_cond_t) == LOOM_PTHREAD_COND_BYTES, "pthread_cond_t size (RuntimePlatform.h)");
_Static_assert(_SC_NPROCESSORS_ONLN == LOOM_GLIBC_SC_NPROCESSORS_ONLN, "_SC_NPROCESSORS_ONLN (RuntimePlatform.h)");
/* The freestanding unions align like long and long long (8 bytes on 64-bit
 * targets, 4 on i386). */
_Static_assert(_Alignof(pthread_mutex_t) == _Alignof(long) && _Alignof(pthread_cond_t) == _Alignof(long long),
               "pthread alignment (RuntimePlatform.h)");
_Static_assert(RTLD_NOW == LOOM_GLIBC_RTLD_NOW && RTLD_LOCAL == LOOM_GLIBC_RTLD_LOCAL, "RTLD_* (RuntimePlatform.h)");
_Static_assert(sizeof(pthread_t) == sizeof(unsigned long), "pthread_t (RuntimePlatform.h)");
_Static_assert(CLOCK_MONOTONIC == LOOM_GLIBC_CLOCK_MONOTONIC && sizeof(struct timespec) == 2 * sizeof(long),
               "clock_gettime (RuntimePlatform.h)");
#endif
