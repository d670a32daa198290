#ifndef LOOM_IR_SIMPLIFY_SIMPLIFY_INTERNAL_H
#define LOOM_IR_SIMPLIFY_SIMPLIFY_INTERNAL_H

/** \file
 * The simplifier's shared internals. Not part of any public API.
 *
 * How the simplifier is organised
 * -------------------------------
 * `Simplifier` is an IRMutator. Each visit() simplifies the node's children
 * first (so every rule sees simplified operands) and then hands them to a
 * *builder*: simplify_add(a, b), simplify_div(a, b), simplify_cmp(kind, a, b),
 * ... A builder takes already simplified operands and returns the simplest
 * expression it can prove equal to `a op b`. Rules that produce new
 * operations call builders again, always on smaller or more canonical
 * operands, so rewriting terminates. One file per family of node kinds:
 *
 *   Simplify.cpp          entry points, scopes, variables, the bound facts
 *                         used to decide comparisons (diff_range)
 *   Simplify_Const.cpp    constants: reading, making, folding with Loom's
 *                         integer semantics
 *   Simplify_Info.cpp     ExprInfo: constant bounds and alignment (value %
 *                         modulus == remainder) of an expression
 *   Simplify_Linear.cpp   LinearForm: a sum of terms times constant
 *                         coefficients plus a constant; the canonical form of
 *                         integer Add/Sub/Mul-by-constant
 *   Simplify_Add/Sub/Mul/DivMod/MinMax/Compare/Logic/Select/Cast.cpp
 *   Simplify_Call.cpp     calls (intrinsic folding), Ramp, Broadcast
 *   Simplify_Let.cpp      Let and LetStmt (substitution of cheap values,
 *                         see ir/Simplify.h; dead lets)
 *   Simplify_Stmt.cpp     the other statements (loops, branches, blocks...)
 *
 * Canonical forms: constants on the right of commutative operators; integer
 * sums are rebuilt from their LinearForm as `positive terms - negative terms
 * + constant` (so a - 3 becomes a + -3, (x + 3) + 4 becomes x + 7); GT/GE are
 * turned into LT/LE with swapped operands; comparisons of Int(32)/Int(64)
 * move every term to the side where its coefficient is positive.
 *
 * Integer semantics. Int(32) and Int(64) arithmetic is assumed not to
 * overflow (as in Halide), which licenses rules such as x + 1 > x -> true,
 * (x*4)/2 -> x*2 and cancelling terms across a comparison. Every other
 * integer type wraps: sums are still collected (ring arithmetic is exact
 * modulo 2^bits) but orderings are only decided from bounds, and division
 * rules are limited to what holds after wrapping. Float arithmetic is only
 * folded on constants and simplified by exact identities; it is never
 * reassociated.
 *
 * What is known about variables: var_info_ holds constant bounds and
 * alignment (from the caller's Scope<Interval>, For loops, Lets and the
 * conditions of IfThenElse); symbolic_bounds_ holds intervals that are not
 * constant (e.g. a loop over [0, n - 1]); comparisons that constant facts
 * cannot decide fall back to bounds_of_expr_in_scope over those intervals.
 */

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/IR.h"
#include "ir/IRMutator.h"
#include "ir/Interval.h"
#include "ir/Scope.h"

namespace loom {
namespace internal {
namespace simplify_impl {

// ------------------------------------------------------------ work counters

/** What the simplifier did on this thread: a measure of its cost that tests
 * can check without timing anything (a pass that stops asking for symbolic
 * fallbacks, say). Monotonic; compare two readings. */
struct SimplifierCounters {
    /** Symbolic fallbacks run: bounds inference on a - b (diff_range). */
    uint64_t symbolic_fallbacks = 0;
    /** Interval arithmetic those fallbacks ran (the rest were answered from
     * the fallback's memory of identical questions). */
    uint64_t fallback_bounds_computed = 0;
};
SimplifierCounters &simplifier_counters();

/** While one is alive, simplification on this thread decides comparisons
 * and min/max from constant facts, alignment and linear forms only, without
 * the symbolic fallback (interval arithmetic over the symbolic bounds of
 * lets and loops). Nested uses count. */
class WithoutSymbolicFallback {
public:
    WithoutSymbolicFallback();
    ~WithoutSymbolicFallback();
    WithoutSymbolicFallback(const WithoutSymbolicFallback &) = delete;
    WithoutSymbolicFallback &operator=(const WithoutSymbolicFallback &) = delete;
};

// ------------------------------------------------------------ constants

/** Whether signed overflow of t is assumed never to happen (Int(32), Int(64)). */
inline bool no_overflow(Type t) { return t.is_int() && t.bits() >= 32; }

/** The bits of an integer constant (IntImm, UIntImm or a Broadcast of one):
 * signed values sign-extended, unsigned values zero-extended (so a UInt(64)
 * value above INT64_MAX reads as a negative int64). */
std::optional<int64_t> const_int(const Expr &e);
std::optional<double> const_float(const Expr &e);
/** Whether e is an int, uint or float constant (or a Broadcast of one). */
bool is_constant(const Expr &e);
/** A scalar or broadcast constant of type t from the given bits (wrapped). */
Expr int_const(Type t, int64_t bits);
Expr float_const(Type t, double value);
Expr bool_const(bool value, int lanes = 1);
/** A scalar constant (IntImm/UIntImm/FloatImm/bool) whose value is true/false. */
std::optional<bool> const_bool(const Expr &e);

/** Wraps v to the width of t and sign-extends it, whatever t's signedness:
 * the representative used for coefficients of linear forms. */
int64_t normalize_signed(Type t, int64_t v);
/** Wraps v to the width of t: sign-extends for Int, zero-extends for UInt. */
int64_t wrap_to(Type t, int64_t v);

/** Integer folding on constant bits of type t (Loom semantics: division and
 * modulus are Euclidean, x / 0 == x % 0 == 0; results wrapped).
 * Sums need no folder: LinearForm collects constants. */
int64_t fold_mul(Type t, int64_t a, int64_t b);
int64_t fold_div(Type t, int64_t a, int64_t b);
int64_t fold_mod(Type t, int64_t a, int64_t b);
/** a < b in t's signedness. */
bool fold_lt(Type t, int64_t a, int64_t b);

/** Loom's division and modulus on int64: Euclidean, so the remainder is in
 * [0, |b|) and a / b rounds down for b > 0 but UP for b < 0 (7 / -2 == -3);
 * x / 0 == x % 0 == 0; INT64_MIN / -1 wraps. Use these for anything that
 * models a Div or Mod node. */
int64_t euclid_div(int64_t a, int64_t b);
int64_t euclid_mod(int64_t a, int64_t b);
/** Mathematical floor(a / b) for any sign of b (b == 0 gives 0): NOT Loom's
 * division when b < 0. For reasoning such as dividing an inequality by a
 * positive factor. */
int64_t floor_div(int64_t a, int64_t b);
int64_t gcd64(int64_t a, int64_t b);

/** Structural equality that also tells 0.0 from -0.0 (ir/IREquality's
 * equal() treats them as the same constant, but they are different values). */
bool identical(const Expr &a, const Expr &b);

/** Whether every value of `inner` is exactly representable in `outer`. */
bool holds_every_value(Type outer, Type inner);

/** The smallest and largest value of an integer type, when they fit in int64
 * (inline: the bounds analysis asks for them at every node). */
inline std::optional<int64_t> type_min(Type t) {
    if (t.is_uint()) return 0;
    if (t.is_int()) return t.bits() >= 64 ? INT64_MIN : -(int64_t(1) << (t.bits() - 1));
    return std::nullopt;
}
inline std::optional<int64_t> type_max(Type t) {
    if (t.is_uint()) {
        if (t.bits() >= 64) return std::nullopt;
        return (int64_t)((uint64_t(1) << t.bits()) - 1);
    }
    if (t.is_int()) return t.bits() >= 64 ? INT64_MAX : (int64_t(1) << (t.bits() - 1)) - 1;
    return std::nullopt;
}

/** Two broadcasts of the same lane count and value type. */
inline bool same_shape(const Broadcast *a, const Broadcast *b) {
    return a->lanes == b->lanes && a->value.type() == b->value.type();
}

// ------------------------------------------------------------ ExprInfo

/** What is known about an integer expression's value (every lane): it lies in
 * [min, max] (an absent side is unbounded) and value % modulus == remainder. */
struct ExprInfo {
    std::optional<int64_t> min, max;
    int64_t modulus = 1, remainder = 0;

    static ExprInfo constant(int64_t v) {
        ExprInfo i;
        i.min = i.max = v;
        i.modulus = 0;  // 0: exact value is `remainder`
        i.remainder = v;
        return i;
    }
    bool is_constant() const { return min && max && *min == *max; }
    bool bounded() const { return min && max; }
};

ExprInfo info_of_type(Type t);
/** Keeps what survives wrapping to t (or, for Int(32)/Int(64), clamps). */
ExprInfo fit_to_type(Type t, ExprInfo i);
/** What survives wrapping the exact value to t (for casts, which wrap
 * whatever the type). */
ExprInfo wrap_to_type(Type t, ExprInfo i);
ExprInfo info_add(const ExprInfo &a, const ExprInfo &b);
ExprInfo info_sub(const ExprInfo &a, const ExprInfo &b);
ExprInfo info_mul(const ExprInfo &a, const ExprInfo &b);
ExprInfo info_div(const ExprInfo &a, const ExprInfo &b);
ExprInfo info_mod(const ExprInfo &a, const ExprInfo &b);
ExprInfo info_min(const ExprInfo &a, const ExprInfo &b);
ExprInfo info_max(const ExprInfo &a, const ExprInfo &b);
ExprInfo info_union(const ExprInfo &a, const ExprInfo &b);
ExprInfo info_intersect(const ExprInfo &a, const ExprInfo &b);

// ------------------------------------------------------------ linear forms

/** sum(coef_i * term_i) + constant over an integer type; coefficients and the
 * constant are kept normalized (see normalize_signed). */
struct LinearForm {
    struct Term {
        Expr expr;
        int64_t coef;
    };
    Type type;
    std::vector<Term> terms;
    int64_t constant = 0;

    explicit LinearForm(Type t) : type(t) {}
    void add_term(const Expr &e, int64_t coef);
    void add_constant(int64_t c);
    /** this += scale * other. */
    void add_form(const LinearForm &other, int64_t scale);
    void scale_by(int64_t s);
    /** Drops terms whose coefficient became zero. */
    void compact();
    bool is_constant() const;
};

/** If e is a min (is_max false) or max (is_max true), its operands. */
bool match_min_max(const Expr &e, bool is_max, Expr &x, Expr &y);

/** Decomposes an (already simplified) integer expression into a linear form. */
LinearForm linear_form(const Expr &e);
/** The canonical expression of a linear form. */
Expr rebuild(const LinearForm &f);
/** Coefficient gcd of the terms (0 when there are none). */
int64_t terms_gcd(const LinearForm &f);

// ------------------------------------------------------------ the mutator

/** The range of a - b, in exact (unwrapped) integer arithmetic, and whether
 * a - b is known to be nonzero. */
struct DiffRange {
    std::optional<int64_t> lo, hi;
    bool nonzero = false;
};

class Simplifier : public IRMutator {
public:
    explicit Simplifier(const Scope<Interval> &bounds);
    using IRMutator::mutate;

    // Builders: operands are already simplified.
    Expr simplify_add(const Expr &a, const Expr &b);
    Expr simplify_sub(const Expr &a, const Expr &b);
    Expr simplify_mul(const Expr &a, const Expr &b);
    Expr simplify_div(const Expr &a, const Expr &b);
    Expr simplify_mod(const Expr &a, const Expr &b);
    Expr simplify_min_max(const Expr &a, const Expr &b, bool is_max);
    /** kind is one of EQ, NE, LT, LE, GT, GE. */
    Expr simplify_cmp(IRNodeType kind, const Expr &a, const Expr &b);
    Expr simplify_and(const Expr &a, const Expr &b);
    Expr simplify_or(const Expr &a, const Expr &b);
    Expr simplify_not(const Expr &a);
    Expr simplify_select(const Expr &c, const Expr &t, const Expr &f);
    Expr simplify_cast(Type t, const Expr &v);

    /** Constant bounds and alignment of a simplified expression. */
    ExprInfo info_of(const Expr &e);
    /** Bounds of a - b for integer operands, using every fact known. */
    /** min/max(a, b) + c as min/max(a + c, b + c) where that cancels terms
     * (Simplify_Add.cpp); undefined where it does not. */
    Expr push_into_min_max(const LinearForm &f);
    /** min(a + c1, b + c2) - min(a, b) (and max) as a clamp of b - a, where
     * f holds such a pair of terms (Simplify_Sub.cpp); undefined where it
     * does not. */
    Expr difference_of_min_max(const LinearForm &f);
    /** a / b where b is not a constant (Simplify_DivMod.cpp). */
    Expr simplify_div_by_symbol(const Expr &a, const Expr &b);
    DiffRange diff_range(const Expr &a, const Expr &b);

protected:
    Expr visit(const Cast *op) override;
    Expr visit(const Reinterpret *op) override;
    Expr visit(const Variable *op) override;
    Expr visit(const Add *op) override;
    Expr visit(const Sub *op) override;
    Expr visit(const Mul *op) override;
    Expr visit(const Div *op) override;
    Expr visit(const Mod *op) override;
    Expr visit(const Min *op) override;
    Expr visit(const Max *op) override;
    Expr visit(const EQ *op) override;
    Expr visit(const NE *op) override;
    Expr visit(const LT *op) override;
    Expr visit(const LE *op) override;
    Expr visit(const GT *op) override;
    Expr visit(const GE *op) override;
    Expr visit(const And *op) override;
    Expr visit(const Or *op) override;
    Expr visit(const Not *op) override;
    Expr visit(const Select *op) override;
    Expr visit(const Ramp *op) override;
    Expr visit(const Broadcast *op) override;
    Expr visit(const Call *op) override;
    Expr visit(const Let *op) override;

    Stmt visit(const LetStmt *op) override;
    Stmt visit(const AssertStmt *op) override;
    Stmt visit(const ProducerConsumer *op) override;
    Stmt visit(const For *op) override;
    Stmt visit(const While *op) override;
    Stmt visit(const Allocate *op) override;
    Stmt visit(const Realize *op) override;
    Stmt visit(const Block *op) override;
    Stmt visit(const IfThenElse *op) override;
    Stmt visit(const Evaluate *op) override;

private:
    ExprInfo info_of_node(const Expr &e);
    ExprInfo info_of_call(const Call *op);
    ExprInfo info_of_cast(const Cast *op);
    Expr simplify_int_cmp(IRNodeType kind, const Expr &a, const Expr &b);
    /** Whether every lane of r lies in the same block [q*|k|, (q+1)*|k|) as
     * its base, by the base's alignment or bounds (Int(32)/Int(64) only). */
    bool ramp_in_one_block(const Ramp *r, int64_t k);
    Expr fold_intrinsic(const Call *op, const std::vector<Expr> &args);
    /** Bounds of a - b from symbolic_bounds_ (loops over [0, n - 1]...). */
    void refine_with_symbolic_bounds(const Expr &a, const Expr &b, DiffRange &r);
    /** f with each let-bound name replaced by its value (one level), kept
     * only when that makes it a constant: `x - v` where `let x = v` is 0. */
    void substitute_let_values(LinearForm &f) const;
    bool uses_symbolic_var(const Expr &e) const;
    /** Pushes what `cond == truth` tells about variables; returns the names
     * pushed (pop them with forget_facts). */
    std::vector<std::string> learn_facts(const Expr &cond, bool truth);
    void forget_facts(const std::vector<std::string> &names);
    /** Whether a let of this (simplified) value is substituted into body. */
    template<typename Body>
    bool should_substitute(const std::string &name, const Expr &value, const Body &body);
    /** Whether a Let/LetStmt/For inside body may bind `name` again. */
    template<typename Body>
    bool may_be_rebound(const std::string &name, const Body &body);
    /** let name = value (already simplified) in body (not yet simplified). */
    Stmt simplify_let_stmt(const std::string &name, const Expr &value, const Stmt &body, const LetStmt *orig);

public:
    // Scopes, shared by the files of the simplifier.
    Scope<ExprInfo> var_info_;
    Scope<Interval> symbolic_bounds_;
    /** Variables replaced by a constant or another variable (let substitution);
     * an undefined Expr shadows an outer replacement. */
    Scope<Expr> replacements_;

    /** How often each name is bound (Let, LetStmt, For) in the whole input,
     * counted once by the entry point; see may_be_rebound. */
    void count_binders(const Expr &e);
    void count_binders(const Stmt &s);

    /** Binds `name` for the duration of a Let/LetStmt/For body: its info, its
     * symbolic interval (if not constant) and its replacement (if any). A
     * fact (is_fact) narrows what is known about the same variable instead
     * of binding a new one. */
    void push_var(const std::string &name, const ExprInfo &info, const Interval &symbolic, const Expr &replacement,
                  bool is_fact = false);
    void pop_var(const std::string &name);

private:
    /** What push_var did, so pop_var undoes exactly that. */
    struct PushRecord {
        bool pushed_symbolic = false;
        std::vector<std::string> refs;  // variables the pushed interval mentions
        bool blocks_fallback = false;
        bool binder = false;  // a Let/LetStmt/For, not a fact
    };
    std::optional<std::map<std::string, int>> binder_counts_;
    /** info_of of inner nodes while var_info_ is unchanged; the Expr keeps
     * the node alive so its address is not reused. */
    struct CachedInfo {
        Expr expr;
        ExprInfo info;
    };
    std::unordered_map<const void *, CachedInfo> info_cache_;
    /** The binders (Let/LetStmt/For) being simplified, by name. */
    std::map<std::string, int> active_binders_;
    Scope<PushRecord> pushed_;
    /** How many active symbolic intervals mention each variable. Binding such
     * a name anew would change what those intervals mean (capture), so the
     * symbolic fallback is off while fallback_blocked_ > 0. */
    std::map<std::string, int> symbolic_refs_;
    int fallback_blocked_ = 0;
};

/** A no-op statement (what removed statements become). */
Stmt make_no_op();
bool is_no_op(const Stmt &s);
/** Whether any Let/LetStmt/For inside e or s binds `name` (used to avoid
 * capturing a substituted variable). */
bool binds_name(const Expr &e, const std::string &name);
bool binds_name(const Stmt &s, const std::string &name);

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom

#endif
