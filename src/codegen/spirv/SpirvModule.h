#ifndef LOOM_CODEGEN_SPIRV_SPIRVMODULE_H
#define LOOM_CODEGEN_SPIRV_SPIRVMODULE_H

/** \file
 * SpirvModule: a small builder of SPIR-V modules as binary words, on the
 * enums of Khronos' spirv.hpp11 (never text assembly).
 *
 * It hands out result ids, deduplicates types and constants (an equal
 * OpTypeInt or OpConstant is made once), and keeps each logical section of
 * the module separately so that finish() can lay them out in the order the
 * specification requires (capabilities, extensions, imports, memory model,
 * entry points, execution modes, names, decorations, types/constants/global
 * variables, functions), whatever order the code generator added them in.
 *
 * Functions are built one at a time. Their entry block is split in three so
 * that instructions which must dominate everything can be added at any time:
 * the OpVariables (which SPIR-V requires first in the entry block), then a
 * preamble (builtin and push-constant loads, computed once), then the body.
 *
 *     SpirvModule m(0x00010000);
 *     Id i32 = m.type_int(32, true);
 *     Id seven = m.constant(i32, {7});   // the same id on every call
 */

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <spirv/unified1/spirv.hpp11>

namespace loom {
namespace internal {
namespace spirv {

using Id = uint32_t;

class SpirvModule {
public:
    /** version is the SPIR-V version word, e.g. 0x00010500 for 1.5. */
    explicit SpirvModule(uint32_t version) : version_(version) {}

    uint32_t version() const { return version_; }
    /** True if the module's SPIR-V version is at least major.minor. */
    bool version_at_least(int major, int minor) const {
        return version_ >= ((uint32_t(major) << 16) | (uint32_t(minor) << 8));
    }

    /** A fresh result id. */
    Id reserve_id() { return next_id_++; }

    // ---------------------------------------------------------- module-level sections
    void add_capability(spv::Capability c);
    void add_extension(const std::string &name);
    /** The id of the "GLSL.std.450" extended instruction set (imported once). */
    Id glsl_std_450();
    void add_entry_point(spv::ExecutionModel model, Id function, const std::string &name,
                         const std::vector<Id> &interface);
    void add_execution_mode(Id function, spv::ExecutionMode mode, const std::vector<uint32_t> &literals);
    void add_name(Id id, const std::string &name);
    /** Names a value computed in a function, once: ids of types, constants
     * and ids already named are left alone (a let of a constant must not
     * rename the constant). */
    void name_value(Id id, const std::string &name);
    void add_member_name(Id struct_type, uint32_t member, const std::string &name);
    void decorate(Id id, spv::Decoration d, const std::vector<uint32_t> &literals = {});
    void decorate_member(Id struct_type, uint32_t member, spv::Decoration d,
                         const std::vector<uint32_t> &literals = {});

    // ---------------------------------------------------------- types (deduplicated)
    Id type_void();
    Id type_bool();
    Id type_int(int bits, bool is_signed);
    Id type_float(int bits);
    Id type_vector(Id component, int count);
    Id type_array(Id element, Id length_constant);
    Id type_runtime_array(Id element);
    /** Not deduplicated: two structs of the same members may be decorated
     * differently. */
    Id type_struct(const std::vector<Id> &members);
    Id type_pointer(spv::StorageClass storage, Id pointee);
    Id type_function(Id result, const std::vector<Id> &parameters);

    // ---------------------------------------------------------- constants (deduplicated)
    Id constant_bool(Id bool_type, bool value);
    /** OpConstant of a scalar int or float type; literal words low-order first. */
    Id constant(Id type, const std::vector<uint32_t> &literal_words);
    Id constant_composite(Id type, const std::vector<Id> &parts);
    Id constant_null(Id type);

    /** An OpVariable at module scope (StorageBuffer, PushConstant, Input,
     * Workgroup...). All of them are listed by global_variables(). */
    Id global_variable(Id pointer_type, spv::StorageClass storage);
    const std::vector<std::pair<Id, spv::StorageClass>> &global_variables() const { return globals_; }

    // ---------------------------------------------------------- functions
    /** Starts a function and its entry block; returns the entry block's label. */
    Id begin_function(Id function, Id result_type, Id function_type);
    /** A Function-storage OpVariable at the top of the entry block. */
    Id local_variable(Id pointer_type);
    /** An instruction in the entry block's preamble (dominates the body). */
    Id emit_preamble(spv::Op op, Id result_type, const std::vector<uint32_t> &operands);
    /** An instruction with a fresh result id (and a result type unless
     * result_type is 0) at the end of the body. */
    Id emit(spv::Op op, Id result_type, const std::vector<uint32_t> &operands);
    /** The same, with a result id reserved earlier (e.g. for an OpPhi whose
     * operands refer to later instructions). */
    void emit_with_id(spv::Op op, Id result_type, Id result, const std::vector<uint32_t> &operands);
    /** An instruction without a result (stores, branches, merges...). */
    void emit_void(spv::Op op, const std::vector<uint32_t> &operands);
    /** OpLabel: starts a new block of the body. */
    void emit_label(Id label);
    void end_function();

    /** The complete module: header and sections in the required order. */
    std::vector<uint32_t> finish() const;

    /** Appends a literal string (nul-terminated, padded to whole words). */
    static void append_string(std::vector<uint32_t> &words, const std::string &s);

private:
    static void append_instruction(std::vector<uint32_t> &section, spv::Op op, const std::vector<uint32_t> &operands);
    // A type or constant, made once per distinct (opcode, operands).
    Id deduplicated(spv::Op op, bool has_result_type, Id result_type, const std::vector<uint32_t> &operands);

    uint32_t version_;
    Id next_id_ = 1;
    Id glsl_std_450_ = 0;

    std::set<spv::Capability> capabilities_;
    std::set<std::string> extensions_;
    std::vector<uint32_t> imports_, entry_points_, execution_modes_, names_, decorations_, globals_section_;
    std::map<std::vector<uint32_t>, Id> deduplicated_;
    std::set<Id> deduplicated_ids_, named_;
    std::vector<std::pair<Id, spv::StorageClass>> globals_;

    std::vector<uint32_t> functions_;
    std::vector<uint32_t> function_header_, function_variables_, function_preamble_, function_body_;
    bool in_function_ = false;
};

}  // namespace spirv
}  // namespace internal
}  // namespace loom

#endif
