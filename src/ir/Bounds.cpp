// Interval arithmetic over Exprs (bounds_of_expr_in_scope). The boxes of
// Funcs and input buffers that IR touches are in BoxesTouched.cpp.
//
// Bounds on constants are computed exactly (in 128 bits) so that a bound is
// never a wrapped value: Int(32)/Int(64) are assumed not to overflow and are
// clamped to their type; every other integer type wraps, and a result that
// may wrap becomes the whole range of the type.

#include "ir/Bounds.h"

#include <atomic>
#include <cmath>
#include <set>
#include <numeric>

#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/ModulusRemainder.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "ir/simplify/SimplifyInternal.h"

namespace loom {
namespace internal {

using namespace simplify_impl;

namespace {

/** Whether e loads from memory or calls a Func or buffer. */
bool reads_memory(const Expr &e) {
    struct Reads : IRGraphVisitor {
        bool found = false;
        using IRGraphVisitor::visit;
        void visit(const Load *) override { found = true; }
        void visit(const Call *op) override {
            found = found || op->call_type == CallType::Func || op->call_type == CallType::Image ||
                    op->call_type == CallType::Extern;
            IRGraphVisitor::visit(op);
        }
    } reads;
    reads.include(e);
    return reads.found;
}

/** The Func value bounds in force on this thread (WithFuncValueBounds). */
thread_local const FuncValueBounds *current_func_value_bounds = nullptr;

bool is_wrapping(Type t) { return t.is_int_or_uint() && !no_overflow(t); }

/** The values of a type as an interval. Int(32)/Int(64) and floats are
 * unbounded: an extreme constant of a non-wrapping type would wrap when
 * later combined with symbolic bounds (INT32_MAX + 4 - f(x)). */
Interval type_range(Type t) {
    t = t.element_of();
    if (t.is_bool()) return Interval(bool_const(false), bool_const(true));
    if (no_overflow(t)) return Interval::everything();
    if (t.is_int_or_uint() && t.bits() <= 32) return Interval(int_const(t, *type_min(t)), int_const(t, *type_max(t)));
    if (t.is_uint()) return Interval(int_const(t, 0), Expr());
    return Interval::everything();
}

/** Loads and calls of wide types may hold anything. */
Interval range_of_unknown_value(Type t) {
    if (t.is_bool() || (t.bits() <= 16 && t.is_int_or_uint())) return type_range(t);
    return Interval::everything();
}

Expr zero_of(Type t) { return int_const(t.element_of(), 0); }

/** Arithmetic on interval endpoints of scalar type t. */
struct EndpointArith {
    Type t;
    bool may_wrap = false;  // set when a wrapping type's result may have wrapped

    Expr combine(char op, const Expr &a, const Expr &b) {
        if (!a.defined() || !b.defined()) return Expr();
        if (t.is_int_or_uint()) {
            auto ca = const_int(a), cb = const_int(b);
            bool representable = ca && cb && !(t.is_uint() && (*ca < 0 || *cb < 0));
            if (representable) {
                __int128 x = *ca, y = *cb;
                __int128 r = op == '+' ? x + y : op == '-' ? x - y : x * y;
                __int128 lo = *type_min(t), hi = type_max(t) ? *type_max(t) : INT64_MAX;
                if (r < lo || r > hi) {
                    if (!no_overflow(t)) {
                        may_wrap = true;
                        return Expr();
                    }
                    r = r < lo ? lo : hi;  // Int(32)/Int(64) do not overflow: clamp
                }
                return int_const(t, (int64_t)r);
            }
            if (!no_overflow(t)) may_wrap = true;
        }
        Expr e = op == '+' ? Add::make(a, b) : op == '-' ? Sub::make(a, b) : Mul::make(a, b);
        return simplify(e);
    }
    /** Loom's (Euclidean) division; only INT_MIN / -1 can leave the type. */
    Expr div(const Expr &a, const Expr &b) {
        if (!a.defined() || !b.defined()) return Expr();
        if (t.is_int() && !no_overflow(t)) {
            auto ca = const_int(a), cb = const_int(b);
            if (ca && cb) {
                if (*cb == -1 && *ca == *type_min(t)) {
                    may_wrap = true;
                    return Expr();
                }
            } else if (!cb || *cb == -1) {
                may_wrap = true;
            }
        }
        return simplify(Div::make(a, b));
    }
    Expr add(const Expr &a, const Expr &b) { return combine('+', a, b); }
    Expr sub(const Expr &a, const Expr &b) { return combine('-', a, b); }
    Expr mul(const Expr &a, const Expr &b) { return combine('*', a, b); }
};

Expr smin(const Expr &a, const Expr &b) { return (a.defined() && b.defined()) ? simplify(Min::make(a, b)) : Expr(); }
Expr smax(const Expr &a, const Expr &b) { return (a.defined() && b.defined()) ? simplify(Max::make(a, b)) : Expr(); }

/** The constant bounds of the values the running Bounder has named
 * (bound.N): a name hides its value from the simplifier, so without them
 * the sign of bound.N + 1 is unknown where that of its value is not, and a
 * product or quotient of named endpoints takes all four corners (each
 * corner a copy of both operands' endpoints), which doubles the endpoints
 * at every loop they are bounded over (fuzz seed 1102077). */
thread_local const Scope<Interval> *current_named_facts = nullptr;

/** The facts about the names e reads. */
Scope<Interval> facts_read_by(const Expr &e, const Scope<Interval> &facts) {
    struct Names : IRGraphVisitor {
        const Scope<Interval> &facts;
        Scope<Interval> used;
        explicit Names(const Scope<Interval> &f) : facts(f) {}
        using IRGraphVisitor::visit;
        void visit(const Variable *op) override {
            const Interval *i = facts.find(op->name);
            if (i && !used.contains(op->name)) used.push(op->name, *i);
        }
    } names(facts);
    if (!facts.empty()) names.include(e);
    return std::move(names.used);
}

/** Whether e holds, using the constant bounds of the named values it reads. */
bool prove_with_named_facts(const Expr &e) {
    if (!current_named_facts || current_named_facts->empty()) return can_prove(e);
    return can_prove(e, facts_read_by(e, *current_named_facts));
}

/** +1 if e >= 0 is provable, -1 if e <= 0 is provable, else 0. */
int sign_of(const Expr &e) {
    if (!e.defined()) return 0;
    if (auto c = const_int(e)) return e.type().is_uint() ? 1 : (*c >= 0 ? 1 : -1);
    if (auto f = const_float(e)) return *f >= 0 ? 1 : (*f <= 0 ? -1 : 0);
    if (!e.type().is_int_or_uint()) return 0;
    if (e.type().is_uint()) return 1;
    if (prove_with_named_facts(GE::make(e, zero_of(e.type())))) return 1;
    if (prove_with_named_facts(LE::make(e, zero_of(e.type())))) return -1;
    return 0;
}

bool provably_positive(const Expr &e) {
    if (!e.defined()) return false;
    if (auto c = const_int(e)) return e.type().is_uint() ? *c != 0 : *c > 0;
    if (auto f = const_float(e)) return *f > 0;
    return e.type().is_int_or_uint() && prove_with_named_facts(GT::make(e, zero_of(e.type())));
}

bool provably_negative(const Expr &e) {
    if (!e.defined() || e.type().is_uint()) return false;
    if (auto c = const_int(e)) return *c < 0;
    if (auto f = const_float(e)) return *f < 0;
    return e.type().is_int() && prove_with_named_facts(LT::make(e, zero_of(e.type())));
}

class Bounder : public IRVisitor {
public:
    explicit Bounder(const Scope<Interval> &scope) : scope_(scope), outer_facts_(current_named_facts) {
        current_named_facts = &named_facts_;
    }
    ~Bounder() override { current_named_facts = outer_facts_; }
    Bounder(const Bounder &) = delete;
    Bounder &operator=(const Bounder &) = delete;

    Interval bounds(const Expr &e) {
        e.accept(this);
        name_big_endpoints(result_);
        return result_;
    }

    /** An endpoint as the caller sees it: with Lets for the names it reads,
     * directly or through other named values. Each expression is walked
     * once, as a graph (the values share subexpressions). */
    Expr with_named_values(Expr e) const {
        if (!e.defined() || named_.empty()) return e;
        struct Names : IRGraphVisitor {
            std::set<std::string> found;
            using IRGraphVisitor::visit;
            void visit(const Variable *op) override { found.insert(op->name); }
        };
        Names needed;
        needed.include(e);
        std::vector<bool> used(named_.size(), false);
        for (size_t k = named_.size(); k-- > 0;) {
            if (!needed.found.count(named_[k].first)) continue;
            used[k] = true;
            needed.include(named_[k].second);  // later names are read by earlier ones only
        }
        for (size_t k = named_.size(); k-- > 0;) {
            if (used[k]) e = Let::make(named_[k].first, named_[k].second, e);
        }
        return e;
    }

private:
    const Scope<Interval> &scope_;
    Scope<Interval> lets_;
    Interval result_;
    /** Endpoints given names (see name_big_endpoints), in order of creation:
     * a value may read the names created before it. */
    std::vector<std::pair<std::string, Expr>> named_;
    /** The constant bounds of each named value that has one
     * (current_named_facts). */
    Scope<Interval> named_facts_;
    const Scope<Interval> *outer_facts_;

    /** Interval arithmetic copies an operand's endpoints into the result,
     * some twice (the four products of a multiplication, both ends of a
     * non-monotonic operation), so an endpoint can double with each level
     * of an expression that a loop variable runs through (a fused loop's
     * variables divided by a varying extent). A varying interval's endpoint
     * of more than kMaxCopiedNodes nodes is therefore given a fresh name,
     * bound by a Let around the final result: the bounds stay linear in
     * the size of the expression. Points are exact values and are copied
     * at most once, so they keep their expressions. */
    void name_big_endpoints(Interval &i) {
        constexpr int kMaxCopiedNodes = 64;
        if (i.is_single_point()) return;
        i.min = name_if_bigger(i.min, kMaxCopiedNodes);
        i.max = name_if_bigger(i.max, kMaxCopiedNodes);
    }

    /** e, or a fresh name for it when it has more than max_nodes nodes. */
    Expr name_if_bigger(const Expr &e, int max_nodes) {
        if (!e.defined() || e.as<Variable>() || expr_size(e, max_nodes + 1) <= max_nodes) return e;
        static std::atomic<uint64_t> counter{0};
        std::string n = "bound." + std::to_string(counter++);
        named_.emplace_back(n, e);
        if (e.type().is_int() && e.type().is_scalar()) {
            // What the simplifier knows of the value, given what it knows
            // of the names the value reads.
            Simplifier simplifier(facts_read_by(e, named_facts_));
            const ExprInfo info = simplifier.info_of(e);
            if (info.min || info.max) {
                named_facts_.push(n, Interval(info.min ? int_const(e.type(), *info.min) : Expr(),
                                              info.max ? int_const(e.type(), *info.max) : Expr()));
            }
        }
        return Variable::make(e.type(), n);
    }

    using IRVisitor::visit;

    static Interval point(const Expr &e) { return Interval::single_point(e); }

    /** Both operands are single points: the result is the exact expression. */
    template<typename Make>
    bool exact_if_points(const Interval &a, const Interval &b, Make make) {
        if (!a.is_single_point() || !b.is_single_point() || !a.min.defined() || !b.min.defined()) return false;
        result_ = point(simplify(make(a.min, b.min)));
        return true;
    }

    void finish(Type t, Interval r, bool may_wrap) {
        t = t.element_of();
        if (is_wrapping(t) && (may_wrap || !r.is_bounded())) r = type_range(t);
        result_ = r;
    }

    void visit(const IntImm *op) override { result_ = point(op); }
    void visit(const UIntImm *op) override { result_ = point(op); }
    void visit(const FloatImm *op) override { result_ = point(op); }
    void visit(const StringImm *) override { result_ = Interval::everything(); }

    void visit(const Variable *op) override {
        if (const Interval *i = lets_.find(op->name)) {
            result_ = *i;
        } else if (const Interval *j = scope_.find(op->name)) {
            result_ = *j;
        } else if (op->type.is_vector()) {
            // A vector let's name (a value the vectorizer kept bound): the
            // endpoints of an interval are scalars, bounding every lane, and
            // nothing is known of its lanes.
            result_ = Interval::everything();
        } else {
            result_ = point(op);
        }
    }

    void visit(const Add *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (exact_if_points(a, b, [](Expr x, Expr y) { return Add::make(x, y); })) return;
        EndpointArith ar{op->type.element_of()};
        Interval r(ar.add(a.min, b.min), ar.add(a.max, b.max));
        finish(op->type, r, ar.may_wrap);
    }

    void visit(const Sub *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (exact_if_points(a, b, [](Expr x, Expr y) { return Sub::make(x, y); })) return;
        EndpointArith ar{op->type.element_of()};
        Interval r(ar.sub(a.min, b.max), ar.sub(a.max, b.min));
        finish(op->type, r, ar.may_wrap);
    }

    void visit(const Mul *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (exact_if_points(a, b, [](Expr x, Expr y) { return Mul::make(x, y); })) return;
        Type t = op->type.element_of();
        EndpointArith ar{t};
        if (a.is_single_point() && !b.is_single_point()) std::swap(a, b);
        Interval r;
        if (b.is_single_point() && b.min.defined()) {
            const Expr &k = b.min;
            int s = sign_of(k);
            if (auto c = const_int(k); c && *c == 0) {
                r = point(zero_of(t));
            } else if (s > 0) {
                r = Interval(ar.mul(a.min, k), ar.mul(a.max, k));
            } else if (s < 0) {
                r = Interval(ar.mul(a.max, k), ar.mul(a.min, k));
            } else if (a.is_bounded()) {
                Expr p = ar.mul(a.min, k), q = ar.mul(a.max, k);
                r = Interval(smin(p, q), smax(p, q));
            }
        } else if (a.is_bounded() && b.is_bounded()) {
            if (sign_of(a.min) > 0 && sign_of(b.min) > 0) {
                r = Interval(ar.mul(a.min, b.min), ar.mul(a.max, b.max));
            } else {
                Expr p[4] = {ar.mul(a.min, b.min), ar.mul(a.min, b.max), ar.mul(a.max, b.min), ar.mul(a.max, b.max)};
                r = Interval(smin(smin(p[0], p[1]), smin(p[2], p[3])), smax(smax(p[0], p[1]), smax(p[2], p[3])));
            }
        } else if (sign_of(a.min) > 0 && sign_of(b.min) > 0) {
            r = Interval(ar.mul(a.min, b.min), ar.mul(a.max, b.max));
        }
        finish(op->type, r, ar.may_wrap);
    }

    void visit(const Div *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (exact_if_points(a, b, [](Expr x, Expr y) { return Div::make(x, y); })) return;
        Type t = op->type.element_of();
        EndpointArith ar{t};
        Interval r;
        if (b.is_single_point() && (const_int(b.min) || const_float(b.min))) {
            const Expr &k = b.min;
            auto ck = const_int(k);
            if (t.is_int_or_uint() && *ck == 0) {
                r = point(zero_of(t));
            } else if (t.is_int() && *ck == -1) {
                r = Interval(ar.sub(zero_of(t), a.max), ar.sub(zero_of(t), a.min));
            } else if (provably_positive(k)) {
                r = Interval(ar.div(a.min, k), ar.div(a.max, k));
            } else if (provably_negative(k)) {
                r = Interval(ar.div(a.max, k), ar.div(a.min, k));
            }
        } else if (provably_positive(b.min)) {
            // With a of known sign the corner of each endpoint is known
            // (a >= 0: a / b shrinks as b grows; a <= 0: it grows), so each
            // endpoint of a and b appears once; otherwise both corners are
            // compared, which doubles the endpoints at every such division.
            if (b.max.defined()) {
                if (sign_of(a.min) > 0) {
                    r = Interval(ar.div(a.min, b.max), ar.div(a.max, b.min));
                } else if (sign_of(a.max) < 0) {
                    r = Interval(ar.div(a.min, b.min), ar.div(a.max, b.max));
                } else {
                    r = Interval(smin(ar.div(a.min, b.min), ar.div(a.min, b.max)),
                                 smax(ar.div(a.max, b.min), ar.div(a.max, b.max)));
                }
            } else if (sign_of(a.min) > 0) {
                r = Interval(zero_of(t), ar.div(a.max, b.min));
            }
        } else if (provably_negative(b.max) && b.min.defined()) {
            r = Interval(smin(ar.div(a.max, b.min), ar.div(a.max, b.max)),
                         smax(ar.div(a.min, b.min), ar.div(a.min, b.max)));
        } else if (t.is_uint() && a.max.defined()) {
            r = Interval(zero_of(t), a.max);  // a / b <= a, and a / 0 == 0
        } else if (t.is_int() && a.is_bounded()) {
            // Any divisor, zero included: |a / b| <= |a|.
            Expr m = smax(smax(a.max, ar.sub(zero_of(t), a.min)), zero_of(t));
            r = Interval(ar.sub(zero_of(t), m), m);
        }
        finish(op->type, r, ar.may_wrap);
    }

    void visit(const Mod *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (exact_if_points(a, b, [](Expr x, Expr y) { return Mod::make(x, y); })) return;
        Type t = op->type.element_of();
        if (!t.is_int_or_uint()) {
            result_ = Interval::everything();
            return;
        }
        EndpointArith ar{t};
        Interval r;
        auto ck = b.is_single_point() ? const_int(b.min) : std::nullopt;
        if (ck && *ck == 0) {
            r = point(zero_of(t));
        } else if (ck && !(t.is_uint() && *ck < 0) && *ck != INT64_MIN) {
            int64_t m = *ck < 0 ? -*ck : *ck;
            auto lo = const_int(a.min), hi = const_int(a.max);
            if (lo && hi && !(t.is_uint() && (*lo < 0 || *hi < 0)) && euclid_div(*lo, m) == euclid_div(*hi, m)) {
                r = Interval(int_const(t, euclid_mod(*lo, m)), int_const(t, euclid_mod(*hi, m)));
            } else {
                // a = k*q + c makes a % m a multiple of gcd(k, m) away from
                // c % gcd: (4*y) % 8 is 0 or 4, never 7. The simplifier knows
                // that too, so bounds must not be looser than what it proves.
                ModulusRemainder mr = modulus_remainder(op->a);
                int64_t g = mr.modulus > 1 ? std::gcd(mr.modulus, m) : 1;
                int64_t c = g > 1 ? euclid_mod(mr.remainder, g) : 0;
                r = Interval(int_const(t, c), int_const(t, m - g + c));
            }
        } else if (b.is_bounded()) {
            Expr one = int_const(t, 1);
            Expr m = t.is_uint() ? smax(b.max, one) : smax(b.max, ar.sub(zero_of(t), b.min));
            r = Interval(zero_of(t), smax(ar.sub(m, one), zero_of(t)));
        } else {
            r = Interval(zero_of(t), type_range(t).max);
        }
        // A non-negative a is its own upper bound.
        if (a.max.defined() && sign_of(a.min) > 0) r.max = r.max.defined() ? smin(r.max, a.max) : a.max;
        finish(op->type, r, ar.may_wrap);
    }

    void visit(const Min *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (exact_if_points(a, b, [](Expr x, Expr y) { return Min::make(x, y); })) return;
        Expr hi = a.max.defined() ? (b.max.defined() ? smin(a.max, b.max) : a.max) : b.max;
        result_ = Interval(smin(a.min, b.min), hi);
    }

    void visit(const Max *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (exact_if_points(a, b, [](Expr x, Expr y) { return Max::make(x, y); })) return;
        Expr lo = a.min.defined() ? (b.min.defined() ? smax(a.min, b.min) : a.min) : b.min;
        result_ = Interval(lo, smax(a.max, b.max));
    }

    /** Bounds of a comparison, given the operands' bounds. */
    void compare(IRNodeType kind, const Expr &x, const Expr &y) {
        Interval a = bounds(x), b = bounds(y);
        auto make = [kind](Expr p, Expr q) -> Expr {
            switch (kind) {
            case IRNodeType::EQ: return EQ::make(p, q);
            case IRNodeType::NE: return NE::make(p, q);
            case IRNodeType::LT: return LT::make(p, q);
            default: return LE::make(p, q);
            }
        };
        if (exact_if_points(a, b, make)) return;
        auto proves = [](const Expr &p, const Expr &q, bool strict) {
            if (!p.defined() || !q.defined()) return false;
            return prove_with_named_facts(strict ? LT::make(p, q) : LE::make(p, q));
        };
        bool lt = proves(a.max, b.min, true), le = proves(a.max, b.min, false);
        bool gt = proves(b.max, a.min, true), ge = proves(b.max, a.min, false);
        std::optional<bool> v;
        switch (kind) {
        case IRNodeType::LT: v = lt ? std::optional<bool>(true) : ge ? std::optional<bool>(false) : std::nullopt; break;
        case IRNodeType::LE: v = le ? std::optional<bool>(true) : gt ? std::optional<bool>(false) : std::nullopt; break;
        case IRNodeType::EQ: v = (lt || gt) ? std::optional<bool>(false) : std::nullopt; break;
        default: v = (lt || gt) ? std::optional<bool>(true) : std::nullopt; break;
        }
        result_ = v ? point(bool_const(*v)) : type_range(Bool());
    }

    void visit(const EQ *op) override { compare(IRNodeType::EQ, op->a, op->b); }
    void visit(const NE *op) override { compare(IRNodeType::NE, op->a, op->b); }
    void visit(const LT *op) override { compare(IRNodeType::LT, op->a, op->b); }
    void visit(const LE *op) override { compare(IRNodeType::LE, op->a, op->b); }
    void visit(const GT *op) override { compare(IRNodeType::LT, op->b, op->a); }
    void visit(const GE *op) override { compare(IRNodeType::LE, op->b, op->a); }

    Interval bool_bounds(const Expr &e) {
        Interval i = bounds(e);
        if (!i.min.defined()) i.min = bool_const(false);
        if (!i.max.defined()) i.max = bool_const(true);
        return i;
    }

    void visit(const And *op) override {
        Interval a = bool_bounds(op->a), b = bool_bounds(op->b);
        result_ = Interval(simplify(And::make(a.min, b.min)), simplify(And::make(a.max, b.max)));
    }

    void visit(const Or *op) override {
        Interval a = bool_bounds(op->a), b = bool_bounds(op->b);
        result_ = Interval(simplify(Or::make(a.min, b.min)), simplify(Or::make(a.max, b.max)));
    }

    void visit(const Not *op) override {
        Interval a = bool_bounds(op->a);
        if (a.is_single_point()) {
            result_ = point(simplify(Not::make(a.min)));
            return;
        }
        result_ = Interval(simplify(Not::make(a.max)), simplify(Not::make(a.min)));
    }

    void visit(const Select *op) override {
        Interval t = bounds(op->true_value), f = bounds(op->false_value);
        result_ = Interval::make_union(t, f);
    }

    void visit(const Cast *op) override {
        Interval v = bounds(op->value);
        Type to = op->type.element_of(), from = op->value.type().element_of();
        auto cast_to = [&](const Expr &e) { return e.defined() ? simplify(Cast::make(to, e)) : Expr(); };
        if (v.is_single_point() && v.min.defined()) {
            result_ = point(cast_to(v.min));
            return;
        }
        if (to.is_bool()) {
            result_ = type_range(to);
            return;
        }
        if (to.is_float()) {
            result_ = Interval(cast_to(v.min), cast_to(v.max));  // conversion to float is monotone
            return;
        }
        if (!to.is_int_or_uint()) {
            result_ = Interval::everything();
            return;
        }
        if (from.is_float()) {
            // Float to int truncates toward zero and saturates (docs/LANGUAGE.md):
            // monotone, so bounded float endpoints give the integer ones, also
            // symbolic ones (an index cast<int>(floor(x * 0.5f)) over a loop).
            result_ = v.is_bounded() ? Interval(cast_to(v.min), cast_to(v.max)) : type_range(to);
            return;
        }
        if (holds_every_value(to, from)) {
            result_ = Interval(cast_to(v.min), cast_to(v.max));
            if (!result_.is_bounded() && to.bits() <= 32) result_ = type_range(to);
            return;
        }
        auto lo = const_int(v.min), hi = const_int(v.max);
        bool fits = lo && hi && !(from.is_uint() && (*lo < 0 || *hi < 0)) && *lo >= *type_min(to) &&
                    (!type_max(to) || *hi <= *type_max(to));
        result_ = fits ? Interval(cast_to(v.min), cast_to(v.max)) : type_range(to);
    }

    void visit(const Reinterpret *op) override {
        Interval v = bounds(op->value);
        if (v.is_single_point() && v.min.defined()) {
            result_ = point(simplify(Reinterpret::make(op->type.element_of(), v.min)));
            return;
        }
        result_ = type_range(op->type);
    }

    void visit(const Load *op) override { result_ = range_of_unknown_value(op->type); }

    void visit(const Call *op) override {
        Type t = op->type.element_of();
        if (op->is_intrinsic(intrinsic::promise_clamped) && op->args.size() == 3) {
            // unsafe_promise_clamped(value, min, max): the promise bounds the
            // value, which may bound it more tightly (as in Halide). A value
            // known exactly is its own bound (a fused loop's variable per
            // iteration, lower/StageLoopNest.cpp), unless it reads memory: a
            // data-dependent index keeps the promise as its bound.
            Interval v = bounds(op->args[0]);
            Interval lo = bounds(op->args[1]), hi = bounds(op->args[2]);
            if (v.is_single_point() && !reads_memory(op->args[0])) {
                // The promise stays on the point while its range is known,
                // so that bounding the point over a loop further out (the
                // fused loop, after the loops of an RDom inside it) still
                // clamps it to the range: dropped, the fused variable xy % I
                // + min reached max(I, 1) + min - 1 and the loop's last row
                // was bounded independently of it (fuzz seed 1020360).
                const bool range_known = v.min.defined() && lo.is_single_point() && lo.min.defined() &&
                                         hi.is_single_point() && hi.min.defined();
                result_ = range_known ? point(Call::make(op->type, intrinsic::promise_clamped,
                                                         {v.min, lo.min, hi.min}, CallType::Intrinsic))
                                      : v;
                return;
            }
            Expr min = !v.min.defined() ? lo.min
                       : !lo.min.defined() ? v.min
                                           : simplify(Max::make(v.min, lo.min));
            Expr max = !v.max.defined() ? hi.max
                       : !hi.max.defined() ? v.max
                                           : simplify(Min::make(v.max, hi.max));
            result_ = Interval(min, max);
            return;
        }
        if ((op->is_intrinsic(intrinsic::likely) || op->is_intrinsic(intrinsic::promise_clamped)) &&
            !op->args.empty()) {
            result_ = bounds(op->args[0]);
            return;
        }
        if (op->is_intrinsic(intrinsic::require) && op->args.size() == 3) {
            // require(condition, value, error) is value where it returns.
            result_ = bounds(op->args[1]);
            return;
        }
        if (op->is_intrinsic(intrinsic::trip_count)) {
            // A symbol, read where it is used: regions follow its value.
            result_ = point(op);
            return;
        }
        if (is_monotone_math(op)) {
            // floor, ceil, round, trunc, sqrt, exp, log: non-decreasing.
            Interval a = bounds(op->args[0]);
            auto apply = [&](const Expr &e) {
                return e.defined() ? simplify(Call::make(op->type.element_of(), op->name, {e}, op->call_type)) : Expr();
            };
            const bool needs_positive = op->name.rfind("sqrt", 0) == 0 || op->name.rfind("log", 0) == 0;
            auto lo = const_float(a.min);
            if (a.is_bounded() && (!needs_positive || (lo && *lo > 0))) {
                result_ = Interval(apply(a.min), apply(a.max));
                return;
            }
        }
        if (op->is_intrinsic(intrinsic::abs) && op->args.size() == 1) {
            abs_bounds(op);
            return;
        }
        if (op->is_intrinsic(intrinsic::bitwise_and) && op->args.size() == 2 && t.is_int_or_uint()) {
            for (const Expr &arg : op->args) {
                auto k = const_int(arg);
                if (k && *k >= 0) {
                    result_ = Interval(zero_of(t), int_const(t, *k));
                    return;
                }
            }
        }
        if (op->call_type == CallType::Func && current_func_value_bounds) {
            auto it = current_func_value_bounds->find({op->name, op->value_index});
            if (it != current_func_value_bounds->end()) {
                result_ = func_value_bounds(t, it->second);
                return;
            }
        }
        result_ = range_of_unknown_value(t);
    }

    /** A Func's value bounds, narrowed by its type's range where that is
     * tighter on a side (u8 values bounded below by a symbolic Param stay
     * >= 0). */
    static Interval func_value_bounds(Type t, const Interval &values) {
        Interval type = range_of_unknown_value(t);
        auto pick = [](const Expr &v, const Expr &k, bool is_max) -> Expr {
            if (!v.defined()) return k;
            if (!k.defined()) return v;
            if (is_const(v) && is_const(k)) return simplify(is_max ? Expr(Min::make(v, k)) : Expr(Max::make(v, k)));
            return v;
        };
        return Interval(pick(values.min, type.min, false), pick(values.max, type.max, true));
    }

    /** A float math function of one argument that never decreases. */
    static bool is_monotone_math(const Call *op) {
        if (op->call_type != CallType::PureExtern || op->args.size() != 1 || !op->type.is_float()) return false;
        for (const char *base : {"floor", "ceil", "nearbyint", "trunc", "sqrt", "exp", "log"}) {
            if (op->name == base || op->name == std::string(base) + "f") return true;
        }
        return false;
    }

    void abs_bounds(const Call *op) {
        Type t = op->type.element_of(), from = op->args[0].type().element_of();
        Interval a = bounds(op->args[0]);
        auto as_result = [&](const Expr &e) { return e.defined() ? simplify(Cast::make(t, e)) : Expr(); };
        if (a.is_single_point() && a.min.defined()) {
            result_ = point(simplify(Call::make(op->type.element_of(), op->name, {a.min}, op->call_type)));
            return;
        }
        if (from.is_uint()) {
            result_ = a;
            return;
        }
        auto lo = const_int(a.min), hi = const_int(a.max);
        if (from.is_int() && lo && hi) {
            __int128 l = *lo, h = *hi;
            __int128 rl = l >= 0 ? l : (h <= 0 ? -h : 0);
            __int128 rh = std::max(l < 0 ? -l : l, h < 0 ? -h : h);
            if (rh <= (__int128)INT64_MAX) {
                result_ = Interval(int_const(t, (int64_t)rl), int_const(t, (int64_t)rh));
                return;
            }
        }
        if (from.is_float() || no_overflow(from)) {
            Expr zero = zero_of(from);
            if (sign_of(a.min) > 0) {
                result_ = Interval(as_result(a.min), as_result(a.max));
            } else if (a.max.defined() && sign_of(a.max) < 0) {
                EndpointArith ar{from};
                result_ = Interval(as_result(ar.sub(zero, a.max)), as_result(ar.sub(zero, a.min)));
            } else if (a.is_bounded()) {
                EndpointArith ar{from};
                result_ = Interval(as_result(zero), as_result(smax(ar.sub(zero, a.min), a.max)));
            } else {
                result_ = Interval(as_result(zero), Expr());
            }
            if (t.is_int_or_uint() && t.bits() <= 32 && !result_.is_bounded()) result_ = type_range(t);
            return;
        }
        result_ = type_range(t);
    }

    /** A let's bounds are those of its value, which the body may read many
     * times: an endpoint of more than a few nodes gets a name (a point, one
     * name for both ends) instead of being copied into every use. */
    void visit(const Let *op) override {
        constexpr int kMaxCopiedLetNodes = 16;
        Interval v = bounds(op->value);
        if (v.is_single_point() && v.min.defined()) {
            v.min = v.max = name_if_bigger(v.min, kMaxCopiedLetNodes);
        } else {
            v.min = name_if_bigger(v.min, kMaxCopiedLetNodes);
            v.max = name_if_bigger(v.max, kMaxCopiedLetNodes);
        }
        lets_.push(op->name, v);
        result_ = bounds(op->body);
        lets_.pop(op->name);
    }

    void visit(const Ramp *op) override {
        Interval base = bounds(op->base);
        Type t = op->base.type();
        Expr last = Add::make(op->base, Mul::make(op->stride, int_const(t, op->lanes - 1)));
        Interval end = bounds(last);
        result_ = Interval::make_union(base, end);
    }

    void visit(const Broadcast *op) override { result_ = bounds(op->value); }

    void visit(const Shuffle *op) override {
        Interval r;
        for (size_t i = 0; i < op->vectors.size(); i++) {
            Interval v = bounds(op->vectors[i]);
            r = i == 0 ? v : Interval::make_union(r, v);
        }
        result_ = r;
    }

    void visit(const VectorReduce *op) override {
        Interval v = bounds(op->value);
        Type t = op->type.element_of();
        int factor = op->value.type().lanes() / std::max(1, op->type.lanes());
        switch (op->op) {
        case VectorReduce::Add: {
            EndpointArith ar{t};
            Expr f = t.is_float() ? float_const(t, factor) : int_const(t, factor);
            finish(t, Interval(ar.mul(v.min, f), ar.mul(v.max, f)), ar.may_wrap);
            break;
        }
        case VectorReduce::Mul: result_ = range_of_unknown_value(t); break;
        default: result_ = v; break;
        }
    }
};

}  // namespace

WithFuncValueBounds::WithFuncValueBounds(const FuncValueBounds &bounds) : outer_(current_func_value_bounds) {
    current_func_value_bounds = &bounds;
}

WithFuncValueBounds::~WithFuncValueBounds() { current_func_value_bounds = outer_; }

Interval bounds_of_expr_in_scope(const Expr &e, const Scope<Interval> &scope) {
    if (!e.defined()) return Interval::everything();
    Bounder b(scope);
    Interval r = b.bounds(e);
    if (r.is_single_point()) {
        Expr s = simplify(b.with_named_values(r.min));
        return Interval::single_point(s);
    }
    return Interval(r.min.defined() ? simplify(b.with_named_values(r.min)) : Expr(),
                    r.max.defined() ? simplify(b.with_named_values(r.max)) : Expr());
}

}  // namespace internal
}  // namespace loom
