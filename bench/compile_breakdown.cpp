// bench_pipelines --loom_compile_breakdown: where Loom's JIT compile time
// goes, per workload. Each phase of Func::compile_jit() is run and timed on
// its own (medians of a few runs):
//
//   lower     Funcs -> lowered statement (src/lower)
//   irgen     lowered statement -> unoptimised LLVM IR (codegen_llvm)
//   opt       LLVM's module optimisation pipeline (optimize_module)
//   isel      LLVM IR -> x86 machine code (emit_assembly)
//   total     a whole Func::compile_jit() of a fresh definition
//
// plus the size of the IR before and after optimisation. Times are
// wall-clock, or with LOOM_BENCH_CPU_CLOCK=1 the compiling thread's CPU
// time (steadier on a busy machine). With
// LOOM_BENCH_STMT_DIR set, the optimised assembly of each pipeline is
// written there as <workload>.loom.s (the JIT's code, for reading).
#include "bench_common.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include <time.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "codegen/llvm/EmitObject.h"
#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "lower/Lower.h"

namespace bench {

namespace {

// Wall-clock by default; with LOOM_BENCH_CPU_CLOCK=1 the compiling thread's
// CPU time, which other processes on a busy machine disturb less.
struct Clock {
    using time_point = double;  // ms
    static double now() {
        static const bool cpu = [] {
            const char *v = std::getenv("LOOM_BENCH_CPU_CLOCK");
            return v && *v == '1';
        }();
        if (cpu) {
            timespec ts;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
        }
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
};

double ms_since(Clock::time_point start) { return Clock::now() - start; }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Counted by LLVM itself (an out-of-line call), not by walking its lists here.
size_t instruction_count(const llvm::Module &m) { return m.getInstructionCount(); }

struct Phases {
    std::vector<double> lower, irgen, opt, isel, total;
    size_t ir_before = 0, ir_after = 0, asm_lines = 0;
};

void measure_once(const std::string &name, loom::Func (*make)(), Phases &p, bool write_asm) {
    using namespace loom::internal;
    const loom::Target target = loom::get_jit_target_from_environment();

    loom::Func out = make();
    auto t = Clock::now();
    LoweredFunc lowered = lower({out.function()}, "jit_" + name, target);
    p.lower.push_back(ms_since(t));

    llvm::LLVMContext context;
    t = Clock::now();
    std::unique_ptr<llvm::Module> module = codegen_llvm(lowered, target, context);
    p.irgen.push_back(ms_since(t));
    p.ir_before = instruction_count(*module);

    auto tm = make_target_machine(target);
    t = Clock::now();
    optimize_module(*module, *tm);
    p.opt.push_back(ms_since(t));
    p.ir_after = instruction_count(*module);

    t = Clock::now();
    std::string assembly = emit_assembly(*module, target);
    p.isel.push_back(ms_since(t));
    p.asm_lines = size_t(std::count(assembly.begin(), assembly.end(), '\n'));
    if (write_asm) {
        if (const char *dir = std::getenv("LOOM_BENCH_STMT_DIR"); dir && *dir) {
            std::ofstream(std::string(dir) + "/" + name + ".loom.s") << assembly;
        }
    }

    loom::Func fresh = make();
    t = Clock::now();
    fresh.compile_jit();
    p.total.push_back(ms_since(t));
}

}  // namespace

int run_compile_breakdown(int repetitions) {
    const struct {
        const char *name;
        loom::Func (*make)();
    } pipelines[] = {
        {"blur", make_loom_blur},        {"histogram", make_loom_histogram},
        {"matmul", make_loom_matmul},    {"iir", make_loom_iir},
        {"summed_area", make_loom_summed_area},
    };
    // One untimed compile first: LLVM's one-time set-up is not per pipeline.
    try {
        make_loom_iir().compile_jit();
    } catch (const std::exception &) {
    }
    std::printf("Loom JIT compile time by phase, median of %d (ms); IR = LLVM instructions\n", repetitions);
    std::printf("%-12s %8s %8s %8s %8s %8s %8s %10s %9s %10s\n", "workload", "lower", "irgen", "opt", "isel", "sum",
                "total", "IR before", "IR after", "asm lines");
    for (const auto &pl : pipelines) {
        Phases p;
        try {
            for (int i = 0; i < repetitions; i++) measure_once(pl.name, pl.make, p, i == 0);
        } catch (const std::exception &e) {
            std::printf("%-12s failed: %s\n", pl.name, e.what());
            continue;
        }
        double sum = median(p.lower) + median(p.irgen) + median(p.opt) + median(p.isel);
        std::printf("%-12s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %10zu %9zu %10zu\n", pl.name, median(p.lower),
                    median(p.irgen), median(p.opt), median(p.isel), sum, median(p.total), p.ir_before, p.ir_after,
                    p.asm_lines);
    }
    return 0;
}

}  // namespace bench
