#ifndef LOOM_AUTOSCHEDULE_COST_MODEL_H
#define LOOM_AUTOSCHEDULE_COST_MODEL_H

/** \file
 * LoomHeuristic's analytic cost model, in the spirit of Mullapudi et al.
 * 2016: the cost of a schedule is counted in arithmetic operations, from
 * each Func's IR (operations and loads per point), the points each
 * realized Func computes (more than its region when it is recomputed in
 * the overlapping halos of its consumer's tiles), and the cache lines each
 * group moves (the data it reads from outside, its output, its members'
 * tiles), each costing `balance` times the share of a core's part of the
 * last-level cache its working set fills. Parallel tiles and vector lanes
 * divide it.
 * docs/AUTOSCHEDULER.md, "The cost model".
 */

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autoschedule/CallGraph.h"
#include "loom/Target.h"

namespace loom {
namespace internal {

/** The machine the schedule is for (Halide's MachineParams). */
struct HeuristicSettings {
    int parallelism = 16;
    uint64_t last_level_cache_size = 16 * 1024 * 1024;
    /** The cost of a load from memory relative to an arithmetic operation. */
    double balance = 40;
};

/** The extents of a tile of a realized Func's two innermost dimensions
 * (y = 1 for one dimension); x = 0: the Func is not tiled. */
struct Tile {
    int64_t x = 0, y = 0;
    bool operator==(const Tile &o) const { return x == o.x && y == o.y; }
};

/** Whether pure dimension d of f is free in update `stage`: written at f's
 * own Var there, read at it by every reference of f to itself, and not used
 * at another position of those. Such a loop's iterations are independent. */
bool is_free_pure_dim(const FunctionContents &f, int stage, int d);

/** Whether every pure dimension of update `stage` is free: the update of a
 * point reads and writes only that point of f, so computing f over any
 * region (a consumer's tile) computes exactly that region. */
bool is_pointwise_update(const FunctionContents &f, int stage);

/** What the search decides for each Func. A Func neither inlined nor a
 * member is realized at the root (or is an output) and heads a group. */
struct Choices {
    std::set<std::string> inlined;
    /** A Func computed per tile of another (its group's head), by name. */
    std::map<std::string, std::string> head_of;
    /** The tile of each group head that is tiled. */
    std::map<std::string, Tile> tiles;
    /** Heads whose members slide: stored per tile of the head, computed
     * per row of it (store_at the tile loop, compute_at y_i), so each keeps
     * a circular buffer of the rows one row of the tile needs. */
    std::set<std::string> sliding;

    bool is_member(const std::string &f) const { return head_of.count(f) > 0; }
    std::vector<std::string> members_of(const std::string &head) const;
};

class CostModel {
public:
    CostModel(const CallGraph &graph, const Target &target, const HeuristicSettings &settings);

    /** The cost of running the whole pipeline with these choices. */
    double pipeline_cost(const Choices &choices) const;
    /** The cost of one group: head tiled by `tile`, its members (in
     * choices) computed per tile. */
    double group_cost(const std::string &head, const Tile &tile, const Choices &choices) const;
    /** Tiles worth trying for head: x a multiple of the vector width, y a
     * power of two, neither beyond the estimated extent. Empty if head
     * cannot be tiled (no dimension, or too narrow to vectorize). */
    std::vector<Tile> tile_candidates(const std::string &head) const;
    /** Whether head's group slides with this tile: head is in
     * choices.sliding, tiled in two dimensions with more than one row, and
     * has members, none with updates. */
    bool can_slide(const std::string &head, const Tile &tile, const Choices &choices) const;
    /** The candidate tile with the least group cost (written to *cost if
     * given), or Tile{} if there is no candidate. */
    Tile best_tile(const std::string &head, const Choices &choices, double *cost = nullptr) const;

    /** How many group costs were computed (not found in the memo): the
     * search's measure of its effort. */
    int64_t evaluations() const { return evaluations_; }

    int vector_width(const std::string &f) const;
    int64_t extent(const std::string &f, int d) const;
    /** Funcs the search may compute per tile: not an output, not extern,
     * not in a recurrence, and every update pointwise
     * (is_pointwise_update: then each tile computes its own region). */
    bool is_movable(const std::string &f) const;
    /** Funcs the search may inline: movable and without updates. */
    bool can_inline(const std::string &f) const;

    /** Operations outside call coordinates, and calls (loads), per point
     * of f's pure definition. */
    struct PointCost {
        double operations = 0;
        std::map<std::string, double> loads;  // by callee: Func or input buffer
    };
    const PointCost &point_cost(const std::string &f) const { return point_costs_.at(f); }

private:
    /** f's operations and loads per point with the inlined Funcs it calls
     * expanded into it (memo: per Func, for one set of choices). */
    const PointCost &expanded(const std::string &f, const Choices &choices,
                              std::map<std::string, PointCost> &memo) const;
    /** Per head tile: the region (extents) each Func of the group and each
     * Func or buffer it loads from has in one tile. */
    std::map<std::string, std::vector<int64_t>> regions_per_tile(const std::string &head, const Tile &tile,
                                                                 const Choices &choices) const;
    /** The inlined Funcs the group's definitions reach, through inlined Funcs. */
    std::set<std::string> inlined_reached(const std::vector<std::string> &group, const Choices &choices) const;
    double compute_group_cost(const std::string &head, const Tile &tile, const Choices &choices) const;
    /** The cost of moving one cache line whose working set is that many
     * bytes: balance for the part of the set that does not fit in a core's
     * share of the cache (last_level_cache_size / parallelism), 5% of
     * balance for the part that does. */
    double line_cost(double working_set_bytes) const;

    struct UpdateCost {
        PointCost per_point;
        double points = 0;
        /** The points of its RDom (1 without one): per point of the Func
         * when the update is pointwise. */
        double rdom_points = 1;
        bool pointwise = false;
    };

    const CallGraph &graph_;
    HeuristicSettings settings_;
    std::map<std::string, int> vector_widths_, bytes_per_point_;
    std::map<std::string, PointCost> point_costs_;
    std::map<std::string, int> input_bytes_;  // element size of each input buffer read
    std::map<std::string, std::vector<UpdateCost>> updates_;
    mutable std::map<std::string, double> group_costs_;  // group_cost's memo
    mutable int64_t evaluations_ = 0;
};

}  // namespace internal
}  // namespace loom

#endif
