// Integer index arithmetic as one node for the interpreter.
//
// Most nodes the interpreter runs are index arithmetic: (y - f.min.1)*f.stride.1
// + x - f.min.0, or b*14 + t0 once hoist_loop_invariant_work is done, each
// Add, Sub and Mul a node of its own, so a call (an indirect one, rarely
// predicted) per operation. Signed and unsigned integer Add, Sub and Mul
// wrap to their type, that is they compute modulo 2^bits, where sums and
// products are a ring: a tree of them over variables and constants of one
// type equals its expanded polynomial, computed in uint64 (2^bits divides
// 2^64) and wrapped once at the end. So such a tree of two operations or
// more is one node that sums a few terms, each a coefficient times up to
// three variables. A tree whose expansion grows past kMaxTerms stays as it
// is (a product of sums multiplies out).

#include <algorithm>
#include <map>

#include "ir/interpreter/InterpCore.h"

namespace loom {
namespace internal {
namespace interp {

namespace {

constexpr size_t kMaxTerms = 8;

/** Monomials (the sorted value offsets of their factors) to coefficients. */
using Polynomial = std::map<std::vector<int>, uint64_t>;

class Expand {
public:
    Expand(Compiler &c, Type t) : compiler_(c), type_(t) {}

    int operations = 0;
    std::vector<Expr> variables;  // one per slot read, in first-read order

    bool expand(const Expr &e, Polynomial &out) {
        if (e.type() != type_) return false;
        switch (e.node_type()) {
        case IRNodeType::IntImm:
            out[{}] = (uint64_t)wrap_signed(type_.bits(), e.as<IntImm>()->value);
            return true;
        case IRNodeType::UIntImm:
            out[{}] = wrap_unsigned(type_.bits(), e.as<UIntImm>()->value);
            return true;
        case IRNodeType::Variable: return variable(e, out);
        case IRNodeType::Add: {
            const Add *op = e.as<Add>();
            return binary(op->a, op->b, out, [](Polynomial &a, const Polynomial &b) { return add(a, b, 1); });
        }
        case IRNodeType::Sub: {
            const Sub *op = e.as<Sub>();
            return binary(op->a, op->b, out, [](Polynomial &a, const Polynomial &b) { return add(a, b, ~uint64_t(0)); });
        }
        case IRNodeType::Mul: {
            const Mul *op = e.as<Mul>();
            return binary(op->a, op->b, out, [](Polynomial &a, const Polynomial &b) { return multiply(a, b); });
        }
        default: return false;
        }
    }

private:
    bool variable(const Expr &e, Polynomial &out) {
        const Variable *v = e.as<Variable>();
        const int s = compiler_.lookup(v->name);
        // Unbound or bound to another type: the plain nodes report it.
        if (s < 0 || compiler_.slot(s).type != v->type) return false;
        const int offset = compiler_.slot(s).offset;
        if (std::find(offsets_.begin(), offsets_.end(), offset) == offsets_.end()) {
            offsets_.push_back(offset);
            variables.push_back(e);
        }
        out[{offset}] = 1;
        return true;
    }

    template<class Combine>
    bool binary(const Expr &a, const Expr &b, Polynomial &out, Combine combine) {
        Polynomial pb;
        if (!expand(a, out) || !expand(b, pb)) return false;
        operations++;
        return combine(out, pb);
    }

    // a += sign * b
    static bool add(Polynomial &a, const Polynomial &b, uint64_t sign) {
        for (const auto &[monomial, coefficient] : b) a[monomial] += sign * coefficient;
        return a.size() <= kMaxTerms * 2;  // before terms that cancel are dropped
    }

    static bool multiply(Polynomial &a, const Polynomial &b) {
        if (a.size() * b.size() > kMaxTerms * 2) return false;
        Polynomial product;
        for (const auto &[ma, ca] : a) {
            for (const auto &[mb, cb] : b) {
                std::vector<int> m = ma;
                m.insert(m.end(), mb.begin(), mb.end());
                if ((int)m.size() > PolynomialTerm::kMaxFactors) return false;
                std::sort(m.begin(), m.end());
                product[m] += ca * cb;
            }
        }
        a = std::move(product);
        return true;
    }

    Compiler &compiler_;
    Type type_;
    std::vector<int> offsets_;
};

template<bool Signed>
void eval_polynomial(Node &n, Frame &f, Scalar *out) {
    const Scalar *values = f.values.data();
    uint64_t sum = 0;
    for (const PolynomialTerm &t : n.terms) {
        uint64_t p = t.coefficient;
        for (int k = 0; k < t.factors; k++) p *= values[t.slot[k]].u;
        sum += p;
    }
    if constexpr (Signed) {
        out[0].i = wrap_signed(n.type.bits(), (int64_t)sum);
    } else {
        out[0].u = wrap_unsigned(n.type.bits(), sum);
    }
}

}  // namespace

NodePtr compile_polynomial(Compiler &c, const Expr &e) {
    const Type t = e.type();
    if (!t.is_scalar() || !t.is_int_or_uint() || t.bits() < 8) return nullptr;
    Expand expand(c, t);
    Polynomial p;
    if (!expand.expand(e, p) || expand.operations < 2) return nullptr;
    auto n = std::make_unique<Node>();
    n->type = t;
    n->lanes = 1;
    for (const auto &[monomial, coefficient] : p) {
        // A coefficient that is 0 modulo 2^bits contributes nothing.
        if (wrap_unsigned(t.bits(), coefficient) == 0) continue;
        PolynomialTerm term;
        term.coefficient = coefficient;
        term.factors = (int)monomial.size();
        std::copy(monomial.begin(), monomial.end(), term.slot);
        n->terms.push_back(term);
    }
    if (n->terms.size() > kMaxTerms) return nullptr;
    // The variables as children, unused at run time, so that the node names
    // the slots it reads (a parallel loop copies those it captures).
    for (const Expr &v : expand.variables) n->add_kid(c.expr(v));
    n->fn = t.is_int() ? eval_polynomial<true> : eval_polynomial<false>;
    return n;
}

}  // namespace interp
}  // namespace internal
}  // namespace loom
