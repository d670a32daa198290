#ifndef LOOM_TEST_E2E_E2E_TEST_H
#define LOOM_TEST_E2E_E2E_TEST_H

// End-to-end tests: each pipeline is realized through the public API and
// compared with a plain C++ loop. Every test runs three times: through the
// LLVM JIT, through the reference interpreter of the lowered IR, and on
// Vulkan in the GPU conformance mode (lang/Backend.h: every loop nest that
// admits it runs on the GPU; CTest labels those runs `vulkan`). A Vulkan run
// whose pipelines all stayed on the CPU prints why.
//
//     class MyFeature : public loom_test::BackendTest {};
//     TEST_P(MyFeature, Works) { ... }
//     LOOM_INSTANTIATE_BACKENDS(MyFeature);

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "common/BackendTest.h"
#include "lang/Backend.h"
#include "loom/Loom.h"
#include "loom/runtime/loom_runtime.h"

namespace loom_test {

/** Calls fn(x, y, ...) for every point of the buffer and expects
 * b(x, y, ...) == fn(x, y, ...). Stops after a few mismatches. */
template<typename T, typename F>
void expect_buffer_eq(const loom::Buffer<T> &b, F fn) {
    int failures = 0;
    b.for_each_element([&](const std::vector<int> &pos) {
        if (failures >= 5) return;
        T expected = fn(pos);
        T actual = b(pos);
        bool same = expected == actual || (expected != expected && actual != actual);  // NaN == NaN here
        if (!same) {
            failures++;
            std::string where;
            for (int c : pos) where += (where.empty() ? "" : ", ") + std::to_string(c);
            ADD_FAILURE() << "at (" << where << "): expected " << +expected << ", got " << +actual;
        }
    });
}

/** f's lowered statement (compile_to_lowered_stmt) as text. The process id
 * keeps the backend variants of a test, which CTest may run at the same
 * time, from sharing the file. */
inline std::string lowered_stmt(loom::Func &f, const std::string &file_name) {
    std::string file = ::testing::TempDir() + std::to_string(getpid()) + "_" + file_name;
    f.compile_to_lowered_stmt(file);
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(file.c_str());
    return text.str();
}

inline bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

/** The message of the CompileError fn throws, or "<no error>". */
template<typename F>
std::string compile_error_message(F fn) {
    try {
        fn();
    } catch (const loom::CompileError &e) {
        return e.what();
    }
    return "<no error>";
}

/** The message of the RuntimeError fn throws, or "<no error>". */
template<typename F>
std::string runtime_error_message(F fn) {
    try {
        fn();
    } catch (const loom::RuntimeError &e) {
        return e.what();
    }
    return "<no error>";
}

}  // namespace loom_test

#define LOOM_INSTANTIATE_BACKENDS(Fixture)                                                                   \
    INSTANTIATE_TEST_SUITE_P(Backends, Fixture,                                                             \
                             ::testing::Values(loom::internal::Backend::LLVM,                                \
                                               loom::internal::Backend::Interpreter,                         \
                                               loom::internal::Backend::Vulkan),                             \
                             loom_test::backend_test_name)

#endif
