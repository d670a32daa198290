/* The command stream: one command buffer that dispatches, copies and
 * barriers are appended to, submitted only at sync points (copy to host,
 * device_sync, detaching an in-flight buffer, release), then waited for with
 * a fence. Nothing waits after each kernel.
 *
 * Barriers: a command that uses a buffer some command since the last
 * barrier used (kernels may write any buffer they bind) gets one global
 * memory barrier first, compute and transfer on both sides; independent
 * commands run without one.
 *
 * Descriptor sets come from pools that serve one batch: after the batch's
 * fence, the pools are reset and serve the next one, so any number of
 * dispatches over any number of batches never runs out. */

#include "runtime/VulkanInternal.h"

#define LOOM_VK_POOL_SETS 512u
#define LOOM_VK_POOL_DESCRIPTORS (LOOM_VK_POOL_SETS * 8u)
/* A batch this long is submitted without waiting for a sync point. */
#define LOOM_VK_MAX_BATCH_COMMANDS 8192u
#define LOOM_VK_WAIT_NANOSECONDS 120000000000ull

static int loom_vk_create_stream_objects(void *user_context, loom_vk_context_t *ctx) {
    if (!ctx->command_pool) {
        VkCommandPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        info.queueFamilyIndex = ctx->queue_family;
        VkResult result = ctx->vk.vkCreateCommandPool(ctx->device, &info, 0, &ctx->command_pool);
        if (result != VK_SUCCESS) {
            ctx->command_pool = VK_NULL_HANDLE;
            return loom_vk_fail(user_context, "vkCreateCommandPool", result, 0);
        }
        loom_vk_count_create(loom_vk_object_command_pool);
    }
    if (!ctx->command_buffer) {
        VkCommandBufferAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        info.commandPool = ctx->command_pool;
        info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        info.commandBufferCount = 1;
        VkResult result = ctx->vk.vkAllocateCommandBuffers(ctx->device, &info, &ctx->command_buffer);
        if (result != VK_SUCCESS) {
            ctx->command_buffer = VK_NULL_HANDLE;
            return loom_vk_fail(user_context, "vkAllocateCommandBuffers", result, 0);
        }
    }
    if (!ctx->fence) {
        VkFenceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkResult result = ctx->vk.vkCreateFence(ctx->device, &info, 0, &ctx->fence);
        if (result != VK_SUCCESS) {
            ctx->fence = VK_NULL_HANDLE;
            return loom_vk_fail(user_context, "vkCreateFence", result, 0);
        }
        loom_vk_count_create(loom_vk_object_fence);
    }
    return 0;
}

int loom_vk_stream_begin(void *user_context, loom_vk_context_t *ctx) {
    if (ctx->recording && ctx->commands >= LOOM_VK_MAX_BATCH_COMMANDS) {
        int error = loom_vk_stream_flush(user_context, ctx);
        if (error) return error;
    }
    if (ctx->recording) return 0;
    int error = loom_vk_create_stream_objects(user_context, ctx);
    if (error) return error;
    VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VkResult result = ctx->vk.vkBeginCommandBuffer(ctx->command_buffer, &info);
    if (result != VK_SUCCESS) return loom_vk_fail(user_context, "vkBeginCommandBuffer", result, 0);
    ctx->recording = 1;
    ctx->commands = 0;
    return 0;
}

static void loom_vk_barrier(loom_vk_context_t *ctx, VkPipelineStageFlags destination_stages,
                            VkAccessFlags destination_access) {
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = destination_access;
    ctx->vk.vkCmdPipelineBarrier(ctx->command_buffer,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 destination_stages, 0, 1, &barrier, 0, 0, 0, 0);
    loom_vk_count_event(loom_vk_event_barrier);
    ctx->barrier_epoch++;
}

void loom_vk_stream_order(loom_vk_context_t *ctx, loom_vk_buffer_t **buffers, int count) {
    int hazard = 0;
    for (int i = 0; i < count && !hazard; i++) hazard = buffers[i]->barrier_epoch == ctx->barrier_epoch;
    if (hazard) {
        loom_vk_barrier(ctx, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                            VK_ACCESS_TRANSFER_WRITE_BIT);
    }
    for (int i = 0; i < count; i++) {
        buffers[i]->barrier_epoch = ctx->barrier_epoch;
        buffers[i]->batch = ctx->batch;
    }
    ctx->commands++;
}

int loom_vk_stream_uses(const loom_vk_context_t *ctx, const loom_vk_buffer_t *buffer) {
    return ctx->recording && buffer->batch == ctx->batch;
}

static int loom_vk_next_pool(void *user_context, loom_vk_context_t *ctx) {
    if (ctx->pools_used == ctx->pool_count) {
        if (ctx->pool_count == ctx->pool_capacity) {
            uint32_t capacity = ctx->pool_capacity ? ctx->pool_capacity * 2 : 4;
            void *grown = loom_vk_grow(ctx->pools, ctx->pool_capacity * sizeof *ctx->pools, capacity * sizeof *ctx->pools);
            if (!grown) return loom_vk_error(user_context, "Vulkan: out of host memory for descriptor pools.");
            ctx->pools = (VkDescriptorPool *)grown;
            ctx->pool_capacity = capacity;
        }
        /* At most one uniform buffer per set: a kernel's scalars past the
         * push constants. */
        VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, LOOM_VK_POOL_DESCRIPTORS},
                                         {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, LOOM_VK_POOL_SETS}};
        VkDescriptorPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        info.maxSets = LOOM_VK_POOL_SETS;
        info.poolSizeCount = 2;
        info.pPoolSizes = sizes;
        VkResult result = ctx->vk.vkCreateDescriptorPool(ctx->device, &info, 0, &ctx->pools[ctx->pool_count]);
        if (result != VK_SUCCESS) return loom_vk_fail(user_context, "vkCreateDescriptorPool", result, 0);
        loom_vk_count_create(loom_vk_object_descriptor_pool);
        ctx->pool_count++;
    }
    ctx->pools_used++;
    ctx->pool_sets_left = LOOM_VK_POOL_SETS;
    ctx->pool_descriptors_left = LOOM_VK_POOL_DESCRIPTORS;
    return 0;
}

int loom_vk_stream_descriptor_set(void *user_context, loom_vk_context_t *ctx, VkDescriptorSetLayout layout,
                                  uint32_t descriptors, VkDescriptorSet *set) {
    if (descriptors > LOOM_VK_POOL_DESCRIPTORS) {
        return loom_vk_error(user_context, "Vulkan: a kernel binds more buffers than a descriptor pool holds.");
    }
    /* Counted here, so that a pool is never asked for more than it has. */
    if (ctx->pools_used == 0 || ctx->pool_sets_left == 0 || ctx->pool_descriptors_left < descriptors) {
        int error = loom_vk_next_pool(user_context, ctx);
        if (error) return error;
    }
    VkDescriptorSetAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = ctx->pools[ctx->pools_used - 1];
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    VkResult result = ctx->vk.vkAllocateDescriptorSets(ctx->device, &info, set);
    if (result != VK_SUCCESS) return loom_vk_fail(user_context, "vkAllocateDescriptorSets", result, 0);
    ctx->pool_sets_left--;
    ctx->pool_descriptors_left -= descriptors;
    return 0;
}

int loom_vk_stream_defer_free(void *user_context, loom_vk_context_t *ctx, loom_vk_buffer_t *buffer) {
    if (ctx->deferred_count == ctx->deferred_capacity) {
        uint32_t capacity = ctx->deferred_capacity ? ctx->deferred_capacity * 2 : 16;
        void *grown = loom_vk_grow(ctx->deferred, ctx->deferred_capacity * sizeof *ctx->deferred, capacity * sizeof *ctx->deferred);
        if (!grown) {
            /* Cannot defer: wait now instead. */
            int error = loom_vk_stream_flush(user_context, ctx);
            loom_vk_free_buffer_record(ctx, buffer);
            return error;
        }
        ctx->deferred = (loom_vk_buffer_t **)grown;
        ctx->deferred_capacity = capacity;
    }
    ctx->deferred[ctx->deferred_count++] = buffer;
    return 0;
}

/* After the batch finished (or was never submitted): pools and deferred
 * frees are free again. */
static void loom_vk_recycle(loom_vk_context_t *ctx) {
    for (uint32_t i = 0; i < ctx->pools_used; i++) ctx->vk.vkResetDescriptorPool(ctx->device, ctx->pools[i], 0);
    ctx->pools_used = 0;
    for (uint32_t i = 0; i < ctx->deferred_count; i++) loom_vk_free_buffer_record(ctx, ctx->deferred[i]);
    ctx->deferred_count = 0;
    ctx->batch++;
    ctx->barrier_epoch++;
}

int loom_vk_stream_flush(void *user_context, loom_vk_context_t *ctx) {
    if (!ctx->recording) {
        loom_vk_recycle(ctx);
        return 0;
    }
    /* Make every write visible to the host reading mapped memory after the fence. */
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    ctx->vk.vkCmdPipelineBarrier(ctx->command_buffer,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, 0, 0, 0);
    ctx->recording = 0;
    VkResult result = ctx->vk.vkEndCommandBuffer(ctx->command_buffer);
    if (result != VK_SUCCESS) {
        ctx->vk.vkResetCommandBuffer(ctx->command_buffer, 0);
        loom_vk_recycle(ctx);
        return loom_vk_fail(user_context, "vkEndCommandBuffer", result, 0);
    }
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &ctx->command_buffer;
    result = ctx->vk.vkQueueSubmit(ctx->queue, 1, &submit, ctx->fence);
    loom_vk_count_event(loom_vk_event_submit);
    if (result != VK_SUCCESS) {
        ctx->vk.vkResetCommandBuffer(ctx->command_buffer, 0);
        loom_vk_recycle(ctx);
        return loom_vk_fail(user_context, "vkQueueSubmit", result, 0);
    }
    result = ctx->vk.vkWaitForFences(ctx->device, 1, &ctx->fence, VK_TRUE, LOOM_VK_WAIT_NANOSECONDS);
    loom_vk_count_event(loom_vk_event_wait);
    if (result != VK_SUCCESS) {
        /* The command buffer may still run: nothing it uses can be reused. */
        ctx->lost = 1;
        return loom_vk_fail(user_context, "vkWaitForFences", result, 0);
    }
    ctx->vk.vkResetFences(ctx->device, 1, &ctx->fence);
    ctx->vk.vkResetCommandBuffer(ctx->command_buffer, 0);
    loom_vk_recycle(ctx);
    return 0;
}

void loom_vk_stream_destroy(loom_vk_context_t *ctx) {
    loom_vk_recycle(ctx);
    for (uint32_t i = 0; i < ctx->pool_count; i++) {
        ctx->vk.vkDestroyDescriptorPool(ctx->device, ctx->pools[i], 0);
        loom_vk_count_destroy(loom_vk_object_descriptor_pool);
    }
    free(ctx->pools);
    ctx->pools = 0;
    ctx->pool_count = ctx->pool_capacity = 0;
    free(ctx->deferred);
    ctx->deferred = 0;
    ctx->deferred_count = ctx->deferred_capacity = 0;
    if (ctx->fence) {
        ctx->vk.vkDestroyFence(ctx->device, ctx->fence, 0);
        loom_vk_count_destroy(loom_vk_object_fence);
        ctx->fence = VK_NULL_HANDLE;
    }
    if (ctx->command_pool) {
        ctx->vk.vkDestroyCommandPool(ctx->device, ctx->command_pool, 0); /* frees the command buffer */
        loom_vk_count_destroy(loom_vk_object_command_pool);
        ctx->command_pool = VK_NULL_HANDLE;
        ctx->command_buffer = VK_NULL_HANDLE;
    }
    ctx->recording = 0;
}
