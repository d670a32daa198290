// LoomHeuristic's cost model (CostModel.h, docs/AUTOSCHEDULER.md).

#include "autoschedule/CostModel.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

namespace loom {
namespace internal {

namespace {

constexpr int64_t unknown_extent = 1024;  // assumed where bounds could not be made constant
constexpr double cache_line_bytes = 64;
/** Loop and bounds bookkeeping per tile and realized Func, in operations:
 * it makes tiny tiles dear. */
constexpr double per_tile_overhead = 32;
/** A line found in the cache costs this share of one from memory. */
constexpr double cached_line_share = 0.05;
/** best_tile tries every candidate tile of a group while candidates times
 * the group's Funcs stay within this many; beyond, it descends. */
constexpr size_t exhaustive_tile_budget = 256;

/** Operations outside call coordinates (index arithmetic is mostly shared
 * or folded) and every Func call or buffer read, with repeats. */
struct PointCounter : IRVisitor {
    double operations = 0;
    int depth = 0;
    std::map<std::string, double> loads;
    std::map<std::string, int> image_bytes;
    const std::string *self = nullptr;
    using IRVisitor::visit;
    void count() { operations += depth == 0; }
    void visit(const Call *op) override {
        if (op->call_type != CallType::Func && op->call_type != CallType::Image) {
            count();  // an intrinsic: shifts, bitwise operations, math functions
            IRVisitor::visit(op);
            return;
        }
        if (op->name != *self) loads[op->name] += 1;
        if (op->call_type == CallType::Image) image_bytes[op->name] = std::max(1, op->type.bits() / 8);
        depth++;
        IRVisitor::visit(op);
        depth--;
    }
    void visit(const Add *op) override { count(), IRVisitor::visit(op); }
    void visit(const Sub *op) override { count(), IRVisitor::visit(op); }
    void visit(const Mul *op) override { count(), IRVisitor::visit(op); }
    void visit(const Div *op) override { count(), IRVisitor::visit(op); }
    void visit(const Mod *op) override { count(), IRVisitor::visit(op); }
    void visit(const Min *op) override { count(), IRVisitor::visit(op); }
    void visit(const Max *op) override { count(), IRVisitor::visit(op); }
    void visit(const Select *op) override { count(), IRVisitor::visit(op); }
    void visit(const Cast *op) override { count(), IRVisitor::visit(op); }
    void visit(const EQ *op) override { count(), IRVisitor::visit(op); }
    void visit(const NE *op) override { count(), IRVisitor::visit(op); }
    void visit(const LT *op) override { count(), IRVisitor::visit(op); }
    void visit(const LE *op) override { count(), IRVisitor::visit(op); }
    void visit(const And *op) override { count(), IRVisitor::visit(op); }
    void visit(const Or *op) override { count(), IRVisitor::visit(op); }
    void visit(const Not *op) override { count(), IRVisitor::visit(op); }
};

/** Replaces scalar Params and input buffers' min and extent by their
 * estimates, so a clamped read of an ImageParam (a boundary condition) has
 * a constant region. */
class SubstituteEstimates : public IRMutator {
protected:
    using IRMutator::visit;
    Expr visit(const Variable *op) override {
        if (!op->param.defined()) return Expr(op);
        if (!op->param.is_buffer()) {
            const Expr &estimate = op->param.get()->scalar_estimate;
            return estimate.defined() ? estimate : Expr(op);
        }
        const std::string prefix = op->param.name() + ".";
        if (op->name.compare(0, prefix.size(), prefix) != 0) return Expr(op);
        const std::string field = op->name.substr(prefix.size());
        for (int d = 0; d < op->param.dimensions(); d++) {
            const BufferConstraint &c = op->param.constraint(d);
            const std::string dim = "." + std::to_string(d);
            if (field == "min" + dim && c.min_estimate.defined()) return mutate(c.min_estimate);
            if (field == "extent" + dim && c.extent_estimate.defined()) return mutate(c.extent_estimate);
        }
        return Expr(op);
    }
};

std::optional<int64_t> constant(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    return as_const_int(simplify(SubstituteEstimates().mutate(e)));
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

bool is_free_pure_dim(const FunctionContents &f, int stage, int d) {
    const Definition &def = f.stage(stage);
    const std::string &var = f.args[d];
    std::vector<std::vector<Expr>> accesses = {def.args};
    struct SelfCalls : IRVisitor {
        const std::string *name;
        std::vector<std::vector<Expr>> *out;
        using IRVisitor::visit;
        void visit(const Call *op) override {
            if (op->call_type == CallType::Func && op->name == *name) out->push_back(op->args);
            IRVisitor::visit(op);
        }
    } finder;
    finder.name = &f.name;
    finder.out = &accesses;
    for (const Expr &e : def.values) e.accept(&finder);
    for (const Expr &e : def.args) e.accept(&finder);
    if (def.predicate.defined()) def.predicate.accept(&finder);
    for (const std::vector<Expr> &args : accesses) {
        if ((int)args.size() != f.dimensions()) return false;
        for (int j = 0; j < (int)args.size(); j++) {
            const Variable *v = args[j].as<Variable>();
            if (j == d && !(v && v->name == var)) return false;
            if (j != d && expr_uses_var(args[j], var)) return false;
        }
    }
    return true;
}

bool is_pointwise_update(const FunctionContents &f, int stage) {
    for (int d = 0; d < f.dimensions(); d++) {
        if (!is_free_pure_dim(f, stage, d)) return false;
    }
    return true;
}

std::vector<std::string> Choices::members_of(const std::string &head) const {
    std::vector<std::string> members;
    for (const auto &[member, h] : head_of) {
        if (h == head) members.push_back(member);
    }
    return members;
}

CostModel::CostModel(const CallGraph &graph, const Target &target, const HeuristicSettings &settings)
    : graph_(graph), settings_(settings) {
    for (const auto &[name, node] : graph.nodes) {
        const FunctionContents &f = *node.func.get();
        int width = 1 << 30, bytes = 0;
        for (const Type &t : f.output_types) {
            width = std::min(width, target.natural_vector_size(t.element_of()));
            bytes += std::max(1, t.bits() / 8);
        }
        vector_widths_[name] = std::max(width, 1);
        bytes_per_point_[name] = std::max(bytes, 1);

        PointCounter pure;
        pure.self = &f.name;
        for (const Expr &e : f.init.values) e.accept(&pure);
        point_costs_[name] = PointCost{pure.operations, pure.loads};
        for (const auto &[buffer, b] : pure.image_bytes) input_bytes_[buffer] = b;

        // Updates are computed at the root, whatever the choices; what they
        // inline depends on the choices (group_cost expands it).
        for (int s = 1; s < f.stages(); s++) {
            const Definition &def = f.stage(s);
            PointCounter counter;
            counter.self = &f.name;
            for (const Expr &e : def.values) e.accept(&counter);
            double points = 1;
            if (def.rdom.defined()) {
                for (const ReductionVariable &rv : def.rdom.domain()) {
                    std::optional<int64_t> n = constant(rv.extent);
                    points *= double(n && *n > 0 ? *n : unknown_extent);
                }
            }
            const double rdom_points = points;
            for (int d = 0; d < f.dimensions(); d++) {
                const bool used = std::any_of(def.args.begin(), def.args.end(),
                                              [&](const Expr &a) { return expr_uses_var(a, f.args[d]); });
                if (used) points *= double(extent(name, d));
            }
            // The update reads and writes the Func itself once a point.
            updates_[name].push_back(UpdateCost{PointCost{counter.operations + 2, counter.loads}, points, rdom_points,
                                                is_pointwise_update(f, s)});
            for (const auto &[buffer, b] : counter.image_bytes) input_bytes_[buffer] = b;
        }
    }
}

int CostModel::vector_width(const std::string &f) const { return vector_widths_.at(f); }

int64_t CostModel::extent(const std::string &f, int d) const {
    const FuncNode &node = graph_.nodes.at(f);
    if (d >= (int)node.region.size() || !node.region[d].known) return unknown_extent;
    return std::max<int64_t>(1, node.region[d].extent);
}

bool CostModel::is_movable(const std::string &f) const {
    const FuncNode &node = graph_.nodes.at(f);
    if (node.is_output || node.is_extern || node.in_cycle) return false;
    auto ups = updates_.find(f);
    if (ups == updates_.end()) return true;
    return std::all_of(ups->second.begin(), ups->second.end(), [](const UpdateCost &u) { return u.pointwise; });
}

bool CostModel::can_inline(const std::string &f) const {
    return is_movable(f) && graph_.nodes.at(f).func.get()->updates.empty();
}

const CostModel::PointCost &CostModel::expanded(const std::string &f, const Choices &choices,
                                                std::map<std::string, PointCost> &memo) const {
    auto found = memo.find(f);
    if (found != memo.end()) return found->second;
    // Once per Func (a chain of inlined stencils is a DAG, exponential as a tree of calls).
    PointCost pc;
    const PointCost &own = point_costs_.at(f);
    pc.operations = own.operations;
    memo[f] = PointCost{};  // a cycle through inlined Funcs (not made by the search) stops here
    for (const auto &[callee, n] : own.loads) {
        if (!choices.inlined.count(callee)) {
            pc.loads[callee] += n;
            continue;
        }
        const PointCost &inner = expanded(callee, choices, memo);
        pc.operations += n * inner.operations;
        for (const auto &[c, m] : inner.loads) pc.loads[c] += n * m;
    }
    return memo[f] = std::move(pc);
}

std::map<std::string, std::vector<int64_t>> CostModel::regions_per_tile(const std::string &head, const Tile &tile,
                                                                        const Choices &choices) const {
    std::map<std::string, Box> boxes;
    const FuncNode &head_node = graph_.nodes.at(head);
    Box &head_box = boxes[head];
    for (int d = 0; d < head_node.func.get()->dimensions(); d++) {
        const int64_t min = d < (int)head_node.region.size() && head_node.region[d].known ? head_node.region[d].min : 0;
        int64_t size = extent(head, d);
        if (tile.x > 0) size = d == 0 ? std::min(size, tile.x) : d == 1 ? std::min(size, tile.y) : 1;
        head_box.push_back(Interval(Expr(int(min)), Expr(int(min + size - 1))));
    }
    // Consumers first, so that each Func's box is complete when it is reached.
    for (auto it = graph_.order.rbegin(); it != graph_.order.rend(); ++it) {
        const std::string &name = *it;
        auto found = boxes.find(name);
        if (found == boxes.end()) continue;
        const bool in_group = name == head || (choices.is_member(name) && choices.head_of.at(name) == head);
        if (!in_group && !choices.inlined.count(name)) continue;
        const FunctionContents &f = *graph_.nodes.at(name).func.get();
        Scope<Interval> scope;
        for (int d = 0; d < f.dimensions() && d < (int)found->second.size(); d++) {
            // Constant bounds keep the boxes of a long chain small.
            Interval &i = found->second[d];
            if (i.min.defined()) i.min = simplify(SubstituteEstimates().mutate(i.min));
            if (i.max.defined()) i.max = simplify(SubstituteEstimates().mutate(i.max));
            scope.push(f.args[d], i);
        }
        // A member's updates run per tile too (the head's run at the root).
        const int stages = name != head && in_group ? f.stages() : 1;
        for (int s = 0; s < stages; s++) {
            const Definition &def = f.stage(s);
            std::vector<std::string> rvars;
            if (s > 0 && def.rdom.defined()) {
                for (const ReductionVariable &rv : def.rdom.domain()) {
                    std::optional<int64_t> lo = constant(rv.min), n = constant(rv.extent);
                    if (!lo || !n || *n <= 0) continue;
                    scope.push(rv.var, Interval(Expr(int(*lo)), Expr(int(*lo + *n - 1))));
                    rvars.push_back(rv.var);
                }
            }
            for (const Expr &value : def.values) {
                for (const auto &[callee, box] : boxes_required(value, scope)) {
                    if (callee == name) continue;
                    auto existing = boxes.find(callee);
                    if (existing == boxes.end()) {
                        boxes.emplace(callee, box);
                    } else {
                        merge_boxes(existing->second, box);
                    }
                }
            }
            for (const std::string &rv : rvars) scope.pop(rv);
        }
    }
    std::map<std::string, std::vector<int64_t>> extents;
    for (const auto &[name, box] : boxes) {
        std::vector<int64_t> sizes;
        for (size_t d = 0; d < box.size(); d++) {
            std::optional<int64_t> lo = constant(box[d].min), hi = constant(box[d].max);
            if (lo && hi && *hi >= *lo) {
                sizes.push_back(*hi - *lo + 1);
            } else {
                sizes.push_back(graph_.nodes.count(name) ? extent(name, int(d)) : unknown_extent);
            }
        }
        extents.emplace(name, std::move(sizes));
    }
    return extents;
}

double CostModel::line_cost(double working_set_bytes) const {
    const double budget = double(settings_.last_level_cache_size) / settings_.parallelism;
    const double missing = working_set_bytes > budget ? 1 - budget / working_set_bytes : 0;
    return settings_.balance * (cached_line_share + (1 - cached_line_share) * missing);
}

std::set<std::string> CostModel::inlined_reached(const std::vector<std::string> &group,
                                                 const Choices &choices) const {
    std::set<std::string> reached;
    std::vector<std::string> work = group;
    while (!work.empty()) {
        const std::string f = std::move(work.back());
        work.pop_back();
        auto visit = [&](const std::map<std::string, double> &loads) {
            for (const auto &[callee, n] : loads) {
                if (choices.inlined.count(callee) && reached.insert(callee).second) work.push_back(callee);
            }
        };
        auto pc = point_costs_.find(f);
        if (pc != point_costs_.end()) visit(pc->second.loads);
        auto ups = updates_.find(f);
        if (ups == updates_.end()) continue;
        for (const UpdateCost &u : ups->second) visit(u.per_point.loads);
    }
    return reached;
}

double CostModel::group_cost(const std::string &head, const Tile &tile, const Choices &choices) const {
    // The search asks for the same groups again and again: memoize by
    // everything the cost depends on (the inlined Funcs as a whole).
    // Only the inlined Funcs the group reaches matter, so a move elsewhere
    // in the pipeline does not make this group's costs unknown again.
    std::string key = head + (choices.sliding.count(head) ? "~" : "") + "|" + std::to_string(tile.x) + "x" +
                      std::to_string(tile.y) + "|";
    std::vector<std::string> group = choices.members_of(head);
    for (const std::string &m : group) key += m + ",";
    key += "|";
    group.push_back(head);
    for (const std::string &f : inlined_reached(group, choices)) key += f + ",";
    auto cached = group_costs_.find(key);
    if (cached != group_costs_.end()) return cached->second;
    const double cost = compute_group_cost(head, tile, choices);
    evaluations_++;
    group_costs_.emplace(std::move(key), cost);
    return cost;
}

double CostModel::compute_group_cost(const std::string &head, const Tile &tile, const Choices &choices) const {
    const FunctionContents &hf = *graph_.nodes.at(head).func.get();
    const int dims = hf.dimensions();
    std::vector<std::string> group = choices.members_of(head);
    group.push_back(head);
    auto in_group = [&](const std::string &name) { return std::find(group.begin(), group.end(), name) != group.end(); };
    const std::map<std::string, std::vector<int64_t>> regions = regions_per_tile(head, tile, choices);

    auto bytes_of = [&](const std::string &name) {
        auto f = bytes_per_point_.find(name);
        if (f != bytes_per_point_.end()) return f->second;
        auto b = input_bytes_.find(name);
        return b != input_bytes_.end() ? b->second : 4;
    };
    auto points_of = [](const std::vector<int64_t> &sizes) {
        double points = 1;
        for (int64_t s : sizes) points *= double(s);
        return points;
    };
    auto full_points = [&](const std::string &name) {
        double points = 1;
        for (int d = 0; d < graph_.nodes.at(name).func.get()->dimensions(); d++) points *= double(extent(name, d));
        return points;
    };
    auto points_per_tile = [&](const std::string &name) {
        auto r = regions.find(name);
        if (r != regions.end()) return points_of(r->second);
        return graph_.nodes.count(name) ? full_points(name) : double(unknown_extent);
    };

    // Tiles, and the iterations of the loops that run in parallel.
    double tiles = 1, parallel_iterations = 1;
    if (tile.x > 0) {
        tiles = double(ceil_div(extent(head, 0), tile.x));
        if (dims >= 2) tiles *= double(ceil_div(extent(head, 1), tile.y));
        for (int d = 2; d < dims; d++) tiles *= double(extent(head, d));
        parallel_iterations = tiles;
    } else {
        for (int d = 1; d < dims; d++) parallel_iterations *= double(extent(head, d));
    }

    // Arithmetic, per tile: operations, loads and a store per point, with
    // inlined Funcs expanded, over the vector lanes filled.
    std::map<std::string, PointCost> memo;
    double arithmetic = 0;
    std::set<std::string> read_from_outside;
    for (const std::string &g : group) {
        const PointCost &pc = expanded(g, choices, memo);
        double per_point = pc.operations + 1;
        for (const auto &[callee, n] : pc.loads) {
            per_point += n;
            if (!in_group(callee)) read_from_outside.insert(callee);
        }
        const int vw = vector_width(g);
        auto r = regions.find(g);
        const int64_t inner = r != regions.end() && !r->second.empty() ? r->second[0] : extent(g, 0);
        double lanes = 1;
        if (vw > 1 && inner >= vw) lanes = double(inner) / double(ceil_div(inner, vw));
        arithmetic += points_per_tile(g) * per_point / lanes;
        // A member's pointwise updates, per point of its tile: their
        // arithmetic, and their loads read from the group or outside it.
        auto ups = updates_.find(g);
        if (g == head || ups == updates_.end()) continue;
        for (const UpdateCost &u : ups->second) {
            double update_point = u.per_point.operations;
            for (const auto &[callee, n] : u.per_point.loads) {
                if (choices.inlined.count(callee)) {
                    const PointCost &inner_cost = expanded(callee, choices, memo);
                    update_point += n * inner_cost.operations;
                    for (const auto &[c, m] : inner_cost.loads) {
                        update_point += n * m;
                        if (!in_group(c)) read_from_outside.insert(c);
                    }
                    continue;
                }
                update_point += n;
                if (!in_group(callee)) read_from_outside.insert(callee);
            }
            arithmetic += points_per_tile(g) * u.rdom_points * update_point / lanes;
        }
    }

    // Memory, per tile, in cache lines, each dearer the less its working
    // set fits: what the group reads of buffers realized elsewhere (their
    // whole size is the working set), the head's output, and the members'
    // tiles (written and read back; the group's footprint is the set).
    // A sliding group (Choices::sliding) works one row of the head's tile at
    // a time: it keeps of each member only the rows that row needs (a
    // circular buffer), computing each row once, and touches that many rows
    // of what it reads and one row of its output, at the cost of its loop
    // bookkeeping per row.
    const bool slide = can_slide(head, tile, choices);
    auto kept_share = [&](const std::string &m) {
        if (!slide) return 1.0;
        auto r = regions.find(m);
        if (r == regions.end() || r->second.size() < 2 || r->second[1] <= 0) return 1.0;
        const int64_t rows = r->second[1], window = std::max<int64_t>(1, rows - std::min(tile.y, extent(head, 1)) + 1);
        return double(window) / double(rows);
    };
    double footprint = 0;
    for (const std::string &g : group) footprint += points_per_tile(g) * bytes_of(g) * kept_share(g);
    for (const std::string &c : read_from_outside) footprint += points_per_tile(c) * bytes_of(c) * kept_share(c);
    double memory = 0;
    for (const std::string &c : read_from_outside) {
        const double total = graph_.nodes.count(c) ? full_points(c) * bytes_of(c) : tiles * points_per_tile(c) * bytes_of(c);
        memory += points_per_tile(c) * bytes_of(c) / cache_line_bytes * line_cost(total);
    }
    memory += points_per_tile(head) * bytes_of(head) / cache_line_bytes * line_cost(full_points(head) * bytes_of(head));
    for (const std::string &m : group) {
        if (m != head) memory += 2 * points_per_tile(m) * bytes_of(m) / cache_line_bytes * line_cost(footprint);
    }

    double bookkeeping = per_tile_overhead * double(group.size());
    if (slide) bookkeeping += per_tile_overhead * double(group.size() - 1) * double(std::min(tile.y, extent(head, 1)));
    double cost = tiles * (arithmetic + memory + bookkeeping);
    cost /= std::max(1.0, std::min(double(settings_.parallelism), parallel_iterations));

    // Updates (always at the root): their arithmetic, and each load of a
    // buffer as a line of it (no reuse is assumed).
    auto ups = updates_.find(head);
    if (ups != updates_.end()) {
        for (const UpdateCost &u : ups->second) {
            PointCost pc;
            pc.operations = u.per_point.operations;
            for (const auto &[callee, n] : u.per_point.loads) {
                if (choices.inlined.count(callee)) {
                    const PointCost &inner = expanded(callee, choices, memo);
                    pc.operations += n * inner.operations;
                    for (const auto &[c, m] : inner.loads) pc.loads[c] += n * m;
                } else {
                    pc.loads[callee] += n;
                }
            }
            double per_point = pc.operations;
            for (const auto &[callee, n] : pc.loads) {
                const double total =
                    graph_.nodes.count(callee) ? full_points(callee) * bytes_of(callee) : double(unknown_extent) * 4;
                per_point += n * (1 + line_cost(total) * std::min(1.0, bytes_of(callee) / cache_line_bytes));
            }
            cost += u.points * per_point;
        }
    }
    return cost;
}

bool CostModel::can_slide(const std::string &head, const Tile &tile, const Choices &choices) const {
    if (!choices.sliding.count(head) || tile.x <= 0 || tile.y <= 1) return false;
    if (graph_.nodes.at(head).func.get()->dimensions() < 2) return false;
    const std::vector<std::string> members = choices.members_of(head);
    // A Func with updates does not slide (docs/SCHEDULING.md, "Sliding window").
    return !members.empty() && std::none_of(members.begin(), members.end(), [&](const std::string &m) {
        return !graph_.nodes.at(m).func.get()->updates.empty();
    });
}

std::vector<Tile> CostModel::tile_candidates(const std::string &head) const {
    const int dims = graph_.nodes.at(head).func.get()->dimensions();
    std::vector<Tile> tiles;
    if (dims == 0) return tiles;
    const int vw = vector_width(head);
    const int64_t e0 = extent(head, 0);
    if (dims >= 2 && e0 >= vw && extent(head, 1) >= 2) {
        const int64_t e1 = extent(head, 1);
        for (int64_t kx = 1; kx <= 32 && vw * kx <= std::max<int64_t>(e0, vw); kx *= 2) {
            for (int64_t ty = 1; ty <= 256 && ty <= e1; ty *= 2) tiles.push_back(Tile{vw * kx, ty});
        }
    } else if (e0 >= vw && vw > 1) {
        for (int64_t kx = 1; kx <= 64 && vw * kx <= e0; kx *= 2) tiles.push_back(Tile{vw * kx, 1});
    }
    return tiles;
}

Tile CostModel::best_tile(const std::string &head, const Choices &choices, double *cost) const {
    const std::vector<Tile> candidates = tile_candidates(head);
    Tile best;
    double best_cost = 0;
    auto consider = [&](const Tile &t) {
        const double c = group_cost(head, t, choices);
        if (best.x == 0 || c < best_cost * (1 - 1e-9)) {
            best = t;
            best_cost = c;
            return true;
        }
        return false;
    };
    // A group's cost takes time in proportion to its Funcs: small groups
    // try every candidate; large ones (a long chain computed per tile of its
    // last Func) descend from the group's current tile to the cheapest
    // neighbour (x or y twice or half as large) until none is cheaper, so
    // the search's time stays near-linear in the pipeline's size.
    const size_t members = choices.members_of(head).size() + 1;
    if (candidates.empty() || candidates.size() * members <= exhaustive_tile_budget) {
        for (const Tile &t : candidates) consider(t);
        if (cost) *cost = best_cost;
        return best;
    }
    auto current = choices.tiles.find(head);
    const Tile start = current != choices.tiles.end() &&
                               std::find(candidates.begin(), candidates.end(), current->second) != candidates.end()
                           ? current->second
                           : candidates[candidates.size() / 2];
    consider(start);
    for (bool moved = true; moved;) {
        moved = false;
        const Tile from = best;
        for (const Tile &t : {Tile{from.x * 2, from.y}, Tile{from.x / 2, from.y}, Tile{from.x, from.y * 2},
                              Tile{from.x, from.y / 2}}) {
            if (std::find(candidates.begin(), candidates.end(), t) == candidates.end()) continue;
            moved = consider(t) || moved;
        }
    }
    if (cost) *cost = best_cost;
    return best;
}

double CostModel::pipeline_cost(const Choices &choices) const {
    double cost = 0;
    for (const std::string &name : graph_.order) {
        const FuncNode &node = graph_.nodes.at(name);
        if (node.is_extern || node.in_cycle || choices.inlined.count(name) || choices.is_member(name)) continue;
        auto t = choices.tiles.find(name);
        cost += group_cost(name, t == choices.tiles.end() ? Tile{} : t->second, choices);
    }
    return cost;
}

}  // namespace internal
}  // namespace loom
