/* Kernels: one VkShaderModule per SPIR-V module (per *state of
 * loom_vulkan_initialize_kernels), compute pipelines cached per entry point,
 * and loom_vulkan_run, which records a dispatch into the command stream.
 *
 * Interface of every kernel (src/codegen/spirv/CodeGen_SPIRV.h): bindings
 * 0..n-1 of set 0 are storage buffers, scalars are one push-constant range
 * of push_constant_bytes, the workgroup size is the module's LocalSize. */

#include "runtime/VulkanInternal.h"

loom_vk_module_t *loom_vk_modules = 0;

/* SPIR-V capabilities (spirv.h) and what each needs on the device. */
static uint64_t loom_vk_capability_need(uint32_t capability) {
    switch (capability) {
    case 9: return loom_vk_capability_float16;    /* Float16 */
    case 10: return loom_vk_capability_float64;   /* Float64 */
    case 11: return loom_vk_capability_int64;     /* Int64 */
    case 22: return loom_vk_capability_int16;     /* Int16 */
    case 39: return loom_vk_capability_int8;      /* Int8 */
    case 4433: return loom_vk_capability_storage16; /* StorageBuffer16BitAccess */
    case 4448: return loom_vk_capability_storage8;  /* StorageBuffer8BitAccess */
    default: return 0;
    }
}

static const char *loom_vk_capability_feature(uint64_t capability) {
    switch (capability) {
    case loom_vk_capability_float16: return "shaderFloat16";
    case loom_vk_capability_float64: return "shaderFloat64";
    case loom_vk_capability_int64: return "shaderInt64";
    case loom_vk_capability_int16: return "shaderInt16";
    case loom_vk_capability_int8: return "shaderInt8";
    case loom_vk_capability_storage16: return "storageBuffer16BitAccess";
    case loom_vk_capability_preserve16: return "shaderSignedZeroInfNanPreserveFloat16";
    case loom_vk_capability_preserve32: return "shaderSignedZeroInfNanPreserveFloat32";
    case loom_vk_capability_preserve64: return "shaderSignedZeroInfNanPreserveFloat64";
    default: return "storageBuffer8BitAccess";
    }
}

/* The device capabilities the module's OpCapability instructions need. */
static int loom_vk_scan_capabilities(void *user_context, const uint32_t *words, uint32_t count, uint64_t *needs) {
    *needs = 0;
    if (count < 5 || words[0] != 0x07230203u) {
        return loom_vk_error(user_context, "loom_vulkan_initialize_kernels: the code is not a SPIR-V module "
                                           "(wrong magic number or too short).");
    }
    int preserve = 0;
    for (uint32_t i = 5; i < count;) {
        const uint32_t length = words[i] >> 16, opcode = words[i] & 0xffffu;
        if (length == 0 || i + length > count) {
            return loom_vk_error(user_context, "loom_vulkan_initialize_kernels: the SPIR-V module is truncated.");
        }
        if (opcode == 17 && length == 2) { /* OpCapability */
            *needs |= loom_vk_capability_need(words[i + 1]);
            preserve |= words[i + 1] == 4466; /* SignedZeroInfNanPreserve */
        } else if (opcode != 17 && opcode != 10 && opcode != 11 && opcode != 14) {
            break; /* past the capabilities */
        }
        i += length;
    }
    /* Loom's modules keep signed zeros, infinities and NaNs of every float
     * width they use (src/codegen/spirv/CodeGen_SPIRV.h). */
    if (preserve) {
        *needs |= loom_vk_capability_preserve32;
        if (*needs & loom_vk_capability_float16) *needs |= loom_vk_capability_preserve16;
        if (*needs & loom_vk_capability_float64) *needs |= loom_vk_capability_preserve64;
    }
    return 0;
}

static int loom_vk_check_capabilities(void *user_context, const loom_vk_context_t *ctx, uint64_t needs) {
    const uint64_t missing = needs & ~ctx->capabilities;
    if (!missing) return 0;
    char text[512];
    const uint64_t first = missing & (~missing + 1);
    snprintf(text, sizeof text,
             "Vulkan: the kernel needs the device feature %s, which the device '%s' does not have; compile for a "
             "target without the matching vk_* feature (or with host-vulkan, which asks the device).",
             loom_vk_capability_feature(first), ctx->properties.deviceName);
    return loom_vk_error(user_context, text);
}

static void loom_vk_drop_entry_objects(loom_vk_context_t *ctx, loom_vk_entry_t *entry) {
    if (entry->pipeline) {
        ctx->vk.vkDestroyPipeline(ctx->device, entry->pipeline, 0);
        loom_vk_count_destroy(loom_vk_object_pipeline);
    }
    if (entry->layout) {
        ctx->vk.vkDestroyPipelineLayout(ctx->device, entry->layout, 0);
        loom_vk_count_destroy(loom_vk_object_pipeline_layout);
    }
    if (entry->set_layout) {
        ctx->vk.vkDestroyDescriptorSetLayout(ctx->device, entry->set_layout, 0);
        loom_vk_count_destroy(loom_vk_object_descriptor_set_layout);
    }
    entry->pipeline = VK_NULL_HANDLE;
    entry->layout = VK_NULL_HANDLE;
    entry->set_layout = VK_NULL_HANDLE;
}

static void loom_vk_drop_module(loom_vk_context_t *ctx, loom_vk_module_t *module) {
    while (module->entries) {
        loom_vk_entry_t *entry = module->entries;
        module->entries = entry->next;
        loom_vk_drop_entry_objects(ctx, entry);
        free(entry->name);
        free(entry);
    }
    if (module->shader) {
        ctx->vk.vkDestroyShaderModule(ctx->device, module->shader, 0);
        loom_vk_count_destroy(loom_vk_object_shader_module);
        module->shader = VK_NULL_HANDLE;
    }
}

/* Scalars past LOOM_VULKAN_MAX_PUSH_CONSTANT_BYTES come in a uniform buffer
 * (loom_runtime.h), bound after the storage buffers. */
static int loom_vk_scalars_in_uniform(uint32_t bytes) { return bytes > LOOM_VULKAN_MAX_PUSH_CONSTANT_BYTES; }

void loom_vk_drop_module_objects(loom_vk_context_t *ctx) {
    for (loom_vk_module_t *m = loom_vk_modules; m; m = m->next) loom_vk_drop_module(ctx, m);
}

static int loom_vk_ensure_shader(void *user_context, loom_vk_context_t *ctx, loom_vk_module_t *module) {
    if (module->shader) return 0;
    int error = loom_vk_check_capabilities(user_context, ctx, module->capabilities);
    if (error) return error;
    VkShaderModuleCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = (size_t)module->word_count * 4;
    info.pCode = module->words;
    VkResult result = ctx->vk.vkCreateShaderModule(ctx->device, &info, 0, &module->shader);
    if (result != VK_SUCCESS) {
        module->shader = VK_NULL_HANDLE;
        return loom_vk_fail(user_context, "vkCreateShaderModule", result, 0);
    }
    loom_vk_count_create(loom_vk_object_shader_module);
    return 0;
}

static int loom_vk_build_entry(void *user_context, loom_vk_context_t *ctx, loom_vk_module_t *module,
                               loom_vk_entry_t *entry) {
    /* The storage buffers, then the uniform buffer of scalars if they do
     * not fit in push constants. */
    const int uniform = loom_vk_scalars_in_uniform(entry->push_constant_bytes);
    const int count = entry->num_buffers + uniform;
    VkDescriptorSetLayoutBinding stack_bindings[17];
    VkDescriptorSetLayoutBinding *bindings = stack_bindings;
    if (count > 17) {
        bindings = (VkDescriptorSetLayoutBinding *)loom_vk_zalloc((size_t)count * (sizeof *bindings));
        if (!bindings) return loom_vk_error(user_context, "Vulkan: out of host memory building a pipeline.");
    }
    for (int i = 0; i < count; i++) {
        VkDescriptorSetLayoutBinding b = {0};
        b.binding = (uint32_t)i;
        b.descriptorType = i < entry->num_buffers ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        b.descriptorCount = 1;
        b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        bindings[i] = b;
    }
    VkDescriptorSetLayoutCreateInfo set_info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = (uint32_t)count;
    set_info.pBindings = count ? bindings : 0;
    VkResult result = ctx->vk.vkCreateDescriptorSetLayout(ctx->device, &set_info, 0, &entry->set_layout);
    if (bindings != stack_bindings) free(bindings);
    if (result != VK_SUCCESS) {
        entry->set_layout = VK_NULL_HANDLE;
        return loom_vk_fail(user_context, "vkCreateDescriptorSetLayout", result, 0);
    }
    loom_vk_count_create(loom_vk_object_descriptor_set_layout);

    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, uniform ? 0 : (entry->push_constant_bytes + 3) & ~3u};
    VkPipelineLayoutCreateInfo layout_info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &entry->set_layout;
    layout_info.pushConstantRangeCount = range.size ? 1 : 0;
    layout_info.pPushConstantRanges = range.size ? &range : 0;
    result = ctx->vk.vkCreatePipelineLayout(ctx->device, &layout_info, 0, &entry->layout);
    if (result != VK_SUCCESS) {
        entry->layout = VK_NULL_HANDLE;
        return loom_vk_fail(user_context, "vkCreatePipelineLayout", result, 0);
    }
    loom_vk_count_create(loom_vk_object_pipeline_layout);

    VkComputePipelineCreateInfo info = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module->shader;
    info.stage.pName = entry->name;
    info.layout = entry->layout;
    result = ctx->vk.vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &info, 0, &entry->pipeline);
    if (result != VK_SUCCESS) {
        entry->pipeline = VK_NULL_HANDLE;
        char call[300];
        snprintf(call, sizeof call, "vkCreateComputePipelines (entry point '%s')", entry->name);
        return loom_vk_fail(user_context, call, result, 0);
    }
    loom_vk_count_create(loom_vk_object_pipeline);
    return 0;
}

static int loom_vk_find_entry(void *user_context, loom_vk_context_t *ctx, loom_vk_module_t *module,
                              const char *name, int num_buffers, uint32_t push_constant_bytes,
                              loom_vk_entry_t **out) {
    for (loom_vk_entry_t *e = module->entries; e; e = e->next) {
        if (e->num_buffers == num_buffers && e->push_constant_bytes == push_constant_bytes &&
            loom_vk_strcmp(e->name, name) == 0) {
            *out = e;
            return 0;
        }
    }
    loom_vk_entry_t *entry = (loom_vk_entry_t *)loom_vk_zalloc((size_t)(1) * (sizeof *entry));
    size_t length = strlen(name);
    char *copy = entry ? (char *)loom_vk_zalloc((size_t)(1) * (length + 1)) : 0;
    if (!copy) {
        free(entry);
        return loom_vk_error(user_context, "Vulkan: out of host memory building a pipeline.");
    }
    memcpy(copy, name, length);
    entry->name = copy;
    entry->num_buffers = num_buffers;
    entry->push_constant_bytes = push_constant_bytes;
    int error = loom_vk_build_entry(user_context, ctx, module, entry);
    /* A pipeline the validation layer objected to is never run (nor kept). */
    if (!error) error = loom_vk_take_validation_error();
    if (error) {
        loom_vk_drop_entry_objects(ctx, entry);
        free(entry->name);
        free(entry);
        return error;
    }
    entry->next = module->entries;
    module->entries = entry;
    *out = entry;
    return 0;
}

LOOM_RUNTIME_EXPORT int loom_vulkan_initialize_kernels(void *user_context, void **state, const uint32_t *spirv,
                                                       uint32_t word_count) {
    if (!state || !spirv) return loom_vk_error(user_context, "loom_vulkan_initialize_kernels: NULL state or code.");
    pthread_mutex_lock(&loom_vk_lock);
    int error = 0;
    loom_vk_context_t *ctx = loom_vk_get_context(user_context, &error);
    loom_vk_module_t *module = (loom_vk_module_t *)*state;
    if (ctx && !module) {
        uint64_t needs = 0;
        error = loom_vk_scan_capabilities(user_context, spirv, word_count, &needs);
        module = error ? 0 : (loom_vk_module_t *)loom_vk_zalloc((size_t)(1) * (sizeof *module));
        uint32_t *words = module ? (uint32_t *)loom_vk_zalloc((size_t)(word_count) * (sizeof *words)) : 0;
        if (!error && !words) {
            free(module);
            module = 0;
            error = loom_vk_error(user_context, "loom_vulkan_initialize_kernels: out of host memory.");
        }
        if (module) {
            memcpy(words, spirv, (size_t)word_count * 4);
            module->words = words;
            module->word_count = word_count;
            module->capabilities = needs;
            module->next = loom_vk_modules;
            if (loom_vk_modules) loom_vk_modules->prev = module;
            loom_vk_modules = module;
            *state = module;
        }
    }
    if (ctx && module && !error) error = loom_vk_ensure_shader(user_context, ctx, module);
    int validation = loom_vk_take_validation_error();
    pthread_mutex_unlock(&loom_vk_lock);
    return error ? error : validation;
}

LOOM_RUNTIME_EXPORT void loom_vulkan_finalize_kernels(void *user_context, void *state) {
    (void)user_context;
    loom_vk_module_t *module = (loom_vk_module_t *)state;
    if (!module) return;
    pthread_mutex_lock(&loom_vk_lock);
    loom_vk_context_t *ctx = loom_vk_context;
    if (ctx) {
        /* Recorded dispatches may use its pipelines. */
        if (ctx->recording && !ctx->lost) loom_vk_stream_flush(user_context, ctx);
        loom_vk_drop_module(ctx, module);
    }
    if (module->prev) module->prev->next = module->next;
    else loom_vk_modules = module->next;
    if (module->next) module->next->prev = module->prev;
    free(module->words);
    free(module);
    pthread_mutex_unlock(&loom_vk_lock);
}

static int loom_vk_check_launch(void *user_context, const loom_vk_context_t *ctx, const int blocks[3],
                                const int threads[3], uint32_t push_constant_bytes, const char *entry_point) {
    const VkPhysicalDeviceLimits *limits = &ctx->properties.limits;
    char text[640];
    if (!loom_vk_scalars_in_uniform(push_constant_bytes) && push_constant_bytes > limits->maxPushConstantsSize) {
        snprintf(text, sizeof text,
                 "loom_vulkan_run: kernel %s has %u bytes of scalar arguments, more than the %u bytes of push "
                 "constants (maxPushConstantsSize) the device '%s' allows.",
                 entry_point, push_constant_bytes, limits->maxPushConstantsSize, ctx->properties.deviceName);
        return loom_vk_error(user_context, text);
    }
    /* A uniform buffer of scalars is written by vkCmdUpdateBuffer (at most
     * 65,536 bytes). */
    const uint32_t uniform_limit = limits->maxUniformBufferRange < 65536u ? limits->maxUniformBufferRange : 65536u;
    if (loom_vk_scalars_in_uniform(push_constant_bytes) && push_constant_bytes > uniform_limit) {
        snprintf(text, sizeof text,
                 "loom_vulkan_run: kernel %s has %u bytes of scalar arguments, more than the %u bytes a uniform "
                 "buffer may hold on the device '%s' (maxUniformBufferRange, vkCmdUpdateBuffer). Split the "
                 "stage so that each kernel reads fewer buffers and Params.",
                 entry_point, push_constant_bytes, uniform_limit, ctx->properties.deviceName);
        return loom_vk_error(user_context, text);
    }
    uint64_t invocations = 1;
    for (int d = 0; d < 3; d++) {
        if (threads[d] < 1 || (uint32_t)threads[d] > limits->maxComputeWorkGroupSize[d]) {
            snprintf(text, sizeof text,
                     "loom_vulkan_run: kernel %s has %d threads in dimension %d; the device '%s' allows 1 to %u "
                     "(maxComputeWorkGroupSize).",
                     entry_point, threads[d], d, ctx->properties.deviceName, limits->maxComputeWorkGroupSize[d]);
            return loom_vk_error(user_context, text);
        }
        if (blocks[d] < 0) {
            /* vkCmdDispatch takes unsigned counts: -1 would be 2^32 - 1.
             * Generated code launches no kernel whose GPU block loops are
             * empty (LowerGPULaunches), so this is a caller's error. */
            snprintf(text, sizeof text,
                     "loom_vulkan_run: kernel %s has %d blocks in dimension %d; a block count must not be "
                     "negative (pass 0 to launch nothing).",
                     entry_point, blocks[d], d);
            return loom_vk_error(user_context, text);
        }
        if ((uint32_t)blocks[d] > limits->maxComputeWorkGroupCount[d]) {
            snprintf(text, sizeof text,
                     "loom_vulkan_run: kernel %s has %d blocks in dimension %d; the device '%s' allows at most %u "
                     "(maxComputeWorkGroupCount).",
                     entry_point, blocks[d], d, ctx->properties.deviceName, limits->maxComputeWorkGroupCount[d]);
            return loom_vk_error(user_context, text);
        }
        invocations *= (uint64_t)threads[d];
    }
    if (invocations > limits->maxComputeWorkGroupInvocations) {
        snprintf(text, sizeof text,
                 "loom_vulkan_run: kernel %s has %llu threads per block; the device '%s' allows at most %u "
                 "(maxComputeWorkGroupInvocations).",
                 entry_point, (unsigned long long)invocations, ctx->properties.deviceName,
                 limits->maxComputeWorkGroupInvocations);
        return loom_vk_error(user_context, text);
    }
    return 0;
}

/* A uniform buffer holding a dispatch's scalars: written in the command
 * stream (vkCmdUpdateBuffer, so no host-visible memory is needed), made
 * visible to the kernel by a barrier, and freed once the batch is done. */
static int loom_vk_upload_scalars(void *user_context, loom_vk_context_t *ctx, uint32_t bytes, const void *data,
                                  loom_vk_buffer_t **out) {
    const uint32_t size = (bytes + 3) & ~3u;
    loom_vk_buffer_t *record = (loom_vk_buffer_t *)loom_vk_zalloc(sizeof *record);
    uint8_t *padded = record ? (uint8_t *)loom_vk_zalloc(size) : 0;
    if (!padded) {
        free(record);
        return loom_vk_error(user_context, "loom_vulkan_run: out of host memory for scalar arguments.");
    }
    memcpy(padded, data, bytes);
    int error = loom_vk_create_buffer(user_context, ctx, size, loom_vk_memory_arguments, &record->buffer,
                                      &record->allocation);
    if (error) {
        free(padded);
        free(record);
        return error;
    }
    record->size = size;
    VkCommandBuffer cb = ctx->command_buffer;
    ctx->vk.vkCmdUpdateBuffer(cb, record->buffer, 0, size, padded);
    free(padded);
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_UNIFORM_READ_BIT;
    ctx->vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                 &barrier, 0, 0, 0, 0);
    loom_vk_count_event(loom_vk_event_barrier);
    *out = record;
    return loom_vk_stream_defer_free(user_context, ctx, record);
}

static int loom_vk_record_dispatch(void *user_context, loom_vk_context_t *ctx, loom_vk_entry_t *entry,
                                   const int blocks[3], int num_buffers, loom_vk_buffer_t **records,
                                   uint32_t push_constant_bytes, const void *push_constants) {
    int error = loom_vk_stream_begin(user_context, ctx);
    if (error) return error;
    loom_vk_buffer_t *scalars = 0;
    if (loom_vk_scalars_in_uniform(push_constant_bytes)) {
        error = loom_vk_upload_scalars(user_context, ctx, push_constant_bytes, push_constants, &scalars);
        if (error) return error;
    }
    const int count = num_buffers + (scalars != 0);
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (count > 0) {
        error = loom_vk_stream_descriptor_set(user_context, ctx, entry->set_layout, (uint32_t)num_buffers, &set);
        if (error) return error;
        VkDescriptorBufferInfo stack_infos[17];
        VkWriteDescriptorSet stack_writes[17];
        VkDescriptorBufferInfo *infos = stack_infos;
        VkWriteDescriptorSet *writes = stack_writes;
        if (count > 17) {
            infos = (VkDescriptorBufferInfo *)loom_vk_zalloc((size_t)count * (sizeof *infos));
            writes = (VkWriteDescriptorSet *)loom_vk_zalloc((size_t)count * (sizeof *writes));
            if (!infos || !writes) {
                free(infos);
                free(writes);
                return loom_vk_error(user_context, "Vulkan: out of host memory binding buffers.");
            }
        }
        for (int i = 0; i < count; i++) {
            const int is_scalars = i == num_buffers;
            infos[i] = (VkDescriptorBufferInfo){is_scalars ? scalars->buffer : records[i]->buffer, 0, VK_WHOLE_SIZE};
            VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w.dstSet = set;
            w.dstBinding = (uint32_t)i;
            w.descriptorCount = 1;
            w.descriptorType = is_scalars ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w.pBufferInfo = &infos[i];
            writes[i] = w;
        }
        ctx->vk.vkUpdateDescriptorSets(ctx->device, (uint32_t)count, writes, 0, 0);
        if (infos != stack_infos) {
            free(infos);
            free(writes);
        }
    }
    loom_vk_stream_order(ctx, records, num_buffers);
    VkCommandBuffer cb = ctx->command_buffer;
    ctx->vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, entry->pipeline);
    if (count > 0) {
        ctx->vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, entry->layout, 0, 1, &set, 0, 0);
    }
    if (push_constant_bytes > 0 && !scalars) {
        uint8_t padded[256] = {0};
        const uint32_t size = (push_constant_bytes + 3) & ~3u;
        const void *data = push_constants;
        if (size != push_constant_bytes) {
            if (size > sizeof padded) {
                return loom_vk_error(user_context, "loom_vulkan_run: more than 256 bytes of push constants must "
                                                   "be a multiple of 4 bytes.");
            }
            memcpy(padded, push_constants, push_constant_bytes);
            data = padded;
        }
        ctx->vk.vkCmdPushConstants(cb, entry->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, size, data);
    }
    ctx->vk.vkCmdDispatch(cb, (uint32_t)blocks[0], (uint32_t)blocks[1], (uint32_t)blocks[2]);
    loom_vk_count_event(loom_vk_event_dispatch);
    return 0;
}

LOOM_RUNTIME_EXPORT int loom_vulkan_run(void *user_context, void *state, const char *entry_point, int blocks_x,
                                        int blocks_y, int blocks_z, int threads_x, int threads_y, int threads_z,
                                        int num_buffers, loom_buffer_t **buffers, uint32_t push_constant_bytes,
                                        const void *push_constants) {
    if (!state || !entry_point) {
        return loom_vk_error(user_context, "loom_vulkan_run: the kernels were not initialized "
                                           "(loom_vulkan_initialize_kernels) or the entry point is NULL.");
    }
    if (num_buffers < 0 || (num_buffers > 0 && !buffers) || (push_constant_bytes > 0 && !push_constants)) {
        return loom_vk_error(user_context, "loom_vulkan_run: bad buffer or push-constant arguments.");
    }
    const int blocks[3] = {blocks_x, blocks_y, blocks_z};
    const int threads[3] = {threads_x, threads_y, threads_z};
    pthread_mutex_lock(&loom_vk_lock);
    int error = 0;
    loom_vk_context_t *ctx = loom_vk_get_context(user_context, &error);
    if (ctx) error = loom_vk_take_validation_error();
    if (!error) error = loom_vk_check_launch(user_context, ctx, blocks, threads, push_constant_bytes, entry_point);

    loom_vk_buffer_t *stack_records[16];
    loom_vk_buffer_t **records = stack_records;
    if (!error && num_buffers > 16) {
        records = (loom_vk_buffer_t **)loom_vk_zalloc((size_t)((size_t)num_buffers) * (sizeof *records));
        if (!records) error = loom_vk_error(user_context, "loom_vulkan_run: out of host memory.");
    }
    for (int i = 0; !error && i < num_buffers; i++) {
        const loom_buffer_t *b = buffers[i];
        if (!b || !b->device || !loom_vk_is_vulkan(b->device_interface)) {
            char text[320];
            snprintf(text, sizeof text,
                     "loom_vulkan_run: buffer %d of kernel %s has no Vulkan device allocation (call "
                     "loom_device_malloc or loom_copy_to_device first).",
                     i, entry_point);
            error = loom_vk_error(user_context, text);
            break;
        }
        records[i] = (loom_vk_buffer_t *)(uintptr_t)b->device;
        if (records[i]->orphaned) {
            error = loom_vk_error(user_context, "loom_vulkan_run: a buffer's device allocation was freed by "
                                                "loom_device_release; device_free it and allocate again.");
        }
    }
    loom_vk_module_t *module = (loom_vk_module_t *)state;
    loom_vk_entry_t *entry = 0;
    if (!error) error = loom_vk_ensure_shader(user_context, ctx, module);
    if (!error) error = loom_vk_find_entry(user_context, ctx, module, entry_point, num_buffers, push_constant_bytes,
                                           &entry);
    /* A grid with no block in some dimension runs nothing: no dispatch is
     * recorded. */
    const int empty = blocks_x == 0 || blocks_y == 0 || blocks_z == 0;
    if (!error && !empty) {
        error = loom_vk_record_dispatch(user_context, ctx, entry, blocks, num_buffers, records, push_constant_bytes,
                                        push_constants);
    }
    if (records != stack_records) free(records);
    int validation = loom_vk_take_validation_error();
    pthread_mutex_unlock(&loom_vk_lock);
    return error ? error : validation;
}
