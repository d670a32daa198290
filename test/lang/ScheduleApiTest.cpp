// The scheduling calls without running anything: what each records in the
// compiler's representation (src/ir/Function.h), and the CompileError every
// invalid directive raises, naming the Func, the stage and the Var.

#include <gtest/gtest.h>

#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/IRUtil.h"
#include "lang/Backend.h"
#include "lang/LangTestUtil.h"
#include "lang/RVarDependence.h"
#include "lower/ScheduleChecks.h"
#include "loom/Loom.h"

using namespace loom;
using internal::ForType;
using internal::Split;
using internal::StageSchedule;

namespace {

const internal::FunctionContents &contents(const Func &f) { return *f.function().get(); }

const StageSchedule &schedule(const Func &f, int stage = 0) { return contents(f).stage(stage).schedule; }

/** The loops of a stage, innermost first. */
std::vector<std::string> loops(const Func &f, int stage = 0) {
    std::vector<std::string> names;
    for (const internal::Dim &d : schedule(f, stage).dims) names.push_back(d.var);
    return names;
}

ForType kind_of(const Func &f, const std::string &loop, int stage = 0) {
    for (const internal::Dim &d : schedule(f, stage).dims) {
        if (d.var == loop) return d.for_type;
    }
    ADD_FAILURE() << "no loop " << loop;
    return ForType::Serial;
}

int64_t const_factor(const Split &s) {
    auto c = internal::as_const_int(s.factor);
    return c ? *c : -1;
}

void check(const Func &f) { internal::check_schedules({f.function()}); }

using Names = std::vector<std::string>;

// ---- What the directives record ---------------------------------------------

TEST(ScheduleApi, DefaultLoopOrder) {
    Var x("x"), y("y");
    RDom r(0, 4, 0, 3, "r");
    Func f("f");
    f(x, y) = x + y;
    f(x, y) += r.x * r.y;
    EXPECT_EQ(loops(f, 0), (Names{"x", "y"}));
    EXPECT_EQ(loops(f, 1), (Names{"r$x", "r$y", "x", "y"}));
    EXPECT_TRUE(schedule(f, 1).dims[0].is_rvar);
    EXPECT_FALSE(schedule(f, 1).dims[2].is_rvar);
    EXPECT_EQ(f.update(0).name(), "f.update(0)");
    EXPECT_EQ(Stage(f).name(), "f");
}

TEST(ScheduleApi, SplitPutsInnerThenOuterInPlace) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f");
    f(x, y) = x + y;
    f.split(x, xo, xi, 8);
    EXPECT_EQ(loops(f), (Names{"xi", "xo", "y"}));
    ASSERT_EQ(schedule(f).splits.size(), 1u);
    const Split &s = schedule(f).splits[0];
    EXPECT_EQ(s.kind, Split::SplitVar);
    EXPECT_EQ(s.old_var, "x");
    EXPECT_EQ(s.outer, "xo");
    EXPECT_EQ(s.inner, "xi");
    EXPECT_EQ(const_factor(s), 8);
    EXPECT_TRUE(schedule(f).touched);
}

TEST(ScheduleApi, SplitOfYKeepsOtherLoops) {
    Var x("x"), y("y"), z("z"), yo("yo"), yi("yi");
    Func f("f");
    f(x, y, z) = x + y + z;
    f.split(y, yo, yi, 4, TailStrategy::GuardWithIf);
    EXPECT_EQ(loops(f), (Names{"x", "yi", "yo", "z"}));
    EXPECT_EQ(schedule(f).splits[0].tail, internal::TailStrategy::GuardWithIf);
}

TEST(ScheduleApi, AutoTailFollowsHalideDefaults) {
    Var x("x"), xo("xo"), xi("xi");
    RVar ro("ro"), ri("ri");
    RDom r(0, 10, "r");
    Func f("f");
    f(x) = x;
    f(x) += r;
    f.split(x, xo, xi, 4);
    f.update(0).split(x, xo, xi, 4).split(r, ro, ri, 2);
    EXPECT_EQ(schedule(f, 0).splits[0].tail, internal::TailStrategy::ShiftInwards);
    EXPECT_EQ(schedule(f, 1).splits[0].tail, internal::TailStrategy::RoundUp);
    EXPECT_EQ(schedule(f, 1).splits[1].tail, internal::TailStrategy::GuardWithIf);
    // Split RVar loops stay RVar loops.
    EXPECT_EQ(loops(f, 1), (Names{"ri", "ro", "xi", "xo"}));
    EXPECT_TRUE(schedule(f, 1).dims[0].is_rvar);
    EXPECT_TRUE(schedule(f, 1).dims[1].is_rvar);
}

TEST(ScheduleApi, ExplicitTailsAreKept) {
    Var x("x"), y("y"), a("a"), b("b"), c("c"), d("d"), e("e"), g("g"), h("h"), i("i");
    Func f("f");
    f(x, y) = x + y;
    // Predicated tails split outer loops only, and are the last split of
    // their loop (as in Halide: test/lang/UserErrorsTest.cpp).
    f.split(x, a, b, 3, TailStrategy::RoundUp)
        .split(a, c, d, 2, TailStrategy::PredicateLoads)
        .split(y, e, g, 5, TailStrategy::ShiftInwards)
        .split(e, h, i, 2, TailStrategy::PredicateStores);
    const auto &s = schedule(f).splits;
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s[0].tail, internal::TailStrategy::RoundUp);
    EXPECT_EQ(s[1].tail, internal::TailStrategy::PredicateLoads);
    EXPECT_EQ(s[2].tail, internal::TailStrategy::ShiftInwards);
    EXPECT_EQ(s[3].tail, internal::TailStrategy::PredicateStores);
    EXPECT_EQ(loops(f), (Names{"b", "d", "c", "g", "i", "h"}));
}

TEST(ScheduleApi, ReorderPermutesWithinPlaces) {
    Var x("x"), y("y"), z("z"), w("w");
    Func f("f");
    f(x, y, z, w) = x + y + z + w;
    f.reorder(z, x);  // z innermost of the two, in x's and z's places
    EXPECT_EQ(loops(f), (Names{"z", "y", "x", "w"}));
    f.reorder(std::vector<VarOrRVar>{w, y, z, x});
    EXPECT_EQ(loops(f), (Names{"w", "y", "z", "x"}));
}

TEST(ScheduleApi, TileFirstForm) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func f("f");
    f(x, y) = x + y;
    f.tile(x, y, xo, yo, xi, yi, 8, 4);
    EXPECT_EQ(loops(f), (Names{"xi", "yi", "xo", "yo"}));
    ASSERT_EQ(schedule(f).splits.size(), 2u);
    EXPECT_EQ(const_factor(schedule(f).splits[0]), 8);
    EXPECT_EQ(const_factor(schedule(f).splits[1]), 4);
}

TEST(ScheduleApi, TileSecondFormReusesNames) {
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func f("f");
    f(x, y) = x + y;
    f.tile(x, y, xi, yi, 16, 2);
    EXPECT_EQ(loops(f), (Names{"xi", "yi", "x", "y"}));
    EXPECT_EQ(schedule(f).splits[0].outer, "x");
    EXPECT_EQ(schedule(f).splits[0].old_var, "x");
}

TEST(ScheduleApi, TileOfThreeDimensions) {
    Var x("x"), y("y"), z("z"), xi("xi"), yi("yi"), zi("zi");
    Func f("f");
    f(x, y, z) = x + y + z;
    f.tile({x, y, z}, {xi, yi, zi}, {2, 3, 4});
    EXPECT_EQ(loops(f), (Names{"xi", "yi", "zi", "x", "y", "z"}));
}

TEST(ScheduleApi, FuseReplacesTwoAdjacentLoops) {
    Var x("x"), y("y"), z("z"), xy("xy");
    Func f("f");
    f(x, y, z) = x + y + z;
    f.fuse(x, y, xy);
    EXPECT_EQ(loops(f), (Names{"xy", "z"}));
    const Split &s = schedule(f).splits.back();
    EXPECT_EQ(s.kind, Split::FuseVars);
    EXPECT_EQ(s.old_var, "xy");
    EXPECT_EQ(s.inner, "x");
    EXPECT_EQ(s.outer, "y");
}

TEST(ScheduleApi, Rename) {
    Var x("x"), y("y"), col("col");
    Func f("f");
    f(x, y) = x + y;
    f.rename(x, col);
    EXPECT_EQ(loops(f), (Names{"col", "y"}));
    EXPECT_EQ(schedule(f).splits[0].kind, Split::RenameVar);
    EXPECT_EQ(schedule(f).splits[0].old_var, "x");
    EXPECT_EQ(schedule(f).splits[0].outer, "col");
}

TEST(ScheduleApi, VectorizeWithFactorSplitsOffAHiddenInnerLoop) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    f.vectorize(x, 8);
    EXPECT_EQ(loops(f), (Names{"x_vi", "x", "y"}));
    EXPECT_EQ(kind_of(f, "x_vi"), ForType::Vectorized);
    EXPECT_EQ(kind_of(f, "x"), ForType::Serial);
    const Split &s = schedule(f).splits[0];
    EXPECT_EQ(s.old_var, "x");
    EXPECT_EQ(s.outer, "x");
    EXPECT_EQ(s.inner, "x_vi");
    EXPECT_EQ(const_factor(s), 8);
    // A second vectorize of the (serial) outer loop gets a fresh inner name.
    f.vectorize(x, 2);
    EXPECT_EQ(loops(f), (Names{"x_vi", "x_vi1", "x", "y"}));
}

TEST(ScheduleApi, UnrollAndParallelWithFactors) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    f.unroll(x, 4).parallel(y, 16);
    EXPECT_EQ(loops(f), (Names{"x_ui", "x", "y_pi", "y"}));
    EXPECT_EQ(kind_of(f, "x_ui"), ForType::Unrolled);
    EXPECT_EQ(kind_of(f, "y"), ForType::Parallel);
    EXPECT_EQ(kind_of(f, "y_pi"), ForType::Serial);
    EXPECT_EQ(const_factor(schedule(f).splits[1]), 16);
}

TEST(ScheduleApi, PlainLoopKinds) {
    Var x("x"), y("y"), z("z");
    Func f("f");
    f(x, y, z) = x + y + z;
    f.vectorize(x).unroll(y).parallel(z);
    EXPECT_EQ(kind_of(f, "x"), ForType::Vectorized);
    EXPECT_EQ(kind_of(f, "y"), ForType::Unrolled);
    EXPECT_EQ(kind_of(f, "z"), ForType::Parallel);
    EXPECT_TRUE(schedule(f).splits.empty());
}

TEST(ScheduleApi, UnrollCascade) {
    Var x("x");
    Func f("f");
    f(x) = x;
    f.unroll(x, {8, 4, 1});
    EXPECT_EQ(kind_of(f, "x"), ForType::Unrolled);
    EXPECT_EQ(schedule(f).dims[0].unroll_cascade, (std::vector<int>{8, 4, 1}));
    EXPECT_TRUE(schedule(f).splits.empty());
    Func g("g");
    g(x) = x;
    g.unroll(x, std::vector<int>{3, 1});
    EXPECT_EQ(schedule(g).dims[0].unroll_cascade, (std::vector<int>{3, 1}));
}

TEST(ScheduleApi, UpdateStagesHaveTheSameCalls) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    RDom r(0, 16, "r");
    Func f("f");
    f(x, y) = 0;
    f(x, y) += r * x;
    f.update(0).vectorize(x, 4).parallel(y).unroll(r, {4, 1});
    EXPECT_EQ(loops(f, 1), (Names{"r$x", "x_vi", "x", "y"}));
    EXPECT_EQ(kind_of(f, "x_vi", 1), ForType::Vectorized);
    EXPECT_EQ(kind_of(f, "y", 1), ForType::Parallel);
    EXPECT_EQ(kind_of(f, "r$x", 1), ForType::Unrolled);
    EXPECT_EQ(schedule(f, 1).splits[0].tail, internal::TailStrategy::RoundUp);
    // The pure definition is untouched.
    EXPECT_EQ(loops(f, 0), (Names{"x", "y"}));
    EXPECT_FALSE(schedule(f, 0).touched);
    f.update(0).reorder(y, r);
    EXPECT_EQ(loops(f, 1), (Names{"y", "x_vi", "x", "r$x"}));
}

TEST(ScheduleApi, IndependentRVarsMayBeVectorizedAndParallel) {
    Var x("x");
    RDom r(0, 16, "r");
    Func in("in"), f("f"), g("g");
    in(x) = x * 3;
    f(x) = 0;
    f(r) = in(r) * 2;  // every iteration writes its own element
    f.update(0).vectorize(r, 4);
    EXPECT_EQ(kind_of(f, "r$x_vi", 1), ForType::Vectorized);
    g(x) = x;
    g(r) = g(r) * 2 + 1;  // reads only the element it writes
    g.update(0).parallel(r);
    EXPECT_EQ(kind_of(g, "r$x", 1), ForType::Parallel);
}

TEST(ScheduleApi, LoopOriginsFollowSplitsFusesAndRenames) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), t("t"), u("u");
    Func f("f");
    f(x, y) = x + y;
    f.split(x, xo, xi, 4).fuse(xo, y, t).rename(t, u);
    const StageSchedule &s = schedule(f);
    EXPECT_EQ(internal::loop_origins(s, "xi"), (Names{"x"}));
    auto origins = internal::loop_origins(s, "u");
    std::sort(origins.begin(), origins.end());
    EXPECT_EQ(origins, (Names{"x", "y"}));
}

TEST(ScheduleApi, EveryDirectiveBumpsTheGeneration) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f"), g("g");
    f(x, y) = x + y;
    g(x, y) = f(x, y);
    uint64_t g0 = internal::definition_generation();
    f.split(x, xo, xi, 2);
    uint64_t g1 = internal::definition_generation();
    EXPECT_GT(g1, g0);
    f.vectorize(xi);
    uint64_t g2 = internal::definition_generation();
    EXPECT_GT(g2, g1);
    f.compute_at(g, y);
    uint64_t g3 = internal::definition_generation();
    EXPECT_GT(g3, g2);
    f.fold_storage(y, 2);
    EXPECT_GT(internal::definition_generation(), g3);
}

TEST(ScheduleApi, FailedDirectiveChangesNothing) {
    Var x("x"), y("y"), xi("xi"), yi("yi"), bad("bad");
    Func f("f");
    f(x, y) = x + y;
    uint64_t before = internal::definition_generation();
    // tile splits x, then fails on y's factor: x stays unsplit.
    EXPECT_COMPILE_ERROR(f.tile(x, y, xi, yi, 4, 0), "f", "y", "positive");
    EXPECT_EQ(loops(f), (Names{"x", "y"}));
    EXPECT_TRUE(schedule(f).splits.empty());
    EXPECT_FALSE(schedule(f).touched);
    EXPECT_EQ(internal::definition_generation(), before);
}

// ---- Placement ----------------------------------------------------------------

TEST(ScheduleApi, ComputeAtAndStoreAtRecordLoopLevels) {
    Var x("x"), y("y");
    RDom r(0, 3, "r");
    Func f("f"), g("g"), h("h");
    f(x, y) = x + y;
    g(x, y) = f(x, y) * 2;
    g(x, y) += r;
    h(x, y) = g(x, y);
    f.compute_at(g, y);
    EXPECT_EQ(contents(f).schedule.compute_level.kind, internal::LoopLevel::At);
    EXPECT_EQ(contents(f).schedule.compute_level.func, "g");
    EXPECT_EQ(contents(f).schedule.compute_level.var, "y");
    EXPECT_EQ(contents(f).schedule.compute_level.stage, -1);
    // The store level follows the compute level until store_at/store_root.
    EXPECT_TRUE(contents(f).schedule.store_level.is_inlined());
    f.store_root();
    EXPECT_TRUE(contents(f).schedule.store_level.is_root());
    f.compute_at(LoopLevel(g, x, 0)).store_at(g, y);
    EXPECT_EQ(contents(f).schedule.compute_level.stage, 0);
    EXPECT_EQ(contents(f).schedule.compute_level.var, "x");
    EXPECT_EQ(contents(f).schedule.store_level.var, "y");
    g.compute_at(h, y);
    g.compute_root();
    EXPECT_TRUE(contents(g).schedule.compute_level.is_root());
    f.compute_at(g, RVar(r.x));
    EXPECT_EQ(contents(f).schedule.compute_level.var, "r$x");
    f.compute_inline();
    EXPECT_TRUE(contents(f).schedule.compute_level.is_inlined());
}

TEST(ScheduleApi, PublicLoopLevel) {
    Var x("x");
    Func g("g");
    g(x) = x;
    EXPECT_FALSE(LoopLevel().defined());  // undefined, as in Halide (test/lang/UserErrorsTest.cpp)
    EXPECT_TRUE(LoopLevel::inlined().is_inlined());
    EXPECT_TRUE(LoopLevel::root().is_root());
    LoopLevel at(g, x, 0);
    EXPECT_FALSE(at.is_root());
    EXPECT_FALSE(at.is_inlined());
    EXPECT_EQ(at.func(), "g");
    EXPECT_EQ(at.var().name(), "x");
    EXPECT_EQ(at.stage_index(), 0);
    EXPECT_EQ(at.to_string(), "g.s0.x");
    EXPECT_EQ(LoopLevel(g, x).to_string(), "g.x");
    EXPECT_EQ(LoopLevel::from_internal(at.to_internal()), at);
    EXPECT_NE(at, LoopLevel::root());
    EXPECT_EQ(LoopLevel::from_internal(internal::LoopLevel::root()), LoopLevel::root());
}

TEST(ScheduleApi, ComputeWithRecordsTheFusedLoop) {
    Var x("x"), y("y");
    Func f("f"), g("g"), out("out");
    f(x, y) = x;
    g(x, y) = y;
    out(x, y) = f(x, y) + g(x, y);
    f.compute_root();
    g.compute_root().compute_with(f, y);
    const internal::LoopLevel &w = schedule(g).compute_with;
    EXPECT_EQ(w.kind, internal::LoopLevel::At);
    EXPECT_EQ(w.func, "f");
    EXPECT_EQ(w.var, "y");
    EXPECT_EQ(w.stage, 0);
    EXPECT_NO_THROW(check(out));
    g.compute_with(LoopLevel::inlined());
    EXPECT_EQ(schedule(g).compute_with.kind, internal::LoopLevel::Inlined);
}

TEST(ScheduleApi, StorageFoldsAndOrder) {
    Var x("x"), y("y"), z("z");
    Func f("f");
    f(x, y, z) = x + y + z;
    f.fold_storage(y, 3).fold_storage(z, 2, false);
    ASSERT_EQ(contents(f).schedule.storage_folds.size(), 2u);
    EXPECT_EQ(contents(f).schedule.storage_folds[0].var, "y");
    EXPECT_TRUE(contents(f).schedule.storage_folds[0].fold_forward);
    EXPECT_FALSE(contents(f).schedule.storage_folds[1].fold_forward);
    f.reorder_storage(z, x);
    EXPECT_EQ(contents(f).schedule.storage_order, (Names{"z", "y", "x"}));
    f.reorder_storage(std::vector<Var>{y, z});
    EXPECT_EQ(contents(f).schedule.storage_order, (Names{"y", "z", "x"}));
}

TEST(ScheduleApi, LegalComputeAtPassesTheChecks) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func in("in"), blur_x("blur_x"), blur_y("blur_y");
    in(x, y) = x + y;
    blur_x(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
    blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1);
    blur_y.tile(x, y, xo, yo, xi, yi, 8, 8);
    blur_x.compute_at(blur_y, xo).store_at(blur_y, yo);
    in.compute_at(blur_x, y);  // inside blur_x's loops, which are inside blur_y's
    EXPECT_NO_THROW(check(blur_y));
    in.compute_at(blur_y, yo);  // encloses blur_x too
    EXPECT_NO_THROW(check(blur_y));
}

// ---- Errors ---------------------------------------------------------------------

TEST(ScheduleErrors, SplitUnknownVar) {
    Var x("x"), y("y"), zed("zed"), a("a"), b("b");
    Func f("f_unknown");
    f(x, y) = x + y;
    EXPECT_COMPILE_ERROR(f.split(zed, a, b, 4), "f_unknown", "zed", "not a loop", "x, y");
    RDom r(0, 3, "r");
    f(x, y) += r;
    EXPECT_COMPILE_ERROR(f.update(0).split(zed, a, b, 4), "f_unknown.update(0)", "update definition 0", "zed");
}

TEST(ScheduleErrors, SplitAVarAlreadySplit) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), a("a"), b("b");
    Func f("f_twice");
    f(x, y) = x + y;
    f.split(x, xo, xi, 4);
    EXPECT_COMPILE_ERROR(f.split(x, a, b, 2), "f_twice", "x", "already split into xo and xi");
    EXPECT_COMPILE_ERROR(f.vectorize(x), "f_twice", "x", "already split");
}

TEST(ScheduleErrors, NonPositiveOrNonIntegerSplitFactor) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Param<int> n("n");
    Func f("f_factor");
    f(x, y) = x + y;
    EXPECT_COMPILE_ERROR(f.split(x, xo, xi, 0), "f_factor", "x", "0", "positive");
    EXPECT_COMPILE_ERROR(f.split(x, xo, xi, -3), "f_factor", "x", "-3", "positive");
    EXPECT_COMPILE_ERROR(f.split(x, xo, xi, 2.5f), "f_factor", "x", "float32", "integer");
    EXPECT_COMPILE_ERROR(f.split(x, xo, xi, y), "f_factor", "x", "uses the variable y");
    EXPECT_COMPILE_ERROR(f.vectorize(x, 0), "f_factor", "x", "positive");
    EXPECT_COMPILE_ERROR(f.vectorize(x, n), "f_factor", "x", "constant");
    EXPECT_COMPILE_ERROR(f.unroll(x, -1), "f_factor", "x", "positive");
    EXPECT_COMPILE_ERROR(f.parallel(x, 0), "f_factor", "x", "task size", "positive");
    EXPECT_NO_THROW(f.split(x, xo, xi, n));  // a Param factor is checked when the pipeline runs
}

TEST(ScheduleErrors, SplitIntoNamesInUse) {
    Var x("x"), y("y"), xo("xo");
    Func f("f_names");
    f(x, y) = x + y;
    EXPECT_COMPILE_ERROR(f.split(x, y, xo, 4), "f_names", "y", "already used");
    EXPECT_COMPILE_ERROR(f.split(x, xo, xo, 4), "f_names", "xo", "different names");
    EXPECT_COMPILE_ERROR(f.rename(x, y), "f_names", "y", "already used");
}

TEST(ScheduleErrors, ReorderUnknownOrRepeatedVar) {
    Var x("x"), y("y"), q("q");
    Func f("f_reorder");
    f(x, y) = x + y;
    EXPECT_COMPILE_ERROR(f.reorder(y, q), "f_reorder", "q", "not a loop");
    EXPECT_COMPILE_ERROR(f.reorder(y, x, y), "f_reorder", "y", "twice");
    EXPECT_EQ(loops(f), (Names{"x", "y"}));
}

TEST(ScheduleErrors, FuseLoopsThatAreNotAdjacent) {
    Var x("x"), y("y"), z("z"), t("t");
    Func f("f_fuse");
    f(x, y, z) = x + y + z;
    EXPECT_COMPILE_ERROR(f.fuse(x, z, t), "f_fuse", "x", "z", "directly outside");
    EXPECT_COMPILE_ERROR(f.fuse(y, x, t), "f_fuse", "x", "directly outside");
    EXPECT_COMPILE_ERROR(f.fuse(x, y, z), "f_fuse", "z", "already used");
}

TEST(ScheduleErrors, DuplicateOrConflictingLoopKinds) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), t("t");
    Func f("f_kinds");
    f(x, y) = x + y;
    f.vectorize(x);
    EXPECT_COMPILE_ERROR(f.vectorize(x), "f_kinds", "x", "already vectorized");
    EXPECT_COMPILE_ERROR(f.parallel(x), "f_kinds", "x", "already vectorized");
    EXPECT_COMPILE_ERROR(f.unroll(x, {4, 1}), "f_kinds", "x", "already vectorized");
    EXPECT_COMPILE_ERROR(f.serial(x), "f_kinds", "x", "already vectorized");
    EXPECT_COMPILE_ERROR(f.split(x, xo, xi, 4), "f_kinds", "x", "already vectorized");
    EXPECT_COMPILE_ERROR(f.vectorize(x, 4), "f_kinds", "x", "already vectorized");
    EXPECT_COMPILE_ERROR(f.fuse(x, y, t), "f_kinds", "x", "already vectorized");
    f.unroll(y);
    EXPECT_COMPILE_ERROR(f.unroll(y), "f_kinds", "y", "already unrolled");
    Func g("g_kinds");
    g(x, y) = x + y;
    g.parallel(y);
    EXPECT_COMPILE_ERROR(g.parallel(y), "g_kinds", "y", "already parallel");
    EXPECT_NO_THROW(g.serial(x));  // x is serial already
}

TEST(ScheduleErrors, BadUnrollCascades) {
    Var x("x");
    Func f("f_cascade");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f.unroll(x, {4, 2}), "f_cascade", "x", "end with 1");
    EXPECT_COMPILE_ERROR(f.unroll(x, {4, 4, 1}), "f_cascade", "x", "decreasing");
    EXPECT_COMPILE_ERROR(f.unroll(x, {2, 4, 1}), "f_cascade", "x", "decreasing");
    EXPECT_COMPILE_ERROR(f.unroll(x, {0, 1}), "f_cascade", "x", "positive");
    EXPECT_COMPILE_ERROR(f.unroll(x, std::vector<int>{}), "f_cascade", "x");
}

TEST(ScheduleErrors, DependentRVarsCannotBeVectorizedOrParallel) {
    Var x("x");
    RDom r(0, 16, "r");
    RVar ro("ro"), ri("ri");
    Func sum("sum_dep"), scan("scan_dep"), back("back_dep"), in("in_dep");
    in(x) = x;
    sum(x) = 0;
    sum(x) += in(x + r);  // every iteration writes sum(x)
    EXPECT_COMPILE_ERROR(sum.update(0).vectorize(r), "sum_dep.update(0)", "r$x", "depend");
    EXPECT_COMPILE_ERROR(sum.update(0).parallel(r), "sum_dep.update(0)", "r$x", "depend");
    EXPECT_COMPILE_ERROR(sum.update(0).vectorize(r, 4), "sum_dep.update(0)", "r$x", "depend");
    EXPECT_COMPILE_ERROR(sum.update(0).parallel(r, 4), "sum_dep.update(0)", "r$x", "depend");
    // Loops split from a dependent RVar are dependent too.
    sum.update(0).split(r, ro, ri, 4);
    EXPECT_COMPILE_ERROR(sum.update(0).vectorize(ri), "sum_dep.update(0)", "ri", "r$x", "depend");
    EXPECT_NO_THROW(sum.update(0).vectorize(x));  // pure Vars are independent
    EXPECT_NO_THROW(sum.update(0).unroll(ri));    // unrolling keeps the order

    scan(x) = x;
    scan(r + 1) = scan(r) + 1;  // reads what the previous iteration wrote
    EXPECT_COMPILE_ERROR(scan.update(0).parallel(r), "scan_dep.update(0)", "r$x");
    back(x) = x;
    back(r) = back(r + 1) * 2;  // writes at r, reads at r + 1
    EXPECT_COMPILE_ERROR(back.update(0).vectorize(r), "back_dep.update(0)", "r$x");
}

TEST(ScheduleErrors, ReorderingDependentRVars) {
    Var x("x");
    RDom r(0, 4, 0, 4, "r");
    RVar ro("ro"), ri("ri");
    Func f("f_rvars");
    f(x) = 0;
    f(x) = f(x) * 2 + r.x + r.y;  // order-dependent
    EXPECT_COMPILE_ERROR(f.update(0).reorder(r.y, r.x), "f_rvars.update(0)", "r$x", "r$y", "change the result");
    // Moving r.x outside r.y through a pure Var changes their order too.
    EXPECT_COMPILE_ERROR(f.update(0).reorder(x, r.x), "f_rvars.update(0)", "r$x", "r$y");
    f.update(0).reorder(x, r.y);  // moving a pure Var is fine
    EXPECT_EQ(loops(f, 1), (Names{"r$x", "x", "r$y"}));
    Func g("g_rvars");
    g(x) = 0;
    g(x) = g(x) * 2 + r.x;
    g.update(0).split(r.x, ro, ri, 2);
    EXPECT_COMPILE_ERROR(g.update(0).reorder(ro, ri), "g_rvars.update(0)", "ri", "ro");
    // RVars that write distinct elements may be reordered.
    Func h("h_rvars");
    h(x) = 0;
    h(r.x + 4 * r.y) = r.x;
    EXPECT_COMPILE_ERROR(h.update(0).reorder(r.y, r.x), "h_rvars.update(0)");  // not bare arguments
    Func t("t_rvars");
    Var y("y");
    t(x, y) = 0;
    t(r.x, r.y) = r.x * r.y;
    EXPECT_NO_THROW(t.update(0).reorder(r.y, r.x));
    EXPECT_NO_THROW(t.update(0).vectorize(r.x).parallel(r.y));
}

TEST(ScheduleErrors, TailStrategiesWhereTheyAreNotAllowed) {
    Var x("x"), xo("xo"), xi("xi");
    RDom r(0, 10, "r");
    RVar ro("ro"), ri("ri");
    Func f("f_tail");
    f(x) = 0;
    f(x) += r;
    EXPECT_COMPILE_ERROR(f.update(0).split(r, ro, ri, 4, TailStrategy::RoundUp), "f_tail.update(0)", "r$x",
                         "RoundUp");
    EXPECT_COMPILE_ERROR(f.update(0).split(r, ro, ri, 4, TailStrategy::PredicateLoads), "f_tail.update(0)", "r$x",
                         "PredicateLoads");
    EXPECT_COMPILE_ERROR(f.update(0).split(r, ro, ri, 4, TailStrategy::PredicateStores), "f_tail.update(0)", "r$x",
                         "PredicateStores");
    EXPECT_COMPILE_ERROR(f.update(0).split(x, xo, xi, 4, TailStrategy::ShiftInwards), "f_tail.update(0)", "x",
                         "ShiftInwards");
    EXPECT_NO_THROW(f.update(0).split(r, ro, ri, 4, TailStrategy::GuardWithIf));
}

TEST(ScheduleErrors, SchedulingAnUndefinedFunc) {
    Var x("x");
    Func f("f_undef");
    EXPECT_COMPILE_ERROR(f.vectorize(x), "f_undef", "no definition");
    EXPECT_COMPILE_ERROR(f.fold_storage(x, 2), "f_undef", "x");
}

TEST(ScheduleErrors, ComputeWithLaterStage) {
    Var x("x");
    RDom r(0, 3, "r");
    Func f("f_with");
    f(x) = x;
    f(x) += r;
    EXPECT_COMPILE_ERROR(f.compute_with(f.update(0), x), "f_with", "earlier stage");
    EXPECT_COMPILE_ERROR(f.update(0).compute_with(LoopLevel::root()), "f_with.update(0)", "root");
    EXPECT_NO_THROW(f.update(0).compute_with(f, x));
}

TEST(ScheduleErrors, FoldStorageAndReorderStorage) {
    Var x("x"), y("y"), q("q");
    Func f("f_store");
    f(x, y) = x + y;
    EXPECT_COMPILE_ERROR(f.fold_storage(q, 2), "f_store", "q", "pure Vars");
    EXPECT_COMPILE_ERROR(f.fold_storage(y, 0), "f_store", "y", "positive");
    f.fold_storage(y, 2);
    EXPECT_COMPILE_ERROR(f.fold_storage(y, 4), "f_store", "y", "already folded");
    EXPECT_COMPILE_ERROR(f.reorder_storage(y, q), "f_store", "q");
    EXPECT_COMPILE_ERROR(f.reorder_storage(y, x, y), "f_store", "y", "twice");
}

// ---- Placement errors, found when the pipeline is checked before lowering -----

TEST(ScheduleErrors, ComputeAtItself) {
    Var x("x");
    Func f("f_self");
    f(x) = x;
    EXPECT_COMPILE_ERROR(f.compute_at(f, x), "f_self", "x", "its own");
    EXPECT_COMPILE_ERROR(f.store_at(f, x), "f_self", "x", "its own");
}

TEST(ScheduleErrors, ComputeAtALoopThatIsNotInTheConsumersNest) {
    Var x("x"), y("y");
    Func p("p_nest"), c1("c1_nest"), c2("c2_nest"), out("out_nest");
    p(x, y) = x * y;
    c1(x, y) = p(x, y) + 1;
    c2(x, y) = p(x, y) + 2;
    out(x, y) = c1(x, y) + c2(x, y);
    c1.compute_root();
    c2.compute_root();
    p.compute_at(c1, y);  // c2 uses p too, outside c1's loops
    EXPECT_COMPILE_ERROR(check(out), "p_nest", "c1_nest", "y", "c2_nest");
    p.compute_at(out, y);  // encloses both consumers? No: they are computed at root.
    EXPECT_COMPILE_ERROR(check(out), "p_nest", "out_nest", "c1_nest");
    p.compute_root();
    EXPECT_NO_THROW(check(out));
}

TEST(ScheduleErrors, ComputeAtTheWrongStage) {
    Var x("x"), y("y");
    RDom r(0, 3, "r");
    Func p("p_stage"), g("g_stage");
    p(x, y) = x + y;
    g(x, y) = p(x, y);  // uses p in its pure definition only
    g(x, y) += r;
    // Without a stage index the level names loop y of every stage of g, as
    // in Halide: p is computed in the pure definition's loop, where it is read.
    p.compute_at(g, y);
    EXPECT_NO_THROW(check(g));
    p.compute_at(LoopLevel(g, y, 1));  // the update's loop y: not where p is used
    EXPECT_COMPILE_ERROR(check(g), "p_stage", "g_stage", "y", "pure definition");
    p.compute_at(LoopLevel(g, y, 0));
    EXPECT_NO_THROW(check(g));
    p.compute_at(LoopLevel(g, y, 5));
    EXPECT_COMPILE_ERROR(check(g), "p_stage", "g_stage", "stages");
}

TEST(ScheduleErrors, ComputeAtAnUnknownOrSplitLoop) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), q("q");
    Func p("p_loop"), g("g_loop");
    p(x, y) = x + y;
    g(x, y) = p(x, y);
    g.split(x, xo, xi, 4);
    p.compute_at(g, q);
    EXPECT_COMPILE_ERROR(check(g), "p_loop", "g_loop", "q", "no loop");
    p.compute_at(g, x);  // x was split away
    EXPECT_COMPILE_ERROR(check(g), "p_loop", "g_loop", "x", "xi, xo, y");
    p.compute_at(g, xo);
    EXPECT_NO_THROW(check(g));
}

TEST(ScheduleErrors, ComputeAtAnInlinedOrForeignFunc) {
    Var x("x");
    Func p("p_inl"), mid("mid_inl"), g("g_inl"), other("other_inl");
    p(x) = x;
    mid(x) = p(x) + 1;  // inline
    g(x) = mid(x);
    other(x) = x;
    p.compute_at(mid, x);
    EXPECT_COMPILE_ERROR(check(g), "p_inl", "mid_inl", "inline");
    p.compute_at(other, x);
    EXPECT_COMPILE_ERROR(check(g), "p_inl", "other_inl", "not part of this pipeline");
    p.compute_at(g, x);  // g uses p through the inlined mid
    EXPECT_NO_THROW(check(g));
}

TEST(ScheduleErrors, OutputComputedAt) {
    Var x("x");
    Func f("f_out"), g("g_out");
    g(x) = x;
    f(x) = g(x);
    g.compute_root();
    f.compute_at(g, x);
    EXPECT_COMPILE_ERROR(check(f), "f_out", "output");
}

TEST(ScheduleErrors, StoredInsideItsComputeLevel) {
    Var x("x"), y("y");
    Func p("p_store"), g("g_store");
    p(x, y) = x + y;
    g(x, y) = p(x, y);
    p.compute_at(g, y).store_at(g, x);  // x is inside y
    EXPECT_COMPILE_ERROR(check(g), "p_store", "g_store", "x", "outside");
    p.store_root();
    EXPECT_NO_THROW(check(g));
    p.compute_root().store_at(g, y);
    EXPECT_COMPILE_ERROR(check(g), "p_store", "g_store", "y");
}

TEST(ScheduleErrors, ComputeWithChecks) {
    Var x("x"), y("y"), q("q");
    Func a("a_with"), b("b_with"), out("out_with");
    a(x, y) = x;
    b(x) = x;
    out(x, y) = a(x, y) + b(x);
    a.compute_root();
    b.compute_root();
    b.compute_with(a, q);
    EXPECT_COMPILE_ERROR(check(out), "b_with", "a_with", "q", "no loop");
    b.compute_with(a, x);  // fuses a's loops y and x; b has one loop
    EXPECT_COMPILE_ERROR(check(out), "b_with", "a_with", "fuses 2 loops");
    b.compute_with(a, y);
    EXPECT_NO_THROW(check(out));
    b.compute_at(out, y);
    EXPECT_COMPILE_ERROR(check(out), "b_with", "a_with", "same level");
}

TEST(ScheduleErrors, ErrorsSurfaceFromRealize) {
    Var x("x"), q("q");
    Func p("p_real"), g("g_real");
    p(x) = x;
    g(x) = p(x);
    p.compute_at(g, q);
    EXPECT_COMPILE_ERROR(g.realize({4}), "p_real", "g_real", "q");
    EXPECT_COMPILE_ERROR(g.print_loop_nest(), "p_real", "g_real", "q");
}

}  // namespace

namespace Halide = loom;

namespace {

// A schedule written for Halide compiles unchanged against Loom.
TEST(ScheduleApi, HalideSpelling) {
    Halide::Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), tile_index("tile_index");
    Halide::RDom r(0, 8, "r");
    Halide::RVar ro("ro"), ri("ri");
    Halide::Func producer("producer"), consumer("consumer"), total("total");
    producer(x, y) = x + y;
    consumer(x, y) = producer(x, y) * 2;
    total(x) = 0;
    total(x) += consumer(x, r);
    consumer.tile(x, y, xo, yo, xi, yi, 64, 64, Halide::TailStrategy::GuardWithIf)
        .fuse(xo, yo, tile_index)
        .parallel(tile_index)
        .vectorize(xi, 8)
        .unroll(yi, 2);
    producer.compute_at(consumer, tile_index).store_at(consumer, tile_index);
    consumer.compute_root();
    total.update(0).split(r, ro, ri, 4).unroll(ri);
    total.update().vectorize(x, 8, Halide::TailStrategy::GuardWithIf);
    producer.compute_at(Halide::LoopLevel(consumer, tile_index));
    EXPECT_EQ(loops(consumer), (Names{"xi_vi", "xi", "yi_ui", "yi", "tile_index"}));
    EXPECT_NO_THROW(check(total));
}

}  // namespace
