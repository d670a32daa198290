// loom-onnx: run, test and compile ONNX models with Loom (docs/ONNX.md).

#include <cstdio>
#include <string>
#include <vector>

#include "loom/Error.h"

#include "Commands.h"

namespace {
const char *usage =
    "usage:\n"
    "  loom-onnx run MODEL.onnx [--input NAME=FILE.pb|FILE.npy]... [--output-dir DIR]\n"
    "                [--target host|host-vulkan|TARGET] [--print-loop-nest] [--bench N]\n"
    "  loom-onnx test DIR... [--target host|host-vulkan|TARGET]\n"
    "                               run ONNX backend test directories (model.onnx, test_data_set_*)\n"
    "  loom-onnx compile MODEL.onnx -o DIR [--name NAME] [--input NAME=FILE]... [--target TARGET]\n"
    "                               write DIR/NAME.a and DIR/NAME.h\n"
    "--target host-vulkan (or any target with vulkan) gives the model's Funcs GPU schedules: their\n"
    "float32 and 8/16/32-bit integer work runs as kernels on the Vulkan device, a Loop's iterations\n"
    "stay a host loop around them, and loop notes say what stays on the host and why (docs/ONNX.md).\n";
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fputs(usage, stderr);
        return 2;
    }
    std::string command = argv[1];
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
        if (command == "run") return loom_onnx_tool::run_command(args);
        if (command == "test") return loom_onnx_tool::test_command(args);
        if (command == "compile") return loom_onnx_tool::compile_command(args);
        if (command == "--help" || command == "-h" || command == "help") {
            std::fputs(usage, stdout);
            return 0;
        }
    } catch (const loom::Error &e) {
        std::fprintf(stderr, "loom-onnx: %s\n", e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loom-onnx: %s\n", e.what());
        return 1;
    }
    std::fprintf(stderr, "loom-onnx: unknown command '%s'\n%s", command.c_str(), usage);
    return 2;
}
