#ifndef LOOM_RUNTIME_VULKAN_DEBUG_H
#define LOOM_RUNTIME_VULKAN_DEBUG_H

/* Counters the Vulkan runtime keeps for tests (test/runtime/vulkan): how many
 * objects of each kind it created and destroyed, how often it submitted and
 * waited, and where a buffer's memory lies. Not part of the C ABI. */

#include <stdint.h>

#include "loom/runtime/loom_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    loom_vk_object_instance = 0,
    loom_vk_object_debug_messenger,
    loom_vk_object_device,
    loom_vk_object_device_memory,
    loom_vk_object_buffer,
    loom_vk_object_shader_module,
    loom_vk_object_descriptor_set_layout,
    loom_vk_object_pipeline_layout,
    loom_vk_object_pipeline,
    loom_vk_object_descriptor_pool,
    loom_vk_object_command_pool,
    loom_vk_object_fence,
    loom_vk_object_kinds
};

enum {
    loom_vk_event_submit = 0,  /* vkQueueSubmit */
    loom_vk_event_wait,        /* a fence waited on */
    loom_vk_event_barrier,     /* vkCmdPipelineBarrier */
    loom_vk_event_dispatch,    /* vkCmdDispatch */
    loom_vk_event_kinds
};

typedef struct loom_vk_debug_counts_t {
    int64_t created[loom_vk_object_kinds];
    int64_t destroyed[loom_vk_object_kinds];
    int64_t events[loom_vk_event_kinds];
} loom_vk_debug_counts_t;

/* The counts since the process started. */
void loom_vulkan_debug_counts(loom_vk_debug_counts_t *counts);
/* "VkInstance", "VkBuffer", ... */
const char *loom_vulkan_debug_object_name(int kind);

/* Where buf's device allocation lies: its VkDeviceMemory (as an integer),
 * offset in it, and the alignment VkMemoryRequirements asked for. Returns
 * nonzero when buf has no Vulkan allocation of its own. */
int loom_vulkan_debug_placement(const loom_buffer_t *buf, uint64_t *memory, uint64_t *offset, uint64_t *alignment);

/* The allocator's blocks and bytes (reserved in blocks, handed out). */
void loom_vulkan_debug_memory(uint64_t *blocks, uint64_t *reserved_bytes, uint64_t *used_bytes);

#ifdef __cplusplus
}
#endif

#endif
