#ifndef LOOM_IR_IR_UTIL_H
#define LOOM_IR_IR_UTIL_H

/** \file
 * Small helpers for building and inspecting constants, used across the
 * compiler (not part of the public API).
 */

#include <optional>
#include <vector>

#include "ir/IR.h"

namespace loom {
namespace internal {

/** A constant of type t (broadcast if t is a vector), wrapped/rounded to t. */
Expr make_const(Type t, int64_t value);
Expr make_const(Type t, uint64_t value);
Expr make_const(Type t, double value);
inline Expr make_const(Type t, int value) { return make_const(t, (int64_t)value); }
Expr make_zero(Type t);
Expr make_one(Type t);
Expr make_bool(bool b, int lanes = 1);
Expr const_true(int lanes = 1);
Expr const_false(int lanes = 1);

/** A constant (IntImm, UIntImm, FloatImm, or a Broadcast of one). */
bool is_const(const Expr &e);
/** Whether e is undef() (intrinsic::undef), e.g. a pure definition's value. */
bool is_undef(const Expr &e);
/** A constant equal to value. */
bool is_const(const Expr &e, int64_t value);
bool is_const_zero(const Expr &e);
bool is_const_one(const Expr &e);
bool is_positive_const(const Expr &e);
bool is_negative_const(const Expr &e);
/** The value of a (scalar or broadcast) integer constant. */
std::optional<int64_t> as_const_int(const Expr &e);
std::optional<uint64_t> as_const_uint(const Expr &e);
std::optional<double> as_const_float(const Expr &e);

/** Whether loops of type t are GPU block or thread loops. */
bool is_gpu_loop(ForType t);

/** Whether loop op runs on the GPU: a block or thread loop, or a loop
 * given to a GPU device API (gpu_single_thread). */
bool runs_on_gpu(const For *op);

/** The call that s registers if s is Evaluate(cleanup_on_failure(call))
 * (see intrinsic::cleanup_on_failure), else undefined. */
Expr failure_cleanup(const Stmt &s);

/** Appends the statements of a chain of Blocks to out, in order, leaving
 * out undefined ones. */
void flatten_block(const Stmt &s, std::vector<Stmt> &out);

/** Whether evaluating e has no side effects and reads no mutable memory
 * other than through pure calls. */
bool is_pure(const Expr &e);

/** The number of nodes of e as a tree (shared subtrees counted each time),
 * counting no further than `limit`: a cheap test of "is e small". */
int expr_size(const Expr &e, int limit);

/** The Halide integer semantics on int64 values, for constant folding and the
 * interpreter: Euclidean division and modulus (the remainder is always in
 * [0, |b|), so division rounds toward -inf when b > 0 and up when b < 0),
 * and x/0 = x%0 = 0; INT64_MIN / -1 wraps to INT64_MIN. */
int64_t div_euclid(int64_t a, int64_t b);
int64_t mod_euclid(int64_t a, int64_t b);
/** The former name of div_euclid (it is Euclidean, not floor, for b < 0). */
inline int64_t div_floor(int64_t a, int64_t b) { return div_euclid(a, b); }
/** Wraps value to the width of an integer type (sign-extends for Int). */
int64_t wrap_int(Type t, int64_t value);
uint64_t wrap_uint(Type t, uint64_t value);

}  // namespace internal
}  // namespace loom

#endif
