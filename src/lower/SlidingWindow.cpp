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
    bool can_slide = true;  // no fuse, no RoundUp, constant factors
    int64_t extra = 0;      // at most this many points outside the window
};

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
        // GuardWithIf computes exactly the window; ShiftInwards recomputes
        // up to factor - 1 points before it, which earlier iterations
        // computed too. RoundUp would compute (and read the inputs) past
        // what bounds inference sized for the whole loop: no window.
        switch (sp.tail) {
        case TailStrategy::GuardWithIf:
        case TailStrategy::PredicateLoads:
        case TailStrategy::PredicateStores: break;
        case TailStrategy::RoundUp: slack.can_slide = false; break;
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

/** Every split of the stage that involves the dimension, in each of its
 * specializations too. */
SplitSlack split_slack(const Stage &stage, const std::string &pure_var) {
    SplitSlack slack;
    add_split_slack(stage.splits, pure_var, slack);
    add_specialization_slack(stage.specializations, pure_var, slack);
    return slack;
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
            values[2 * slid->dim + 1] = region[2 * slid->dim + 1];
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
                const SplitSlack slack = split_slack(stage, stage.pure_vars[d]);
                if (!slack.can_slide) return std::nullopt;
                Expr next_min = substitute(loop->name, Add::make(v, Expr(1)), min);
                Expr next_max = substitute(loop->name, Add::make(v, Expr(1)), max);
                if (!can_prove(GE::make(next_min, min)) || !can_prove(GE::make(next_max, max))) return std::nullopt;
                Expr footprint = simplify(Add::make(Sub::make(max, min), Expr(1)));
                Expr prev_max = substitute(loop->name, Sub::make(v, Expr(1)), max);
                Expr first = LE::make(v, loop->min);
                (*windows_)[{f.name, d}] = simplify(Add::make(footprint, Expr((int)slack.extra)));
                return Slide{d, simplify(Select::make(first, min, Max::make(min, Add::make(prev_max, Expr(1)))))};
            }
        }
        return std::nullopt;
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
