// A test run once per back end (GoogleTest value parameter): SetUp makes
// the parameter the back end realize() uses and TearDown restores the one
// before. A Vulkan run skips where no Vulkan driver is installed, and one
// whose pipelines all stayed on the CPU prints why. test/e2e runs every
// test on all three back ends (E2ETest.h); the fuzz regressions on LLVM and
// the interpreter.
#ifndef LOOM_TEST_COMMON_BACKEND_TEST_H
#define LOOM_TEST_COMMON_BACKEND_TEST_H

#include <gtest/gtest.h>

#include <cstdio>
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

}  // namespace loom_test

#endif
