#ifndef LOOM_IR_INTERVAL_H
#define LOOM_IR_INTERVAL_H

/** \file
 * A closed interval [min, max] of Exprs. An undefined min means unbounded
 * below (-infinity); an undefined max means unbounded above.
 */

#include "ir/IR.h"

namespace loom {
namespace internal {

struct Interval {
    Expr min, max;

    Interval() = default;  // everything
    Interval(Expr min, Expr max) : min(std::move(min)), max(std::move(max)) {}
    static Interval everything() { return Interval(); }
    static Interval single_point(const Expr &e) { return Interval(e, e); }

    bool has_lower_bound() const { return min.defined(); }
    bool has_upper_bound() const { return max.defined(); }
    bool is_bounded() const { return min.defined() && max.defined(); }
    bool is_everything() const { return !min.defined() && !max.defined(); }
    /** min and max are the same node (not merely equal). */
    bool is_single_point() const { return min.same_as(max); }

    /** The smallest interval containing both (simplified min/max of bounds). */
    static Interval make_union(const Interval &a, const Interval &b);
    static Interval make_intersection(const Interval &a, const Interval &b);
};

}  // namespace internal
}  // namespace loom

#endif
