#include "lower/LoopNames.h"

#include <cctype>
#include <map>
#include <set>

#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

namespace loom {
namespace internal {

namespace {

struct FreeVariables : IRGraphVisitor {
    std::set<std::string> names;
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override { names.insert(op->name); }
};

}  // namespace

std::string describe_loop(const std::string &loop) {
    // Find ".s<digits>." after the Func's name.
    for (size_t i = loop.find(".s"); i != std::string::npos; i = loop.find(".s", i + 1)) {
        size_t j = i + 2;
        while (j < loop.size() && std::isdigit((unsigned char)loop[j])) j++;
        if (j == i + 2 || j >= loop.size() || loop[j] != '.') continue;
        const std::string func = loop.substr(0, i);
        const int stage = std::stoi(loop.substr(i + 2, j - i - 2));
        const std::string var = loop.substr(j + 1);
        if (stage == 0) return "loop " + var + " of Func " + func;
        return "loop " + var + " of update " + std::to_string(stage - 1) + " of Func " + func;
    }
    return "loop '" + loop + "'";
}

Expr resolve_through_lets(const Expr &e, const Scope<Expr> &lets) {
    // Each round replaces the names bound by lets; the values may name
    // further lets, so repeat while the result stays small. A chain of
    // definitions that refer to each other several times (the bounds of a
    // chain of Funcs) would otherwise grow exponentially; stopping early
    // only leaves some names unresolved, which the callers treat as unknown.
    constexpr int kMaxSize = 256;
    Expr result = simplify(e);
    for (int round = 0; round < 16; round++) {
        FreeVariables free;
        free.include(result);
        std::map<std::string, Expr> known;
        for (const std::string &name : free.names) {
            if (const Expr *value = lets.find(name)) known[name] = *value;
        }
        if (known.empty()) break;
        Expr next = simplify(substitute(known, result));
        if (expr_size(next, kMaxSize + 1) > kMaxSize) break;
        result = next;
    }
    return result;
}

}  // namespace internal
}  // namespace loom
