#ifndef LOOM_IR_IR_H
#define LOOM_IR_IR_H

/** \file
 * The IR node types. Every node is immutable and built by its static make(),
 * which checks the node's invariants (operand types match, conditions are
 * boolean...) and throws InternalError when they do not hold.
 *
 * Conventions of the lowered program (after storage flattening):
 * - A buffer argument `b` of the pipeline is a Variable `b.buffer` of Handle
 *   type; its fields are read with the pure intrinsics buffer_get_host,
 *   buffer_get_min, buffer_get_extent, buffer_get_stride, buffer_get_type_code,
 *   buffer_get_type_bits, buffer_get_dimensions.
 * - Load/Store name a symbol in scope that holds a host pointer: a LetStmt of
 *   `b` = buffer_get_host(b.buffer), or an Allocate. Their index is in
 *   elements of the node's element type, relative to that pointer.
 * - Scalar Params are Variables carrying the Parameter.
 */

#include <string>
#include <vector>

#include "loom/DeviceAPI.h"
#include "loom/Expr.h"
#include "loom/Range.h"
#include "loom/internal/FunctionPtr.h"
#include "loom/internal/Parameter.h"
#include "loom/internal/ReductionDomain.h"

namespace loom {
namespace internal {

template<typename T>
struct ExprNode : BaseExprNode {
    ExprNode() : BaseExprNode(T::_node_type) {}
    void accept(IRVisitor *v) const override;
};

template<typename T>
struct StmtNode : BaseStmtNode {
    StmtNode() : BaseStmtNode(T::_node_type) {}
    void accept(IRVisitor *v) const override;
};

// ---------------------------------------------------------------- constants

/** A signed integer constant; the value is wrapped to the type's width. */
struct IntImm : ExprNode<IntImm> {
    int64_t value;
    static const IntImm *make(Type t, int64_t value);
    static const IRNodeType _node_type = IRNodeType::IntImm;
};

/** An unsigned integer (or bool) constant, wrapped to the type's width. */
struct UIntImm : ExprNode<UIntImm> {
    uint64_t value;
    static const UIntImm *make(Type t, uint64_t value);
    static const IRNodeType _node_type = IRNodeType::UIntImm;
};

/** A floating-point constant, rounded to the type's precision. */
struct FloatImm : ExprNode<FloatImm> {
    double value;
    static const FloatImm *make(Type t, double value);
    static const IRNodeType _node_type = IRNodeType::FloatImm;
};

/** A string, used only in print() and error messages. Type is Handle. */
struct StringImm : ExprNode<StringImm> {
    std::string value;
    static const StringImm *make(const std::string &value);
    static const IRNodeType _node_type = IRNodeType::StringImm;
};

// ---------------------------------------------------------------- conversions

/** Value conversion (int->float rounds, float->int truncates, ints wrap). */
struct Cast : ExprNode<Cast> {
    Expr value;
    static Expr make(Type t, Expr v);
    static const IRNodeType _node_type = IRNodeType::Cast;
};

/** Bit-for-bit reinterpretation between types of the same total size. */
struct Reinterpret : ExprNode<Reinterpret> {
    Expr value;
    static Expr make(Type t, Expr v);
    static const IRNodeType _node_type = IRNodeType::Reinterpret;
};

// ---------------------------------------------------------------- variables

/** A named value: a loop variable, a let-bound name, a scalar Param (param is
 * defined), or a reduction variable (reduction_domain is defined). */
struct Variable : ExprNode<Variable> {
    std::string name;
    Parameter param;
    ReductionDomain reduction_domain;
    static Expr make(Type t, const std::string &name);
    static Expr make(Type t, const std::string &name, const Parameter &param);
    static Expr make(Type t, const std::string &name, const ReductionDomain &rdom);
    static const IRNodeType _node_type = IRNodeType::Variable;
};

// ---------------------------------------------------------------- arithmetic

/** Operands of binary nodes have the same type (the front end coerces). */
#define LOOM_BINARY_NODE(NAME)                                   \
    struct NAME : ExprNode<NAME> {                               \
        Expr a, b;                                               \
        static Expr make(Expr a, Expr b);                        \
        static const IRNodeType _node_type = IRNodeType::NAME;   \
    };

LOOM_BINARY_NODE(Add)
LOOM_BINARY_NODE(Sub)
LOOM_BINARY_NODE(Mul)
/** Integer division is Euclidean, as in Halide: it rounds toward negative
 * infinity for positive divisors and up for negative ones, so that
 * (a / b) * b + a % b == a with 0 <= a % b < |b|; x / 0 is 0. */
LOOM_BINARY_NODE(Div)
/** Integer modulus is Euclidean (never negative); x % 0 is 0. */
LOOM_BINARY_NODE(Mod)
LOOM_BINARY_NODE(Min)
LOOM_BINARY_NODE(Max)
/** Comparisons yield Bool with the operands' lane count. */
LOOM_BINARY_NODE(EQ)
LOOM_BINARY_NODE(NE)
LOOM_BINARY_NODE(LT)
LOOM_BINARY_NODE(LE)
LOOM_BINARY_NODE(GT)
LOOM_BINARY_NODE(GE)
/** Logical and/or of booleans. */
LOOM_BINARY_NODE(And)
LOOM_BINARY_NODE(Or)
#undef LOOM_BINARY_NODE

struct Not : ExprNode<Not> {
    Expr a;
    static Expr make(Expr a);
    static const IRNodeType _node_type = IRNodeType::Not;
};

/** condition ? true_value : false_value; both values are evaluated. */
struct Select : ExprNode<Select> {
    Expr condition, true_value, false_value;
    static Expr make(Expr condition, Expr true_value, Expr false_value);
    static const IRNodeType _node_type = IRNodeType::Select;
};

// ---------------------------------------------------------------- memory

/** Reads element `index` of the host pointer `name`. A vector index loads
 * several lanes; predicate (undefined = all true) masks lanes off. param is
 * the input buffer this reads from, if any. */
struct Load : ExprNode<Load> {
    std::string name;
    Expr index, predicate;
    Parameter param;
    static Expr make(Type t, const std::string &name, Expr index, Expr predicate = Expr(),
                     const Parameter &param = Parameter());
    static const IRNodeType _node_type = IRNodeType::Load;
};

/** base, base + stride, ..., base + (lanes - 1) * stride. */
struct Ramp : ExprNode<Ramp> {
    Expr base, stride;
    int lanes;
    static Expr make(Expr base, Expr stride, int lanes);
    static const IRNodeType _node_type = IRNodeType::Ramp;
};

/** A scalar repeated across lanes. */
struct Broadcast : ExprNode<Broadcast> {
    Expr value;
    int lanes;
    static Expr make(Expr value, int lanes);
    static const IRNodeType _node_type = IRNodeType::Broadcast;
};

// ---------------------------------------------------------------- calls

enum class CallType : uint8_t {
    Image,          // a read of an input buffer (param) at coordinates args
    Func,           // a call to a Func (func, value_index) at coordinates args
    Extern,         // a C function with side effects
    PureExtern,     // a C function without side effects (e.g. sinf)
    Intrinsic,      // a Loom intrinsic with side effects (see namespace intrinsic)
    PureIntrinsic,  // a Loom intrinsic without side effects
};

/** Names of Loom's intrinsics (Call nodes of type Intrinsic/PureIntrinsic). */
namespace intrinsic {
constexpr const char *buffer_get_host = "buffer_get_host";          // (b.buffer) -> Handle
constexpr const char *buffer_get_min = "buffer_get_min";            // (b.buffer, d) -> Int(32)
constexpr const char *buffer_get_extent = "buffer_get_extent";      // (b.buffer, d) -> Int(32)
constexpr const char *buffer_get_stride = "buffer_get_stride";      // (b.buffer, d) -> Int(32)
constexpr const char *buffer_get_dimensions = "buffer_get_dimensions";  // (b.buffer) -> Int(32)
constexpr const char *buffer_get_type_code = "buffer_get_type_code";    // (b.buffer) -> UInt(8)
constexpr const char *buffer_get_type_bits = "buffer_get_type_bits";    // (b.buffer) -> UInt(8)
constexpr const char *buffer_is_null = "buffer_is_null";            // (b.buffer) -> Bool: pointer itself null
constexpr const char *buffer_host_is_null = "buffer_host_is_null";  // (b.buffer) -> Bool
/** (b.buffer, d, min, extent) -> Int(32) 0: a bounds query's answer; sets
 * dim[d] of the buffer to min/extent with dense strides (stride of d =
 * product of the extents of the dimensions below it). */
constexpr const char *buffer_set_bounds = "buffer_set_bounds";
/** (code, piece...) -> Int(32): reports the message made by concatenating
 * the pieces (StringImms and numbers) through loom_error and returns code. */
constexpr const char *error = "error";
/** (piece...) -> Int(32): prints the pieces, space separated, with loom_print. */
constexpr const char *print = "print";
/** (value, piece...) -> value's type: prints value then the pieces, returns value. */
constexpr const char *print_value = "print_value";
/** (cond, value, piece...) -> value: print_value when cond holds. */
constexpr const char *print_value_when = "print_value_when";
/** (condition, value, error call) -> value's type: loom::require(). Where
 * condition (any lane of it) is false, the intrinsic::error call is evaluated
 * and the pipeline returns its code; the value is returned otherwise. */
constexpr const char *require = "require";
/** (seed..., call id) -> Int(32), UInt(32) or Float(32): random_float/int/
 * uint(). The front end replaces it, when a definition is made, by a hash of
 * the definition's coordinates (lang/Random.cpp); lowering never sees it. */
constexpr const char *random = "random";
constexpr const char *likely = "likely";  // (x) -> x, a hint for loop partitioning
constexpr const char *abs = "abs";        // (x) -> unsigned type of same width for ints
constexpr const char *is_nan = "is_nan";  // (float) -> Bool
constexpr const char *bitwise_and = "bitwise_and";
constexpr const char *bitwise_or = "bitwise_or";
constexpr const char *bitwise_xor = "bitwise_xor";
constexpr const char *bitwise_not = "bitwise_not";
constexpr const char *shift_left = "shift_left";
constexpr const char *shift_right = "shift_right";  // arithmetic for signed types
/** Wraps an index that must not be simplified across (bounds inference sees
 * through it). */
constexpr const char *promise_clamped = "promise_clamped";
/** Integer ops kept as calls because LLVM has one instruction for them; the
 * other back ends use lower_bit_intrinsic (ir/LowerBitIntrinsics.h).
 * (a, b) -> a's type, clamped instead of wrapping. */
constexpr const char *saturating_add = "saturating_add";
constexpr const char *saturating_sub = "saturating_sub";
/** (x) -> x's type: zero bits above the highest one / below the lowest one;
 * the number of ones. Of 0, the first two are x's width. */
constexpr const char *count_leading_zeros = "count_leading_zeros";
constexpr const char *count_trailing_zeros = "count_trailing_zeros";
constexpr const char *popcount = "popcount";
/** (a, b, c) -> a * b + c of floats, rounded once. */
constexpr const char *fma = "fma";
/** (condition, StringImm trip-count buffer) -> Int(32): the first statement
 * of the loop over an RDom's outermost variable, as Evaluate. The loop ends
 * before the first iteration where condition is false (RDom::loop_while);
 * the buffer, if named (empty otherwise), receives the iterations run.
 * lower_loop_exits turns such loops into While loops. */
constexpr const char *loop_while = "loop_while";
/** (StringImm trip-count buffer) -> Int(32): RDom::trip_count(), the
 * iterations the last loop over the RDom ran (0 before any). Bounds
 * inference treats it as a symbol; lower_loop_exits makes it a Load. */
constexpr const char *trip_count = "trip_count";
/** (StringImm trip-count buffer, extent) -> Int(32): before a loop without a
 * loop_while condition whose trip count is read: it will run extent times. */
constexpr const char *set_trip_count = "set_trip_count";
/** () -> any type: undef(), the value of a pure definition that stores
 * nothing (the updates define the values). */
constexpr const char *undef = "undef";
/** The target queries of loom/TargetQueries.h, replaced by constants by
 * resolve_target_queries: (Arch as int) -> Bool, (OS as int) -> Bool,
 * () -> Int(32), (Feature as int) -> Bool, (element bits, negative for
 * floats) -> Int(32). */
constexpr const char *target_arch_is = "target_arch_is";
constexpr const char *target_os_is = "target_os_is";
constexpr const char *target_bits = "target_bits";
constexpr const char *target_has_feature = "target_has_feature";
constexpr const char *target_natural_vector_size = "target_natural_vector_size";
/** (StringImm func, event code, value_index, StringImm tag, Int(32) parent_id,
 * value, coordinate...) -> value's type: reports a loom_trace_event_t through
 * loom_trace (lower/InjectTracing.cpp). Loads and stores (event 0 and 1)
 * carry the value and its coordinates and return the value; other events
 * pass Int(32) 0 as the value and return the id the trace handler gave the
 * event; a realization's, produce's or consume's coordinates are min, extent
 * per dimension. */
constexpr const char *trace = "trace";
/** (value) -> value's type: only as the value of a Store (lower/LowerAtomics.h),
 * which it makes an atomic read-modify-write: value reads the stored buffer
 * only at the stored index, and the back end computes it from that element
 * and writes it back as one atomic operation (atomicrmw, or a compare-and-swap
 * loop). Other back ends than LLVM's may evaluate it as value. */
constexpr const char *atomic_update = "atomic_update";
/** (Load) -> Int(32) 0, as Evaluate: a hint to fetch the cache line of the
 * Load's address, which is not read (lower/InjectPrefetch.h). */
constexpr const char *prefetch = "prefetch";
/** Semaphores of Func::async (lower/ForkAsyncProducers.h).
 * make_semaphore: (initial count) -> Handle, the value of a LetStmt only: a
 * new semaphore, alive for the LetStmt's body. semaphore_acquire:
 * (semaphore, n) -> Int(32), as Evaluate: waits until the count is at least
 * n and takes n; returns non-zero (and the statement fails with that code)
 * if the semaphore was poisoned by a failing fork. semaphore_release:
 * (semaphore, n) -> Int(32) 0, as Evaluate. */
/** (call) -> Int(32) 0, only as the Evaluate that is the first statement
 * of a Block: if the rest of the Block fails (a failed assertion, an
 * allocation, a parallel loop or a fork that failed, ... ends the function
 * with an error code), `call`, an Extern call, runs before the function
 * returns; otherwise it does not run. Not inside a parallel loop or a fork
 * branch: a failure there ends the task, then the loop. The profiler
 * releases a failed run's record with it (lower/InjectProfiling.h), so only
 * the LLVM back end implements it: the interpreter and the C back end
 * refuse the profile feature. */
constexpr const char *cleanup_on_failure = "cleanup_on_failure";
constexpr const char *make_semaphore = "make_semaphore";
constexpr const char *semaphore_acquire = "semaphore_acquire";
constexpr const char *semaphore_release = "semaphore_release";
}  // namespace intrinsic

/** Math functions are PureExtern calls named after the C float function for
 * Float(32) (sinf, expf, ...) and the double one for Float(64) (sin, exp). */
struct Call : ExprNode<Call> {
    std::string name;
    std::vector<Expr> args;
    CallType call_type;
    FunctionPtr func;     // CallType::Func
    int value_index = 0;  // which Tuple element of func
    Parameter param;      // CallType::Image

    static Expr make(Type t, const std::string &name, const std::vector<Expr> &args, CallType call_type,
                     const FunctionPtr &func = FunctionPtr(), int value_index = 0,
                     const Parameter &param = Parameter());
    bool is_intrinsic(const char *n) const {
        return (call_type == CallType::Intrinsic || call_type == CallType::PureIntrinsic) && name == n;
    }
    bool is_pure() const {
        return call_type == CallType::PureExtern || call_type == CallType::PureIntrinsic ||
               call_type == CallType::Image || call_type == CallType::Func;
    }
    static const IRNodeType _node_type = IRNodeType::Call;
};

/** let name = value in body. */
struct Let : ExprNode<Let> {
    std::string name;
    Expr value, body;
    static Expr make(const std::string &name, Expr value, Expr body);
    static const IRNodeType _node_type = IRNodeType::Let;
};

/** Lanes picked out of the concatenation of vectors. */
struct Shuffle : ExprNode<Shuffle> {
    std::vector<Expr> vectors;
    std::vector<int> indices;
    static Expr make(const std::vector<Expr> &vectors, const std::vector<int> &indices);
    static Expr make_concat(const std::vector<Expr> &vectors);
    static Expr make_extract_element(Expr vector, int lane);
    static const IRNodeType _node_type = IRNodeType::Shuffle;
};

/** Reduces groups of adjacent lanes of value to t.lanes() lanes. */
struct VectorReduce : ExprNode<VectorReduce> {
    enum Operator { Add, Mul, Min, Max, And, Or };
    Operator op;
    Expr value;
    static Expr make(Operator op, Expr value, int lanes);
    static const IRNodeType _node_type = IRNodeType::VectorReduce;
};

// ---------------------------------------------------------------- statements

struct LetStmt : StmtNode<LetStmt> {
    std::string name;
    Expr value;
    Stmt body;
    static Stmt make(const std::string &name, Expr value, Stmt body);
    static const IRNodeType _node_type = IRNodeType::LetStmt;
};

/** If condition is false, evaluate message (an intrinsic::error call that
 * returns a negative code) and return that code from the pipeline. */
struct AssertStmt : StmtNode<AssertStmt> {
    Expr condition, message;
    static Stmt make(Expr condition, Expr message);
    static const IRNodeType _node_type = IRNodeType::AssertStmt;
};

/** Marks the production (is_producer) or the consumption of Func `name`. */
struct ProducerConsumer : StmtNode<ProducerConsumer> {
    std::string name;
    bool is_producer;
    Stmt body;
    static Stmt make(const std::string &name, bool is_producer, Stmt body);
    static Stmt make_produce(const std::string &name, Stmt body) { return make(name, true, std::move(body)); }
    static Stmt make_consume(const std::string &name, Stmt body) { return make(name, false, std::move(body)); }
    static const IRNodeType _node_type = IRNodeType::ProducerConsumer;
};

enum class ForType : uint8_t { Serial, Parallel, Vectorized, Unrolled, GPUBlock, GPUThread };
using loom::DeviceAPI;

/** for (name = min; name < min + extent; name++) body. */
struct For : StmtNode<For> {
    std::string name;
    Expr min, extent;
    ForType for_type;
    DeviceAPI device_api;
    Stmt body;
    static Stmt make(const std::string &name, Expr min, Expr extent, ForType for_type, DeviceAPI device_api,
                     Stmt body);
    static const IRNodeType _node_type = IRNodeType::For;
};

/** while (condition) body: loops whose trip count is found at run time. */
struct While : StmtNode<While> {
    Expr condition;
    Stmt body;
    static Stmt make(Expr condition, Stmt body);
    static const IRNodeType _node_type = IRNodeType::While;
};

/** Writes value to element index of host pointer name (see Load). */
struct Store : StmtNode<Store> {
    std::string name;
    Expr value, index, predicate;
    Parameter param;  // the output buffer written, if any
    static Stmt make(const std::string &name, Expr value, Expr index, Expr predicate = Expr(),
                     const Parameter &param = Parameter());
    static const IRNodeType _node_type = IRNodeType::Store;
};

/** Before storage flattening: writes values (one per Tuple element) to Func
 * name at coordinates args. */
struct Provide : StmtNode<Provide> {
    std::string name;
    std::vector<Expr> values, args;
    Expr predicate;  // undefined = always
    static Stmt make(const std::string &name, const std::vector<Expr> &values, const std::vector<Expr> &args,
                     Expr predicate = Expr());
    static const IRNodeType _node_type = IRNodeType::Provide;
};

using loom::MemoryType;

/** Allocates product(extents) elements of type, named name, for body. */
struct Allocate : StmtNode<Allocate> {
    std::string name;
    Type type;
    MemoryType memory_type;
    std::vector<Expr> extents;
    Expr condition;  // allocate only if true (undefined = always)
    Stmt body;
    static Stmt make(const std::string &name, Type type, MemoryType memory_type, const std::vector<Expr> &extents,
                     Expr condition, Stmt body);
    static const IRNodeType _node_type = IRNodeType::Allocate;
};

struct Free : StmtNode<Free> {
    std::string name;
    static Stmt make(const std::string &name);
    static const IRNodeType _node_type = IRNodeType::Free;
};

// Range and Region are the public loom::Range / loom::Region (loom/Range.h).
using loom::Range;
using loom::Region;

/** Before storage flattening: storage for Func name over bounds, for body. */
struct Realize : StmtNode<Realize> {
    std::string name;
    std::vector<Type> types;
    MemoryType memory_type;
    Region bounds;
    Expr condition;
    Stmt body;
    static Stmt make(const std::string &name, const std::vector<Type> &types, MemoryType memory_type,
                     const Region &bounds, Expr condition, Stmt body);
    static const IRNodeType _node_type = IRNodeType::Realize;
};

/** first; rest. */
struct Block : StmtNode<Block> {
    Stmt first, rest;
    static Stmt make(Stmt first, Stmt rest);
    /** Chains the defined statements; undefined if there are none. */
    static Stmt make(const std::vector<Stmt> &stmts);
    static const IRNodeType _node_type = IRNodeType::Block;
};

struct IfThenElse : StmtNode<IfThenElse> {
    Expr condition;
    Stmt then_case, else_case;  // else_case may be undefined
    static Stmt make(Expr condition, Stmt then_case, Stmt else_case = Stmt());
    static const IRNodeType _node_type = IRNodeType::IfThenElse;
};

/** Evaluates an expression for its side effects. */
struct Evaluate : StmtNode<Evaluate> {
    Expr value;
    static Stmt make(Expr value);
    static const IRNodeType _node_type = IRNodeType::Evaluate;
};

/** first and rest run concurrently, each on a thread of its own, and the
 * statement ends when both have (Func::async, lower/ForkAsyncProducers.h).
 * They synchronize only through the semaphore intrinsics; if one fails, the
 * semaphores defined outside the fork that either branch uses are poisoned,
 * so that the other branch stops waiting and fails too. */
struct Fork : StmtNode<Fork> {
    Stmt first, rest;
    static Stmt make(Stmt first, Stmt rest);
    static const IRNodeType _node_type = IRNodeType::Fork;
};

}  // namespace internal
}  // namespace loom

#include "ir/IRVisitor.h"

namespace loom {
namespace internal {
template<typename T>
void ExprNode<T>::accept(IRVisitor *v) const {
    v->visit(static_cast<const T *>(this));
}
template<typename T>
void StmtNode<T>::accept(IRVisitor *v) const {
    v->visit(static_cast<const T *>(this));
}
}  // namespace internal
}  // namespace loom

#endif
