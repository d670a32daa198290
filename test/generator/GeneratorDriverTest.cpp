// The generator driver: argument parsing and running in-process (through
// the factored parser and runner), and the real driver executable
// loom_test_generators run as a process (exit codes and messages).

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gens/TestGenerators.h"
#include "lang/GeneratorDriver.h"
#include "lang/LangTestUtil.h"

namespace {

using namespace loom;
using loom::internal::GeneratorCommand;
using loom::internal::parse_generator_command;
using loom::internal::run_generator_command;

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string &name) {
    fs::path dir = fs::temp_directory_path() / ("loom_generator_test_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    return dir;
}

std::string read_file(const fs::path &p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// ---- Parsing ------------------------------------------------------------------------

TEST(GeneratorDriverParse, Defaults) {
    GeneratorCommand c = parse_generator_command({"-g", "brighten", "-o", "out"});
    EXPECT_EQ(c.generator, "brighten");
    EXPECT_EQ(c.output_dir, "out");
    EXPECT_EQ(c.function_name, "");
    EXPECT_EQ(c.file_base_name, "");
    EXPECT_EQ(c.target, "");
    EXPECT_TRUE(c.params.empty());
    ASSERT_EQ(c.emit.size(), 2u);
    EXPECT_EQ(c.emit[0], OutputFileType::static_library);
    EXPECT_EQ(c.emit[1], OutputFileType::c_header);
    EXPECT_FALSE(c.list);
    EXPECT_FALSE(c.help);
}

TEST(GeneratorDriverParse, EverythingGiven) {
    GeneratorCommand c = parse_generator_command({"-g", "brighten", "-o", "dir", "-e",
                                                  "stmt,assembly,o,llvm_assembly,h,static_library", "-f", "fn",
                                                  "-n", "base", "target=x86-64-linux-avx2", "offset=3", "mode=multiply"});
    EXPECT_EQ(c.function_name, "fn");
    EXPECT_EQ(c.file_base_name, "base");
    EXPECT_EQ(c.target, "x86-64-linux-avx2");
    ASSERT_EQ(c.params.size(), 2u);
    EXPECT_EQ(c.params[0], std::make_pair(std::string("offset"), std::string("3")));
    EXPECT_EQ(c.params[1], std::make_pair(std::string("mode"), std::string("multiply")));
    std::vector<OutputFileType> expected = {OutputFileType::stmt, OutputFileType::assembly, OutputFileType::object,
                                            OutputFileType::llvm_assembly, OutputFileType::c_header,
                                            OutputFileType::static_library};
    EXPECT_EQ(c.emit, expected);
}

TEST(GeneratorDriverParse, ListAndHelpNeedNoOutputDir) {
    EXPECT_TRUE(parse_generator_command({"-l"}).list);
    EXPECT_TRUE(parse_generator_command({"-h"}).help);
    EXPECT_TRUE(parse_generator_command({"--help"}).help);
    // A param value may contain '='.
    EXPECT_EQ(parse_generator_command({"-o", "d", "label=a=b"}).params[0].second, "a=b");
}

TEST(GeneratorDriverParse, Errors) {
    EXPECT_COMPILE_ERROR(parse_generator_command({"-g", "brighten"}), "-o DIR is required");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-o", "d", "-x"}), "Unknown option '-x'", "-g");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-o", "d", "-g"}), "-g needs a value");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-o", "d", "-e", "static_library,pdf"}), "'pdf'", "static_library",
                         "llvm_assembly", "stmt");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-o", "d", "-e", ","}), "-e");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-o", "d", "brighten"}), "'brighten'", "name=value");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-o", "d", "=3"}), "'=3'");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-o", "d", "offset=1", "offset=2"}), "'offset'", "twice");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-o", "d", "target=host", "target=host"}), "'target'", "twice");
}

// ---- Running in-process -------------------------------------------------------------

struct RunResult {
    int code;
    std::string out, err;
};

RunResult run(const std::vector<std::string> &args) {
    std::ostringstream out, err;
    int code = run_generator_command(parse_generator_command(args), out, err);
    return {code, out.str(), err.str()};
}

TEST(GeneratorDriverRun, Lists) {
    RunResult r = run({"-l"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("brighten"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("offset=10  (int32)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("mode=add  (enum {add, multiply})"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("typed_axpy"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("a (float32 buffer, 1-D), scale (float32), b (float32 buffer, 1-D), out (output any type"),
              std::string::npos)
        << r.out;
}

TEST(GeneratorDriverRun, Errors) {
    std::string dir = fresh_dir("errors").string();
    RunResult r = run({"-g", "nope", "-o", dir});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("'nope'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("brighten"), std::string::npos) << r.err;

    r = run({"-g", "brighten", "-o", dir, "offs=3"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("Generator 'brighten': there is no GeneratorParam 'offs'"), std::string::npos) << r.err;

    r = run({"-g", "brighten", "-o", dir, "offset=three"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("GeneratorParam 'offset'"), std::string::npos) << r.err;

    r = run({"-g", "brighten", "-o", dir, "mode=divide"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("add, multiply"), std::string::npos) << r.err;

    r = run({"-g", "brighten", "-o", dir, "target=x86-64-linux-avx9"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("avx9"), std::string::npos) << r.err;

    r = run({"-g", "brighten", "-o", dir, "-f", "not-an-identifier"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("C identifier"), std::string::npos) << r.err;

    // Several generators are registered here, so -g is needed.
    r = run({"-o", dir});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("Several generators"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("typed_axpy"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir + "/brighten.a"));
}

TEST(GeneratorDriverRun, WritesEveryKind) {
    fs::path dir = fresh_dir("kinds");
    RunResult r = run({"-g", "brighten", "-o", dir.string(), "-e",
                       "static_library,h,o,assembly,llvm_assembly,stmt,stmt_html", "-f", "my_brighten", "offset=5"});
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char *ext : {".a", ".h", ".o", ".s", ".ll", ".stmt", ".stmt.html"}) {
        fs::path p = dir / (std::string("my_brighten") + ext);
        EXPECT_TRUE(fs::exists(p)) << p;
        EXPECT_GT(fs::exists(p) ? fs::file_size(p) : 0, 0u) << p;
    }
    std::string header = read_file(dir / "my_brighten.h");
    EXPECT_NE(header.find("my_brighten("), std::string::npos) << header;
    EXPECT_NE(read_file(dir / "my_brighten.stmt.html").find("<h2>Assembly</h2>"), std::string::npos);
    fs::remove_all(dir);
}

TEST(GeneratorDriverRun, FileBaseNameAndDefaultFunctionName) {
    fs::path dir = fresh_dir("base");
    RunResult r = run({"-g", "typed_axpy", "-o", (dir / "nested").string(), "-e", "h", "-n", "axpy_files"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::string header = read_file(dir / "nested" / "axpy_files.h");
    EXPECT_NE(header.find("typed_axpy("), std::string::npos) << header;
    fs::remove_all(dir);
}

// ---- The real executable --------------------------------------------------------------

RunResult run_executable(const std::string &args) {
    std::string err_file = (fresh_dir("stderr").string() + ".txt");
    std::string command = std::string(LOOM_TEST_GENERATOR_EXE) + " " + args + " 2>" + err_file;
    RunResult r{-1, "", ""};
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe) return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.out.append(buf, n);
    int status = pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;  // -1: killed by a signal (an abort)
    r.err = read_file(err_file);
    fs::remove(err_file);
    return r;
}

TEST(GeneratorDriverExecutable, ListsAndHelps) {
    RunResult r = run_executable("-l");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("two_outputs"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("vectorize=true  (bool)"), std::string::npos) << r.out;
    r = run_executable("-h");
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << r.out;
}

TEST(GeneratorDriverExecutable, ErrorsExitWithOne) {
    fs::path dir = fresh_dir("exe_errors");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"-g brighten", "-o DIR is required"},
        {"-g nope -o " + dir.string(), "no generator named 'nope'"},
        {"-g brighten -o " + dir.string() + " -e static_library,exe", "unknown output kind 'exe'"},
        {"-g brighten -o " + dir.string() + " colour=red", "no GeneratorParam 'colour'"},
        {"-g brighten -o " + dir.string() + " offset=300", "[-255, 255]"},
        {"-g brighten -o " + dir.string() + " target=arm-64-linux-avx2", "avx2"},
        {"-o " + dir.string(), "Several generators"},
        {"-q", "Unknown option '-q'"},
    };
    for (const auto &[args, message] : cases) {
        RunResult r = run_executable(args);
        EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
        EXPECT_NE(r.err.find("Error: "), std::string::npos) << args << "\n" << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    }
    EXPECT_FALSE(fs::exists(dir / "brighten.a"));
}

TEST(GeneratorDriverExecutable, Generates) {
    fs::path dir = fresh_dir("exe_generates");
    RunResult r = run_executable("-g two_outputs -o " + dir.string() + " -f pair_fn -e static_library,h,stmt");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "pair_fn.a"));
    EXPECT_TRUE(fs::exists(dir / "pair_fn.stmt"));
    std::string header = read_file(dir / "pair_fn.h");
    EXPECT_NE(header.find("pair_fn("), std::string::npos) << header;
    fs::remove_all(dir);
}

/** stdout and stderr of a shell command, and its exit status. */
RunResult run_tool(const std::string &command) {
    RunResult r{-1, "", ""};
    FILE *pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.out.append(buf, n);
    int status = pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

TEST(GeneratorDriverExecutable, TimeoutStopsASlowGeneratorWithAnError) {
    // slow_generate sleeps sleep_ms in generate(): 60 s against -t 1. Had
    // the watchdog not fired, it would exit 0 and write the header; an abort
    // or a signal reads as -1 here.
    fs::path dir = fresh_dir("exe_timeout");
    RunResult r = run_executable("-g slow_generate -o " + dir.string() + " -e h -t 1 sleep_ms=60000");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("Error: generator 'slow_generate' ran longer than the -t limit of 1 seconds"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("-t 0 for no limit"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "slow_generate.h"));

    // Within the limit, and with no limit, the same generator finishes.
    for (const std::string limit : {"-t 60", "-t 0"}) {
        RunResult ok = run_executable("-g slow_generate -o " + dir.string() + " -e h " + limit + " sleep_ms=200");
        EXPECT_EQ(ok.code, 0) << limit << "\n" << ok.err;
        EXPECT_TRUE(fs::exists(dir / "slow_generate.h")) << limit;
        fs::remove(dir / "slow_generate.h");
    }
    fs::remove_all(dir);
}

TEST(GeneratorDriverExecutable, Avx512CodeOnAnyHost) {
    // The machine running the tests may lack AVX-512: the library is built
    // and read, not run. brighten vectorizes by the natural vector (64 uint8
    // lanes), which must stay whole zmm operations.
    fs::path dir = fresh_dir("exe_avx512");
    RunResult r = run_executable("-g brighten -o " + dir.string() +
                                 " -f bright512 -e static_library target=x86-64-linux-avx512_skylake");
    ASSERT_EQ(r.code, 0) << r.err;
    RunResult dis = run_tool("llvm-objdump-19 -d --no-show-raw-insn " + (dir / "bright512.a").string());
    ASSERT_EQ(dis.code, 0) << dis.out;
    EXPECT_NE(dis.out.find("zmm"), std::string::npos) << "no 512-bit operation in the avx512_skylake library";
    fs::remove_all(dir);
}

TEST(GeneratorDriverExecutable, GpuTargetsOfEveryArchitecture) {
    // A cross-compiled library carries the host code of its architecture
    // and the kernels as SPIR-V (whose first word is the magic 0x07230203).
    const std::string magic("\x03\x02\x23\x07", 4);
    const std::vector<std::pair<std::string, std::string>> targets = {
        {"x86-64-linux-vulkan", "elf64-x86-64"},
        {"arm-64-linux-vulkan", "elf64-littleaarch64"},
        {"host-vulkan", ""},
    };
    for (const auto &[target, format] : targets) {
        SCOPED_TRACE(target);
        fs::path dir = fresh_dir("exe_gpu_targets");
        RunResult r = run_executable("-g typed_axpy -o " + dir.string() +
                                     " -f axpy_gpu -e static_library,h,stmt type=float32 target=" + target);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(read_file(dir / "axpy_gpu.stmt").find("// GPU kernel"), std::string::npos);
        EXPECT_NE(read_file(dir / "axpy_gpu.a").find(magic), std::string::npos) << "no SPIR-V in the library";
        if (!format.empty()) {
            RunResult objdump = run_tool("llvm-objdump-19 -f " + (dir / "axpy_gpu.a").string());
            EXPECT_EQ(objdump.code, 0) << objdump.out;
            EXPECT_NE(objdump.out.find(format), std::string::npos) << objdump.out;
        }
        fs::remove_all(dir);
    }
}

// ---- Input/Output shapes, new emits and -r ------------------------------------------

TEST(GeneratorDriverParse, NewEmitsAndRuntime) {
    GeneratorCommand c = parse_generator_command(
        {"-g", "brighten", "-o", "d", "-e", "c_header,function_info_header,schedule,static_library"});
    EXPECT_EQ(c.emit, (std::vector<OutputFileType>{OutputFileType::c_header, OutputFileType::static_library}));
    EXPECT_EQ(c.driver_emit, (std::vector<std::string>{"function_info_header", "schedule"}));
    c = parse_generator_command({"-r", "loom_rt", "-o", "d"});
    EXPECT_EQ(c.runtime_name, "loom_rt");
    EXPECT_EQ(c.emit, (std::vector<OutputFileType>{OutputFileType::static_library}));
    c = parse_generator_command({"-r", "loom_rt", "-o", "d", "-e", "o,static_library", "target=x86-64-linux"});
    EXPECT_EQ(c.emit, (std::vector<OutputFileType>{OutputFileType::object, OutputFileType::static_library}));
    EXPECT_COMPILE_ERROR(parse_generator_command({"-g", "b", "-o", "d", "-e", "pytorch_wrapper"}),
                         "'pytorch_wrapper' is not supported", "PyTorch");
    c = parse_generator_command({"-g", "b", "-o", "d", "-e", "registration,cpp_stub,h"});
    EXPECT_EQ(c.emit, (std::vector<OutputFileType>{OutputFileType::c_header}));
    EXPECT_EQ(c.driver_emit, (std::vector<std::string>{"registration", "cpp_stub"}));
    EXPECT_COMPILE_ERROR(parse_generator_command({"-g", "b", "-o", "d", "-e", "python_extension"}), "not supported",
                         "Python");
    EXPECT_EQ(parse_generator_command({"-g", "b", "-o", "d", "-p", "libautoschedule_adams2019.so"}).plugins,
              (std::vector<std::string>{"libautoschedule_adams2019.so"}));
    EXPECT_COMPILE_ERROR(parse_generator_command({"-r", "rt", "-g", "brighten", "-o", "d"}), "-r and -g");
    c = parse_generator_command({"-r", "rt", "-o", "d", "-e", "h"});  // the runtime's header
    EXPECT_EQ(c.emit, (std::vector<OutputFileType>{OutputFileType::c_header}));
    EXPECT_COMPILE_ERROR(parse_generator_command({"-r", "rt", "-o", "d", "-e", "assembly"}),
                         "static_library, o and h only", "'assembly' needs a generator");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-r", "rt", "-o", "d", "-e", "schedule"}),
                         "static_library, o and h only", "'schedule' needs a generator");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-r", "rt", "-o", "d", "offset=3"}), "no GeneratorParams");
    EXPECT_COMPILE_ERROR(parse_generator_command({"-r", "my-rt", "-o", "d"}), "-r: 'my-rt'");
}

TEST(GeneratorDriverExecutable, ShapesFromTheCommandLineAndNewEmits) {
    fs::path dir = fresh_dir("exe_shapes");
    RunResult r = run_executable("-g func_inputs -o " + dir.string() +
                                 " -e c_header,static_library,function_info_header,schedule in.type=int16 in.dim=2"
                                 " level=root");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "func_inputs.a"));
    EXPECT_NE(read_file(dir / "func_inputs.h").find("func_inputs("), std::string::npos);
    std::string info = read_file(dir / "func_inputs.function_info.h");
    EXPECT_NE(info.find("func_inputs_argument_info()"), std::string::npos) << info;
    EXPECT_NE(info.find("{\"in\", ::LoomFunctionInfo::ArgumentKind::InputBuffer, 2, ::LoomFunctionInfo::TypeCode::Int, "
                        "16, 1}"),
              std::string::npos)
        << info;
    EXPECT_NE(info.find("{\"out\", ::LoomFunctionInfo::ArgumentKind::OutputBuffer, 2"), std::string::npos) << info;
    std::string schedule = read_file(dir / "func_inputs.schedule.h");
    EXPECT_NE(schedule.find("No autoscheduler"), std::string::npos) << schedule;
    EXPECT_NE(schedule.find("level=root"), std::string::npos) << schedule;
    // The function info header is valid C++17 with its static_asserts.
    std::ofstream check(dir / "check.cpp");
    check << "#include \"func_inputs.function_info.h\"\n"
             "#include \"func_inputs.schedule.h\"\n"
             "static_assert(func_inputs_argument_info().size() == 3);\n"
             "static_assert(func_inputs_argument_info()[1].name == \"bias\");\n"
             "static_assert(func_inputs_argument_info()[2].kind == LoomFunctionInfo::ArgumentKind::OutputBuffer);\n";
    check.close();
    RunResult cc = run_tool("c++ -std=c++17 -fsyntax-only -I" + dir.string() + " " + (dir / "check.cpp").string());
    EXPECT_EQ(cc.code, 0) << cc.out;

    RunResult list = run_executable("-l");
    EXPECT_NE(list.out.find("Input/Output shapes settable: in.type, in.dim, k.dim, out.type, out.dim"),
              std::string::npos)
        << list.out;
    EXPECT_NE(list.out.find("level=inlined  (LoopLevel)"), std::string::npos) << list.out;

    fs::path arrays = fresh_dir("exe_arrays");
    r = run_executable("-g array_sum -o " + arrays.string() + " -e h planes.size=2");
    ASSERT_EQ(r.code, 0) << r.err;
    std::string header = read_file(arrays / "array_sum.h");
    EXPECT_NE(header.find("planes_1"), std::string::npos) << header;
    EXPECT_EQ(header.find("planes_2"), std::string::npos) << header;
    EXPECT_NE(header.find("outs_1"), std::string::npos) << header;
    fs::remove_all(dir);
    fs::remove_all(arrays);
}

TEST(GeneratorDriverExecutable, ShapeErrorsExitWithOne) {
    fs::path dir = fresh_dir("exe_shape_errors");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"-g func_inputs -o " + dir.string(), "Input 'in' has no type yet"},
        {"-g func_inputs -o " + dir.string() + " in.type=uint8", "Input 'in' has no dimension count"},
        {"-g func_inputs -o " + dir.string() + " in.type=uint8 in.dim=2 bias.type=int8", "declares its type"},
        {"-g func_inputs -o " + dir.string() + " in.type=uint8 in.dim=2 level=nowhere", "not a LoopLevel"},
        {"-g func_inputs -o " + dir.string() + " in.type=uint8 in.dim=2 in.size=3", "not an array"},
        {"-g func_inputs -o " + dir.string() + " in.type=uint7 in.dim=2", "uint7"},
        {"-g array_sum -o " + dir.string(), "Input 'planes' has no size yet"},
        {"-g array_sum -o " + dir.string() + " planes.size=-1", "[0, 1024]"},
        {"-g brighten -o " + dir.string() + " -e python_extension", "not supported"},
        {"-r rt -g brighten -o " + dir.string(), "-r and -g"},
        {"-r rt -o " + dir.string() + " target=wasm-32-wasmrt", "wasm"},
    };
    for (const auto &[args, message] : cases) {
        RunResult r = run_executable(args);
        EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
        EXPECT_NE(r.err.find("Error: "), std::string::npos) << args << "\n" << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    }
    fs::remove_all(dir);
}

TEST(GeneratorDriverExecutable, RuntimeAloneLinksWithPipelinesWithoutIt) {
    // -r writes the runtime alone; a pipeline written with -e o (no runtime)
    // links against it. A C program calls the pipeline and checks it.
    fs::path dir = fresh_dir("exe_runtime");
    RunResult r = run_executable("-r loom_rt -o " + dir.string() + " -e static_library,o,h");
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(fs::exists(dir / "loom_rt.a"));
    ASSERT_TRUE(fs::exists(dir / "loom_rt.o"));
    ASSERT_TRUE(fs::exists(dir / "loom_rt.h"));  // the runtime's API, with the pipeline's header below
    RunResult nm = run_tool("llvm-nm-19 --defined-only " + (dir / "loom_rt.a").string());
    EXPECT_EQ(nm.code, 0) << nm.out;
    EXPECT_NE(nm.out.find("loom_malloc"), std::string::npos) << nm.out.substr(0, 2000);
    r = run_executable("-g two_outputs -o " + dir.string() + " -e o,h");
    ASSERT_EQ(r.code, 0) << r.err;
    std::ofstream main_c(dir / "main.c");
    main_c << "#include \"loom_rt.h\"\n"
              "#include \"two_outputs.h\"\n"
              "int main(void) {\n"
              "    loom_set_num_threads(2);\n"
              "    int32_t a[4] = {1, 2, 3, 4}, s[4], d[4], p[4];\n"
              "    loom_dimension_t dim = {0, 4, 1, 0};\n"
              "    loom_buffer_t ba = {0}, bs = {0}, bd = {0}, bp = {0};\n"
              "    loom_buffer_t *bufs[4] = {&ba, &bs, &bd, &bp};\n"
              "    int32_t *data[4] = {a, s, d, p};\n"
              "    for (int i = 0; i < 4; i++) {\n"
              "        bufs[i]->host = (uint8_t *)data[i];\n"
              "        bufs[i]->type.code = loom_type_int;\n"
              "        bufs[i]->type.bits = 32;\n"
              "        bufs[i]->type.lanes = 1;\n"
              "        bufs[i]->dimensions = 1;\n"
              "        bufs[i]->dim = &dim;\n"
              "    }\n"
              "    if (two_outputs(&ba, 10, &bs, &bd, &bp) != 0) return 2;\n"
              "    for (int i = 0; i < 4; i++) {\n"
              "        if (s[i] != a[i] + 10 || d[i] != a[i] - 10 || p[i] != a[i] * 10) return 3;\n"
              "    }\n"
              "    return 0;\n"
              "}\n";
    main_c.close();
    std::string exe = (dir / "main").string();
    RunResult link = run_tool("cc -I" + dir.string() + " " + (dir / "main.c").string() + " " +
                              (dir / "two_outputs.o").string() + " " + (dir / "loom_rt.a").string() +
                              " -lpthread -ldl -lm -o " + exe);
    ASSERT_EQ(link.code, 0) << link.out;
    RunResult run = run_tool(exe);
    EXPECT_EQ(run.code, 0) << run.out;
    fs::remove_all(dir);
}

TEST(GeneratorHeaders, NewMembersCompileAsCxx17) {
    // Applications and installed generator projects may build with C++17:
    // every new member kind must instantiate there too.
    const fs::path include_dir = LOOM_INCLUDE_DIR;
    fs::path dir = fresh_dir("cxx17");
    fs::create_directories(dir);
    std::ofstream src(dir / "gen17.cpp");
    src << "#include \"loom/Generator.h\"\n"
           "class G : public loom::Generator<G> {\n"
           "public:\n"
           "    Input<Buffer<uint8_t>[]> planes{\"planes\", 1};\n"
           "    Input<Func[2]> w{\"w\", loom::Int(32), 1};\n"
           "    Input<int32_t[]> c{\"c\", 0, -1, 1};\n"
           "    Input<float[2]> f{\"f\", 1.0f};\n"
           "    Input<Func> in{\"in\"};\n"
           "    Input<Buffer<>> any{\"any\"};\n"
           "    Output<Func[]> outs{\"outs\", loom::Int(32), 1};\n"
           "    Output<Buffer<float>[2]> fixed{\"fixed\", 1};\n"
           "    Output<Func> o{\"o\"};\n"
           "    GeneratorParam<LoopLevel> l{\"l\", LoopLevel::root()};\n"
           "    void configure() { add_input<Func>(\"extra\", loom::Int(32), 1); }\n"
           "    void generate() {\n"
           "        o(x) = planes[0](x) + w[1](x) + c[0] + in(x);\n"
           "        outs.resize(1);\n"
           "        outs[0](x) = x;\n"
           "        fixed[0](x) = f[0];\n"
           "        fixed[1](x) = f[1];\n"
           "    }\n"
           "    void schedule() { o.compute_at(l); o.set_estimates({{0, 64}}); }\n"
           "    loom::Var x{\"x\"};\n"
           "};\n"
           "LOOM_REGISTER_GENERATOR(G, g17)\n";
    src.close();
    RunResult cc = run_tool("c++ -std=c++17 -fsyntax-only -I" + include_dir.string() + " " + (dir / "gen17.cpp").string());
    EXPECT_EQ(cc.code, 0) << cc.out;
    fs::remove_all(dir);
}

}  // namespace
