#include "lower/StorageFolding.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

namespace loom {
namespace internal {

namespace {

/** The folds of every realized Func: the user's, then those of windows of
 * constant size (a power of two at least the window). */
StorageFolds choose_folds(const PipelineStages &p, const SlidWindows &windows) {
    StorageFolds folds;
    for (const std::string &name : p.order) {
        if (p.is_output(name)) continue;
        const FunctionContents &f = p.func(name);
        for (const StorageFold &fold : f.schedule.storage_folds) {
            for (int d = 0; d < f.dimensions(); d++) {
                if (f.args[d] == fold.var) folds[{name, d}] = fold.factor;
            }
        }
    }
    for (const auto &[key, window] : windows) {
        if (folds.count(key)) continue;
        auto size = as_const_int(window);
        if (!size || *size <= 0) continue;
        int64_t slots = 1;
        while (slots < *size) slots *= 2;
        folds[key] = Expr((int)slots);
    }
    return folds;
}

/** Rewrites the storage size of each folded dimension, wherever bounds
 * inference defined it. */
class FoldStorage : public IRMutator {
public:
    explicit FoldStorage(const PipelineStages &p, const StorageFolds &folds) {
        for (const auto &[key, slots] : folds) {
            const std::string base = key.first + "." + p.func(key.first).args[key.second];
            sizes_[base + ".min_realized"] = Expr(0);
            sizes_[base + ".extent_realized"] = slots;
        }
    }

protected:
    using IRMutator::visit;
    Stmt visit(const LetStmt *op) override {
        auto it = sizes_.find(op->name);
        if (it == sizes_.end()) return IRMutator::visit(op);
        return LetStmt::make(op->name, it->second, mutate(op->body));
    }

private:
    std::map<std::string, Expr> sizes_;
};

}  // namespace

Stmt storage_folding(const Stmt &s, const PipelineStages &pipeline, const SlidWindows &windows,
                     StorageFolds *folds) {
    *folds = choose_folds(pipeline, windows);
    return FoldStorage(pipeline, *folds).mutate(s);
}

}  // namespace internal
}  // namespace loom
