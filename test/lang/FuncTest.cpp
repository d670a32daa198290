// Func's API without running anything: definitions, implicit variables,
// queries, stages and the schedule state they record.

#include <gtest/gtest.h>

#include <memory>

#include "ir/Function.h"
#include "ir/IR.h"
#include "lang/Backend.h"
#include "lang/LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;
using internal::Call;
using internal::FunctionContents;
using internal::Variable;

namespace {

const FunctionContents &contents(const Func &f) { return *f.function().get(); }

std::string var_name(const Expr &e) {
    const Variable *v = e.as<Variable>();
    return v ? v->name : "<not a Variable>";
}

TEST(Func, AutoNamesAreUnique) {
    Func a, b;
    EXPECT_EQ(a.name()[0], 'f');
    EXPECT_NE(a.name(), b.name());
    Func named("blur");
    EXPECT_EQ(named.name(), "blur");
}

TEST(Func, PureDefinitionRecordsArgsAndTypes) {
    Var x("x"), y("y");
    Func f("f");
    EXPECT_FALSE(f.defined());
    EXPECT_EQ(f.dimensions(), 0);
    f(x, y) = cast<float>(x + y);
    EXPECT_TRUE(f.defined());
    EXPECT_EQ(f.dimensions(), 2);
    EXPECT_EQ(f.outputs(), 1);
    EXPECT_EQ(f.output_type(), Float(32));
    ASSERT_EQ(f.args().size(), 2u);
    EXPECT_EQ(f.args()[0].name(), "x");
    EXPECT_EQ(f.args()[1].name(), "y");
    EXPECT_EQ(f.value().type(), Float(32));
    EXPECT_FALSE(f.has_update_definition());
    EXPECT_EQ(contents(f).args, (std::vector<std::string>{"x", "y"}));
    // The default loop order: first argument innermost.
    ASSERT_EQ(contents(f).init.schedule.dims.size(), 2u);
    EXPECT_EQ(contents(f).init.schedule.dims[0].var, "x");
}

TEST(Func, CallIsAFuncCall) {
    Var x("x");
    Func f("callee");
    f(x) = x * 2;
    Expr e = f(x + 1);
    const Call *c = e.as<Call>();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->call_type, internal::CallType::Func);
    EXPECT_EQ(c->name, "callee");
    EXPECT_TRUE(c->func.same_as(f.function()));
    EXPECT_EQ(e.type(), Int(32));
}

TEST(Func, NarrowIntegerCoordinatesAreCastToInt32) {
    Var x("x");
    Func f("f");
    f(x) = x;
    Expr e = f(cast<uint8_t>(x));
    EXPECT_EQ(e.as<Call>()->args[0].type(), Int(32));
}

TEST(Func, UpdatesAndStages) {
    Var x("x");
    RDom r(0, 10, "r");
    Func f("hist");
    f(x) = 0;
    Stage s = f(r) += 1;
    EXPECT_EQ(s.name(), "hist.update(0)");
    EXPECT_EQ(f.num_update_definitions(), 1);
    EXPECT_EQ(f.update(0).stage_index(), 1);
    ASSERT_EQ(f.update_args(0).size(), 1u);
    EXPECT_EQ(var_name(f.update_args(0)[0]), "r$x");
    const internal::Definition &u = contents(f).updates[0];
    EXPECT_TRUE(u.rdom.same_as(r.domain()));
    EXPECT_TRUE(r.domain().frozen());
    ASSERT_EQ(u.schedule.dims.size(), 1u);
    EXPECT_TRUE(u.schedule.dims[0].is_rvar);
}

TEST(Func, UpdateLoopOrderPutsRVarsInside) {
    Var x("x"), y("y");
    RDom r(0, 3, 0, 4, "r");
    Func f("f");
    f(x, y) = 0;
    f(x, y) += r.x * r.y;
    const auto &dims = contents(f).updates[0].schedule.dims;
    ASSERT_EQ(dims.size(), 4u);
    EXPECT_EQ(dims[0].var, "r$x");
    EXPECT_EQ(dims[1].var, "r$y");
    EXPECT_EQ(dims[2].var, "x");
    EXPECT_EQ(dims[3].var, "y");
}

TEST(Func, CompoundAssignmentOnUndefinedFuncDefinesIdentity) {
    RDom r(0, 5, "r");
    Func sum("sum"), prod("prod");
    sum() += r;
    prod() *= cast<float>(r) + 1.0f;
    EXPECT_EQ(sum.output_type(), Int(32));
    EXPECT_EQ(sum.num_update_definitions(), 1);
    const internal::IntImm *zero = sum.value().as<internal::IntImm>();
    ASSERT_NE(zero, nullptr);
    EXPECT_EQ(zero->value, 0);
    EXPECT_EQ(prod.output_type(), Float(32));

    // Pure Vars of the left keep their names in the base case.
    Var x("xk");
    Func g("g");
    g(x, r) += x;
    ASSERT_EQ(g.args().size(), 2u);
    EXPECT_EQ(g.args()[0].name(), "xk");
    EXPECT_NE(g.args()[1].name(), "r$x");
}

TEST(Func, SelfReferenceIsWeak) {
    Var x("x");
    RDom r(2, 8, "r");
    std::weak_ptr<FunctionContents> alive;
    {
        Func fib("fib");
        fib(x) = select(x < 2, 1, 0);
        fib(r) = fib(r - 1) + fib(r - 2);
        alive = fib.function().strong;
        const internal::Definition &u = contents(fib).updates[0];
        const internal::Add *add = u.values[0].as<internal::Add>();
        ASSERT_NE(add, nullptr);
        const Call *c = add->a.as<Call>();
        ASSERT_NE(c, nullptr);
        EXPECT_EQ(c->func.strong, nullptr);  // weak: no cycle
        EXPECT_EQ(c->func.get(), fib.function().get());
    }
    EXPECT_TRUE(alive.expired());
}

TEST(Func, ImplicitVarsExpandFromRightHandSide) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    Func g("g");
    g(_) = f(_) + 1;
    EXPECT_EQ(g.dimensions(), 2);
    EXPECT_EQ(g.args()[0].name(), "_0");
    EXPECT_EQ(g.args()[1].name(), "_1");

    Func h("h");
    h(x, _) = f(_) * x;
    ASSERT_EQ(h.dimensions(), 3);
    EXPECT_EQ(h.args()[0].name(), "x");
    EXPECT_EQ(h.args()[1].name(), "_0");
    EXPECT_EQ(h.args()[2].name(), "_1");

    // A call with fewer arguments plus _ fills the rest.
    Expr e = f(x, _);
    const Call *c = e.as<Call>();
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->args.size(), 2u);
    EXPECT_EQ(var_name(c->args[0]), "x");
    EXPECT_EQ(var_name(c->args[1]), "_0");

    Func k("k");
    k(_) = f(_) + h(_0, _);
    EXPECT_EQ(k.dimensions(), 2);  // uses _0 and _1

    // The named implicit vars work directly too.
    Func m("m");
    m(_0, _1) = _0 * _1;
    EXPECT_EQ(m.dimensions(), 2);
}

TEST(Func, FuncFromExprAndBuffer) {
    Func f(Expr(_0 + _1));
    EXPECT_EQ(f.dimensions(), 2);
    Func c(Expr(7));
    EXPECT_EQ(c.dimensions(), 0);
    Buffer<uint8_t> b(std::vector<int>{4, 4, 3}, "img");
    Func w(b);
    EXPECT_EQ(w.dimensions(), 3);
    EXPECT_EQ(w.output_type(), UInt(8));
    EXPECT_EQ(w.name(), "img_im");
}

TEST(Func, TupleDefinitions) {
    Var x("x");
    Func f("pair");
    f(x) = Tuple(x, cast<float>(x) * 0.5f);
    EXPECT_EQ(f.outputs(), 2);
    EXPECT_EQ(f.output_types()[1], Float(32));
    Expr a = f(x)[0], b = f(x)[1];
    EXPECT_EQ(a.type(), Int(32));
    EXPECT_EQ(b.type(), Float(32));
    EXPECT_EQ(b.as<Call>()->value_index, 1);
    Tuple t(f(x));
    EXPECT_EQ(t.size(), 2u);

    Func g("braced");
    g(x) = {x, x + 1, cast<uint8_t>(x)};
    EXPECT_EQ(g.outputs(), 3);

    // Updating one element keeps the others.
    f(x)[1] += 1.0f;
    ASSERT_EQ(f.num_update_definitions(), 1);
    const internal::Definition &u = contents(f).updates[0];
    const Call *kept = u.values[0].as<Call>();
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(kept->value_index, 0);
    EXPECT_EQ(f.update_values(0).size(), 2u);
}

TEST(Func, TupleSelect) {
    Var x("x");
    Tuple t = select(x > 0, Tuple(x, x * 2), Tuple(-x, 0));
    EXPECT_EQ(t.size(), 2u);
    EXPECT_COMPILE_ERROR(select(x > 0, Tuple(x, x), Tuple(x, x, x)), "sizes");
}

TEST(Func, ScheduleCallsChainAndRecord) {
    Var x("x"), y("y");
    Func f("sched");
    f(x, y) = x + y;
    uint64_t before = internal::definition_generation();
    f.compute_root().store_root().bound(x, 0, 16).bound_extent(y, 8);
    EXPECT_GT(internal::definition_generation(), before);
    const internal::FuncSchedule &s = contents(f).schedule;
    EXPECT_TRUE(s.compute_level.is_root());
    EXPECT_TRUE(s.store_level.is_root());
    ASSERT_EQ(s.bounds.size(), 2u);
    EXPECT_EQ(s.bounds[0].var, "x");
    EXPECT_TRUE(s.bounds[0].min.defined());
    EXPECT_FALSE(s.bounds[1].min.defined());
    f.bound(x, 2, 4);  // replaces the bound on x
    EXPECT_EQ(contents(f).schedule.bounds.size(), 2u);
    f.compute_inline();
    EXPECT_TRUE(contents(f).schedule.compute_level.is_inlined());
}

TEST(Func, DefinitionsBumpGeneration) {
    Var x("x");
    Func f("gen");
    uint64_t g0 = internal::definition_generation();
    f(x) = x;
    uint64_t g1 = internal::definition_generation();
    EXPECT_GT(g1, g0);
    f(x) += 1;
    EXPECT_GT(internal::definition_generation(), g1);
}

TEST(Func, CopiesShareTheDefinition) {
    Var x("x");
    Func f("shared");
    Func g = f;
    g(x) = x;
    EXPECT_TRUE(f.defined());
    EXPECT_EQ(f.name(), "shared");
}

TEST(Func, PipelineOutputs) {
    Var x("x");
    Func a("a"), b("b");
    a(x) = x;
    b(x) = x + 1;
    Pipeline p({a, b});
    ASSERT_EQ(p.outputs().size(), 2u);
    EXPECT_EQ(p.outputs()[1].name(), "b");
    EXPECT_COMPILE_ERROR(Pipeline({a, a}), "a");
    Pipeline empty;
    EXPECT_FALSE(empty.defined());
    EXPECT_COMPILE_ERROR(empty.realize({4}), "Pipeline");
}

TEST(Func, RealizeChecksBeforeCompiling) {
    Var x("x"), y("y");
    Func f("f2d");
    f(x, y) = x + y;
    int compiles = internal::jit_compile_count();
    EXPECT_COMPILE_ERROR(f.realize({2, 3, 4}), "realize of f2d with 3 dimensions, but f2d has 2");
    Buffer<float> wrong(4, 4);
    EXPECT_COMPILE_ERROR(f.realize(wrong), "f2d", "float32", "int32");
    Buffer<int> wrong_rank(4);
    EXPECT_COMPILE_ERROR(f.realize(wrong_rank), "f2d", "1 dimensions");
    Func undefined("nothing");
    EXPECT_COMPILE_ERROR(undefined.realize({4}), "nothing");
    EXPECT_EQ(internal::jit_compile_count(), compiles);
}

TEST(Func, RealizationConversions) {
    Buffer<int> a(std::vector<int>{3}, "ra");
    Buffer<float> b(std::vector<int>{3}, "rb");
    Realization r(a, b);
    EXPECT_EQ(r.size(), 2u);
    EXPECT_EQ(r[1].name(), "rb");
    EXPECT_COMPILE_ERROR(Buffer<int> x = r, "2 buffers");
    Realization one(std::vector<Buffer<>>{Buffer<>(b)});
    Buffer<float> ok = one;
    EXPECT_EQ(ok.name(), "rb");
    EXPECT_COMPILE_ERROR(Buffer<int> bad = one, "rb", "float32");
}

TEST(Func, BackendSwitch) {
    internal::Backend old = internal::jit_backend();
    internal::set_jit_backend(internal::Backend::Interpreter);
    EXPECT_EQ(internal::jit_backend(), internal::Backend::Interpreter);
    internal::set_jit_backend(internal::Backend::LLVM);
    EXPECT_EQ(internal::jit_backend(), internal::Backend::LLVM);
    internal::set_jit_backend(old);
}

}  // namespace

// A compiled pipeline is recompiled when one of its own Funcs changes, and
// only then: defining and scheduling unrelated Funcs in between (another
// pipeline of the same program) leaves the compiled code in place.
TEST(Func, CompiledPipelineIsKeptUntilOneOfItsFuncsChanges) {
    Var x("x");
    Func f("cached_f"), g("cached_g");
    f(x) = x * 3;
    g(x) = f(x) + 1;
    Pipeline p({g});
    Buffer<int> out = g.realize({5});
    Buffer<int> out_p = p.realize({5});
    int compiles = internal::jit_compile_count();

    Func other("unrelated"), user("unrelated_user");
    other(x) = x - 1;
    user(x) = other(x) * 2;
    other.compute_root();
    user.vectorize(x, 4);
    Buffer<int> unrelated = user.realize({8});
    EXPECT_EQ(internal::jit_compile_count(), compiles + 1);  // only the new pipeline
    compiles = internal::jit_compile_count();
    out = g.realize({5});
    out_p = p.realize({5});
    EXPECT_EQ(internal::jit_compile_count(), compiles) << "an unrelated Func's changes recompiled g";
    for (int i = 0; i < 5; i++) EXPECT_EQ(out(i), i * 3 + 1);

    // A producer's schedule is part of g's pipeline: both caches recompile.
    f.compute_root();
    out = g.realize({5});
    out_p = p.realize({5});
    EXPECT_EQ(internal::jit_compile_count(), compiles + 2);
    for (int i = 0; i < 5; i++) EXPECT_EQ(out_p(i), i * 3 + 1);

    // So is the output's new update definition, and the result follows it.
    // (A producer can't get one once g uses it, as in Halide.)
    compiles = internal::jit_compile_count();
    g(x) += 10;
    out = g.realize({5});
    EXPECT_EQ(internal::jit_compile_count(), compiles + 1);
    for (int i = 0; i < 5; i++) EXPECT_EQ(out(i), i * 3 + 11);
}

namespace {

std::weak_ptr<internal::ReductionDomainContents> domain_of(const RDom &r) {
    Expr e = r.x;
    const internal::Variable *v = e.as<internal::Variable>();
    return v ? v->reduction_domain.observe() : std::weak_ptr<internal::ReductionDomainContents>();
}

}  // namespace

TEST(Func, AnRDomWithWhereIsFreedWithItsFuncs) {
    // The predicate's RVars refer to their own domain: weakly, or the domain
    // would keep itself alive (3.5 KB per pipeline in a long-running program).
    std::weak_ptr<internal::ReductionDomainContents> domain;
    {
        Var x("x");
        RDom r(0, 10, 0, 10, "r");
        r.where(r.x < r.y && r.x + r.y < 12);
        domain = domain_of(r);
        Func f("lower_triangle");
        f(x) = 0;
        f(r.x) += r.y;
        Buffer<int> out = f.realize({10});
        int expected = 0;
        for (int y = 0; y < 10; y++) expected += (3 < y && 3 + y < 12) ? y : 0;
        EXPECT_EQ(out(3), expected);
        EXPECT_FALSE(domain.expired());
    }
    EXPECT_TRUE(domain.expired()) << "the RDom's contents outlived the RDom and every Func using it";
}

TEST(Func, WhereOnAnUnusedRDomIsFreed) {
    std::weak_ptr<internal::ReductionDomainContents> domain;
    {
        RDom r(0, 4, "r");
        r.where(r.x % 2 == 0);
        domain = domain_of(r);
    }
    EXPECT_TRUE(domain.expired());
}
