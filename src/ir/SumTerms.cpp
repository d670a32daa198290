#include "ir/SumTerms.h"

#include "ir/IRUtil.h"

namespace loom {
namespace internal {

void flatten_sum(const Expr &e, bool negative, std::vector<SumTerm> &terms) {
    if (const Add *a = e.as<Add>()) {
        flatten_sum(a->a, negative, terms);
        flatten_sum(a->b, negative, terms);
    } else if (const Sub *s = e.as<Sub>()) {
        flatten_sum(s->a, negative, terms);
        flatten_sum(s->b, !negative, terms);
    } else {
        terms.push_back({e, negative});
    }
}

Expr sum_of(Type t, const std::vector<SumTerm> &terms) {
    Expr sum;
    for (const SumTerm &term : terms) {
        if (!sum.defined()) {
            sum = term.negative ? Sub::make(make_zero(t), term.e) : term.e;
        } else {
            sum = term.negative ? Sub::make(sum, term.e) : Add::make(sum, term.e);
        }
    }
    return sum.defined() ? sum : make_zero(t);
}

}  // namespace internal
}  // namespace loom
