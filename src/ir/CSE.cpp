// Common-subexpression elimination on the graph of an expression, in three
// walks that each visit a node once:
//  1. numbering: rebuild bottom-up, so that structurally equal nodes become
//     one node (children first, then a map from structure to node);
//  2. counting: how many parents read each node, and which nodes may move
//     to the top (pure, not reading a name bound inside the expression);
//  3. rebuilding: each movable node read more than once becomes a fresh
//     variable, bound by a Let around the whole expression, innermost
//     dependencies first.

#include "ir/CSE.h"

#include <atomic>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/IREquality.h"
#include "ir/IRMutator.h"

namespace loom {
namespace internal {

namespace {

/** A graph walk: mutate() sees each distinct node once (by address) and
 * returns what it returned the first time. Subclasses override rewrite(),
 * which by default rebuilds the node from its (already walked) children. */
class GraphMutator : public IRMutator {
public:
    using IRMutator::mutate;
    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        auto it = done_.find(e.get());
        if (it != done_.end()) return it->second;
        Expr r = rewrite(e);
        keep_.push_back(e);  // the key's node stays alive as long as the entry
        done_.emplace(e.get(), r);
        return r;
    }

protected:
    virtual Expr rewrite(const Expr &e) { return IRMutator::mutate(e); }

private:
    std::unordered_map<const IRNode *, Expr> done_;
    std::vector<Expr> keep_;
};

bool is_leaf(const Expr &e) {
    switch (e->node_type) {
    case IRNodeType::IntImm:
    case IRNodeType::UIntImm:
    case IRNodeType::FloatImm:
    case IRNodeType::StringImm:
    case IRNodeType::Variable:
        return true;
    default:
        return false;
    }
}

/** Evaluating the node itself (not its children) has no side effect. */
bool node_is_pure(const Expr &e) {
    const Call *c = e.as<Call>();
    return !c || (c->call_type != CallType::Intrinsic && c->call_type != CallType::Extern);
}

/** Walk 1: one node per structure. */
class Number : public GraphMutator {
protected:
    Expr rewrite(const Expr &e) override {
        Expr m = IRMutator::mutate(e);  // children are numbered already
        if (is_leaf(m) || !node_is_pure(m)) return m;
        return canonical_.emplace(m, m).first->second;
    }

private:
    std::map<Expr, Expr, ExprDeepCompare> canonical_;
};

/** Walk 2: parents per node, and which nodes may move to the top: those
 * without side effects that read no name bound by a Let inside the
 * expression (a Let node itself may move: the name it binds is its own). */
class Count : public GraphMutator {
public:
    explicit Count(const std::unordered_set<std::string> &bound) : bound_(bound) {}
    std::unordered_map<const IRNode *, int> parents;
    std::unordered_set<const IRNode *> movable;

    using GraphMutator::mutate;
    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        if (!frames_.empty()) parents[e.get()]++;
        Expr r = GraphMutator::mutate(e);
        if (!frames_.empty()) {
            const Info &i = info_.at(e.get());
            Info &into = frames_.back();
            into.impure |= i.impure;
            into.free.insert(i.free.begin(), i.free.end());
        }
        return r;
    }

protected:
    Expr rewrite(const Expr &e) override {
        Info info;
        if (const Let *l = e.as<Let>()) {
            Info value = walk(l->value), body = walk(l->body);
            body.free.erase(l->name);
            info.impure = value.impure || body.impure;
            info.free = std::move(value.free);
            info.free.insert(body.free.begin(), body.free.end());
        } else {
            frames_.emplace_back();
            IRMutator::mutate(e);
            info = std::move(frames_.back());
            frames_.pop_back();
            if (const Variable *v = e.as<Variable>(); v && bound_.count(v->name)) info.free.insert(v->name);
            info.impure |= !node_is_pure(e);
        }
        if (!info.impure && info.free.empty()) movable.insert(e.get());
        info_.emplace(e.get(), std::move(info));
        return e;
    }

private:
    struct Info {
        bool impure = false;
        std::set<std::string> free;  // free names that some inner Let binds
    };
    const std::unordered_set<std::string> &bound_;
    std::vector<Info> frames_;
    std::unordered_map<const IRNode *, Info> info_;

    Info walk(const Expr &child) {
        frames_.emplace_back();
        mutate(child);
        Info i = std::move(frames_.back());
        frames_.pop_back();
        return i;
    }
};

/** Names bound by Lets anywhere in the expression. */
class BoundNames : public GraphMutator {
public:
    std::unordered_set<std::string> names;

protected:
    Expr rewrite(const Expr &e) override {
        if (const Let *l = e.as<Let>()) names.insert(l->name);
        return IRMutator::mutate(e);
    }
};

/** Walk 3: movable nodes read more than once become variables. */
class Rebuild : public GraphMutator {
public:
    Rebuild(const Count &count) : count_(count) {}
    std::vector<std::pair<std::string, Expr>> lets;

protected:
    Expr rewrite(const Expr &e) override {
        Expr m = IRMutator::mutate(e);
        auto it = count_.parents.find(e.get());
        const bool shared = it != count_.parents.end() && it->second > 1;
        if (!shared || is_leaf(e) || !count_.movable.count(e.get())) return m;
        static std::atomic<uint64_t> counter{0};
        std::string name = "cse" + std::to_string(counter++);
        lets.emplace_back(name, m);
        return Variable::make(m.type(), name);
    }

private:
    const Count &count_;
};

class TreeSize : public IRMutator {
public:
    explicit TreeSize(int64_t limit) : limit_(limit) {}
    using IRMutator::mutate;
    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        int64_t size;
        auto it = size_.find(e.get());
        if (it != size_.end()) {
            size = it->second;
        } else {
            sums_.push_back(1);
            IRMutator::mutate(e);
            size = std::min(sums_.back(), limit_);
            sums_.pop_back();
            size_.emplace(e.get(), size);
        }
        if (!sums_.empty()) sums_.back() = std::min(sums_.back() + size, limit_);
        result = size;
        return e;
    }
    int64_t result = 0;

private:
    int64_t limit_;
    std::unordered_map<const IRNode *, int64_t> size_;
    std::vector<int64_t> sums_;
};

}  // namespace

Expr common_subexpression_elimination(const Expr &e) {
    if (!e.defined()) return e;
    Expr numbered = Number().mutate(e);
    BoundNames bound;
    bound.mutate(numbered);
    Count count(bound.names);
    count.mutate(numbered);
    Rebuild rebuild(count);
    Expr body = rebuild.mutate(numbered);
    for (auto it = rebuild.lets.rbegin(); it != rebuild.lets.rend(); ++it) {
        body = Let::make(it->first, it->second, body);
    }
    return body;
}

int64_t expr_tree_size(const Expr &e, int64_t limit) {
    TreeSize t(limit);
    t.mutate(e);
    return t.result;
}

}  // namespace internal
}  // namespace loom
