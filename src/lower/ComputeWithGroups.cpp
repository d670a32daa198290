// compute_with, first half: which stages are fused, whether Loom can fuse
// them, and a realization order that keeps each group's Funcs adjacent.
// The second half, the loop surgery, is FuseComputeWith.cpp.

#include <algorithm>
#include <map>
#include <set>

#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"
#include "lower/ComputeWith.h"

namespace loom {
namespace internal {

namespace {

std::string stage_text(const StageRef &s) { return stage_description(s.func, s.stage); }

/** "f.s1.x" -> "x". */
std::string user_name(const Stage &s, const std::string &loop) {
    return loop.compare(0, s.prefix.size(), s.prefix) == 0 ? loop.substr(s.prefix.size()) : loop;
}

/** The calls to Funcs in a stage: name -> argument lists. */
struct FuncCalls : IRVisitor {
    std::map<std::string, std::vector<std::vector<Expr>>> calls;
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == CallType::Func) calls[op->name].push_back(op->args);
        IRVisitor::visit(op);
    }
};

FuncCalls calls_of(const Stage &s) {
    FuncCalls c;
    for (const Expr &e : s.args) e.accept(&c);
    for (const Expr &e : s.values) e.accept(&c);
    if (s.predicate.defined()) s.predicate.accept(&c);
    for (const ReductionVariable &rv : s.rvars) {
        rv.min.accept(&c);
        rv.extent.accept(&c);
    }
    return c;
}

bool reads(const PipelineStages &p, const std::string &reader, const std::string &func) {
    for (const Stage &s : p.stages.at(reader)) {
        if (calls_of(s).calls.count(func)) return true;
    }
    return false;
}

class GroupFinder {
public:
    explicit GroupFinder(PipelineStages &p) : p_(p) {}

    void run() {
        collect();
        if (groups_.empty()) return;
        for (FusedGroup &g : groups_) {
            sort_children(g);
            check(g);
        }
        reorder();
        p_.fused_groups = groups_;
    }

private:
    const Stage &stage(const StageRef &r) const { return p_.stages.at(r.func).at(r.stage); }

    [[noreturn]] void fail(const StageRef &child, const StageRef &parent, const std::string &why) const {
        throw CompileError("compute_with of " + stage_text(child) + " with " + stage_text(parent) + ": " + why);
    }

    void collect() {
        std::map<StageRef, size_t> group_of;  // parent -> index in groups_
        std::map<StageRef, StageRef> parent_of;
        for (const std::string &name : p_.order) {
            const std::vector<Stage> &stages = p_.stages.at(name);
            for (const Stage &s : stages) {
                const LoopLevel &with = s.compute_with;
                if (with.kind == LoopLevel::Inlined) continue;
                StageRef child{name, s.index};
                if (with.kind != LoopLevel::At) {
                    throw CompileError("compute_with of " + stage_text(child) + " needs a loop of another stage, "
                                       "not the root level.");
                }
                auto target = p_.stages.find(with.func);
                if (target == p_.stages.end()) {
                    throw CompileError("compute_with of " + stage_text(child) + " names Func '" + with.func +
                                       "', which is not computed in this pipeline (it is inlined or unused). "
                                       "Schedule '" + with.func + "' with compute_root() or compute_at().");
                }
                int index = with.stage < 0 ? (int)target->second.size() - 1 : with.stage;
                if (index >= (int)target->second.size()) {
                    throw CompileError("compute_with of " + stage_text(child) + " names stage " +
                                       std::to_string(index) + " of Func '" + with.func + "', which has only " +
                                       std::to_string(target->second.size()) + " stages.");
                }
                StageRef parent{with.func, index};
                const Stage &ps = stage(parent);
                int position = -1;
                for (size_t i = 0; i < ps.dims.size(); i++) {
                    if (user_name(ps, ps.dims[i].var) == with.var) position = (int)i;
                }
                if (position < 0) {
                    fail(child, parent, "that stage has no loop '" + with.var + "'. Use one of its loops (see "
                                        "print_loop_nest()).");
                }
                const int depth = (int)ps.dims.size() - position;
                if ((int)s.dims.size() < depth) {
                    fail(child, parent, "fusing at loop '" + with.var + "' fuses " + std::to_string(depth) +
                                            " loops, but the fused stage has only " + std::to_string(s.dims.size()) +
                                            ".");
                }
                parent_of[child] = parent;
                auto [it, fresh] = group_of.emplace(parent, groups_.size());
                if (fresh) groups_.push_back(FusedGroup{parent, {}, depth});
                FusedGroup &g = groups_[it->second];
                if (g.depth != depth) {
                    fail(child, parent, "another stage is fused with it at a different loop (" +
                                            std::to_string(g.depth) + " loops against " + std::to_string(depth) +
                                            "). Fuse every stage of a group at the same loop.");
                }
                g.children.push_back(child);
            }
        }
        // No chains: a parent is not itself fused with something else.
        for (const auto &[child, parent] : parent_of) {
            auto up = parent_of.find(parent);
            if (up != parent_of.end()) {
                fail(child, parent, "that stage is itself fused with " + stage_text(up->second) +
                                        ". Fuse with " + stage_text(up->second) + " directly.");
            }
        }
        // A Func's stages belong to one group at most.
        std::map<std::string, size_t> func_group;
        for (size_t i = 0; i < groups_.size(); i++) {
            std::vector<StageRef> members = groups_[i].children;
            members.push_back(groups_[i].parent);
            for (const StageRef &m : members) {
                auto [it, fresh] = func_group.emplace(m.func, i);
                if (!fresh && it->second != i) {
                    fail(members.front(), groups_[i].parent,
                         "Func '" + m.func + "' also has stages in the group of " + stage_text(groups_[it->second].parent) +
                             ". The stages of a Func can be fused with one group only.");
                }
            }
        }
    }

    int order_index(const std::string &func) const {
        return (int)(std::find(p_.order.begin(), p_.order.end(), func) - p_.order.begin());
    }

    /** The parent's own updates first (in stage order), then the other
     * Funcs' stages in realization order. */
    void sort_children(FusedGroup &g) const {
        auto key = [&](const StageRef &r) {
            return std::make_pair(r.func == g.parent.func ? -1 : order_index(r.func), r.stage);
        };
        std::sort(g.children.begin(), g.children.end(),
                  [&](const StageRef &a, const StageRef &b) { return key(a) < key(b); });
    }

    void check(const FusedGroup &g) const {
        const Stage &parent = stage(g.parent);
        for (const StageRef &c : g.children) {
            const Stage &child = stage(c);
            check_loops(g, parent, child, c);
            if (c.func == g.parent.func) {
                check_own_stage(g, c);
            } else {
                check_other_func(g, c);
            }
        }
    }

    void check_loops(const FusedGroup &g, const Stage &parent, const Stage &child, const StageRef &c) const {
        for (int d = 0; d < g.depth; d++) {
            const Dim &pd = parent.dims[parent.dims.size() - 1 - d];
            const Dim &cd = child.dims[child.dims.size() - 1 - d];
            for (const Dim *dim : {&pd, &cd}) {
                const Stage &owner = dim == &pd ? parent : child;
                if (dim->is_rvar) {
                    fail(c, g.parent, "the fused loop '" + user_name(owner, dim->var) +
                                          "' is a reduction variable. Fuse only loops over pure variables.");
                }
                if (dim->for_type != ForType::Serial && dim->for_type != ForType::Parallel) {
                    fail(c, g.parent, "the fused loop '" + user_name(owner, dim->var) +
                                          "' is vectorized, unrolled or a GPU loop. Fuse only serial or parallel "
                                          "loops; vectorize or unroll loops inside the fused ones.");
                }
            }
            if (pd.for_type != cd.for_type) {
                fail(c, g.parent, "loop '" + user_name(child, cd.var) + "' and loop '" + user_name(parent, pd.var) +
                                      "' are fused, but one is parallel and the other serial. Give both the same "
                                      "loop type.");
            }
        }
    }

    /** Stages of other Funcs: no reads between the group's Funcs, and a
     * Func's earlier stages are in the group too. */
    void check_other_func(const FusedGroup &g, const StageRef &c) const {
        std::set<std::string> funcs = {g.parent.func};
        for (const StageRef &m : g.children) funcs.insert(m.func);
        for (const std::string &other : funcs) {
            if (other == c.func) continue;
            if (reads(p_, c.func, other) || reads(p_, other, c.func)) {
                const bool child_reads = reads(p_, c.func, other);
                fail(c, g.parent, "Func '" + (child_reads ? c.func : other) + "' reads Func '" +
                                      (child_reads ? other : c.func) +
                                      "'. Stages of different Funcs can be fused only when neither reads the other; "
                                      "remove compute_with, or compute the producer first (compute_root()).");
            }
        }
        for (int k = 0; k < c.stage; k++) {
            StageRef earlier{c.func, k};
            if (std::find(g.children.begin(), g.children.end(), earlier) == g.children.end()) {
                fail(c, g.parent, stage_text(earlier) + " would run after it. Fuse " + stage_text(earlier) +
                                      " with " + stage_text(g.parent) + " too.");
            }
        }
    }

    /** An update fused with an earlier stage of its own Func. */
    void check_own_stage(const FusedGroup &g, const StageRef &c) const {
        for (int k = g.parent.stage + 1; k < c.stage; k++) {
            StageRef between{c.func, k};
            if (std::find(g.children.begin(), g.children.end(), between) == g.children.end()) {
                fail(c, g.parent, stage_text(between) + " runs between them. Fuse it with " + stage_text(g.parent) +
                                      " too.");
            }
        }
        const Stage &parent = stage(g.parent);
        for (const Stage *s : {&parent, &stage(c)}) {
            if (s->index == 0) continue;
            StageRef who{s->func, s->index};
            for (size_t i = 0; i < s->args.size(); i++) {
                const Variable *v = s->args[i].as<Variable>();
                if (!v || v->name != s->pure_vars[i]) {
                    fail(c, g.parent, stage_text(who) + " writes Func '" + s->func + "' at a computed coordinate in "
                                          "dimension " + std::to_string(i) + ". Only updates that write at their "
                                          "pure variables (f(x, y) = ...) can be fused with another stage of their Func.");
                }
            }
            auto calls = calls_of(*s).calls;
            for (const std::vector<Expr> &args : calls[s->func]) {
                for (size_t i = 0; i < args.size(); i++) {
                    if (!equal(args[i], s->args[i])) {
                        fail(c, g.parent, stage_text(who) + " reads Func '" + s->func + "' at another point than "
                                              "the one it writes. A stage fused with another stage of its Func may "
                                              "read it only at the point it writes.");
                    }
                }
            }
        }
        check_same_splits(g, parent, stage(c), c);
    }

    void check_same_splits(const FusedGroup &g, const Stage &parent, const Stage &child, const StageRef &c) const {
        auto same = [&](const Split &a, const Split &b) {
            return a.kind == b.kind && user_name(parent, a.old_var) == user_name(child, b.old_var) &&
                   user_name(parent, a.outer) == user_name(child, b.outer) &&
                   user_name(parent, a.inner) == user_name(child, b.inner) &&
                   (a.kind != Split::SplitVar ||
                    (equal(a.factor, b.factor) && a.align.defined() == b.align.defined() &&
                     (!a.align.defined() || equal(a.align, b.align))));
        };
        bool ok = parent.splits.size() == child.splits.size();
        for (size_t i = 0; ok && i < parent.splits.size(); i++) ok = same(parent.splits[i], child.splits[i]);
        for (int d = 0; ok && d < g.depth; d++) {
            ok = user_name(parent, parent.dims[parent.dims.size() - 1 - d].var) ==
                 user_name(child, child.dims[child.dims.size() - 1 - d].var);
        }
        if (!ok) {
            fail(c, g.parent, "stages of one Func are fused only when they have the same splits and the same "
                              "fused loops, so each point is produced and updated in the same iteration. Give "
                              "both stages the same split/tile and loop order.");
        }
    }

    /** Producers first, each group's Funcs adjacent (parent's first). */
    void reorder() {
        std::map<std::string, int> unit;  // func -> unit id
        std::vector<std::vector<std::string>> members;
        for (const std::string &f : p_.order) {
            if (unit.count(f)) continue;
            int id = (int)members.size();
            members.push_back({f});
            unit[f] = id;
        }
        for (const FusedGroup &g : groups_) {
            int target = unit.at(g.parent.func);
            for (const StageRef &c : g.children) {
                int from = unit.at(c.func);
                if (from == target) continue;
                for (const std::string &f : members[from]) {
                    unit[f] = target;
                    members[target].push_back(f);
                }
                members[from].clear();
            }
        }
        // The parent's Func leads its unit; the others keep their order.
        for (const FusedGroup &g : groups_) {
            std::vector<std::string> &m = members[unit.at(g.parent.func)];
            std::stable_sort(m.begin(), m.end(), [&](const std::string &a, const std::string &b) {
                auto key = [&](const std::string &f) { return f == g.parent.func ? -1 : order_index(f); };
                return key(a) < key(b);
            });
        }
        std::vector<std::string> order;
        std::set<int> placed;
        while (order.size() < p_.order.size()) {
            bool progress = false;
            for (const std::string &f : p_.order) {
                int u = unit.at(f);
                if (placed.count(u) || !ready(members[u], unit, placed)) continue;
                placed.insert(u);
                order.insert(order.end(), members[u].begin(), members[u].end());
                progress = true;
                break;
            }
            if (!progress) fail_cycle(unit, placed, members);
        }
        p_.order = order;
    }

    bool ready(const std::vector<std::string> &funcs, const std::map<std::string, int> &unit,
               const std::set<int> &placed) const {
        for (const std::string &f : funcs) {
            for (const std::string &producer : p_.order) {
                if (producer == f || unit.at(producer) == unit.at(f)) continue;
                if (!placed.count(unit.at(producer)) && reads(p_, f, producer)) return false;
            }
        }
        return true;
    }

    [[noreturn]] void fail_cycle(const std::map<std::string, int> &unit, const std::set<int> &placed,
                                 const std::vector<std::vector<std::string>> &members) const {
        for (const FusedGroup &g : groups_) {
            if (placed.count(unit.at(g.parent.func))) continue;
            for (const std::string &between : p_.order) {
                if (unit.at(between) == unit.at(g.parent.func)) continue;
                const auto &m = members[unit.at(g.parent.func)];
                bool reads_member = false, read_by_member = false;
                for (const std::string &f : m) {
                    reads_member = reads_member || reads(p_, between, f);
                    read_by_member = read_by_member || reads(p_, f, between);
                }
                if (reads_member && read_by_member) {
                    fail(g.children.front(), g.parent,
                         "Func '" + between + "' reads one of the fused Funcs and is read by another, so it would "
                         "have to be computed between them, inside the fused loops. Remove compute_with or restructure the "
                         "pipeline.");
                }
            }
        }
        const FusedGroup &g = groups_.front();
        fail(g.children.front(), g.parent,
             "a Func between the fused Funcs depends on one of them and feeds another, so they cannot be computed "
             "next to each other. Remove compute_with or restructure the pipeline.");
    }

    PipelineStages &p_;
    std::vector<FusedGroup> groups_;
};

}  // namespace

void find_fused_groups(PipelineStages &p) { GroupFinder(p).run(); }

bool has_own_stage_fusion(const PipelineStages &p, const std::string &func) {
    for (const FusedGroup &g : p.fused_groups) {
        if (g.parent.func != func) continue;
        for (const StageRef &c : g.children) {
            if (c.func == func) return true;
        }
    }
    return false;
}

}  // namespace internal
}  // namespace loom
