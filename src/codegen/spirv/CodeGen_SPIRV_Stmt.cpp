// SPIR-V for memory (Load, Store, Allocate) and statements, as structured
// control flow:
//
//   if:    SelectionMerge %merge; BranchConditional %c %then %else|%merge
//   for:   Branch %header
//          %header: %i = Phi [min, pre] [next, continue]; LoopMerge %merge %continue
//                   BranchConditional (i < min + extent) %body %merge
//          %body ... Branch %continue
//          %continue: %next = i + 1; Branch %header
//   while: as for, with the condition evaluated in a block of its own after
//          the header (it may contain selection constructs itself).
//
// Vector loads and stores go lane by lane (storage buffers hold scalars);
// a predicated lane is a selection construct around its access, so that a
// lane whose predicate is false touches no memory and reads as zero. Lanes
// are stored in order, so with repeated indices the last lane wins, as on
// the CPU. Bool elements of storage buffers are bytes (0 or 1).

#include "codegen/spirv/CodeGen_SPIRV_Internal.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"

namespace loom {
namespace internal {
namespace spirv {

namespace {

bool is_const_true(const Expr &e) { return !e.defined() || is_const_one(e); }

}  // namespace

// ------------------------------------------------------------------ memory

const MemoryBinding &CodeGenSPIRV::memory(const std::string &name) const {
    const MemoryBinding *m = memories_.find(name);
    if (!m) {
        throw InternalError("spirv: kernel '" + kernel_.name + "' accesses '" + name +
                            "', which is neither a buffer argument nor an allocation in the kernel");
    }
    return *m;
}

Id CodeGenSPIRV::element_pointer(const MemoryBinding &m, Id index) {
    Type stored = m.bool_as_byte ? UInt(8) : m.element;
    const Id pointer_type = module_.type_pointer(m.storage, types_.of(stored));
    if (m.is_buffer) return module_.emit(spv::Op::OpAccessChain, pointer_type, {m.variable, types_.i32(0), index});
    return module_.emit(spv::Op::OpAccessChain, pointer_type, {m.variable, index});
}

Id CodeGenSPIRV::conditional(Id condition, const std::function<Id()> &then_case, Id result_type, Id otherwise) {
    const Id before = current_block_;
    const Id then_label = module_.reserve_id(), merge = module_.reserve_id();
    module_.emit_void(spv::Op::OpSelectionMerge, {merge, uint32_t(spv::SelectionControlMask::MaskNone)});
    module_.emit_void(spv::Op::OpBranchConditional, {condition, then_label, merge});
    module_.emit_label(then_label);
    current_block_ = then_label;
    const Id value = then_case();
    const Id then_end = current_block_;
    module_.emit_void(spv::Op::OpBranch, {merge});
    module_.emit_label(merge);
    current_block_ = merge;
    if (!result_type) return 0;
    return module_.emit(spv::Op::OpPhi, result_type, {value, then_end, otherwise, before});
}

void CodeGenSPIRV::visit(const Load *op) {
    const MemoryBinding &m = memory(op->name);
    Type t = op->type;
    if (t.element_of() != m.element) {
        throw InternalError("spirv: load of a " + SpirvTypes::describe(t.element_of()) + " from '" + op->name +
                            "', which holds " + SpirvTypes::describe(m.element));
    }
    Type stored = m.bool_as_byte ? UInt(8) : m.element;
    const Id stored_type = types_.of(stored);
    SpvValue index = codegen(op->index);
    const bool predicated = !is_const_true(op->predicate);
    SpvValue predicate = predicated ? codegen(op->predicate) : SpvValue();
    std::vector<Id> lanes;
    for (int i = 0; i < t.lanes(); i++) {
        const Id lane_index = lane(index, index.type.is_scalar() ? 0 : i);
        auto load = [&]() { return module_.emit(spv::Op::OpLoad, stored_type, {element_pointer(m, lane_index)}); };
        Id v = 0;
        if (predicated) {
            const Id p = lane(predicate, predicate.type.is_scalar() ? 0 : i);
            v = conditional(p, load, stored_type, types_.zero(stored));
        } else {
            v = load();
        }
        if (m.bool_as_byte) v = module_.emit(spv::Op::OpINotEqual, types_.bool_type(), {v, types_.zero(UInt(8))});
        lanes.push_back(v);
    }
    value_ = from_lanes(t, lanes);
}

void CodeGenSPIRV::visit(const Store *op) {
    const MemoryBinding &m = memory(op->name);
    Type t = op->value.type();
    if (t.element_of() != m.element) {
        throw InternalError("spirv: store of a " + SpirvTypes::describe(t.element_of()) + " to '" + op->name +
                            "', which holds " + SpirvTypes::describe(m.element));
    }
    SpvValue value = codegen(op->value);
    if (m.bool_as_byte) value = convert(value, UInt(8, t.lanes()));
    SpvValue index = codegen(op->index);
    const bool predicated = !is_const_true(op->predicate);
    SpvValue predicate = predicated ? codegen(op->predicate) : SpvValue();
    for (int i = 0; i < t.lanes(); i++) {
        const Id lane_index = lane(index, index.type.is_scalar() ? 0 : i);
        const Id lane_value = lane(value, i);
        auto store = [&]() -> Id {
            module_.emit_void(spv::Op::OpStore, {element_pointer(m, lane_index), lane_value});
            return 0;
        };
        if (predicated) {
            conditional(lane(predicate, predicate.type.is_scalar() ? 0 : i), store, 0, 0);
        } else {
            store();
        }
    }
}

// A Workgroup array for GPUShared, else a Function-storage array; their
// extents are constants (the header's contract), the storage lives for the
// whole invocation, and Free releases nothing.
void CodeGenSPIRV::visit(const Allocate *op) {
    int64_t count = op->type.lanes();
    for (const Expr &e : op->extents) {
        std::optional<int64_t> extent = as_const_int(e);
        if (!extent || *extent < 0) {
            throw InternalError("spirv: allocation '" + op->name + "' in kernel '" + kernel_.name +
                                "' has a non-constant extent");
        }
        count *= *extent;
        if (count > (int64_t(1) << 31)) {
            throw CompileError(describe_kernel(kernel_) + " allocates " + std::to_string(count) +
                               " elements for '" + op->name + "', more than a kernel can hold.");
        }
    }
    Type element = op->type.element_of();
    const Id array = module_.type_array(types_.of(element), types_.u32(uint32_t(std::max<int64_t>(count, 1))));
    MemoryBinding m;
    m.element = element;
    if (op->memory_type == MemoryType::GPUShared) {
        m.storage = spv::StorageClass::Workgroup;
        m.variable = module_.global_variable(module_.type_pointer(m.storage, array), m.storage);
    } else {
        m.storage = spv::StorageClass::Function;
        m.variable = module_.local_variable(module_.type_pointer(m.storage, array));
    }
    module_.add_name(m.variable, op->name);
    ScopedBinding<MemoryBinding> bind(memories_, op->name, m);
    codegen(op->body);
}

void CodeGenSPIRV::visit(const Free *op) { memory(op->name); }

// ------------------------------------------------------------------ statements

void CodeGenSPIRV::visit(const LetStmt *op) {
    SpvValue v = codegen(op->value);
    name_value(op->name, v);
    ScopedBinding<SpvValue> bind(symbols_, op->name, v);
    codegen(op->body);
}

void CodeGenSPIRV::visit(const AssertStmt *) {
    throw InternalError("spirv: kernel '" + kernel_.name + "' contains an AssertStmt");
}

void CodeGenSPIRV::visit(const ProducerConsumer *op) { codegen(op->body); }

void CodeGenSPIRV::visit(const For *op) {
    if (op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread) {
        throw InternalError("spirv: GPU loop '" + op->name + "' inside kernel '" + kernel_.name +
                            "' (they become gpu_block_id/gpu_thread_id)");
    }
    // Parallel, vectorized and unrolled loops that reach here are correct
    // as serial loops; Unroll asks the driver to unroll.
    SpvValue min = codegen(op->min);
    SpvValue extent = convert(codegen(op->extent), min.type);
    Type t = min.type;
    if (!t.is_scalar() || !t.is_int_or_uint() || t.is_bool()) throw InternalError("spirv: loop over a non-integer");
    const Id type = types_.of(t);
    SpvValue end = binary(spv::Op::OpIAdd, t, min, extent);

    const Id preheader = current_block_;
    const Id header = module_.reserve_id(), body = module_.reserve_id(), continue_block = module_.reserve_id(),
             merge = module_.reserve_id(), i = module_.reserve_id(), next = module_.reserve_id();
    module_.emit_void(spv::Op::OpBranch, {header});

    module_.emit_label(header);
    current_block_ = header;
    module_.emit_with_id(spv::Op::OpPhi, type, i, {min.pieces[0], preheader, next, continue_block});
    module_.name_value(i, op->name);
    const Id more = module_.emit(t.is_int() ? spv::Op::OpSLessThan : spv::Op::OpULessThan, types_.bool_type(),
                                 {i, end.pieces[0]});
    const uint32_t control = uint32_t(op->for_type == ForType::Unrolled ? spv::LoopControlMask::Unroll
                                                                        : spv::LoopControlMask::MaskNone);
    module_.emit_void(spv::Op::OpLoopMerge, {merge, continue_block, control});
    module_.emit_void(spv::Op::OpBranchConditional, {more, body, merge});

    module_.emit_label(body);
    current_block_ = body;
    {
        ScopedBinding<SpvValue> bind(symbols_, op->name, SpvValue{t, {i}});
        codegen(op->body);
    }
    module_.emit_void(spv::Op::OpBranch, {continue_block});

    module_.emit_label(continue_block);
    current_block_ = continue_block;
    module_.emit_with_id(spv::Op::OpIAdd, type, next, {i, types_.constant(t, 1)});
    module_.emit_void(spv::Op::OpBranch, {header});

    module_.emit_label(merge);
    current_block_ = merge;
}

void CodeGenSPIRV::visit(const While *op) {
    const Id header = module_.reserve_id(), test = module_.reserve_id(), body = module_.reserve_id(),
             continue_block = module_.reserve_id(), merge = module_.reserve_id();
    module_.emit_void(spv::Op::OpBranch, {header});

    module_.emit_label(header);
    current_block_ = header;
    module_.emit_void(spv::Op::OpLoopMerge, {merge, continue_block, uint32_t(spv::LoopControlMask::MaskNone)});
    module_.emit_void(spv::Op::OpBranch, {test});

    module_.emit_label(test);
    current_block_ = test;
    SpvValue condition = codegen(op->condition);
    if (!condition.type.is_bool() || !condition.type.is_scalar()) throw InternalError("spirv: While condition");
    module_.emit_void(spv::Op::OpBranchConditional, {condition.pieces[0], body, merge});

    module_.emit_label(body);
    current_block_ = body;
    codegen(op->body);
    module_.emit_void(spv::Op::OpBranch, {continue_block});

    module_.emit_label(continue_block);
    current_block_ = continue_block;
    module_.emit_void(spv::Op::OpBranch, {header});

    module_.emit_label(merge);
    current_block_ = merge;
}

void CodeGenSPIRV::visit(const Provide *op) {
    throw InternalError("spirv: Provide to '" + op->name + "' should have been removed by storage flattening");
}

void CodeGenSPIRV::visit(const Realize *op) {
    throw InternalError("spirv: Realize of '" + op->name + "' should have been removed by storage flattening");
}

void CodeGenSPIRV::visit(const Block *op) {
    codegen(op->first);
    codegen(op->rest);
}

void CodeGenSPIRV::visit(const IfThenElse *op) {
    SpvValue condition = codegen(op->condition);
    if (!condition.type.is_bool() || !condition.type.is_scalar()) throw InternalError("spirv: IfThenElse condition");
    const Id then_label = module_.reserve_id(), merge = module_.reserve_id();
    const Id else_label = op->else_case.defined() ? module_.reserve_id() : merge;
    module_.emit_void(spv::Op::OpSelectionMerge, {merge, uint32_t(spv::SelectionControlMask::MaskNone)});
    module_.emit_void(spv::Op::OpBranchConditional, {condition.pieces[0], then_label, else_label});

    module_.emit_label(then_label);
    current_block_ = then_label;
    codegen(op->then_case);
    module_.emit_void(spv::Op::OpBranch, {merge});
    if (op->else_case.defined()) {
        module_.emit_label(else_label);
        current_block_ = else_label;
        codegen(op->else_case);
        module_.emit_void(spv::Op::OpBranch, {merge});
    }
    module_.emit_label(merge);
    current_block_ = merge;
}

void CodeGenSPIRV::visit(const Evaluate *op) { codegen(op->value); }

}  // namespace spirv
}  // namespace internal
}  // namespace loom
