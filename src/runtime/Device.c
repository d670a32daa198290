/* The device-generic entry points of loom_runtime.h ("devices"): argument
 * checks and dirty bits here, memory traffic in the interface that owns the
 * buffer (DeviceInterface.h). Portable C, compiled for the JIT and into the
 * AOT runtime bitcode like Runtime.c. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/DeviceInterface.h"
#include "runtime/RuntimePlatform.h"

static int loom_device_fail(void *user_context, const char *function, const char *problem) {
    char text[512];
    snprintf(text, sizeof text, "%s: %s", function, problem);
    loom_error(user_context, text);
    return loom_error_code_device_error;
}

static int loom_flag(const loom_buffer_t *buf, uint64_t flag) { return (buf->flags & flag) != 0; }

static void loom_set_flag(loom_buffer_t *buf, uint64_t flag, int on) {
    buf->flags = on ? (buf->flags | flag) : (buf->flags & ~flag);
}

LOOM_RUNTIME_EXPORT int loom_device_malloc(void *user_context, loom_buffer_t *buf,
                                           const struct loom_device_interface_t *iface) {
    if (!buf) return loom_device_fail(user_context, "loom_device_malloc", "the buffer is NULL.");
    if (!iface) iface = buf->device_interface;
    if (!iface) return loom_device_fail(user_context, "loom_device_malloc", "no device interface given.");
    if (buf->device) {
        if (!loom_same_device_interface(buf->device_interface, iface)) {
            return loom_device_fail(user_context, "loom_device_malloc",
                                    "the buffer already has a device allocation of another device interface; "
                                    "device_free it first.");
        }
        return 0;
    }
    return iface->device_malloc(user_context, buf);
}

LOOM_RUNTIME_EXPORT int loom_device_free(void *user_context, loom_buffer_t *buf) {
    if (!buf || !buf->device) return 0;
    if (!buf->device_interface) {
        return loom_device_fail(user_context, "loom_device_free",
                                "the buffer has a device handle but no device interface.");
    }
    int result = buf->device_interface->device_free(user_context, buf);
    /* The device copy is gone: whatever only it held is lost. */
    loom_set_flag(buf, loom_buffer_flag_device_dirty, 0);
    return result;
}

LOOM_RUNTIME_EXPORT int loom_copy_to_device(void *user_context, loom_buffer_t *buf,
                                            const struct loom_device_interface_t *iface) {
    if (!buf) return loom_device_fail(user_context, "loom_copy_to_device", "the buffer is NULL.");
    if (!iface) iface = buf->device_interface;
    if (!iface) return loom_device_fail(user_context, "loom_copy_to_device", "no device interface given.");
    if (buf->device && !loom_same_device_interface(buf->device_interface, iface)) {
        return loom_device_fail(user_context, "loom_copy_to_device",
                                "the buffer has a device allocation of another device interface.");
    }
    int needs_copy = loom_flag(buf, loom_buffer_flag_host_dirty);
    if (!buf->device) {
        int result = iface->device_malloc(user_context, buf);
        if (result) return result;
        needs_copy = 1;
    }
    if (!needs_copy || !buf->host) {
        loom_set_flag(buf, loom_buffer_flag_host_dirty, 0);
        return 0;
    }
    if (loom_flag(buf, loom_buffer_flag_device_dirty)) {
        return loom_device_fail(user_context, "loom_copy_to_device",
                                "the buffer is dirty on both host and device; one side's writes would be lost.");
    }
    int result = iface->copy_to_device(user_context, buf);
    if (result) return result;
    loom_set_flag(buf, loom_buffer_flag_host_dirty, 0);
    return 0;
}

LOOM_RUNTIME_EXPORT int loom_copy_to_host(void *user_context, loom_buffer_t *buf) {
    if (!buf) return loom_device_fail(user_context, "loom_copy_to_host", "the buffer is NULL.");
    if (!loom_flag(buf, loom_buffer_flag_device_dirty)) return 0;
    if (!buf->device || !buf->device_interface) {
        return loom_device_fail(user_context, "loom_copy_to_host",
                                "the buffer is marked device-dirty but has no device allocation.");
    }
    if (!buf->host) {
        return loom_device_fail(user_context, "loom_copy_to_host", "the buffer has no host memory to copy to.");
    }
    if (loom_flag(buf, loom_buffer_flag_host_dirty)) {
        return loom_device_fail(user_context, "loom_copy_to_host",
                                "the buffer is dirty on both host and device; one side's writes would be lost.");
    }
    int result = buf->device_interface->copy_to_host(user_context, buf);
    if (result) return result;
    loom_set_flag(buf, loom_buffer_flag_device_dirty, 0);
    return 0;
}

LOOM_RUNTIME_EXPORT int loom_device_sync(void *user_context, loom_buffer_t *buf) {
    const struct loom_device_interface_t *iface = buf ? buf->device_interface : 0;
    /* With no buffer (or one without a device side), sync every interface
     * that exists; there is only one today. */
    if (!iface) iface = loom_vulkan_device_interface();
    return iface->device_sync(user_context, buf);
}

LOOM_RUNTIME_EXPORT int loom_device_wrap_native(void *user_context, loom_buffer_t *buf,
                                                const struct loom_device_interface_t *iface, uint64_t native_handle) {
    if (!buf || !iface) {
        return loom_device_fail(user_context, "loom_device_wrap_native", "the buffer or the device interface is NULL.");
    }
    if (buf->device) {
        return loom_device_fail(user_context, "loom_device_wrap_native",
                                "the buffer already has a device allocation; device_free or detach it first.");
    }
    if (!native_handle) return loom_device_fail(user_context, "loom_device_wrap_native", "the native handle is 0.");
    return iface->wrap_native(user_context, buf, native_handle);
}

LOOM_RUNTIME_EXPORT int loom_device_detach_native(void *user_context, loom_buffer_t *buf) {
    if (!buf || !buf->device) return 0;
    if (!buf->device_interface) {
        return loom_device_fail(user_context, "loom_device_detach_native",
                                "the buffer has a device handle but no device interface.");
    }
    return buf->device_interface->detach_native(user_context, buf);
}

LOOM_RUNTIME_EXPORT uint64_t loom_device_native_handle(void *user_context, const loom_buffer_t *buf) {
    if (!buf || !buf->device || !buf->device_interface) return 0;
    return buf->device_interface->native_handle(user_context, buf);
}

LOOM_RUNTIME_EXPORT int loom_device_release(void *user_context, const struct loom_device_interface_t *iface) {
    if (!iface) iface = loom_vulkan_device_interface();
    return iface->release(user_context);
}
