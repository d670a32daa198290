// Lesson 11: cross-compilation.
//
// Ahead-of-time compilation (lesson 10) can target another machine than the
// one running the compiler: pass a Target to any compile_to_* call. A
// Target is written arch-bits-os[-features], e.g. "arm-64-linux" for 64-bit
// ARM Linux (AArch64) or "x86-64-linux-avx2" for an x86 CPU with AVX2. The
// code cannot run here, but we can look at it: the object file's ELF header
// names its machine, and the assembly shows the other instruction set.
//
// The default target of compile_to_* is $LOOM_TARGET, else this machine.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <loom/Loom.h>

using namespace loom;

namespace {

std::vector<uint8_t> read_bytes(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// What the first 20 bytes of an ELF file say (all ELF files start alike).
struct ElfHeader {
    bool is_elf = false;
    int bits = 0;          // e_ident[EI_CLASS]: 1 = 32-bit, 2 = 64-bit
    bool little = false;   // e_ident[EI_DATA]: 1 = little endian
    int type = 0;          // e_type: 1 = relocatable (an object file)
    int machine = 0;       // e_machine: 62 = x86-64, 183 = AArch64, 40 = 32-bit ARM
};

ElfHeader parse_elf_header(const std::vector<uint8_t> &bytes) {
    ElfHeader h;
    if (bytes.size() < 20 || bytes[0] != 0x7f || bytes[1] != 'E' || bytes[2] != 'L' || bytes[3] != 'F') return h;
    h.is_elf = true;
    h.bits = bytes[4] == 2 ? 64 : (bytes[4] == 1 ? 32 : 0);
    h.little = bytes[5] == 1;
    // e_type and e_machine are 16-bit fields at offsets 16 and 18, in the
    // file's byte order (little endian for all targets here).
    h.type = bytes[16] | (bytes[17] << 8);
    h.machine = bytes[18] | (bytes[19] << 8);
    return h;
}

// The first `count` lines of an assembly file that contain `needle`.
std::vector<std::string> lines_with(const std::string &path, const std::string &needle, size_t count) {
    std::ifstream in(path);
    std::vector<std::string> found;
    for (std::string line; std::getline(in, line) && found.size() < count;) {
        if (line.find(needle) != std::string::npos) found.push_back(line);
    }
    return found;
}

}  // namespace

int main() {
    // A small pipeline with an input and a scalar parameter.
    ImageParam input(Float(32), 2, "input");
    Param<float> gain("gain");
    Var x("x"), y("y");
    Func scaled("scaled");
    scaled(x, y) = input(x, y) * gain + 1.0f;
    scaled.vectorize(x, 4);
    int problems = 0;

    struct Case {
        const char *target;
        int bits;
        int machine;
    };
    const Case cases[] = {
        {"arm-64-linux", 64, 183},  // AArch64
        {"x86-64-linux", 64, 62},   // x86-64 without AVX
        {"x86-64-linux-avx2-fma", 64, 62},
    };
    for (const Case &c : cases) {
        Target target(c.target);
        std::string object = std::string("lesson_11_") + c.target + ".o";
        scaled.compile_to_object(object, {input, gain}, "scaled", target);
        ElfHeader h = parse_elf_header(read_bytes(object));
        std::printf("%-24s -> %s: ELF %d-bit %s, e_type %d, e_machine %d (expected %d)\n", c.target,
                    object.c_str(), h.bits, h.little ? "little endian" : "big endian", h.type, h.machine,
                    c.machine);
        if (!h.is_elf || h.bits != c.bits || !h.little || h.type != 1 || h.machine != c.machine) problems++;
    }

    // The assembly for AArch64 uses NEON registers: v0.4s is four floats.
    const std::string assembly = "lesson_11_arm-64-linux.s";
    scaled.compile_to_assembly(assembly, {input, gain}, "scaled", Target("arm-64-linux"));
    std::vector<std::string> vector_lines = lines_with(assembly, ".4s", 4);
    std::printf("\nSome AArch64 vector instructions in %s:\n", assembly.c_str());
    for (const std::string &line : vector_lines) std::printf("  %s\n", line.c_str());
    if (vector_lines.empty()) {
        std::printf("expected NEON instructions on 4 x float32 (.4s)\n");
        problems++;
    }

    // Targets that cannot be compiled for are refused with a CompileError.
    try {
        Target bad("arm-64-linux-avx2");
        std::printf("arm-64-linux-avx2 was accepted  <-- expected a CompileError\n");
        problems++;
    } catch (const CompileError &e) {
        std::printf("\narm-64-linux-avx2 is refused: %s\n", e.what());
    }

    std::printf("%s: %d problems\n", problems ? "FAILED" : "Success", problems);
    return problems ? 1 : 0;
}
