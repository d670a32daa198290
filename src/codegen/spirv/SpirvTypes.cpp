// Loom types and constants as SPIR-V ids: see SpirvTypes.h.

#include "codegen/spirv/SpirvTypes.h"

#include <cstring>
#include <vector>

#include "loom/Error.h"
#include "loom/runtime/float16.h"

namespace loom {
namespace internal {
namespace spirv {

SpirvTypes::SpirvTypes(SpirvModule &module, const Target &target, const std::string &kernel_name)
    : module_(module), target_(target), kernel_name_(kernel_name) {}

std::string SpirvTypes::describe(Type t) {
    return t.is_bool() ? (t.is_scalar() ? std::string("bool") : "bool x" + std::to_string(t.lanes()))
                       : t.to_string();
}

void SpirvTypes::missing_feature(Type t, const char *feature, const std::string &context) {
    throw CompileError(kernel_name_ + " uses " + describe(t.element_of()) + context +
                       ", which the target does not enable: add " + feature + " to the target (e.g. " +
                       "host-vulkan-" + feature + ").");
}

void SpirvTypes::require(Type t) {
    if (t.is_handle()) {
        throw InternalError("spirv: kernel '" + kernel_name_ + "' uses a Handle value, which kernels cannot hold");
    }
    if (t.lanes() < 1) throw InternalError("spirv: kernel '" + kernel_name_ + "' uses an undefined type");
    if (t.is_bool()) return;
    const int bits = t.bits();
    if (t.is_float()) {
        float_widths_.insert(bits);
        if (bits == 16) {
            if (!target_.has_feature(Target::VkFloat16)) missing_feature(t, "vk_float16", "");
            module_.add_capability(spv::Capability::Float16);
        } else if (bits == 64) {
            if (!target_.has_feature(Target::VkFloat64)) missing_feature(t, "vk_float64", "");
            module_.add_capability(spv::Capability::Float64);
        } else if (bits != 32) {
            throw InternalError("spirv: float type of " + std::to_string(bits) + " bits");
        }
        return;
    }
    switch (bits) {
    case 8:
        if (!target_.has_feature(Target::VkInt8)) missing_feature(t, "vk_int8", "");
        module_.add_capability(spv::Capability::Int8);
        return;
    case 16:
        if (!target_.has_feature(Target::VkInt16)) missing_feature(t, "vk_int16", "");
        module_.add_capability(spv::Capability::Int16);
        return;
    case 32: return;
    case 64:
        if (!target_.has_feature(Target::VkInt64)) missing_feature(t, "vk_int64", "");
        module_.add_capability(spv::Capability::Int64);
        return;
    default: throw InternalError("spirv: integer type of " + std::to_string(bits) + " bits");
    }
}

void SpirvTypes::require_in_storage_buffer(Type t, const std::string &buffer_name) {
    t = t.element_of();
    if (t.is_bool()) {
        // Bools are bytes in memory.
        if (!target_.has_feature(Target::VkInt8)) {
            missing_feature(t, "vk_int8", " in buffer '" + buffer_name + "' (bool elements are stored as bytes)");
        }
        t = UInt(8);
    }
    require(t);
    const int bits = t.bits();
    if (bits == 8) {
        module_.add_capability(spv::Capability::StorageBuffer8BitAccess);
        if (!module_.version_at_least(1, 5)) module_.add_extension("SPV_KHR_8bit_storage");
    } else if (bits == 16) {
        module_.add_capability(spv::Capability::StorageBuffer16BitAccess);
        if (!module_.version_at_least(1, 3)) module_.add_extension("SPV_KHR_16bit_storage");
    }
}

Id SpirvTypes::scalar_of(Type t) {
    if (t.is_bool()) return module_.type_bool();
    if (t.is_float()) return module_.type_float(t.bits());
    return module_.type_int(t.bits(), t.is_int());
}

Id SpirvTypes::of(Type t) {
    require(t);
    if (t.lanes() > 4) throw InternalError("spirv: register type " + describe(t) + " wider than four lanes");
    const Id scalar = scalar_of(t.element_of());
    return t.is_scalar() ? scalar : module_.type_vector(scalar, t.lanes());
}

Id SpirvTypes::storage_element(Type t) {
    t = t.element_of();
    return t.is_bool() ? of(UInt(8)) : of(t);
}

Id SpirvTypes::splat(Type t, Id scalar_constant) {
    if (t.is_scalar()) return scalar_constant;
    return module_.constant_composite(of(t), std::vector<Id>(t.lanes(), scalar_constant));
}

Id SpirvTypes::constant_uint(Type t, uint64_t value) {
    Type e = t.element_of();
    if (e.is_bool()) return constant_bool(value != 0, t.lanes());
    if (e.is_float()) return constant_float(t, double(value));
    const Id scalar_type = of(e);
    std::vector<uint32_t> words;
    if (e.bits() < 64) {
        const uint64_t mask = (uint64_t(1) << e.bits()) - 1;
        uint64_t bits = value & mask;
        // Narrow signed literals are sign-extended to the word, as SPIR-V
        // requires for types narrower than 32 bits.
        if (e.is_int() && e.bits() < 32 && (bits >> (e.bits() - 1)) & 1) bits |= ~mask;
        words.push_back(uint32_t(bits));
    } else {
        words = {uint32_t(value), uint32_t(value >> 32)};
    }
    return splat(t, module_.constant(scalar_type, words));
}

Id SpirvTypes::constant(Type t, int64_t value) { return constant_uint(t, uint64_t(value)); }

Id SpirvTypes::constant_float(Type t, double value) {
    Type e = t.element_of();
    if (!e.is_float()) return constant(t, int64_t(value));
    const Id scalar_type = of(e);
    std::vector<uint32_t> words;
    if (e.bits() == 16) {
        words.push_back(float16_t::bits_from_double(value));
    } else if (e.bits() == 32) {
        const float f = float(value);
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof(bits));
        words.push_back(bits);
    } else {
        uint64_t bits;
        std::memcpy(&bits, &value, sizeof(bits));
        words = {uint32_t(bits), uint32_t(bits >> 32)};
    }
    return splat(t, module_.constant(scalar_type, words));
}

Id SpirvTypes::constant_bool(bool value, int lanes) {
    return splat(Bool(lanes), module_.constant_bool(module_.type_bool(), value));
}

Id SpirvTypes::zero(Type t) {
    if (t.is_bool()) return constant_bool(false, t.lanes());
    if (t.is_float()) return constant_float(t, 0.0);
    return constant(t, 0);
}

}  // namespace spirv
}  // namespace internal
}  // namespace loom
