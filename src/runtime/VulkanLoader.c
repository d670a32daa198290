/* Opening the Vulkan loader with dlopen and looking up its functions
 * (VulkanLoader.h). */

#include "runtime/VulkanLoader.h"

#include "loom/runtime/loom_runtime.h"
#include "runtime/RuntimePlatform.h"

static int loom_vk_missing_function(void *user_context, const char *name) {
    char text[512];
    snprintf(text, sizeof text,
             "Vulkan: the loader has no function %s; the Vulkan loader (Debian: libvulkan1) or its driver "
             "(mesa-vulkan-drivers) is too old or broken.",
             name);
    loom_error(user_context, text);
    return loom_error_code_device_error;
}

int loom_vk_open_loader(void *user_context, void **handle, loom_vk_functions_t *vk) {
    const char *path = getenv("LOOM_VK_LOADER");
    if (!path || !*path) path = "libvulkan.so.1";
    *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*handle) {
        const char *why = dlerror();
        char text[1024];
        snprintf(text, sizeof text,
                 "Vulkan: cannot load the Vulkan loader '%s' (%s). Install the loader and a driver (Debian: "
                 "libvulkan1 and mesa-vulkan-drivers, whose lavapipe is a Vulkan device on the CPU), or set "
                 "LOOM_VK_LOADER to the loader's path; LOOM_VK_DEVICE picks the device.",
                 path, why ? why : "no reason given");
        loom_error(user_context, text);
        return loom_error_code_device_error;
    }
    vk->vkGetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)dlsym(*handle, "vkGetInstanceProcAddr");
    if (!vk->vkGetInstanceProcAddr) {
        dlclose(*handle);
        *handle = 0;
        return loom_vk_missing_function(user_context, "vkGetInstanceProcAddr");
    }
    vk->vkEnumerateInstanceVersion =
        (PFN_vkEnumerateInstanceVersion)vk->vkGetInstanceProcAddr(0, "vkEnumerateInstanceVersion");
#define LOOM_VK_LOAD_GLOBAL(name)                                              \
    vk->name = (PFN_##name)vk->vkGetInstanceProcAddr(0, #name);                \
    if (!vk->name) {                                                           \
        dlclose(*handle);                                                      \
        *handle = 0;                                                           \
        return loom_vk_missing_function(user_context, #name);                  \
    }
    LOOM_VK_GLOBAL_FUNCTIONS(LOOM_VK_LOAD_GLOBAL)
#undef LOOM_VK_LOAD_GLOBAL
    return 0;
}

int loom_vk_load_instance_functions(void *user_context, VkInstance instance, loom_vk_functions_t *vk) {
#define LOOM_VK_LOAD_INSTANCE(name)                                            \
    vk->name = (PFN_##name)vk->vkGetInstanceProcAddr(instance, #name);         \
    if (!vk->name) return loom_vk_missing_function(user_context, #name);
    LOOM_VK_INSTANCE_FUNCTIONS(LOOM_VK_LOAD_INSTANCE)
#undef LOOM_VK_LOAD_INSTANCE
    vk->vkGetPhysicalDeviceFeatures2 =
        (PFN_vkGetPhysicalDeviceFeatures2)vk->vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceFeatures2");
    vk->vkGetPhysicalDeviceProperties2 =
        (PFN_vkGetPhysicalDeviceProperties2)vk->vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceProperties2");
    vk->vkCreateDebugUtilsMessengerEXT =
        (PFN_vkCreateDebugUtilsMessengerEXT)vk->vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT");
    vk->vkDestroyDebugUtilsMessengerEXT =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vk->vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT");
    return 0;
}

int loom_vk_load_device_functions(void *user_context, VkDevice device, loom_vk_functions_t *vk) {
#define LOOM_VK_LOAD_DEVICE(name)                                              \
    vk->name = (PFN_##name)vk->vkGetDeviceProcAddr(device, #name);             \
    if (!vk->name) return loom_vk_missing_function(user_context, #name);
    LOOM_VK_DEVICE_FUNCTIONS(LOOM_VK_LOAD_DEVICE)
#undef LOOM_VK_LOAD_DEVICE
    return 0;
}

void loom_vk_close_loader(void *handle) {
    if (handle) dlclose(handle);
}
