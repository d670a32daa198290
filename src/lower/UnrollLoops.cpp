#include "lower/UnrollLoops.h"

#include <optional>
#include <sstream>

#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "lower/LoopNames.h"
#include "lower/StageLoopNest.h"

namespace loom {
namespace internal {

namespace {

// More copies than this is almost certainly a schedule mistake, and would
// make code generation crawl.
constexpr int64_t kMaxUnroll = 4096;

const char *kMarkerSuffix = ".unroll_cascade";

bool is_cascade_marker(const std::string &name) {
    const std::string suffix = kMarkerSuffix;
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<int> cascade_factors(const Expr &marker) {
    std::vector<int> factors;
    if (auto c = as_const_int(marker)) {
        factors.push_back((int)*c);
    } else if (const auto *s = marker.as<Shuffle>()) {
        for (const Expr &v : s->vectors) {
            auto c = as_const_int(v);
            if (!c) throw InternalError("unroll cascade marker holds a non-constant");
            factors.push_back((int)*c);
        }
    } else {
        throw InternalError("unroll cascade marker of an unexpected form");
    }
    for (int f : factors) {
        if (f <= 0) throw InternalError("unroll cascade factor is not positive");
    }
    if (factors.back() != 1) factors.push_back(1);
    return factors;
}

std::string to_text(const Expr &e) {
    std::ostringstream s;
    s << e;
    return s.str();
}

Expr int_var(const std::string &name, Type t) { return Variable::make(t, name); }

/** count copies of body with var = base + i. */
Stmt unrolled_copies(const std::string &var, const Expr &base, int64_t count, const Stmt &body) {
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < count; i++) {
        Expr value = i == 0 ? base : Add::make(base, make_const(base.type(), i));
        copies.push_back(substitute(var, value, body));
    }
    if (copies.empty()) return Evaluate::make(Expr(0));
    return Block::make(copies);
}

/** Expressions each at least (upper) or at most (!upper) e, made by
 * replacing a min (for an upper bound; a max for a lower one) by one of its
 * operands where e grows with it: (min(8 * o, m) + 1) / 8 - o + 1 is at most
 * (8 * o + 1) / 8 - o + 1, which simplifies to 1. At most kMaxBounds. */
constexpr size_t kMaxBounds = 16;

std::vector<Expr> one_sided_bounds(const Expr &e, bool upper) {
    auto combine = [&](const std::vector<Expr> &as, const std::vector<Expr> &bs, auto make) {
        std::vector<Expr> out;
        for (const Expr &a : as) {
            for (const Expr &b : bs) {
                if (out.size() < kMaxBounds) out.push_back(make(a, b));
            }
        }
        return out;
    };
    const Min *mn = upper ? e.as<Min>() : nullptr;
    const Max *mx = upper ? nullptr : e.as<Max>();
    if (mn || mx) {  // either operand bounds it on this side
        std::vector<Expr> out = one_sided_bounds(mn ? mn->a : mx->a, upper);
        for (const Expr &x : one_sided_bounds(mn ? mn->b : mx->b, upper)) {
            if (out.size() < kMaxBounds) out.push_back(x);
        }
        return out;
    }
    if (const Add *a = e.as<Add>()) {
        return combine(one_sided_bounds(a->a, upper), one_sided_bounds(a->b, upper),
                       [](const Expr &x, const Expr &y) { return Add::make(x, y); });
    }
    if (const Sub *s = e.as<Sub>()) {
        return combine(one_sided_bounds(s->a, upper), one_sided_bounds(s->b, !upper),
                       [](const Expr &x, const Expr &y) { return Sub::make(x, y); });
    }
    if (const Div *d = e.as<Div>()) {
        if (auto c = as_const_int(d->b); c && *c > 0) {
            std::vector<Expr> out;
            for (const Expr &x : one_sided_bounds(d->a, upper)) out.push_back(Div::make(x, d->b));
            return out;
        }
    }
    return {e};
}

class UnrollLoops : public IRMutator {
protected:
    using IRMutator::visit;

    Stmt visit(const LetStmt *op) override {
        if (is_cascade_marker(op->name)) {
            const std::string loop = op->name.substr(0, op->name.size() - std::string(kMarkerSuffix).size());
            const For *f = op->body.as<For>();
            if (f && f->name == loop && f->for_type == ForType::Unrolled) return cascade(f, cascade_factors(op->value));
            return mutate(op->body);  // a marker that lost its loop means nothing
        }
        ScopedBinding<Expr> bind(lets_, op->name, op->value);
        return IRMutator::visit(op);
    }

    Stmt visit(const For *op) override {
        if (op->for_type != ForType::Unrolled) return IRMutator::visit(op);
        Stmt body = mutate(op->body);
        auto n = bounded_extent(op, lets_, body);
        if (!n) {
            throw CompileError("Can't unroll " + describe_loop(op->name) + ": its extent (" +
                               to_text(resolve_through_lets(op->extent, lets_)) +
                               ") is not a constant, nor bounded by one. Split it by a constant factor and unroll "
                               "the inner loop, or unroll it with a cascade of block sizes (e.g. {8, 4, 1}).");
        }
        if (*n > kMaxUnroll) {
            throw CompileError("Can't unroll " + describe_loop(op->name) + ": it has " + std::to_string(*n) +
                               " iterations, more than " + std::to_string(kMaxUnroll) +
                               ". Split it and unroll the inner loop.");
        }
        return with_base(op->name, op->min, [&](const Expr &base) { return unrolled_copies(op->name, base, *n, body); });
    }

private:
    /** Binds a loop min that is not trivial to a name, so copies share it. */
    template<typename F>
    Stmt with_base(const std::string &loop, const Expr &min, F make) {
        if (min.as<Variable>() || is_const(min)) return make(min);
        const std::string name = loop + ".unroll_base";
        return LetStmt::make(name, min, make(int_var(name, min.type())));
    }

    /** Whether extent is always less than f. */
    static bool never_reaches(const Expr &extent, int f) {
        const Expr bound = make_const(extent.type(), f);
        for (const Expr &e : one_sided_bounds(extent, true)) {
            if (can_prove(LT::make(e, bound))) return true;
        }
        return false;
    }

    /** Blocks of factors[0] unrolled iterations while that many remain,
     * then blocks of factors[1], ..., then single iterations. */
    Stmt cascade(const For *op, const std::vector<int> &factors) {
        Stmt body = mutate(op->body);
        const Type t = op->min.type();
        const std::string start_name = op->name + ".cascade_start";
        const std::string end_name = op->name + ".cascade_end";
        // A negative extent runs nothing.
        Expr end = Add::make(int_var(start_name, t), Max::make(op->extent, make_zero(t)));
        std::vector<Stmt> parts;
        std::vector<std::pair<std::string, Expr>> lets = {{start_name, op->min}, {end_name, end}};
        Expr start = int_var(start_name, t);
        // A block larger than the loop's largest extent never runs: leave it
        // out (fuzz seed 1001848: in0_bc's rows are split by 8 and unrolled
        // {4, 2, 1}, but a tile asks 2 rows, so only the single iterations
        // run; their blocks of 4 and 2 were 6 of every 7 copies).
        const Expr extent = resolve_through_lets(op->extent, lets_);
        for (size_t k = 0; k < factors.size(); k++) {
            const int f = factors[k];
            if (f != 1 && never_reaches(extent, f)) continue;
            Expr remaining = Sub::make(int_var(end_name, t), start);
            if (f == 1) {
                parts.push_back(For::make(op->name, start, remaining, ForType::Serial, op->device_api, body));
                break;
            }
            const std::string block = op->name + ".block" + std::to_string(f);
            const std::string count = block + ".count", next = block + ".end";
            lets.emplace_back(count, Div::make(remaining, make_const(t, f)));
            Expr base = Add::make(start, Mul::make(int_var(block, t), make_const(t, f)));
            Stmt copies = with_base(block, base, [&](const Expr &b) { return unrolled_copies(op->name, b, f, body); });
            parts.push_back(For::make(block, make_zero(t), int_var(count, t), ForType::Serial, op->device_api, copies));
            lets.emplace_back(next, Add::make(start, Mul::make(int_var(count, t), make_const(t, f))));
            start = int_var(next, t);
        }
        Stmt result = Block::make(parts);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) result = LetStmt::make(it->first, it->second, result);
        return result;
    }

    Scope<Expr> lets_;
};

}  // namespace

Stmt unroll_loops(const Stmt &s) { return UnrollLoops().mutate(s); }

}  // namespace internal
}  // namespace loom
