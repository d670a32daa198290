// The passes that tidy the loop nest after loop shaping: hoisting loop
// invariants (values and ifs), trimming no-ops, and shrinking allocations
// (dead ones removed, memory freed after its last use). Each pass on a
// statement built by hand, then through lower() on pipelines whose results
// the JIT and the interpreter check.
#include <gtest/gtest.h>

#include <sstream>

#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "lower/HoistLoopInvariants.h"
#include "lower/Lower.h"
#include "lower/LoopShapingUtil.h"
#include "lower/ShrinkAllocations.h"
#include "lower/TrimNoOps.h"
#include "loom/IROperator.h"
#include "loom/runtime/Buffer.h"

using namespace loom;
using namespace loom::internal;

namespace {

using loom_test::call;
using loom_test::make_func;
using loom_test::v;

std::string text(const Stmt &s) {
    std::ostringstream os;
    os << s;
    return os.str();
}

size_t at(const std::string &haystack, const std::string &needle) { return haystack.find(needle); }

Expr load(const std::string &buffer, const Expr &index) { return Load::make(Int(32), buffer, index); }

Stmt loop(const std::string &var, const Expr &extent, const Stmt &body, ForType type = ForType::Serial,
          DeviceAPI api = DeviceAPI::None) {
    return For::make(var, Expr(0), extent, type, api, body);
}

// ---- hoist_loop_invariants ------------------------------------------------

TEST(HoistLoopInvariants, InvariantLetsLeaveTheLoopAndVaryingOnesStay) {
    // for x { let a = y * 3 + 1; let b = a + x; let c = in[0]; out[x] = b + c }
    Stmt body = Store::make("out", v("b") + v("c"), v("x"));
    body = LetStmt::make("c", load("in", Expr(0)), body);  // memory: stays
    body = LetStmt::make("b", v("a") + v("x"), body);       // the loop variable: stays
    body = LetStmt::make("a", v("y") * 3 + 1, body);        // invariant: leaves
    std::string s = text(hoist_loop_invariants(loop("x", v("n"), body)));
    ASSERT_NE(at(s, "let a"), std::string::npos) << s;
    EXPECT_LT(at(s, "let a"), at(s, "for (x")) << s;
    EXPECT_GT(at(s, "let b"), at(s, "for (x")) << s;
    EXPECT_GT(at(s, "let c"), at(s, "for (x")) << s;
}

TEST(HoistLoopInvariants, ALetReadingAKeptLetStays) {
    Stmt body = Store::make("out", v("e"), v("x"));
    body = LetStmt::make("e", v("d") * 2, body);  // reads d, which varies
    body = LetStmt::make("d", v("x") + 1, body);
    std::string s = text(hoist_loop_invariants(loop("x", v("n"), body)));
    EXPECT_LT(at(s, "for (x"), at(s, "let d")) << s;
    EXPECT_LT(at(s, "for (x"), at(s, "let e")) << s;
}

TEST(HoistLoopInvariants, AnInvariantIfIsUnswitched) {
    // for x { if (p > 0) out[x] = 1 else out[x] = 2 } -> if (p > 0) { for x ... } else { for x ... }
    Stmt body = IfThenElse::make(v("p") > 0, Store::make("out", Expr(1), v("x")), Store::make("out", Expr(2), v("x")));
    Stmt result = hoist_loop_invariants(loop("x", v("n"), body));
    const IfThenElse *branch = result.as<IfThenElse>();
    ASSERT_NE(branch, nullptr) << result;
    EXPECT_NE(branch->then_case.as<For>(), nullptr) << result;
    EXPECT_NE(branch->else_case.as<For>(), nullptr) << result;
    // A condition on the loop variable stays inside.
    Stmt varying = IfThenElse::make(v("x") > 3, Store::make("out", Expr(1), v("x")));
    EXPECT_NE(hoist_loop_invariants(loop("x", v("n"), varying)).as<For>(), nullptr);
}

TEST(HoistLoopInvariants, GPULoopsKeepTheirValues) {
    Stmt body = LetStmt::make("a", v("y") * 3, Store::make("out", v("a"), v("x")));
    Stmt gpu = loop("x", v("n"), body, ForType::GPUThread, DeviceAPI::Vulkan);
    EXPECT_NE(hoist_loop_invariants(gpu).as<For>(), nullptr);
}

TEST(HoistLoopInvariants, ALetNamedLikeTheLoopBoundsStays) {
    // The loop's extent reads n; a let of the body that redefines n must not
    // move around the loop.
    Stmt body = LetStmt::make("n", Expr(3), Store::make("out", v("n"), v("x")));
    EXPECT_NE(hoist_loop_invariants(loop("x", v("n"), body)).as<For>(), nullptr);
}

// ---- trim_no_ops ------------------------------------------------------------

TEST(TrimNoOps, HusksOfStatementsGo) {
    Stmt store = Store::make("out", Expr(1), v("x"));
    Stmt s = Block::make({Evaluate::make(Expr(0)),
                          loop("y", v("n"), Evaluate::make(Expr(0))),              // empty body
                          loop("z", Expr(0), store),                               // no iteration
                          IfThenElse::make(v("p") > 0, Evaluate::make(Expr(0))),   // empty branch
                          IfThenElse::make(const_false(), store),                  // never
                          Allocate::make("t", Int(32), MemoryType::Heap, {Expr(4)}, Expr(), Evaluate::make(Expr(0))),
                          loop("x", v("n"), store)});
    Stmt result = trim_no_ops(s);
    const For *only = result.as<For>();
    ASSERT_NE(only, nullptr) << result;
    EXPECT_EQ(only->name, "x");
    EXPECT_TRUE(is_no_op(trim_no_ops(loop("y", v("n"), Evaluate::make(Expr(0))))));
    // An else with work and an empty then: the condition is negated.
    Stmt negated = trim_no_ops(IfThenElse::make(v("p") > 0, Evaluate::make(Expr(0)), store));
    ASSERT_NE(negated.as<IfThenElse>(), nullptr);
    EXPECT_NE(text(negated).find("!"), std::string::npos) << negated;
}

// ---- shrink_allocations -----------------------------------------------------

TEST(ShrinkAllocations, FreedAfterTheLastUse) {
    // allocate f { f[0] = 1; g[0] = f[0]; h[0] = g[0] } -> free f before h's store
    Stmt body = Block::make({Store::make("f", Expr(1), Expr(0)), Store::make("g", load("f", Expr(0)), Expr(0)),
                             Store::make("h", load("g", Expr(0)), Expr(0))});
    std::string s = text(shrink_allocations(Allocate::make("f", Int(32), MemoryType::Heap, {Expr(1)}, Expr(), body)));
    ASSERT_NE(at(s, "free f"), std::string::npos) << s;
    EXPECT_LT(at(s, "g[0] = "), at(s, "free f")) << s;
    EXPECT_LT(at(s, "free f"), at(s, "h[0] = ")) << s;
}

TEST(ShrinkAllocations, StackAllocationsAndGPUUsesKeepTheirScope) {
    Stmt body = Block::make({Store::make("f", Expr(1), Expr(0)), Store::make("g", load("f", Expr(0)), Expr(0)),
                             Store::make("h", Expr(2), Expr(0))});
    std::string stack =
        text(shrink_allocations(Allocate::make("f", Int(32), MemoryType::Stack, {Expr(1)}, Expr(), body)));
    EXPECT_EQ(at(stack, "free f"), std::string::npos) << stack;
    Stmt gpu = Block::make({loop("x", Expr(4), Store::make("f", Expr(1), v("x")), ForType::GPUThread, DeviceAPI::Vulkan),
                            Store::make("g", load("f", Expr(0)), Expr(0)), Store::make("h", Expr(2), Expr(0))});
    std::string on_gpu =
        text(shrink_allocations(Allocate::make("f", Int(32), MemoryType::Heap, {Expr(4)}, Expr(), gpu)));
    EXPECT_EQ(at(on_gpu, "free f"), std::string::npos) << on_gpu;
}

TEST(ShrinkAllocations, AnAllocationNothingReadsIsRemoved) {
    Stmt body = Block::make(Store::make("t", Expr(7), Expr(0)), Store::make("out", Expr(1), Expr(0)));
    std::string s = text(shrink_allocations(Allocate::make("t", Int(32), MemoryType::Heap, {Expr(1)}, Expr(), body)));
    EXPECT_EQ(at(s, "allocate t"), std::string::npos) << s;
    EXPECT_EQ(at(s, "= 7"), std::string::npos) << s;
    EXPECT_NE(at(s, "out[0] = 1"), std::string::npos) << s;
    // Its pointer passed on counts as a read.
    Stmt passed = Block::make(Store::make("t", Expr(7), Expr(0)),
                              Evaluate::make(Call::make(Int(32), "consume", {Variable::make(Handle(), "t")},
                                                        CallType::Extern)));
    std::string kept = text(shrink_allocations(Allocate::make("t", Int(32), MemoryType::Heap, {Expr(1)}, Expr(), passed)));
    EXPECT_NE(at(kept, "allocate t"), std::string::npos) << kept;
    // A stored value with side effects keeps it too.
    Stmt effects = Store::make("t", Call::make(Int(32), "side_effect", {}, CallType::Extern), Expr(0));
    std::string effectful =
        text(shrink_allocations(Allocate::make("t", Int(32), MemoryType::Heap, {Expr(1)}, Expr(), effects)));
    EXPECT_NE(at(effectful, "allocate t"), std::string::npos) << effectful;
}

// ---- through lower() --------------------------------------------------------

TEST(TidyPasses, AProducerIsFreedBeforeTheLastStageRuns) {
    // f -> g -> h, all at the root: f's memory goes back once g is computed.
    FunctionPtr f = make_func("f", {"x"}, v("x") * 3);
    FunctionPtr g = make_func("g", {"x"}, call(f, {v("x")}) + call(f, {v("x") + 1}));
    FunctionPtr h = make_func("h", {"x"}, call(g, {v("x")}) * 2 + call(g, {v("x") + 1}));
    for (const FunctionPtr &p : {f, g}) {
        p.get()->schedule.compute_level = LoopLevel::root();
        p.get()->schedule.store_level = LoopLevel::root();
    }
    LoweredFunc lf = lower({h}, "pipeline", Target());
    const std::string s = text(lf.body);
    ASSERT_NE(at(s, "free f"), std::string::npos) << s;
    EXPECT_LT(at(s, "free f"), at(s, "produce h")) << s;
    Runtime::Buffer<int> out(100000);  // big enough for the heap
    ASSERT_EQ(shaping_test::run(lf, {out.raw_buffer()}), 0);
    for (int x = 0; x < 100000; x++) {
        const int g0 = 3 * x + 3 * (x + 1), g1 = 3 * (x + 1) + 3 * (x + 2);
        ASSERT_EQ(out(x), g0 * 2 + g1) << x;
    }
}

}  // namespace
