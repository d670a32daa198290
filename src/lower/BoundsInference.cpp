#include "lower/BoundsInference.h"

#include <set>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "lower/BufferArguments.h"
#include "lower/ExternStages.h"
#include "lower/FunctionValueBounds.h"
#include "lower/LoopNames.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

/** The stage's loop variables, each bounded by its loop range. */
Scope<Interval> stage_scope(const Stage &s) {
    Scope<Interval> scope;
    for (const std::string &v : s.pure_vars) scope.push(v, Interval(var(v + ".min"), var(v + ".max")));
    for (const ReductionVariable &rv : s.rvars) {
        scope.push(rv.var, Interval(rv.min, simplify(Sub::make(Add::make(rv.min, rv.extent), Expr(1)))));
    }
    return scope;
}

/** The region of Func `func` that one of its own stages reads. */
Box self_requirement(const Stage &s) {
    Scope<Interval> scope = stage_scope(s);
    Box result;
    auto add = [&](const Expr &e) {
        auto boxes = boxes_required(e, scope);
        auto it = boxes.find(s.func);
        if (it != boxes.end()) merge_boxes(result, it->second);
    };
    for (const Expr &e : s.args) add(e);
    for (const Expr &e : s.values) add(e);
    if (s.predicate.defined()) add(s.predicate);
    if (s.loop_condition.defined()) add(s.loop_condition);
    return result;
}

std::string stage_description(const Stage &s) { return internal::stage_description(s.func, s.index); }

void require_bounded(const Box &box, const std::string &what, const std::string &where, const std::string &advice) {
    for (size_t d = 0; d < box.size(); d++) {
        if (box[d].is_bounded()) continue;
        throw CompileError(what + " is accessed at an index that bounds inference cannot bound in dimension " +
                           std::to_string(d) + " (" + where + "). " + advice);
    }
}

Box find_box(const std::map<std::string, Box> &boxes, const std::string &name) {
    auto it = boxes.find(name);
    return it == boxes.end() ? Box() : it->second;
}

/** What a loop_while condition reads of the stage's own Func: iteration r
 * reads what iteration r - 1 of the same stage wrote, so the stage itself
 * must compute it, not only the stages before it. */
Box loop_condition_requirement(const Stage &s) {
    if (!s.loop_condition.defined()) return Box();
    auto boxes = boxes_required(s.loop_condition, stage_scope(s));
    return find_box(boxes, s.func);
}

Expr error_call(int code, const std::vector<Expr> &pieces) {
    std::vector<Expr> args = {Expr(code)};
    args.insert(args.end(), pieces.begin(), pieces.end());
    return Call::make(Int(32), intrinsic::error, args, CallType::Intrinsic);
}

Stmt wrap_lets(const std::vector<std::pair<std::string, Expr>> &lets, Stmt body) {
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = LetStmt::make(it->first, it->second, body);
    return body;
}

/** Bounds inference defines the bounds of each Func where the Func is
 * computed, in terms of the bounds of its consumers. Those definitions are
 * lifted as far out as they can go (out of consume nodes, Realize nodes and
 * Blocks, never out of a loop or a produce node), so that a producer's region
 * can name its consumers' bounds instead of repeating their definitions: a
 * chain of Funcs then has definitions of linear size, where substituting
 * every definition into the next would grow exponentially. */
class LiftBoundsLets {
public:
    explicit LiftBoundsLets(const std::set<std::string> &names) : names_(names) {}
    std::vector<std::pair<std::string, Expr>> lifted;

    Stmt lift(const Stmt &s) {
        if (const LetStmt *l = s.as<LetStmt>()) {
            if (!names_.count(l->name)) return s;
            lifted.emplace_back(l->name, l->value);
            return lift(l->body);
        }
        if (const Block *b = s.as<Block>()) return Block::make(lift(b->first), lift(b->rest));
        if (const Realize *r = s.as<Realize>()) {
            return Realize::make(r->name, r->types, r->memory_type, r->bounds, r->condition, lift(r->body));
        }
        if (const ProducerConsumer *pc = s.as<ProducerConsumer>()) {
            if (!pc->is_producer) return ProducerConsumer::make_consume(pc->name, lift(pc->body));
        }
        return s;
    }

private:
    const std::set<std::string> &names_;
};

/** Writes the lifted definitions into a box where that keeps it small:
 * exact regions (a per-tile region [t, t + 15] keeps its constant extent)
 * without the exponential growth along a chain of Funcs. A definition left
 * out stays a name, which is in scope wherever the box is used. */
void substitute_small_lets(Box &box, const std::vector<std::pair<std::string, Expr>> &lets) {
    constexpr int kMaxNodes = 64;
    for (Interval &i : box) {
        for (Expr *e : {&i.min, &i.max}) {
            if (!e->defined()) continue;
            for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
                if (!expr_uses_var(*e, it->first) || is_extern_bounds_query(it->second)) continue;  // it runs once
                Expr candidate = simplify(substitute(it->first, it->second, *e));
                if (expr_size(candidate, kMaxNodes + 1) <= kMaxNodes) *e = candidate;
            }
        }
    }
}

void substitute_small_lets(std::map<std::string, Box> &boxes, const std::vector<std::pair<std::string, Expr>> &lets) {
    for (auto &[name, box] : boxes) substitute_small_lets(box, lets);
}

class BoundsInference : public IRMutator {
public:
    explicit BoundsInference(const PipelineStages &p) : p_(p) {}

protected:
    using IRMutator::visit;

    /** A computation site: Block(produce f, consume f), or a lone produce
     * of an output. */
    Stmt visit(const Block *op) override {
        const auto *produce = op->first.as<ProducerConsumer>();
        const auto *consume = op->rest.as<ProducerConsumer>();
        if (produce && produce->is_producer && consume && !consume->is_producer && produce->name == consume->name) {
            Stmt consumer = mutate(op->rest);
            return compute_site(produce, consumer);
        }
        if (produce && produce->is_producer && p_.is_output(produce->name)) {
            Stmt rest = mutate(op->rest);
            return Block::make(compute_site(produce, Stmt()), rest);
        }
        return IRMutator::visit(op);
    }

    Stmt visit(const ProducerConsumer *op) override {
        if (op->is_producer && p_.is_output(op->name)) return compute_site(op, Stmt());
        return IRMutator::visit(op);
    }

    Stmt visit(const For *op) override {
        loops_.push_back(op);
        Stmt result = IRMutator::visit(op);
        loops_.pop_back();
        return result;
    }

    /** Remembers the enclosing definitions (the loop bounds of the stages
     * around a computation site), to see through them. */
    Stmt visit(const LetStmt *op) override {
        let_values_.push(op->name, op->value);
        Stmt result = IRMutator::visit(op);
        let_values_.pop(op->name);
        return result;
    }

    /** Sizes the storage of a Func to everything touched inside (folding,
     * lower/StorageFolding.h, may shrink it later). */
    Stmt visit(const Realize *op) override {
        realize_depth_[op->name] = loops_.size();
        Stmt body = mutate(op->body);
        realize_depth_.erase(op->name);
        const FunctionContents &f = p_.func(op->name);
        LiftBoundsLets lifter(bounds_lets_);
        body = lifter.lift(body);
        const BoxFilter only_this = [&](const std::string &n) { return n == op->name; };
        Box touched = find_box(boxes_provided(body, {}, only_this), op->name);
        merge_boxes(touched, find_box(boxes_required(body, {}, only_this), op->name));
        substitute_small_lets(touched, lifter.lifted);
        require_bounded(touched, "Func '" + op->name + "'", "its storage", "Give it an explicit size with bound().");
        std::vector<std::pair<std::string, Expr>> lets;
        for (int i = 0; i < f.dimensions(); i++) {
            const std::string base = op->name + "." + f.args[i];
            Expr min = simplify(touched[i].min);
            lets.emplace_back(base + ".min_realized", min);
            // From the min's expression, not its name, so a per-tile region
            // [t, t + 15] gets the constant extent 16. A guarded tail
            // iteration can need nothing (max < min): empty storage, never a
            // negative extent.
            Expr extent = simplify(Add::make(Sub::make(touched[i].max, min), Expr(1)));
            lets.emplace_back(base + ".extent_realized", simplify(Max::make(extent, Expr(0))));
        }
        Stmt realize = Realize::make(op->name, op->types, op->memory_type, op->bounds, op->condition, body);
        for (const auto &let : lets) bounds_lets_.insert(let.first);
        return wrap_lets(lifter.lifted, wrap_lets(lets, realize));
    }

public:
    /** The names of the LetStmts this pass made. */
    std::set<std::string> bounds_lets_;

private:
    std::vector<const For *> loops_;
    std::map<std::string, size_t> realize_depth_;
    Scope<Expr> let_values_;

    /** Checks of a Func stored outside loops that enclose its computation:
     * no parallel or vectorized loop may lie between (its iterations would
     * compute into one buffer at the same time; as in Halide, a potential
     * race, refused), and each fold_storage() factor must hold what one
     * iteration of the consumers needs (asserted at run time; the fold
     * itself is made by lower/StorageFolding). */
    void check_storage_outside_loops(const FunctionContents &f, const Box &need, std::vector<Stmt> &checks) {
        auto depth = realize_depth_.find(f.name);
        if (depth == realize_depth_.end()) return;
        for (size_t l = depth->second; l < loops_.size(); l++) {
            if (loops_[l]->for_type == ForType::Serial || loops_[l]->for_type == ForType::Unrolled) continue;
            throw CompileError("Func '" + f.name + "' is stored outside the parallel or vectorized loop '" +
                               loops_[l]->name + "' but computed inside it: its iterations would write the same "
                               "buffer at the same time. Store it at that loop or inside it (store_at), or compute "
                               "it outside.");
        }
        for (const StorageFold &fold : f.schedule.storage_folds) check_user_fold(f, fold, need, checks);
    }

    void check_user_fold(const FunctionContents &f, const StorageFold &fold, const Box &need,
                         std::vector<Stmt> &checks) {
        int dim = -1;
        for (int i = 0; i < f.dimensions(); i++) {
            if (f.args[i] == fold.var) dim = i;
        }
        if (dim < 0) {
            throw CompileError("Func '" + f.name + "' folds storage of '" + fold.var +
                               "', which is not one of its pure variables.");
        }
        Expr footprint = simplify(Add::make(Sub::make(need[dim].max, need[dim].min), Expr(1)));
        checks.push_back(AssertStmt::make(
            LE::make(footprint, fold.factor),
            error_call(loom_error_code_buffer_too_small,
                       {StringImm::make("Func " + f.name + " folds dimension " + fold.var + " into "), fold.factor,
                        StringImm::make(" slots, but one iteration of its consumer needs "), footprint,
                        StringImm::make(". Increase the fold factor.")})));
    }

    Box output_buffer_region(const FunctionContents &f) {
        const std::string buf = storage_name(f, 0);
        Box box;
        for (int d = 0; d < f.dimensions(); d++) {
            Expr min = var(buf + ".min." + std::to_string(d));
            Expr extent = var(buf + ".extent." + std::to_string(d));
            box.emplace_back(min, simplify(Sub::make(Add::make(min, extent), Expr(1))));
        }
        return box;
    }

    std::string callers_of(const std::string &name) {
        std::string names;
        for (const std::string &other : p_.order) {
            for (const Stage &s : p_.stages.at(other)) {
                Scope<Interval> none;
                bool calls = false;
                for (const Expr &e : s.values) calls = calls || boxes_required(e, none).count(name);
                for (const Expr &e : s.args) calls = calls || boxes_required(e, none).count(name);
                if (calls && other != name) {
                    std::string d = stage_description(s);
                    names += names.empty() ? d : " and " + d;
                }
            }
        }
        return names.empty() ? "its callers" : "called by " + names;
    }

    /** Applies Func::bound / bound_extent; asserts they cover the need. */
    Box apply_user_bounds(const FunctionContents &f, Box required, std::vector<Stmt> &checks) {
        for (const Bound &b : f.schedule.bounds) {
            int dim = -1;
            for (int i = 0; i < f.dimensions(); i++) {
                if (f.args[i] == b.var) dim = i;
            }
            if (dim < 0) {
                throw CompileError("Func '" + f.name + "' has a bound on '" + b.var +
                                   "', which is not one of its pure variables.");
            }
            const Interval &need = required[dim];
            Expr min = b.min.defined() ? b.min : need.min;
            Expr max = simplify(Sub::make(Add::make(min, b.extent), Expr(1)));
            // A scan output's buffer is its loop's capacity, larger than the
            // rows that run (lower/ScanOutputs.h): no check against it.
            const Call *count = b.extent.as<Call>();
            const bool scan = count && count->is_intrinsic(intrinsic::trip_count) && p_.is_output(f.name);
            if (need.is_bounded() && !scan) {
                Expr ok = And::make(LE::make(min, need.min), GE::make(max, need.max));
                Expr msg = error_call(loom_error_code_buffer_too_small,
                                      {StringImm::make("Func " + f.name + " is bounded in dimension " + b.var + " to ["),
                                       min, StringImm::make(", "), max,
                                       StringImm::make("], but its consumers read ["), need.min, StringImm::make(", "),
                                       need.max, StringImm::make("]. Widen the bound or remove it.")});
                checks.push_back(AssertStmt::make(ok, msg));
            }
            required[dim] = Interval(min, max);
        }
        return required;
    }

    /** Applies Func::align_bounds / align_extent: the region widens so its
     * min is the remainder modulo the modulus (align_bounds) and its extent
     * a multiple of the modulus (floor division rounds toward -infinity). */
    Box apply_bound_alignments(const FunctionContents &f, Box region) {
        for (const BoundAlignment &a : f.schedule.bound_alignments) {
            int dim = -1;
            for (int i = 0; i < f.dimensions(); i++) {
                if (f.args[i] == a.var) dim = i;
            }
            if (dim < 0) {
                throw CompileError("Func '" + f.name + "' aligns the bounds of '" + a.var +
                                   "', which is not one of its pure variables.");
            }
            Interval &i = region[dim];
            if (!i.is_bounded()) continue;  // bound() or a clamp must come first; reported by require_bounded
            Expr min = i.min;
            if (a.remainder.defined()) {
                min = Add::make(Mul::make(Div::make(Sub::make(min, a.remainder), a.modulus), a.modulus), a.remainder);
            }
            min = simplify(min);
            Expr extent = Mul::make(Div::make(Add::make(Sub::make(i.max, min), a.modulus), a.modulus), a.modulus);
            i = Interval(min, simplify(Sub::make(Add::make(min, extent), Expr(1))));
        }
        return region;
    }

    /** The region of a Func whose consumers read only the trip count of its
     * loop (RDom::trip_count): no value of it is read, so the region its
     * loop computes must come from bound() on every dimension. */
    Box region_for_trip_count_only(const FunctionContents &f) {
        std::set<std::string> bounded;
        for (const Bound &b : f.schedule.bounds) bounded.insert(b.var);
        for (const std::string &a : f.args) {
            if (bounded.count(a)) continue;
            throw CompileError("Func '" + f.name + "' is computed only for the trip count of its loop: no consumer "
                               "reads a value of it, so Loom can't tell which region each iteration computes. Give '" +
                               f.name + "' a bound() in every dimension ('" + a + "' has none), or read its "
                               "result (e.g. its last state) in the same pipeline.");
        }
        return Box(f.dimensions(), Interval::everything());
    }

    /** Defines the stage bounds of f around its produce node (and consume
     * part, if any, which was already processed). */
    Stmt compute_site(const ProducerConsumer *produce, const Stmt &consumer) {
        const std::string &name = produce->name;
        const FunctionContents &f = p_.func(name);
        const std::vector<Stage> &stages = p_.stages.at(name);

        Box need;
        LiftBoundsLets lifter(bounds_lets_);
        Stmt consumer_stmt = consumer.defined() ? lifter.lift(consumer) : consumer;
        if (p_.is_output(name)) {
            need = output_buffer_region(f);
        } else {
            std::map<std::string, Box> required =
                boxes_required(consumer_stmt, {}, [&](const std::string &n) { return n == name; });
            substitute_small_lets(required, lifter.lifted);
            // A zero-dimensional Func has an empty box even where it is used.
            if (!required.count(name)) need = region_for_trip_count_only(f);
            else need = required.at(name);
            require_bounded(need, "Func '" + name + "'", callers_of(name),
                            "Clamp the index (clamp(), a BoundaryConditions function) or give '" + name +
                                "' an explicit size with bound().");
        }
        std::vector<Stmt> checks;
        need = apply_user_bounds(f, need, checks);
        need = apply_bound_alignments(f, need);
        if (!p_.is_output(name)) check_storage_outside_loops(f, need, checks);

        // Stage k computes what later stages and the consumers need.
        std::vector<std::pair<std::string, Expr>> lets;
        Box computed = need;
        for (int k = (int)stages.size() - 1; k >= 0; k--) {
            const Stage &s = stages[k];
            Box condition = loop_condition_requirement(s);
            if (!condition.empty()) {
                require_bounded(condition, "Func '" + name + "'", "the loop_while condition of " + stage_description(s),
                                "Clamp the index so it stays in a known range.");
                merge_boxes(computed, condition);
            }
            for (int i = 0; i < f.dimensions(); i++) {
                lets.emplace_back(s.pure_vars[i] + ".min", simplify(computed[i].min));
                // A constant extent (a per-tile region [t, t + 255]) is kept
                // visible as min + 255, so the stage's loops get constant
                // extents and its vector tails can be proven absent.
                Expr extent = resolve_through_lets(Sub::make(computed[i].max, computed[i].min), let_values_);
                if (is_const(extent)) {
                    lets.emplace_back(s.pure_vars[i] + ".max", Add::make(var(s.pure_vars[i] + ".min"), extent));
                } else {
                    lets.emplace_back(s.pure_vars[i] + ".max", simplify(computed[i].max));
                }
                computed[i] = Interval(var(s.pure_vars[i] + ".min"), var(s.pure_vars[i] + ".max"));
            }
            if (k == 0) break;
            Box self = self_requirement(s);
            if (self.empty()) continue;
            require_bounded(self, "Func '" + name + "'", "it reads itself in " + stage_description(s),
                            "Clamp the index so it stays in a known range.");
            merge_boxes(computed, self);
        }
        // An extern stage asks its C function what it reads (lower/ExternStages.h).
        for (auto &let : extern_bounds_query(p_, stages[0])) lets.push_back(std::move(let));
        // Each stage's bounds refer only to the later stages' defined before.
        Stmt produce_stmt = IRMutator::visit(produce);
        Stmt site = consumer_stmt.defined() ? Block::make(produce_stmt, consumer_stmt) : produce_stmt;
        if (!checks.empty()) {
            checks.push_back(site);
            site = Block::make(checks);
        }
        for (const auto &let : lets) bounds_lets_.insert(let.first);
        return wrap_lets(lifter.lifted, wrap_lets(lets, site));
    }

    const PipelineStages &p_;
};

}  // namespace

/** The Funcs an Expr calls. */
std::set<std::string> funcs_called(const Expr &e) {
    FindFuncCalls finder;
    if (e.defined()) finder.include(e);
    std::set<std::string> names;
    for (const auto &call : finder.calls) names.insert(call.first);
    return names;
}

/** e without the operands of its outer min/max that call Funcs: the part
 * of a union of regions known before any Func is computed (undefined if
 * none is). */
Expr without_func_terms(const Expr &e) {
    if (funcs_called(e).empty()) return e;
    auto pair = [](const Expr &a, const Expr &b, auto make) -> Expr {
        Expr x = without_func_terms(a), y = without_func_terms(b);
        if (!x.defined()) return y;
        if (!y.defined()) return x;
        return make(x, y);
    };
    if (const Max *m = e.as<Max>()) return pair(m->a, m->b, [](Expr a, Expr b) { return Max::make(a, b); });
    if (const Min *m = e.as<Min>()) return pair(m->a, m->b, [](Expr a, Expr b) { return Min::make(a, b); });
    return Expr();
}

/** Region checks of input and output buffers whose endpoints read Funcs
 * (an RDom whose extent is computed by the pipeline, a trip count): the top
 * of the pipeline checks the part known there, and the whole is checked
 * once the Funcs are computed, at the start of the consume node of the last
 * of them in realization order, before anything reads the buffer there (an
 * output Func has no consume node: right after its produce node). */
class DeferFuncDependentChecks : public IRMutator {
public:
    DeferFuncDependentChecks(const PipelineStages &p, std::map<std::string, Box> &regions, const std::string &what)
        : p_(p) {
        for (auto &[name, box] : regions) {
            for (size_t d = 0; d < box.size(); d++) {
                for (bool is_min : {true, false}) {
                    Expr &endpoint = is_min ? box[d].min : box[d].max;
                    std::set<std::string> funcs = funcs_called(endpoint);
                    if (funcs.empty()) continue;
                    std::string last;
                    for (const std::string &f : p.order) {
                        if (funcs.count(f)) last = f;
                    }
                    if (last.empty()) continue;  // inlined Funcs were substituted already
                    checks_[last].push_back(buffer_region_check(what + name, name, (int)d, endpoint, is_min));
                    endpoint = without_func_terms(endpoint);
                }
            }
        }
    }

protected:
    using IRMutator::visit;
    Stmt visit(const ProducerConsumer *op) override {
        Stmt body = mutate(op->body);
        auto it = checks_.find(op->name);
        if (!op->is_producer && it != checks_.end()) {
            std::vector<Stmt> all = it->second;
            all.push_back(body);
            body = Block::make(all);
        }
        Stmt node = ProducerConsumer::make(op->name, op->is_producer, body);
        if (op->is_producer && it != checks_.end() && p_.is_output(op->name)) {
            std::vector<Stmt> all = {node};
            all.insert(all.end(), it->second.begin(), it->second.end());
            node = Block::make(all);
        }
        return node;
    }

private:
    const PipelineStages &p_;
    std::map<std::string, std::vector<Stmt>> checks_;
};

/** promise_clamped(v, lo, hi) as the clamp max(min(v, hi), lo): the same
 * value wherever the promise holds, and in range where it does not. */
class PromisesToClamps : public IRMutator {
protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (!op->is_intrinsic(intrinsic::promise_clamped) || op->args.size() != 3) return IRMutator::visit(op);
        return Max::make(Min::make(mutate(op->args[0]), mutate(op->args[2])), mutate(op->args[1]));
    }
};

/** Removes the promises that a fused loop's variables stay in their loops'
 * ranges (lower/StageLoopNest.cpp, promise_fused_ranges): bounds inference
 * has used them, and later passes (the vectorizer's dense accesses) read
 * the plain definitions xy % I + min and xy / I + min.
 *
 * The regions bounds inference computed (`bounds_lets`) carry such promises
 * too, and there they are clamps: a region let is evaluated in every
 * iteration of the loop it sits in, also where a guarded split's tail runs
 * the fused variable past its extent (the guard wraps only the definition
 * that needs it). A promise there was false, and a Func computed per
 * iteration of such a loop computed rows its storage, sized under the
 * promise, did not hold (fuzz seed 1210954: a store past the allocation). */
class StripFusedRangePromises : public IRMutator {
public:
    explicit StripFusedRangePromises(const std::set<std::string> &bounds_lets) : bounds_lets_(bounds_lets) {}

protected:
    using IRMutator::visit;
    Stmt visit(const LetStmt *op) override {
        Stmt body = mutate(op->body);
        const Call *promise = op->value.as<Call>();
        const Add *sum = promise && promise->is_intrinsic(intrinsic::promise_clamped) && promise->args.size() == 3
                             ? promise->args[0].as<Add>()
                             : nullptr;
        const bool fused = sum && (sum->a.as<Mod>() || sum->a.as<Div>());
        Expr value = fused                        ? promise->args[0]
                     : bounds_lets_.count(op->name) ? PromisesToClamps().mutate(op->value)
                                                    : op->value;
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }

private:
    const std::set<std::string> &bounds_lets_;
};

/** The box with its promises made clamps (StripFusedRangePromises). */
void promises_to_clamps(Box &box) {
    for (Interval &i : box) {
        if (i.min.defined()) i.min = PromisesToClamps().mutate(i.min);
        if (i.max.defined()) i.max = PromisesToClamps().mutate(i.max);
    }
}

InferredBounds bounds_inference(const Stmt &s, const PipelineStages &pipeline) {
    InferredBounds result;
    // An index read from a Func computed out of line is bounded by the
    // values that Func computes, as it is when the Func is inlined.
    const FuncValueBounds value_bounds = compute_function_value_bounds(pipeline);
    const WithFuncValueBounds use_value_bounds(value_bounds);
    BoundsInference inference(pipeline);
    Stmt stmt = inference.mutate(s);
    LiftBoundsLets lifter(inference.bounds_lets_);
    stmt = lifter.lift(stmt);
    result.top_lets = lifter.lifted;
    result.stmt = wrap_lets(result.top_lets, stmt);

    // Everything inside is bound by lets and loops, so these boxes are in
    // terms of buffer fields, Params and the top-level definitions.
    // Only the input buffers and the outputs: the regions of the Funcs
    // computed inside were found at their compute sites.
    const BoxFilter inputs_and_outputs = [&](const std::string &n) {
        return !pipeline.env.count(n) || pipeline.is_output(n);
    };
    auto required = boxes_required(stmt, {}, inputs_and_outputs);
    auto provided = boxes_provided(stmt, {}, inputs_and_outputs);
    substitute_small_lets(required, result.top_lets);
    substitute_small_lets(provided, result.top_lets);
    for (const auto &[name, box] : required) {
        if (pipeline.env.count(name)) continue;
        require_bounded(box, "Input buffer '" + name + "'", "read by the pipeline",
                        "Clamp the index (clamp() or a BoundaryConditions function) so Loom can size the region it "
                        "reads.");
        result.input_regions[name] = box;
        promises_to_clamps(result.input_regions[name]);
    }
    for (const FunctionPtr &o : pipeline.outputs) {
        const FunctionContents &f = *o.get();
        Box touched = find_box(provided, f.name);
        merge_boxes(touched, find_box(required, f.name));
        require_bounded(touched, "Output Func '" + f.name + "'", "written or read by the pipeline",
                        "Clamp the index of its updates so it stays in a known range.");
        promises_to_clamps(touched);
        for (int v = 0; v < f.outputs(); v++) result.output_regions[storage_name(f, v)] = touched;
    }
    result.stmt = DeferFuncDependentChecks(pipeline, result.input_regions, "Input buffer ").mutate(result.stmt);
    result.stmt = DeferFuncDependentChecks(pipeline, result.output_regions, "Output buffer ").mutate(result.stmt);
    result.stmt = StripFusedRangePromises(inference.bounds_lets_).mutate(result.stmt);
    return result;
}

}  // namespace internal
}  // namespace loom
