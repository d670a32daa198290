#ifndef LOOM_IR_INTERPRETER_INTERP_CORE_H
#define LOOM_IR_INTERPRETER_INTERP_CORE_H

/** \file
 * Private machinery of the reference interpreter (ir/Interpreter.h).
 *
 * The interpreter first compiles the IR into a tree of small nodes, each
 * holding a function pointer specialised for its operand kind, with every
 * name already resolved to a slot of a flat value array. Running the tree is
 * then a walk of indirect calls with no map lookups and no exceptions on the
 * hot path. Every binding site (Let, LetStmt, For, Allocate) gets a slot of
 * its own, so shadowing needs no bookkeeping at run time.
 *
 * The compiled tree is read-only while it runs: everything a run writes (slot
 * values, regions, the scratch lanes children hand to their parents) lives
 * in a Frame, so that threads running the same nodes (the iterations of a
 * parallel loop, the branches of a Fork) each use a Frame of their own.
 *
 * Values are held lane by lane as Scalar: ints sign-extended (Int) or
 * zero-extended (UInt, Bool = 0/1) from their width, floats as double
 * (already rounded to float for Float(32), to binary16 for Float(16)),
 * handles as pointer bits. Float(16) operations compute in float and round
 * each result to binary16, like the LLVM back end.
 */

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "loom/Error.h"
#include "loom/runtime/float16.h"

namespace loom {
namespace internal {
namespace interp {

union Scalar {
    int64_t i;
    uint64_t u;
    double f;
};

/** How a lane of a type is held and computed on. */
enum class Kind : uint8_t { Int, UInt, F32, F64, Handle, F16 };

/** Throws InternalError for types the interpreter cannot compute on. */
Kind kind_of(Type t);

/** x rounded to the nearest binary16 value (ties to even), as a double. */
inline double round_to_half(double x) {
    return (double)float16_t::float_from_bits(float16_t::bits_from_double(x));
}

inline int64_t wrap_signed(int bits, int64_t v) {
    if (bits >= 64) return v;
    int shift = 64 - bits;
    return (int64_t)((uint64_t)v << shift) >> shift;
}

inline uint64_t wrap_unsigned(int bits, uint64_t v) {
    if (bits >= 64) return v;
    return v & ((uint64_t(1) << bits) - 1);
}

/** Wraps or rounds a freshly computed lane to type t. */
inline Scalar normalize(Type t, Kind k, Scalar v) {
    switch (k) {
    case Kind::Int: v.i = wrap_signed(t.bits(), v.i); break;
    case Kind::UInt: v.u = wrap_unsigned(t.bits(), v.u); break;
    case Kind::F32: v.f = (double)(float)v.f; break;
    case Kind::F16: v.f = round_to_half(v.f); break;
    default: break;
    }
    return v;
}

/** The bytes a host pointer may address: [base + lo, base + hi). */
struct Region {
    uint8_t *base = nullptr;
    int64_t lo = 0, hi = 0;
    bool known = false;
};

/** The mutable state of one thread of a run: slot values, the regions of
 * handle slots and the scratch lanes of the nodes. */
struct Frame {
    std::vector<Scalar> values;
    std::vector<Region> regions;
    std::vector<Scalar> scratch;  // laid out by lay_out_scratch
    void *user_context = nullptr;  // passed to every runtime call
    /** A failed require()'s error code, returned by the next statement that
     * checks it (blocks, loops, the whole run); 0 while none failed. */
    int failure = 0;
    /** A parallel loop's thread Frame that runs an iteration now
     * (CompileParallel.cpp). */
    bool in_iteration = false;
};

/** A scalar operand that a node reads in place instead of calling the
 * child node that computes it: a slot's value, a constant, or (of an Int
 * type) the sum of two slots or of a slot and a constant, wrapped to bits
 * (CompileMemory.cpp). The child stays in the tree, unused at run time. */
struct InPlaceOperand {
    int slot[2] = {0, 0};  // value offsets in Frame::values
    Scalar constant = {0};
    int bits = 64;
};

/** coefficient * values[slot[0]] * ... * values[slot[factors - 1]], in
 * uint64 arithmetic (CompilePolynomial.cpp). */
struct PolynomialTerm {
    static constexpr int kMaxFactors = 3;
    uint64_t coefficient = 0;
    int factors = 0;
    int slot[kMaxFactors] = {0, 0, 0};  // value offsets in Frame::values
};

/** How a scalar operand is read: by calling its node, or in place. */
enum class InPlaceForm : uint8_t { Node, Slot, Constant, SlotPlusSlot, SlotPlusConstant };

/** The value of an operand read in place (any form but Node). */
template<InPlaceForm F>
inline Scalar read_in_place(const InPlaceOperand &o, const Frame &f) {
    Scalar r;
    if constexpr (F == InPlaceForm::Slot) {
        r = f.values[o.slot[0]];
    } else if constexpr (F == InPlaceForm::Constant) {
        r = o.constant;
    } else if constexpr (F == InPlaceForm::SlotPlusSlot) {
        r.i = wrap_signed(o.bits, (int64_t)((uint64_t)f.values[o.slot[0]].i + (uint64_t)f.values[o.slot[1]].i));
    } else {
        r.i = wrap_signed(o.bits, (int64_t)((uint64_t)f.values[o.slot[0]].i + (uint64_t)o.constant.i));
    }
    return r;
}

struct Node;
using NodePtr = std::unique_ptr<Node>;
using EvalFn = void (*)(Node &, Frame &, Scalar *out);

/** How a binding of a host pointer learns the region it may address. */
struct HandleBinding {
    enum Mode : uint8_t { Unknown, BufferHost, CopySlot } mode = Unknown;
    NodePtr buffer;     // BufferHost: evaluates to the loom_buffer_t *
    int from_slot = -1; // CopySlot
};

/** A compiled expression. Children write their lanes into this node's
 * scratch, scratch_size lanes at Frame::scratch[scratch_base]; a node is
 * never re-entered on one Frame (the IR has no recursion), and a child's
 * own scratch is dead once it returned, so siblings share theirs (see
 * lay_out_scratch). */
struct Node {
    EvalFn fn = nullptr;
    Type type;
    int lanes = 1;
    std::vector<NodePtr> kids;
    std::vector<int> kid_offset;  // in scratch, from scratch_base
    int scratch_size = 0;
    int scratch_base = 0;

    int slot = -1;                  // Variable, Let, Load
    int value_offset = 0;           // where slot's lanes start in Frame::values
    int op = 0;                     // sub-operation, e.g. VectorReduce operator
    Type operand_type;              // Cast source, comparison operands, ...
    std::vector<Scalar> constants;  // constant lanes
    std::vector<int> indices;       // Shuffle indices
    std::vector<std::string> texts; // print/error pieces: text, or empty for a child
    std::vector<int> text_kid;      // print/error pieces: child index or -1
    std::string name;               // for messages
    const void *function = nullptr; // libm entry
    HandleBinding handle;           // Let of a host pointer
    InPlaceOperand in_place[3];     // a scalar Load's index, a clamp's value and bounds
    std::vector<PolynomialTerm> terms;  // an integer polynomial

    int add_kid(NodePtr kid) {
        kid_offset.push_back(scratch_size);
        scratch_size += kid->lanes;
        kids.push_back(std::move(kid));
        return (int)kids.size() - 1;
    }
    Scalar *kid_out(int k, Frame &f) {
        if (k < kCachedKids) return f.scratch.data() + kid_scratch[k];
        return f.scratch.data() + scratch_base + kid_offset[k];
    }
    Scalar *run(int k, Frame &f) {
        Scalar *o = kid_out(k, f);
        Node *kid = k < kCachedKids ? kid_node[k] : kids[k].get();
        kid->fn(*kid, f, o);
        return o;
    }

    /** The first kids and where their lanes go (scratch_base +
     * kid_offset[k]), set by lay_out_scratch: fewer loads on the way to a
     * child, which every node makes. */
    static constexpr int kCachedKids = 3;
    Node *kid_node[kCachedKids] = {nullptr, nullptr, nullptr};
    int kid_scratch[kCachedKids] = {0, 0, 0};
};

struct Exec;
using ExecPtr = std::unique_ptr<Exec>;
/** Returns 0 to continue, or a nonzero error code that unwinds the run. */
using ExecFn = int (*)(Exec &, Frame &);

/** What a parallel loop keeps between runs (CompileParallel.cpp). */
struct ParallelLoopState;

/** A compiled statement. Its exprs' lanes lie in Frame::scratch from
 * scratch_base, as a Node's children's do. */
struct Exec {
    ExecFn fn = nullptr;
    std::vector<ExecPtr> stmts;
    std::vector<NodePtr> exprs;
    std::vector<int> out_offset;  // one per expr, in scratch from scratch_base
    int outs_size = 0;
    int scratch_base = 0;
    int slot = -1;
    int value_offset = 0;
    int op = 0;  // e.g. the number of extents of an Allocate
    Type type;
    std::string name;
    HandleBinding handle;
    std::shared_ptr<ParallelLoopState> parallel;  // a parallel For only
    InPlaceOperand in_place[2];  // a scalar Store's value and index

    int add_expr(NodePtr e) {
        out_offset.push_back(outs_size);
        outs_size += e->lanes;
        exprs.push_back(std::move(e));
        return (int)exprs.size() - 1;
    }
    Scalar *run(int k, Frame &f) {
        Scalar *o = f.scratch.data() + scratch_base + out_offset[k];
        exprs[k]->fn(*exprs[k], f, o);
        return o;
    }
};

struct SlotInfo {
    std::string name;
    Type type;
    int offset = 0;
};

/** Compiles IR into Nodes/Execs, resolving names to slots. */
class Compiler {
public:
    /** A new slot for name, shadowing any outer binding until unbind(name). */
    int bind(const std::string &name, Type t);
    void unbind(const std::string &name);
    /** The innermost slot bound to name, or -1. */
    int lookup(const std::string &name) const;
    const SlotInfo &slot(int s) const { return slots_[s]; }
    /** A Frame with room for every slot compiled so far and scratch_lanes
     * lanes of scratch (what lay_out_scratch returned). */
    Frame make_frame(int scratch_lanes) const;

    NodePtr expr(const Expr &e);
    ExecPtr stmt(const Stmt &s);

    // Implemented by node family, in separate files.
    NodePtr call(const Call *c);
    NodePtr load(const Load *l);
    ExecPtr store(const Store *s);
    ExecPtr allocate(const Allocate *a);
    ExecPtr free_stmt(const Free *f);
    ExecPtr parallel_for(const For *op);  // CompileParallel.cpp
    /** A loop's Exec run by fn: the min and extent as its exprs, the loop
     * variable's slot, the body as its one statement (serial and parallel
     * loops alike; fn reads them). */
    ExecPtr loop_exec(const For *op, ExecFn fn);
    /** Fills binding so that binding a host pointer computed by value also
     * records the region the pointer may address. */
    void handle_binding(const Expr &value, HandleBinding &binding);

private:
    NodePtr variable(const Variable *v);
    NodePtr let(const Let *l);

    std::map<std::string, std::vector<int>> scope_;
    std::vector<SlotInfo> slots_;
    int total_values_ = 0;
    const Store *shared_store_ = nullptr;  // a Store whose subexpressions are shared already
};

// Expression families, each in its own file.
NodePtr compile_arithmetic(Compiler &c, const Expr &e);  // Add..Not, Select
NodePtr compile_conversion(Compiler &c, const Expr &e);  // Cast, Reinterpret
NodePtr compile_vector(Compiler &c, const Expr &e);      // Ramp, Broadcast, Shuffle, VectorReduce
/** A scalar Int or UInt tree of Adds, Subs and Muls over variables and
 * constants as one node, or nullptr (CompilePolynomial.cpp). */
NodePtr compile_polynomial(Compiler &c, const Expr &e);

/** s with the work that does not change from one iteration of a loop to
 * the next (no loads, no calls, no names bound in the loop) computed once
 * in lets before the loop, integer sums regrouped for it
 * (HoistInvariants.cpp). arguments: the names bound around s. */
Stmt hoist_loop_invariant_work(const Stmt &s, const std::vector<std::string> &arguments);

/** st with what its value, index and predicate compute more than once
 * computed once, in LetStmts before it; st itself where nothing repeats,
 * and for an atomic update (ShareSubexpressions.cpp). */
Stmt share_store_subexpressions(const Store *st);

/** Gives every node and statement under root its place in Frame::scratch
 * and returns the lanes a Frame needs. A parent's lanes come first and its
 * children share the space after them, so the size is the deepest path's,
 * not the sum over the tree (a parallel loop makes a Frame per thread). */
int lay_out_scratch(Exec &root);
int lay_out_scratch(Node &root);

/** A node that throws InternalError with message when evaluated: used for
 * things that are only errors if the program actually reaches them. */
NodePtr make_thrower(Type t, const std::string &message);
NodePtr make_constant(Type t, const std::vector<Scalar> &lanes);

/** Whether n reads one lane of a slot (a scalar Variable): its value is
 * f.values[n.value_offset]. */
bool is_scalar_slot_read(const Node &n);
/** Whether n is a constant (its lanes are n.constants). */
bool is_constant(const Node &n);

/** How kid, the compiled scalar operand e, can be read in place; fills o.
 * Sums (of an Int type) only where `sums`. */
InPlaceForm in_place_form(const Expr &e, const Node &kid, bool sums, InPlaceOperand &o);

/** Records in frame.regions[slot] what the just-bound pointer may address. */
void apply_handle_binding(HandleBinding &binding, Frame &f, int slot);

/** The lanes of a value, formatted for print() and error messages. */
std::string format_value(Type t, const Scalar *lanes);

/** Throws InternalError; kept out of line so hot loops stay small. */
[[noreturn]] void fail(const std::string &message);

}  // namespace interp
}  // namespace internal
}  // namespace loom

#endif
