// Code generation of intrinsic::trace (lower/InjectTracing.cpp): the
// arguments (func, event, value_index, tag, parent_id, value, coordinate...)
// fill a loom_trace_event_t in the entry block's stack frame, whose address
// goes to loom_trace (runtime/Tracing.c). Loads and stores return the value;
// other events return the id the trace handler gave the event. The value and the coordinates are stored
// lane by lane; for a vector access the coordinates are grouped by dimension
// (all lanes of dimension 0, then of dimension 1, ...), as Halide lays them out.
// A tag event's "coordinates" are numbers appended to its tag text, space
// separated (the func_type_and_dim tags), and the event has none.

#include "codegen/llvm/CodeGen_LLVM_Internal.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

std::string string_argument(const Call *op, size_t k) {
    const StringImm *s = op->args[k].as<StringImm>();
    if (!s) throw InternalError("codegen_llvm: argument " + std::to_string(k) + " of trace must be a string");
    return s->value;
}

int int_argument(const Call *op, size_t k) {
    const IntImm *i = op->args[k].as<IntImm>();
    if (!i) throw InternalError("codegen_llvm: argument " + std::to_string(k) + " of trace must be a constant");
    return (int)i->value;
}

}  // namespace

llvm::Value *CodeGenLLVM::codegen_trace(const Call *op) {
    if (op->args.size() < 6) throw InternalError("codegen_llvm: trace takes at least 6 arguments");
    const int event = int_argument(op, 1);
    const bool has_value = event == loom_trace_load || event == loom_trace_store;
    llvm::Value *parent_id = codegen(op->args[4]);
    if (op->args[4].type().lanes() > 1) parent_id = builder_->CreateExtractElement(parent_id, (uint64_t)0);
    const Expr &value_expr = op->args[5];
    const Type t = value_expr.type();
    const int lanes = t.lanes();
    llvm::Value *value = codegen(value_expr);

    llvm::Type *ptr = builder_->getPtrTy();
    llvm::Type *i8 = builder_->getInt8Ty(), *i16 = builder_->getInt16Ty(), *i32 = builder_->getInt32Ty();
    // The layout of loom_trace_event_t.
    llvm::StructType *event_type = llvm::StructType::get(context_, {ptr, ptr, ptr, ptr, i8, i8, i16, i32, i32, i32, i32});

    llvm::Value *value_slot = llvm::ConstantPointerNull::get(builder_->getPtrTy());
    if (has_value) {
        llvm::Type *element = llvm_memory_type_of(t.element_of());
        llvm::AllocaInst *slot = entry_alloca(element, builder_->getInt32(lanes), "trace.value");
        for (int i = 0; i < lanes; i++) {
            llvm::Value *lane = lanes > 1 ? builder_->CreateExtractElement(value, (uint64_t)i) : value;
            if (t.is_bool()) lane = builder_->CreateZExt(lane, i8);
            builder_->CreateStore(lane, builder_->CreateConstInBoundsGEP1_32(element, slot, i));
        }
        value_slot = slot;
    }

    const bool numbered_tag = event == loom_trace_tag && op->args.size() > 6;
    const size_t coordinates = numbered_tag ? 0 : op->args.size() - 6;
    const int coordinate_lanes = has_value ? lanes : 1;
    const int entries = (int)coordinates * coordinate_lanes;
    llvm::Value *coordinate_slot = llvm::ConstantPointerNull::get(builder_->getPtrTy());
    if (entries > 0) {
        llvm::AllocaInst *slot = entry_alloca(i32, builder_->getInt32(entries), "trace.coordinates");
        for (size_t d = 0; d < coordinates; d++) {
            const Expr &c = op->args[6 + d];
            llvm::Value *v = codegen(c);
            for (int i = 0; i < coordinate_lanes; i++) {
                llvm::Value *lane = c.type().lanes() > 1 ? builder_->CreateExtractElement(v, (uint64_t)i) : v;
                lane = c.type().is_uint() ? builder_->CreateZExtOrTrunc(lane, i32) : builder_->CreateSExtOrTrunc(lane, i32);
                builder_->CreateStore(lane,
                                      builder_->CreateConstInBoundsGEP1_32(i32, slot, (unsigned)(d * coordinate_lanes + i)));
            }
        }
        coordinate_slot = slot;
    }

    const std::string tag = string_argument(op, 3);
    llvm::Value *tag_value = tag.empty() ? (llvm::Value *)llvm::ConstantPointerNull::get(builder_->getPtrTy())
                                         : string_constant(tag);
    if (numbered_tag) {
        std::vector<MessagePiece> pieces = {string_piece(tag)};
        for (const MessagePiece &p : evaluate_pieces(op->args, 6)) pieces.push_back(p);
        tag_value = build_message(pieces, " ", "");
    }
    const loom_type_code_t code = t.is_int()     ? loom_type_int
                                  : t.is_uint()  ? loom_type_uint
                                  : t.is_float() ? loom_type_float
                                                 : loom_type_handle;
    llvm::Value *fields[] = {string_constant(string_argument(op, 0)),
                             value_slot,
                             coordinate_slot,
                             tag_value,
                             builder_->getInt8((uint8_t)code),
                             builder_->getInt8((uint8_t)t.bits()),
                             builder_->getInt16((uint16_t)(has_value ? lanes : 1)),
                             builder_->getInt32(event),
                             parent_id,
                             builder_->getInt32(int_argument(op, 2)),
                             builder_->getInt32(entries)};
    llvm::AllocaInst *trace_event = entry_alloca(event_type, nullptr, "trace.event");
    for (unsigned k = 0; k < std::size(fields); k++) {
        builder_->CreateStore(fields[k], builder_->CreateStructGEP(event_type, trace_event, k));
    }
    llvm::Value *id = builder_->CreateCall(declare_function("loom_trace", i32, {ptr, ptr}),
                                           {user_context(), trace_event});
    return has_value ? value : id;
}

}  // namespace internal
}  // namespace loom
