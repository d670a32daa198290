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
    loom_type_handle = 3
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
    loom_error_code_device_error = -9
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

/* Parallel loops in generated code share one thread pool per process. The
 * default thread count is LOOM_NUM_THREADS if set to a positive integer, else
 * the number of cores; n <= 0 restores the default. Returns the previous count. */
int loom_set_num_threads(int n);
int loom_get_num_threads(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_H */
