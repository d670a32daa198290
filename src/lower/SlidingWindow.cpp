#include "lower/SlidingWindow.h"

#include <optional>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "lower/ExternStages.h"

namespace loom {
namespace internal {

namespace {

/** How many places each Func is computed at (a level without a stage index
 * places a producer in the loop of each stage that reads it). */
/** Whether a Func other than `f` is produced inside a statement. */
class ProducesAnotherFunc : public IRVisitor {
public:
    explicit ProducesAnotherFunc(const std::string &f) : f_(f) {}
    bool found = false;

private:
    using IRVisitor::visit;
    void visit(const ProducerConsumer *op) override {
        if (op->is_producer && op->name != f_) found = true;
        IRVisitor::visit(op);
    }
    const std::string &f_;
};

/** A window on a grid (RoundUp blocks, whole vectors) computes points past
 * the region an iteration needs. Bounds inference sized the Funcs produced
 * inside the loop per iteration, for that region only (fuzz seed 1022856:
 * f2, computed at the same loop as f3 and read by it, was read past its
 * allocation), so such a window is only taken when no other Func is
 * produced inside the loop. */
bool produces_another_func_inside(const For *loop, const std::string &f) {
    ProducesAnotherFunc finder(f);
    loop->body.accept(&finder);
    return finder.found;
}

class CountComputeSites : public IRVisitor {
public:
    std::map<std::string, int> sites;

private:
    using IRVisitor::visit;
    void visit(const ProducerConsumer *op) override {
        if (op->is_producer) sites[op->name]++;
        IRVisitor::visit(op);
    }
};

bool ends_with(const std::string &s, const std::string &suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/** The definitions bounds inference makes: stage bounds and storage sizes. */
bool is_bounds_let(const std::string &name) {
    return ends_with(name, ".min") || ends_with(name, ".max") || ends_with(name, ".min_realized") ||
           ends_with(name, ".extent_realized");
}

/** What the splits of one dimension do to the points a stage computes. */
struct SplitSlack {
    bool can_slide = true;  // no fuse, constant factors
    int64_t extra = 0;      // at most this many points outside the window
    /** > 1: a RoundUp split computes whole blocks of this many points from
     * the stage's min (its region [min, min + k * block - 1], k the least
     * that reaches the max). */
    int64_t round_up_block = 1;
};

/** Whether a split of the dimension rounds it up: RoundUp, unless the
 * storage is folded by the user, where it is guarded (StageLoopNest.cpp). */
bool rounds_up(const Split &sp, bool fixed_storage) {
    return sp.kind == Split::SplitVar && sp.tail == TailStrategy::RoundUp && !fixed_storage;
}

bool touches(const Split &sp, const std::string &v) { return sp.old_var == v || sp.outer == v || sp.inner == v; }

/** The block of a dimension split with RoundUp: every split of the
 * dimension's outer piece (the pure var, then each split's outer var) must
 * round up, so the stage computes whole blocks of the product of their
 * factors from its min; splits of an inner piece must divide its constant
 * extent (they add no points). Anything else: nullopt. */
std::optional<int64_t> round_up_block(const std::vector<Split> &splits, const std::string &pure_var) {
    std::string outer_piece = pure_var;
    int64_t block = 1;
    std::map<std::string, int64_t> inner_extent;  // the inner pieces and their extents
    for (const Split &sp : splits) {
        const bool of_outer = touches(sp, outer_piece);
        auto inner = inner_extent.find(sp.old_var);
        if (!of_outer && inner == inner_extent.end()) {
            if (inner_extent.count(sp.outer) || inner_extent.count(sp.inner)) return std::nullopt;  // a fuse
            continue;
        }
        if (sp.kind == Split::FuseVars) return std::nullopt;
        if (sp.kind == Split::RenameVar) {
            if (of_outer) {
                outer_piece = sp.outer;
            } else {
                const int64_t extent = inner->second;
                inner_extent.erase(inner);
                inner_extent[sp.outer] = extent;
            }
            continue;
        }
        auto factor = as_const_int(simplify(sp.factor));
        if (!factor || *factor < 1) return std::nullopt;
        // An aligned split's blocks start at its alignment, not at the
        // stage's min (and grow the region on both sides).
        if (sp.align.defined()) return std::nullopt;
        if (of_outer) {
            if (sp.tail != TailStrategy::RoundUp) return std::nullopt;
            block *= *factor;
            outer_piece = sp.outer;
            inner_extent[sp.inner] = *factor;
            continue;
        }
        const int64_t extent = inner->second;
        if (extent % *factor != 0) return std::nullopt;
        inner_extent.erase(inner);
        inner_extent[sp.outer] = extent / *factor;
        inner_extent[sp.inner] = *factor;
    }
    return block;
}

void add_split_slack(const std::vector<Split> &splits, const std::string &pure_var, SplitSlack &slack) {
    // How many points of the dimension one step of each derived variable
    // moves: a ShiftInwards split of an outer variable shifts by whole
    // steps of it (y split by 3, its outer by 7, that outer by 5 shifted
    // inwards recomputes up to 4 * 21 points, not 4: seed 921099).
    std::map<std::string, int64_t> stride = {{pure_var, 1}};
    for (const Split &sp : splits) {
        if (!stride.count(sp.old_var) && !stride.count(sp.outer) && !stride.count(sp.inner)) continue;
        const int64_t step = stride.count(sp.old_var) ? stride.at(sp.old_var) : 1;
        if (sp.kind == Split::RenameVar) {
            stride[sp.outer] = step;
            continue;
        }
        if (sp.kind == Split::FuseVars) {
            slack.can_slide = false;  // the loop walks other dimensions too
            continue;
        }
        auto factor = as_const_int(simplify(sp.factor));
        if (!factor || *factor < 1 || !stride.count(sp.old_var)) {
            slack.can_slide = false;
            continue;
        }
        stride[sp.inner] = step;
        stride[sp.outer] = step * *factor;
        // GuardWithIf computes exactly the window (as RoundUp does in
        // folded storage; split_slack handles a RoundUp that rounds up);
        // ShiftInwards recomputes up to factor - 1 points before it, which
        // earlier iterations computed too.
        switch (sp.tail) {
        case TailStrategy::GuardWithIf:
        case TailStrategy::PredicateLoads:
        case TailStrategy::PredicateStores:
        case TailStrategy::RoundUp: break;
        default: slack.extra += (*factor - 1) * step; break;
        }
    }
}

void add_specialization_slack(const std::vector<StageSpecialization> &specs, const std::string &pure_var,
                              SplitSlack &slack) {
    for (const StageSpecialization &sp : specs) {
        add_split_slack(sp.splits, pure_var, slack);
        add_specialization_slack(sp.specializations, pure_var, slack);
    }
}

bool any_rounds_up(const std::vector<Split> &splits, const std::vector<StageSpecialization> &specs,
                   const std::string &pure_var, bool fixed_storage) {
    // Every name derived from the dimension: a RoundUp of any of them counts.
    std::set<std::string> derived = {pure_var};
    auto scan = [&](const std::vector<Split> &list) {
        for (const Split &sp : list) {
            if (!derived.count(sp.old_var) && !derived.count(sp.outer) && !derived.count(sp.inner)) continue;
            if (rounds_up(sp, fixed_storage)) return true;
            derived.insert({sp.old_var, sp.outer, sp.inner});
        }
        return false;
    };
    if (scan(splits)) return true;
    for (const StageSpecialization &sp : specs) {
        if (any_rounds_up(sp.splits, sp.specializations, pure_var, fixed_storage)) return true;
    }
    return false;
}

/** Every split of the stage that involves the dimension, in each of its
 * specializations too. */
SplitSlack split_slack(const Stage &stage, const std::string &pure_var, bool fixed_storage) {
    SplitSlack slack;
    if (any_rounds_up(stage.splits, stage.specializations, pure_var, fixed_storage)) {
        // Only the plain shape: the outer pieces all round up, in one nest.
        auto block = stage.specializations.empty() ? round_up_block(stage.splits, pure_var) : std::nullopt;
        slack.can_slide = block.has_value();
        if (block) slack.round_up_block = *block;
        return slack;
    }
    add_split_slack(stage.splits, pure_var, slack);
    add_specialization_slack(stage.specializations, pure_var, slack);
    return slack;
}

/** The width of the vectors a dimension is computed in, when its pure var
 * is split once, by a constant factor with a GuardWithIf tail, and the inner
 * piece is vectorized (nothing else splits or fuses it): a window of it then
 * slides in whole vectors (Halide's sliding window of a vectorized
 * producer), not one guarded scalar column at a time. 1 otherwise. */
int64_t guarded_vector_width(const Stage &stage, const std::string &pure_var) {
    if (!stage.specializations.empty()) return 1;
    const Split *vector_split = nullptr;
    std::set<std::string> derived = {pure_var};
    for (const Split &sp : stage.splits) {
        if (!derived.count(sp.old_var) && !derived.count(sp.outer) && !derived.count(sp.inner)) continue;
        if (vector_split || sp.kind != Split::SplitVar || sp.old_var != pure_var) return 1;
        vector_split = &sp;
        derived.insert({sp.outer, sp.inner});
    }
    if (!vector_split || vector_split->tail != TailStrategy::GuardWithIf || vector_split->align.defined()) return 1;
    auto factor = as_const_int(simplify(vector_split->factor));
    if (!factor || *factor < 2) return 1;
    for (const Dim &d : stage.dims) {
        if (d.var == vector_split->inner) return d.for_type == ForType::Vectorized ? *factor : 1;
    }
    return 1;
}

class SlideWindows : public IRMutator {
public:
    SlideWindows(const PipelineStages &p, const std::map<std::string, int> &sites, SlidWindows *windows)
        : p_(p), windows_(windows) {
        for (const std::string &name : p.order) {
            const FunctionContents &f = p.func(name);
            const std::vector<Stage> &stages = p.stages.at(name);
            // A Func computed at several places (in the loops of several
            // stages of its consumer) is computed in full at each: one window
            // and one fold could not serve them all. Updates and bound()
            // fix what each iteration computes; align_bounds() promises
            // aligned regions, which a window breaks.
            auto count = sites.find(name);
            if (p.is_output(name) || stages.size() != 1 || !f.schedule.bounds.empty() ||
                !f.schedule.bound_alignments.empty() || f.dimensions() == 0 ||
                count == sites.end() || count->second != 1) {
                continue;
            }
            chain_starts_[stages[0].pure_vars[0] + ".min"] = name;
        }
    }

protected:
    using IRMutator::visit;

    Stmt visit(const Realize *op) override {
        storage_depth_[op->name] = loops_.size();
        Stmt result = IRMutator::visit(op);
        storage_depth_.erase(op->name);
        return result;
    }

    Stmt visit(const For *op) override {
        loops_.push_back(op);
        Stmt result = IRMutator::visit(op);
        loops_.pop_back();
        return result;
    }

    Stmt visit(const LetStmt *op) override {
        auto start = chain_starts_.find(op->name);
        if (start != chain_starts_.end() && storage_depth_.count(start->second)) return slide(start->second, op);
        lets_.push_back({op->name, op->value, loops_.size()});
        Stmt body = mutate(op->body);
        lets_.pop_back();
        if (body.same_as(op->body)) return op;
        return LetStmt::make(op->name, op->value, body);
    }

private:
    struct Let {
        std::string name;
        Expr value;
        size_t depth;  // loops enclosing it
    };

    /** The compute site of f: the lets of its stage bounds, f.s0.x.min,
     * f.s0.x.max, ... in the order of its dimensions. */
    Stmt slide(const std::string &name, const LetStmt *op) {
        const FunctionContents &f = p_.func(name);
        const Stage &stage = p_.stages.at(name)[0];
        const int dims = f.dimensions();
        std::vector<const LetStmt *> chain;
        const LetStmt *let = op;
        for (int i = 0; i < 2 * dims; i++) {
            const std::string expected = stage.pure_vars[i / 2] + (i % 2 ? ".max" : ".min");
            if (!let || let->name != expected) {
                throw InternalError("sliding_window: the stage bounds of Func '" + name +
                                    "' are not in the order bounds inference writes them (expected " + expected + ")");
            }
            chain.push_back(let);
            if (i + 1 < 2 * dims) let = let->body.as<LetStmt>();
        }
        std::vector<Expr> values;
        for (const LetStmt *l : chain) values.push_back(l->value);
        // A constant extent is written as max = min + extent (so the loops
        // see it): the window needs the max on its own.
        std::vector<Expr> region = values;
        for (int d = 0; d < dims; d++) region[2 * d + 1] = substitute(chain[2 * d]->name, region[2 * d], region[2 * d + 1]);
        if (auto slid = slide_in_innermost_loop(f, stage, region)) {
            values[2 * slid->dim] = slid->min;
            values[2 * slid->dim + 1] = slid->max.defined() ? slid->max : region[2 * slid->dim + 1];
        }

        for (size_t i = 0; i < chain.size(); i++) lets_.push_back({chain[i]->name, values[i], loops_.size()});
        Stmt body = mutate(chain.back()->body);
        for (size_t i = 0; i < chain.size(); i++) lets_.pop_back();
        for (size_t i = chain.size(); i-- > 0;) body = LetStmt::make(chain[i]->name, values[i], body);
        return body;
    }

    struct Slide {
        int dim;
        Expr min;  // the new min of that dimension
        Expr max;  // its new max; undefined: the region's
    };

    /** How f slides along the innermost serial loop between its storage and
     * its computation its region depends on, if it does. bounds: min and
     * max of each dimension. */
    std::optional<Slide> slide_in_innermost_loop(const FunctionContents &f, const Stage &stage,
                                                 const std::vector<Expr> &bounds) {
        const size_t storage_depth = storage_depth_.at(f.name);
        for (size_t l = loops_.size(); l-- > storage_depth;) {
            const For *loop = loops_[l];
            if (loop->for_type != ForType::Serial) return std::nullopt;
            Expr v = Variable::make(Int(32), loop->name);
            // The region as a function of the loop variable: the bounds of
            // the consumers computed in this iteration depend on it too.
            std::vector<Expr> mins, maxes;
            int moving = 0;
            for (int d = 0; d < f.dimensions(); d++) {
                mins.push_back(substitute_lets_inside(bounds[2 * d], l));
                maxes.push_back(substitute_lets_inside(bounds[2 * d + 1], l));
                if (!mins[d].defined() || !maxes[d].defined()) return std::nullopt;
                moving += expr_uses_var(mins[d], loop->name) || expr_uses_var(maxes[d], loop->name);
            }
            // A window computes only the new part of one dimension, for the
            // current extent of the others: if those move with the loop too
            // (a where() on the loop's variable narrows another dimension,
            // a diagonal read), old rows would lack the new columns. Halide
            // refuses that too.
            if (moving > 1) return std::nullopt;
            for (int d = 0; d < f.dimensions(); d++) {
                const Expr &min = mins[d], &max = maxes[d];
                if (!expr_uses_var(min, loop->name) && !expr_uses_var(max, loop->name)) continue;
                const SplitSlack slack = split_slack(stage, stage.pure_vars[d], !f.schedule.storage_folds.empty());
                if (!slack.can_slide) return std::nullopt;
                Expr next_min = substitute(loop->name, Add::make(v, Expr(1)), min);
                Expr next_max = substitute(loop->name, Add::make(v, Expr(1)), max);
                if (!can_prove(GE::make(next_min, min)) || !can_prove(GE::make(next_max, max))) return std::nullopt;
                Expr footprint = simplify(Add::make(Sub::make(max, min), Expr(1)));
                Expr prev_max = substitute(loop->name, Sub::make(v, Expr(1)), max);
                Expr first = LE::make(v, loop->min);
                const bool grid_allowed = !produces_another_func_inside(loop, f.name);
                if (slack.round_up_block > 1) {
                    // The window slides in whole blocks, and computes up to
                    // block - 1 points past the max for later iterations.
                    if (!grid_allowed || !can_prove(LE::make(next_min, Add::make(max, Expr(1))))) return std::nullopt;
                    Expr new_min = round_up_new_min(loop, min, max, slack.round_up_block);
                    (*windows_)[{f.name, d}] = simplify(Add::make(footprint, Expr((int)slack.round_up_block - 1)));
                    return Slide{d, simplify(Select::make(first, min, new_min))};
                }
                const int64_t width = guarded_vector_width(stage, stage.pure_vars[d]);
                if (width > 1 && grid_allowed && slack.extra == 0 && f.schedule.storage_folds.empty() &&
                    can_prove(LE::make(next_min, Add::make(max, Expr(1))))) {
                    // Whole vectors, computed up to width - 1 points ahead.
                    const GridWindow w = grid_window(loop, min, max, width, last_value(loop, max));
                    (*windows_)[{f.name, d}] = simplify(Add::make(footprint, Expr((int)width - 1)));
                    return Slide{d, simplify(Select::make(first, min, w.new_min)), w.new_max};
                }
                (*windows_)[{f.name, d}] = simplify(Add::make(footprint, Expr((int)slack.extra)));
                return Slide{d, simplify(Select::make(first, min, Max::make(min, Add::make(prev_max, Expr(1)))))};
            }
        }
        return std::nullopt;
    }

    /** The stage min of an iteration after the first of a dimension whose
     * RoundUp split computes blocks of `block` points from the stage min:
     * min and max are the region the iteration needs, as functions of the
     * loop's variable.
     *
     * Without the window, iteration v computes [min(v), U(v)], U(v) =
     * min(v) + block * ceil((max(v) - min(v) + 1) / block) - 1; bounds
     * inference sized the storage and the inputs for the union of those,
     * which contains [A, B] = [min(first), U(last)] (the windows are
     * contiguous and move up). With it, the blocks lie on one grid from A
     * (grid_window); the RoundUp split itself computes each block whole. */
    static Expr round_up_new_min(const For *loop, const Expr &min, const Expr &max, int64_t block) {
        Expr b((int)block);
        Expr last = Sub::make(Add::make(loop->min, loop->extent), Expr(1));
        Expr last_min = substitute(loop->name, last, min), last_max = substitute(loop->name, last, max);
        Expr end = simplify(Sub::make(Add::make(last_min, round_up(Add::make(Sub::make(last_max, last_min), Expr(1)), b)),
                                      Expr(1)));
        return grid_window(loop, min, max, block, end).new_min;
    }

    /** b * ceil(n / b) for n >= 1, with Euclidean division. */
    static Expr round_up(const Expr &n, const Expr &b) {
        return Mul::make(Div::make(Add::make(n, Sub::make(b, Expr(1))), b), b);
    }

    /** e at the loop's last iteration. */
    static Expr last_value(const For *loop, const Expr &e) {
        return simplify(substitute(loop->name, Sub::make(Add::make(loop->min, loop->extent), Expr(1)), e));
    }

    struct GridWindow {
        Expr new_min, new_max;
    };

    /** What an iteration after the first computes when a window slides in
     * blocks of `block` points on one grid from A = min(first), none past
     * `end` (what bounds inference sized): min and max are the region the
     * iteration needs, as functions of the loop's variable. Iteration v
     * computes the blocks after the one holding max(v - 1), up to the one
     * holding max(v) (none when that block is already done). Where the
     * last block would end past `end` it is shifted back to end there
     * (recomputing up to block - 1 points), so nothing past `end` is read.
     * The points one iteration writes or still needs span at most the
     * footprint plus block - 1. */
    static GridWindow grid_window(const For *loop, const Expr &min, const Expr &max, int64_t block, const Expr &end) {
        Expr v = Variable::make(Int(32), loop->name);
        Expr b((int)block);
        Expr first_min = simplify(substitute(loop->name, loop->min, min));
        // The end of the grid block holding point p.
        auto grid_end = [&](const Expr &p) {
            return Sub::make(Add::make(first_min, round_up(Add::make(Sub::make(p, first_min), Expr(1)), b)), Expr(1));
        };
        Expr prev_max = substitute(loop->name, Sub::make(v, Expr(1)), max);
        Expr after_done = Add::make(grid_end(prev_max), Expr(1));
        Expr shift = Max::make(Sub::make(grid_end(max), end), Expr(0));
        return {simplify(Sub::make(after_done, shift)), simplify(Min::make(grid_end(max), end))};
    }

    /** e with the bounds definitions made inside loop `l` written in (latest
     * first, so chains resolve), or undefined if it grows too large to
     * reason about. */
    Expr substitute_lets_inside(Expr e, size_t l) const {
        constexpr int kMaxNodes = 2000;
        for (auto it = lets_.rbegin(); it != lets_.rend() && it->depth > l; ++it) {
            if (!is_bounds_let(it->name) || !expr_uses_var(e, it->name)) continue;
            if (is_extern_bounds_query(it->value)) return Expr();  // a C function's answer: not a formula
            e = simplify(substitute(it->name, it->value, e));
            if (expr_size(e, kMaxNodes + 1) > kMaxNodes) return Expr();
        }
        return e;
    }

    const PipelineStages &p_;
    SlidWindows *windows_;
    /** The first stage-bounds name of each Func that may slide. */
    std::map<std::string, std::string> chain_starts_;
    std::map<std::string, size_t> storage_depth_;
    std::vector<const For *> loops_;
    std::vector<Let> lets_;
};

}  // namespace

Stmt sliding_window(const Stmt &s, const PipelineStages &pipeline, SlidWindows *windows) {
    CountComputeSites counter;
    s.accept(&counter);
    return SlideWindows(pipeline, counter.sites, windows).mutate(s);
}

}  // namespace internal
}  // namespace loom
