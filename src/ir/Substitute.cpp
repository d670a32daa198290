#include "ir/Substitute.h"

#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"

namespace loom {
namespace internal {

namespace {

// Replaces free Variables by name. A Let, LetStmt or For that binds one of
// the names hides it in its body, so only free occurrences are replaced.
class SubstituteVars : public IRMutator {
public:
    explicit SubstituteVars(const std::map<std::string, Expr> &replacements) : replacements_(replacements) {}

    using IRMutator::mutate;

protected:
    using IRMutator::visit;

    Expr visit(const Variable *op) override {
        if (hidden_.contains(op->name)) return op;
        auto it = replacements_.find(op->name);
        if (it == replacements_.end()) return op;
        return it->second;
    }

    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        Expr body = mutate_hidden(op->name, op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, std::move(value), std::move(body));
    }

    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        Stmt body = mutate_hidden(op->name, op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, std::move(value), std::move(body));
    }

    Stmt visit(const For *op) override {
        Expr min = mutate(op->min);
        Expr extent = mutate(op->extent);
        Stmt body = mutate_hidden(op->name, op->body);
        if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return op;
        return For::make(op->name, std::move(min), std::move(extent), op->for_type, op->device_api,
                         std::move(body));
    }

private:
    const std::map<std::string, Expr> &replacements_;
    Scope<int> hidden_;

    template<typename T>
    T mutate_hidden(const std::string &name, const T &body) {
        if (!replacements_.count(name)) return mutate(body);
        ScopedBinding<int> bind(hidden_, name, 0);
        return mutate(body);
    }
};

// Replaces every subexpression structurally equal to find.
class SubstituteExpr : public IRMutator {
public:
    SubstituteExpr(const Expr &find, const Expr &replacement) : find_(find), replacement_(replacement) {}

    using IRMutator::mutate;
    Expr mutate(const Expr &e) override {
        if (equal(e, find_)) return replacement_;
        return IRMutator::mutate(e);
    }

private:
    Expr find_, replacement_;
};

// Whether a free Variable of the given name occurs.
class UsesVar : public IRVisitor {
public:
    explicit UsesVar(const std::string &name) : name_(name) {}
    bool found = false;

    using IRVisitor::visit;

    void visit(const Variable *op) override {
        if (op->name == name_) found = true;
    }

    // Load and Store name the host-pointer symbol they address, which a
    // LetStmt binds (see ir/IR.h), so they use it.
    void visit(const Load *op) override {
        if (op->name == name_) found = true;
        IRVisitor::visit(op);
    }

    void visit(const Store *op) override {
        if (op->name == name_) found = true;
        IRVisitor::visit(op);
    }

    void visit(const Let *op) override {
        op->value.accept(this);
        if (op->name != name_) op->body.accept(this);
    }

    void visit(const LetStmt *op) override {
        op->value.accept(this);
        if (op->name != name_) op->body.accept(this);
    }

    void visit(const For *op) override {
        op->min.accept(this);
        op->extent.accept(this);
        if (op->name != name_) op->body.accept(this);
    }

private:
    const std::string &name_;
};

/** UsesVar for large expressions, which may share subtrees (a chain of
 * lets whose values each read the previous one twice is exponential as a
 * tree): each distinct node once, stopping at the first use. Whether a node
 * uses the name freely does not depend on where it is reached from, since
 * the bodies of lets and loops that rebind the name are never entered. */
class UsesVarInGraph : public IRGraphVisitor {
public:
    explicit UsesVarInGraph(const std::string &name) : name_(name) {}
    bool found = false;
    void include(const Expr &e) override {
        if (!found) IRGraphVisitor::include(e);
    }
    void include(const Stmt &s) override {
        if (!found) IRGraphVisitor::include(s);
    }

protected:
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override { found = found || op->name == name_; }
    void visit(const Load *op) override {
        found = found || op->name == name_;
        IRGraphVisitor::visit(op);
    }
    void visit(const Store *op) override {
        found = found || op->name == name_;
        IRGraphVisitor::visit(op);
    }
    void visit(const Let *op) override {
        include(op->value);
        if (op->name != name_) include(op->body);
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        if (op->name != name_) include(op->body);
    }
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        if (op->name != name_) include(op->body);
    }

private:
    const std::string &name_;
};

class InlineLets : public IRMutator {
protected:
    using IRMutator::visit;
    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        Expr body = mutate(op->body);
        return substitute(op->name, value, body);
    }
};

}  // namespace

Expr substitute(const std::string &name, const Expr &replacement, const Expr &e) {
    std::map<std::string, Expr> m{{name, replacement}};
    return SubstituteVars(m).mutate(e);
}

Stmt substitute(const std::string &name, const Expr &replacement, const Stmt &s) {
    std::map<std::string, Expr> m{{name, replacement}};
    return SubstituteVars(m).mutate(s);
}

Expr substitute(const std::map<std::string, Expr> &replacements, const Expr &e) {
    if (replacements.empty()) return e;
    return SubstituteVars(replacements).mutate(e);
}

Stmt substitute(const std::map<std::string, Expr> &replacements, const Stmt &s) {
    if (replacements.empty()) return s;
    return SubstituteVars(replacements).mutate(s);
}

Expr substitute(const Expr &find, const Expr &replacement, const Expr &e) {
    return SubstituteExpr(find, replacement).mutate(e);
}

Stmt substitute(const Expr &find, const Expr &replacement, const Stmt &s) {
    return SubstituteExpr(find, replacement).mutate(s);
}

bool expr_uses_var(const Expr &e, const std::string &name) {
    if (!e.defined()) return false;
    constexpr int kTreeWalkLimit = 256;  // small ones are cheaper walked as trees
    if (expr_size(e, kTreeWalkLimit + 1) > kTreeWalkLimit) {
        UsesVarInGraph v(name);
        v.include(e);
        return v.found;
    }
    UsesVar v(name);
    e.accept(&v);
    return v.found;
}

bool stmt_uses_var(const Stmt &s, const std::string &name) {
    if (!s.defined()) return false;
    UsesVar v(name);
    s.accept(&v);
    return v.found;
}

Expr substitute_in_all_lets(const Expr &e) { return InlineLets().mutate(e); }

}  // namespace internal
}  // namespace loom
