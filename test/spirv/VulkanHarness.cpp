// The test-only Vulkan runner: see VulkanHarness.h. Without Vulkan headers
// (LOOM_TEST_SPIRV_HAS_VULKAN unset) get() says so and the numeric tests skip.

#include "VulkanHarness.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

#ifdef LOOM_TEST_SPIRV_HAS_VULKAN
#include <vulkan/vulkan.h>
#endif

namespace loom_test_spirv {

#ifndef LOOM_TEST_SPIRV_HAS_VULKAN

struct VulkanHarness::State {};

VulkanHarness *VulkanHarness::get(std::string *why_not) {
    if (why_not) *why_not = "test_spirv was built without the Vulkan headers (libvulkan-dev)";
    return nullptr;
}

bool VulkanHarness::init(std::string *) { return false; }

std::string VulkanHarness::run(const std::vector<uint32_t> &, const std::string &, std::vector<std::vector<uint8_t> *>,
                               const std::vector<uint8_t> &, const uint32_t[3]) {
    return "no Vulkan";
}

VulkanHarness::~VulkanHarness() = default;

#else

struct VulkanHarness::State {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    std::mutex messages_mutex;
    std::vector<std::string> messages;  // validation errors since the last run() began
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t queue_family = 0;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties memory{};
};

namespace {

#define CHECK_VK(call)                                                                             \
    do {                                                                                           \
        VkResult r_ = (call);                                                                      \
        if (r_ != VK_SUCCESS) return std::string(#call " failed: VkResult ") + std::to_string(r_); \
    } while (0)

bool has_layer(const char *name) {
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> layers(count);
    vkEnumerateInstanceLayerProperties(&count, layers.data());
    for (const VkLayerProperties &l : layers) {
        if (std::strcmp(l.layerName, name) == 0) return true;
    }
    return false;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        auto *state = static_cast<VulkanHarness::State *>(user);
        std::lock_guard<std::mutex> lock(state->messages_mutex);
        state->messages.push_back(data && data->pMessage ? data->pMessage : "(no message)");
    }
    return VK_FALSE;
}

}  // namespace

VulkanHarness *VulkanHarness::get(std::string *why_not) {
    static std::mutex mutex;
    static std::unique_ptr<VulkanHarness> harness;
    static std::string failure;
    static bool tried = false;
    std::lock_guard<std::mutex> lock(mutex);
    if (!tried) {
        tried = true;
        harness.reset(new VulkanHarness());
        if (!harness->init(&failure)) harness.reset();
    }
    if (!harness && why_not) *why_not = failure;
    return harness.get();
}

bool VulkanHarness::init(std::string *why_not) {
    state_ = new State();
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "loom_test_spirv";
    app.apiVersion = VK_API_VERSION_1_3;  // vk_v13 modules are SPIR-V 1.6
    VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    instance_info.pApplicationInfo = &app;
    // The Khronos validation layer, where installed (vulkan-validationlayers):
    // any error it reports fails the run that caused it.
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *debug_utils = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    const bool validate = has_layer(layer);
    if (validate) {
        instance_info.enabledLayerCount = 1;
        instance_info.ppEnabledLayerNames = &layer;
        instance_info.enabledExtensionCount = 1;
        instance_info.ppEnabledExtensionNames = &debug_utils;
    }
    if (vkCreateInstance(&instance_info, nullptr, &state_->instance) != VK_SUCCESS) {
        *why_not = "vkCreateInstance failed (no Vulkan driver? install mesa-vulkan-drivers)";
        return false;
    }
    features_.validation = validate;
    if (validate) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(state_->instance, "vkCreateDebugUtilsMessengerEXT"));
        VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        messenger_info.messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
        messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
        messenger_info.pfnUserCallback = on_validation_message;
        messenger_info.pUserData = state_;
        if (!create || create(state_->instance, &messenger_info, nullptr, &state_->messenger) != VK_SUCCESS) {
            *why_not = "vkCreateDebugUtilsMessengerEXT failed";
            return false;
        }
    }
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(state_->instance, &count, nullptr);
    if (count == 0) {
        *why_not = "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";
        return false;
    }
    std::vector<VkPhysicalDevice> devices(count);
    vkEnumeratePhysicalDevices(state_->instance, &count, devices.data());
    state_->physical = devices[0];
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(state_->physical, &properties);
    features_.api_version = properties.apiVersion;
    if (properties.apiVersion < VK_API_VERSION_1_2) {
        *why_not = "the Vulkan device does not support Vulkan 1.2";
        return false;
    }
    vkGetPhysicalDeviceMemoryProperties(state_->physical, &state_->memory);

    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    v11.pNext = &v12;
    VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features2.pNext = &v11;
    vkGetPhysicalDeviceFeatures2(state_->physical, &features2);
    features_.int64 = features2.features.shaderInt64;
    features_.int16 = features2.features.shaderInt16;
    features_.float64 = features2.features.shaderFloat64;
    features_.int8 = v12.shaderInt8;
    features_.float16 = v12.shaderFloat16;
    features_.storage8 = v12.storageBuffer8BitAccess;
    features_.storage16 = v11.storageBuffer16BitAccess;

    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(state_->physical, &families, nullptr);
    std::vector<VkQueueFamilyProperties> family_properties(families);
    vkGetPhysicalDeviceQueueFamilyProperties(state_->physical, &families, family_properties.data());
    bool found = false;
    for (uint32_t i = 0; i < families; i++) {
        if (family_properties[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            state_->queue_family = i;
            found = true;
            break;
        }
    }
    if (!found) {
        *why_not = "no compute queue";
        return false;
    }
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueFamilyIndex = state_->queue_family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    // Enable everything the device has (the chain queried above).
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.pNext = &features2;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    if (vkCreateDevice(state_->physical, &device_info, nullptr, &state_->device) != VK_SUCCESS) {
        *why_not = "vkCreateDevice failed";
        return false;
    }
    vkGetDeviceQueue(state_->device, state_->queue_family, 0, &state_->queue);
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = state_->queue_family;
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    if (vkCreateCommandPool(state_->device, &pool_info, nullptr, &state_->pool) != VK_SUCCESS) {
        *why_not = "vkCreateCommandPool failed";
        return false;
    }
    return true;
}

VulkanHarness::~VulkanHarness() {
    if (!state_) return;
    if (state_->device) {
        vkDeviceWaitIdle(state_->device);
        if (state_->pool) vkDestroyCommandPool(state_->device, state_->pool, nullptr);
        vkDestroyDevice(state_->device, nullptr);
    }
    if (state_->messenger) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(state_->instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(state_->instance, state_->messenger, nullptr);
    }
    if (state_->instance) vkDestroyInstance(state_->instance, nullptr);
    delete state_;
}

namespace {

// Everything one run creates, destroyed on every way out.
struct RunObjects {
    VkDevice device;
    std::vector<VkBuffer> buffers;
    std::vector<VkDeviceMemory> memories;
    VkShaderModule shader = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    ~RunObjects() {
        if (fence) vkDestroyFence(device, fence, nullptr);
        if (descriptor_pool) vkDestroyDescriptorPool(device, descriptor_pool, nullptr);
        if (pipeline) vkDestroyPipeline(device, pipeline, nullptr);
        if (pipeline_layout) vkDestroyPipelineLayout(device, pipeline_layout, nullptr);
        if (set_layout) vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
        if (shader) vkDestroyShaderModule(device, shader, nullptr);
        for (VkBuffer b : buffers) vkDestroyBuffer(device, b, nullptr);
        for (VkDeviceMemory m : memories) vkFreeMemory(device, m, nullptr);
    }
};

}  // namespace

std::string VulkanHarness::run(const std::vector<uint32_t> &module, const std::string &entry,
                               std::vector<std::vector<uint8_t> *> buffers, const std::vector<uint8_t> &push_constants,
                               const uint32_t groups[3]) {
    {
        std::lock_guard<std::mutex> lock(state_->messages_mutex);
        state_->messages.clear();
    }
    std::string error = dispatch(module, entry, buffers, push_constants, groups);
    std::lock_guard<std::mutex> lock(state_->messages_mutex);
    for (const std::string &m : state_->messages) error += (error.empty() ? "" : "\n") + ("validation layer: " + m);
    return error;
}

std::string VulkanHarness::dispatch(const std::vector<uint32_t> &module, const std::string &entry,
                                    std::vector<std::vector<uint8_t> *> buffers,
                                    const std::vector<uint8_t> &push_constants, const uint32_t groups[3]) {
    VkDevice device = state_->device;
    RunObjects objects{device, {}, {}};

    // Host-visible, coherent storage buffers.
    for (std::vector<uint8_t> *data : buffers) {
        VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        buffer_info.size = std::max<size_t>(data->size(), 16);
        buffer_info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
        VkBuffer buffer;
        CHECK_VK(vkCreateBuffer(device, &buffer_info, nullptr, &buffer));
        objects.buffers.push_back(buffer);
        VkMemoryRequirements requirements;
        vkGetBufferMemoryRequirements(device, buffer, &requirements);
        const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        uint32_t type = UINT32_MAX;
        for (uint32_t i = 0; i < state_->memory.memoryTypeCount; i++) {
            if ((requirements.memoryTypeBits & (1u << i)) &&
                (state_->memory.memoryTypes[i].propertyFlags & wanted) == wanted) {
                type = i;
                break;
            }
        }
        if (type == UINT32_MAX) return "no host-visible coherent memory type";
        VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        allocate.allocationSize = requirements.size;
        allocate.memoryTypeIndex = type;
        VkDeviceMemory memory;
        CHECK_VK(vkAllocateMemory(device, &allocate, nullptr, &memory));
        objects.memories.push_back(memory);
        CHECK_VK(vkBindBufferMemory(device, buffer, memory, 0));
        void *mapped = nullptr;
        CHECK_VK(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped));
        std::memset(mapped, 0, buffer_info.size);
        if (!data->empty()) std::memcpy(mapped, data->data(), data->size());
        vkUnmapMemory(device, memory);
    }

    VkShaderModuleCreateInfo shader_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    shader_info.codeSize = module.size() * sizeof(uint32_t);
    shader_info.pCode = module.data();
    CHECK_VK(vkCreateShaderModule(device, &shader_info, nullptr, &objects.shader));

    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (uint32_t i = 0; i < buffers.size(); i++) {
        bindings.push_back({i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    }
    VkDescriptorSetLayoutCreateInfo set_layout_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_layout_info.bindingCount = uint32_t(bindings.size());
    set_layout_info.pBindings = bindings.data();
    CHECK_VK(vkCreateDescriptorSetLayout(device, &set_layout_info, nullptr, &objects.set_layout));

    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(push_constants.size())};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &objects.set_layout;
    layout_info.pushConstantRangeCount = push_constants.empty() ? 0 : 1;
    layout_info.pPushConstantRanges = &range;
    CHECK_VK(vkCreatePipelineLayout(device, &layout_info, nullptr, &objects.pipeline_layout));

    VkComputePipelineCreateInfo pipeline_info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = objects.shader;
    pipeline_info.stage.pName = entry.c_str();
    pipeline_info.layout = objects.pipeline_layout;
    CHECK_VK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &objects.pipeline));

    VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max<uint32_t>(1, uint32_t(buffers.size()))};
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = 1;
    pool_info.poolSizeCount = 1;
    pool_info.pPoolSizes = &pool_size;
    CHECK_VK(vkCreateDescriptorPool(device, &pool_info, nullptr, &objects.descriptor_pool));
    VkDescriptorSetAllocateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    set_info.descriptorPool = objects.descriptor_pool;
    set_info.descriptorSetCount = 1;
    set_info.pSetLayouts = &objects.set_layout;
    VkDescriptorSet set;
    CHECK_VK(vkAllocateDescriptorSets(device, &set_info, &set));
    std::vector<VkDescriptorBufferInfo> buffer_infos;
    for (VkBuffer b : objects.buffers) buffer_infos.push_back({b, 0, VK_WHOLE_SIZE});
    std::vector<VkWriteDescriptorSet> writes;
    for (uint32_t i = 0; i < buffers.size(); i++) {
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = set;
        w.dstBinding = i;
        w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w.pBufferInfo = &buffer_infos[i];
        writes.push_back(w);
    }
    vkUpdateDescriptorSets(device, uint32_t(writes.size()), writes.data(), 0, nullptr);

    VkCommandBufferAllocateInfo command_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    command_info.commandPool = state_->pool;
    command_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    command_info.commandBufferCount = 1;
    VkCommandBuffer commands;
    CHECK_VK(vkAllocateCommandBuffers(device, &command_info, &commands));
    struct FreeCommands {
        VkDevice d;
        VkCommandPool p;
        VkCommandBuffer c;
        ~FreeCommands() { vkFreeCommandBuffers(d, p, 1, &c); }
    } free_commands{device, state_->pool, commands};
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(commands, &begin));
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, objects.pipeline);
    vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, objects.pipeline_layout, 0, 1, &set, 0, nullptr);
    if (!push_constants.empty()) {
        vkCmdPushConstants(commands, objects.pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           uint32_t(push_constants.size()), push_constants.data());
    }
    vkCmdDispatch(commands, groups[0], groups[1], groups[2]);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
    CHECK_VK(vkEndCommandBuffer(commands));

    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CHECK_VK(vkCreateFence(device, &fence_info, nullptr, &objects.fence));
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands;
    CHECK_VK(vkQueueSubmit(state_->queue, 1, &submit, objects.fence));
    CHECK_VK(vkWaitForFences(device, 1, &objects.fence, VK_TRUE, uint64_t(60) * 1000 * 1000 * 1000));

    for (size_t i = 0; i < buffers.size(); i++) {
        void *mapped = nullptr;
        CHECK_VK(vkMapMemory(device, objects.memories[i], 0, VK_WHOLE_SIZE, 0, &mapped));
        if (!buffers[i]->empty()) std::memcpy(buffers[i]->data(), mapped, buffers[i]->size());
        vkUnmapMemory(device, objects.memories[i]);
    }
    return "";
}

#endif

}  // namespace loom_test_spirv
