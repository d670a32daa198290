/* The Vulkan device interface (DeviceInterface.h): device allocations of
 * loom_buffer_t and the copies between host and device.
 *
 * A device allocation covers the buffer's host span: device byte 0 is
 * host[0], and the span reaches the highest-addressed element (strides must
 * not be negative), so kernels index it exactly as host code indexes host.
 * Copies move only the buffer's own elements (a crop's neighbours on the
 * host are never written), in contiguous runs. Where device memory is host
 * memory (integrated and CPU devices, such as lavapipe; LOOM_VK_ZERO_COPY=0
 * turns this off) a copy is a memcpy
 * into the mapped allocation, unless the batch being recorded uses the
 * buffer: then it goes through a staging buffer in stream order. */

#include "runtime/DeviceInterface.h"
#include "runtime/VulkanInternal.h"

/* Bytes from host[0] to the end of the highest-addressed element; 0 for an
 * empty buffer. Negative strides are an error. */
static int loom_vk_span_bytes(void *user_context, const char *function, const loom_buffer_t *buf, uint64_t *bytes) {
    const uint64_t element = ((uint64_t)buf->type.bits + 7) / 8 * (buf->type.lanes ? buf->type.lanes : 1);
    uint64_t last = 0;
    for (int d = 0; d < buf->dimensions; d++) {
        const loom_dimension_t *dim = &buf->dim[d];
        if (dim->extent <= 0) {
            *bytes = 0;
            return 0;
        }
        if (dim->stride < 0) {
            char text[512];
            snprintf(text, sizeof text,
                     "%s: dimension %d of the buffer has the negative stride %d; device allocations support "
                     "non-negative strides only (copy the buffer to a dense one first).",
                     function, d, (int)dim->stride);
            return loom_vk_error(user_context, text);
        }
        last += (uint64_t)(dim->extent - 1) * (uint64_t)dim->stride;
    }
    *bytes = (last + 1) * element;
    return 0;
}

/* Copies the buffer's elements between two images of its span (both indexed
 * by byte offset from host[0]): dimension `d` down to 0, with runs of
 * `run` bytes for the dense innermost dimensions. */
typedef struct loom_vk_copy_plan_t {
    int rank;
    uint64_t run;         /* bytes copied in one memcpy */
    int32_t extent[16];   /* the outer dimensions left to loop over */
    uint64_t stride[16];  /* their strides in bytes */
} loom_vk_copy_plan_t;

static int loom_vk_make_copy_plan(void *user_context, const loom_buffer_t *buf, loom_vk_copy_plan_t *plan) {
    const uint64_t element = ((uint64_t)buf->type.bits + 7) / 8 * (buf->type.lanes ? buf->type.lanes : 1);
    int taken[64] = {0};
    if (buf->dimensions > 64) return loom_vk_error(user_context, "Vulkan: buffers of more than 64 dimensions.");
    plan->run = element;
    plan->rank = 0;
    /* Grow the run while some dimension continues it densely. */
    for (int grew = 1; grew;) {
        grew = 0;
        for (int d = 0; d < buf->dimensions; d++) {
            if (taken[d]) continue;
            const loom_dimension_t *dim = &buf->dim[d];
            if (dim->extent == 1 || (uint64_t)dim->stride * element == plan->run) {
                plan->run *= (uint64_t)dim->extent;
                taken[d] = 1;
                grew = 1;
            }
        }
    }
    for (int d = 0; d < buf->dimensions; d++) {
        if (taken[d]) continue;
        if (plan->rank == 16) return loom_vk_error(user_context, "Vulkan: copies of more than 16 strided dimensions.");
        plan->extent[plan->rank] = buf->dim[d].extent;
        plan->stride[plan->rank] = (uint64_t)buf->dim[d].stride * element;
        plan->rank++;
    }
    return 0;
}

static void loom_vk_copy_runs(const loom_vk_copy_plan_t *plan, int d, uint8_t *to, const uint8_t *from,
                              uint64_t offset) {
    if (d < 0) {
        memcpy(to + offset, from + offset, plan->run);
        return;
    }
    for (int32_t i = 0; i < plan->extent[d]; i++) loom_vk_copy_runs(plan, d - 1, to, from, offset + i * plan->stride[d]);
}

static int loom_vk_copy_elements(void *user_context, const loom_buffer_t *buf, uint8_t *to, const uint8_t *from) {
    uint64_t bytes;
    int error = loom_vk_span_bytes(user_context, "Vulkan copy", buf, &bytes);
    if (error || bytes == 0) return error;
    loom_vk_copy_plan_t plan;
    error = loom_vk_make_copy_plan(user_context, buf, &plan);
    if (error) return error;
    loom_vk_copy_runs(&plan, plan.rank - 1, to, from, 0);
    return 0;
}

/* The context and the buffer's record, with the lock held; on error the lock
 * is released and 0 returned. */
static loom_vk_context_t *loom_vk_enter(void *user_context, int *error) {
    pthread_mutex_lock(&loom_vk_lock);
    loom_vk_context_t *ctx = loom_vk_get_context(user_context, error);
    if (!ctx) {
        pthread_mutex_unlock(&loom_vk_lock);
        return 0;
    }
    *error = loom_vk_take_validation_error();
    if (*error) {
        pthread_mutex_unlock(&loom_vk_lock);
        return 0;
    }
    return ctx;
}

static int loom_vk_leave(int error) {
    int validation = loom_vk_take_validation_error();
    pthread_mutex_unlock(&loom_vk_lock);
    return error ? error : validation;
}

static loom_vk_buffer_t *loom_vk_record(const loom_buffer_t *buf) { return (loom_vk_buffer_t *)(uintptr_t)buf->device; }

static int loom_vk_check_live(void *user_context, const char *function, const loom_vk_buffer_t *record) {
    if (!record->orphaned) return 0;
    char text[512];
    snprintf(text, sizeof text,
             "%s: the buffer's device allocation was freed by loom_device_release; device_free it and allocate again.",
             function);
    return loom_vk_error(user_context, text);
}

static void loom_vk_link(loom_vk_context_t *ctx, loom_vk_buffer_t *record) {
    record->prev = 0;
    record->next = ctx->buffers;
    if (ctx->buffers) ctx->buffers->prev = record;
    ctx->buffers = record;
}

static void loom_vk_unlink(loom_vk_context_t *ctx, loom_vk_buffer_t *record) {
    if (record->prev) record->prev->next = record->next;
    else if (ctx->buffers == record) ctx->buffers = record->next;
    if (record->next) record->next->prev = record->prev;
    record->prev = record->next = 0;
}

void loom_vk_free_buffer_record(loom_vk_context_t *ctx, loom_vk_buffer_t *record) {
    if (!record->wrapped && !record->orphaned) loom_vk_destroy_buffer(ctx, record->buffer, &record->allocation);
    free(record);
}

void loom_vk_orphan_buffers(loom_vk_context_t *ctx) {
    while (ctx->buffers) {
        loom_vk_buffer_t *record = ctx->buffers;
        loom_vk_unlink(ctx, record);
        if (!record->wrapped) loom_vk_destroy_buffer(ctx, record->buffer, &record->allocation);
        record->buffer = VK_NULL_HANDLE;
        record->mapped = 0;
        record->orphaned = 1;
    }
}

static int loom_vk_device_malloc(void *user_context, loom_buffer_t *buf) {
    uint64_t bytes;
    int error = loom_vk_span_bytes(user_context, "loom_device_malloc", buf, &bytes);
    if (error) return error;
    loom_vk_context_t *ctx = loom_vk_enter(user_context, &error);
    if (!ctx) return error;
    loom_vk_buffer_t *record = (loom_vk_buffer_t *)loom_vk_zalloc((size_t)(1) * (sizeof *record));
    if (!record) return loom_vk_leave(loom_vk_error(user_context, "loom_device_malloc: out of host memory."));
    error = loom_vk_create_buffer(user_context, ctx, bytes, loom_vk_memory_device, &record->buffer, &record->allocation);
    if (error) {
        free(record);
        return loom_vk_leave(error);
    }
    record->size = bytes;
    record->mapped = ctx->zero_copy ? loom_vk_allocation_host_address(&record->allocation) : 0;
    loom_vk_link(ctx, record);
    buf->device = (uint64_t)(uintptr_t)record;
    buf->device_interface = loom_vulkan_device_interface();
    return loom_vk_leave(0);
}

static int loom_vk_device_free(void *user_context, loom_buffer_t *buf) {
    loom_vk_buffer_t *record = loom_vk_record(buf);
    pthread_mutex_lock(&loom_vk_lock);
    loom_vk_context_t *ctx = loom_vk_context;
    int error = 0;
    if (record->orphaned || !ctx) {
        free(record);
    } else {
        loom_vk_unlink(ctx, record);
        if (loom_vk_stream_uses(ctx, record)) {
            error = loom_vk_stream_defer_free(user_context, ctx, record);
        } else {
            loom_vk_free_buffer_record(ctx, record);
        }
    }
    buf->device = 0;
    buf->device_interface = 0;
    return loom_vk_leave(error);
}

/* A host-visible buffer of `bytes` whose allocation is freed with the batch. */
static int loom_vk_staging(void *user_context, loom_vk_context_t *ctx, uint64_t bytes, loom_vk_buffer_t **out) {
    loom_vk_buffer_t *staging = (loom_vk_buffer_t *)loom_vk_zalloc((size_t)(1) * (sizeof *staging));
    if (!staging) return loom_vk_error(user_context, "Vulkan: out of host memory for a staging buffer.");
    int error =
        loom_vk_create_buffer(user_context, ctx, bytes, loom_vk_memory_staging, &staging->buffer, &staging->allocation);
    if (error) {
        free(staging);
        return error;
    }
    staging->size = bytes;
    staging->mapped = loom_vk_allocation_host_address(&staging->allocation);
    *out = staging;
    return 0;
}

static void loom_vk_record_copy(loom_vk_context_t *ctx, loom_vk_buffer_t *from, loom_vk_buffer_t *to, uint64_t bytes) {
    loom_vk_buffer_t *both[2] = {from, to};
    loom_vk_stream_order(ctx, both, 2);
    VkBufferCopy region = {0, 0, bytes};
    ctx->vk.vkCmdCopyBuffer(ctx->command_buffer, from->buffer, to->buffer, 1, &region);
}

static int loom_vk_copy_to_device(void *user_context, loom_buffer_t *buf) {
    uint64_t bytes;
    int error = loom_vk_span_bytes(user_context, "loom_copy_to_device", buf, &bytes);
    if (error || bytes == 0) return error;
    loom_vk_context_t *ctx = loom_vk_enter(user_context, &error);
    if (!ctx) return error;
    loom_vk_buffer_t *record = loom_vk_record(buf);
    error = loom_vk_check_live(user_context, "loom_copy_to_device", record);
    if (error) return loom_vk_leave(error);
    if (bytes > record->size) {
        return loom_vk_leave(loom_vk_error(user_context, "loom_copy_to_device: the buffer's shape grew beyond its "
                                                         "device allocation; device_free it and copy again."));
    }
    if (record->mapped && !loom_vk_stream_uses(ctx, record)) {
        /* Zero copy: no recorded command reads it, so write it now. */
        return loom_vk_leave(loom_vk_copy_elements(user_context, buf, record->mapped, buf->host));
    }
    loom_vk_buffer_t *staging = 0;
    error = loom_vk_staging(user_context, ctx, bytes, &staging);
    if (error) return loom_vk_leave(error);
    error = loom_vk_copy_elements(user_context, buf, staging->mapped, buf->host);
    if (!error) error = loom_vk_stream_begin(user_context, ctx);
    if (error) {
        loom_vk_free_buffer_record(ctx, staging);
        return loom_vk_leave(error);
    }
    loom_vk_record_copy(ctx, staging, record, bytes);
    return loom_vk_leave(loom_vk_stream_defer_free(user_context, ctx, staging));
}

static int loom_vk_copy_to_host(void *user_context, loom_buffer_t *buf) {
    uint64_t bytes;
    int error = loom_vk_span_bytes(user_context, "loom_copy_to_host", buf, &bytes);
    if (error || bytes == 0) return error;
    loom_vk_context_t *ctx = loom_vk_enter(user_context, &error);
    if (!ctx) return error;
    loom_vk_buffer_t *record = loom_vk_record(buf);
    error = loom_vk_check_live(user_context, "loom_copy_to_host", record);
    if (error) return loom_vk_leave(error);
    if (bytes > record->size) {
        return loom_vk_leave(loom_vk_error(user_context, "loom_copy_to_host: the buffer's shape grew beyond its "
                                                         "device allocation."));
    }
    if (record->mapped) {
        if (loom_vk_stream_uses(ctx, record)) error = loom_vk_stream_flush(user_context, ctx);
        if (!error) error = loom_vk_copy_elements(user_context, buf, buf->host, record->mapped);
        return loom_vk_leave(error);
    }
    loom_vk_buffer_t *staging = 0;
    error = loom_vk_staging(user_context, ctx, bytes, &staging);
    if (error) return loom_vk_leave(error);
    error = loom_vk_stream_begin(user_context, ctx);
    if (!error) {
        loom_vk_record_copy(ctx, record, staging, bytes);
        error = loom_vk_stream_flush(user_context, ctx);
    }
    if (!error) error = loom_vk_copy_elements(user_context, buf, buf->host, staging->mapped);
    if (!ctx->lost) loom_vk_free_buffer_record(ctx, staging);
    return loom_vk_leave(error);
}

static int loom_vk_device_sync(void *user_context, loom_buffer_t *buf) {
    (void)buf;
    pthread_mutex_lock(&loom_vk_lock);
    int error = 0;
    if (loom_vk_context && !loom_vk_context->lost) error = loom_vk_stream_flush(user_context, loom_vk_context);
    return loom_vk_leave(error);
}

static int loom_vk_wrap_native(void *user_context, loom_buffer_t *buf, uint64_t native_handle) {
    uint64_t bytes;
    int error = loom_vk_span_bytes(user_context, "loom_device_wrap_native", buf, &bytes);
    if (error) return error;
    loom_vk_context_t *ctx = loom_vk_enter(user_context, &error);
    if (!ctx) return error;
    loom_vk_buffer_t *record = (loom_vk_buffer_t *)loom_vk_zalloc((size_t)(1) * (sizeof *record));
    if (!record) return loom_vk_leave(loom_vk_error(user_context, "loom_device_wrap_native: out of host memory."));
    record->buffer = (VkBuffer)(uintptr_t)native_handle;
    record->size = bytes;
    record->wrapped = 1;
    loom_vk_link(ctx, record);
    buf->device = (uint64_t)(uintptr_t)record;
    buf->device_interface = loom_vulkan_device_interface();
    return loom_vk_leave(0);
}

static int loom_vk_detach_native(void *user_context, loom_buffer_t *buf) {
    loom_vk_buffer_t *record = loom_vk_record(buf);
    if (!record->wrapped) {
        return loom_vk_error(user_context,
                             "loom_device_detach_native: the buffer's device allocation was not wrapped with "
                             "loom_device_wrap_native; use loom_device_free.");
    }
    pthread_mutex_lock(&loom_vk_lock);
    loom_vk_context_t *ctx = loom_vk_context;
    int error = 0;
    if (ctx && !record->orphaned) {
        /* The caller takes the VkBuffer back: the work using it must be done. */
        if (loom_vk_stream_uses(ctx, record)) error = loom_vk_stream_flush(user_context, ctx);
        loom_vk_unlink(ctx, record);
    }
    free(record);
    buf->device = 0;
    buf->device_interface = 0;
    return loom_vk_leave(error);
}

static uint64_t loom_vk_native_handle(void *user_context, const loom_buffer_t *buf) {
    (void)user_context;
    return (uint64_t)(uintptr_t)loom_vk_record(buf)->buffer;
}

static int loom_vk_release(void *user_context) {
    pthread_mutex_lock(&loom_vk_lock);
    int error = loom_vk_destroy_context(user_context);
    return loom_vk_leave(error);
}

/* Reached only through loom_vulkan_device_interface(), so that a library
 * that never calls it (an AOT target without vulkan) drops the whole Vulkan
 * runtime and needs no dlopen. Interfaces are compared by name (Device.c):
 * two AOT libraries in one program each have their own copy of this table. */
static const struct loom_device_interface_t loom_vk_interface = {
    "Vulkan",
    loom_vk_device_malloc,
    loom_vk_device_free,
    loom_vk_copy_to_device,
    loom_vk_copy_to_host,
    loom_vk_device_sync,
    loom_vk_wrap_native,
    loom_vk_detach_native,
    loom_vk_native_handle,
    loom_vk_release,
};

LOOM_RUNTIME_EXPORT const struct loom_device_interface_t *loom_vulkan_device_interface(void) {
    return &loom_vk_interface;
}

LOOM_RUNTIME_EXPORT int loom_vulkan_debug_placement(const loom_buffer_t *buf, uint64_t *memory, uint64_t *offset,
                                                    uint64_t *alignment) {
    if (!buf || !buf->device || !loom_vk_is_vulkan(buf->device_interface)) return 1;
    pthread_mutex_lock(&loom_vk_lock);
    const loom_vk_buffer_t *record = loom_vk_record(buf);
    int missing = record->allocation.block == 0;
    if (!missing) {
        *memory = (uint64_t)(uintptr_t)record->allocation.block->memory;
        *offset = record->allocation.offset;
        *alignment = record->allocation.alignment;
    }
    pthread_mutex_unlock(&loom_vk_lock);
    return missing;
}
