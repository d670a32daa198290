/* Device memory: VkDeviceMemory blocks sub-allocated for VkBuffers.
 *
 * Each buffer gets its own VkBuffer, bound at an offset of a shared block
 * that is a multiple of that buffer's VkMemoryRequirements::alignment (the
 * bug Halide's tracker reports most: lavapipe and RADV want 64 bytes). Freed
 * ranges go back to their block's free list, merged with their neighbours,
 * and are handed out again; an empty block is kept for reuse unless another
 * empty block of the same memory type exists. Host-visible blocks stay
 * mapped for their whole life. */

#include "runtime/VulkanInternal.h"

#define LOOM_VK_BLOCK_BYTES ((VkDeviceSize)32 << 20)

static VkDeviceSize loom_vk_align_up(VkDeviceSize value, VkDeviceSize alignment) {
    return alignment > 1 ? (value + alignment - 1) / alignment * alignment : value;
}

/* The first memory type allowed by type_bits that has all of `required`. */
static int loom_vk_find_memory_type(const loom_vk_context_t *ctx, uint32_t type_bits, VkMemoryPropertyFlags required) {
    for (uint32_t i = 0; i < ctx->memory_properties.memoryTypeCount; i++) {
        if ((type_bits & (1u << i)) &&
            (ctx->memory_properties.memoryTypes[i].propertyFlags & required) == required) {
            return (int)i;
        }
    }
    return -1;
}

static int loom_vk_choose_memory_type(const loom_vk_context_t *ctx, uint32_t type_bits, loom_vk_memory_use_t use) {
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    int type = -1;
    if (use == loom_vk_memory_staging) {
        type = loom_vk_find_memory_type(ctx, type_bits, visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        if (type < 0) type = loom_vk_find_memory_type(ctx, type_bits, visible);
        return type;
    }
    /* Zero copy where device memory is host memory anyway. */
    if (ctx->zero_copy) type = loom_vk_find_memory_type(ctx, type_bits, visible | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type < 0) type = loom_vk_find_memory_type(ctx, type_bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type < 0) type = loom_vk_find_memory_type(ctx, type_bits, 0);
    return type;
}

static int loom_vk_take_range(loom_vk_block_t *block, VkDeviceSize size, VkDeviceSize alignment,
                              VkDeviceSize *offset) {
    for (uint32_t i = 0; i < block->free_count; i++) {
        loom_vk_free_range_t range = block->free_ranges[i];
        VkDeviceSize start = loom_vk_align_up(range.offset, alignment);
        if (start + size > range.offset + range.size) continue;
        VkDeviceSize front = start - range.offset;
        VkDeviceSize back = range.offset + range.size - (start + size);
        if (front && back) {
            /* Split in two: needs one more entry. */
            if (block->free_count == block->free_capacity) {
                uint32_t capacity = block->free_capacity ? block->free_capacity * 2 : 8;
                void *grown = loom_vk_grow(block->free_ranges, block->free_capacity * sizeof *block->free_ranges, capacity * sizeof *block->free_ranges);
                if (!grown) return 0;
                block->free_ranges = (loom_vk_free_range_t *)grown;
                block->free_capacity = capacity;
            }
            for (uint32_t k = block->free_count; k > i + 1; k--) block->free_ranges[k] = block->free_ranges[k - 1];
            block->free_count++;
            block->free_ranges[i] = (loom_vk_free_range_t){range.offset, front};
            block->free_ranges[i + 1] = (loom_vk_free_range_t){start + size, back};
        } else if (front) {
            block->free_ranges[i].size = front;
        } else if (back) {
            block->free_ranges[i] = (loom_vk_free_range_t){start + size, back};
        } else {
            for (uint32_t k = i; k + 1 < block->free_count; k++) block->free_ranges[k] = block->free_ranges[k + 1];
            block->free_count--;
        }
        block->used += size;
        *offset = start;
        return 1;
    }
    return 0;
}

/* Returns [offset, offset + size) to the free list, merging neighbours.
 * Returns 0 when out of host memory (the range is then lost, not corrupt). */
static int loom_vk_give_back_range(loom_vk_block_t *block, VkDeviceSize offset, VkDeviceSize size) {
    block->used -= size;
    uint32_t i = 0;
    while (i < block->free_count && block->free_ranges[i].offset < offset) i++;
    int joins_previous = i > 0 && block->free_ranges[i - 1].offset + block->free_ranges[i - 1].size == offset;
    int joins_next = i < block->free_count && offset + size == block->free_ranges[i].offset;
    if (joins_previous && joins_next) {
        block->free_ranges[i - 1].size += size + block->free_ranges[i].size;
        for (uint32_t k = i; k + 1 < block->free_count; k++) block->free_ranges[k] = block->free_ranges[k + 1];
        block->free_count--;
    } else if (joins_previous) {
        block->free_ranges[i - 1].size += size;
    } else if (joins_next) {
        block->free_ranges[i].offset = offset;
        block->free_ranges[i].size += size;
    } else {
        if (block->free_count == block->free_capacity) {
            uint32_t capacity = block->free_capacity ? block->free_capacity * 2 : 8;
            void *grown = loom_vk_grow(block->free_ranges, block->free_capacity * sizeof *block->free_ranges, capacity * sizeof *block->free_ranges);
            if (!grown) return 0;
            block->free_ranges = (loom_vk_free_range_t *)grown;
            block->free_capacity = capacity;
        }
        for (uint32_t k = block->free_count; k > i; k--) block->free_ranges[k] = block->free_ranges[k - 1];
        block->free_ranges[i] = (loom_vk_free_range_t){offset, size};
        block->free_count++;
    }
    return 1;
}

static void loom_vk_free_block(loom_vk_context_t *ctx, loom_vk_block_t *block) {
    if (block->mapped) ctx->vk.vkUnmapMemory(ctx->device, block->memory);
    ctx->vk.vkFreeMemory(ctx->device, block->memory, 0);
    loom_vk_count_destroy(loom_vk_object_device_memory);
    free(block->free_ranges);
    free(block);
}

static int loom_vk_new_block(void *user_context, loom_vk_context_t *ctx, uint32_t memory_type, VkDeviceSize needed,
                             loom_vk_block_t **out) {
    VkDeviceSize size = needed > LOOM_VK_BLOCK_BYTES ? loom_vk_align_up(needed, (VkDeviceSize)1 << 20)
                                                     : LOOM_VK_BLOCK_BYTES;
    const uint32_t heap = ctx->memory_properties.memoryTypes[memory_type].heapIndex;
    const VkDeviceSize heap_size = ctx->memory_properties.memoryHeaps[heap].size;
    if (size > heap_size / 4 && needed <= heap_size / 4) size = needed; /* small heaps: no big blocks */
    loom_vk_block_t *block = (loom_vk_block_t *)loom_vk_zalloc((size_t)(1) * (sizeof *block));
    if (!block) return loom_vk_error(user_context, "Vulkan: out of host memory allocating a memory block.");
    VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = size;
    info.memoryTypeIndex = memory_type;
    VkResult result = ctx->vk.vkAllocateMemory(ctx->device, &info, 0, &block->memory);
    if (result != VK_SUCCESS && size > needed) {
        info.allocationSize = size = needed; /* try again without headroom */
        result = ctx->vk.vkAllocateMemory(ctx->device, &info, 0, &block->memory);
    }
    if (result != VK_SUCCESS) {
        free(block);
        return loom_vk_fail(user_context, "vkAllocateMemory", result, 0);
    }
    loom_vk_count_create(loom_vk_object_device_memory);
    block->memory_type = memory_type;
    block->size = size;
    if (ctx->memory_properties.memoryTypes[memory_type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        void *mapped = 0;
        result = ctx->vk.vkMapMemory(ctx->device, block->memory, 0, VK_WHOLE_SIZE, 0, &mapped);
        if (result != VK_SUCCESS) {
            loom_vk_free_block(ctx, block);
            return loom_vk_fail(user_context, "vkMapMemory", result, 0);
        }
        block->mapped = (uint8_t *)mapped;
    }
    block->free_ranges = (loom_vk_free_range_t *)loom_vk_zalloc((size_t)(8) * (sizeof *block->free_ranges));
    if (!block->free_ranges) {
        loom_vk_free_block(ctx, block);
        return loom_vk_error(user_context, "Vulkan: out of host memory allocating a memory block.");
    }
    block->free_capacity = 8;
    block->free_count = 1;
    block->free_ranges[0] = (loom_vk_free_range_t){0, size};
    block->next = ctx->blocks;
    ctx->blocks = block;
    *out = block;
    return 0;
}

static int loom_vk_allocate(void *user_context, loom_vk_context_t *ctx, const VkMemoryRequirements *requirements,
                            loom_vk_memory_use_t use, loom_vk_allocation_t *allocation) {
    int memory_type = loom_vk_choose_memory_type(ctx, requirements->memoryTypeBits, use);
    if (memory_type < 0) {
        return loom_vk_error(user_context, use == loom_vk_memory_staging
                                               ? "Vulkan: the device has no host-visible, coherent memory type for "
                                                 "staging buffers."
                                               : "Vulkan: the device has no memory type for storage buffers.");
    }
    /* Sizes in multiples of the alignment keep the free lists tidy. */
    const VkDeviceSize alignment = requirements->alignment ? requirements->alignment : 1;
    const VkDeviceSize size = loom_vk_align_up(requirements->size, alignment);
    VkDeviceSize offset = 0;
    loom_vk_block_t *block = ctx->blocks;
    for (; block; block = block->next) {
        if (block->memory_type == (uint32_t)memory_type && block->size - block->used >= size &&
            loom_vk_take_range(block, size, alignment, &offset)) {
            break;
        }
    }
    if (!block) {
        int error = loom_vk_new_block(user_context, ctx, (uint32_t)memory_type, size, &block);
        if (error) return error;
        if (!loom_vk_take_range(block, size, alignment, &offset)) {
            return loom_vk_error(user_context, "Vulkan: a new memory block cannot hold the buffer it was made for.");
        }
    }
    allocation->block = block;
    allocation->offset = offset;
    allocation->size = size;
    allocation->alignment = alignment;
    return 0;
}

static void loom_vk_release_allocation(loom_vk_context_t *ctx, loom_vk_allocation_t *allocation) {
    loom_vk_block_t *block = allocation->block;
    if (!block) return;
    allocation->block = 0;
    loom_vk_give_back_range(block, allocation->offset, allocation->size);
    if (block->used) return;
    /* Keep one empty block per memory type for the next allocation. */
    loom_vk_block_t **link = &ctx->blocks;
    int other_empty = 0;
    for (loom_vk_block_t *b = ctx->blocks; b; b = b->next) {
        other_empty = other_empty || (b != block && b->used == 0 && b->memory_type == block->memory_type);
    }
    if (!other_empty) return;
    while (*link != block) link = &(*link)->next;
    *link = block->next;
    loom_vk_free_block(ctx, block);
}

int loom_vk_create_buffer(void *user_context, loom_vk_context_t *ctx, VkDeviceSize size, loom_vk_memory_use_t use,
                          VkBuffer *buffer, loom_vk_allocation_t *allocation) {
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size ? size : 4; /* Vulkan has no empty buffers */
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (use == loom_vk_memory_device) info.usage |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    if (use == loom_vk_memory_arguments) info.usage |= VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult result = ctx->vk.vkCreateBuffer(ctx->device, &info, 0, buffer);
    if (result != VK_SUCCESS) return loom_vk_fail(user_context, "vkCreateBuffer", result, 0);
    loom_vk_count_create(loom_vk_object_buffer);
    VkMemoryRequirements requirements;
    ctx->vk.vkGetBufferMemoryRequirements(ctx->device, *buffer, &requirements);
    int error = loom_vk_allocate(user_context, ctx, &requirements, use, allocation);
    if (!error) {
        result = ctx->vk.vkBindBufferMemory(ctx->device, *buffer, allocation->block->memory, allocation->offset);
        if (result != VK_SUCCESS) {
            loom_vk_release_allocation(ctx, allocation);
            error = loom_vk_fail(user_context, "vkBindBufferMemory", result, 0);
        }
    }
    if (error) {
        ctx->vk.vkDestroyBuffer(ctx->device, *buffer, 0);
        loom_vk_count_destroy(loom_vk_object_buffer);
        *buffer = VK_NULL_HANDLE;
    }
    return error;
}

void loom_vk_destroy_buffer(loom_vk_context_t *ctx, VkBuffer buffer, loom_vk_allocation_t *allocation) {
    if (buffer) {
        ctx->vk.vkDestroyBuffer(ctx->device, buffer, 0);
        loom_vk_count_destroy(loom_vk_object_buffer);
    }
    loom_vk_release_allocation(ctx, allocation);
}

uint8_t *loom_vk_allocation_host_address(const loom_vk_allocation_t *allocation) {
    if (!allocation->block || !allocation->block->mapped) return 0;
    return allocation->block->mapped + allocation->offset;
}

void loom_vk_destroy_blocks(loom_vk_context_t *ctx) {
    while (ctx->blocks) {
        loom_vk_block_t *block = ctx->blocks;
        ctx->blocks = block->next;
        loom_vk_free_block(ctx, block);
    }
}

LOOM_RUNTIME_EXPORT void loom_vulkan_debug_memory(uint64_t *blocks, uint64_t *reserved_bytes, uint64_t *used_bytes) {
    *blocks = *reserved_bytes = *used_bytes = 0;
    pthread_mutex_lock(&loom_vk_lock);
    for (loom_vk_block_t *b = loom_vk_context ? loom_vk_context->blocks : 0; b; b = b->next) {
        (*blocks)++;
        *reserved_bytes += b->size;
        *used_bytes += b->used;
    }
    pthread_mutex_unlock(&loom_vk_lock);
}
