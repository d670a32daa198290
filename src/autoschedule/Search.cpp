// LoomHeuristic's greedy search (Search.h, docs/AUTOSCHEDULER.md).

#include "autoschedule/Search.h"

#include <map>
#include <set>
#include <utility>

namespace loom {
namespace internal {

namespace {

/** A saving smaller than this share of the cost is noise, not a reason to change. */
constexpr double min_relative_gain = 1e-6;
/** The search stops making moves once the model has computed this many
 * group costs, so a pipeline of hundreds of Funcs is scheduled in bounded
 * time (deterministically: a count, not a clock); what is left stays at
 * the root or as already decided. */
constexpr int64_t max_evaluations = 6000;

bool is_head(const CallGraph &graph, const Choices &c, const std::string &name) {
    const FuncNode &node = graph.nodes.at(name);
    return !node.is_extern && !node.in_cycle && !c.inlined.count(name) && !c.is_member(name);
}

void retile(const CallGraph &graph, const CostModel &model, Choices &c) {
    c.tiles.clear();
    for (const std::string &name : graph.order) {
        if (!is_head(graph, c, name)) continue;
        const Tile t = model.best_tile(name, c);
        if (t.x > 0) c.tiles[name] = t;
    }
}

/** The realized Funcs whose stages read name, looking through inlined ones. */
void realized_readers(const CallGraph &graph, const Choices &c, const std::string &name,
                      std::set<std::pair<std::string, int>> &readers, int depth = 0) {
    for (const CallSite &use : graph.nodes.at(name).uses) {
        if (c.inlined.count(use.consumer) && depth < 64) {
            realized_readers(graph, c, use.consumer, readers, depth + 1);
        } else {
            readers.insert({use.consumer, use.stage});
        }
    }
}

/** The group head that f (a head) can be computed per tile of: every
 * realized reader reads it in its pure definition and belongs to that one
 * group, whose head can be tiled. "" if there is none. */
std::string merge_target(const CallGraph &graph, const CostModel &model, const Choices &c, const std::string &f) {
    std::set<std::pair<std::string, int>> readers;
    realized_readers(graph, c, f, readers);
    std::string target;
    for (const auto &[reader, stage] : readers) {
        if (stage != 0) return "";
        const FuncNode &node = graph.nodes.at(reader);
        if (node.is_extern || node.in_cycle) return "";
        const std::string head = c.is_member(reader) ? c.head_of.at(reader) : reader;
        if (head == f || (!target.empty() && head != target)) return "";
        target = head;
    }
    if (target.empty() || model.tile_candidates(target).empty()) return "";
    return target;
}

/** The heads of the groups that read f, looking through inlined Funcs. */
std::set<std::string> reader_heads(const CallGraph &graph, const Choices &c, const std::string &f) {
    std::set<std::pair<std::string, int>> readers;
    realized_readers(graph, c, f, readers);
    std::set<std::string> heads;
    for (const auto &[reader, stage] : readers) heads.insert(c.is_member(reader) ? c.head_of.at(reader) : reader);
    return heads;
}

}  // namespace

Choices search_schedule(const CallGraph &graph, const CostModel &model) {
    Choices c;
    retile(graph, model, c);
    // Each step makes the move that lowers the pipeline's cost most: inline
    // a Func (its readers' groups tiled again), or compute a group per tile
    // of its consumers' group (that group tiled again). A move changes only
    // the costs of the groups it touches, so only those are counted again.
    for (;;) {
        std::map<std::string, double> costs;  // of each group of c, by head
        double base = 0;
        for (const std::string &name : graph.order) {
            if (!is_head(graph, c, name)) continue;
            auto t = c.tiles.find(name);
            base += costs[name] = model.group_cost(name, t == c.tiles.end() ? Tile{} : t->second, c);
        }
        double best_cost = base * (1 - min_relative_gain);
        Choices best;
        bool found = false;
        const bool last_step = model.evaluations() >= max_evaluations;
        for (const std::string &name : graph.order) {
            if (model.evaluations() >= 2 * max_evaluations) break;
            if (is_head(graph, c, name) && !c.sliding.count(name) && !c.members_of(name).empty()) {
                // Slide the group's members along the rows of its tile.
                Choices trial = c;
                trial.sliding.insert(name);
                double group = 0;
                const Tile t = model.best_tile(name, trial, &group);
                if (model.can_slide(name, t, trial)) {
                    trial.tiles[name] = t;
                    const double cost = base - costs.at(name) + group;
                    if (cost < best_cost) best_cost = cost, best = std::move(trial), found = true;
                }
            }
            if (!model.is_movable(name) || !is_head(graph, c, name)) continue;
            if (model.can_inline(name) && c.members_of(name).empty()) {
                Choices trial = c;
                trial.inlined.insert(name);
                trial.tiles.erase(name);
                double cost = base - costs.at(name);
                for (const std::string &h : reader_heads(graph, c, name)) {
                    if (!is_head(graph, trial, h)) continue;
                    double group = 0;
                    const Tile t = model.best_tile(h, trial, &group);
                    if (t.x > 0) {
                        trial.tiles[h] = t;
                    } else {
                        group = model.group_cost(h, Tile{}, trial);
                    }
                    cost += group - costs.at(h);
                }
                if (cost < best_cost) best_cost = cost, best = std::move(trial), found = true;
            }
            const std::string target = merge_target(graph, model, c, name);
            if (target.empty()) continue;
            Choices trial = c;
            trial.head_of[name] = target;
            for (const std::string &m : c.members_of(name)) trial.head_of[m] = target;
            trial.tiles.erase(name);
            trial.sliding.erase(name);
            double group = 0;
            trial.tiles[target] = model.best_tile(target, trial, &group);
            const double cost = base - costs.at(name) - costs.at(target) + group;
            if (cost < best_cost) best_cost = cost, best = std::move(trial), found = true;
        }
        if (!found) break;
        c = std::move(best);
        if (last_step) break;
    }
    return c;
}

}  // namespace internal
}  // namespace loom
