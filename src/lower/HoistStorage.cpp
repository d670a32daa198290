#include "lower/HoistStorage.h"

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

std::string level_text(const LoopLevel &level) {
    if (level.is_root()) return "hoist_storage_root()";
    return "hoist_storage(" + level.func + ", " + level.var + ")";
}

class HoistAllocations : public IRMutator {
public:
    explicit HoistAllocations(const PipelineStages &p) {
        for (const std::string &name : p.order) {
            const FunctionContents &f = p.func(name);
            if (p.is_output(name) || f.schedule.hoist_storage_level.is_inlined()) continue;
            levels_[name] = f.schedule.hoist_storage_level;
            for (int v = 0; v < f.outputs(); v++) storage_func_[storage_name(f, v)] = name;
        }
    }

    Stmt run(const Stmt &s) {
        std::vector<std::string> opened;
        for (const auto &[func, level] : levels_) {
            if (level.is_root()) opened.push_back(func);
        }
        for (const std::string &f : opened) open_[f] = 0;
        Stmt body = mutate(s);
        return close(opened, body);
    }

protected:
    using IRMutator::visit;

    Stmt visit(const For *op) override {
        path_.push_back({Frame::Loop, op->name, op->min, op->extent, op->for_type});
        std::vector<std::string> opened;
        for (const auto &[func, level] : levels_) {
            if (names_loop(level, op->name) && !open_.count(func)) opened.push_back(func);
        }
        for (const std::string &f : opened) open_[f] = path_.size();
        Stmt body = mutate(op->body);
        body = close(opened, body);
        path_.pop_back();
        if (body.same_as(op->body)) return op;
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
    }

    Stmt visit(const LetStmt *op) override {
        path_.push_back({Frame::Let, op->name, op->value, Expr(), ForType::Serial});
        Stmt body = mutate(op->body);
        path_.pop_back();
        if (body.same_as(op->body)) return op;
        return LetStmt::make(op->name, op->value, body);
    }

    Stmt visit(const Allocate *op) override {
        auto owner = storage_func_.find(op->name);
        if (owner == storage_func_.end()) return IRMutator::visit(op);
        const std::string &func = owner->second;
        auto open = open_.find(func);
        if (open == open_.end()) {
            throw CompileError("Func '" + func + "' is scheduled " + level_text(levels_.at(func)) +
                               ", but that loop does not enclose its storage (its store_at() or compute_at() level). "
                               "Hoist the storage to the store level or a loop outside it.");
        }
        std::vector<Expr> extents;
        for (const Expr &e : op->extents) extents.push_back(largest_over_loops(func, e, open->second));
        Hoisted &h = hoisted_[op->name];
        if (h.extents.empty()) {
            h = {op->type, op->memory_type, extents, func};
        } else {
            for (size_t d = 0; d < extents.size(); d++) h.extents[d] = simplify(Max::make(h.extents[d], extents[d]));
        }
        return mutate(op->body);
    }

private:
    struct Frame {
        enum Kind { Let, Loop } kind;
        std::string name;
        Expr value_or_min, extent;
        ForType for_type;
    };
    struct Hoisted {
        Type type;
        MemoryType memory_type;
        std::vector<Expr> extents;
        std::string func;
    };

    /** The largest value of e over the iterations of the loops between the
     * hoist level (path_ index `from`) and here, in terms of what is defined
     * at the hoist level. */
    Expr largest_over_loops(const std::string &func, Expr e, size_t from) const {
        for (size_t i = path_.size(); i-- > from;) {
            const Frame &frame = path_[i];
            const bool shared = frame.kind == Frame::Loop && frame.for_type != ForType::Serial &&
                                frame.for_type != ForType::Unrolled;
            if (shared) {
                throw CompileError("Func '" + func + "' is scheduled " + level_text(levels_.at(func)) +
                                   ", outside the parallel, vectorized or GPU loop '" + frame.name +
                                   "' whose iterations make its storage: they would share one allocation. Hoist it "
                                   "no further out than that loop.");
            }
            if (!expr_uses_var(e, frame.name)) continue;
            if (frame.kind == Frame::Let) {
                e = substitute(frame.name, frame.value_or_min, e);
                continue;
            }
            Scope<Interval> scope;
            scope.push(frame.name, Interval(frame.value_or_min,
                                            simplify(Sub::make(Add::make(frame.value_or_min, frame.extent), Expr(1)))));
            Interval range = bounds_of_expr_in_scope(simplify(e), scope);
            if (!range.has_upper_bound()) {
                throw CompileError("Func '" + func + "' is scheduled " + level_text(levels_.at(func)) +
                                   ", but Loom can't bound the size of its storage over the loop '" + frame.name +
                                   "' (" + to_string(e) + "). Give the Func a constant size with bound_storage() "
                                   "or bound(), or hoist it less far.");
            }
            e = range.max;
        }
        return simplify(e);
    }

    /** The allocations hoisted to a level, around its body. */
    Stmt close(const std::vector<std::string> &funcs, Stmt body) {
        for (const std::string &func : funcs) {
            open_.erase(func);
            for (auto it = hoisted_.begin(); it != hoisted_.end();) {
                if (it->second.func != func) {
                    ++it;
                    continue;
                }
                const Hoisted &h = it->second;
                body = Allocate::make(it->first, h.type, h.memory_type, h.extents, const_true(), body);
                it = hoisted_.erase(it);
            }
        }
        return body;
    }

    std::map<std::string, LoopLevel> levels_;
    std::map<std::string, std::string> storage_func_;
    std::map<std::string, size_t> open_;  // Func -> where its hoist level starts in path_
    std::map<std::string, Hoisted> hoisted_;
    std::vector<Frame> path_;
};

}  // namespace

bool names_loop(const LoopLevel &level, const std::string &name) {
    if (level.kind != LoopLevel::At) return false;
    if (level.stage >= 0) return name == stage_var_name(level.func, level.stage, level.var);
    const std::string prefix = level.func + ".s", suffix = "." + level.var;
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return false;
    }
    const std::string stage = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    return !stage.empty() && stage.find_first_not_of("0123456789") == std::string::npos;
}

Stmt hoist_storage(const Stmt &s, const PipelineStages &pipeline) { return HoistAllocations(pipeline).run(s); }

}  // namespace internal
}  // namespace loom
