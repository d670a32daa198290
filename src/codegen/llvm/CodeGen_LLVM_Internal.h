#ifndef LOOM_CODEGEN_LLVM_CODEGEN_LLVM_INTERNAL_H
#define LOOM_CODEGEN_LLVM_CODEGEN_LLVM_INTERNAL_H

/** \file
 * The LLVM code generator's class, shared by the CodeGen_LLVM*.cpp files
 * (one file per family of nodes). Private to src/codegen/llvm.
 *
 * Values: every Expr becomes one llvm::Value. Bool is i1 in registers and a
 * byte in memory; vectors are fixed vectors; Handle is an opaque ptr.
 * Symbols (loop variables, lets, arguments, host pointers of buffers and
 * allocations) live in one Scope, looked up by name.
 */

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "ir/LoweredFunc.h"
#include "ir/Scope.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

class CodeGenLLVM : public IRVisitor {
public:
    CodeGenLLVM(const Target &target, llvm::LLVMContext &context);

    /** Builds and verifies the module defining NAME and NAME_argv. */
    std::unique_ptr<llvm::Module> compile(const LoweredFunc &f);
    /** Whether NAME and NAME_argv take a leading `void *user_context` (the
     * JIT's JITUserContext); without it generated code passes NULL. */
    void set_user_context_argument(bool on) { user_context_argument_ = on; }
    /** NAME_argv-style entry `name` calling function_ (see CodeGen_LLVM.h). */
    void emit_argv_wrapper(const LoweredFunc &f, const std::string &name, bool with_context);
    /** prefer-vector-width on every function (see CodeGen_LLVM.cpp). */
    void set_vector_width_preference();

    /** Field indices of the LLVM struct that mirrors loom_buffer_t. */
    enum BufferField { BufDevice, BufDeviceInterface, BufHost, BufFlags, BufType, BufDimensions, BufDim, BufPadding };
    enum DimensionField { DimMin, DimExtent, DimStride, DimFlags };
    enum TypeField { TypeCodeField, TypeBitsField, TypeLanesField };

    /** The struct types mirroring loom_buffer_t / loom_dimension_t /
     * loom_type_t exactly (checked against offsetof in the tests). */
    static llvm::StructType *buffer_struct_type(llvm::LLVMContext &context);
    static llvm::StructType *dimension_struct_type(llvm::LLVMContext &context);
    static llvm::StructType *type_struct_type(llvm::LLVMContext &context);

protected:
    using IRVisitor::visit;

    // ------------------------------------------------------------ core (CodeGen_LLVM.cpp)
    llvm::Value *codegen(const Expr &e);
    void codegen(const Stmt &s);
    /** The register type of t (Bool -> i1). */
    llvm::Type *llvm_type_of(Type t) const;
    /** The in-memory type of one element of t (Bool -> i8). */
    llvm::Type *llvm_memory_type_of(Type t) const;
    /** The type of a scalar argument of the generated function: i16 for a
     * 16-bit float (its bits), else llvm_type_of(t). */
    llvm::Type *scalar_argument_type(Type t) const;
    llvm::Value *lookup_symbol(const std::string &name) const;
    /** A private constant C string. */
    llvm::Value *string_constant(const std::string &s);
    /** Declares (once) a C function of the runtime or of libm. */
    llvm::Function *declare_function(const std::string &name, llvm::Type *ret, const std::vector<llvm::Type *> &args);
    /** An alloca in the entry block, so that LLVM promotes or reuses it. */
    llvm::AllocaInst *entry_alloca(llvm::Type *t, llvm::Value *count, const std::string &name);
    llvm::Value *splat(llvm::Value *scalar, int lanes);
    /** An element index of a Load or Store (see CodeGen_LLVM_Memory.cpp):
     * the arithmetic that forms it is marked nsw. With large_buffers it is
     * 64-bit (codegen_wide_index); else on a 64-bit target the same sum in
     * 64 bits (codegen_index64), on a 32-bit one in 32 bits (codegen_index32). */
    llvm::Value *codegen_index(const Expr &index);
    llvm::Value *codegen_index32(const Expr &index);
    /** codegen_index32's sum of terms in 64 bits: each term that is not a sum
     * or a product with a stride is its 32-bit value sign-extended once. */
    llvm::Value *codegen_index64(const Expr &index);
    llvm::Value *codegen_index_sum(const Expr &index, bool in64);
    /** large_buffers: the Int(32) index arithmetic (+, -, *) in 64 bits, with
     * the 64-bit values of the lets it names (bind_wide_let). */
    llvm::Value *codegen_wide_index(const Expr &index);
    /** The 64-bit element offsets of a gather: on a 64-bit target without
     * large_buffers the Int(32) index vector sign-extended whole (32-bit
     * gather indices), else codegen_index's. */
    llvm::Value *gather_index(const Expr &index);
    /** Binds a 64-bit version of an Int(32) let's value for the indices that
     * name it: with large_buffers when it is arithmetic without side effects
     * (codegen_wide_index, exact); on other 64-bit targets for a coordinate
     * let (codegen_index64). Returns whether it did (the caller pops
     * wide_name(name)). */
    bool bind_wide_let(const std::string &name, const Expr &value);
    static std::string wide_name(const std::string &name) { return name + "\x01wide"; }
    llvm::Value *reversed_first(const Ramp *ramp);
    /** Converts an integer index to i64 (or a vector of i64), sign-extending. */
    llvm::Value *index_to_i64(llvm::Value *index, Type index_type);
    /** Returns from the pipeline with `code` after freeing every live heap
     * allocation; leaves the builder in a fresh unreachable block. */
    void emit_return_with_frees(llvm::Value *code);
    void emit_free_live_allocation(size_t i);

    // ------------------------------------------------------------ arithmetic (CodeGen_LLVM_Arith.cpp)
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

    llvm::Value *cast_value(llvm::Value *v, Type from, Type to);
    /** True if float arithmetic on operand's type may be contracted into
     * FMA: not Float(16), not with strict_float (CodeGen_LLVM_Arith.cpp). */
    bool may_contract(llvm::Value *operand) const;
    llvm::Value *div_euclid(llvm::Value *a, llvm::Value *b, Type t);
    llvm::Value *mod_euclid(llvm::Value *a, llvm::Value *b, Type t);
    llvm::Value *min_value(llvm::Value *a, llvm::Value *b, Type t);
    llvm::Value *max_value(llvm::Value *a, llvm::Value *b, Type t);
    llvm::Value *compare(llvm::CmpInst::Predicate signed_int, llvm::CmpInst::Predicate unsigned_int,
                         llvm::CmpInst::Predicate fp, const Expr &a, const Expr &b);
    llvm::Value *concat_vectors(const std::vector<llvm::Value *> &vs);

    // ------------------------------------------------------------ memory (CodeGen_LLVM_Memory.cpp)
    void visit(const Load *) override;
    void visit(const Store *) override;
    void visit(const Allocate *) override;
    void visit(const Free *) override;

    /** The symbol a Load/Store names, checked to be a pointer. */
    llvm::Value *host_pointer(const std::string &name) const;
    /** Attaches the TBAA tag of buffer `name` to a load or store of its
     * elements (CodeGen_LLVM_Memory.cpp): each allocation the pipeline makes
     * has its own type, every input/output buffer the one shared type. */
    void tag_buffer_access(llvm::Instruction *access, const std::string &name);
    /** A Store whose value is intrinsic::atomic_update: one atomicrmw or
     * compare-and-swap loop per lane (CodeGen_LLVM_Atomic.cpp). */
    void codegen_atomic_store(const Store *op, const Call *update);
    /** intrinsic::prefetch: llvm.prefetch of the Load's address, per lane
     * (CodeGen_LLVM_Atomic.cpp). */
    llvm::Value *codegen_prefetch(const Call *op);
    /** The memoize_lookup / memoize_store intrinsics of lower/Memoize.h:
     * loom_memoization_cache_lookup / _store (CodeGen_LLVM_Atomic.cpp). */
    llvm::Value *codegen_memoize(const Call *op);
    llvm::Value *buffer_field(llvm::Value *buffer, BufferField field);
    llvm::Value *dimension_field(llvm::Value *buffer, llvm::Value *d, DimensionField field);

    // ------------------------------------------------------------ calls (CodeGen_LLVM_Calls.cpp)
    void visit(const Call *) override;

    llvm::Value *codegen_intrinsic(const Call *op);
    llvm::Value *codegen_buffer_intrinsic(const Call *op);
    llvm::Value *codegen_math_call(const Call *op);
    llvm::Value *codegen_extern_call(const Call *op);
    /** intrinsic::extern_make_buffer, extern_buffer_min/extent
     * (lower/ExternStages.h): CodeGen_LLVM_Extern.cpp. */
    llvm::Value *codegen_extern_buffer_intrinsic(const Call *op);
    llvm::Value *codegen_shift(const Call *op, bool left);
    llvm::Value *codegen_bit_intrinsic(const Call *op);
    /** intrinsic::trace: a loom_trace_event_t on the stack, loom_trace (CodeGen_LLVM_Trace.cpp). */
    llvm::Value *codegen_trace(const Call *op);
    /** One piece of a print or error message: literal text, or a value. */
    struct MessagePiece {
        llvm::Value *value;
        Type type;
        bool is_string;
        std::string text;  // when is_string
    };
    /** Evaluates message pieces (StringImms become C strings). */
    std::vector<MessagePiece> evaluate_pieces(const std::vector<Expr> &pieces, size_t first = 0);
    MessagePiece string_piece(const std::string &s);
    /** Formats pieces into the entry block's message buffer, with separator
     * between them and suffix after, by one call of loom_msg_format; returns
     * the buffer. */
    llvm::Value *build_message(const std::vector<MessagePiece> &pieces, const char *separator, const char *suffix);
    /** Adds value (of type t) to a loom_msg_format format and its values. */
    void add_message_value(std::string &format, std::vector<llvm::Value *> &values, llvm::Value *value, Type t);
    llvm::Value *message_buffer();
    /** Calls loom_error(NULL, message). */
    void call_loom_error(llvm::Value *message);

    // ------------------------------------------------------------ statements (CodeGen_LLVM_Stmt.cpp)
    void visit(const LetStmt *) override;
    void visit(const AssertStmt *) override;
    void visit(const ProducerConsumer *) override;
    void visit(const For *) override;
    void visit(const While *) override;
    void visit(const Provide *) override;
    void visit(const Realize *) override;
    void visit(const Block *) override;
    void visit(const IfThenElse *) override;
    void visit(const Evaluate *) override;

    void codegen_serial_for(const For *op);
    /** Outlines the body into a function called per iteration by the
     * runtime's loom_do_par_for (CodeGen_LLVM_Parallel.cpp). */
    void codegen_parallel_for(const For *op);
    /** Outlines body_stmt into a new function int NAME<function_name>(void
     * *user_context, int index_name, uint8_t *closure) and fills the closure
     * of its free variables (*closure_out: a pointer, null when empty). */
    llvm::Function *outline_task(const std::string &function_name, const std::string &index_name,
                                 const Stmt &body_stmt, llvm::Value **closure_out);
    /** If result (i32) is non-zero, returns it from the function after
     * freeing live allocations; continues in a new block otherwise. */
    void return_if_failed(llvm::Value *result, const std::string &name);
    /** Func::async: two branches at once (CodeGen_LLVM_Parallel.cpp). */
    void visit(const Fork *) override;
    /** make_semaphore, semaphore_acquire, semaphore_release; else null. */
    llvm::Value *codegen_semaphore_intrinsic(const Call *op);
    int fork_count_ = 0;

    // ------------------------------------------------------------ GPU (CodeGen_LLVM_GPU.cpp)
    /** Compiles each kernel to SPIR-V and embeds it with a state slot. */
    void embed_gpu_kernels(const std::vector<GPUKernel> &kernels);
    /** The GPU launch intrinsics of lower/LowerGPULaunches.h, or null. */
    llvm::Value *codegen_gpu_intrinsic(const Call *op);
    struct GPUKernelGlobals {
        llvm::GlobalVariable *blob;  // the SPIR-V words
        uint32_t words;
        llvm::GlobalVariable *state;  // the runtime's module state, null at first
    };
    const GPUKernelGlobals &gpu_kernel_globals(const Call *op) const;
    std::map<std::string, GPUKernelGlobals> gpu_kernels_;

    // ------------------------------------------------------------ state
    // Per-function state (function_, entry_block_, message_buffer_,
    // live_allocations_, symbols_) is swapped out while a parallel loop's
    // body function is generated.
    Target target_;
    bool large_buffers_ = false;  // the target has large_buffers: 64-bit index arithmetic
    bool index64_ = false;        // a 64-bit target without large_buffers: codegen_index64
    llvm::LLVMContext &context_;
    std::unique_ptr<llvm::Module> module_;
    std::unique_ptr<llvm::IRBuilder<>> builder_;
    llvm::Function *function_ = nullptr;
    llvm::BasicBlock *entry_block_ = nullptr;
    llvm::Value *value_ = nullptr;  // result of the last visited Expr
    Scope<llvm::Value *> symbols_;
    llvm::Value *message_buffer_ = nullptr;
    /** The user_context of the function being generated (its argument, or
     * a parallel body's), null when there is none. */
    llvm::Value *user_context_ = nullptr;
    bool user_context_argument_ = false;
    /** What generated code passes as user_context to the runtime. */
    llvm::Value *user_context();
    std::map<std::string, llvm::Value *> strings_;  // string_constant's globals

    /** A heap allocation whose body is being generated. `slot` holds the
     * pointer, or null once freed, so that every exit path frees it once.
     * Or, with `cleanup`, a call that every failure return in the rest of
     * a Block makes (intrinsic::cleanup_on_failure). */
    struct LiveAllocation {
        std::string name;
        llvm::Value *slot;
        Expr cleanup = Expr();
    };
    std::vector<LiveAllocation> live_allocations_;

    /** Names whose value changes in each iteration of the innermost serial
     * loop being generated (its variable and the lets that use it), so that
     * codegen_index can add the loop-invariant part of an index first. */
    std::vector<std::string> varying_;

    /** LoweredFunc::coordinate_lets: LetStmts generated as index arithmetic
     * (codegen_index, nsw) rather than as wrapping values. */
    std::set<std::string> coordinate_lets_;

    /** Allocations whose body is being generated, by name (not swapped out
     * for a parallel loop's body: the body reaches them through its closure). */
    std::map<std::string, int> internal_buffers_;
    /** TBAA access tags: "" for input/output buffers, else the allocation's name. */
    std::map<std::string, llvm::MDNode *> tbaa_tags_;
    llvm::MDNode *tbaa_root_ = nullptr;
    /** Records name as varying if value uses a varying name; returns whether
     * it did (the caller pops it when the name goes out of scope). */
    bool note_if_varying(const std::string &name, const Expr &value);
};

/** Bytes of the message buffer that generated code formats messages into. */
constexpr int kMessageCapacity = 1024;
/** Marks a value in a loom_msg_format format (runtime/RuntimeInternal.h). */
constexpr char kMessageValueMarker = '\x01';

}  // namespace internal
}  // namespace loom

#endif
