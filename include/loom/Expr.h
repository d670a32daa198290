#ifndef LOOM_EXPR_H
#define LOOM_EXPR_H

/** \file
 * Expr and Stmt: reference-counted handles to immutable IR nodes.
 *
 * An Expr is a value (`x + 1`, `f(x, y)`, `cast<float>(x)`); a Stmt is an
 * imperative statement of the lowered program. Nodes are built by the
 * operators in loom/IROperator.h and never change once built; copying a
 * handle is cheap.
 *
 *     Expr e = x * 2 + 1;       // Int(32)
 *     e.type();                 // Int(32)
 */

#include <atomic>
#include <cstdint>
#include <ostream>
#include <utility>

#include "loom/Type.h"

namespace loom {
namespace internal {

/** Every node kind of the IR, expressions first. */
enum class IRNodeType : uint8_t {
    // Expressions
    IntImm, UIntImm, FloatImm, StringImm, Cast, Reinterpret, Variable,
    Add, Sub, Mul, Div, Mod, Min, Max,
    EQ, NE, LT, LE, GT, GE, And, Or, Not,
    Select, Load, Ramp, Broadcast, Call, Let, Shuffle, VectorReduce,
    // Statements
    LetStmt, AssertStmt, ProducerConsumer, For, While, Store, Provide,
    Allocate, Free, Realize, Block, IfThenElse, Evaluate, Fork,
};

struct IRVisitor;

/** The base of every IR node: an intrusive reference count and the kind. */
struct IRNode {
    explicit IRNode(IRNodeType t) : node_type(t) {}
    virtual ~IRNode() = default;
    IRNode(const IRNode &) = delete;
    IRNode &operator=(const IRNode &) = delete;

    virtual void accept(IRVisitor *v) const = 0;

    mutable std::atomic<int> ref_count{0};
    const IRNodeType node_type;
};

struct BaseExprNode : IRNode {
    using IRNode::IRNode;
    Type type;
};

struct BaseStmtNode : IRNode {
    using IRNode::IRNode;
};

/** A shared, intrusively counted pointer to an IR node. */
template<typename T>
class IntrusivePtr {
public:
    IntrusivePtr() = default;
    IntrusivePtr(const T *p) : ptr_(p) { incref(); }
    IntrusivePtr(const IntrusivePtr &o) : ptr_(o.ptr_) { incref(); }
    IntrusivePtr(IntrusivePtr &&o) noexcept : ptr_(o.ptr_) { o.ptr_ = nullptr; }
    ~IntrusivePtr() { decref(); }
    IntrusivePtr &operator=(const IntrusivePtr &o) {
        if (o.ptr_ != ptr_) {
            o.incref();
            decref();
            ptr_ = o.ptr_;
        }
        return *this;
    }
    IntrusivePtr &operator=(IntrusivePtr &&o) noexcept {
        std::swap(ptr_, o.ptr_);
        return *this;
    }

    const T *get() const { return ptr_; }
    const T *operator->() const { return ptr_; }
    const T &operator*() const { return *ptr_; }
    bool defined() const { return ptr_ != nullptr; }
    /** Identity, not structural equality (see graph_equal). */
    bool same_as(const IntrusivePtr &o) const { return ptr_ == o.ptr_; }
    bool operator<(const IntrusivePtr &o) const { return ptr_ < o.ptr_; }

private:
    void incref() const {
        if (ptr_) ptr_->ref_count.fetch_add(1, std::memory_order_relaxed);
    }
    void decref() {
        if (ptr_ && ptr_->ref_count.fetch_sub(1, std::memory_order_acq_rel) == 1) delete ptr_;
        ptr_ = nullptr;
    }
    const T *ptr_ = nullptr;
};

/** Any IR node handle. */
struct IRHandle : IntrusivePtr<IRNode> {
    IRHandle() = default;
    IRHandle(const IRNode *p) : IntrusivePtr<IRNode>(p) {}

    void accept(IRVisitor *v) const { get()->accept(v); }

    /** Downcast to a node type, or nullptr if this is another kind of node. */
    template<typename T>
    const T *as() const {
        if (get() && get()->node_type == T::_node_type) return static_cast<const T *>(get());
        return nullptr;
    }
    IRNodeType node_type() const { return get()->node_type; }
};

}  // namespace internal

/** A handle to an expression node. Integer and float literals convert to
 * constants: `int` to Int(32), `float` to Float(32), `double` to Float(64)
 * (Halide makes double literals Float(32) with a warning; Loom keeps the
 * precision the C++ program asked for), and likewise for the other C++ scalar
 * types. */
struct Expr : internal::IRHandle {
    Expr() = default;
    Expr(const internal::BaseExprNode *n) : IRHandle(n) {}
    Expr(int8_t x);
    Expr(int16_t x);
    Expr(int32_t x);
    Expr(int64_t x);
    Expr(uint8_t x);
    Expr(uint16_t x);
    Expr(uint32_t x);
    Expr(uint64_t x);
    Expr(float x);
    Expr(double x);

    const internal::BaseExprNode *get() const { return static_cast<const internal::BaseExprNode *>(IRHandle::get()); }
    Type type() const { return get()->type; }
};

/** A handle to a statement node of the lowered program. */
struct Stmt : internal::IRHandle {
    Stmt() = default;
    Stmt(const internal::BaseStmtNode *n) : IRHandle(n) {}
    const internal::BaseStmtNode *get() const { return static_cast<const internal::BaseStmtNode *>(IRHandle::get()); }
};

/** Orders Exprs by identity, for use as std::map keys. */
struct ExprCompare {
    bool operator()(const Expr &a, const Expr &b) const { return a.get() < b.get(); }
};

/** Prints an Expr or Stmt as readable text (see IRPrinter in src/ir). */
std::ostream &operator<<(std::ostream &os, const Expr &e);
std::ostream &operator<<(std::ostream &os, const Stmt &s);

}  // namespace loom

#endif
