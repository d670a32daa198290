#ifndef LOOM_CODEGEN_C_CODEGEN_C_INTERNAL_H
#define LOOM_CODEGEN_C_CODEGEN_C_INTERNAL_H

/** \file
 * The C back end's class, shared by CodeGen_C.cpp (functions and
 * statements) and CodeGen_C_Expr.cpp (expressions and calls). Private to
 * src/codegen/c.
 *
 * Each Expr is emitted as statements that compute it into a fresh C++
 * variable, in the block where it is needed; visiting one leaves value_, a
 * C++ expression without side effects (a variable or a literal) naming the
 * result. IR names map to C++ variables through a scope of their own, every
 * binding getting a fresh name, so that no two bindings clash.
 */

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "ir/LoweredFunc.h"
#include "ir/Scope.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

class CodeGenC : public IRVisitor {
public:
    CodeGenC(const Target &target, const std::string &what) : target_(target), what_(what) {}

    /** Emits f: NAME, NAME_argv and NAME_metadata. */
    void compile(const LoweredFunc &f);
    /** Declarations of the C functions the code calls that no included
     * header declares. */
    std::string extern_declarations() const;
    std::string definitions() const { return out_.str(); }

protected:
    using IRVisitor::visit;

    // ------------------------------------------------------------ core (CodeGen_C.cpp)
    /** \throws CompileError: the C back end cannot emit `thing`; `hint` says
     * what to do instead. */
    [[noreturn]] void refuse(const std::string &thing, const std::string &hint) const;
    /** The C++ type of a scalar (element) type. */
    std::string scalar_type(Type t) const;
    /** The C++ type of t: scalar_type, or loom_vec<T, lanes>. */
    std::string c_type(Type t) const;
    /** The type elements of t have in memory: a byte for Bool, the bits
     * (uint16_t) for Float(16). */
    std::string memory_type(Type t) const;
    /** Whether t's elements are Float(16) (loom_f16 in the preamble). */
    static bool is_half(Type t) { return t.is_float() && !t.is_bfloat() && t.bits() == 16; }
    /** The C++ type of a scalar argument of the generated function. */
    std::string argument_type(const LoweredArgument &a) const;
    std::string fresh(const std::string &hint);
    std::ostream &line();
    void open_block(const std::string &head);
    void close_block(const std::string &tail = "");
    std::string lookup(const std::string &ir_name) const;
    void bind(const std::string &ir_name, const std::string &c_name) { symbols_.push(ir_name, c_name); }
    void unbind(const std::string &ir_name) { symbols_.pop(ir_name); }
    /** `return code;` from the function (or a parallel loop's body). */
    void emit_return(const std::string &code);

    // ------------------------------------------------------------ expressions (CodeGen_C_Expr.cpp)
    struct Operand {
        std::string value;
        Type type;
    };
    std::string emit(const Expr &e);
    Operand operand(const Expr &e) { return Operand{emit(e), e.type()}; }
    /** A new variable of type t holding `pattern` with $0, $1, ... replaced
     * by the operands: once for a scalar, lane by lane for a vector (a
     * vector operand stands for its lane, a scalar for itself). */
    std::string lanewise(Type t, const std::string &pattern, const std::vector<Operand> &operands);
    /** const T name = value; returns name. */
    std::string declare(Type t, const std::string &value, const std::string &hint = "t");
    std::string literal(const Expr &e) const;
    /** The condition as one bool: all lanes (all_lanes) or any lane. */
    std::string reduce_condition(const Operand &condition, bool all_lanes);
    /** Formats the pieces with loom_msg_format into a new char array, as
     * the LLVM back end does (separator between pieces, then suffix);
     * returns the array's name. */
    std::string emit_message(const std::vector<Expr> &pieces, size_t first, const std::string &separator,
                             const std::string &suffix, const Operand *leading_value = nullptr);
    std::string emit_intrinsic(const Call *op);
    std::string emit_buffer_intrinsic(const Call *op);
    std::string emit_extern_call(const Call *op);

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
    void visit(const Load *) override;
    void visit(const Ramp *) override;
    void visit(const Broadcast *) override;
    void visit(const Call *) override;
    void visit(const Let *) override;
    void visit(const Shuffle *) override;
    void visit(const VectorReduce *) override;

    // ------------------------------------------------------------ statements (CodeGen_C.cpp)
    void emit(const Stmt &s);
    void visit(const LetStmt *) override;
    void visit(const AssertStmt *) override;
    void visit(const ProducerConsumer *) override;
    void visit(const For *) override;
    void visit(const While *) override;
    void visit(const Store *) override;
    void visit(const Provide *) override;
    void visit(const Allocate *) override;
    void visit(const Free *) override;
    void visit(const Realize *) override;
    void visit(const Block *) override;
    void visit(const IfThenElse *) override;
    void visit(const Evaluate *) override;
    void visit(const Fork *) override;

    void emit_function(const LoweredFunc &f);
    void emit_argv_wrapper(const LoweredFunc &f);
    void emit_metadata(const LoweredFunc &f);

    const Target target_;
    const std::string what_;
    std::ostringstream out_;
    int indent_ = 0;
    int next_id_ = 0;
    std::string value_;
    Scope<std::string> symbols_;
    /** Heap allocations in scope: IR name -> its loom_heap_allocation. */
    Scope<std::string> heap_allocations_;
    /** C function name -> its declaration, for extern calls. */
    std::map<std::string, std::string> extern_declarations_;
};

/** The message separator of loom_msg_format (runtime/RuntimeInternal.h). */
constexpr char kCMessageValueMarker = '\x01';
constexpr int kCMessageCapacity = 1024;

/** s as a C string literal. */
std::string c_string_literal(const std::string &s);

}  // namespace internal
}  // namespace loom

#endif
