#include "lower/StorageFlattening.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

Expr flat_index(const std::string &storage, const std::vector<Expr> &coords) {
    Expr index = Expr(0);
    for (size_t d = 0; d < coords.size(); d++) {
        const std::string dim = std::to_string(d);
        Expr term = Mul::make(Sub::make(coords[d], var(storage + ".min." + dim)), var(storage + ".stride." + dim));
        index = d == 0 ? term : Add::make(index, term);
    }
    return index;
}

/** The dimensions of f innermost first: those named by reorder_storage take
 * the places of those dimensions in the given order; the others stay. */
std::vector<int> storage_order(const FunctionContents &f) {
    std::vector<int> order;
    for (int d = 0; d < f.dimensions(); d++) order.push_back(d);
    const std::vector<std::string> &named = f.schedule.storage_order;
    if (named.empty()) return order;
    std::vector<int> named_dims, slots;
    for (const std::string &v : named) {
        for (int d = 0; d < f.dimensions(); d++) {
            if (f.args[d] == v) named_dims.push_back(d);
        }
    }
    for (int d = 0; d < f.dimensions(); d++) {
        for (int n : named_dims) {
            if (n == d) slots.push_back(d);
        }
    }
    for (size_t i = 0; i < slots.size() && i < named_dims.size(); i++) order[slots[i]] = named_dims[i];
    return order;
}

class FlattenStorage : public IRMutator {
public:
    FlattenStorage(const PipelineStages &p, const std::map<std::pair<std::string, int>, Expr> &folds)
        : p_(p), folds_(folds) {}

protected:
    using IRMutator::visit;

    Stmt visit(const Realize *op) override {
        Stmt body = mutate(op->body);
        const FunctionContents &f = p_.func(op->name);
        for (int v = (int)op->types.size() - 1; v >= 0; v--) {
            const std::string storage = storage_name(f, v);
            std::vector<Expr> extents;
            for (size_t d = 0; d < op->bounds.size(); d++) extents.push_back(var(storage + ".extent." + std::to_string(d)));
            body = Allocate::make(storage, op->types[v], op->memory_type, extents, op->condition, body);
            // Dense strides in storage order (reorder_storage; by default the
            // first dimension innermost).
            std::vector<std::pair<std::string, Expr>> lets;
            for (size_t d = 0; d < op->bounds.size(); d++) {
                const std::string dim = std::to_string(d);
                lets.emplace_back(storage + ".min." + dim, op->bounds[d].min);
                lets.emplace_back(storage + ".extent." + dim, op->bounds[d].extent);
            }
            Expr stride = Expr(1);
            for (int d : storage_order(f)) {
                const std::string dim = std::to_string(d);
                lets.emplace_back(storage + ".stride." + dim, stride);
                stride = Mul::make(var(storage + ".stride." + dim), var(storage + ".extent." + dim));
            }
            for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = LetStmt::make(it->first, it->second, body);
        }
        return body;
    }

    Stmt visit(const Provide *op) override {
        const FunctionContents &f = p_.func(op->name);
        std::vector<Expr> args, values;
        mutate_exprs(op->args, args);
        mutate_exprs(op->values, values);
        Expr predicate = op->predicate.defined() ? mutate(op->predicate) : Expr();
        args = fold(op->name, args);
        if (values.size() == 1) {
            const std::string storage = storage_name(f, 0);
            return Store::make(storage, values[0], flat_index(storage, args), predicate);
        }
        // Every value of a Tuple is computed before any is stored, so
        // f(x) = Tuple(f(x)[1], f(x)[0]) swaps.
        std::vector<Stmt> stores;
        for (size_t v = 0; v < values.size(); v++) {
            const std::string storage = storage_name(f, (int)v);
            stores.push_back(Store::make(storage, Variable::make(values[v].type(), storage + ".value"),
                                         flat_index(storage, args), predicate));
        }
        Stmt result = Block::make(stores);
        for (int v = (int)values.size() - 1; v >= 0; v--) {
            result = LetStmt::make(storage_name(f, v) + ".value", values[v], result);
        }
        return result;
    }

    Expr visit(const Call *op) override {
        if (op->call_type != CallType::Func && op->call_type != CallType::Image) return IRMutator::visit(op);
        std::vector<Expr> args;
        mutate_exprs(op->args, args);
        if (op->call_type == CallType::Image) {
            return Load::make(op->type, op->name, flat_index(op->name, args), Expr(), op->param);
        }
        const std::string storage = storage_name(p_.func(op->name), op->value_index);
        return Load::make(op->type, storage, flat_index(storage, fold(op->name, args)));
    }

private:
    /** Coordinates of folded dimensions wrap around their slots. */
    std::vector<Expr> fold(const std::string &func, std::vector<Expr> coords) {
        for (size_t d = 0; d < coords.size(); d++) {
            auto it = folds_.find({func, (int)d});
            if (it != folds_.end()) coords[d] = Mod::make(coords[d], it->second);
        }
        return coords;
    }

    const PipelineStages &p_;
    const std::map<std::pair<std::string, int>, Expr> &folds_;
};

}  // namespace

Stmt storage_flattening(const Stmt &s, const PipelineStages &pipeline,
                        const std::map<std::pair<std::string, int>, Expr> &folds) {
    return FlattenStorage(pipeline, folds).mutate(s);
}

}  // namespace internal
}  // namespace loom
