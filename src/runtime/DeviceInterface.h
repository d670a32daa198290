#ifndef LOOM_RUNTIME_DEVICE_INTERFACE_H
#define LOOM_RUNTIME_DEVICE_INTERFACE_H

/* What a device back end (today only Vulkan, VulkanRuntime.c) implements
 * behind the device-generic entry points of loom_runtime.h (Device.c).
 *
 * Device.c owns the dirty-bit logic and the argument checks; the back end
 * only moves memory. Every function returns 0 or a negative
 * loom_error_code_t after reporting the message through loom_error. */

#include "loom/runtime/loom_runtime.h"

/* Two interfaces are the same when their names are (loom_same_device_interface):
 * every AOT library carries its own copy of the runtime and of this table. */
struct loom_device_interface_t {
    const char *name; /* "Vulkan"; the first member, always */
    /* buf has no device allocation; give it one covering its host span. */
    int (*device_malloc)(void *user_context, loom_buffer_t *buf);
    /* buf has a device allocation of this interface; free it (deferred until
     * the device work using it has finished) and clear buf->device. */
    int (*device_free)(void *user_context, loom_buffer_t *buf);
    /* Copies the buffer's elements host -> device / device -> host. */
    int (*copy_to_device)(void *user_context, loom_buffer_t *buf);
    int (*copy_to_host)(void *user_context, loom_buffer_t *buf);
    /* Waits for the device work submitted so far; buf may be NULL. Creates
     * no context when there is none. */
    int (*device_sync)(void *user_context, loom_buffer_t *buf);
    int (*wrap_native)(void *user_context, loom_buffer_t *buf, uint64_t native_handle);
    int (*detach_native)(void *user_context, loom_buffer_t *buf);
    uint64_t (*native_handle)(void *user_context, const loom_buffer_t *buf);
    int (*release)(void *user_context);
};

static inline int loom_same_device_interface(const struct loom_device_interface_t *a,
                                             const struct loom_device_interface_t *b) {
    if (a == b) return 1;
    if (!a || !b) return 0;
    const char *x = a->name, *y = b->name;
    while (*x && *x == *y) x++, y++;
    return *x == *y;
}

#endif
