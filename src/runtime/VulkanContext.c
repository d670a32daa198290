/* The one Vulkan context of the process: created on first use, under
 * loom_vk_lock, and destroyed only by loom_device_release (never from a
 * static destructor). Device choice, features and validation live here. */

#include "runtime/VulkanInternal.h"

pthread_mutex_t loom_vk_lock = PTHREAD_MUTEX_INITIALIZER;
loom_vk_context_t *loom_vk_context = 0;
/* Set by the validation messenger (any thread, inside a Vulkan call). */
int loom_vk_validation_failed = 0;

int loom_vk_take_validation_error(void) {
    return __atomic_exchange_n(&loom_vk_validation_failed, 0, __ATOMIC_ACQ_REL) ? loom_error_code_device_error : 0;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL loom_vk_on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user_data) {
    (void)types;
    (void)user_data;
    if (!(severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) return VK_FALSE;
    char text[2048];
    snprintf(text, sizeof text, "Vulkan validation error: %s", data && data->pMessage ? data->pMessage : "(no text)");
    loom_error(0, text);
    __atomic_store_n(&loom_vk_validation_failed, 1, __ATOMIC_RELEASE);
    return VK_FALSE;
}

static int loom_vk_validation_requested(void) {
    const char *v = getenv("LOOM_VK_VALIDATION");
    return v && v[0] == '1' && v[1] == '\0';
}

static int loom_vk_has_layer(loom_vk_context_t *ctx, const char *name) {
    uint32_t count = 0;
    if (ctx->vk.vkEnumerateInstanceLayerProperties(&count, 0) != VK_SUCCESS || count == 0) return 0;
    VkLayerProperties *layers = (VkLayerProperties *)loom_vk_zalloc((size_t)(count) * (sizeof *layers));
    if (!layers) return 0;
    int found = 0;
    if (ctx->vk.vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS) {
        for (uint32_t i = 0; i < count && !found; i++) found = loom_vk_strcmp(layers[i].layerName, name) == 0;
    }
    free(layers);
    return found;
}

static int loom_vk_device_has_extension(loom_vk_context_t *ctx, VkPhysicalDevice device, const char *name) {
    uint32_t count = 0;
    if (ctx->vk.vkEnumerateDeviceExtensionProperties(device, 0, &count, 0) != VK_SUCCESS || count == 0) return 0;
    VkExtensionProperties *extensions = (VkExtensionProperties *)loom_vk_zalloc((size_t)(count) * (sizeof *extensions));
    if (!extensions) return 0;
    int found = 0;
    if (ctx->vk.vkEnumerateDeviceExtensionProperties(device, 0, &count, extensions) == VK_SUCCESS) {
        for (uint32_t i = 0; i < count && !found; i++) found = loom_vk_strcmp(extensions[i].extensionName, name) == 0;
    }
    free(extensions);
    return found;
}

static int loom_vk_create_instance(void *user_context, loom_vk_context_t *ctx) {
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (ctx->vk.vkEnumerateInstanceVersion) ctx->vk.vkEnumerateInstanceVersion(&loader_version);
    ctx->api_version = loader_version < VK_API_VERSION_1_3 ? loader_version : VK_API_VERSION_1_3;

    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "Loom";
    app.pEngineName = "Loom";
    app.apiVersion = ctx->api_version;
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;

    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkDebugUtilsMessengerCreateInfoEXT messenger = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger.pfnUserCallback = loom_vk_on_validation_message;
    const int validate = loom_vk_validation_requested();
    if (validate) {
        if (!loom_vk_has_layer(ctx, layer)) {
            return loom_vk_error(user_context,
                                 "Vulkan: LOOM_VK_VALIDATION=1 asks for the layer VK_LAYER_KHRONOS_validation, which is "
                                 "not installed (Debian: vulkan-validationlayers); install it or unset "
                                 "LOOM_VK_VALIDATION.");
        }
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = &layer;
        info.enabledExtensionCount = 1;
        info.ppEnabledExtensionNames = &extension;
        info.pNext = &messenger; /* messages of vkCreateInstance itself */
    }
    VkResult result = ctx->vk.vkCreateInstance(&info, 0, &ctx->instance);
    if (result != VK_SUCCESS) {
        ctx->instance = VK_NULL_HANDLE;
        return loom_vk_fail(user_context, "vkCreateInstance", result,
                            result == VK_ERROR_INCOMPATIBLE_DRIVER
                                ? "No Vulkan driver is installed (Debian: mesa-vulkan-drivers provides lavapipe, a "
                                  "Vulkan device on the CPU); LOOM_VK_DEVICE picks among the devices."
                                : 0);
    }
    loom_vk_count_create(loom_vk_object_instance);
    int error = loom_vk_load_instance_functions(user_context, ctx->instance, &ctx->vk);
    if (error) return error;
    if (validate) {
        if (!ctx->vk.vkCreateDebugUtilsMessengerEXT || !ctx->vk.vkDestroyDebugUtilsMessengerEXT) {
            return loom_vk_error(user_context, "Vulkan: validation is on but VK_EXT_debug_utils has no functions.");
        }
        result = ctx->vk.vkCreateDebugUtilsMessengerEXT(ctx->instance, &messenger, 0, &ctx->messenger);
        if (result != VK_SUCCESS) return loom_vk_fail(user_context, "vkCreateDebugUtilsMessengerEXT", result, 0);
        loom_vk_count_create(loom_vk_object_debug_messenger);
    }
    return 0;
}

static int loom_vk_lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

/* Whether needle occurs in haystack, ignoring ASCII case. */
static int loom_vk_contains_nocase(const char *haystack, const char *needle) {
    for (const char *start = haystack; *start; start++) {
        const char *h = start, *n = needle;
        while (*n && *h && loom_vk_lower(*h) == loom_vk_lower(*n)) h++, n++;
        if (!*n) return 1;
    }
    return !*needle;
}

static int loom_vk_compute_queue_family(loom_vk_context_t *ctx, VkPhysicalDevice device, uint32_t *family) {
    uint32_t count = 0;
    ctx->vk.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, 0);
    if (count == 0) return 0;
    VkQueueFamilyProperties *families = (VkQueueFamilyProperties *)loom_vk_zalloc((size_t)(count) * (sizeof *families));
    if (!families) return 0;
    ctx->vk.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families);
    int found = 0;
    for (uint32_t i = 0; i < count && !found; i++) {
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].queueCount > 0) {
            *family = i;
            found = 1;
        }
    }
    free(families);
    return found;
}

/* Lower is better: discrete, integrated, CPU, then the rest. */
static int loom_vk_device_rank(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 2;
    default: return 3;
    }
}

static int loom_vk_choose_device(void *user_context, loom_vk_context_t *ctx) {
    uint32_t count = 0;
    VkResult result = ctx->vk.vkEnumeratePhysicalDevices(ctx->instance, &count, 0);
    if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
        return loom_vk_fail(user_context, "vkEnumeratePhysicalDevices", result, 0);
    }
    if (count == 0) {
        return loom_vk_error(user_context,
                             "Vulkan: no Vulkan device found. Install a Vulkan driver (Debian: mesa-vulkan-drivers "
                             "provides lavapipe, a Vulkan device on the CPU) and check LOOM_VK_DEVICE.");
    }
    VkPhysicalDevice *devices = (VkPhysicalDevice *)loom_vk_zalloc((size_t)(count) * (sizeof *devices));
    if (!devices) return loom_vk_error(user_context, "Vulkan: out of host memory listing devices.");
    result = ctx->vk.vkEnumeratePhysicalDevices(ctx->instance, &count, devices);
    if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
        free(devices);
        return loom_vk_fail(user_context, "vkEnumeratePhysicalDevices", result, 0);
    }

    const char *wanted = getenv("LOOM_VK_DEVICE");
    if (wanted && !*wanted) wanted = 0;
    int by_index = wanted != 0;
    for (const char *c = wanted; c && *c; c++) by_index = by_index && *c >= '0' && *c <= '9';
    const long wanted_index = by_index ? strtol(wanted, 0, 10) : -1;

    int chosen = -1, chosen_rank = 1 << 30;
    char listing[1024] = "";
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceProperties properties;
        ctx->vk.vkGetPhysicalDeviceProperties(devices[i], &properties);
        size_t used = strlen(listing);
        snprintf(listing + used, sizeof listing - used, "%s%u '%s'", i ? ", " : "", i, properties.deviceName);
        uint32_t family;
        if (!loom_vk_compute_queue_family(ctx, devices[i], &family)) continue;
        int matches = !wanted || (by_index ? (long)i == wanted_index
                                           : loom_vk_contains_nocase(properties.deviceName, wanted));
        int rank = loom_vk_device_rank(properties.deviceType);
        /* A LOOM_VK_DEVICE match: the first one; else the best rank. */
        if (matches && (chosen < 0 || (!wanted && rank < chosen_rank))) {
            chosen = (int)i;
            chosen_rank = rank;
            ctx->queue_family = family;
        }
    }
    if (chosen < 0) {
        free(devices);
        char text[1536];
        if (wanted) {
            snprintf(text, sizeof text,
                     "Vulkan: LOOM_VK_DEVICE='%s' matches none of the Vulkan devices with a compute queue (%s). Set "
                     "it to a device's index or to a part of its name (any case), or unset it to pick the first "
                     "discrete, integrated, then CPU device (Debian: mesa-vulkan-drivers provides lavapipe).",
                     wanted, listing);
        } else {
            snprintf(text, sizeof text,
                     "Vulkan: none of the Vulkan devices (%s) has a compute queue. Install a Vulkan driver (Debian: "
                     "mesa-vulkan-drivers provides lavapipe, a Vulkan device on the CPU) and check LOOM_VK_DEVICE.",
                     listing);
        }
        return loom_vk_error(user_context, text);
    }
    ctx->physical_device = devices[chosen];
    free(devices);
    ctx->vk.vkGetPhysicalDeviceProperties(ctx->physical_device, &ctx->properties);
    ctx->vk.vkGetPhysicalDeviceMemoryProperties(ctx->physical_device, &ctx->memory_properties);
    if (ctx->properties.apiVersion < ctx->api_version) ctx->api_version = ctx->properties.apiVersion;
    /* LOOM_VK_ZERO_COPY=0 forces staged copies (tests use it on lavapipe to
     * run the path discrete GPUs take). */
    const char *zero_copy = getenv("LOOM_VK_ZERO_COPY");
    ctx->zero_copy = (ctx->properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
                      ctx->properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) &&
                     !(zero_copy && zero_copy[0] == '0' && zero_copy[1] == '\0');
    return 0;
}

/* Queries the features kernels may need and enables those the device has. */
static int loom_vk_create_device(void *user_context, loom_vk_context_t *ctx) {
    const uint32_t version = VK_API_VERSION_MAJOR(ctx->api_version) * 100 + VK_API_VERSION_MINOR(ctx->api_version);
    VkPhysicalDeviceFeatures2 features2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceVulkan11Features v11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features v12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDevice16BitStorageFeatures storage16 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDevice8BitStorageFeatures storage8 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
    VkPhysicalDeviceShaderFloat16Int8Features float16_int8 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    const char *extensions[3];
    uint32_t extension_count = 0;
    int have_chain = version >= 101 && ctx->vk.vkGetPhysicalDeviceFeatures2;

    if (have_chain && version >= 102) {
        features2.pNext = &v11;
        v11.pNext = &v12;
    } else if (have_chain) {
        features2.pNext = &storage16;
        void **tail = &storage16.pNext;
        if (loom_vk_device_has_extension(ctx, ctx->physical_device, VK_KHR_8BIT_STORAGE_EXTENSION_NAME)) {
            *tail = &storage8;
            tail = &storage8.pNext;
            extensions[extension_count++] = VK_KHR_8BIT_STORAGE_EXTENSION_NAME;
        }
        if (loom_vk_device_has_extension(ctx, ctx->physical_device, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) {
            *tail = &float16_int8;
            extensions[extension_count++] = VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME;
        }
    } else if (loom_vk_device_has_extension(ctx, ctx->physical_device,
                                            VK_KHR_STORAGE_BUFFER_STORAGE_CLASS_EXTENSION_NAME)) {
        /* Vulkan 1.0: SPIR-V's StorageBuffer class needs this extension. */
        extensions[extension_count++] = VK_KHR_STORAGE_BUFFER_STORAGE_CLASS_EXTENSION_NAME;
    }
    if (have_chain) {
        ctx->vk.vkGetPhysicalDeviceFeatures2(ctx->physical_device, &features2);
    } else {
        ctx->vk.vkGetPhysicalDeviceFeatures(ctx->physical_device, &features2.features);
    }

    /* Keep only what kernels use. */
    VkPhysicalDeviceFeatures all = features2.features, wanted = {0};
    wanted.shaderInt16 = all.shaderInt16;
    wanted.shaderInt64 = all.shaderInt64;
    wanted.shaderFloat64 = all.shaderFloat64;
    features2.features = wanted;
    VkBool32 int8, float16, s8, s16;
    if (have_chain && version >= 102) {
        int8 = v12.shaderInt8, float16 = v12.shaderFloat16, s8 = v12.storageBuffer8BitAccess;
        s16 = v11.storageBuffer16BitAccess;
        VkPhysicalDeviceVulkan11Features keep11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
        VkPhysicalDeviceVulkan12Features keep12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        keep11.pNext = &v12;
        keep11.storageBuffer16BitAccess = s16;
        keep12.shaderInt8 = int8, keep12.shaderFloat16 = float16, keep12.storageBuffer8BitAccess = s8;
        v11 = keep11;
        v12 = keep12;
    } else {
        int8 = float16_int8.shaderInt8, float16 = float16_int8.shaderFloat16;
        s8 = storage8.storageBuffer8BitAccess, s16 = storage16.storageBuffer16BitAccess;
        void *next16 = storage16.pNext, *next8 = storage8.pNext;
        storage16 = (VkPhysicalDevice16BitStorageFeatures){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
        storage16.pNext = next16, storage16.storageBuffer16BitAccess = s16;
        storage8 = (VkPhysicalDevice8BitStorageFeatures){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
        storage8.pNext = next8, storage8.storageBuffer8BitAccess = s8;
        float16_int8.shaderInt8 = int8, float16_int8.shaderFloat16 = float16;
    }

    /* LOOM_VK_MASK_FEATURES (a list such as "float64,int64") hides features
     * the device has: tests use it to check what a kernel needing them does. */
    const char *mask = getenv("LOOM_VK_MASK_FEATURES");
    if (mask) {
        if (loom_vk_contains_nocase(mask, "int8")) int8 = s8 = VK_FALSE;
        if (loom_vk_contains_nocase(mask, "int16")) wanted.shaderInt16 = VK_FALSE;
        if (loom_vk_contains_nocase(mask, "int64")) wanted.shaderInt64 = VK_FALSE;
        if (loom_vk_contains_nocase(mask, "float16")) float16 = VK_FALSE;
        if (loom_vk_contains_nocase(mask, "float64")) wanted.shaderFloat64 = VK_FALSE;
        features2.features = wanted;
        if (have_chain && version >= 102) {
            v12.shaderInt8 = int8, v12.storageBuffer8BitAccess = s8, v12.shaderFloat16 = float16;
        } else {
            float16_int8.shaderInt8 = int8, float16_int8.shaderFloat16 = float16;
            storage8.storageBuffer8BitAccess = s8;
        }
    }

    /* Float controls (Vulkan 1.2): whether kernels may keep signed zeros,
     * infinities and NaNs, which Loom's vk_v12/vk_v13 modules ask for. */
    VkBool32 preserve16 = VK_FALSE, preserve32 = VK_FALSE, preserve64 = VK_FALSE;
    if (version >= 102 && ctx->vk.vkGetPhysicalDeviceProperties2) {
        VkPhysicalDeviceVulkan12Properties p12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &p12};
        ctx->vk.vkGetPhysicalDeviceProperties2(ctx->physical_device, &p2);
        preserve16 = p12.shaderSignedZeroInfNanPreserveFloat16;
        preserve32 = p12.shaderSignedZeroInfNanPreserveFloat32;
        preserve64 = p12.shaderSignedZeroInfNanPreserveFloat64;
    }
    if (mask && loom_vk_contains_nocase(mask, "preserve")) preserve16 = preserve32 = preserve64 = VK_FALSE;

    ctx->capabilities = (int8 ? loom_vk_capability_int8 : 0) | (wanted.shaderInt16 ? loom_vk_capability_int16 : 0) |
                        (wanted.shaderInt64 ? loom_vk_capability_int64 : 0) |
                        (float16 ? loom_vk_capability_float16 : 0) |
                        (wanted.shaderFloat64 ? loom_vk_capability_float64 : 0) |
                        (s8 ? loom_vk_capability_storage8 : 0) | (s16 ? loom_vk_capability_storage16 : 0) |
                        (preserve16 ? loom_vk_capability_preserve16 : 0) |
                        (preserve32 ? loom_vk_capability_preserve32 : 0) |
                        (preserve64 ? loom_vk_capability_preserve64 : 0);
    ctx->features = (int8 && s8 ? loom_vulkan_feature_int8 : 0) |
                    (wanted.shaderInt16 && s16 ? loom_vulkan_feature_int16 : 0) |
                    (wanted.shaderInt64 ? loom_vulkan_feature_int64 : 0) |
                    (float16 && s16 ? loom_vulkan_feature_float16 : 0) |
                    (wanted.shaderFloat64 ? loom_vulkan_feature_float64 : 0) |
                    /* vk_v12 modules preserve float32 specials: without that, host-vulkan makes 1.0 modules */
                    (version >= 102 && preserve32 ? loom_vulkan_feature_v12 : 0) |
                    (version >= 103 && preserve32 ? loom_vulkan_feature_v13 : 0);

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = ctx->queue_family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = extension_count;
    info.ppEnabledExtensionNames = extension_count ? extensions : 0;
    if (have_chain) {
        info.pNext = &features2;
    } else {
        info.pEnabledFeatures = &features2.features;
    }
    VkResult result = ctx->vk.vkCreateDevice(ctx->physical_device, &info, 0, &ctx->device);
    if (result != VK_SUCCESS) {
        ctx->device = VK_NULL_HANDLE;
        return loom_vk_fail(user_context, "vkCreateDevice", result, 0);
    }
    loom_vk_count_create(loom_vk_object_device);
    int error = loom_vk_load_device_functions(user_context, ctx->device, &ctx->vk);
    if (error) return error;
    ctx->vk.vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);
    return 0;
}

static void loom_vk_destroy_context_objects(loom_vk_context_t *ctx) {
    if (ctx->device) {
        if (ctx->vk.vkDeviceWaitIdle) ctx->vk.vkDeviceWaitIdle(ctx->device);
        loom_vk_drop_module_objects(ctx);
        loom_vk_orphan_buffers(ctx);
        loom_vk_stream_destroy(ctx);
        loom_vk_destroy_blocks(ctx);
        ctx->vk.vkDestroyDevice(ctx->device, 0);
        loom_vk_count_destroy(loom_vk_object_device);
        ctx->device = VK_NULL_HANDLE;
    }
    if (ctx->messenger) {
        ctx->vk.vkDestroyDebugUtilsMessengerEXT(ctx->instance, ctx->messenger, 0);
        loom_vk_count_destroy(loom_vk_object_debug_messenger);
        ctx->messenger = VK_NULL_HANDLE;
    }
    if (ctx->instance) {
        ctx->vk.vkDestroyInstance(ctx->instance, 0);
        loom_vk_count_destroy(loom_vk_object_instance);
        ctx->instance = VK_NULL_HANDLE;
    }
    loom_vk_close_loader(ctx->loader);
    ctx->loader = 0;
}

loom_vk_context_t *loom_vk_get_context(void *user_context, int *error) {
    *error = 0;
    if (loom_vk_context) {
        if (loom_vk_context->lost) {
            *error = loom_vk_error(user_context,
                                   "Vulkan: an earlier wait for the device failed; call loom_device_release before "
                                   "using the device again.");
            return 0;
        }
        return loom_vk_context;
    }
    loom_vk_context_t *ctx = (loom_vk_context_t *)loom_vk_zalloc((size_t)(1) * (sizeof *ctx));
    if (!ctx) {
        *error = loom_vk_error(user_context, "Vulkan: out of host memory creating the context.");
        return 0;
    }
    ctx->batch = 1;
    ctx->barrier_epoch = 1;
    int result = loom_vk_open_loader(user_context, &ctx->loader, &ctx->vk);
    if (!result) result = loom_vk_create_instance(user_context, ctx);
    if (!result) result = loom_vk_choose_device(user_context, ctx);
    if (!result) result = loom_vk_create_device(user_context, ctx);
    if (result) {
        /* Nothing is cached on failure: the next call tries again (after the
         * environment was fixed, say). */
        loom_vk_destroy_context_objects(ctx);
        free(ctx);
        *error = result;
        return 0;
    }
    loom_vk_context = ctx;
    return ctx;
}

int loom_vk_destroy_context(void *user_context) {
    loom_vk_context_t *ctx = loom_vk_context;
    if (!ctx) return 0;
    int result = ctx->lost ? 0 : loom_vk_stream_flush(user_context, ctx);
    loom_vk_destroy_context_objects(ctx);
    loom_vk_context = 0;
    free(ctx);
    int validation = loom_vk_take_validation_error();
    return result ? result : validation;
}

LOOM_RUNTIME_EXPORT int loom_vulkan_get_device_info(void *user_context, loom_vulkan_device_info_t *info) {
    if (!info) return loom_vk_error(user_context, "loom_vulkan_get_device_info: info is NULL.");
    memset(info, 0, sizeof *info);
    pthread_mutex_lock(&loom_vk_lock);
    int error = 0;
    loom_vk_context_t *ctx = loom_vk_get_context(user_context, &error);
    if (ctx) {
        const VkPhysicalDeviceLimits *limits = &ctx->properties.limits;
        info->features = ctx->features;
        for (int i = 0; i < 3; i++) info->max_workgroup_size[i] = limits->maxComputeWorkGroupSize[i];
        info->max_workgroup_invocations = limits->maxComputeWorkGroupInvocations;
        info->max_shared_memory_bytes = limits->maxComputeSharedMemorySize;
        info->max_push_constant_bytes = limits->maxPushConstantsSize;
        size_t n = strlen(ctx->properties.deviceName);
        if (n >= sizeof info->device_name) n = sizeof info->device_name - 1;
        memcpy(info->device_name, ctx->properties.deviceName, n);
        info->device_name[n] = '\0';
    }
    if (!error) error = loom_vk_take_validation_error();
    pthread_mutex_unlock(&loom_vk_lock);
    return error;
}
