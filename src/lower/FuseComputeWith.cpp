// compute_with, second half: merges the loop nests of each fused group
// (ComputeWith.h says what is fused and why it is legal).
//
// Bounds inference has run on the unfused nest, so every stage's loops are
// For(v, v.loop_min, v.loop_extent) under the stage's lets, inside the
// produce node of its Func. For a group with parent P and children C1..Cn:
//   1. Each child of another Func is taken out of its produce node. The
//      lets, checks and Realize nodes between the parent's production and
//      the child's (bounds inference put them there) move out to enclose
//      the parent's production, so the child's symbols and storage exist
//      where it now runs.
//   2. In the parent's produce node the stage's nest is replaced by
//        <lets of P and the Ci>
//        for v1 in union of the ranges:  ...  for vD in union:
//          if (P in range) <P's body inside its loop vD>
//          let c1 = v1 ... cD = vD in if (C1 in range) <C1's body>  ...
//      where a stage whose range is provably the union needs no guard.

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "lower/ComputeWith.h"

namespace loom {
namespace internal {

namespace {

std::string stage_text(const StageRef &s) { return stage_description(s.func, s.stage); }

std::vector<Stmt> flatten(const Stmt &s) {
    std::vector<Stmt> out;
    flatten_block(s, out);
    return out;
}

/** The stage of `func` a stage nest belongs to, from its loop names
 * ("f.s2.y" -> 2), or -1. */
int stage_index(const Stmt &s, const std::string &func) {
    struct Find : IRVisitor {
        std::string prefix;
        int index = -1;
        using IRVisitor::visit;
        void visit(const For *op) override {
            if (index < 0 && op->name.compare(0, prefix.size(), prefix) == 0) {
                size_t end = op->name.find('.', prefix.size());
                index = std::stoi(op->name.substr(prefix.size(), end - prefix.size()));
                return;
            }
            IRVisitor::visit(op);
        }
    } find;
    find.prefix = func + ".s";
    s.accept(&find);
    return find.index;
}

bool contains_produce(const Stmt &s, const std::string &func) {
    struct Find : IRVisitor {
        std::string func;
        bool found = false;
        using IRVisitor::visit;
        void visit(const ProducerConsumer *op) override {
            if (op->is_producer && op->name == func) found = true;
            if (!found) IRVisitor::visit(op);
        }
    } find;
    find.func = func;
    s.accept(&find);
    return find.found;
}

bool only_asserts(const Stmt &s) {
    for (const Stmt &item : flatten(s)) {
        if (!item.as<AssertStmt>()) return false;
    }
    return true;
}

/** A node that encloses a child's production and moves out to enclose the
 * parent's: a LetStmt, a Realize, or checks that run before. */
struct Hoisted {
    Stmt node;  // LetStmt or Realize (its body is replaced), or the checks
};

Stmt wrap(const std::vector<Hoisted> &hoisted, Stmt body) {
    for (auto it = hoisted.rbegin(); it != hoisted.rend(); ++it) {
        if (const LetStmt *l = it->node.as<LetStmt>()) {
            body = LetStmt::make(l->name, l->value, body);
        } else if (const Realize *r = it->node.as<Realize>()) {
            body = Realize::make(r->name, r->types, r->memory_type, r->bounds, r->condition, body);
        } else {
            body = Block::make(it->node, body);
        }
    }
    return body;
}

/** Takes the stages `wanted` of Func `func` out of its produce node, which
 * must be reached from the statement through only lets, checks, Realize
 * nodes, consume nodes and the productions of `passable` Funcs (the group's
 * Funcs already handled). */
class ExtractStages {
public:
    ExtractStages(const std::string &func, const std::vector<int> &wanted, const std::set<std::string> &passable)
        : func_(func), wanted_(wanted), passable_(passable) {}

    std::vector<Hoisted> hoisted;
    std::map<int, Stmt> stages;

    Stmt walk(const Stmt &s) {
        if (const LetStmt *l = s.as<LetStmt>()) {
            hoisted.push_back({s});
            return walk(l->body);
        }
        if (const Realize *r = s.as<Realize>()) {
            hoisted.push_back({s});
            return walk(r->body);
        }
        if (const ProducerConsumer *pc = s.as<ProducerConsumer>()) {
            if (pc->is_producer && pc->name == func_) return ProducerConsumer::make_produce(func_, take(pc->body));
            if (!pc->is_producer) return ProducerConsumer::make_consume(pc->name, walk(pc->body));
        }
        if (s.as<Block>()) {
            std::vector<Stmt> items = flatten(s);
            for (Stmt &item : items) {
                if (contains_produce(item, func_)) {
                    item = walk(item);
                    return Block::make(items);
                }
                if (only_asserts(item)) {
                    hoisted.push_back({item});
                    item = Stmt();
                    continue;
                }
                if (passable(item)) continue;
                break;
            }
        }
        throw InternalError("compute_with: the production of Func " + func_ +
                            " is not next to the production of the Func it is fused with");
    }

private:
    bool passable(const Stmt &s) const {
        const ProducerConsumer *pc = s.as<ProducerConsumer>();
        return pc && pc->is_producer && passable_.count(pc->name);
    }

    Stmt take(const Stmt &body) {
        std::vector<Stmt> rest;
        for (const Stmt &item : flatten(body)) {
            int index = stage_index(item, func_);
            if (std::find(wanted_.begin(), wanted_.end(), index) != wanted_.end()) {
                stages[index] = item;
            } else {
                rest.push_back(item);
            }
        }
        for (int w : wanted_) {
            if (!stages.count(w)) throw InternalError("compute_with: stage " + std::to_string(w) + " of " + func_ +
                                                      " has no loop nest to fuse");
        }
        Stmt remaining = Block::make(rest);
        return remaining.defined() ? remaining : Evaluate::make(Expr(0));
    }

    std::string func_;
    std::vector<int> wanted_;
    std::set<std::string> passable_;
};

/** A stage nest split at its fused loops. */
struct Nest {
    StageRef who;
    std::vector<std::pair<std::string, Expr>> lets;
    std::vector<const For *> loops;  // outermost first
    Stmt inner;                      // body of the innermost fused loop
};

class FuseComputeWith : public IRMutator {
public:
    FuseComputeWith(const PipelineStages &p, bool check_ranges) : p_(p), check_ranges_(check_ranges) {}

protected:
    using IRMutator::visit;

    Stmt visit(const LetStmt *op) override {
        auto old = lets_.find(op->name);
        std::optional<Expr> saved;
        if (old != lets_.end()) saved = old->second;
        lets_[op->name] = op->value;
        Stmt result = IRMutator::visit(op);
        if (saved) {
            lets_[op->name] = *saved;
        } else {
            lets_.erase(op->name);
        }
        return result;
    }

    /** Step 1: where a parent Func is produced, bring the children of other
     * Funcs next to it. */
    Stmt visit(const Block *op) override {
        std::vector<Stmt> items = flatten(Stmt(op));
        for (size_t i = 0; i < items.size(); i++) {
            // Case A: produce f; consume f { ... }. Case B (an output):
            // [lets, checks] produce f; <the following items>.
            std::vector<Hoisted> own;
            Stmt core = items[i];
            while (true) {
                if (const LetStmt *l = core.as<LetStmt>()) {
                    own.push_back({core});
                    core = l->body;
                    continue;
                }
                if (!core.as<Block>()) break;
                std::vector<Stmt> parts = flatten(core);
                Stmt last = parts.back();
                parts.pop_back();
                if (parts.empty() || !only_asserts(Block::make(parts))) break;
                own.push_back({Block::make(parts)});
                core = last;
            }
            const ProducerConsumer *produce = core.as<ProducerConsumer>();
            if (!produce || !produce->is_producer || done_.count(produce->name)) continue;
            std::vector<StageRef> others = other_func_children(produce->name);
            if (others.empty()) continue;
            done_.insert(produce->name);
            const ProducerConsumer *consume =
                i + 1 < items.size() && own.empty() ? items[i + 1].as<ProducerConsumer>() : nullptr;
            if (consume && !consume->is_producer && consume->name == produce->name) {
                std::vector<Hoisted> hoisted;
                Stmt body = extract(produce->name, others, consume->body, hoisted);
                items[i] = wrap(hoisted, Block::make(items[i], ProducerConsumer::make_consume(consume->name, body)));
                items.erase(items.begin() + (long)i + 1);
            } else {
                std::vector<Stmt> following(items.begin() + (long)i + 1, items.end());
                std::vector<Hoisted> hoisted;
                Stmt rest = extract(produce->name, others, Block::make(following), hoisted);
                Stmt site = items[i];
                items.resize(i);
                items.push_back(wrap(hoisted, Block::make(site, rest)));
                break;
            }
        }
        std::vector<Stmt> result;
        for (const Stmt &item : items) result.push_back(mutate(item));
        return Block::make(result);
    }

    /** Step 2: fuse the nests inside the parent's produce node. */
    Stmt visit(const ProducerConsumer *op) override {
        if (!op->is_producer) return IRMutator::visit(op);
        std::vector<Stmt> items = flatten(op->body);
        bool changed = false;
        for (const FusedGroup &g : p_.fused_groups) {
            if (g.parent.func != op->name) continue;
            changed = true;
            std::vector<Nest> nests;
            nests.push_back(take_nest(items, g.parent, g.depth, true));
            for (const StageRef &c : g.children) {
                if (c.func == op->name) {
                    nests.push_back(take_nest(items, c, g.depth, false));
                } else {
                    auto it = pending_.find(c);
                    if (it == pending_.end()) {
                        throw InternalError("compute_with: the loop nest of " + stage_text(c) + " was not found");
                    }
                    nests.push_back(split_nest(it->second, c, g.depth));
                    pending_.erase(it);
                }
            }
            Stmt fused = fuse(nests, g);
            // The fused nest takes the parent's place.
            for (Stmt &item : items) {
                if (item.same_as(parent_marker_)) item = fused;
            }
        }
        if (!changed) return IRMutator::visit(op);
        std::vector<Stmt> kept;
        for (const Stmt &item : items) {
            if (item.defined()) kept.push_back(item);
        }
        return ProducerConsumer::make_produce(op->name, mutate(Block::make(kept)));
    }

private:
    std::vector<StageRef> other_func_children(const std::string &func) const {
        std::vector<StageRef> out;
        for (const FusedGroup &g : p_.fused_groups) {
            if (g.parent.func != func) continue;
            for (const StageRef &c : g.children) {
                if (c.func != func) out.push_back(c);
            }
        }
        return out;
    }

    /** Takes the children's stage nests out of `s` (the statement after the
     * parent's production) into pending_; returns what remains. */
    Stmt extract(const std::string &parent, const std::vector<StageRef> &children, Stmt s,
                 std::vector<Hoisted> &hoisted) {
        std::map<std::string, std::vector<int>> by_func;
        std::vector<std::string> funcs;
        for (const StageRef &c : children) {
            if (!by_func.count(c.func)) funcs.push_back(c.func);
            by_func[c.func].push_back(c.stage);
        }
        std::set<std::string> passable = {parent};
        for (const std::string &f : funcs) {
            ExtractStages extractor(f, by_func.at(f), passable);
            s = extractor.walk(s);
            hoisted.insert(hoisted.end(), extractor.hoisted.begin(), extractor.hoisted.end());
            for (const auto &[index, nest] : extractor.stages) pending_[StageRef{f, index}] = nest;
            passable.insert(f);
        }
        return s;
    }

    /** Removes the parent's or an own child's nest from items (the parent's
     * slot keeps a marker). */
    Nest take_nest(std::vector<Stmt> &items, const StageRef &who, int depth, bool is_parent) {
        for (Stmt &item : items) {
            if (!item.defined() || stage_index(item, who.func) != who.stage) continue;
            Stmt nest = item;
            if (is_parent) {
                parent_marker_ = Evaluate::make(Expr(0));
                item = parent_marker_;
            } else {
                item = Stmt();
            }
            return split_nest(nest, who, depth);
        }
        throw InternalError("compute_with: the loop nest of " + stage_text(who) + " was not found");
    }

    Nest split_nest(Stmt s, const StageRef &who, int depth) {
        Nest n;
        n.who = who;
        while (const LetStmt *l = s.as<LetStmt>()) {
            n.lets.emplace_back(l->name, l->value);
            s = l->body;
        }
        for (int d = 0; d < depth; d++) {
            const For *loop = s.as<For>();
            if (!loop) {
                std::string where = n.loops.empty() ? std::string("its outermost loop")
                                                    : "loop '" + n.loops.back()->name + "'";
                throw CompileError("compute_with fuses " + std::to_string(depth) + " loops of " + stage_text(who) +
                                   ", but something is computed or stored at " + where +
                                   ", between the fused loops. Compute it at the innermost fused loop or inside it.");
            }
            n.loops.push_back(loop);
            s = loop->body;
        }
        n.inner = s;
        return n;
    }

    /** e with the enclosing and the nests' lets substituted, simplified. */
    Expr expand(Expr e, const std::map<std::string, Expr> &local) const {
        for (int round = 0; round < 32; round++) {
            Expr before = e;
            e = substitute(local, e);
            e = substitute(lets_, e);
            e = simplify(e);
            if (equal(before, e)) break;
        }
        return e;
    }

    bool provably_equal(const Expr &a, const Expr &b, const std::map<std::string, Expr> &local) const {
        return can_prove(expand(EQ::make(a, b), local));
    }

    /** How far child k's loop d is shifted against the parent's, by its
     * LoopAlignStrategy: the child's loop variable is the parent's plus
     * this (0: no shift). */
    Expr alignment_offset(const Nest &child, const Nest &parent, int d) const {
        const Stage &stage = p_.stages.at(child.who.func).at(child.who.stage);
        const For *l = child.loops[d], *pl = parent.loops[d];
        auto it = stage.compute_with_align.find(l->name);
        LoopAlignStrategy a = it != stage.compute_with_align.end() ? it->second : stage.compute_with_align_default;
        if (a == LoopAlignStrategy::AlignStart) return simplify(Sub::make(l->min, pl->min));
        if (a == LoopAlignStrategy::AlignEnd) {
            return simplify(Sub::make(Add::make(l->min, l->extent), Add::make(pl->min, pl->extent)));
        }
        return Expr(0);
    }

    /** compute_with's alignment names loops of the fused stage, which must
     * be among the fused ones. */
    void check_aligned_loops(const Nest &n, int depth) const {
        const Stage &stage = p_.stages.at(n.who.func).at(n.who.stage);
        for (const auto &[name, strategy] : stage.compute_with_align) {
            bool fused = false;
            for (int d = 0; d < depth; d++) fused = fused || n.loops[d]->name == name;
            if (!fused) {
                std::string loops;
                for (int d = 0; d < depth; d++) loops += (loops.empty() ? "" : ", ") + n.loops[d]->name;
                throw CompileError("compute_with of " + stage_text(n.who) + " aligns loop '" + name +
                                   "', which is not one of its fused loops (" + loops +
                                   "). Align only loops that compute_with fuses.");
            }
        }
    }

    Stmt fuse(const std::vector<Nest> &nests, const FusedGroup &g) {
        std::map<std::string, Expr> local;
        for (const Nest &n : nests) {
            for (const auto &[name, value] : n.lets) local[name] = value;
        }
        const Nest &parent = nests.front();
        const int depth = g.depth;
        for (size_t k = 1; k < nests.size(); k++) check_aligned_loops(nests[k], depth);
        std::vector<Expr> union_min(depth), union_extent(depth);
        std::vector<std::vector<bool>> guarded(nests.size(), std::vector<bool>(depth, false));
        // offset[k][d]: child k's loop variable is the parent's plus this.
        std::vector<std::vector<Expr>> offset(nests.size(), std::vector<Expr>(depth, Expr(0)));
        for (int d = 0; d < depth; d++) {
            const For *pl = parent.loops[d];
            bool all_same = true;
            for (const Nest &n : nests) {
                const For *l = n.loops[d];
                all_same = all_same && provably_equal(l->min, pl->min, local) &&
                           provably_equal(l->extent, pl->extent, local);
            }
            if (all_same) {
                union_min[d] = pl->min;
                union_extent[d] = pl->extent;
                continue;
            }
            Expr lo = pl->min, hi = Sub::make(Add::make(pl->min, pl->extent), Expr(1));
            for (size_t k = 1; k < nests.size(); k++) {
                const For *l = nests[k].loops[d];
                if (check_ranges_ && nests[k].who.func == parent.who.func) {
                    throw CompileError("compute_with of " + stage_text(nests[k].who) + " with " +
                                       stage_text(parent.who) + ": Loom cannot prove that both stages iterate the "
                                       "same range of loop '" + pl->name + "', so a point might be updated before it "
                                       "is produced. Give both stages the same bounds (e.g. bound() on the Func).");
                }
                offset[k][d] = alignment_offset(nests[k], parent, d);
                // The child's range in the parent's coordinates.
                lo = Min::make(lo, Sub::make(l->min, offset[k][d]));
                hi = Max::make(hi, Sub::make(Sub::make(Add::make(l->min, l->extent), Expr(1)), offset[k][d]));
            }
            union_min[d] = simplify(lo);
            union_extent[d] = simplify(Add::make(Sub::make(hi, union_min[d]), Expr(1)));
            for (size_t k = 0; k < nests.size(); k++) {
                const For *l = nests[k].loops[d];
                Expr shifted_min = simplify(Sub::make(l->min, offset[k][d]));
                guarded[k][d] = !(provably_equal(shifted_min, union_min[d], local) &&
                                  provably_equal(l->extent, union_extent[d], local));
            }
        }

        std::vector<Stmt> parts;
        for (size_t k = 0; k < nests.size(); k++) {
            const Nest &n = nests[k];
            Expr guard;
            for (int d = 0; d < depth; d++) {
                if (!guarded[k][d]) continue;
                const For *l = n.loops[d];
                Expr v = Variable::make(Int(32), l->name);
                Expr in_range = And::make(GE::make(v, l->min), LT::make(v, Add::make(l->min, l->extent)));
                guard = guard.defined() ? And::make(guard, in_range) : in_range;
            }
            Stmt part = guard.defined() ? IfThenElse::make(guard, n.inner) : n.inner;
            if (k > 0) {
                for (int d = depth - 1; d >= 0; d--) {
                    Expr v = Variable::make(Int(32), parent.loops[d]->name);
                    if (!is_const_zero(offset[k][d])) v = Add::make(v, offset[k][d]);
                    part = LetStmt::make(n.loops[d]->name, v, part);
                }
            }
            parts.push_back(part);
        }
        Stmt body = Block::make(parts);
        for (int d = depth - 1; d >= 0; d--) {
            const For *pl = parent.loops[d];
            body = For::make(pl->name, union_min[d], union_extent[d], pl->for_type, pl->device_api, body);
        }
        for (auto n = nests.rbegin(); n != nests.rend(); ++n) {
            for (auto l = n->lets.rbegin(); l != n->lets.rend(); ++l) body = LetStmt::make(l->first, l->second, body);
        }
        return body;
    }

    const PipelineStages &p_;
    bool check_ranges_;
    std::map<std::string, Expr> lets_;
    std::set<std::string> done_;
    std::map<StageRef, Stmt> pending_;
    Stmt parent_marker_;
};

}  // namespace

Stmt fuse_compute_with(const Stmt &s, const PipelineStages &p) {
    if (p.fused_groups.empty()) return s;
    return FuseComputeWith(p, true).mutate(s);
}

Stmt fuse_compute_with_for_display(const Stmt &s, const PipelineStages &p) {
    if (p.fused_groups.empty()) return s;
    return FuseComputeWith(p, false).mutate(s);
}

}  // namespace internal
}  // namespace loom
