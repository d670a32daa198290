// Var, Param, ImageParam, Buffer and RDom: naming and behaviour without
// running a pipeline.

#include <gtest/gtest.h>

#include "ir/IR.h"
#include "lang/LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;
using internal::Call;
using internal::CallType;
using internal::Variable;

namespace {

// ---- Var --------------------------------------------------------------------

TEST(Var, NamesAndExprs) {
    Var a, b, x("x");
    EXPECT_EQ(a.name()[0], 'v');
    EXPECT_NE(a.name(), b.name());
    EXPECT_EQ(x.name(), "x");
    Expr e = x;
    const Variable *v = e.as<Variable>();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->name, "x");
    EXPECT_EQ(e.type(), Int(32));
    EXPECT_FALSE(v->param.defined());
    EXPECT_TRUE(x.same_as(Var("x")));
}

TEST(Var, ImplicitVars) {
    EXPECT_EQ(_.name(), "_");
    EXPECT_TRUE(_.is_placeholder());
    EXPECT_EQ(_3.name(), "_3");
    EXPECT_EQ(Var::implicit(12).name(), "_12");
    EXPECT_EQ(Var::implicit_index("_7"), 7);
    EXPECT_EQ(Var::implicit_index("_"), -1);
    EXPECT_EQ(Var::implicit_index("x_1"), -1);
    EXPECT_TRUE(Var::is_implicit("_0"));
}

// ---- Param ----------------------------------------------------------------

TEST(Param, ValuesAndNames) {
    Param<float> p("gain");
    EXPECT_EQ(p.name(), "gain");
    EXPECT_EQ(p.type(), Float(32));
    EXPECT_THROW(p.get(), CompileError);  // no value yet, as in Halide
    p.set(1.5f);
    EXPECT_EQ(p.get(), 1.5f);
    p.set(0.1);  // doubles round into a float Param
    EXPECT_FLOAT_EQ(p.get(), 0.1f);
    Param<int> q(7);
    EXPECT_EQ(q.get(), 7);
    EXPECT_EQ(q.name()[0], 'p');
    Param<uint8_t> r("level", 200);
    EXPECT_EQ(r.get(), 200);
    Param<bool> flag("flag");
    EXPECT_EQ(flag.type(), Bool());
    Expr e = p;
    const Variable *v = e.as<Variable>();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->name, "gain");
    EXPECT_TRUE(v->param.same_as(p.parameter()));
    EXPECT_EQ(e.type(), Float(32));
}

TEST(Param, IntegerValuesMustFit) {
    Param<uint8_t> p("small");
    EXPECT_COMPILE_ERROR(p.set(300), "small", "300");
    EXPECT_COMPILE_ERROR(p.set(-1), "small");
    Param<int> q("whole");
    EXPECT_COMPILE_ERROR(q.set(2.5), "whole");
    q.set(int64_t(-5));
    EXPECT_EQ(q.get(), -5);
}

TEST(Param, UntypedParamChecksTypes) {
    Param<> p(Int(16), "generic");
    EXPECT_EQ(p.type(), Int(16));
    p.set<int16_t>(-3);
    EXPECT_EQ(p.get<int16_t>(), -3);
    EXPECT_COMPILE_ERROR(p.set(1.0f), "generic", "int16", "float32");
    EXPECT_COMPILE_ERROR(p.get<int32_t>(), "generic");
}

TEST(Param, Range) {
    Param<float> p("ranged", 1.0f, 0.0f, 2.0f);
    EXPECT_TRUE(p.min_value().defined());
    p.set_range(0, 4);  // ints are cast to the Param's type
    EXPECT_EQ(p.max_value().type(), Float(32));
}

// ---- ImageParam -------------------------------------------------------------

TEST(ImageParam, ShapeExprs) {
    ImageParam in(UInt(8), 3, "input");
    EXPECT_EQ(in.name(), "input");
    EXPECT_EQ(in.type(), UInt(8));
    EXPECT_EQ(in.dimensions(), 3);
    Expr width = in.width();
    const Variable *w = width.as<Variable>();
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->name, "input.extent.0");
    EXPECT_EQ(w->type, Int(32));
    EXPECT_EQ(in.dim(1).min().as<Variable>()->name, "input.min.1");
    EXPECT_EQ(in.dim(2).stride().as<Variable>()->name, "input.stride.2");
    EXPECT_EQ(in.channels().as<Variable>()->name, "input.extent.2");
    EXPECT_COMPILE_ERROR(in.dim(3), "input", "3");
    ImageParam unnamed(Float(32), 1);
    EXPECT_EQ(unnamed.name()[0], 'p');
}

TEST(ImageParam, Access) {
    Var x("x"), y("y");
    ImageParam in(Int(16), 2, "img");
    Expr e = in(x, y + 1);
    const Call *c = e.as<Call>();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->call_type, CallType::Image);
    EXPECT_EQ(c->name, "img");
    EXPECT_TRUE(c->param.same_as(in.parameter()));
    EXPECT_EQ(e.type(), Int(16));
    Expr all = in(_);
    EXPECT_EQ(all.as<Call>()->args.size(), 2u);
    Expr rest = in(x, _);
    EXPECT_EQ(rest.as<Call>()->args.size(), 2u);
    EXPECT_COMPILE_ERROR(in(x), "img", "2 dimensions");
    EXPECT_COMPILE_ERROR(in(x, y, x), "img");
}

TEST(ImageParam, SetChecksTypeAndRank) {
    ImageParam in(UInt(8), 2, "checked_input");
    EXPECT_COMPILE_ERROR(in.set(Buffer<float>(4, 4)), "checked_input", "float32");
    EXPECT_COMPILE_ERROR(in.set(Buffer<uint8_t>(4, 4, 3)), "checked_input", "3");
    EXPECT_COMPILE_ERROR(in.set(Buffer<>()), "checked_input");
    Buffer<uint8_t> b(std::vector<int>{4, 4}, "good");
    in.set(b);
    EXPECT_EQ(in.get().name(), "good");
    EXPECT_EQ(in.parameter().buffer(), b.raw_buffer());
    in.reset();
    EXPECT_FALSE(in.get().defined());
}

TEST(ImageParam, ConvertsToFunc) {
    ImageParam in(Float(32), 2, "src");
    Func f = in;
    EXPECT_EQ(f.dimensions(), 2);
    EXPECT_EQ(f.output_type(), Float(32));
    Func again = in;
    EXPECT_TRUE(again.function().same_as(f.function()));
}

// ---- Buffer ---------------------------------------------------------------

TEST(Buffer, NamesAndSharing) {
    Buffer<int> a(4, 3);
    EXPECT_EQ(a.name()[0], 'b');
    Buffer<int> named(std::vector<int>{2}, "weights");
    EXPECT_EQ(named.name(), "weights");
    Buffer<int> copy = a;
    copy(1, 2) = 42;
    EXPECT_EQ(a(1, 2), 42);  // copies share storage
    EXPECT_EQ(copy.name(), a.name());
    copy.set_min(-1, -1);
    EXPECT_EQ(a.min(0), -1);  // and shape
    Buffer<int> deep = a.copy();
    EXPECT_NE(deep.name(), a.name());
    EXPECT_EQ(deep(0, 1), 42);  // (1, 2) before set_min
    deep(0, 1) = 0;
    EXPECT_EQ(a(0, 1), 42);
    EXPECT_EQ(deep.min(1), -1);
}

TEST(Buffer, RuntimeApi) {
    Buffer<float> b(std::vector<int>{3, 2, 2, 2, 2}, "five_d");
    EXPECT_EQ(b.dimensions(), 5);
    EXPECT_EQ(b.width(), 3);
    EXPECT_EQ(b.height(), 2);
    EXPECT_EQ(b.channels(), 2);
    EXPECT_EQ(b.dim(4).extent(), 2);
    EXPECT_EQ(b.stride(1), 3);
    EXPECT_EQ(b.number_of_elements(), 48u);
    b.fill(2.5f);
    EXPECT_EQ(b(2, 1, 1, 1, 1), 2.5f);
    int count = 0;
    b.for_each_element([&](const std::vector<int> &) { count++; });
    EXPECT_EQ(count, 48);
    Buffer<float> other(std::vector<int>{3, 2, 2, 2, 2});
    other.copy_from(b);
    EXPECT_EQ(other(0, 0, 0, 0, 0), 2.5f);
    EXPECT_EQ(b.type(), Float(32));
    EXPECT_NE(b.raw_buffer(), nullptr);
    EXPECT_EQ(b.raw_buffer()->dimensions, 5);
}

TEST(Buffer, TypedAndUntyped) {
    Buffer<> u(Int(16), {4, 4}, "untyped");
    EXPECT_EQ(u.type(), Int(16));
    Buffer<int16_t> t = u;
    t(1, 1) = -7;
    EXPECT_EQ(t.name(), "untyped");
    Buffer<> back = t;
    EXPECT_EQ(back.raw_buffer(), u.raw_buffer());
    EXPECT_COMPILE_ERROR(Buffer<float> f = u, "untyped", "int16", "float32");
    EXPECT_COMPILE_ERROR((Buffer<float>(Int(8), {2}, "mistyped")), "mistyped", "int8");
    Buffer<> v(UInt(8), 5, 5);
    EXPECT_EQ(v.dimensions(), 2);
    int data[6] = {1, 2, 3, 4, 5, 6};
    Buffer<int> wrapped(data, {3, 2}, "wrapped");
    EXPECT_EQ(wrapped(2, 1), 6);
}

TEST(Buffer, ReadInExpr) {
    Var x("x"), y("y");
    Buffer<uint16_t> b(std::vector<int>{8, 8}, "table");
    Expr e = b(x, y + 1);
    const Call *c = e.as<Call>();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->call_type, CallType::Image);
    EXPECT_EQ(c->name, "table");
    EXPECT_EQ(e.type(), UInt(16));
    ASSERT_TRUE(c->param.defined());
    EXPECT_EQ(c->param.name(), "table");
    EXPECT_EQ(c->param.buffer(), b.raw_buffer());
    EXPECT_EQ(c->param.dimensions(), 2);
    // The same Parameter for every read and every copy.
    Buffer<uint16_t> copy = b;
    EXPECT_TRUE(copy(x, 0).as<Call>()->param.same_as(c->param));
    Expr mixed = b(x, 3);
    EXPECT_EQ(mixed.as<Call>()->args.size(), 2u);
    Expr all = b(_);
    EXPECT_EQ(all.as<Call>()->args.size(), 2u);
    EXPECT_COMPILE_ERROR(b(x), "table", "2 dimensions");
    Buffer<int> undefined;
    EXPECT_COMPILE_ERROR(undefined(x), "undefined");
}

// ---- RDom -----------------------------------------------------------------

TEST(RDom, Dimensions) {
    RDom r1(0, 10, "one");
    EXPECT_EQ(r1.dimensions(), 1);
    EXPECT_EQ(r1.x.name(), "one$x");
    Expr e = r1;
    const Variable *v = e.as<Variable>();
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(v->reduction_domain.same_as(r1.domain()));

    RDom r4(0, 2, 1, 3, 2, 4, 3, 5, "four");
    EXPECT_EQ(r4.dimensions(), 4);
    EXPECT_EQ(r4.w.name(), "four$w");
    EXPECT_EQ(r4[2].name(), "four$z");
    const internal::IntImm *extent = r4.y.extent().as<internal::IntImm>();
    ASSERT_NE(extent, nullptr);
    EXPECT_EQ(extent->value, 3);
    EXPECT_COMPILE_ERROR(Expr bad = r4, "four", "4 dimensions");
    EXPECT_COMPILE_ERROR(r4[4], "four");

    RDom region({{0, 4}, {1, 2}});
    EXPECT_EQ(region.dimensions(), 2);
    EXPECT_EQ(region.name()[0], 'r');
    EXPECT_COMPILE_ERROR(RDom(0.5f, 3, "fractional"), "fractional", "float32");
}

TEST(RDom, OverBufferAndImageParam) {
    Buffer<int> b(std::vector<int>{5, 6}, "area");
    b.set_min(2, 3);
    RDom r(b);
    EXPECT_EQ(r.dimensions(), 2);
    EXPECT_EQ(r.y.min().as<internal::IntImm>()->value, 3);
    EXPECT_EQ(r.x.extent().as<internal::IntImm>()->value, 5);

    ImageParam in(Float(32), 3, "vol");
    RDom ri(in);
    EXPECT_EQ(ri.dimensions(), 3);
    EXPECT_EQ(ri.z.extent().as<Variable>()->name, "vol.extent.2");
}

TEST(RDom, WherePredicatesAreAnded) {
    RDom r(0, 8, 0, 8, "tri");
    EXPECT_FALSE(r.domain().predicate().defined());
    r.where(r.x < r.y);
    Expr first = r.domain().predicate();
    EXPECT_TRUE(first.defined());
    r.where(r.x > 1).where(r.y < 7);
    const internal::And *both = r.domain().predicate().as<internal::And>();
    ASSERT_NE(both, nullptr);
    EXPECT_COMPILE_ERROR(r.where(r.x + 1), "tri", "boolean");
    // Copies share the domain.
    RDom copy = r;
    EXPECT_TRUE(copy.same_as(r));
}

}  // namespace
