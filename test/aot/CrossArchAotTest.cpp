// ARM Linux static libraries, run. Libraries compiled for arm-32-linux
// (ARMv7, hard float, NEON) and arm-64-linux (AArch64) are linked into the C
// programs of CrossTargetPrograms.h with Debian's cross compilers
// (gcc-arm-linux-gnueabihf, gcc-aarch64-linux-gnu; static, so no target
// libraries are needed at run time) and run under qemu-user on this x86-64
// machine: the generated code, the runtime built for the target (threads,
// atomics, semaphores, the memoization cache, tracing, the profiler) and the
// C ABI of the header, checked against the C++ references.

#include <gtest/gtest.h>

#include <string>

#include "AotTestSupport.h"
#include "CrossTargetPrograms.h"

using namespace loom;
using namespace loom_test;

namespace {

struct ArmTarget {
    const char *loom_target;  // Target(...) and the metadata's name
    const char *compiler;     // Debian's cross gcc
    const char *emulator;     // qemu-user
    BufferLayout layout;      // loom_buffer_t as the target's C compiler lays it out
};

// ARM EABI aligns uint64_t to 8 bytes, as x86-64 does and i386 does not;
// with 4-byte pointers the fields still fall where i386 has them.
const ArmTarget kArm32 = {"arm-32-linux", "arm-linux-gnueabihf-gcc", "qemu-arm", {4, 12, 16, 24, 32, 40}};
const ArmTarget kArm64 = {"arm-64-linux", "aarch64-linux-gnu-gcc", "qemu-aarch64", {8, 16, 24, 32, 40, 56}};

/** Why the tools are missing, or "" when they are there. On x86-64 hosts
 * scripts/setup.sh installs them and a missing tool is a failure; other
 * hosts have no such packages in the setup and skip. */
std::string missing_tools(const ArmTarget &t) {
    if (have_tool(t.compiler) && have_tool(t.emulator)) return "";
    return std::string("running ") + t.loom_target + " code needs " + t.compiler + " and " + t.emulator +
           " (Debian's gcc-arm-linux-gnueabihf / gcc-aarch64-linux-gnu and qemu-user; scripts/setup.sh installs "
           "them on x86-64)";
}

#if defined(__x86_64__)
#define REQUIRE_ARM_TOOLS(t)                                      \
    do {                                                          \
        const std::string why = missing_tools(t);                 \
        ASSERT_TRUE(why.empty()) << why;                          \
    } while (0)
#else
#define REQUIRE_ARM_TOOLS(t)                                      \
    do {                                                          \
        const std::string why = missing_tools(t);                 \
        if (!why.empty()) GTEST_SKIP() << why;                    \
    } while (0)
#endif

/** Compiles main.c with the libraries, statically, and runs it with four
 * threads under the emulator. */
CommandResult build_and_run(const ArmTarget &t, const ScratchDir &dir, const std::string &libraries) {
    CommandResult built = run_command("cd '" + dir.path() + "' && " + t.compiler +
                                      " -std=c11 -O1 -Wall -Werror -static main.c " + libraries +
                                      " -lm -lpthread -o main 2>&1");
    if (built.exit_code != 0) {
        built.output = "building the program failed:\n" + built.output;
        return built;
    }
    return run_command(std::string("LOOM_NUM_THREADS=4 ") + t.emulator + " '" + dir.file("main") + "' 2>&1");
}

void run_main_program(const ArmTarget &t) {
    ScratchDir dir;
    write_main_program(dir, Target(t.loom_target));
    const CommandResult ran = build_and_run(t, dir, "brighten.a mixed.a");
    ASSERT_EQ(ran.exit_code, 0) << ran.output;
    check_main_program_output(ran.output, t.layout, t.loom_target);
}

void run_features_program(const ArmTarget &t) {
    ScratchDir dir;
    write_features_program(dir, Target(t.loom_target));
    const CommandResult ran = build_and_run(t, dir, "async.a traced.a");
    ASSERT_EQ(ran.exit_code, 0) << ran.output;
    check_features_program_output(ran.output);
}

TEST(CrossArchAot, Arm32StaticLibrariesRunUnderQemu) {
    REQUIRE_ARM_TOOLS(kArm32);
    run_main_program(kArm32);
}

TEST(CrossArchAot, Arm32RuntimeFeaturesRunUnderQemu) {
    REQUIRE_ARM_TOOLS(kArm32);
    run_features_program(kArm32);
}

TEST(CrossArchAot, Arm64StaticLibrariesRunUnderQemu) {
    REQUIRE_ARM_TOOLS(kArm64);
    run_main_program(kArm64);
}

TEST(CrossArchAot, Arm64RuntimeFeaturesRunUnderQemu) {
    REQUIRE_ARM_TOOLS(kArm64);
    run_features_program(kArm64);
}

}  // namespace
