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

#include "lang/Backend.h"
#include "loom/Loom.h"
#include "loom/runtime/loom_runtime.h"

namespace loom_test {

class BackendTest : public ::testing::TestWithParam<loom::internal::Backend> {
protected:
    void SetUp() override {
        previous_ = loom::internal::jit_backend();
        if (GetParam() == loom::internal::Backend::Vulkan) {
            loom_vulkan_device_info_t info;
            // Only a machine without any Vulkan driver skips: CI installs
            // lavapipe (scripts/setup.sh), so these runs happen there.
            if (loom_vulkan_get_device_info(nullptr, &info) != 0) {
                GTEST_SKIP() << "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";
            }
            gpu_pipelines_before_ = loom::internal::gpu_kernel_pipeline_count();
            loom::internal::set_gpu_fallback_reason("");
        }
        loom::internal::set_jit_backend(GetParam());
    }
    void TearDown() override {
        loom::internal::set_jit_backend(previous_);
        if (GetParam() == loom::internal::Backend::Vulkan &&
            loom::internal::gpu_kernel_pipeline_count() == gpu_pipelines_before_) {
            std::printf("[ cpu only ] no pipeline of this test ran on the GPU: %s\n",
                        loom::internal::gpu_fallback_reason().c_str());
        }
    }

private:
    loom::internal::Backend previous_ = loom::internal::Backend::LLVM;
    int gpu_pipelines_before_ = 0;
};

inline std::string backend_test_name(const ::testing::TestParamInfo<loom::internal::Backend> &info) {
    return loom::internal::backend_name(info.param);
}

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
