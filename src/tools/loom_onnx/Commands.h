#ifndef LOOM_ONNX_TOOL_COMMANDS_H
#define LOOM_ONNX_TOOL_COMMANDS_H

#include <string>
#include <vector>

namespace loom_onnx_tool {

/** Each returns the process exit code; args exclude the command name. */
int run_command(const std::vector<std::string> &args);
int test_command(const std::vector<std::string> &args);
int compile_command(const std::vector<std::string> &args);

}  // namespace loom_onnx_tool

#endif
