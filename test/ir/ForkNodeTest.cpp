// The Fork statement of Func::async (ir/IR.h): construction, printing,
// equality, and what IRMutator does when a branch is deleted.
#include <gtest/gtest.h>

#include <sstream>

#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "loom/Error.h"

using namespace loom;
using namespace loom::internal;

namespace {

Stmt eval(int v) { return Evaluate::make(Expr(v)); }

std::string str(const Stmt &s) {
    std::ostringstream os;
    os << s;
    return os.str();
}

/** Deletes Evaluate(1) statements. */
class DeleteOnes : public IRMutator {
protected:
    using IRMutator::visit;
    Stmt visit(const Evaluate *op) override {
        const IntImm *i = op->value.as<IntImm>();
        return i && i->value == 1 ? Stmt() : Stmt(op);
    }
};

}  // namespace

TEST(ForkNodeTest, BothBranchesAreRequired) {
    EXPECT_THROW(Fork::make(Stmt(), eval(2)), InternalError);
    EXPECT_THROW(Fork::make(eval(1), Stmt()), InternalError);
}

TEST(ForkNodeTest, PrintsBothBranches) {
    EXPECT_EQ(str(Fork::make(eval(1), eval(2))), "fork {\n  1\n} {\n  2\n}\n");
}

TEST(ForkNodeTest, EqualityComparesBranchesInOrder) {
    EXPECT_TRUE(equal(Fork::make(eval(1), eval(2)), Fork::make(eval(1), eval(2))));
    EXPECT_FALSE(equal(Fork::make(eval(1), eval(2)), Fork::make(eval(2), eval(1))));
    EXPECT_FALSE(equal(Fork::make(eval(1), eval(2)), Block::make(eval(1), eval(2))));
}

TEST(ForkNodeTest, AMutatorThatDeletesABranchLeavesTheOther) {
    DeleteOnes m;
    EXPECT_EQ(str(m.mutate(Fork::make(eval(1), eval(2)))), "2\n");
    EXPECT_EQ(str(m.mutate(Fork::make(eval(3), eval(1)))), "3\n");
    const Stmt kept = Fork::make(eval(3), eval(4));
    EXPECT_TRUE(m.mutate(kept).same_as(kept));
}
