#include "lower/ForkAsyncProducers.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "lower/HoistStorage.h"

namespace loom {
namespace internal {

namespace {

bool same_level(const LoopLevel &a, const LoopLevel &b) {
    return a.kind == b.kind && a.func == b.func && a.var == b.var && a.stage == b.stage;
}

Stmt no_op() { return Evaluate::make(Expr(0)); }

bool is_no_op(const Stmt &s) {
    if (!s.defined()) return true;
    const Evaluate *e = s.as<Evaluate>();
    return e && is_const(e->value);
}

Expr semaphore(const std::string &name) { return Variable::make(Handle(), name); }

Stmt semaphore_call(const char *which, const Expr &sema, const Expr &count) {
    return Evaluate::make(Call::make(Int(32), which, {sema, count}, CallType::Intrinsic));
}

/** The semaphore variable of an acquire or release statement, or null. */
const Variable *semaphore_of(const Stmt &s, const char *which) {
    const Evaluate *e = s.as<Evaluate>();
    const Call *c = e ? e->value.as<Call>() : nullptr;
    if (!c || !c->is_intrinsic(which) || c->args.size() != 2) return nullptr;
    return c->args[0].as<Variable>();
}

/** Whether s loads or stores storage `name`. */
bool uses_storage(const Stmt &s, const std::string &name) {
    class Uses : public IRGraphVisitor {
    public:
        explicit Uses(const std::string &n) : name_(n) {}
        bool found = false;

    protected:
        using IRGraphVisitor::visit;
        void visit(const Load *op) override {
            found = found || op->name == name_;
            IRGraphVisitor::visit(op);
        }
        void visit(const Store *op) override {
            found = found || op->name == name_;
            IRGraphVisitor::visit(op);
        }

    private:
        const std::string &name_;
    } uses(name);
    s.accept(&uses);
    return uses.found;
}

/** Rewrites Blocks, Lets and loops whose statements all became no-ops into
 * a no-op, so that the halves of a fork keep only the loops they need. */
class CollapseNoOps : public IRMutator {
protected:
    using IRMutator::visit;
    Stmt visit(const Block *op) override {
        Stmt first = mutate(op->first), rest = mutate(op->rest);
        if (is_no_op(first)) return rest;
        if (is_no_op(rest)) return first;
        return Block::make(first, rest);
    }
    Stmt visit(const LetStmt *op) override {
        Stmt body = mutate(op->body);
        if (is_no_op(body)) return body;
        return LetStmt::make(op->name, op->value, body);
    }
    Stmt visit(const For *op) override {
        Stmt body = mutate(op->body);
        if (is_no_op(body)) return body;
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
    }
    Stmt visit(const While *op) override {
        Stmt body = mutate(op->body);
        if (is_no_op(body)) return body;
        return While::make(op->condition, body);
    }
    Stmt visit(const IfThenElse *op) override {
        Stmt then_case = mutate(op->then_case);
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        if (is_no_op(then_case) && is_no_op(else_case)) return no_op();
        return IfThenElse::make(op->condition, then_case, is_no_op(else_case) ? Stmt() : else_case);
    }
};

/** The producer half of a fork of `func`: the loops, func's productions
 * (each after acquiring the free-storage semaphore, if any, and followed by
 * a release of every consume semaphore), and the waits for other async
 * Funcs' productions that enclose them, on clones of their semaphores.
 * Other Funcs' productions and consumptions that enclose func's are kept as
 * loops only. */
class ProducerHalf : public CollapseNoOps {
public:
    ProducerHalf(const std::string &func, const std::vector<std::string> &consume_semaphores,
                 const std::string &space_semaphore, std::map<std::string, std::vector<std::string>> &clones,
                 int &clone_counter)
        : func_(func), consume_semaphores_(consume_semaphores), space_semaphore_(space_semaphore), clones_(clones),
          clone_counter_(clone_counter) {}

protected:
    using CollapseNoOps::visit;
    Stmt visit(const ProducerConsumer *op) override {
        if (op->name == func_ && op->is_producer) {
            std::vector<Stmt> stmts;
            if (!space_semaphore_.empty()) {
                stmts.push_back(semaphore_call(intrinsic::semaphore_acquire, semaphore(space_semaphore_), 1));
            }
            stmts.push_back(op);
            for (const std::string &s : consume_semaphores_) {
                stmts.push_back(semaphore_call(intrinsic::semaphore_release, semaphore(s), 1));
            }
            return Block::make(stmts);
        }
        // Another Func's production keeps only the loops that lead to
        // func's (its own stores go); a consumption stays marked.
        Stmt body = mutate(op->body);
        if (is_no_op(body) || op->is_producer) return body;
        return ProducerConsumer::make(op->name, false, body);
    }
    Stmt visit(const Evaluate *op) override {
        // A wait for another async Func's production stays, on a semaphore
        // of its own (the consumer half keeps waiting on the original).
        if (const Variable *v = semaphore_of(op, intrinsic::semaphore_acquire)) {
            const std::string clone = v->name + ".clone" + std::to_string(clone_counter_++);
            clones_[v->name].push_back(clone);
            return semaphore_call(intrinsic::semaphore_acquire, semaphore(clone), op->value.as<Call>()->args[1]);
        }
        return no_op();
    }
    Stmt visit(const Store *) override { return no_op(); }
    Stmt visit(const AssertStmt *) override { return no_op(); }
    Stmt visit(const Free *) override { return no_op(); }
    // Storage of other Funcs stays where what is left uses it (a Func
    // computed inside func's production but stored outside it).
    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        if (is_no_op(body) || !uses_storage(body, op->name)) return body;
        return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition, body);
    }

private:
    const std::string &func_;
    const std::vector<std::string> &consume_semaphores_;
    const std::string &space_semaphore_;
    std::map<std::string, std::vector<std::string>> &clones_;
    int &clone_counter_;
};

/** The consumer half: everything but func's productions; each consume node
 * of func first waits for its semaphore and then frees the storage it read. */
class ConsumerHalf : public CollapseNoOps {
public:
    ConsumerHalf(const std::string &func, const std::vector<std::string> &consume_semaphores,
                 const std::string &space_semaphore)
        : func_(func), consume_semaphores_(consume_semaphores), space_semaphore_(space_semaphore) {}

protected:
    using CollapseNoOps::visit;
    Stmt visit(const ProducerConsumer *op) override {
        if (op->name != func_) return CollapseNoOps::visit(op);
        if (op->is_producer) return no_op();
        std::vector<Stmt> stmts;
        stmts.push_back(
            semaphore_call(intrinsic::semaphore_acquire, semaphore(consume_semaphores_.at(next_++)), 1));
        stmts.push_back(ProducerConsumer::make(op->name, false, mutate(op->body)));
        if (!space_semaphore_.empty()) {
            stmts.push_back(semaphore_call(intrinsic::semaphore_release, semaphore(space_semaphore_), 1));
        }
        return Block::make(stmts);
    }

private:
    const std::string &func_;
    const std::vector<std::string> &consume_semaphores_;
    const std::string &space_semaphore_;
    size_t next_ = 0;
};

/** Each release of `original` also releases `clone`. */
class ReleaseClone : public IRMutator {
public:
    ReleaseClone(const std::string &original, const std::string &clone) : original_(original), clone_(clone) {}

protected:
    using IRMutator::visit;
    Stmt visit(const Evaluate *op) override {
        const Variable *v = semaphore_of(op, intrinsic::semaphore_release);
        if (!v || v->name != original_) return op;
        return Block::make(op, semaphore_call(intrinsic::semaphore_release, semaphore(clone_),
                                              op->value.as<Call>()->args[1]));
    }

private:
    const std::string &original_, &clone_;
};

/** Facts about a fork site: func's consume nodes, the Funcs produced there
 * outside func's productions, the storage func's productions read, and
 * whether any loop runs on the GPU. */
class SiteFacts : public IRVisitor {
public:
    explicit SiteFacts(const std::string &func) : func_(func) {}
    int consume_nodes = 0;
    std::set<std::string> produced_outside;  // Func names
    std::set<std::string> read_by_producer;  // storage names
    bool gpu_loop = false;

protected:
    using IRVisitor::visit;
    void visit(const ProducerConsumer *op) override {
        if (op->name == func_) {
            if (!op->is_producer) consume_nodes++;
            if (op->is_producer) in_production_++;
            IRVisitor::visit(op);
            if (op->is_producer) in_production_--;
            return;
        }
        if (op->is_producer && in_production_ == 0) produced_outside.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Load *op) override {
        if (in_production_ > 0) read_by_producer.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        if (is_gpu_loop(op->for_type) || op->device_api == DeviceAPI::Vulkan) gpu_loop = true;
        IRVisitor::visit(op);
    }

private:
    const std::string &func_;
    int in_production_ = 0;
};

/** How far the let `max_name` (the max of a folded dimension of a Func's
 * stage bounds at its compute site) moves per iteration of the innermost
 * loop it moves with, if that is a constant: the step of a sliding window,
 * written in terms of the lets and loops inside `site`. */
std::optional<int64_t> production_step(const Stmt &site, const std::string &max_name) {
    class Find : public IRVisitor {
    public:
        explicit Find(const std::string &name) : name_(name) {}
        bool found = false;
        std::optional<int64_t> step;

    protected:
        using IRVisitor::visit;
        void visit(const For *op) override {
            if (found) return;
            frames_.push_back({op->name, Expr()});
            IRVisitor::visit(op);
            frames_.pop_back();
        }
        void visit(const LetStmt *op) override {
            if (found) return;
            if (op->name == name_) {
                found = true;
                step = measure(op->value);
                return;
            }
            frames_.push_back({op->name, op->value});
            IRVisitor::visit(op);
            frames_.pop_back();
        }

    private:
        std::optional<int64_t> measure(Expr e) const {
            for (size_t i = frames_.size(); i-- > 0;) {
                const auto &[name, value] = frames_[i];
                if (!expr_uses_var(e, name)) continue;
                if (value.defined()) {
                    e = substitute(name, value, e);
                    if (expr_size(e, 2048) >= 2048) return std::nullopt;
                    continue;
                }
                const Expr v = Variable::make(Int(32), name);
                return as_const_int(simplify(Sub::make(substitute(name, Add::make(v, Expr(1)), e), e)));
            }
            return std::nullopt;
        }
        const std::string &name_;
        std::vector<std::pair<std::string, Expr>> frames_;  // loops (no value) and lets, outermost first
    } find(max_name);
    site.accept(&find);
    return find.step;
}

/** ring_buffer(n): inside func's productions and consumptions, the
 * accesses of its storages move to copy `slot` (the iteration count of the
 * loops between the site and the store level, mod n). The productions
 * inside one iteration of the store level share its copy, as in Halide
 * (which counts the loops between HoistedStorage and Realize): a sliding
 * window reads there what earlier productions computed. */
class RingIndexing : public IRMutator {
public:
    RingIndexing(const std::string &func, const std::set<std::string> &storages, int copies,
                 const LoopLevel &store)
        : func_(func), storages_(storages), copies_(copies), store_(store) {}

protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        const bool counted = !below_store_;
        const bool is_store = counted && names_loop(store_, op->name);
        if (counted) loops_.push_back(op);
        below_store_ = below_store_ || is_store;
        Stmt body = mutate(op->body);
        if (is_store) below_store_ = false;
        if (counted) loops_.pop_back();
        if (body.same_as(op->body)) return op;
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
    }
    Stmt visit(const ProducerConsumer *op) override {
        if (op->name != func_ || inside_) return IRMutator::visit(op);
        Expr iteration = Expr(0);
        for (const For *loop : loops_) {
            iteration = Add::make(Mul::make(iteration, loop->extent),
                                  Sub::make(Variable::make(loop->min.type(), loop->name), loop->min));
        }
        inside_ = true;
        Stmt body = mutate(op->body);
        inside_ = false;
        return LetStmt::make(slot_name(), Mod::make(iteration, Expr(copies_)),
                             ProducerConsumer::make(op->name, op->is_producer, body));
    }
    Stmt visit(const Store *op) override {
        Stmt s = IRMutator::visit(op);
        if (!inside_ || !storages_.count(op->name)) return s;
        const Store *st = s.as<Store>();
        return Store::make(st->name, st->value, offset(st->name, st->index), st->predicate, st->param);
    }
    Expr visit(const Load *op) override {
        Expr e = IRMutator::visit(op);
        if (!inside_ || !storages_.count(op->name)) return e;
        const Load *ld = e.as<Load>();
        return Load::make(ld->type, ld->name, offset(ld->name, ld->index), ld->predicate, ld->param);
    }

private:
    std::string slot_name() const { return func_ + ".ring_slot"; }
    Expr offset(const std::string &storage, const Expr &index) const {
        return Add::make(index, Mul::make(Variable::make(Int(32), slot_name()),
                                          Variable::make(Int(32), storage + ".ring_copy")));
    }
    const std::string &func_;
    const std::set<std::string> &storages_;
    int copies_;
    const LoopLevel &store_;
    std::vector<const For *> loops_;
    bool below_store_ = false;
    bool inside_ = false;
};

class ForkAsyncProducers : public IRMutator {
public:
    ForkAsyncProducers(const PipelineStages &p, const StorageFolds &folds, const SlidWindows &windows) : p_(p) {
        for (const std::string &name : p.order) {
            const FunctionContents &f = p.func(name);
            if (!f.schedule.async && !f.schedule.ring_buffer.defined()) continue;
            for (int v = 0; v < f.outputs(); v++) storage_func_[storage_name(f, v)] = name;
        }
        for (const auto &[key, factor] : folds) {
            auto w = windows.count(key) ? as_const_int(windows.at(key)) : std::nullopt;
            folds_[key.first].push_back({key.second, as_const_int(factor), w});
        }
    }

protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        const bool gpu = is_gpu_loop(op->for_type) || op->device_api == DeviceAPI::Vulkan;
        gpu_depth_ += gpu;
        Stmt s = IRMutator::visit(op);
        gpu_depth_ -= gpu;
        return s;
    }

    Stmt visit(const Allocate *op) override {
        if (Stmt reordered = producers_outside(op); reordered.defined()) return mutate(reordered);
        auto it = storage_func_.find(op->name);
        if (it == storage_func_.end()) return IRMutator::visit(op);
        const std::string func = it->second;
        const FunctionContents &f = p_.func(func);
        // The storages of a Tuple nest; the site is inside the innermost.
        const bool innermost = ++open_[func] == f.outputs();
        Stmt body = innermost ? fork_site(func, op->body) : mutate(op->body);
        open_[func]--;
        std::vector<Expr> extents = op->extents;
        if (!f.schedule.ring_buffer.defined()) {
            return Allocate::make(op->name, op->type, op->memory_type, extents, op->condition, body);
        }
        Expr copy = Expr(1);
        for (const Expr &e : op->extents) copy = Mul::make(copy, e);
        extents.push_back(f.schedule.ring_buffer);
        return LetStmt::make(op->name + ".ring_copy", copy,
                             Allocate::make(op->name, op->type, op->memory_type, extents, op->condition, body));
    }

private:
    /** Allocations nested directly in one another (hoisted to one level, say)
     * are reordered producers first, so that an async Func forks outside
     * the storage of the Funcs that consume it, whose productions then lie
     * in its consumer half. Undefined if op heads no such chain, or one in
     * order already. */
    Stmt producers_outside(const Allocate *op) {
        std::vector<const Allocate *> chain;
        Stmt inner = op;
        bool async_inside = false;
        while (const Allocate *a = inner.as<Allocate>()) {
            chain.push_back(a);
            auto it = storage_func_.find(a->name);
            async_inside = async_inside || (it != storage_func_.end() && p_.func(it->second).schedule.async);
            inner = a->body;
        }
        if (chain.size() < 2 || !async_inside) return Stmt();
        std::vector<std::pair<int, size_t>> ranked;  // (realization order, place in the chain)
        for (size_t c = 0; c < chain.size(); c++) {
            int rank = -1;
            for (size_t i = 0; i < p_.order.size() && rank < 0; i++) {
                const FunctionContents &f = p_.func(p_.order[i]);
                for (int v = 0; v < f.outputs(); v++) {
                    if (storage_name(f, v) == chain[c]->name) rank = (int)i;
                }
            }
            ranked.emplace_back(rank, c);
        }
        if (std::is_sorted(ranked.begin(), ranked.end())) return Stmt();
        std::sort(ranked.begin(), ranked.end());  // stable: ties keep their place in the chain
        for (auto it = ranked.rbegin(); it != ranked.rend(); ++it) {
            const Allocate *a = chain[it->second];
            inner = Allocate::make(a->name, a->type, a->memory_type, a->extents, a->condition, inner);
        }
        return inner;
    }

    Stmt fork_site(const std::string &func, Stmt body) {
        const FunctionContents &f = p_.func(func);
        if (f.schedule.ring_buffer.defined()) {
            std::set<std::string> storages;
            for (int v = 0; v < f.outputs(); v++) storages.insert(storage_name(f, v));
            const LoopLevel &store =
                f.schedule.store_level.is_inlined() ? f.schedule.compute_level : f.schedule.store_level;
            body = RingIndexing(func, storages, (int)*as_const_int(f.schedule.ring_buffer), store).mutate(body);
        }
        if (!f.schedule.async) return mutate(body);
        // Lets at the top (e.g. a traced realization's Begin event) are
        // evaluated once, before the fork, for both halves.
        std::vector<Stmt> lets;  // kept alive while their bodies are split
        Stmt inner = body;
        while (const LetStmt *let = inner.as<LetStmt>()) {
            lets.push_back(inner);
            inner = let->body;
        }
        Stmt forked = fork(func, inner);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
            const LetStmt *let = it->as<LetStmt>();
            forked = LetStmt::make(let->name, let->value, forked);
        }
        return forked;
    }

    Stmt fork(const std::string &func, const Stmt &body) {
        const FunctionContents &f = p_.func(func);
        SiteFacts facts(func);
        body.accept(&facts);
        if (gpu_depth_ > 0 || facts.gpu_loop) {
            throw CompileError("Func " + func +
                               " is scheduled async(), but loops around it or in the code that uses its storage "
                               "run on the GPU: async() runs a CPU thread concurrently with its consumers. Remove "
                               "async() from " + func + " or keep these loops on the CPU.");
        }
        for (const std::string &storage : facts.read_by_producer) {
            for (const std::string &other : facts.produced_outside) {
                const FunctionContents &g = p_.func(other);
                for (int v = 0; v < g.outputs(); v++) {
                    if (storage_name(g, v) != storage) continue;
                    throw CompileError(
                        "The Func " + other + " is consumed by async Func " + func +
                        " and is computed between the storage and the computation of " + func +
                        ", where only the consumers of " + func + " run in order with it. This is only legal when " +
                        other + " is async() too and stored outside the storage of " + func + ", e.g. " + other +
                        ".store_root().compute_at(" + func + ", Var::outermost()).");
                }
            }
        }
        if (facts.consume_nodes == 0) return mutate(body);  // nothing waits for it

        const bool hoisted = !f.schedule.hoist_storage_level.is_inlined();
        int copies = 0;  // 0: the storage is never reused, the producer may run freely ahead
        if (f.schedule.ring_buffer.defined()) {
            copies = (int)*as_const_int(f.schedule.ring_buffer);
        } else if (hoisted) {
            copies = 1;
        }
        if (folds_.count(func)) {
            // Each copy of a ring buffer is folded too: both limits hold.
            const int fit = fold_copies(func, body);
            copies = copies > 0 ? std::min(copies, fit) : fit;
        }
        if (copies > 0 && facts.consume_nodes > 1) {
            throw CompileError("Func " + func + " is scheduled async() with storage that its productions reuse (" +
                               "hoist_storage, fold_storage or a sliding window), and is consumed in " +
                               std::to_string(facts.consume_nodes) +
                               " places per production: Loom can't tell when the storage is free again. Store " +
                               func + " where it is computed, or remove async().");
        }

        std::vector<std::string> consume_semaphores;
        for (int i = 0; i < facts.consume_nodes; i++) {
            consume_semaphores.push_back(func + ".semaphore." + std::to_string(i));
        }
        const std::string space = copies > 0 ? func + ".space_semaphore" : "";
        Stmt producer = ProducerHalf(func, consume_semaphores, space, clones_, clone_counter_).mutate(body);
        Stmt consumer = ConsumerHalf(func, consume_semaphores, space).mutate(body);
        // Async Funcs inside either half fork there in turn.
        producer = mutate(producer);
        consumer = mutate(consumer);
        Stmt result = Fork::make(producer, consumer);

        std::vector<std::pair<std::string, int>> semaphores;
        for (const std::string &s : consume_semaphores) semaphores.emplace_back(s, 0);
        if (copies > 0) semaphores.emplace_back(space, copies);
        for (const auto &[name, initial] : semaphores) {
            auto it = clones_.find(name);
            if (it != clones_.end()) {
                for (const std::string &clone : it->second) {
                    result = ReleaseClone(name, clone).mutate(result);
                    result = LetStmt::make(clone, make_semaphore_call(initial), result);
                }
                clones_.erase(it);
            }
            result = LetStmt::make(name, make_semaphore_call(initial), result);
        }
        return result;
    }

    /** How many productions the folded storage of func holds at once. A
     * production writes, and a consumption reads, at most a window of W
     * coordinates of a folded dimension, and the window moves by a step s
     * per production. Production j writes up to the window's max of
     * iteration j, and the consumer of iteration i still reads from that
     * max - (W - 1) - (j - i) * s on, so with F slots production j may run
     * while iteration i is consumed when (j - i) * s <= F - W: the space
     * semaphore starts at 1 + (F - W) / s. That is Halide's limit (its
     * folding semaphore counts coordinates: F to start, W taken by the
     * first production and s by each next, s given back by each
     * consumption), e.g. 6 for fold_storage(y, 8) under a 3-row stencil,
     * the producer up to 5 rows ahead. A fold without a window, or whose
     * step is not a constant, allows one production. */
    int fold_copies(const std::string &func, const Stmt &site) const {
        int copies = std::numeric_limits<int>::max();
        for (const Fold &fold : folds_.at(func)) {
            int fit = 1;
            if (fold.slots && fold.window && *fold.window > 0 && *fold.slots >= *fold.window) {
                const std::string max_name = p_.stages.at(func)[0].pure_vars.at(fold.dim) + ".max";
                auto step = production_step(site, max_name);
                if (step && *step > 0) {
                    fit = (int)std::min<int64_t>(std::numeric_limits<int>::max(),
                                                 1 + (*fold.slots - *fold.window) / *step);
                }
            }
            copies = std::min(copies, fit);
        }
        return copies;
    }

    static Expr make_semaphore_call(int initial) {
        return Call::make(Handle(), intrinsic::make_semaphore, {Expr(initial)}, CallType::Intrinsic);
    }

    const PipelineStages &p_;
    std::map<std::string, std::string> storage_func_;
    struct Fold {
        int dim;
        std::optional<int64_t> slots, window;  // the fold's factor; the window that slid, if one did
    };
    std::map<std::string, std::vector<Fold>> folds_;
    std::map<std::string, int> open_;
    std::map<std::string, std::vector<std::string>> clones_;
    int clone_counter_ = 0;
    int gpu_depth_ = 0;
};

}  // namespace

void check_async_schedules(const PipelineStages &pipeline) {
    // compute_with fuses the loops of two Funcs' productions into one nest,
    // which the fork can't split between two threads.
    for (const auto &[name, stages] : pipeline.stages) {
        for (const Stage &stage : stages) {
            if (stage.compute_with.is_inlined()) continue;
            const std::string &parent = stage.compute_with.func;
            const bool parent_async = pipeline.env.count(parent) && pipeline.func(parent).schedule.async;
            if (!parent_async && !pipeline.func(name).schedule.async) continue;
            const std::string async_func = parent_async ? parent : name;
            throw CompileError("Func " + async_func + " is scheduled async(), and " +
                               stage_description(name, stage.index) + " is computed with " + parent +
                               " (compute_with), which fuses their loops into one nest that the fork of an async "
                               "producer can't split. Remove async() or compute_with().");
        }
    }
    for (const auto &[name, ptr] : pipeline.env) {
        const FunctionContents &f = *ptr.get();
        const bool realized =
            std::find(pipeline.order.begin(), pipeline.order.end(), name) != pipeline.order.end();
        if (f.schedule.async) {
            if (pipeline.is_output(name)) {
                throw CompileError("Func " + name +
                                   " is an output of the pipeline and is scheduled async(): only a Func that other "
                                   "Funcs consume can be produced asynchronously. Remove async() from " + name + ".");
            }
            if (f.schedule.memoized) {
                throw CompileError("Func " + name +
                                   " is scheduled both async() and memoize(), which Loom does not combine (the cache "
                                   "lookup decides whether there is a production to wait for). Remove one of them "
                                   "from " + name + ".");
            }
            if (!realized) {
                throw CompileError("Func " + name +
                                   " is scheduled async() but is computed inline, so there is no production to run "
                                   "on a thread of its own. Give " + name +
                                   " a compute_root() or compute_at() schedule, or remove async().");
            }
        }
        if (f.schedule.ring_buffer.defined()) {
            const LoopLevel store =
                f.schedule.store_level.is_inlined() ? f.schedule.compute_level : f.schedule.store_level;
            if (f.schedule.hoist_storage_level.is_inlined() || same_level(f.schedule.hoist_storage_level, store)) {
                throw CompileError("Func " + name +
                                   " is scheduled with ring_buffer(), but has matching store_at and hoist_storage "
                                   "levels. Add an explicit hoist_storage directive (outside the store level) to "
                                   "the schedule of " + name + " to fix the issue.");
            }
        }
    }
}

Stmt fork_async_producers(const Stmt &s, const PipelineStages &pipeline, const StorageFolds &folds,
                          const SlidWindows &windows) {
    return ForkAsyncProducers(pipeline, folds, windows).mutate(s);
}

}  // namespace internal
}  // namespace loom
