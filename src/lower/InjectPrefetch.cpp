#include "lower/InjectPrefetch.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {
namespace internal {

namespace {

// One prefetch per this many bytes of dimension 0: a cache line.
constexpr int kCacheLineBytes = 64;

struct StagePrefetch {
    std::string func;  // the stage's Func
    int stage = 0;
    PrefetchDirective directive;
};

void collect(const std::string &func, int stage, const StageSchedule &s, const std::vector<Specialization> &specs,
             std::vector<StagePrefetch> &out) {
    for (const PrefetchDirective &p : s.prefetches) out.push_back({func, stage, p});
    for (const Specialization &sp : specs) collect(func, stage, sp.schedule, sp.specializations, out);
}

class InjectPrefetches : public IRMutator {
public:
    explicit InjectPrefetches(const PipelineStages &pipeline) : pipeline_(pipeline) {
        for (const auto &[name, stages] : pipeline.stages) {
            const FunctionContents &f = pipeline.func(name);
            for (int k = 0; k < f.stages(); k++) {
                collect(name, k, f.stage(k).schedule, f.stage(k).specializations, prefetches_);
            }
        }
    }

    /** Directives whose `at` loop was never met. */
    void check_all_placed() const {
        for (size_t i = 0; i < prefetches_.size(); i++) {
            if (placed_.count(i)) continue;
            const StagePrefetch &p = prefetches_[i];
            // The stage's loops moved onto the GPU (GPU conformance mode):
            // no prefetch there.
            const std::string prefix = stage_var_name(p.func, p.stage, "");
            bool on_gpu = false;
            for (const std::string &loop : gpu_loops_) {
                on_gpu = on_gpu || loop.compare(0, prefix.size(), prefix) == 0;
            }
            if (on_gpu) continue;
            throw CompileError("prefetch of " + p.directive.name + " in " + stage_description(p.func, p.stage) +
                               " is placed at loop " + p.directive.at +
                               ", which the stage's loop nest does not have (was it split, fused or renamed after "
                               "prefetch()?). Name a loop the stage has when it is compiled.");
        }
    }

protected:
    using IRMutator::visit;

    Stmt visit(const Realize *op) override {
        realizations_.push(op->name, op->bounds);
        Stmt result = IRMutator::visit(op);
        realizations_.pop(op->name);
        return result;
    }

    Stmt visit(const For *op) override {
        loops_.push_back(op->name);
        gpu_depth_ += is_gpu_loop(op->for_type) ? 1 : 0;
        if (is_gpu_loop(op->for_type)) gpu_loops_.push_back(op->name);
        Stmt body = mutate(op->body);
        std::vector<Stmt> prefetches;
        for (size_t i = 0; i < prefetches_.size(); i++) {
            const StagePrefetch &p = prefetches_[i];
            if (stage_var_name(p.func, p.stage, p.directive.at) != op->name) continue;
            placed_.insert(i);
            if (gpu_depth_ > 0) continue;  // no prefetch in a kernel
            if (op->for_type == ForType::Vectorized) {
                throw CompileError("prefetch of " + p.directive.name + " in " + stage_description(p.func, p.stage) +
                                   " can't be placed in loop " + p.directive.at +
                                   ", which is vectorized. Place it at a loop outside the vectorized one.");
            }
            prefetches.push_back(region_prefetch(p, body));
        }
        gpu_depth_ -= is_gpu_loop(op->for_type) ? 1 : 0;
        loops_.pop_back();
        if (prefetches.empty() && body.same_as(op->body)) return op;
        prefetches.push_back(body);
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, Block::make(prefetches));
    }

private:
    [[noreturn]] void fail(const StagePrefetch &p, const std::string &why) const {
        throw CompileError("prefetch of " + p.directive.name + " at loop " + p.directive.at + " of " +
                           stage_description(p.func, p.stage) + ": " + why);
    }

    /** The prefetch loop nest for directive p placed before `body`. */
    Stmt region_prefetch(const StagePrefetch &p, const Stmt &body) {
        const PrefetchDirective &d = p.directive;
        const std::string from = stage_var_name(p.func, p.stage, d.from);
        if (std::find(loops_.begin(), loops_.end(), from) == loops_.end()) {
            fail(p, "'from' loop " + d.from + " is not the loop 'at' or a loop outside it in the compiled nest.");
        }
        Stmt ahead = substitute(from, Variable::make(Int(32), from) + d.offset, body);
        const std::string &name = d.name;
        auto boxes = boxes_required(ahead, Scope<Interval>(), [&](const std::string &n) { return n == name; });
        auto found = boxes.find(name);
        if (found == boxes.end() || found->second.empty()) {
            fail(p, "the loop's body does not read " + name + ". Prefetch a Func or buffer the stage reads.");
        }
        Box box = found->second;
        for (const Interval &i : box) {
            if (!i.min.defined() || !i.max.defined()) {
                fail(p, "the region of " + name + " the loop reads has no bound Loom can compute.");
            }
        }
        // What exists of it: the enclosing realization, or the buffer.
        std::vector<Expr> lo, hi;
        const bool is_param = d.param.defined();
        const bool is_func = !is_param && pipeline_.env.count(name);
        Type type = is_param ? d.param.type() : pipeline_.func(name).output_types.at(0);
        if (d.strategy != PrefetchBoundStrategy::NonFaulting) {
            if (!is_param && realizations_.contains(name)) {
                for (const Range &r : realizations_.get(name)) {
                    lo.push_back(r.min);
                    hi.push_back(r.min + r.extent - 1);
                }
            } else if (is_param || pipeline_.is_output(name)) {
                for (size_t k = 0; k < box.size(); k++) {
                    Expr min = Variable::make(Int(32), name + ".min." + std::to_string(k));
                    lo.push_back(min);
                    hi.push_back(min + Variable::make(Int(32), name + ".extent." + std::to_string(k)) - 1);
                }
            } else {
                fail(p, name + " is not stored outside the loop, so its bounds are unknown there; use "
                        "PrefetchBoundStrategy::NonFaulting or compute it further out.");
            }
            if (lo.size() != box.size()) fail(p, "the region of " + name + " has the wrong number of dimensions.");
        }
        Expr guard;
        for (size_t k = 0; k < box.size(); k++) {
            if (d.strategy == PrefetchBoundStrategy::Clamp) {
                box[k].min = max(box[k].min, lo[k]);
                box[k].max = min(box[k].max, hi[k]);
            } else if (d.strategy == PrefetchBoundStrategy::GuardWithIf) {
                Expr inside = box[k].min >= lo[k] && box[k].max <= hi[k];
                guard = guard.defined() ? (guard && inside) : inside;
            }
        }
        // Loops over the box, dimension 0 by cache lines.
        const std::string prefix = name + ".prefetch" + std::to_string(count_++) + ".";
        std::vector<Expr> coords;
        for (size_t k = 0; k < box.size(); k++) coords.push_back(Variable::make(Int(32), prefix + std::to_string(k)));
        const int per_line = std::max(1, kCacheLineBytes / std::max(1, type.bytes()));
        Expr at;
        if (is_param) {
            at = Call::make(type, name, coords, CallType::Image, FunctionPtr(), 0, d.param);
        } else if (is_func) {
            at = Call::make(type, name, coords, CallType::Func, pipeline_.env.at(name), 0);
        } else {
            fail(p, name + " is not a Func of this pipeline.");
        }
        Stmt s = Evaluate::make(Call::make(Int(32), intrinsic::prefetch, {at}, CallType::Intrinsic));
        if (!box.empty()) {
            // One address per line, and the last element (a region that
            // starts mid-line ends in one more line).
            const std::string line = prefix + "line";
            Expr x0 = min(box[0].min + Variable::make(Int(32), line) * per_line, box[0].max);
            s = LetStmt::make(prefix + "0", x0, s);
            Expr lines = (box[0].max - box[0].min) / per_line + 2;
            s = For::make(line, 0, max(lines, 0), ForType::Serial, DeviceAPI::None, s);
        }
        for (size_t k = 1; k < box.size(); k++) {
            s = For::make(prefix + std::to_string(k), box[k].min, box[k].max - box[k].min + 1, ForType::Serial,
                          DeviceAPI::None, s);
        }
        if (guard.defined()) s = IfThenElse::make(guard, s);
        return simplify(s);
    }

    const PipelineStages &pipeline_;
    std::vector<StagePrefetch> prefetches_;
    std::set<size_t> placed_;
    std::vector<std::string> gpu_loops_;  // every GPU loop met
    std::vector<std::string> loops_;
    Scope<Region> realizations_;
    int gpu_depth_ = 0;
    int count_ = 0;
};

}  // namespace

Stmt inject_prefetch(const Stmt &s, const PipelineStages &pipeline) {
    InjectPrefetches inject(pipeline);
    Stmt result = inject.mutate(s);
    inject.check_all_placed();
    return result;
}

}  // namespace internal
}  // namespace loom
