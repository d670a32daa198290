#include "ir/NamesBound.h"

#include "ir/IRVisitor.h"

namespace loom {
namespace internal {

namespace {

class Binders : public IRVisitor {
public:
    std::set<std::string> names;

protected:
    using IRVisitor::visit;
    void visit(const Let *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Allocate *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
};

}  // namespace

std::set<std::string> names_bound_in(const Stmt &s) {
    Binders binders;
    if (s.defined()) s.accept(&binders);
    return binders.names;
}

}  // namespace internal
}  // namespace loom
