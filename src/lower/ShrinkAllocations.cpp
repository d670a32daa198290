#include "lower/ShrinkAllocations.h"

#include <string>
#include <vector>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"

namespace loom {
namespace internal {

namespace {

/** How a statement uses an allocation. */
struct Uses : IRGraphVisitor {
    explicit Uses(const std::string &name) : name(name), buffer(name + ".buffer") {}
    const std::string name, buffer;
    bool read = false;     // loaded, or its pointer or descriptor used
    bool written = false;  // stored to
    bool effects_in_stores = false;  // a value stored has side effects (print, trace)
    bool gpu_loop = false;
    using IRGraphVisitor::visit;
    void visit(const Load *op) override {
        read = read || op->name == name;
        IRGraphVisitor::visit(op);
    }
    void visit(const Store *op) override {
        if (op->name == name) {
            written = true;
            effects_in_stores = effects_in_stores || !is_pure(op->value) || !is_pure(op->index);
        }
        IRGraphVisitor::visit(op);
    }
    void visit(const Variable *op) override { read = read || op->name == name || op->name == buffer; }
    void visit(const Free *op) override { read = read || op->name == name; }
    void visit(const For *op) override {
        gpu_loop = gpu_loop || runs_on_gpu(op);
        IRGraphVisitor::visit(op);
    }
    bool any() const { return read || written; }
};

Uses uses_of(const Stmt &s, const std::string &name) {
    Uses u(name);
    s.accept(&u);
    return u;
}

/** s without its stores into name. */
Stmt without_stores(const Stmt &s, const std::string &name) {
    struct Remove : IRMutator {
        const std::string &name;
        explicit Remove(const std::string &n) : name(n) {}
        using IRMutator::visit;
        Stmt visit(const Store *op) override {
            return op->name == name ? Evaluate::make(Expr(0)) : IRMutator::visit(op);
        }
    } remove(name);
    return remove.mutate(s);
}

/** s with a Free of name right after the last statement that uses it, when
 * statements that do not use it follow; through Blocks, lets, other
 * allocations and produce/consume nodes, never into loops or branches. */
Stmt free_after_last_use(const Stmt &s, const std::string &name) {
    if (const LetStmt *l = s.as<LetStmt>()) return LetStmt::make(l->name, l->value, free_after_last_use(l->body, name));
    if (const ProducerConsumer *pc = s.as<ProducerConsumer>()) {
        return ProducerConsumer::make(pc->name, pc->is_producer, free_after_last_use(pc->body, name));
    }
    if (const Allocate *a = s.as<Allocate>()) {
        return Allocate::make(a->name, a->type, a->memory_type, a->extents, a->condition,
                              free_after_last_use(a->body, name));
    }
    if (!s.as<Block>()) return s;
    std::vector<Stmt> parts;
    flatten_block(s, parts);
    int last = -1;
    for (int i = 0; i < (int)parts.size(); i++) {
        if (uses_of(parts[i], name).any()) last = i;
    }
    if (last < 0) return s;
    if (last + 1 < (int)parts.size()) {
        parts.insert(parts.begin() + last + 1, Free::make(name));
    } else {
        parts[last] = free_after_last_use(parts[last], name);
    }
    return Block::make(parts);
}

class ShrinkAllocations : public IRMutator {
    using IRMutator::visit;

    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        Uses uses = uses_of(body, op->name);
        if (!uses.read && !uses.effects_in_stores) return without_stores(body, op->name);
        const bool may_be_on_the_heap = op->memory_type == MemoryType::Heap || op->memory_type == MemoryType::Auto;
        if (!uses.gpu_loop && may_be_on_the_heap) body = free_after_last_use(body, op->name);
        return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
    }
};

}  // namespace

Stmt shrink_allocations(const Stmt &s) { return ShrinkAllocations().mutate(s); }

Stmt at_release(const Stmt &body, const std::string &name, const Stmt &s) {
    class Insert : public IRMutator {
    public:
        Insert(const std::string &name, const Stmt &s) : name_(name), s_(s) {}
        bool found = false;

    protected:
        using IRMutator::visit;
        Stmt visit(const Free *op) override {
            if (op->name != name_) return op;
            found = true;
            return Block::make(s_, op);
        }

    private:
        const std::string &name_;
        const Stmt &s_;
    } insert(name, s);
    Stmt result = insert.mutate(body);
    return insert.found ? result : Block::make(result, s);
}

}  // namespace internal
}  // namespace loom
