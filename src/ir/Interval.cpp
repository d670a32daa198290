// Union and intersection of intervals; an undefined bound is infinite.

#include "ir/Interval.h"

#include "ir/Simplify.h"

namespace loom {
namespace internal {

namespace {

Expr simplified_min(const Expr &a, const Expr &b) {
    if (a.same_as(b)) return a;
    return simplify(Min::make(a, b));
}

Expr simplified_max(const Expr &a, const Expr &b) {
    if (a.same_as(b)) return a;
    return simplify(Max::make(a, b));
}

}  // namespace

Interval Interval::make_union(const Interval &a, const Interval &b) {
    Interval r;
    if (a.min.defined() && b.min.defined()) r.min = simplified_min(a.min, b.min);
    if (a.max.defined() && b.max.defined()) r.max = simplified_max(a.max, b.max);
    return r;
}

Interval Interval::make_intersection(const Interval &a, const Interval &b) {
    Interval r;
    if (a.min.defined() && b.min.defined()) {
        r.min = simplified_max(a.min, b.min);
    } else {
        r.min = a.min.defined() ? a.min : b.min;
    }
    if (a.max.defined() && b.max.defined()) {
        r.max = simplified_min(a.max, b.max);
    } else {
        r.max = a.max.defined() ? a.max : b.max;
    }
    return r;
}

}  // namespace internal
}  // namespace loom
