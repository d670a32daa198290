// 32-bit targets ahead of time. x86-32 Linux static libraries are linked
// into a 32-bit C program (clang -m32 against Debian's i386 glibc,
// libc6-dev-i386) and run on this x86-64 machine (under qemu-i386 where
// its kernel runs no 32-bit code): buffer fields, narrow,
// 64-bit and double scalars, 64-bit division (libgcc), heap allocations,
// parallel loops, vectors, errors, bounds queries, NAME_argv and metadata,
// compared with C++ references; async, memoize, tracing and profiling (the
// programs are in CrossTargetPrograms.h). ARM-32 Linux libraries run under
// qemu-user in CrossArchAotTest.cpp; here their headers, build attributes
// and disassembled loops are checked, and those of Halide's lesson 11
// (arm-32-android, arm-32-ios-armv7s), which have no runtime to run with.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "AotPipelines.h"
#include "AotTestSupport.h"
#include "CrossTargetPrograms.h"

using namespace loom;
using namespace loom_test;

namespace {

std::string clang() { return find_tool({"clang-19", "clang"}); }
std::string objdump() { return find_tool({"llvm-objdump-19", "llvm-objdump"}); }
std::string readelf() { return find_tool({"llvm-readelf-19", "llvm-readelf"}); }
std::string nm() { return find_tool({"llvm-nm-19", "llvm-nm"}); }

// clang -m32 links through gcc's 32-bit crtbegin and libgcc (lib32gcc-12-dev,
// which pulls in the x32 libraries as well); glibc's own start files, libc
// and the shared libgcc_s that libc6-i386 and lib32gcc-s1 install suffice.
std::string link_32bit_command(const std::string &objects, const std::string &exe) {
    return clang() + " -m32 -no-pie -nostdlib /usr/lib32/crt1.o /usr/lib32/crti.o " + objects +
           " -L/usr/lib32 -lc -lm -lpthread /usr/lib32/libgcc_s.so.1 /usr/lib32/crtn.o -o " + exe + " 2>&1";
}

/** Runs a 32-bit x86 program with LOOM_NUM_THREADS=4: natively, or under
 * qemu-i386 (Debian's qemu-user, which scripts/setup.sh installs) where the
 * kernel runs no 32-bit code (built without IA32 emulation, or booted with
 * ia32_emulation=0: the shell reports "Exec format error", status 126). */
CommandResult run_32bit_program(const std::string &exe) {
    CommandResult ran = run_command("LOOM_NUM_THREADS=4 '" + exe + "' 2>&1");
    if (ran.exit_code != 126 && ran.output.find("Exec format error") == std::string::npos) return ran;
    CommandResult emulated = run_command("LOOM_NUM_THREADS=4 qemu-i386 '" + exe + "' 2>&1");
    if (emulated.exit_code == 127) {
        emulated.output = "this kernel does not run 32-bit x86 programs and qemu-i386 is missing (Debian's qemu-user; "
                          "scripts/setup.sh installs it)\n" + ran.output + emulated.output;
    }
    return emulated;
}

constexpr const char *k32BitHint =
    "a 32-bit x86 C program could not be built: clang-19 and Debian's i386 glibc (libc6-dev-i386) are needed; "
    "scripts/setup.sh installs them";

TEST(ThirtyTwoBitAot, X86StaticLibrariesRunInA32BitProgram) {
    ASSERT_FALSE(clang().empty()) << k32BitHint;
    ScratchDir dir;
    write_main_program(dir, Target("x86-32-linux"));
    CommandResult built = run_command("cd '" + dir.path() + "' && " + clang() +
                                      " -m32 -std=c11 -O1 -Wall -Werror -c main.c -o main.o 2>&1 && " +
                                      link_32bit_command("main.o brighten.a mixed.a", "main"));
    ASSERT_EQ(built.exit_code, 0) << k32BitHint << "\n" << built.output;
    const std::string header = run_command(readelf() + " -h '" + dir.file("main") + "' 2>&1").output;
    EXPECT_NE(header.find("ELF32"), std::string::npos) << header;
    EXPECT_NE(header.find("Intel 80386"), std::string::npos) << header;

    CommandResult ran = run_32bit_program(dir.file("main"));
    ASSERT_EQ(ran.exit_code, 0) << ran.output;
    check_main_program_output(ran.output, {4, 12, 16, 24, 32, 40}, "x86-32-linux");
}

// The runtime's other structs with pointers, on i386: Func::async (fork
// threads, semaphores on the stack), memoize (its cache), tracing (the
// loom_trace_event_t the generated code builds) and the profile feature
// (its per-run instance, reported at exit).
TEST(ThirtyTwoBitAot, X86RuntimeFeaturesRunInA32BitProgram) {
    ASSERT_FALSE(clang().empty()) << k32BitHint;
    ScratchDir dir;
    write_features_program(dir, Target("x86-32-linux"));
    CommandResult built = run_command("cd '" + dir.path() + "' && " + clang() +
                                      " -m32 -std=c11 -O1 -Wall -Werror -c main.c -o main.o 2>&1 && " +
                                      link_32bit_command("main.o async.a traced.a", "main"));
    ASSERT_EQ(built.exit_code, 0) << k32BitHint << "\n" << built.output;
    CommandResult ran = run_32bit_program(dir.file("main"));
    ASSERT_EQ(ran.exit_code, 0) << ran.output;
    check_features_program_output(ran.output);
}

// RuntimePlatform.h's freestanding declarations against i386 glibc's real
// headers (the hosted build checks x86-64's).
TEST(ThirtyTwoBitAot, FreestandingRuntimeDeclarationsMatchI386Glibc) {
    ASSERT_FALSE(clang().empty()) << k32BitHint;
    const std::string root = repository_root();
    CommandResult r = run_command(clang() + " -m32 -std=gnu11 -fsyntax-only -I'" + root + "/include' -I'" + root +
                                  "/src' '" + root + "/src/runtime/RuntimePlatformCheck.c' 2>&1");
    EXPECT_EQ(r.exit_code, 0) << k32BitHint << "\n" << r.output;
}

// arm-32-linux: an ARMv7 hard-float library with the runtime (weak, no
// libatomic calls) and NEON code for the vectorized loop.
TEST(ThirtyTwoBitAot, ArmLinuxStaticLibrary) {
    ASSERT_FALSE(objdump().empty() || readelf().empty() || nm().empty()) << kToolsHint;
    ScratchDir dir;
    BrightenPipeline b;
    b.out.compile_to_static_library(dir.file("brighten"), b.args(), "brighten", Target("arm-32-linux"));
    const std::string library = dir.file("brighten.a");
    const std::string header = run_command(readelf() + " -h '" + library + "' 2>&1").output;
    EXPECT_NE(header.find("ELF32"), std::string::npos) << header;
    EXPECT_NE(header.find("ARM"), std::string::npos) << header;
    const std::string attributes = run_command(readelf() + " --arch-specific '" + library + "' 2>&1").output;
    EXPECT_NE(attributes.find("AAPCS VFP"), std::string::npos) << attributes;  // hard-float arguments
    EXPECT_NE(attributes.find("NEON"), std::string::npos) << attributes;
    const std::string symbols = run_command(nm() + " '" + library + "' 2>&1").output;
    for (const char *s : {" T brighten\n", " T brighten_argv\n", " T brighten_metadata\n", " W loom_malloc\n",
                          " W loom_do_par_for\n"}) {
        EXPECT_NE(symbols.find(s), std::string::npos) << s << symbols;
    }
    EXPECT_EQ(symbols.find("__atomic"), std::string::npos) << symbols;
    const std::string code = run_command(objdump() + " -d '" + library + "' 2>&1").output;
    // vectorize(x, 8) of uint8 * int32: widening NEON arithmetic on q registers.
    EXPECT_NE(code.find("vmovl.u8"), std::string::npos) << code;
    EXPECT_NE(code.find("vst1.8"), std::string::npos) << code;
}

// Halide's lesson 11 compiles brighter(x, y) = input(x, y) + offset,
// vectorized by 16, for 32-bit ARM Android and iOS (armv7s) with
// compile_to_file, and checks the object headers.
TEST(ThirtyTwoBitAot, Lesson11ArmObjects) {
    ASSERT_FALSE(objdump().empty() || readelf().empty()) << kToolsHint;
    ScratchDir dir;
    Param<uint8_t> offset("offset");
    ImageParam input(UInt(8), 2, "input");
    Var x("x"), y("y");
    Func brighter("brighter");
    brighter(x, y) = input(x, y) + offset;
    brighter.vectorize(x, 16).parallel(y);
    const std::vector<Argument> args = {input, offset};

    Target android;
    android.os = Target::Android;
    android.arch = Target::ARM;
    android.bits = 32;
    brighter.compile_to_file(dir.file("android"), args, "brighter", android);
    const std::string elf = read_file(dir.file("android.o"));
    ASSERT_GE(elf.size(), 20u);
    EXPECT_EQ(elf.substr(0, 7), std::string("\x7f" "ELF\x01\x01\x01", 7));  // ELFCLASS32, little-endian
    EXPECT_EQ((uint8_t)elf[18], 40);                                        // e_machine EM_ARM
    const std::string attributes = run_command(readelf() + " --arch-specific '" + dir.file("android.o") + "'").output;
    EXPECT_EQ(attributes.find("AAPCS VFP"), std::string::npos) << attributes;  // armeabi-v7a: soft-float arguments
    const std::string android_code = run_command(objdump() + " -d '" + dir.file("android.o") + "' 2>&1").output;
    EXPECT_NE(android_code.find("vadd.i8\tq"), std::string::npos) << android_code;

    Target ios = android;
    ios.os = Target::IOS;
    ios.set_features({Target::ARMv7s});
    brighter.compile_to_file(dir.file("ios"), args, "brighter", ios);
    const std::string macho = read_file(dir.file("ios.o"));
    ASSERT_GE(macho.size(), 16u);
    uint32_t words[4];
    std::memcpy(words, macho.data(), sizeof words);
    EXPECT_EQ(words[0], 0xfeedfaceu);  // 32-bit Mach-O
    EXPECT_EQ(words[1], 12u);          // CPU_TYPE_ARM
    EXPECT_EQ(words[2], 11u);          // CPU_SUBTYPE_ARM_V7S
    EXPECT_EQ(words[3], 1u);           // MH_OBJECT
    // llvm-objdump does not take the CPU from a Mach-O subtype: name NEON.
    const std::string ios_code = run_command(objdump() + " -d --mattr=+neon '" + dir.file("ios.o") + "' 2>&1").output;
    EXPECT_NE(ios_code.find("vadd.i8\tq"), std::string::npos) << ios_code;
    EXPECT_NE(ios_code.find("_brighter_argv"), std::string::npos) << ios_code;

    // No Loom runtime exists for Android or iOS: a static library is refused
    // with the outputs that do work, and nothing is written.
    try {
        brighter.compile_to_static_library(dir.file("refused"), args, "brighter", android);
        ADD_FAILURE() << "compile_to_static_library for arm-32-android did not throw";
    } catch (const CompileError &e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("No Loom runtime for target arm-32-android"), std::string::npos) << m;
        EXPECT_NE(m.find("compile_to_file"), std::string::npos) << m;
    }
    EXPECT_FALSE(file_exists(dir.file("refused.a")));
    EXPECT_FALSE(file_exists(dir.file("refused.h")));
}

}  // namespace
