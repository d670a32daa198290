#ifndef LOOM_IR_SCOPE_H
#define LOOM_IR_SCOPE_H

/** \file
 * Scope<T>: a map from names to stacks of values, for passes that track what
 * the enclosing LetStmts / For loops bind. push() shadows, pop() unshadows.
 */

#include <map>
#include <string>
#include <vector>

#include "loom/Error.h"

namespace loom {
namespace internal {

template<typename T>
class Scope {
public:
    void push(const std::string &name, T value) { table_[name].push_back(std::move(value)); }
    void pop(const std::string &name) {
        auto it = table_.find(name);
        if (it == table_.end() || it->second.empty()) throw InternalError("Scope::pop of unbound name " + name);
        it->second.pop_back();
        if (it->second.empty()) table_.erase(it);
    }
    bool contains(const std::string &name) const { return table_.count(name) != 0; }
    /** The innermost binding; InternalError if there is none. */
    const T &get(const std::string &name) const {
        auto it = table_.find(name);
        if (it == table_.end()) throw InternalError("Scope::get of unbound name " + name);
        return it->second.back();
    }
    const T *find(const std::string &name) const {
        auto it = table_.find(name);
        return it == table_.end() ? nullptr : &it->second.back();
    }
    bool empty() const { return table_.empty(); }
    /** Innermost binding of each name. */
    template<typename F>
    void for_each(F f) const {
        for (const auto &[name, stack] : table_) f(name, stack.back());
    }

private:
    std::map<std::string, std::vector<T>> table_;
};

/** Pushes a binding for the lifetime of this object. */
template<typename T>
class ScopedBinding {
public:
    ScopedBinding(Scope<T> &scope, const std::string &name, T value) : scope_(&scope), name_(name) {
        scope_->push(name_, std::move(value));
    }
    ~ScopedBinding() { scope_->pop(name_); }
    ScopedBinding(const ScopedBinding &) = delete;
    ScopedBinding &operator=(const ScopedBinding &) = delete;

private:
    Scope<T> *scope_;
    std::string name_;
};

}  // namespace internal
}  // namespace loom

#endif
