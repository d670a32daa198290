/* The C ABI between Loom-generated code and the programs that call it.
 *
 * A loom_buffer_t describes a dense or strided grid of elements. It carries
 * device fields from the start (a device handle, the interface that owns it,
 * and dirty bits) so that GPU back ends do not change the ABI.
 *
 * This header is plain C and is installed with Loom; AOT libraries and their
 * generated headers include it, and so do JIT-compiled pipelines.
 */
#ifndef LOOM_RUNTIME_H
#define LOOM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element type codes. */
typedef enum loom_type_code_t {
    loom_type_int = 0,
    loom_type_uint = 1,
    loom_type_float = 2,
    loom_type_handle = 3,
    loom_type_bfloat = 4 /* brain float: 16 bits, float's 8-bit exponent (Halide's halide_type_bfloat) */
} loom_type_code_t;

/* An element type: code, bits per lane (1 for bool), and lanes. */
typedef struct loom_type_t {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} loom_type_t;

/* One dimension: the coordinate of the first element, how many there are, and
 * the distance in elements between neighbours along this dimension. */
typedef struct loom_dimension_t {
    int32_t min, extent, stride;
    uint32_t flags;
} loom_dimension_t;

struct loom_device_interface_t;

/* Flags in loom_buffer_t::flags. */
enum {
    loom_buffer_flag_host_dirty = 1,
    loom_buffer_flag_device_dirty = 2
};

typedef struct loom_buffer_t {
    uint64_t device;                                        /* device allocation handle, 0 if none */
    const struct loom_device_interface_t *device_interface; /* owner of `device`, NULL if none */
    uint8_t *host;                                          /* host allocation, may be NULL */
    uint64_t flags;                                         /* loom_buffer_flag_* */
    loom_type_t type;                                       /* element type */
    int32_t dimensions;                                     /* number of entries in dim */
    loom_dimension_t *dim;                                  /* per-dimension min/extent/stride */
    void *padding;                                          /* reserved, keep NULL */
} loom_buffer_t;

/* Error codes returned by generated pipelines. 0 is success. */
enum loom_error_code_t {
    loom_success = 0,
    loom_error_code_generic = -1,
    loom_error_code_bad_type = -2,
    loom_error_code_bad_dimensions = -3,
    loom_error_code_buffer_too_small = -4,
    loom_error_code_null_host_pointer = -5,
    loom_error_code_out_of_memory = -6,
    loom_error_code_bad_argument = -7,
    loom_error_code_user_assertion = -8,
    loom_error_code_device_error = -9,
    loom_error_code_buffer_too_large = -10 /* 2^31 bytes or more without the large_buffers feature */
};

/* Reports an error message from generated code. The default handler prints
 * to stderr; a program may install its own (NULL restores the default). */
typedef void (*loom_error_handler_t)(void *user_context, const char *message);
loom_error_handler_t loom_set_error_handler(loom_error_handler_t handler);
void loom_error(void *user_context, const char *message);

/* Prints a message from print()/print_when() in generated code. */
typedef void (*loom_print_handler_t)(void *user_context, const char *message);
loom_print_handler_t loom_set_print_handler(loom_print_handler_t handler);
void loom_print(void *user_context, const char *message);

/* Tracing (Func::trace_loads/trace_stores/trace_realizations, the trace_all
 * target feature): generated code reports each event through loom_trace.
 * Mirrors Halide's halide_trace_event_t. */
typedef enum loom_trace_event_code_t {
    loom_trace_load = 0,
    loom_trace_store = 1,
    loom_trace_begin_realization = 2,
    loom_trace_end_realization = 3,
    loom_trace_produce = 4,
    loom_trace_end_produce = 5,
    loom_trace_consume = 6,
    loom_trace_end_consume = 7,
    loom_trace_begin_pipeline = 8,
    loom_trace_end_pipeline = 9,
    loom_trace_tag = 10
} loom_trace_event_code_t;

typedef struct loom_trace_event_t {
    const char *func;           /* the Func's name */
    const void *value;          /* loads and stores: type.lanes values of type; NULL otherwise */
    const int32_t *coordinates; /* loads and stores: the coordinates (dimensions of them, lane by
                                 * lane for vectors); realizations: min, extent per dimension */
    const char *trace_tag;      /* tag events: the text of add_trace_tag; NULL otherwise */
    loom_type_t type;           /* the value's type (lanes > 1 for a vector access) */
    int32_t event;              /* a loom_trace_event_code_t */
    int32_t parent_id;          /* the id of the enclosing pipeline, realization, produce or consume event */
    int32_t value_index;        /* which Tuple element */
    int32_t dimensions;         /* entries in coordinates */
} loom_trace_event_t;

/* A trace handler returns an id for the event: the id of a Begin pipeline,
 * Begin realization, Produce or Consume event becomes the parent_id of the
 * events inside it (the pipeline's own parent_id is -1). The default
 * handler prints one line in Halide's format through loom_print, e.g.
 * "Store f.0(1, 2) = 3" or "Begin realization f.0(0, 4, 0, 3)". A program may
 * install its own (NULL restores the default); the previous one is returned. */
typedef int32_t (*loom_trace_handler_t)(void *user_context, const loom_trace_event_t *event);
loom_trace_handler_t loom_set_trace_handler(loom_trace_handler_t handler);
int32_t loom_trace(void *user_context, const loom_trace_event_t *event);
/* Formats event as the default handler prints it (with the final newline)
 * into buffer; returns the length it needed, as snprintf does. */
int loom_trace_format(const loom_trace_event_t *event, char *buffer, size_t capacity);

/* Profiling (the `profile` target feature, docs/SCHEDULING.md "Targets"),
 * by sampling as Halide's profiler does (src/runtime/Profiler.c). A profiled
 * pipeline keeps LOOM_PROFILER_INSTANCE_BYTES(num_funcs) bytes of per-run
 * state on its stack and calls: pipeline_start on entry (func_names: the
 * Func names, each followed by '\n'; slot 0 is "overhead", the time outside
 * every Func), set_current_func where a Func's production starts and ends (a
 * store, no clock reading: a sampling thread wakes every millisecond and
 * bills the time since its last sample to the Func current then),
 * memory_allocate/free around each allocation of a Func, and pipeline_end
 * on a successful return (the run's numbers join the process-wide totals of
 * the pipeline's name) or pipeline_abort at a failed assertion (the run is
 * not reported). Each task of a parallel loop and each branch of a fork
 * brackets its work with task_start/task_end and switches Funcs with
 * set_task_func; a leaf task may claim the run's sampling token, so that
 * the samples follow one thread's Funcs, and add_active_threads counts the
 * threads working for the run (the report shows their average where it is
 * not 1). loom_profiler_report prints the totals through loom_print in
 * Halide's format; the JIT reports and resets after each realize, AOT
 * libraries report once at process exit. */
#define LOOM_PROFILER_INSTANCE_BYTES(num_funcs) (64 + 48 * (num_funcs))
int32_t loom_profiler_pipeline_start(void *user_context, void *instance, const char *pipeline_name,
                                     const char *func_names, int32_t num_funcs);
int32_t loom_profiler_set_current_func(void *instance, int32_t func_id);
int32_t loom_profiler_memory_allocate(void *instance, int32_t func_id, uint64_t bytes);
int32_t loom_profiler_memory_free(void *instance, int32_t func_id, uint64_t bytes);
int32_t loom_profiler_pipeline_end(void *user_context, void *instance);
int32_t loom_profiler_pipeline_abort(void *instance);
int32_t loom_profiler_task_start(void *instance, int32_t func_id, int32_t claim_token);
int32_t loom_profiler_set_task_func(void *instance, int32_t func_id, int32_t holds_token);
int32_t loom_profiler_task_end(void *instance, int32_t holds_token);
int32_t loom_profiler_add_active_threads(void *instance, int32_t delta);
void loom_profiler_report(void *user_context);
void loom_profiler_reset(void);

/* Func::debug_to_file: writes the buffer to filename after its Func is
 * computed, in the format its extension names: ".tiff"/".tif" (TIFF, one
 * sample per pixel, planes as further images), ".mat" (MATLAB level 5) or
 * ".npy" (NumPy), as Halide's halide_debug_to_file does. Returns 0, or a
 * negative loom_error_code_t when the file cannot be written. */
int32_t loom_debug_to_file(void *user_context, const char *filename, struct loom_buffer_t *buf);

/* Heap allocation used by generated code for intermediate buffers. Aligned to
 * 64 bytes. Returns NULL when out of memory. */
void *loom_malloc(void *user_context, size_t bytes);
void loom_free(void *user_context, void *ptr);

/* Ahead-of-time compiled pipelines: what NAME_metadata() returns, describing
 * the arguments of `int NAME(...)` in order (see docs/AOT.md). */
typedef enum loom_argument_kind_t {
    loom_argument_input_scalar = 0,
    loom_argument_input_buffer = 1,
    loom_argument_output_buffer = 2
} loom_argument_kind_t;

typedef struct loom_argument_info_t {
    const char *name;   /* the Param's, ImageParam's or output's name ("f.0" for Tuple element 0 of f) */
    int32_t kind;       /* a loom_argument_kind_t */
    int32_t dimensions; /* buffers: the rank; scalars: 0 */
    loom_type_t type;   /* scalars: the value's type; buffers: the element type */
} loom_argument_info_t;

#define LOOM_PIPELINE_METADATA_VERSION 1

typedef struct loom_pipeline_metadata_t {
    int32_t version;       /* LOOM_PIPELINE_METADATA_VERSION */
    int32_t num_arguments; /* entries in arguments */
    const loom_argument_info_t *arguments;
    const char *target;    /* the Target it was compiled for, "x86-64-linux-avx2-fma" */
    const char *name;      /* the function's name */
} loom_pipeline_metadata_t;

/* ---------------------------------------------------------------- devices
 *
 * A buffer may have a device allocation owned by a device interface (today
 * only Vulkan's). The dirty bits say which side holds the newest data:
 * host_dirty after the host wrote it, device_dirty after a kernel did. All
 * functions return 0 or a negative loom_error_code_t after reporting the
 * message through loom_error. */
const struct loom_device_interface_t *loom_vulkan_device_interface(void);

/* Gives buf a device allocation of the interface's device (its whole host
 * span: the elements from the lowest to the highest address its dims reach). */
int loom_device_malloc(void *user_context, loom_buffer_t *buf, const struct loom_device_interface_t *iface);
/* Frees buf's device allocation (after the work using it has finished);
 * leaves the host side alone. */
int loom_device_free(void *user_context, loom_buffer_t *buf);
/* Allocates if needed, then copies host to device when there is no device
 * allocation yet or host_dirty is set; clears host_dirty. */
int loom_copy_to_device(void *user_context, loom_buffer_t *buf, const struct loom_device_interface_t *iface);
/* When device_dirty is set: waits for the device work writing buf, copies
 * device to host and clears device_dirty. */
int loom_copy_to_host(void *user_context, loom_buffer_t *buf);
/* Waits until the device work submitted so far has finished (buf may be NULL). */
int loom_device_sync(void *user_context, loom_buffer_t *buf);
/* Wraps a native handle (a VkBuffer for Vulkan) as buf's device allocation;
 * Loom will not free it. detach gives it back and clears buf->device. */
int loom_device_wrap_native(void *user_context, loom_buffer_t *buf, const struct loom_device_interface_t *iface,
                            uint64_t native_handle);
int loom_device_detach_native(void *user_context, loom_buffer_t *buf);
/* The native handle of buf's device allocation (a VkBuffer), 0 if none. */
uint64_t loom_device_native_handle(void *user_context, const loom_buffer_t *buf);
/* Frees every cached object of the interface and the device context itself
 * (buffers still allocated on it must be freed first). Call it before exit;
 * nothing is released from a static destructor. */
int loom_device_release(void *user_context, const struct loom_device_interface_t *iface);

/* Vulkan kernels, called by generated code. initialize_kernels creates (once
 * per *state, which the caller keeps zeroed until then) the shader module of
 * one SPIR-V module. run binds num_buffers buffers (each already with a
 * Vulkan device allocation) to bindings 0..n-1 of set 0, the push constants,
 * and records a dispatch of blocks_x*y*z workgroups into the current command
 * stream; it returns without waiting. */
int loom_vulkan_initialize_kernels(void *user_context, void **state, const uint32_t *spirv, uint32_t word_count);
/* Scalar arguments of up to this many bytes are push constants (Vulkan
 * guarantees 128 bytes on every device); a kernel with more reads them, in
 * the same layout, from a uniform buffer at binding num_buffers, which
 * loom_vulkan_run fills from push_constants. */
#define LOOM_VULKAN_MAX_PUSH_CONSTANT_BYTES 128u
int loom_vulkan_run(void *user_context, void *state, const char *entry_point, int blocks_x, int blocks_y,
                    int blocks_z, int threads_x, int threads_y, int threads_z, int num_buffers,
                    loom_buffer_t **buffers, uint32_t push_constant_bytes, const void *push_constants);

/* What the Vulkan device found at run time supports, as a bit set of
 * loom_vulkan_feature_* (for the host-vulkan target), and its limits. Returns
 * a negative error code when there is no usable device. */
enum {
    loom_vulkan_feature_int8 = 1,
    loom_vulkan_feature_int16 = 2,
    loom_vulkan_feature_int64 = 4,
    loom_vulkan_feature_float16 = 8,
    loom_vulkan_feature_float64 = 16,
    loom_vulkan_feature_v12 = 32,
    loom_vulkan_feature_v13 = 64
};
typedef struct loom_vulkan_device_info_t {
    uint64_t features;                  /* loom_vulkan_feature_* */
    uint32_t max_workgroup_size[3];     /* maxComputeWorkGroupSize */
    uint32_t max_workgroup_invocations; /* maxComputeWorkGroupInvocations */
    uint32_t max_shared_memory_bytes;   /* maxComputeSharedMemorySize */
    uint32_t max_push_constant_bytes;   /* maxPushConstantsSize */
    char device_name[256];
} loom_vulkan_device_info_t;
int loom_vulkan_get_device_info(void *user_context, loom_vulkan_device_info_t *info);

/* Parallel loops in generated code share one thread pool per process. The
 * default thread count is LOOM_NUM_THREADS if set to a positive integer, else
 * the number of cores; n <= 0 restores the default. Returns the previous count. */
int loom_set_num_threads(int n);
int loom_get_num_threads(void);

/* Func::memoize's cache, shared by every pipeline of the process (and by the
 * threads that run them). An entry is keyed by the memoized Func's identity
 * (func_id, a string naming the pipeline and the Func) and key_words 64-bit
 * words (the region computed and the values of the Params it depends on).
 * lookup copies a cached entry of exactly `bytes` bytes into host and returns
 * 1, or returns 0; store copies host into the cache (replacing an equal key),
 * evicting least recently used entries beyond the size limit, and returns 0
 * (an entry larger than the limit is not kept). set_size sets the limit in
 * bytes (default 1 MiB, as Halide's), evicting as needed; evict drops every
 * entry stored with has_eviction_key and that eviction_key; cleanup drops all. */
int loom_memoization_cache_lookup(void *user_context, const char *func_id, const uint64_t *key, int32_t key_words,
                                  void *host, int64_t bytes);
int loom_memoization_cache_store(void *user_context, const char *func_id, const uint64_t *key, int32_t key_words,
                                 const void *host, int64_t bytes, int32_t has_eviction_key, uint64_t eviction_key);
void loom_memoization_cache_set_size(int64_t bytes);
void loom_memoization_cache_evict(void *user_context, uint64_t eviction_key);
void loom_memoization_cache_cleanup(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_H */
