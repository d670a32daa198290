// The front end of specialize() and of buffer constraints, without running
// anything: where specializations go (nesting, reuse), that a
// specialization's schedule starts as a copy and then changes alone, what
// print_loop_nest() shows, and the constraint getters.

#include <gtest/gtest.h>

#include "LangTestUtil.h"
#include "loom/Loom.h"

using namespace loom;

namespace {

std::string loop_nest(Func &f) {
    testing::internal::CaptureStdout();
    f.print_loop_nest();
    return testing::internal::GetCapturedStdout();
}

TEST(SpecializeApi, PrintLoopNestShowsEachBranch) {
    Var x("x"), y("y");
    Param<int> w("w");
    Func f("pln");
    f(x, y) = x + y;
    f.parallel(y);  // copied into the specializations made after it
    f.specialize(w >= 16).vectorize(x, 16);
    Stage narrow = f.specialize(w >= 4);
    narrow.unroll(x, 2);
    f.specialize_fail("w < 4");
    const std::string expected = "produce pln:\n"
                                 "  if w >= 16:\n"
                                 "    parallel for y:\n"
                                 "      for x:\n"
                                 "        vectorized for x_vi:\n"
                                 "          pln(...) = ...\n"
                                 "  else if w >= 4:\n"
                                 "    parallel for y:\n"
                                 "      for x:\n"
                                 "        unrolled for x_ui:\n"
                                 "          pln(...) = ...\n"
                                 "  else: specialize_fail\n";
    EXPECT_EQ(loop_nest(f), expected);
}

TEST(SpecializeApi, ScheduleAfterSpecializeDoesNotReachIt) {
    Var x("x"), y("y");
    Param<bool> p("p_after");
    Func f("after");
    f(x, y) = x * y;
    f.specialize(p);
    f.parallel(y);  // the stage's own schedule only
    const std::string nest = loop_nest(f);
    EXPECT_NE(nest.find("if p_after:\n    for y:"), std::string::npos) << nest;
    EXPECT_NE(nest.find("else:\n    parallel for y:"), std::string::npos) << nest;
}

TEST(SpecializeApi, PathsOfNestedAndRepeatedSpecializations) {
    Var x("x");
    Param<int> a("a_path"), b("b_path");
    Func f("paths");
    f(x) = x;
    f(x) += a;
    Stage s0 = f.update(0).specialize(a > 0);
    Stage s1 = f.update(0).specialize(b > 0);
    Stage nested = s1.specialize(a == 2);
    EXPECT_EQ(s0.specialization_path(), std::vector<int>({0}));
    EXPECT_EQ(s1.specialization_path(), std::vector<int>({1}));
    EXPECT_EQ(nested.specialization_path(), std::vector<int>({1, 0}));
    EXPECT_EQ(f.update(0).specialize(b > 0).specialization_path(), std::vector<int>({1}));
    EXPECT_EQ(nested.stage_index(), 1);
    EXPECT_TRUE(f.specialize(a > 0).specialization_path() == std::vector<int>({0}));  // the pure definition's own list
}

TEST(SpecializeApi, SpecializeNeedsADefinition) {
    Func f("undefined_spec");
    Param<int> p("p_undef");
    EXPECT_COMPILE_ERROR(f.specialize(p > 0), "undefined_spec", "no definition");
    EXPECT_COMPILE_ERROR(f.specialize_fail("x"), "undefined_spec", "no definition");
}

TEST(SpecializeApi, ConstraintGetters) {
    ImageParam in(UInt(16), 2, "getters");
    internal::Dimension d0 = in.dim(0);
    ASSERT_TRUE(d0.parameter().constraint(0).stride.defined());  // Halide's default: stride 1
    d0.set_stride(Expr());
    EXPECT_FALSE(in.parameter().constraint(0).stride.defined());
    in.dim(1).set_bounds(0, 480).set_estimate(0, 480);
    EXPECT_TRUE(in.parameter().constraint(1).min.defined());
    EXPECT_TRUE(in.dim(1).extent_estimate().defined());
    EXPECT_EQ(in.dim(1).dim(0).index(), 0);
    Func f("getters_out");
    Var x("x"), y("y");
    f(x, y) = in(x, y);
    OutputImageParam out = f.output_buffer();
    EXPECT_EQ(out.name(), "getters_out");
    EXPECT_EQ(out.dimensions(), 2);
    EXPECT_TRUE(out.parameter().is_output_buffer());
    EXPECT_TRUE(out.parameter().constraint(0).stride.defined());
    EXPECT_TRUE(f.output_buffer().parameter().same_as(out.parameter()));  // made once
}

}  // namespace

namespace {

/** Halide's generator idiom: an input and an output of any stride in
 * dimension 0, with a specialization for planar inputs. */
class Brighten : public Generator<Brighten> {
public:
    Input<Buffer<uint8_t>> in{"in", 3};
    Output<Buffer<uint8_t>> out{"out", 3};
    Var x{"x"}, y{"y"}, c{"c"};
    void generate() {
        in.dim(0).set_stride(Expr());
        out(x, y, c) = in(x, y, c) + 1;
        out.dim(0).set_stride(Expr());
        out.dim(1).set_min(0);
        out.specialize(in.dim(0).stride() == 1).vectorize(x, 8);
    }
};

TEST(SpecializeApi, GeneratorInputAndOutputDimensions) {
    Buffer<uint8_t> interleaved = Buffer<uint8_t>::make_interleaved(11, 3, 3);
    interleaved.fill([](int i, int j, int k) { return uint8_t(i + 10 * j + 50 * k); });
    for (bool planar : {false, true}) {
        Brighten g;
        g.in.set(planar ? interleaved.copy_to_planar() : interleaved);
        Buffer<uint8_t> result = g.realize({11, 3, 3})[0];
        result.for_each_element([&](int i, int j, int k) {
            EXPECT_EQ(result(i, j, k), interleaved(i, j, k) + 1) << i << ", " << j << ", " << k;
        });
        EXPECT_FALSE(g.out.output_buffer().parameter().constraint(0).stride.defined());
        EXPECT_TRUE(g.out.dim(1).parameter().constraint(1).min.defined());
    }
}

}  // namespace
