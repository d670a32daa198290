// Command-line plumbing shared by the app runners (<app>_run): positional
// arguments, "--runs N", and turning a generated function's error code into
// an exception.
#ifndef LOOM_APPS_RUNNER_H
#define LOOM_APPS_RUNNER_H

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace apps {

struct RunnerArgs {
    std::vector<std::string> positional;
    int runs = 10;  // timed runs; the best is reported
};

/** Splits argv into positional arguments and "--runs N". \throws
 * std::invalid_argument for an unknown option or a bad count. */
inline RunnerArgs parse_runner_args(int argc, char **argv) {
    RunnerArgs args;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg == "--runs" && i + 1 < argc) {
            args.runs = std::atoi(argv[++i]);
            if (args.runs < 1) throw std::invalid_argument("--runs needs a positive count");
        } else if (arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9') && arg[1] != '.') {
            throw std::invalid_argument("unknown option " + arg);
        } else {
            args.positional.push_back(arg);
        }
    }
    return args;
}

/** Throws if a generated function returned an error (a negative
 * loom_error_code_t; the runtime has already printed its message). */
inline void check_status(const char *function, int error) {
    if (error != 0) throw std::runtime_error(std::string(function) + " returned error " + std::to_string(error));
}

/** The positional argument at index, as a float, or fallback if absent. */
inline float float_arg(const RunnerArgs &args, size_t index, float fallback) {
    return index < args.positional.size() ? std::strtof(args.positional[index].c_str(), nullptr) : fallback;
}

}  // namespace apps

#endif
