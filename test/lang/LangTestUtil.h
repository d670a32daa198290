#ifndef LOOM_TEST_LANG_TEST_UTIL_H
#define LOOM_TEST_LANG_TEST_UTIL_H

// Helpers for front-end tests: run a piece of code and check that it throws
// a CompileError whose message names the things involved.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "loom/Error.h"

namespace loom_test {

/** The CompileError message fn throws, or "<no error>". */
inline std::string compile_error_message(const std::function<void()> &fn) {
    try {
        fn();
    } catch (const loom::CompileError &e) {
        return e.what();
    }
    return "<no error>";
}

}  // namespace loom_test

/** Expects stmt to throw CompileError mentioning every string in the list. */
#define EXPECT_COMPILE_ERROR(stmt, ...)                                                         \
    do {                                                                                        \
        std::string loom_msg_ = loom_test::compile_error_message([&] { stmt; });                \
        EXPECT_NE(loom_msg_, "<no error>") << "expected a CompileError from: " #stmt;           \
        for (const std::string &loom_part_ : std::vector<std::string>{__VA_ARGS__}) {           \
            EXPECT_NE(loom_msg_.find(loom_part_), std::string::npos)                            \
                << "message \"" << loom_msg_ << "\" does not mention \"" << loom_part_ << "\""; \
        }                                                                                       \
    } while (0)

#endif
