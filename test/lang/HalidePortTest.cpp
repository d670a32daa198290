// Halide spellings that Halide's tutorial lessons use and Loom provides for
// them to port through the namespace alias: HALIDE_REGISTER_GENERATOR and
// Output<Buffer<>>::type() before the output is defined (lesson 15's
// cast(output.type(), ...) with the type from `output.type=`).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <loom/Loom.h>

#include "lang/Backend.h"
#include "lang/LangTestUtil.h"

namespace Halide {
using namespace loom;
}

namespace {

class ScaledAnyType : public Halide::Generator<ScaledAnyType> {
public:
    Halide::GeneratorParam<float> scale{"scale", 1.0f, 0.0f, 100.0f};
    Halide::Input<Halide::Buffer<uint8_t>> input{"input", 1};
    Halide::Output<Halide::Buffer<>> output{"output", 1};
    Halide::Var x;
    void generate() {
        // The type is the one `output.type=` gave: the output has no definition yet.
        output(x) = Halide::cast(output.type(), scale * input(x));
        output.vectorize(x, natural_vector_size(output.type()));
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ScaledAnyType, halide_port_scaled_any_type)

namespace {

using namespace loom;

template<typename T>
void check_scaled(const std::string &type_name, float scale) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("halide_port_scaled_any_type");
    auto *gen = dynamic_cast<ScaledAnyType *>(g.get());
    ASSERT_NE(gen, nullptr);
    gen->set_generator_param_values({{"output.type", type_name}, {"scale", std::to_string(scale)}});
    Buffer<uint8_t> in(100);
    for (int i = 0; i < 100; i++) in(i) = uint8_t(i * 5);
    gen->input.set(in);
    Buffer<T> out = gen->realize({100})[0];
    EXPECT_EQ(gen->output.type(), type_of<T>());
    for (int i = 0; i < 100; i++) EXPECT_EQ(out(i), static_cast<T>(scale * float(in(i)))) << type_name << " " << i;
}

TEST(HalidePort, RegisteredWithHalidesMacroAndTypedFromTheCommandLine) {
    check_scaled<uint16_t>("uint16", 3.0f);
    check_scaled<float>("float32", 9.0f);
    check_scaled<double>("float64", 1.0f);
}

class UntypedOutput : public Generator<UntypedOutput> {
public:
    Input<Buffer<uint8_t>> input{"input", 1};
    Output<Buffer<>> output{"output", 1};
    Var x;
    void generate() { output(x) = cast(output.type(), input(x)); }
};

TEST(HalidePort, OutputTypeWithoutADeclaredTypeIsAnError) {
    UntypedOutput g;
    EXPECT_COMPILE_ERROR(g.build_pipeline(), "output", "no definition");
}

}  // namespace

namespace {

using namespace loom;

// Halide's lesson 22: infer_arguments feeds compile_to_callable, and
// invalidate_cache makes compile_jit compile again.
TEST(HalidePort, InferArgumentsListsBuffersThenScalarsByName) {
    ImageParam in(Int(32), 1, "port_b_in");
    Param<int> offset("port_c_offset");
    Param<float> scale("port_a_scale");
    Buffer<int> table(8, "port_a_table");
    for (int i = 0; i < 8; i++) table(i) = i * i;
    Var x("x");
    Func f("port_infer");
    f(x) = cast<int>(scale * in(x)) + table(x % 8) + offset;
    Pipeline p(f);
    std::vector<Argument> args = p.infer_arguments();
    ASSERT_EQ(args.size(), 4u);
    EXPECT_EQ(args[0].name, "port_a_table");
    EXPECT_EQ(args[0].kind, Argument::InputBuffer);
    EXPECT_EQ(args[1].name, "port_b_in");
    EXPECT_EQ(args[1].kind, Argument::InputBuffer);
    EXPECT_EQ(args[1].dimensions, 1);
    EXPECT_EQ(args[2].name, "port_a_scale");
    EXPECT_EQ(args[2].type, Float(32));
    EXPECT_EQ(args[3].name, "port_c_offset");
    EXPECT_EQ(args[3].kind, Argument::InputScalar);

    Callable callable = p.compile_to_callable(args);
    Buffer<int> input(20), out(20);
    for (int i = 0; i < 20; i++) input(i) = 3 * i - 7;
    ASSERT_EQ(callable(table, input, 2.0f, 5, out), 0);
    for (int i = 0; i < 20; i++) EXPECT_EQ(out(i), int(2.0f * input(i)) + (i % 8) * (i % 8) + 5) << i;

    Func no_inputs("port_no_inputs");
    no_inputs(x) = x;
    EXPECT_TRUE(Pipeline(no_inputs).infer_arguments().empty());
}

TEST(HalidePort, InvalidateCacheCompilesAgain) {
    Var x("x");
    Func f("port_invalidate");
    f(x) = x * 3;
    Pipeline p(f);
    p.compile_jit();
    const int compiled = internal::jit_compile_count();
    p.compile_jit();  // cached
    EXPECT_EQ(internal::jit_compile_count(), compiled);
    p.invalidate_cache();
    p.compile_jit();
    EXPECT_EQ(internal::jit_compile_count(), compiled + 1);
    Buffer<int> out = p.realize({5});  // the new code, no third compile
    EXPECT_EQ(internal::jit_compile_count(), compiled + 1);
    for (int i = 0; i < 5; i++) EXPECT_EQ(out(i), i * 3);
}

TEST(HalidePort, RealizeWithoutATargetRunsTheCodeCompiledLast) {
    // Halide's lesson 12 pattern: compile_jit(target) for a chosen target, then
    // realize() without one runs that code instead of compiling for the
    // environment's target.
    Var x("x");
    Func f("port_compiled_last");
    f(x) = x * 5 + 1;
    const Target chosen = get_jit_target_from_environment().with_feature(Target::NoBoundsQuery);
    f.compile_jit(chosen);
    const int compiled = internal::jit_compile_count();
    Buffer<int> out = f.realize({9});
    EXPECT_EQ(internal::jit_compile_count(), compiled) << "realize() compiled again for another target";
    for (int i = 0; i < 9; i++) EXPECT_EQ(out(i), i * 5 + 1);
    // An explicit target still selects (and compiles for) that target.
    f.realize({9}, get_jit_target_from_environment());
    EXPECT_EQ(internal::jit_compile_count(), compiled + 1);
    // ... and is now the code compiled last.
    f.realize({9});
    EXPECT_EQ(internal::jit_compile_count(), compiled + 1);
    // A changed definition compiles again, for the JIT target.
    f.compute_root();
    f.realize({9});
    EXPECT_EQ(internal::jit_compile_count(), compiled + 2);
}

}  // namespace

namespace {

using namespace loom;

std::string first_bytes(const std::string &path, size_t n) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return "(missing)";
    std::string bytes(n, '\0');
    bytes.resize(std::fread(bytes.data(), 1, n, f));
    std::fclose(f);
    return bytes;
}

// Halide's lesson 11 looks for lesson_11_x86_64_windows.obj: objects for
// Windows are .obj (COFF, machine 0x8664), as in Halide; others stay .o.
TEST(HalidePort, CompileToFileNamesWindowsObjectsObj) {
    Var x("x");
    Param<uint8_t> offset("port_offset");
    ImageParam input(UInt(8), 1, "port_input");
    Func brighter("port_brighter");
    brighter(x) = input(x) + offset;
    const std::string dir = ::testing::TempDir();
    brighter.compile_to_file(dir + "port_win", {input, offset}, "brighter", Target("x86-64-windows-avx-sse41"));
    EXPECT_EQ(first_bytes(dir + "port_win.obj", 2), std::string("\x64\x86", 2));
    EXPECT_NE(first_bytes(dir + "port_win.h", 2), "(missing)");
    EXPECT_EQ(first_bytes(dir + "port_win.o", 2), "(missing)");
    brighter.compile_to_file(dir + "port_linux", {input, offset}, "brighter", Target("x86-64-linux"));
    EXPECT_EQ(first_bytes(dir + "port_linux.o", 4), "\x7f" "ELF");
}

}  // namespace

namespace {

using namespace loom;

bool file_contains(const std::string &path, const std::string &text) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    std::string bytes;
    char chunk[4096];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.append(chunk, n);
    std::fclose(f);
    return bytes.find(text) != std::string::npos;
}

// Halide's lesson 15 builds pipelines with target=...-no_runtime and links
// them with one runtime written by the driver's -r: the library then holds
// the pipeline alone (loom_default_print_handler is a runtime function no
// pipeline calls).
TEST(HalidePort, NoRuntimeLibrariesLeaveTheRuntimeOut) {
    Var x("x");
    ImageParam input(UInt(8), 1, "nort_input");
    Func f("nort_f");
    f(x) = input(x) + 1;
    const std::string dir = ::testing::TempDir();
    f.compile_to_static_library(dir + "nort", {input}, "nort_f", Target("x86-64-linux-no_runtime"));
    ASSERT_TRUE(file_contains(dir + "nort.a", "nort_f"));
    EXPECT_FALSE(file_contains(dir + "nort.a", "loom_default_print_handler"));
    try {  // with the runtime, where this build of Loom has one for the target
        f.compile_to_static_library(dir + "with_rt", {input}, "nort_f", Target("x86-64-linux"));
    } catch (const CompileError &e) {
        ASSERT_NE(std::string(e.what()).find("No Loom runtime"), std::string::npos) << e.what();
        return;
    }
    EXPECT_TRUE(file_contains(dir + "with_rt.a", "loom_default_print_handler"));
}

}  // namespace

namespace {

// Halide's compile_to_lowered_stmt(file, {}) (no arguments: the pipeline has
// none) next to Loom's compile_to_lowered_stmt(file, target): both compile
// and write the statement.
TEST(HalidePort, CompileToLoweredStmtWithAnEmptyArgumentList) {
    Halide::Func gradient("port_gradient");
    Halide::Var x("x"), y("y");
    gradient(x, y) = x + y;
    const std::string dir = ::testing::TempDir();
    gradient.compile_to_lowered_stmt(dir + "port_gradient.stmt", {});
    gradient.compile_to_lowered_stmt(dir + "port_gradient.html", {}, Halide::HTML);
    gradient.compile_to_lowered_stmt(dir + "port_gradient_target.stmt", Halide::Target("host"));
    Halide::Pipeline p(gradient);
    p.compile_to_lowered_stmt(dir + "port_pipeline.stmt", {});
    for (const char *name : {"port_gradient.stmt", "port_gradient.html", "port_gradient_target.stmt",
                             "port_pipeline.stmt"}) {
        const std::string path = dir + name;
        std::FILE *f = std::fopen(path.c_str(), "rb");
        ASSERT_NE(f, nullptr) << path;
        char head[64] = {};
        EXPECT_GT(std::fread(head, 1, sizeof head - 1, f), 0u) << path;
        std::fclose(f);
        std::remove(path.c_str());
    }
}

}  // namespace

namespace {

uint32_t word_at(const std::string &path, int index) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return 0;
    uint32_t words[8] = {};
    const size_t n = std::fread(words, sizeof(uint32_t), 8, f);
    std::fclose(f);
    return index < (int)n ? words[index] : 0;
}

// Halide's lesson 11 names iOS and the armv7s feature: the target parses,
// 64-bit iOS objects are arm64 Mach-O, 32-bit ones (armv7s) ARM Mach-O of
// subtype v7s, and armv7s on a 64-bit target is refused clearly.
TEST(HalidePort, IOSTargets) {
    Halide::Var x("x");
    Halide::ImageParam input(Halide::UInt(8), 1, "port_ios_input");
    Halide::Func brighter("port_ios_brighter");
    brighter(x) = input(x) + 1;
    const std::string dir = ::testing::TempDir();
    brighter.compile_to_file(dir + "port_arm_64_ios", {input}, "brighter", Halide::Target("arm-64-ios"));
    EXPECT_EQ(word_at(dir + "port_arm_64_ios.o", 0), 0xfeedfacfu);  // 64-bit Mach-O
    EXPECT_EQ(word_at(dir + "port_arm_64_ios.o", 1), 0x0100000cu);  // CPU_TYPE_ARM64
    EXPECT_EQ(word_at(dir + "port_arm_64_ios.o", 3), 1u);           // MH_OBJECT
    Halide::Target t;
    t.os = Halide::Target::IOS;
    t.arch = Halide::Target::ARM;
    t.bits = 32;
    t.set_features({Halide::Target::ARMv7s});
    EXPECT_EQ(t.to_string(), "arm-32-ios-armv7s");
    EXPECT_EQ(Halide::Target(t.to_string()), t);
    auto refusal = [&](const Halide::Target &target) {
        try {
            brighter.compile_to_file(dir + "port_refused", {input}, "brighter", target);
        } catch (const Halide::CompileError &e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    // 32-bit ARM objects (test/aot/ThirtyTwoBitAotTest.cpp checks their code).
    brighter.compile_to_file(dir + "port_arm_32_ios", {input}, "brighter", t);
    EXPECT_EQ(word_at(dir + "port_arm_32_ios.o", 0), 0xfeedfaceu);  // 32-bit Mach-O
    EXPECT_EQ(word_at(dir + "port_arm_32_ios.o", 1), 12u);          // CPU_TYPE_ARM
    EXPECT_EQ(word_at(dir + "port_arm_32_ios.o", 2), 11u);          // CPU_SUBTYPE_ARM_V7S
    std::remove((dir + "port_refused.o").c_str());  // a file an earlier run may have left
    std::string m = refusal(Halide::Target("arm-64-ios-armv7s"));
    EXPECT_NE(m.find("armv7s, a feature of 32-bit ARM CPUs"), std::string::npos) << m;
    EXPECT_EQ(word_at(dir + "port_refused.o", 0), 0u);  // nothing written
    for (const char *name : {"port_arm_64_ios.o", "port_arm_64_ios.h", "port_arm_32_ios.o", "port_arm_32_ios.h",
                             "port_refused.o", "port_refused.h"}) {
        std::remove((dir + name).c_str());
    }
}

// Halide::Range and Halide::Region (a Range per dimension) name the regions
// that boundary conditions, RDoms, estimates and propagate_adjoints take, as
// Halide's programs build them: Range(min, extent) pushed into a Region.
TEST(HalidePort, RangeAndRegionNameRegions) {
    const int w = 6, h = 4;
    Halide::Buffer<float> in(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) in(x, y) = float(x * 10 + y);
    }
    Halide::Region bounds;
    bounds.push_back(Halide::Range(0, w));
    bounds.push_back(Halide::Range(0, h));
    EXPECT_TRUE(bounds[1].extent.defined() && bounds[1].min.defined());
    Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(in, bounds);

    // A 3x2 box sum over an RDom built from a Region, read one pixel outside.
    Halide::Region box = {Halide::Range(-1, 3), {0, 2}};
    Halide::RDom r(box);
    Halide::Var x("x"), y("y");
    Halide::Func sum("port_region_sum");
    sum(x, y) = 0.0f;
    sum(x, y) += clamped(x + r.x, y + r.y);
    sum.set_estimates({Halide::Range(0, w), Halide::Range(0, h)});
    Halide::Buffer<float> out = sum.realize({w, h});
    auto at = [&](int px, int py) { return in(std::clamp(px, 0, w - 1), std::clamp(py, 0, h - 1)); };
    for (int py = 0; py < h; py++) {
        for (int px = 0; px < w; px++) {
            float want = 0;
            for (int ry = 0; ry < 2; ry++) {
                for (int rx = -1; rx < 2; rx++) want += at(px + rx, py + ry);
            }
            EXPECT_EQ(out(px, py), want) << px << ", " << py;
        }
    }

    // The adjoint of the sum with respect to the input, over a Region.
    Halide::Func seed("port_region_seed");
    seed(x, y) = 1.0f;
    Halide::Derivative d = Halide::propagate_adjoints(sum, seed, bounds);
    Halide::Buffer<float> grad = d(in).realize({w, h});
    // Each input pixel's weight: how many (output, tap) pairs read it after clamping.
    std::vector<float> want(w * h, 0.0f);
    for (int py = 0; py < h; py++) {
        for (int px = 0; px < w; px++) {
            for (int ry = 0; ry < 2; ry++) {
                for (int rx = -1; rx < 2; rx++) {
                    want[std::clamp(py + ry, 0, h - 1) * w + std::clamp(px + rx, 0, w - 1)] += 1.0f;
                }
            }
        }
    }
    for (int py = 0; py < h; py++) {
        for (int px = 0; px < w; px++) EXPECT_EQ(grad(px, py), want[py * w + px]) << px << ", " << py;
    }
}

}  // namespace

namespace {

std::string target_string_error(const std::string &s) {
    try {
        Halide::Target t(s);
    } catch (const Halide::CompileError &e) {
        return e.what();
    }
    return "(no error)";
}

// Halide's lesson 15 asks for target=host-x86-64-no_runtime (and -sse41-,
// -avx- variants): after "host", an architecture, bit width or OS may be given
// once each and replaces the host's, as Halide 14 parses it. Built from the
// host's own names so that it holds on any host.
TEST(HalidePort, HostThenArchBitsOrOSReplaceTheHosts) {
    const Halide::Target host = Halide::get_host_target();
    const std::string full = host.to_string();  // arch-bits-os[-features]
    std::vector<std::string> tok;
    for (size_t start = 0;;) {
        const size_t dash = full.find('-', start);
        tok.push_back(full.substr(start, dash - start));
        if (dash == std::string::npos) break;
        start = dash + 1;
    }
    ASSERT_GE(tok.size(), 3u) << full;
    const std::string arch = tok[0], bits = tok[1], os = tok[2];

    Halide::Target want = host;
    want.set_feature(Halide::Target::NoRuntime);
    EXPECT_EQ(Halide::Target("host-" + arch + "-" + bits + "-no_runtime"), want);
    EXPECT_EQ(Halide::Target("host-" + bits + "-" + arch + "-" + os), host);

    // Another OS: arch, bits and the CPU features stay the host's.
    const bool linux_host = host.os == Halide::Target::Linux;
    const Halide::Target other(std::string("host-") + (linux_host ? "windows" : "linux"));
    EXPECT_EQ(other.os, linux_host ? Halide::Target::Windows : Halide::Target::Linux);
    EXPECT_EQ(other.arch, host.arch);
    EXPECT_EQ(other.bits, host.bits);
    Halide::Target same_but_os = host;
    same_but_os.os = other.os;
    EXPECT_EQ(other, same_but_os);

    // Each may still be given once only, and "host" only first.
    std::string m = target_string_error("host-" + arch + "-" + arch);
    EXPECT_NE(m.find("architecture given twice at token '" + arch + "'"), std::string::npos) << m;
    m = target_string_error("host-" + bits + "-" + bits);
    EXPECT_NE(m.find("bits given twice"), std::string::npos) << m;
    m = target_string_error("host-" + os + "-" + os);
    EXPECT_NE(m.find("operating system given twice"), std::string::npos) << m;
    m = target_string_error(arch + "-host");
    EXPECT_NE(m.find("'host' must be the first token"), std::string::npos) << m;
    // Without "host", all three are still needed.
    m = target_string_error(arch + "-" + bits);
    EXPECT_NE(m.find("missing operating-system"), std::string::npos) << m;
}

}  // namespace
