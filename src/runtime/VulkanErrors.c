/* VkResult names, error reports and the debug counters of VulkanDebug.h. */

#include "runtime/VulkanInternal.h"

const char *loom_vk_result_name(VkResult result) {
    switch (result) {
#define LOOM_VK_NAME(r) \
    case r: return #r;
    LOOM_VK_NAME(VK_SUCCESS)
    LOOM_VK_NAME(VK_NOT_READY)
    LOOM_VK_NAME(VK_TIMEOUT)
    LOOM_VK_NAME(VK_EVENT_SET)
    LOOM_VK_NAME(VK_EVENT_RESET)
    LOOM_VK_NAME(VK_INCOMPLETE)
    LOOM_VK_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    LOOM_VK_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    LOOM_VK_NAME(VK_ERROR_INITIALIZATION_FAILED)
    LOOM_VK_NAME(VK_ERROR_DEVICE_LOST)
    LOOM_VK_NAME(VK_ERROR_MEMORY_MAP_FAILED)
    LOOM_VK_NAME(VK_ERROR_LAYER_NOT_PRESENT)
    LOOM_VK_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    LOOM_VK_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    LOOM_VK_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    LOOM_VK_NAME(VK_ERROR_TOO_MANY_OBJECTS)
    LOOM_VK_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
    LOOM_VK_NAME(VK_ERROR_FRAGMENTED_POOL)
    LOOM_VK_NAME(VK_ERROR_UNKNOWN)
    LOOM_VK_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
    LOOM_VK_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    LOOM_VK_NAME(VK_ERROR_FRAGMENTATION)
    LOOM_VK_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    LOOM_VK_NAME(VK_PIPELINE_COMPILE_REQUIRED)
    LOOM_VK_NAME(VK_ERROR_INVALID_SHADER_NV)
#undef LOOM_VK_NAME
    default: return "an unknown VkResult";
    }
}

int loom_vk_error(void *user_context, const char *message) {
    loom_error(user_context, message);
    return loom_error_code_device_error;
}

int loom_vk_fail(void *user_context, const char *call, VkResult result, const char *advice) {
    char text[1024];
    const char *hint = advice;
    if (!hint) {
        switch (result) {
        case VK_ERROR_OUT_OF_DEVICE_MEMORY:
            hint = "The device is out of memory: free device buffers (device_free) or use smaller ones.";
            break;
        case VK_ERROR_OUT_OF_HOST_MEMORY: hint = "The host is out of memory."; break;
        case VK_ERROR_DEVICE_LOST:
            hint = "The device was lost (a kernel may have run too long or faulted): call loom_device_release and "
                   "start again.";
            break;
        case VK_TIMEOUT:
            hint = "The device did not finish the submitted work in time; call loom_device_release and start again.";
            break;
        default: hint = "Run with LOOM_VK_VALIDATION=1 (Debian: vulkan-validationlayers) to find out why."; break;
        }
    }
    snprintf(text, sizeof text, "Vulkan: %s failed with %s (%d). %s", call, loom_vk_result_name(result), (int)result,
             hint);
    return loom_vk_error(user_context, text);
}

/* Process-wide, updated atomically: a test reads them without the lock. */
int64_t loom_vk_created[loom_vk_object_kinds];
int64_t loom_vk_destroyed[loom_vk_object_kinds];
int64_t loom_vk_events[loom_vk_event_kinds];

void loom_vk_count_create(int kind) { __atomic_fetch_add(&loom_vk_created[kind], 1, __ATOMIC_RELAXED); }
void loom_vk_count_destroy(int kind) { __atomic_fetch_add(&loom_vk_destroyed[kind], 1, __ATOMIC_RELAXED); }
void loom_vk_count_event(int kind) { __atomic_fetch_add(&loom_vk_events[kind], 1, __ATOMIC_RELAXED); }

LOOM_RUNTIME_EXPORT void loom_vulkan_debug_counts(loom_vk_debug_counts_t *counts) {
    for (int k = 0; k < loom_vk_object_kinds; k++) {
        counts->created[k] = __atomic_load_n(&loom_vk_created[k], __ATOMIC_RELAXED);
        counts->destroyed[k] = __atomic_load_n(&loom_vk_destroyed[k], __ATOMIC_RELAXED);
    }
    for (int k = 0; k < loom_vk_event_kinds; k++) {
        counts->events[k] = __atomic_load_n(&loom_vk_events[k], __ATOMIC_RELAXED);
    }
}

LOOM_RUNTIME_EXPORT const char *loom_vulkan_debug_object_name(int kind) {
    static const char *const names[loom_vk_object_kinds] = {
        "VkInstance", "VkDebugUtilsMessengerEXT", "VkDevice", "VkDeviceMemory", "VkBuffer", "VkShaderModule",
        "VkDescriptorSetLayout", "VkPipelineLayout", "VkPipeline", "VkDescriptorPool", "VkCommandPool", "VkFence"};
    return kind >= 0 && kind < loom_vk_object_kinds ? names[kind] : "?";
}
