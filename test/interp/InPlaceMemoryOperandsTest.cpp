// A scalar Load's index, a scalar Store's value and index, a LetStmt's
// value, an IfThenElse's condition and a scalar Cast's operand are read in
// place when they are a variable, a constant or (an index or a let) the sum
// of two of those (ir/interpreter/CompileMemory.cpp, CompileStmt.cpp,
// CompileConvert.cpp): every form against plain C++, with sums that wrap to
// their type.

#include <gtest/gtest.h>

#include "InterpTestUtil.h"
#include "loom/Error.h"

namespace loom {
namespace internal {
namespace {

using namespace interp_test;

Expr i8(int v) { return IntImm::make(Int(8), v); }

// out[k] = in[index_k] for every index form, then out[index_k] = value for
// every value form: a = -100 and b = -100 are Int(8), so a + b wraps to 56.
TEST(InterpInPlaceMemoryOperands, IndexAndValueFormsMatchPlainCpp) {
    Expr a = var("a", Int(8)), b = var("b", Int(8)), c = var("c");
    // Int(8) indices: a + b = 56 (wrapped), a + 110 = 10, 120 + b = 20, a*1 + b (a computed node).
    const std::vector<Expr> indices = {c, i8(3), Add::make(a, b), Add::make(a, i8(110)), Add::make(i8(120), b),
                                       Add::make(Mul::make(a, i8(1)), b), Add::make(c, i32(-1))};
    const std::vector<int> index_values = {7, 3, 56, 10, 20, 56, 6};

    std::vector<Stmt> stores;
    for (size_t k = 0; k < indices.size(); k++) {
        stores.push_back(Store::make("out", Load::make(Int(32), "in", indices[k]), i32((int)k)));
    }
    // Values: a variable (c), a constant, a computed value; the index forms as above.
    const std::vector<Expr> values = {c, i32(-9), Add::make(c, i32(1000))};
    for (size_t v = 0; v < values.size(); v++) {
        for (size_t k = 0; k < indices.size(); k++) {
            stores.push_back(Store::make("out2", values[v], indices[k]));
        }
        // The last value written at each index is from this row: copy it out.
        for (size_t k = 0; k < indices.size(); k++) {
            Expr offset = i32(64 + (int)(v * indices.size() + k));
            stores.push_back(Store::make("out", Load::make(Int(32), "out2", indices[k]), offset));
        }
    }
    LoweredFunc func;
    func.name = "in_place_memory";
    func.args = {scalar_arg("a", Int(8)), scalar_arg("b", Int(8)), scalar_arg("c", Int(32)),
                 buffer_arg("in", Int(32), 1, false), buffer_arg("out", Int(32), 1, true),
                 buffer_arg("out2", Int(32), 1, true)};
    func.body = with_host("in", with_host("out", with_host("out2", Block::make(stores))));

    TestBuffer in(Int(32), {0}, {64}), out(Int(32), {0}, {96}), out2(Int(32), {0}, {64});
    for (int j = 0; j < 64; j++) in.at<int32_t>({j}) = j * 13 - 200;
    int8_t av = -100, bv = -100;
    int32_t cv = 7;
    void *args[] = {&av, &bv, &cv, &in.buf, &out.buf, &out2.buf};
    ASSERT_EQ(interpret(func, args), 0);

    for (size_t k = 0; k < indices.size(); k++) {
        EXPECT_EQ(out.at<int32_t>({(int)k}), index_values[k] * 13 - 200) << indices[k];
    }
    const std::vector<int32_t> value_results = {7, -9, 1007};
    for (size_t v = 0; v < values.size(); v++) {
        for (size_t k = 0; k < indices.size(); k++) {
            EXPECT_EQ(out.at<int32_t>({64 + (int)(v * indices.size() + k)}), value_results[v])
                << values[v] << " at " << indices[k];
        }
    }
}

// let t = <form> in if (flag) { out[k] = float32(t) } else { out[k] = float32(-t) }
TEST(InterpInPlaceMemoryOperands, LetValuesIfConditionsAndCastsMatchPlainCpp) {
    Expr a = var("a", Int(8)), b = var("b", Int(8)), flag = var("flag", Bool());
    // a + b = -200 wraps to 56; a + 110 = 10; a = -100; 7.
    const std::vector<Expr> values = {Add::make(a, b), Add::make(a, i8(110)), a, i8(7), Mul::make(a, i8(2))};
    const std::vector<int> expected = {56, 10, -100, 7, 56};
    std::vector<Stmt> stores;
    for (size_t k = 0; k < values.size(); k++) {
        const std::string t = "t" + std::to_string(k);
        Expr tv = var(t, Int(8));
        Stmt then_case = Store::make("out", Cast::make(Float(32), tv), i32((int)k));
        Stmt else_case = Store::make("out", Cast::make(Float(32), Sub::make(i8(0), tv)), i32((int)k));
        stores.push_back(LetStmt::make(t, values[k], IfThenElse::make(flag, then_case, else_case)));
    }
    LoweredFunc func;
    func.name = "in_place_lets";
    func.args = {scalar_arg("a", Int(8)), scalar_arg("b", Int(8)), scalar_arg("flag", Bool()),
                 buffer_arg("out", Float(32), 1, true)};
    func.body = with_host("out", Block::make(stores));
    for (bool flag_value : {true, false}) {
        TestBuffer out(Float(32), {0}, {(int)values.size()});
        int8_t av = -100, bv = -100;
        uint8_t fv = flag_value;
        void *args[] = {&av, &bv, &fv, &out.buf};
        ASSERT_EQ(interpret(func, args), 0);
        for (size_t k = 0; k < values.size(); k++) {
            const float want = flag_value ? (float)(int8_t)expected[k] : (float)(int8_t)(0 - expected[k]);
            EXPECT_EQ(out.at<float>({(int)k}), want) << values[k] << " flag " << flag_value;
        }
    }
}

// An index read in place is still checked against its allocation.
TEST(InterpInPlaceMemoryOperands, OutOfRangeIndicesAreStillCaught) {
    Expr c = var("c");
    for (Expr index : {c, Add::make(c, c), Add::make(c, i32(40)), i32(70)}) {
        LoweredFunc func;
        func.name = "out_of_range";
        func.args = {scalar_arg("c", Int(32)), buffer_arg("out", Int(32), 1, true)};
        func.body = with_host("out", Store::make("out", Load::make(Int(32), "out", index), i32(0)));
        TestBuffer out(Int(32), {0}, {64});
        int32_t cv = 100;
        void *args[] = {&cv, &out.buf};
        EXPECT_THROW(interpret(func, args), InternalError) << index;
    }
}

}  // namespace
}  // namespace internal
}  // namespace loom
