#include "lang/Backend.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "ir/Function.h"

namespace loom {
namespace internal {

namespace {

Backend initial_backend() {
    const char *env = std::getenv("LOOM_JIT_BACKEND");
    if (env && std::string(env) == "interpreter") return Backend::Interpreter;
    if (env && std::string(env) == "vulkan") return Backend::Vulkan;
    return Backend::LLVM;
}

std::atomic<Backend> &backend_setting() {
    static std::atomic<Backend> backend{initial_backend()};
    return backend;
}

std::atomic<int> compile_count{0};
std::atomic<int> gpu_pipelines{0};
std::mutex fallback_mutex;
std::string fallback_reason;
std::atomic<uint64_t> generation{1};

}  // namespace

void set_jit_backend(Backend backend) { backend_setting() = backend; }

Backend jit_backend() { return backend_setting(); }

const char *backend_name(Backend backend) {
    switch (backend) {
    case Backend::LLVM: return "llvm";
    case Backend::Interpreter: return "interpreter";
    case Backend::Vulkan: return "vulkan";
    }
    return "?";
}

int gpu_kernel_pipeline_count() { return gpu_pipelines; }

void count_gpu_kernel_pipeline() { gpu_pipelines++; }

std::string gpu_fallback_reason() {
    std::lock_guard<std::mutex> lock(fallback_mutex);
    return fallback_reason;
}

void set_gpu_fallback_reason(const std::string &reason) {
    std::lock_guard<std::mutex> lock(fallback_mutex);
    fallback_reason = reason;
}

int jit_compile_count() { return compile_count; }

void count_jit_compile() { compile_count++; }

uint64_t definition_generation() { return generation; }

void mark_changed(FunctionContents &f) { f.generation = ++generation; }

}  // namespace internal
}  // namespace loom
