#include "lang/RVarDependence.h"

#include <algorithm>

#include "ir/IRVisitor.h"

namespace loom {
namespace internal {

namespace {

/** The name of e if it is a bare RVar, else "". */
std::string bare_rvar(const Expr &e) {
    const Variable *v = e.defined() ? e.as<Variable>() : nullptr;
    return v && v->reduction_domain.defined() ? v->name : "";
}

/** Collects the argument lists of every call of one Func. */
class FindSelfCalls : public IRGraphVisitor {
public:
    explicit FindSelfCalls(const std::string &func) : func_(func) {}
    std::vector<std::vector<Expr>> calls;

protected:
    using IRGraphVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == CallType::Func && op->name == func_) calls.push_back(op->args);
        IRGraphVisitor::visit(op);
    }

private:
    std::string func_;
};

}  // namespace

std::vector<std::string> loop_origins(const StageSchedule &s, const std::string &loop) {
    std::vector<std::string> names{loop};
    auto take = [&](const std::string &n) {
        auto it = std::find(names.begin(), names.end(), n);
        if (it == names.end()) return false;
        names.erase(it);
        return true;
    };
    auto add = [&](const std::string &n) {
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    };
    // Walk the splits backwards, replacing each loop by what it was made from.
    for (auto it = s.splits.rbegin(); it != s.splits.rend(); ++it) {
        const Split &split = *it;
        if (split.kind == Split::FuseVars) {
            if (take(split.old_var)) {
                add(split.inner);
                add(split.outer);
            }
            continue;
        }
        bool from_outer = take(split.outer);
        bool from_inner = split.kind == Split::SplitVar && take(split.inner);
        if (from_outer || from_inner) add(split.old_var);
    }
    return names;
}

bool rvar_is_independent(const FunctionContents &f, const Definition &def, const std::string &rvar) {
    std::vector<size_t> positions;
    for (size_t i = 0; i < def.args.size(); i++) {
        if (bare_rvar(def.args[i]) == rvar) positions.push_back(i);
    }
    if (positions.empty()) return false;

    FindSelfCalls finder(f.name);
    for (const Expr &v : def.values) finder.include(v);
    for (const Expr &a : def.args) finder.include(a);
    if (def.predicate.defined()) finder.include(def.predicate);
    if (def.rdom.defined() && def.rdom.predicate().defined()) finder.include(def.rdom.predicate());
    for (const std::vector<Expr> &args : finder.calls) {
        bool same_element = false;
        for (size_t p : positions) same_element = same_element || (p < args.size() && bare_rvar(args[p]) == rvar);
        if (!same_element) return false;
    }
    return true;
}

std::string dependent_rvar_of_loop(const FunctionContents &f, const Definition &def, const StageSchedule &s,
                                   const std::string &loop) {
    if (!def.rdom.defined()) return "";
    for (const std::string &origin : loop_origins(s, loop)) {
        bool is_rvar = false;
        for (const ReductionVariable &rv : def.rdom.domain()) is_rvar = is_rvar || rv.var == origin;
        if (is_rvar && !rvar_is_independent(f, def, origin)) return origin;
    }
    return "";
}

}  // namespace internal
}  // namespace loom
