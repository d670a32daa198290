// The text form of expressions and statements.
#include <gtest/gtest.h>

#include <sstream>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "loom/IROperator.h"

using namespace loom;
using namespace loom::internal;

namespace {

Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }

std::string str(const Expr &e) {
    std::ostringstream os;
    os << e;  // the public operator<<
    return os.str();
}

}  // namespace

TEST(IRPrinterTest, Constants) {
    EXPECT_EQ(str(Expr(3)), "3");
    EXPECT_EQ(str(Expr(-3)), "-3");
    EXPECT_EQ(str(Expr((uint8_t)3)), "(uint8)3");
    EXPECT_EQ(str(Expr((int64_t)5)), "(int64)5");
    EXPECT_EQ(str(Expr(1.5f)), "1.5f");
    EXPECT_EQ(str(Expr(2.0f)), "2.0f");
    EXPECT_EQ(str(Expr(0.1f)), "0.1f");
    EXPECT_EQ(str(Expr(1.5)), "(float64)1.5");
    EXPECT_EQ(str(UIntImm::make(Bool(), 1)), "true");
    EXPECT_EQ(str(StringImm::make("a \"b\"")), "\"a \\\"b\\\"\"");
    EXPECT_EQ(str(Expr()), "(undefined)");
}

TEST(IRPrinterTest, InfixWithNeededParentheses) {
    Expr x = var("x"), y = var("y"), z = var("z");
    EXPECT_EQ(str((x + 1) * 2), "(x + 1)*2");
    EXPECT_EQ(str(x + 1 * y), "x + 1*y");
    EXPECT_EQ(str(x - (y - z)), "x - (y - z)");
    EXPECT_EQ(str((x - y) - z), "x - y - z");
    EXPECT_EQ(str(x / (y * z)), "x/(y*z)");
    EXPECT_EQ(str(x % 3), "x%3");
    EXPECT_EQ(str(x < 3 && y > 2), "x < 3 && y > 2");
    EXPECT_EQ(str((x < 3) == (y < 2)), "(x < 3) == (y < 2)");
    EXPECT_EQ(str(!(x < 3) || y >= z), "!(x < 3) || y >= z");
}

TEST(IRPrinterTest, CallsCastsAndOthers) {
    Expr x = var("x"), u = var("u", UInt(8));
    EXPECT_EQ(str(cast<int>(u)), "int32(u)");
    EXPECT_EQ(str(min(x, 3)), "min(x, 3)");
    EXPECT_EQ(str(max(x, var("y"))), "max(x, y)");
    EXPECT_EQ(str(select(x > 0, x, 0)), "select(x > 0, x, 0)");
    EXPECT_EQ(str(sin(var("f", Float(32)))), "sinf(f)");
    EXPECT_EQ(str(Let::make("a", Expr(1), var("a") + x)), "(let a = 1 in a + x)");
    EXPECT_EQ(str(Load::make(Float(32), "buf", x + 1)), "buf[x + 1]");
    EXPECT_EQ(str(Ramp::make(x, Expr(1), 4)), "ramp(x, 1, 4)");
    EXPECT_EQ(str(Broadcast::make(x, 4)), "broadcast(x, 4)");
    EXPECT_EQ(str(u + 1), "u + (uint8)1");
    EXPECT_EQ(str(var("f", Float(32)) * 0.5), "f*0.5f");
}

TEST(IRPrinterTest, LoopNest) {
    Expr x = var("f.s0.x"), y = var("f.s0.y");
    Stmt provide = Provide::make("f", {x + y}, {x, y});
    Stmt inner = For::make("f.s0.x", Expr(0), var("w"), ForType::Vectorized, DeviceAPI::None, provide);
    Stmt outer = For::make("f.s0.y", Expr(0), var("h"), ForType::Parallel, DeviceAPI::None, inner);
    Stmt realize = Realize::make("f", {Int(32)}, MemoryType::Auto, {Range(0, var("w")), Range(0, var("h"))},
                                 Expr(), ProducerConsumer::make_produce("f", outer));
    std::string expected =
        "realize f([0, w], [0, h]) {\n"
        "  produce f {\n"
        "    parallel for (f.s0.y, 0, h) {\n"
        "      vectorized for (f.s0.x, 0, w) {\n"
        "        f(f.s0.x, f.s0.y) = f.s0.x + f.s0.y\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n";
    EXPECT_EQ(to_string(realize), expected);
}

TEST(IRPrinterTest, LoweredStatements) {
    Expr i = var("i");
    Stmt store = Store::make("buf", Load::make(Int(32), "tmp", i) * 2, i);
    Stmt loop = For::make("i", Expr(0), Expr(8), ForType::Unrolled, DeviceAPI::None, store);
    Stmt alloc = Allocate::make("tmp", Int(32), MemoryType::Auto, {var("a"), var("b")}, Expr(),
                                Block::make(loop, Free::make("tmp")));
    Stmt check = AssertStmt::make(var("a") > 0, Call::make(Int(32), "error", {Expr(-1)}, CallType::Intrinsic));
    Stmt branch = IfThenElse::make(var("a") > 4, Evaluate::make(Expr(0)), Evaluate::make(Expr(1)));
    Stmt s = LetStmt::make("a", Expr(3), Block::make({check, alloc, branch}));
    std::string expected =
        "let a = 3\n"
        "assert(a > 0, error(-1))\n"
        "allocate tmp[int32 * a * b]\n"
        "unrolled for (i, 0, 8) {\n"
        "  buf[i] = tmp[i]*2\n"
        "}\n"
        "free tmp\n"
        "if (a > 4) {\n"
        "  0\n"
        "} else {\n"
        "  1\n"
        "}\n";
    EXPECT_EQ(to_string(s), expected);
    std::ostringstream os;
    os << s;
    EXPECT_EQ(os.str(), expected);
}

TEST(IRPrinterTest, ForTypeAndRange) {
    std::ostringstream os;
    os << ForType::Parallel << " " << Range(Expr(0), var("n"));
    EXPECT_EQ(os.str(), "parallel [0, n]");
}
