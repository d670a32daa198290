#include "lower/StorageSizes.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

struct SizeRule {
    std::string func, var;
    Expr alignment, bound;  // either may be undefined
};

class SizeStorage : public IRMutator {
public:
    explicit SizeStorage(const PipelineStages &p) {
        for (const std::string &name : p.order) {
            const FunctionContents &f = p.func(name);
            for (const StorageDim &d : f.schedule.storage_dims) {
                if (!d.alignment.defined() && !d.bound.defined()) continue;
                rules_[name + "." + d.var + ".extent_realized"] = {name, d.var, d.alignment, d.bound};
                if (d.bound.defined()) bounded_[name].push_back(name + "." + d.var + ".extent_realized");
            }
        }
    }

protected:
    using IRMutator::visit;

    Stmt visit(const LetStmt *op) override {
        auto rule = rules_.find(op->name);
        if (rule == rules_.end()) return IRMutator::visit(op);
        const SizeRule &r = rule->second;
        Expr extent = op->value;
        if (r.bound.defined()) extent = r.bound;
        if (r.alignment.defined()) {
            extent = Mul::make(Div::make(Add::make(extent, Sub::make(r.alignment, Expr(1))), r.alignment), r.alignment);
        }
        needed_[op->name].push_back(op->value);
        Stmt body = mutate(op->body);
        needed_[op->name].pop_back();
        return LetStmt::make(op->name, simplify(extent), body);
    }

    Stmt visit(const For *op) override {
        gpu_loops_ += is_gpu_loop(op->for_type);
        Stmt result = IRMutator::visit(op);
        gpu_loops_ -= is_gpu_loop(op->for_type);
        return result;
    }

    /** bound_storage: the storage is made only if the region fits. */
    Stmt visit(const Realize *op) override {
        Stmt result = IRMutator::visit(op);
        auto names = bounded_.find(op->name);
        if (names == bounded_.end()) return result;
        if (gpu_loops_ > 0) {
            throw CompileError("Func '" + op->name + "' has bound_storage() and is stored inside a GPU loop, where "
                               "a kernel can't check at run time that the region fits. Store it outside the GPU "
                               "loops (store_at), or remove bound_storage().");
        }
        const Realize *r = result.as<Realize>();
        std::vector<Stmt> checks;
        for (const std::string &name : names->second) {
            auto needed = needed_.find(name);
            if (needed == needed_.end() || needed->second.empty()) {
                throw InternalError("apply_storage_sizes: no definition of " + name + " around the storage of " +
                                    op->name);
            }
            const SizeRule &rule = rules_.at(name);
            Expr need = needed->second.back();
            Expr msg = Call::make(
                Int(32), intrinsic::error,
                {Expr((int)loom_error_code_buffer_too_small),
                 StringImm::make("Func " + rule.func + " has bound_storage(" + rule.var + ", "), rule.bound,
                 StringImm::make("), but a realization of it needs "), need,
                 StringImm::make(" elements in that dimension. Raise the bound or remove it.")},
                CallType::Intrinsic);
            checks.push_back(AssertStmt::make(LE::make(need, rule.bound), msg));
        }
        checks.push_back(r->body);
        return Realize::make(r->name, r->types, r->memory_type, r->bounds, r->condition, Block::make(checks));
    }

private:
    std::map<std::string, SizeRule> rules_;
    std::map<std::string, std::vector<std::string>> bounded_;
    /** The size bounds inference found, for each rewritten definition in scope. */
    std::map<std::string, std::vector<Expr>> needed_;
    int gpu_loops_ = 0;
};

}  // namespace

Stmt apply_storage_sizes(const Stmt &s, const PipelineStages &pipeline) { return SizeStorage(pipeline).mutate(s); }

}  // namespace internal
}  // namespace loom
