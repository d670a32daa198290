#ifndef LOOM_CODEGEN_SPIRV_SPIRVTYPES_H
#define LOOM_CODEGEN_SPIRV_SPIRVTYPES_H

/** \file
 * Loom types and constants as SPIR-V ids, with the capabilities (and
 * extensions) each type needs and the Target feature that enables it.
 *
 * - In registers, Bool is OpTypeBool, Int(n)/UInt(n) a signed/unsigned
 *   OpTypeInt, Float(n) OpTypeFloat; a type of 2..4 lanes is an
 *   OpTypeVector. Wider vectors are split into pieces of at most four lanes
 *   by the code generator (piece_lanes()), so types here have 1..4 lanes.
 * - In storage buffers, Bool elements are 8-bit unsigned integers (one byte
 *   per element, as on the host).
 * - Int(8)/UInt(8) need vk_int8, 16-bit ints vk_int16, Float(16)
 *   vk_float16, 64-bit ints vk_int64, Float(64) vk_float64; otherwise using
 *   the type raises CompileError naming the kernel, the type and the
 *   feature to add.
 */

#include <cstdint>
#include <set>
#include <string>

#include "codegen/spirv/SpirvModule.h"
#include "loom/Target.h"
#include "loom/Type.h"

namespace loom {
namespace internal {
namespace spirv {

/** Lanes of piece i of a value of `lanes` lanes (pieces of at most 4). */
inline int piece_lanes(int lanes, int i) { return lanes - 4 * i < 4 ? lanes - 4 * i : 4; }
inline int piece_count(int lanes) { return (lanes + 3) / 4; }

class SpirvTypes {
public:
    SpirvTypes(SpirvModule &module, const Target &target, const std::string &kernel_name);  // as user errors name it (describe_kernel)

    /** The register type of t (1..4 lanes). */
    Id of(Type t);
    /** The type of an element of t in a storage buffer (scalar). */
    Id storage_element(Type t);
    Id bool_type() { return of(Bool()); }
    Id uint32() { return of(UInt(32)); }
    Id int32() { return of(Int(32)); }
    Id void_type() { return module_.type_void(); }

    /** Constants of a scalar or vector (1..4 lanes) type t, every lane the
     * same value. Float constants take the double; ints the bits. */
    Id constant(Type t, int64_t value);
    Id constant_uint(Type t, uint64_t value);
    Id constant_float(Type t, double value);
    Id constant_bool(bool value, int lanes = 1);
    Id zero(Type t);
    /** 32-bit unsigned scalar constant (scopes, semantics, indices). */
    Id u32(uint32_t value) { return constant_uint(UInt(32), value); }
    Id i32(int32_t value) { return constant(Int(32), value); }

    /** Checks that t may be used in a register, adding its capability. */
    void require(Type t);
    /** Checks that t may be an element of a storage buffer (8/16-bit
     * storage capabilities and extensions as the SPIR-V version needs). */
    void require_in_storage_buffer(Type t, const std::string &buffer_name);

    /** The widths of the float types the module uses (16, 32, 64). */
    const std::set<int> &float_widths() const { return float_widths_; }

    /** "int16", "float64x4"... for messages. */
    static std::string describe(Type t);

private:
    Id scalar_of(Type t);
    Id splat(Type t, Id scalar_constant);
    [[noreturn]] void missing_feature(Type t, const char *feature, const std::string &context);

    SpirvModule &module_;
    const Target &target_;
    std::string kernel_name_;
    std::set<int> float_widths_;
};

}  // namespace spirv
}  // namespace internal
}  // namespace loom

#endif
