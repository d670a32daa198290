#ifndef LOOM_CODEGEN_SPIRV_CODEGEN_SPIRV_INTERNAL_H
#define LOOM_CODEGEN_SPIRV_CODEGEN_SPIRV_INTERNAL_H

/** \file
 * The IR-to-SPIR-V translator shared by CodeGen_SPIRV*.cpp: one instance
 * compiles one GPUKernel into one module (one GLCompute entry point).
 *
 * Values: every Expr becomes a SpvValue, the ids of its pieces of at most
 * four lanes (a scalar, or an OpTypeVector of 2..4 components); an Int(32)
 * x 8 is two vec4 pieces, an x 6 a vec4 and a vec2. Element-wise operations
 * work piece by piece; operations that move lanes (Shuffle, Ramp,
 * VectorReduce, vector loads and stores) go lane by lane.
 *
 * Control flow is structured as SPIR-V requires: IfThenElse and predicated
 * lanes are selection constructs with a merge block, For and While loops
 * are loop constructs (header with OpLoopMerge, body, continue block, merge
 * block).
 */

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "codegen/spirv/CodeGen_SPIRV.h"
#include "codegen/spirv/SpirvModule.h"
#include "codegen/spirv/SpirvTypes.h"
#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"

namespace loom {
namespace internal {
namespace spirv {

/** How user errors start when they name a kernel: "The GPU kernel of loop
 * x of Func f (kernel_name)", or its name alone when it has no loop. */
inline std::string describe_kernel(const GPUKernel &k) {
    return k.loop.empty() ? "GPU kernel '" + k.name + "'" : "The GPU kernel of " + k.loop + " (" + k.name + ")";
}


/** A value of any lane count: pieces of at most four lanes each. */
struct SpvValue {
    Type type;
    std::vector<Id> pieces;
};

/** Memory that Load and Store name: a storage buffer argument or an Allocate. */
struct MemoryBinding {
    Id variable = 0;
    spv::StorageClass storage = spv::StorageClass::Function;
    Type element;              // the IR element type (Bool for bool memory)
    bool is_buffer = false;    // a Block struct whose member 0 is the array
    bool bool_as_byte = false; // Bool elements held as UInt(8)
};

class CodeGenSPIRV : public IRVisitor {
public:
    CodeGenSPIRV(const GPUKernel &kernel, const Target &target);
    /** Builds the whole module (not yet validated). */
    std::vector<uint32_t> compile();

protected:
    using IRVisitor::visit;

    // ---------------------------------------------------------- the interface (CodeGen_SPIRV.cpp)
    void declare_buffers();
    Id declare_push_constants();
    std::vector<std::pair<std::string, SpvValue>> load_push_constants(Id push_constants);
    /** Where the scalars live: PushConstant, or Uniform past
     * LOOM_VULKAN_MAX_PUSH_CONSTANT_BYTES. */
    spv::StorageClass scalar_storage_ = spv::StorageClass::PushConstant;
    void declare_entry_point(Id function);

    // ---------------------------------------------------------- expressions (CodeGen_SPIRV_Arith.cpp)
    SpvValue codegen(const Expr &e);
    void codegen(const Stmt &s);
    std::pair<SpvValue, SpvValue> operands(const Expr &a, const Expr &b);

    void visit(const IntImm *) override;
    void visit(const UIntImm *) override;
    void visit(const FloatImm *) override;
    void visit(const StringImm *) override;
    void visit(const Cast *) override;
    void visit(const Reinterpret *) override;
    void visit(const Variable *) override;
    void visit(const Add *) override;
    void visit(const Sub *) override;
    void visit(const Mul *) override;
    void visit(const Div *) override;
    void visit(const Mod *) override;
    void visit(const Min *) override;
    void visit(const Max *) override;
    void visit(const EQ *) override;
    void visit(const NE *) override;
    void visit(const LT *) override;
    void visit(const LE *) override;
    void visit(const GT *) override;
    void visit(const GE *) override;
    void visit(const And *) override;
    void visit(const Or *) override;
    void visit(const Not *) override;
    void visit(const Select *) override;
    void visit(const Ramp *) override;
    void visit(const Broadcast *) override;
    void visit(const Let *) override;
    void visit(const Shuffle *) override;
    void visit(const VectorReduce *) override;

    // ---------------------------------------------------------- calls (CodeGen_SPIRV_Calls.cpp)
    void visit(const Call *) override;
    SpvValue codegen_intrinsic(const Call *op);
    SpvValue codegen_shift(const Call *op, bool left);
    SpvValue codegen_math(const Call *op);
    SpvValue gpu_index(const Call *op, spv::BuiltIn builtin);

    // ---------------------------------------------------------- memory and statements (CodeGen_SPIRV_Stmt.cpp)
    void visit(const Load *) override;
    void visit(const Store *) override;
    void visit(const LetStmt *) override;
    void visit(const AssertStmt *) override;
    void visit(const ProducerConsumer *) override;
    void visit(const For *) override;
    void visit(const While *) override;
    void visit(const Provide *) override;
    void visit(const Allocate *) override;
    void visit(const Free *) override;
    void visit(const Realize *) override;
    void visit(const Block *) override;
    void visit(const IfThenElse *) override;
    void visit(const Evaluate *) override;
    const MemoryBinding &memory(const std::string &name) const;
    Id element_pointer(const MemoryBinding &m, Id index);
    /** Runs then_case() inside `if (condition)` (a selection construct);
     * then_case returns a value (or 0) that the merge block receives
     * through an OpPhi with `otherwise`, whose id is returned. */
    Id conditional(Id condition, const std::function<Id()> &then_case, Id result_type, Id otherwise);

    // ---------------------------------------------------------- value helpers (CodeGen_SPIRV_Arith.cpp)
    /** The register type of piece i of a value of type t. */
    Id piece_type(Type t, int i) { return types_.of(t.with_lanes(piece_lanes(t.lanes(), i))); }
    Type piece_loom_type(Type t, int i) const { return t.with_lanes(piece_lanes(t.lanes(), i)); }
    Id lane(const SpvValue &v, int i);
    std::vector<Id> lanes_of(const SpvValue &v);
    SpvValue from_lanes(Type t, const std::vector<Id> &scalars);
    /** A constant of type t (any lanes), every lane `value`. */
    SpvValue constant_value(Type t, int64_t value);
    SpvValue float_constant_value(Type t, double value);
    /** The scalar id repeated over t's lanes. */
    SpvValue splat(Type t, Id scalar);

    /** Applies f to each piece: f(piece index, result piece type) -> id. */
    SpvValue map_pieces(Type result, const std::function<Id(int, Id)> &f);
    SpvValue unary(spv::Op op, Type result, const SpvValue &a);
    SpvValue binary(spv::Op op, Type result, const SpvValue &a, const SpvValue &b);
    SpvValue select(const SpvValue &c, const SpvValue &t, const SpvValue &f);
    SpvValue glsl(int instruction, Type result, const std::vector<SpvValue> &args);
    /** Float arithmetic; Float(16) is computed in Float(32) and rounded back. */
    SpvValue float_arith(spv::Op op, const SpvValue &a, const SpvValue &b);
    SpvValue convert(const SpvValue &v, Type to);
    SpvValue float_to_int(const SpvValue &v, Type to);
    SpvValue double_to_half(const SpvValue &v);
    SpvValue int_convert(const SpvValue &v, Type to);
    SpvValue add(const SpvValue &a, const SpvValue &b);
    SpvValue mul(const SpvValue &a, const SpvValue &b);
    SpvValue min_value(const SpvValue &a, const SpvValue &b);
    SpvValue max_value(const SpvValue &a, const SpvValue &b);
    SpvValue compare(spv::Op signed_int, spv::Op unsigned_int, spv::Op fp, const SpvValue &a, const SpvValue &b);
    SpvValue div_euclid(const SpvValue &a, const SpvValue &b);
    SpvValue mod_euclid(const SpvValue &a, const SpvValue &b);
    SpvValue bitcast(const SpvValue &v, Type to);
    void no_contraction(Id id);
    void name_value(const std::string &name, const SpvValue &v);

    const GPUKernel &kernel_;
    const Target &target_;
    SpirvModule module_;
    SpirvTypes types_;

    SpvValue value_;
    Id current_block_ = 0;
    Scope<SpvValue> symbols_;
    Scope<MemoryBinding> memories_;
    // Per builtin: its Input variable and its value loaded in the preamble;
    // per (builtin, component): the Int(32) component.
    std::map<spv::BuiltIn, std::pair<Id, Id>> builtins_;
    std::map<std::pair<spv::BuiltIn, int>, Id> builtin_components_;
    // One Block struct per storage-buffer element type.
    std::map<Id, Id> buffer_structs_;
};

/** The SPIR-V version word for the target (1.0, 1.5 with vk_v12, 1.6 with vk_v13). */
uint32_t spirv_version_for(const Target &target);

}  // namespace spirv
}  // namespace internal
}  // namespace loom

#endif
