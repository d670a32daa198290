#ifndef LOOM_RUNTIME_RUNTIME_INTERNAL_H
#define LOOM_RUNTIME_RUNTIME_INTERNAL_H

/** \file
 * Runtime entry points that generated code (and Loom itself) calls, but that
 * are not part of the public C ABI of loom_runtime.h.
 *
 * Messages for loom_error and loom_print are formatted at run time, piece by
 * piece, into a character buffer the caller provides (generated code uses a
 * 1024-byte stack buffer):
 *
 *     char text[1024];
 *     loom_msg_begin(text, sizeof text);
 *     loom_msg_append_str(text, sizeof text, "Input buffer b has extent ");
 *     loom_msg_append_int(text, sizeof text, extent);
 *     loom_error(user_context, text);
 *
 * The text is always NUL-terminated; what does not fit in capacity - 1
 * characters is dropped. Formats (the reference interpreter's, so that both
 * back ends produce the same text):
 *   signed integers   decimal, "-12"
 *   unsigned, bool    decimal, "250", "1"
 *   floats            C's "%g" of the value as a double: "1.5", "1e+20", "inf", "nan"
 *   handles           C's "%p"
 * Vectors are written by the caller as "[a, b, c]".
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void loom_msg_begin(char *buffer, uint64_t capacity);
void loom_msg_append_str(char *buffer, uint64_t capacity, const char *text);
void loom_msg_append_int(char *buffer, uint64_t capacity, int64_t value);
void loom_msg_append_uint(char *buffer, uint64_t capacity, uint64_t value);
void loom_msg_append_float(char *buffer, uint64_t capacity, double value);
void loom_msg_append_ptr(char *buffer, uint64_t capacity, const void *value);

/** The whole message in one call (what generated code uses): starts buffer
 * afresh and appends format's text, in which the byte 0x01 followed by a
 * letter stands for the next of values, formatted as above: 'i' signed,
 * 'u' unsigned, 'f' the bits of a double, 'p' a pointer. 0x01 0x01 is a
 * literal 0x01. values may be NULL when format has no value. */
void loom_msg_format(char *buffer, uint64_t capacity, const char *format, const uint64_t *values);

struct loom_buffer_t;
/** The answer to a bounds query (a pipeline called with a NULL host pointer
 * for an input): sets dim[d] to min/extent with a dense stride (the product
 * of the extents of dimensions 0..d-1, so call it for d = 0, 1, ... in
 * order). Returns 0. */
int32_t loom_buffer_set_bounds(struct loom_buffer_t *buffer, int32_t d, int32_t min, int32_t extent);

/** One iteration of a parallel loop: runs iteration `index` with the loop's
 * captured variables in `closure`; returns 0 or a negative error code. */
typedef int (*loom_parallel_body_t)(void *user_context, int index, uint8_t *closure);

/** Runs body(user_context, i, closure) for every i in [min, min + extent) on
 * the runtime's thread pool (see ThreadPool.cpp): the calling thread works
 * too, and the call returns once every iteration handed out has finished.
 * After an iteration fails, no new iterations are handed out; the result is
 * the error code of the first failure, or 0. A parallel loop started inside
 * an iteration (on any thread) is shared with idle workers like any other;
 * while its caller waits it helps only with loops nested inside it. */
int loom_do_par_for(void *user_context, loom_parallel_body_t body, int min, int extent, uint8_t *closure);

/** The lock of an atomic Tuple update's element (Stage::atomic,
 * lower/LowerAtomics.cpp), by a 64-bit key; a thread holds one at a time.
 * Both return 0 (pthread's result). */
int loom_atomic_mutex_lock(void *user_context, uint64_t key);
int loom_atomic_mutex_unlock(void *user_context, uint64_t key);

/** The bytes (at most; 16-byte aligned) of a semaphore of Func::async,
 * made by generated code on its stack (runtime/Fork.c). */
#define LOOM_SEMAPHORE_BYTES 128
/** Sets *semaphore's count; no other call may use it meanwhile. Returns 0. */
int loom_semaphore_init(void *semaphore, int count);
/** Waits until the count is at least n, then takes n. Returns 0, or
 * loom_error_code_generic if a failing fork poisoned the semaphore. */
int loom_semaphore_acquire(void *semaphore, int n);
/** Adds n to the count, waking waiters. Returns 0. */
int loom_semaphore_release(void *semaphore, int n);
/** Makes every present and future wait on the semaphore fail. */
void loom_semaphore_poison(void *semaphore);
/** Runs body(user_context, 0, closure) and body(user_context, 1, closure)
 * concurrently, the first on a fork thread of its own (never a thread-pool
 * worker, so they may wait for each other through semaphores), the second
 * on the caller; returns when both have, with the first non-zero result or
 * 0. A failing task poisons the semaphore_count semaphores at once. */
int loom_do_fork(void *user_context, loom_parallel_body_t body, uint8_t *closure, void **semaphores,
                 int semaphore_count);

/** Sets how many threads (the caller included) one parallel loop may use,
 * clamped to at most 256; 0 or less means the default: the environment variable
 * LOOM_NUM_THREADS if it is a positive integer, else the number of cores.
 * Returns the previous count. */
int loom_set_num_threads(int n);
/** The thread count parallel loops use now (the default until set). */
int loom_get_num_threads(void);

/** Frees what loom_vulkan_initialize_kernels made for *state (its shader
 * module, pipelines and the copy of the SPIR-V), after the work recorded so
 * far has finished; for code that is unloaded (a JIT module's destructor).
 * state may be NULL. loom_device_release alone keeps each state usable: its
 * Vulkan objects are made again on the next use. */
void loom_vulkan_finalize_kernels(void *user_context, void *state);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
