#ifndef LOOM_LANG_GENERATOR_DRIVER_H
#define LOOM_LANG_GENERATOR_DRIVER_H

/** \file
 * The generator driver behind every generator executable, split into a
 * parser and a runner so both can be tested without starting a process:
 *
 *     gen -g NAME -o DIR [-e static_library,h,...] [-f FUNCTION_NAME] [-n FILE_BASE_NAME]
 *         [target=TARGET] [param=value ...]
 *     gen -r NAME -o DIR [-e static_library,o] [target=TARGET]   # the runtime alone
 *     gen -l            # list the registered generators and their GeneratorParams
 *     -p LIBS, -s NAME, -t SECONDS, -d 0: autoscheduler plugins, the default
 *     autoscheduler, a time limit, no gradient module (docs/AUTOSCHEDULER.md)
 *
 * generate_filter_main() (declared in loom/Generator.h) = parse + run, with
 * every error reported on stderr and exit code 1.
 */

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "loom/Argument.h"
#include "loom/OutputFileType.h"
#include "loom/Target.h"

namespace loom {
class GeneratorBase;
namespace internal {

struct GeneratorCommand {
    bool help = false;
    bool list = false;
    std::string generator;       // -g; empty: the only registered one
    std::string output_dir;      // -o
    std::string function_name;   // -f; empty: the generator's name
    std::string file_base_name;  // -n; empty: the function name
    std::vector<OutputFileType> emit = {OutputFileType::static_library, OutputFileType::c_header};  // -e
    std::string target;          // target=...; empty: $LOOM_TARGET or the host
    std::vector<std::pair<std::string, std::string>> params;  // name=value, in command-line order
    /** -e kinds the driver writes itself (not an OutputFileType):
     * "function_info_header", "schedule", "registration", "cpp_stub". */
    std::vector<std::string> driver_emit;
    std::string runtime_name;  // -r: write the runtime alone as DIR/NAME.a (and .o with -e o)
    std::vector<std::string> plugins;    // -p: libraries load_plugin() loads first
    std::string default_autoscheduler;   // -s: Pipeline::set_default_autoscheduler_name
    /** -t: seconds the generator may run before the driver gives up with an
     * error (0: no limit; Halide's default is 900). */
    int timeout_seconds = 900;
    /** -d 1: compile the gradient module instead (lang/GeneratorGradient.h). */
    bool gradient = false;
};

/** -r: the Loom runtime for target alone, as a static library and/or an
 * object file (an empty path skips one). \throws CompileError for a target
 * without a runtime. */
void write_standalone_runtime(const Target &target, const std::string &static_library_path,
                              const std::string &object_path);

/** The text of the function_info_header emit: constexpr metadata of the
 * generated function's arguments (C++17). */
std::string function_info_header_text(const std::string &function_name, const std::vector<Argument> &args);

/** The text of the cpp_stub emit (NAME.stub.h) for a generator that has
 * not been built: class stub_name ("ns::Name" or "Name") with Inputs,
 * GeneratorParams, Outputs and generate() (loom/GeneratorStub.h), from the
 * declared members (not those configure() adds). */
std::string cpp_stub_text(const GeneratorBase &g, const std::string &stub_name);

/** Parses the arguments after argv[0]. \throws CompileError for an unknown
 * option, an option without its value, an unknown -e kind (listing the valid
 * ones), a stray argument without '=', a param given twice, or a missing -o
 * when something is to be generated. */
GeneratorCommand parse_generator_command(const std::vector<std::string> &args);

/** Runs a parsed command: lists, or creates the generator, sets the target
 * and params and writes DIR/FILE_BASE_NAME.<ext> for each -e kind. Messages
 * go to out (listings) and err (errors). Returns the exit code: 0, or 1 on
 * any error. Never throws. */
int run_generator_command(const GeneratorCommand &command, std::ostream &out, std::ostream &err);

/** The usage text. */
std::string generator_usage(const std::string &program);

}  // namespace internal
}  // namespace loom

#endif
