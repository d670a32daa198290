#ifndef LOOM_RUNTIME_VULKAN_INTERNAL_H
#define LOOM_RUNTIME_VULKAN_INTERNAL_H

/* What the files of the Vulkan runtime share:
 *   VulkanLoader.c         dlopen of the loader, function pointers
 *   VulkanContext.c        the one lazily created context: instance, device
 *                          choice, features, validation, release
 *   VulkanAllocator.c      device memory blocks and sub-allocation
 *   VulkanCommandStream.c  the command buffer being recorded, barriers,
 *                          descriptor pools, submission at sync points
 *   VulkanBuffers.c        device allocations of loom_buffer_t and copies
 *   VulkanKernels.c        shader modules, pipelines, loom_vulkan_run
 *   VulkanErrors.c         VkResult names, error reports, debug counters
 *
 * Locking: every entry point takes loom_vk_lock (one process-wide mutex)
 * for its whole duration; everything below assumes it is held. */

#include "loom/runtime/loom_runtime.h"
#include "runtime/DeviceInterface.h"
#include "runtime/RuntimePlatform.h"
#include "runtime/VulkanDebug.h"
#include "runtime/VulkanLoader.h"

/* Host memory through loom_malloc (so that AOT libraries need no more of
 * libc than the rest of the runtime); free() releases it. */
static inline void *loom_vk_zalloc(size_t bytes) {
    void *p = loom_malloc(0, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}
/* A bigger copy of old (old_bytes of it are kept); old is freed on success. */
static inline void *loom_vk_grow(void *old, size_t old_bytes, size_t new_bytes) {
    void *p = loom_malloc(0, new_bytes);
    if (!p) return 0;
    if (old) memcpy(p, old, old_bytes);
    free(old);
    return p;
}
static inline int loom_vk_strcmp(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

/* Whether iface is (a copy of) the Vulkan interface of VulkanBuffers.c. */
static inline int loom_vk_is_vulkan(const struct loom_device_interface_t *iface) {
    return iface && loom_vk_strcmp(iface->name, "Vulkan") == 0;
}

/* ---- allocator ---------------------------------------------------------- */

typedef struct loom_vk_free_range_t {
    VkDeviceSize offset, size;
} loom_vk_free_range_t;

/* One VkDeviceMemory, sub-allocated; free ranges sorted by offset. */
typedef struct loom_vk_block_t {
    VkDeviceMemory memory;
    uint32_t memory_type;
    VkDeviceSize size;
    VkDeviceSize used;
    uint8_t *mapped; /* persistently mapped when host-visible, else NULL */
    loom_vk_free_range_t *free_ranges;
    uint32_t free_count, free_capacity;
    struct loom_vk_block_t *next;
} loom_vk_block_t;

typedef struct loom_vk_allocation_t {
    loom_vk_block_t *block; /* NULL: nothing allocated */
    VkDeviceSize offset, size;
    VkDeviceSize alignment; /* what VkMemoryRequirements asked for */
} loom_vk_allocation_t;

/* What memory a VkBuffer is for. */
typedef enum loom_vk_memory_use_t {
    loom_vk_memory_device,   /* kernels read and write it */
    loom_vk_memory_staging,  /* host writes or reads it, transfers use it */
    loom_vk_memory_arguments /* a kernel's scalar arguments, as a uniform buffer */
} loom_vk_memory_use_t;

/* ---- buffers ------------------------------------------------------------ */

/* What loom_buffer_t::device points at for the Vulkan interface. */
typedef struct loom_vk_buffer_t {
    VkBuffer buffer;
    loom_vk_allocation_t allocation; /* empty when wrapped */
    VkDeviceSize size;               /* bytes of the host span */
    uint8_t *mapped;                 /* host address of byte 0 when host-visible (zero-copy), else NULL */
    uint64_t batch;                  /* the last batch that recorded a command using it */
    uint64_t barrier_epoch;          /* == stream's epoch: used since the last barrier */
    int wrapped;                     /* a native VkBuffer the user owns */
    int orphaned;                    /* its context was released; only freeing it is allowed */
    struct loom_vk_buffer_t *prev, *next; /* the context's live buffers */
} loom_vk_buffer_t;

/* ---- kernels ------------------------------------------------------------ */

typedef struct loom_vk_entry_t {
    char *name;
    int num_buffers;
    uint32_t push_constant_bytes;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    struct loom_vk_entry_t *next;
} loom_vk_entry_t;

/* What *state of loom_vulkan_initialize_kernels points at. Lives until
 * loom_vulkan_finalize_kernels (generated code may keep *state across
 * loom_device_release, so release only drops its Vulkan objects). */
typedef struct loom_vk_module_t {
    uint32_t *words;
    uint32_t word_count;
    uint64_t capabilities; /* loom_vk_capability_* the module declares */
    VkShaderModule shader; /* VK_NULL_HANDLE until created in the current context */
    loom_vk_entry_t *entries;
    struct loom_vk_module_t *prev, *next;
} loom_vk_module_t;

/* ---- the context -------------------------------------------------------- */

enum {
    loom_vk_capability_int8 = 1,
    loom_vk_capability_int16 = 2,
    loom_vk_capability_int64 = 4,
    loom_vk_capability_float16 = 8,
    loom_vk_capability_float64 = 16,
    loom_vk_capability_storage8 = 32,
    loom_vk_capability_storage16 = 64,
    /* SignedZeroInfNanPreserve for each float width (Vulkan 1.2 float controls) */
    loom_vk_capability_preserve16 = 128,
    loom_vk_capability_preserve32 = 256,
    loom_vk_capability_preserve64 = 512
};

typedef struct loom_vk_context_t {
    void *loader;
    loom_vk_functions_t vk;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical_device;
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceMemoryProperties memory_properties;
    uint32_t api_version;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    uint64_t features;     /* loom_vulkan_feature_* */
    uint64_t capabilities; /* loom_vk_capability_* enabled on the device */
    int zero_copy;         /* device memory is host memory (integrated or CPU device) */

    loom_vk_block_t *blocks;
    loom_vk_buffer_t *buffers;

    /* The command stream (VulkanCommandStream.c). */
    VkCommandPool command_pool;
    VkCommandBuffer command_buffer;
    VkFence fence;
    int recording;           /* command_buffer has been begun */
    uint32_t commands;       /* commands recorded into it */
    uint64_t batch;          /* serial of the batch being recorded (starts at 1) */
    uint64_t barrier_epoch;  /* bumped by every barrier */
    VkDescriptorPool *pools; /* pools[0, pools_used) serve the batch being recorded */
    uint32_t pool_count, pool_capacity, pools_used;
    uint32_t pool_sets_left, pool_descriptors_left; /* in pools[pools_used - 1] */
    loom_vk_buffer_t **deferred; /* freed by the user while the batch uses them */
    uint32_t deferred_count, deferred_capacity;
    int lost; /* a wait failed: only release is allowed */
} loom_vk_context_t;

extern pthread_mutex_t loom_vk_lock;
extern loom_vk_context_t *loom_vk_context;
extern loom_vk_module_t *loom_vk_modules;

/* Context (VulkanContext.c). Returns the context, creating it on first use;
 * NULL after reporting why none can be made. */
loom_vk_context_t *loom_vk_get_context(void *user_context, int *error);
/* Destroys everything of the context and frees it. */
int loom_vk_destroy_context(void *user_context);
/* 0, or device_error when a validation error was reported since the last
 * check (which clears it). */
int loom_vk_take_validation_error(void);

/* Errors (VulkanErrors.c). */
const char *loom_vk_result_name(VkResult result);
/* "Vulkan: <call> failed with <VkResult>. <advice>" through loom_error;
 * returns loom_error_code_device_error. */
int loom_vk_fail(void *user_context, const char *call, VkResult result, const char *advice);
/* Any message through loom_error; returns loom_error_code_device_error. */
int loom_vk_error(void *user_context, const char *message);
void loom_vk_count_create(int kind);
void loom_vk_count_destroy(int kind);
void loom_vk_count_event(int kind);

/* Allocator (VulkanAllocator.c). */
int loom_vk_create_buffer(void *user_context, loom_vk_context_t *ctx, VkDeviceSize size, loom_vk_memory_use_t use,
                          VkBuffer *buffer, loom_vk_allocation_t *allocation);
void loom_vk_destroy_buffer(loom_vk_context_t *ctx, VkBuffer buffer, loom_vk_allocation_t *allocation);
uint8_t *loom_vk_allocation_host_address(const loom_vk_allocation_t *allocation);
void loom_vk_destroy_blocks(loom_vk_context_t *ctx);

/* Command stream (VulkanCommandStream.c). */
int loom_vk_stream_begin(void *user_context, loom_vk_context_t *ctx);
/* Before a command using these buffers: a barrier if one of them was used
 * since the last barrier; then marks them used by this batch. */
void loom_vk_stream_order(loom_vk_context_t *ctx, loom_vk_buffer_t **buffers, int count);
/* Whether the batch being recorded uses the buffer. */
int loom_vk_stream_uses(const loom_vk_context_t *ctx, const loom_vk_buffer_t *buffer);
int loom_vk_stream_descriptor_set(void *user_context, loom_vk_context_t *ctx, VkDescriptorSetLayout layout,
                                  uint32_t descriptors, VkDescriptorSet *set);
/* Frees the buffer record once the batch using it has finished. */
int loom_vk_stream_defer_free(void *user_context, loom_vk_context_t *ctx, loom_vk_buffer_t *buffer);
/* Submits what was recorded and waits for it; recycles descriptor pools and
 * runs deferred frees. */
int loom_vk_stream_flush(void *user_context, loom_vk_context_t *ctx);
void loom_vk_stream_destroy(loom_vk_context_t *ctx);

/* Buffers (VulkanBuffers.c). */
void loom_vk_free_buffer_record(loom_vk_context_t *ctx, loom_vk_buffer_t *buffer);
void loom_vk_orphan_buffers(loom_vk_context_t *ctx);

/* Kernels (VulkanKernels.c). */
void loom_vk_drop_module_objects(loom_vk_context_t *ctx);

#endif
