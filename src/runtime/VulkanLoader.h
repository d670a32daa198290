#ifndef LOOM_RUNTIME_VULKAN_LOADER_H
#define LOOM_RUNTIME_VULKAN_LOADER_H

/* The Vulkan loader, opened at run time with dlopen (VulkanLoader.c), so that
 * neither libLoom nor AOT libraries link libvulkan. Only Vulkan's types come
 * from its headers (VK_NO_PROTOTYPES); every function is a pointer in
 * loom_vk_functions_t, filled in three steps: the loader's global functions,
 * then the instance's, then the device's. */

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>

/* Functions before an instance exists. */
#define LOOM_VK_GLOBAL_FUNCTIONS(X)         \
    X(vkCreateInstance)                     \
    X(vkEnumerateInstanceLayerProperties)   \
    X(vkEnumerateInstanceExtensionProperties)

/* Functions of an instance (and of its physical devices). */
#define LOOM_VK_INSTANCE_FUNCTIONS(X)           \
    X(vkDestroyInstance)                        \
    X(vkEnumeratePhysicalDevices)               \
    X(vkGetPhysicalDeviceProperties)            \
    X(vkGetPhysicalDeviceFeatures)              \
    X(vkGetPhysicalDeviceMemoryProperties)      \
    X(vkGetPhysicalDeviceQueueFamilyProperties) \
    X(vkEnumerateDeviceExtensionProperties)     \
    X(vkCreateDevice)                           \
    X(vkGetDeviceProcAddr)

/* Functions of a device. */
#define LOOM_VK_DEVICE_FUNCTIONS(X)      \
    X(vkDestroyDevice)                   \
    X(vkGetDeviceQueue)                  \
    X(vkDeviceWaitIdle)                  \
    X(vkQueueSubmit)                     \
    X(vkCreateBuffer)                    \
    X(vkDestroyBuffer)                   \
    X(vkGetBufferMemoryRequirements)     \
    X(vkBindBufferMemory)                \
    X(vkAllocateMemory)                  \
    X(vkFreeMemory)                      \
    X(vkMapMemory)                       \
    X(vkUnmapMemory)                     \
    X(vkCreateShaderModule)              \
    X(vkDestroyShaderModule)             \
    X(vkCreateDescriptorSetLayout)       \
    X(vkDestroyDescriptorSetLayout)      \
    X(vkCreatePipelineLayout)            \
    X(vkDestroyPipelineLayout)           \
    X(vkCreateComputePipelines)          \
    X(vkDestroyPipeline)                 \
    X(vkCreateDescriptorPool)            \
    X(vkDestroyDescriptorPool)           \
    X(vkResetDescriptorPool)             \
    X(vkAllocateDescriptorSets)          \
    X(vkUpdateDescriptorSets)            \
    X(vkCreateCommandPool)               \
    X(vkDestroyCommandPool)              \
    X(vkAllocateCommandBuffers)          \
    X(vkBeginCommandBuffer)              \
    X(vkEndCommandBuffer)                \
    X(vkResetCommandBuffer)              \
    X(vkCmdBindPipeline)                 \
    X(vkCmdBindDescriptorSets)           \
    X(vkCmdPushConstants)                \
    X(vkCmdDispatch)                     \
    X(vkCmdPipelineBarrier)              \
    X(vkCmdUpdateBuffer)                 \
    X(vkCmdCopyBuffer)                   \
    X(vkCreateFence)                     \
    X(vkDestroyFence)                    \
    X(vkResetFences)                     \
    X(vkWaitForFences)

#define LOOM_VK_DECLARE_POINTER(name) PFN_##name name;

typedef struct loom_vk_functions_t {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
    PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion; /* NULL on a Vulkan 1.0 loader */
    LOOM_VK_GLOBAL_FUNCTIONS(LOOM_VK_DECLARE_POINTER)
    LOOM_VK_INSTANCE_FUNCTIONS(LOOM_VK_DECLARE_POINTER)
    PFN_vkGetPhysicalDeviceFeatures2 vkGetPhysicalDeviceFeatures2;             /* NULL before Vulkan 1.1 */
    PFN_vkGetPhysicalDeviceProperties2 vkGetPhysicalDeviceProperties2;         /* NULL before Vulkan 1.1 */
    PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT;         /* with validation only */
    PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT;
    LOOM_VK_DEVICE_FUNCTIONS(LOOM_VK_DECLARE_POINTER)
} loom_vk_functions_t;

/* Opens the loader (LOOM_VK_LOADER, else libvulkan.so.1) and fills in the
 * global functions. On failure reports why, naming what to install, and
 * returns loom_error_code_device_error with *handle NULL. */
int loom_vk_open_loader(void *user_context, void **handle, loom_vk_functions_t *vk);
/* Fills in the instance's functions; the debug-utils ones may stay NULL. */
int loom_vk_load_instance_functions(void *user_context, VkInstance instance, loom_vk_functions_t *vk);
int loom_vk_load_device_functions(void *user_context, VkDevice device, loom_vk_functions_t *vk);
void loom_vk_close_loader(void *handle);

#endif
