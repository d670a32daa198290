// Construction invariants of IR nodes, visitors, mutators, constants,
// structural equality and substitution.
#include <gtest/gtest.h>

#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "loom/Error.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }

// The stored value of a constant; the Expr owns the node (make() returns a
// raw pointer with no references yet).
int64_t int_value(Type t, int64_t v) {
    Expr e = IntImm::make(t, v);
    return e.as<IntImm>()->value;
}
uint64_t uint_value(Type t, uint64_t v) {
    Expr e = UIntImm::make(t, v);
    return e.as<UIntImm>()->value;
}
double float_value(Type t, double v) {
    Expr e = FloatImm::make(t, v);
    return e.as<FloatImm>()->value;
}

}  // namespace

// ---------------------------------------------------------------- constants

TEST(IRBasics, IntImmWrapsToWidth) {
    EXPECT_EQ(int_value(Int(8), 200), -56);
    EXPECT_EQ(int_value(Int(16), 70000), 70000 - 65536);
    EXPECT_EQ(int_value(Int(64), INT64_MIN), INT64_MIN);
    EXPECT_EQ(uint_value(UInt(8), 300), 44u);
    EXPECT_EQ(uint_value(Bool(), 2), 0u);
    EXPECT_EQ(uint_value(UInt(8), (uint64_t)-1), 255u);
}

TEST(IRBasics, FloatImmRoundsToFloat32) {
    EXPECT_EQ(float_value(Float(32), 0.1), (double)0.1f);
    EXPECT_EQ(float_value(Float(64), 0.1), 0.1);
}

TEST(IRBasics, ConstantTypesAreChecked) {
    EXPECT_THROW(IntImm::make(UInt(8), 1), InternalError);
    EXPECT_THROW(IntImm::make(Int(32, 4), 1), InternalError);
    EXPECT_THROW(UIntImm::make(Int(8), 1), InternalError);
    EXPECT_THROW(FloatImm::make(Int(32), 1.0), InternalError);
}

TEST(IRBasics, ExprFromCppScalars) {
    EXPECT_EQ(Expr(3).type(), Int(32));
    EXPECT_EQ(Expr((uint8_t)3).type(), UInt(8));
    EXPECT_EQ(Expr((int64_t)3).type(), Int(64));
    EXPECT_EQ(Expr(1.5f).type(), Float(32));
    EXPECT_EQ(Expr(1.5).type(), Float(64));
}

// ---------------------------------------------------------------- invariants

TEST(IRBasics, BinaryOperandsMustMatch) {
    Expr x = var("x"), y8 = var("y", UInt(8));
    EXPECT_THROW(Add::make(x, y8), InternalError);
    EXPECT_THROW(Add::make(x, Expr()), InternalError);
    EXPECT_THROW(Min::make(Expr(), x), InternalError);
    Expr sum = Add::make(x, x);
    EXPECT_EQ(sum.type(), Int(32));
}

TEST(IRBasics, ComparisonsYieldBoolWithLanes) {
    Expr v = Ramp::make(var("x"), 1, 4);
    EXPECT_EQ(LT::make(v, v).type(), Bool(4));
    EXPECT_EQ(EQ::make(Expr(1), Expr(2)).type(), Bool());
}

TEST(IRBasics, LogicalOperandsMustBeBool) {
    Expr x = var("x");
    EXPECT_THROW(And::make(x, x), InternalError);
    EXPECT_THROW(Not::make(x), InternalError);
    Expr c = LT::make(x, Expr(3));
    EXPECT_EQ(Or::make(c, c).type(), Bool());
}

TEST(IRBasics, SelectChecksCondition) {
    Expr x = var("x");
    Expr c = LT::make(x, Expr(0));
    EXPECT_THROW(Select::make(x, x, x), InternalError);
    EXPECT_THROW(Select::make(c, x, Expr(1.0f)), InternalError);
    EXPECT_THROW(Select::make(LT::make(Ramp::make(x, 1, 4), Ramp::make(x, 1, 4)), Ramp::make(x, 1, 8),
                              Ramp::make(x, 1, 8)),
                 InternalError);
    // A scalar condition may pick whole vectors.
    Expr v = Ramp::make(x, 1, 4);
    EXPECT_EQ(Select::make(c, v, v).type(), Int(32, 4));
}

TEST(IRBasics, LetNeedsValueAndBody) {
    Expr x = var("x");
    EXPECT_THROW(Let::make("x", Expr(), x), InternalError);
    EXPECT_THROW(Let::make("x", x, Expr()), InternalError);
    EXPECT_THROW(LetStmt::make("x", Expr(), Evaluate::make(x)), InternalError);
    EXPECT_EQ(Let::make("y", Expr(1.0f), x).type(), Int(32));
}

TEST(IRBasics, RampAndBroadcastLanes) {
    Expr x = var("x");
    EXPECT_THROW(Ramp::make(x, Expr(1), 1), InternalError);
    EXPECT_THROW(Ramp::make(x, Expr((int64_t)1), 4), InternalError);
    EXPECT_THROW(Broadcast::make(x, 1), InternalError);
    EXPECT_THROW(Broadcast::make(x, 0), InternalError);
    EXPECT_EQ(Ramp::make(x, Expr(2), 8).type(), Int(32, 8));
    EXPECT_EQ(Broadcast::make(Expr(1.0f), 4).type(), Float(32, 4));
}

TEST(IRBasics, LoadStoreIndexLanesMatchValue) {
    Expr x = var("x");
    Expr idx4 = Ramp::make(x, Expr(1), 4);
    EXPECT_THROW(Load::make(Float(32, 4), "buf", x), InternalError);
    EXPECT_THROW(Load::make(Float(32), "buf", idx4), InternalError);
    EXPECT_EQ(Load::make(Float(32, 4), "buf", idx4).type(), Float(32, 4));
    EXPECT_THROW(Store::make("buf", Expr(1.0f), idx4), InternalError);
    EXPECT_THROW(Load::make(Float(32, 4), "buf", idx4, const_true()), InternalError);
    EXPECT_NO_THROW(Load::make(Float(32, 4), "buf", idx4, const_true(4)));
    EXPECT_NO_THROW(Store::make("buf", Broadcast::make(Expr(1.0f), 4), idx4));
}

TEST(IRBasics, StatementConditionsAreScalarBool) {
    Stmt body = Evaluate::make(Expr(0));
    EXPECT_THROW(IfThenElse::make(Expr(1), body), InternalError);
    EXPECT_THROW(While::make(Expr(1), body), InternalError);
    EXPECT_THROW(AssertStmt::make(Expr(1), Expr(0)), InternalError);
    EXPECT_THROW(IfThenElse::make(const_true(), Stmt()), InternalError);
    EXPECT_THROW(For::make("x", Expr(0), Expr((int64_t)4), ForType::Serial, DeviceAPI::None, body),
                 InternalError);
    EXPECT_THROW(For::make("x", Expr(0), Expr(4), ForType::Serial, DeviceAPI::None, Stmt()), InternalError);
    EXPECT_NO_THROW(For::make("x", Expr(0), Expr(4), ForType::Serial, DeviceAPI::None, body));
}

TEST(IRBasics, ShuffleAndVectorReduce) {
    Expr v = Ramp::make(var("x"), Expr(1), 4);
    Expr concat = Shuffle::make_concat({v, v});
    EXPECT_EQ(concat.type(), Int(32, 8));
    EXPECT_EQ(Shuffle::make_extract_element(v, 2).type(), Int(32));
    EXPECT_THROW(Shuffle::make({v}, {4}), InternalError);
    EXPECT_THROW(Shuffle::make({v, Broadcast::make(Expr(1.0f), 4)}, {0}), InternalError);
    EXPECT_EQ(VectorReduce::make(VectorReduce::Add, v, 2).type(), Int(32, 2));
    EXPECT_THROW(VectorReduce::make(VectorReduce::Add, v, 3), InternalError);
    EXPECT_THROW(VectorReduce::make(VectorReduce::And, v, 1), InternalError);
}

TEST(IRBasics, CastAndReinterpretChecks) {
    Expr v = Ramp::make(var("x"), Expr(1), 4);
    EXPECT_THROW(Cast::make(Float(32), v), InternalError);
    EXPECT_EQ(Cast::make(Float(32, 4), v).type(), Float(32, 4));
    EXPECT_THROW(Reinterpret::make(Int(16), var("x")), InternalError);
    EXPECT_EQ(Reinterpret::make(UInt(16, 8), v).type(), UInt(16, 8));
}

TEST(IRBasics, BlockOfVectorSkipsUndefined) {
    Stmt a = Evaluate::make(Expr(1)), b = Evaluate::make(Expr(2));
    EXPECT_FALSE(Block::make(std::vector<Stmt>{}).defined());
    EXPECT_FALSE(Block::make(std::vector<Stmt>{Stmt(), Stmt()}).defined());
    EXPECT_TRUE(Block::make(std::vector<Stmt>{Stmt(), a, Stmt()}).same_as(a));
    Stmt ab = Block::make(std::vector<Stmt>{a, Stmt(), b});
    const Block *block = ab.as<Block>();
    ASSERT_NE(block, nullptr);
    EXPECT_TRUE(block->first.same_as(a));
    EXPECT_TRUE(block->rest.same_as(b));
    EXPECT_THROW(Block::make(a, Stmt()), InternalError);
}

TEST(IRBasics, ProvideAllocateRealizeChecks) {
    Expr x = var("x");
    EXPECT_THROW(Provide::make("f", {}, {x}), InternalError);
    EXPECT_THROW(Provide::make("f", {x}, {x}, x), InternalError);
    Stmt body = Evaluate::make(Expr(0));
    EXPECT_THROW(Allocate::make("f", Int(32), MemoryType::Auto, {Expr(1.0f)}, Expr(), body), InternalError);
    EXPECT_THROW(Realize::make("f", {}, MemoryType::Auto, {Range(0, 10)}, Expr(), body), InternalError);
    EXPECT_NO_THROW(Realize::make("f", {Int(32)}, MemoryType::Auto, {Range(0, 10)}, Expr(), body));
}

// ---------------------------------------------------------------- IRUtil

TEST(IRUtil, MakeConstAndQueries) {
    Expr c = make_const(UInt(8, 4), 7);
    ASSERT_NE(c.as<Broadcast>(), nullptr);
    EXPECT_TRUE(is_const(c));
    EXPECT_TRUE(is_const(c, 7));
    EXPECT_EQ(as_const_uint(c), std::optional<uint64_t>(7));
    EXPECT_FALSE(as_const_int(c).has_value());
    EXPECT_TRUE(is_const_zero(make_zero(Float(32))));
    EXPECT_TRUE(is_const_one(make_one(Int(16))));
    EXPECT_TRUE(is_positive_const(Expr(3)));
    EXPECT_TRUE(is_negative_const(Expr(-3)));
    EXPECT_FALSE(is_const(var("x")));
    EXPECT_EQ(make_bool(true, 4).type(), Bool(4));
    EXPECT_EQ(*as_const_float(make_const(Float(32), 2.5)), 2.5);
}

TEST(IRUtil, EuclideanDivisionAndModulus) {
    EXPECT_EQ(div_euclid(7, 2), 3);
    EXPECT_EQ(div_euclid(-7, 2), -4);
    EXPECT_EQ(div_euclid(7, -2), -3);  // Euclidean: rounds up for b < 0
    EXPECT_EQ(div_euclid(-7, -2), 4);
    EXPECT_EQ(div_euclid(5, 0), 0);
    EXPECT_EQ(mod_euclid(-7, 2), 1);
    EXPECT_EQ(mod_euclid(7, -2), 1);
    EXPECT_EQ(mod_euclid(-7, -2), 1);
    EXPECT_EQ(mod_euclid(5, 0), 0);
    // a == b * div + mod for the sign combinations.
    for (int a : {-9, -1, 0, 4, 9}) {
        for (int b : {-4, -1, 3}) EXPECT_EQ(b * div_euclid(a, b) + mod_euclid(a, b), a) << a << " " << b;
    }
    EXPECT_EQ(wrap_int(Int(8), 128), -128);
    EXPECT_EQ(wrap_uint(UInt(4), 17), 1u);
}

TEST(IRUtil, IsPure) {
    Expr x = var("x");
    EXPECT_TRUE(is_pure(Add::make(x, Mul::make(Expr(1), x))));
    EXPECT_FALSE(is_pure(Load::make(Int(32), "buf", x)));
    EXPECT_FALSE(is_pure(Call::make(Int(32), "rand", {}, CallType::Extern)));
    EXPECT_TRUE(is_pure(Call::make(Float(32), "sinf", {Expr(1.0f)}, CallType::PureExtern)));
}

TEST(TypeTest, NamesAndRanges) {
    EXPECT_EQ(Int(32).to_string(), "int32");
    EXPECT_EQ(UInt(8, 8).to_string(), "uint8x8");
    EXPECT_EQ(Bool().to_string(), "bool");
    EXPECT_EQ(Handle().to_string(), "handle");
    EXPECT_EQ(*as_const_int(Int(8).max()), 127);
    EXPECT_EQ(*as_const_int(Int(8).min()), -128);
    EXPECT_EQ(*as_const_uint(UInt(16).max()), 65535u);
    EXPECT_EQ(*as_const_int(Int(64).min()), INT64_MIN);
    EXPECT_TRUE(Int(32).can_represent(UInt(16)));
    EXPECT_FALSE(Int(32).can_represent(UInt(32)));
    EXPECT_FALSE(UInt(32).can_represent(Int(8)));
    EXPECT_TRUE(Float(32).can_represent(Int(16)));
    EXPECT_FALSE(Float(32).can_represent(Int(32)));
    EXPECT_TRUE(UInt(8).can_represent((int64_t)255));
    EXPECT_FALSE(UInt(8).can_represent((int64_t)-1));
    EXPECT_FALSE(Int(8).can_represent((int64_t)128));
    EXPECT_TRUE(Float(32).can_represent(0.5));
    EXPECT_FALSE(Float(32).can_represent(0.1));
    EXPECT_FALSE(Int(32).can_represent(0.5));
}

// ---------------------------------------------------------------- visitors

namespace {

struct CountVariables : IRVisitor {
    int count = 0;
    using IRVisitor::visit;
    void visit(const Variable *) override { count++; }
};

struct CountVariablesOnce : IRGraphVisitor {
    int count = 0;
    using IRGraphVisitor::visit;
    void visit(const Variable *) override { count++; }
};

struct RenameX : IRMutator {
    using IRMutator::visit;
    Expr visit(const Variable *op) override {
        return op->name == "x" ? Variable::make(op->type, "x2") : Expr(op);
    }
};

}  // namespace

TEST(IRVisitorTest, VisitsChildrenAndSharedNodesOnce) {
    Expr x = var("x");
    Expr shared = Add::make(x, x);
    Expr e = Mul::make(shared, shared);
    CountVariables all;
    e.accept(&all);
    EXPECT_EQ(all.count, 4);
    CountVariablesOnce once;
    once.include(e);
    EXPECT_EQ(once.count, 1);
}

TEST(IRVisitorTest, VisitsStatementChildren) {
    Expr x = var("x");
    Stmt s = For::make("x", var("lo"), var("n"), ForType::Serial, DeviceAPI::None,
                       IfThenElse::make(LT::make(x, var("y")), Store::make("buf", x, x),
                                        Evaluate::make(var("z"))));
    CountVariables all;
    s.accept(&all);
    EXPECT_EQ(all.count, 7);
}

TEST(IRMutatorTest, UnchangedTreesStayShared) {
    Expr x = var("x"), y = var("y");
    Expr e = Add::make(Mul::make(y, y), Expr(1));
    EXPECT_TRUE(RenameX().mutate(e).same_as(e));
    Stmt s = LetStmt::make("a", e, Evaluate::make(y));
    EXPECT_TRUE(RenameX().mutate(s).same_as(s));
}

TEST(IRMutatorTest, ChangedChildrenRebuildOnlyTheirPath) {
    Expr x = var("x"), y = var("y");
    Expr left = Mul::make(y, y);
    Expr e = Add::make(left, x);
    Expr m = RenameX().mutate(e);
    const Add *add = m.as<Add>();
    ASSERT_NE(add, nullptr);
    EXPECT_TRUE(add->a.same_as(left));
    EXPECT_EQ(add->b.as<Variable>()->name, "x2");
}

// ---------------------------------------------------------------- equality

TEST(IREqualityTest, StructuralEquality) {
    Expr a = Add::make(var("x"), Expr(1));
    Expr b = Add::make(var("x"), Expr(1));
    EXPECT_FALSE(a.same_as(b));
    EXPECT_TRUE(equal(a, b));
    EXPECT_FALSE(equal(a, Add::make(var("x"), Expr(2))));
    EXPECT_FALSE(equal(a, Sub::make(var("x"), Expr(1))));
    EXPECT_FALSE(equal(Expr(1), Expr((int64_t)1)));
    EXPECT_TRUE(equal(Expr(), Expr()));
    EXPECT_FALSE(equal(a, Expr()));
    Stmt s1 = Store::make("buf", a, var("i"));
    Stmt s2 = Store::make("buf", b, var("i"));
    EXPECT_TRUE(equal(s1, s2));
    EXPECT_FALSE(equal(s1, Store::make("other", a, var("i"))));
}

TEST(IREqualityTest, CompareIsATotalOrderConsistentWithEqual) {
    std::vector<Expr> exprs = {
        Expr(1), Expr(2), Expr(-1), Expr((int64_t)1), Expr(1.0f), var("x"), var("y"),
        Add::make(var("x"), Expr(1)), Add::make(var("x"), Expr(2)), Add::make(var("y"), Expr(1)),
        Sub::make(var("x"), Expr(1)), Add::make(var("x"), Expr(1)), Expr(),
        Call::make(Float(32), "sinf", {Expr(1.0f)}, CallType::PureExtern),
        Call::make(Float(32), "cosf", {Expr(1.0f)}, CallType::PureExtern),
    };
    for (const Expr &a : exprs) {
        for (const Expr &b : exprs) {
            int ab = compare(a, b), ba = compare(b, a);
            EXPECT_EQ(ab, -ba);
            EXPECT_EQ(ab == 0, equal(a, b));
            for (const Expr &c : exprs) {
                // Transitivity.
                if (ab < 0 && compare(b, c) < 0) EXPECT_LT(compare(a, c), 0);
            }
        }
    }
    std::map<Expr, int, ExprDeepCompare> m;
    m[Add::make(var("x"), Expr(1))] = 1;
    m[Add::make(var("x"), Expr(1))] = 2;
    EXPECT_EQ(m.size(), 1u);
    EXPECT_EQ(m.begin()->second, 2);
}

// ---------------------------------------------------------------- substitution

TEST(SubstituteTest, ReplacesFreeVariables) {
    Expr x = var("x"), y = var("y");
    Expr e = Add::make(x, Mul::make(x, y));
    Expr r = substitute("x", Expr(3), e);
    EXPECT_TRUE(equal(r, Add::make(Expr(3), Mul::make(Expr(3), y))));
    EXPECT_TRUE(substitute("z", Expr(3), e).same_as(e));
    Expr both = substitute(std::map<std::string, Expr>{{"x", y}, {"y", x}}, e);
    EXPECT_TRUE(equal(both, Add::make(y, Mul::make(y, x))));
}

TEST(SubstituteTest, RespectsShadowing) {
    Expr x = var("x");
    // let x = x + 1 in x * 2: only the x in the value is free.
    Expr e = Let::make("x", Add::make(x, Expr(1)), Mul::make(x, Expr(2)));
    Expr r = substitute("x", Expr(10), e);
    const Let *let = r.as<Let>();
    ASSERT_NE(let, nullptr);
    EXPECT_TRUE(equal(let->value, Add::make(Expr(10), Expr(1))));
    EXPECT_TRUE(equal(let->body, Mul::make(x, Expr(2))));

    Stmt loop = For::make("x", x, Expr(4), ForType::Serial, DeviceAPI::None, Store::make("buf", x, x));
    Stmt rs = substitute("x", Expr(5), loop);
    const For *f = rs.as<For>();
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(is_const(f->min, 5));
    EXPECT_TRUE(f->body.same_as(loop.as<For>()->body));

    Stmt ls = LetStmt::make("x", x, Evaluate::make(x));
    Stmt substituted = substitute("x", Expr(7), ls);
    const LetStmt *l = substituted.as<LetStmt>();
    ASSERT_NE(l, nullptr);
    EXPECT_TRUE(is_const(l->value, 7));
    EXPECT_EQ(l->body.as<Evaluate>()->value.as<Variable>()->name, "x");
}

TEST(SubstituteTest, UsesVarSeesOnlyFreeOccurrences) {
    Expr x = var("x");
    EXPECT_TRUE(expr_uses_var(Add::make(x, Expr(1)), "x"));
    EXPECT_FALSE(expr_uses_var(Add::make(var("y"), Expr(1)), "x"));
    EXPECT_FALSE(expr_uses_var(Let::make("x", Expr(1), x), "x"));
    EXPECT_TRUE(expr_uses_var(Let::make("x", x, x), "x"));
    Stmt loop = For::make("x", Expr(0), Expr(4), ForType::Serial, DeviceAPI::None, Evaluate::make(x));
    EXPECT_FALSE(stmt_uses_var(loop, "x"));
    EXPECT_TRUE(stmt_uses_var(Block::make(loop, Evaluate::make(x)), "x"));
}

TEST(SubstituteTest, ReplacesEqualSubexpressions) {
    Expr x = var("x");
    Expr e = Mul::make(Add::make(x, Expr(1)), Add::make(x, Expr(1)));
    Expr r = substitute(Add::make(x, Expr(1)), var("t"), e);
    EXPECT_TRUE(equal(r, Mul::make(var("t"), var("t"))));
}

TEST(SubstituteTest, InlinesAllLets) {
    Expr x = var("x"), y = var("y");
    Expr e = Let::make("a", Add::make(x, Expr(1)), Let::make("b", Mul::make(var("a"), Expr(2)), Sub::make(var("b"), y)));
    Expr r = substitute_in_all_lets(e);
    EXPECT_TRUE(equal(r, Sub::make(Mul::make(Add::make(x, Expr(1)), Expr(2)), y)));
}
