#ifndef LOOM_INTERNAL_FUNCTION_PTR_H
#define LOOM_INTERNAL_FUNCTION_PTR_H

/** \file
 * A pointer to the definition of a Func, held by Func handles and by the Call
 * nodes that call it. Strong pointers keep the Func's group alive (Funcs
 * that call each other share one lifetime, src/ir/FunctionGroup.h); calls
 * inside a group, a Func's calls to itself among them, are weak, so a
 * recurrence never keeps itself alive.
 */

#include <memory>

namespace loom {
namespace internal {

struct FunctionContents;  // defined in src/ir/Function.h

struct FunctionPtr {
    std::shared_ptr<FunctionContents> strong;
    std::weak_ptr<FunctionContents> weak;

    FunctionPtr() = default;
    explicit FunctionPtr(std::shared_ptr<FunctionContents> p) : strong(std::move(p)) {}

    FunctionContents *get() const {
        if (strong) return strong.get();
        return weak.lock().get();
    }
    bool defined() const { return get() != nullptr; }
    /** A copy that does not keep the function alive; it stays valid as
     * long as the function lives. */
    FunctionPtr weakened() const;
    /** A copy that keeps the function (and its group) alive; null if the
     * function is already gone. */
    FunctionPtr strengthened() const;
    bool same_as(const FunctionPtr &o) const { return get() == o.get(); }
};

}  // namespace internal
}  // namespace loom

#endif
