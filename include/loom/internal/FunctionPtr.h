#ifndef LOOM_INTERNAL_FUNCTION_PTR_H
#define LOOM_INTERNAL_FUNCTION_PTR_H

/** \file
 * A pointer to the definition of a Func, held by Func handles and by the Call
 * nodes that call it. A Func that calls itself (a recursive update) holds a
 * weak pointer in those Calls, so self-reference never leaks.
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
    /** A copy that does not keep the function alive. */
    FunctionPtr weakened() const {
        FunctionPtr p;
        p.weak = strong ? std::weak_ptr<FunctionContents>(strong) : weak;
        return p;
    }
    /** A copy that keeps the function alive (null if it is already gone). */
    FunctionPtr strengthened() const {
        return FunctionPtr(strong ? strong : weak.lock());
    }
    bool same_as(const FunctionPtr &o) const { return get() == o.get(); }
};

}  // namespace internal
}  // namespace loom

#endif
