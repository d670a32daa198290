// Min and Max: folding, decisions from bounds (a <= b proves min(a, b) == a),
// nesting with constants, absorption (max(min(x, y), x) -> x) and common
// constant offsets.

#include <cmath>

#include "ir/IREquality.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {
namespace simplify_impl {

namespace {

Expr make_min_max(const Expr &a, const Expr &b, bool is_max) { return is_max ? Max::make(a, b) : Min::make(a, b); }

/** Most operands of a min (max) chain compared pairwise: enough for the
 * chains that unions of region endpoints build, and quadratic cost stays
 * small. */
constexpr size_t kMaxChainOperands = 16;

/** Appends the operands of a nest of mins (or maxes) of one kind to ops, in
 * order; false when there are more than kMaxChainOperands. */
bool flatten_chain(const Expr &e, bool is_max, std::vector<Expr> &ops) {
    Expr x, y;
    if (!match_min_max(e, is_max, x, y)) {
        ops.push_back(e);
        return ops.size() <= kMaxChainOperands;
    }
    return flatten_chain(x, is_max, ops) && flatten_chain(y, is_max, ops);
}

/** Removes the operands of a min (max) chain that another operand makes
 * redundant because the two differ by a constant (x + 2 never wins a min
 * against x). Only constant differences of Int(32)/Int(64) linear forms are
 * used: no bounds, so the cost is linear in the operands' size and needs no
 * symbolic fallback. Unions of region endpoints build such chains, one
 * operand per call site: min(min(min(12 - y, 2), 14 - y), 12 - y). Returns
 * whether any operand was removed. */
bool drop_dominated_operands(std::vector<Expr> &ops, bool is_max) {
    std::vector<LinearForm> forms;
    forms.reserve(ops.size());
    for (const Expr &e : ops) forms.push_back(linear_form(e));
    std::vector<bool> dropped(ops.size(), false);
    bool any = false;
    for (size_t i = 0; i < ops.size(); i++) {
        for (size_t j = i + 1; j < ops.size() && !dropped[i]; j++) {
            if (dropped[j]) continue;
            LinearForm d = forms[i];
            d.add_form(forms[j], -1);
            d.compact();
            if (!d.terms.empty()) continue;
            // ops[i] - ops[j] == d.constant: drop the one that never wins
            // (the later one when they are equal).
            const bool i_loses = is_max ? d.constant < 0 : d.constant > 0;
            if (i_loses) {
                dropped[i] = true;
            } else {
                dropped[j] = true;
            }
            any = true;
        }
    }
    if (!any) return false;
    std::vector<Expr> kept;
    for (size_t i = 0; i < ops.size(); i++) {
        if (!dropped[i]) kept.push_back(ops[i]);
    }
    ops = std::move(kept);
    return true;
}

}  // namespace

Expr Simplifier::visit(const Min *op) { return simplify_min_max(mutate(op->a), mutate(op->b), false); }
Expr Simplifier::visit(const Max *op) { return simplify_min_max(mutate(op->a), mutate(op->b), true); }

Expr Simplifier::simplify_min_max(const Expr &a, const Expr &b, bool is_max) {
    Type t = a.type();
    const auto *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    if (ba && bb && same_shape(ba, bb))
        return Broadcast::make(simplify_min_max(ba->value, bb->value, is_max), ba->lanes);
    if (t.is_float()) {
        auto fa = const_float(a), fb = const_float(b);
        if (fa && fb && !std::isnan(*fa) && !std::isnan(*fb)) {
            return float_const(t, is_max ? std::max(*fa, *fb) : std::min(*fa, *fb));
        }
        // Not commuted: float min/max return a when the comparison fails, so
        // the order matters for NaN and for 0.0 vs -0.0.
        if (identical(a, b)) return a;
        return make_min_max(a, b, is_max);
    }
    if (!t.is_int_or_uint()) return make_min_max(a, b, is_max);

    auto ca = const_int(a), cb = const_int(b);
    if (ca && cb) return fold_lt(t, *ca, *cb) != is_max ? a : b;
    if (ca) return simplify_min_max(b, a, is_max);
    if (identical(a, b)) return a;

    // Operands of a chain that another operand dominates by a constant go
    // first: cheap, and each one dropped is a comparison diff_range would
    // otherwise try to decide from bounds.
    if (no_overflow(t) && (is_max ? a.as<Max>() || b.as<Max>() : a.as<Min>() || b.as<Min>())) {
        std::vector<Expr> ops;
        if (flatten_chain(a, is_max, ops) && flatten_chain(b, is_max, ops) && drop_dominated_operands(ops, is_max)) {
            if (ops.size() == 1) return ops[0];
            Expr rest = ops[0];
            for (size_t i = 1; i + 1 < ops.size(); i++) rest = make_min_max(rest, ops[i], is_max);
            return simplify_min_max(rest, ops.back(), is_max);
        }
    }

    DiffRange d = diff_range(a, b);
    if (d.hi && *d.hi <= 0) return is_max ? b : a;  // a <= b
    if (d.lo && *d.lo >= 0) return is_max ? a : b;  // a >= b

    Expr ax, ay, bx, by;
    bool a_same = match_min_max(a, is_max, ax, ay);
    bool b_same = match_min_max(b, is_max, bx, by);
    Expr ox, oy, px, py;
    bool a_other = match_min_max(a, !is_max, ox, oy);
    bool b_other = match_min_max(b, !is_max, px, py);

    // min(min(x, c1), c2) -> min(x, min(c1, c2))
    if (a_same && cb) {
        if (auto c1 = const_int(ay)) {
            int64_t c = fold_lt(t, *c1, *cb) != is_max ? *c1 : *cb;
            return simplify_min_max(ax, int_const(t, c), is_max);
        }
    }
    // min(a, max(a, y)) -> a and min(max(a, y), a) -> a
    if (b_other && (identical(px, a) || identical(py, a))) return a;
    if (a_other && (identical(ox, b) || identical(oy, b))) return b;
    // min(a, min(a, y)) -> min(a, y)
    if (b_same && (identical(bx, a) || identical(by, a))) return b;
    if (a_same && (identical(ax, b) || identical(ay, b))) return a;

    // min(x + c, y + c) -> min(x, y) + c
    if (no_overflow(t)) {
        LinearForm fa = linear_form(a), fb = linear_form(b);
        if (fa.constant != 0 && fa.constant == fb.constant && !fa.terms.empty() && !fb.terms.empty()) {
            int64_t c = fa.constant;
            fa.constant = 0;
            fb.constant = 0;
            return simplify_add(simplify_min_max(rebuild(fa), rebuild(fb), is_max), int_const(t, c));
        }
    }
    return make_min_max(a, b, is_max);
}

}  // namespace simplify_impl
}  // namespace internal
}  // namespace loom
