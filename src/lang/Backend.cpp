#include "lang/Backend.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "ir/Function.h"

namespace loom {
namespace internal {

namespace {

Backend initial_backend() {
    const char *env = std::getenv("LOOM_JIT_BACKEND");
    if (env && std::string(env) == "interpreter") return Backend::Interpreter;
    return Backend::LLVM;
}

std::atomic<Backend> &backend_setting() {
    static std::atomic<Backend> backend{initial_backend()};
    return backend;
}

std::atomic<int> compile_count{0};
std::atomic<uint64_t> generation{1};

}  // namespace

void set_jit_backend(Backend backend) { backend_setting() = backend; }

Backend jit_backend() { return backend_setting(); }

const char *backend_name(Backend backend) { return backend == Backend::LLVM ? "llvm" : "interpreter"; }

int jit_compile_count() { return compile_count; }

void count_jit_compile() { compile_count++; }

uint64_t definition_generation() { return generation; }

void mark_changed(FunctionContents &f) { f.generation = ++generation; }

}  // namespace internal
}  // namespace loom
