#include "loom/Tuple.h"

#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/IROperator.h"

namespace loom {

Tuple::Tuple(const FuncRef &call) {
    const size_t n = call.size();
    if (n == 1) {
        exprs_.push_back(Expr(call));
        return;
    }
    for (size_t i = 0; i < n; i++) exprs_.push_back(Expr(call[(int)i]));
}

Tuple select(const Expr &condition, const Tuple &true_value, const Tuple &false_value) {
    if (true_value.size() != false_value.size()) {
        throw CompileError("select of two Tuples of different sizes (" + std::to_string(true_value.size()) + " and " +
                           std::to_string(false_value.size()) + ").");
    }
    std::vector<Expr> result;
    for (size_t i = 0; i < true_value.size(); i++) result.push_back(select(condition, true_value[i], false_value[i]));
    return Tuple(result);
}

}  // namespace loom
