// Loop nests written directly in the IR, and a check of the interval a
// bounds query returns, for tests of bounds over loops (test/ir).
#ifndef LOOM_TEST_COMMON_LOOP_NEST_BUILDERS_H
#define LOOM_TEST_COMMON_LOOP_NEST_BUILDERS_H

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "ir/Interval.h"
#include "ir/Simplify.h"

namespace loom_test {

/** An Int(32) variable. */
inline loom::Expr var(const std::string &name) { return loom::internal::Variable::make(loom::Int(32), name); }

/** for name in [min, min + extent): body, serial. */
inline loom::Stmt loop(const std::string &name, loom::Expr min, loom::Expr extent, loom::Stmt body) {
    return loom::internal::For::make(name, std::move(min), std::move(extent), loom::internal::ForType::Serial,
                                     loom::internal::DeviceAPI::None, std::move(body));
}

/** A read of the Int(32) input buffer "in" at args. */
inline loom::Stmt read_input(std::vector<loom::Expr> args) {
    using namespace loom::internal;
    Parameter p(loom::Int(32), true, (int)args.size(), "in");
    return Evaluate::make(Call::make(loom::Int(32), "in", args, CallType::Image, FunctionPtr(), 0, p));
}

/** Whether the interval simplifies to exactly [lo, hi]. */
inline ::testing::AssertionResult interval_is(const loom::internal::Interval &i, int lo, int hi) {
    using namespace loom::internal;
    auto a = i.min.defined() ? as_const_int(simplify(i.min)) : std::nullopt;
    auto b = i.max.defined() ? as_const_int(simplify(i.max)) : std::nullopt;
    if (a && b && *a == lo && *b == hi) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got [" << (i.min.defined() ? to_string(i.min) : "-inf") << ", "
                                         << (i.max.defined() ? to_string(i.max) : "+inf") << "], want [" << lo << ", "
                                         << hi << "]";
}

}  // namespace loom_test

#endif
