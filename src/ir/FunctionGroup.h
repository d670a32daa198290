#ifndef LOOM_IR_FUNCTION_GROUP_H
#define LOOM_IR_FUNCTION_GROUP_H

/** \file
 * Who owns a Func's definition (Halide's FunctionGroup).
 *
 * Every FunctionContents is owned by one FunctionGroup; a strong
 * FunctionPtr keeps a group alive, and the group keeps its members alive.
 * Funcs whose definitions call each other, directly or through other Funcs
 * (a recurrence: state(r + 1, x) = step(r, x) with step reading state),
 * are merged into one group, and every call among the members is weak. So
 * no member keeps another alive, all of them live as long as any reference
 * from outside the group to any of them, and a cycle of definitions is
 * freed with its last outside reference: the program may keep any one of
 * its Funcs and drop the others.
 *
 * Weak FunctionPtrs watch the member's own lifetime token, not a group:
 * they stay valid through merges. A group merged into another holds the one
 * it joined, so strong pointers to it keep every member alive.
 */

#include <memory>
#include <set>
#include <vector>

#include "ir/Function.h"

namespace loom {
namespace internal {

/** e with its calls of `funcs` made weak. */
Expr weaken_calls_of(const Expr &e, const std::set<const FunctionContents *> &funcs);

class FunctionGroup : public std::enable_shared_from_this<FunctionGroup> {
public:
    /** A new, empty Func alone in a new group. */
    static FunctionPtr make_function();

    /** Call after f's definitions gained calls (a definition, an update,
     * a wrapper): merges f with every Func on a cycle of calls through f,
     * and makes every call among the merged group's members weak. */
    static void join_cycles_through(FunctionContents &f);

    /** A strong pointer to `member` that keeps its group alive. */
    static FunctionPtr strong_pointer(FunctionContents &member);

private:
    static void merge(const std::vector<FunctionContents *> &funcs);
    static void weaken_calls_among_members(FunctionGroup &group);

    std::shared_ptr<FunctionGroup> merged_into_;  // set once this group joined another
    std::vector<std::unique_ptr<FunctionContents>> members_;  // empty once merged
};

}  // namespace internal
}  // namespace loom

#endif
