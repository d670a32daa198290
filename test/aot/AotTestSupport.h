#ifndef LOOM_TEST_AOT_AOT_TEST_SUPPORT_H
#define LOOM_TEST_AOT_AOT_TEST_SUPPORT_H

// Helpers for the ahead-of-time tests: a scratch directory per test, running
// shell commands (the C compiler, nm, readelf, llvm tools) and reading files.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace loom_test {

/** The repository's root, from this file's path. Ninja passes paths relative
 * to the build directory, which holds test/test_aot (this executable). */
inline std::string repository_root() {
    std::string file = __FILE__;  // <root>/test/aot/AotTestSupport.h
    if (file[0] != '/') {
        char exe[4096] = {0};
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        std::string build = n > 0 ? std::string(exe, (size_t)n) : std::string(".");
        for (int i = 0; i < 2; i++) build = build.substr(0, build.find_last_of('/'));  // <build>/test/test_aot
        file = build + "/" + file;
    }
    for (int i = 0; i < 3; i++) file = file.substr(0, file.find_last_of('/'));
    char resolved[4096];
    return realpath(file.c_str(), resolved) ? std::string(resolved) : file;
}

struct CommandResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together, unless redirected
};

/** Runs `command` with /bin/sh, capturing stdout (append 2>&1 for stderr). */
inline CommandResult run_command(const std::string &command) {
    CommandResult result;
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe) return result;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, pipe)) > 0) result.output.append(chunk, n);
    int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

/** True if `tool` is on PATH. */
/** These tests check real files with the system's tools. They are never
 * skipped: scripts/setup.sh installs every tool they use, and a skipped test
 * would hide exactly what it checks. */
constexpr const char *kToolsHint =
    "a tool is missing: cc, c++, nm, readelf (build-essential, binutils) and llvm-objdump, llvm-as (llvm-19) are "
    "needed; scripts/setup.sh installs them";

inline bool have_tool(const std::string &tool) {
    return run_command("command -v " + tool + " >/dev/null 2>&1").exit_code == 0;
}

/** The first of the names that is on PATH, or "". */
inline std::string find_tool(std::initializer_list<const char *> names) {
    for (const char *n : names) {
        if (have_tool(n)) return n;
    }
    return "";
}

inline std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_file(const std::string &path, const std::string &text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

inline bool file_exists(const std::string &path) { return access(path.c_str(), F_OK) == 0; }

/** A fresh directory under $TMPDIR (or /tmp), removed with its files. */
class ScratchDir {
public:
    ScratchDir() {
        const char *tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/loom_aot_XXXXXX";
        if (mkdtemp(pattern.data())) path_ = pattern;
    }
    ~ScratchDir() {
        if (!path_.empty() && !std::getenv("LOOM_KEEP_TEST_FILES")) run_command("rm -rf '" + path_ + "'");
    }
    ScratchDir(const ScratchDir &) = delete;
    ScratchDir &operator=(const ScratchDir &) = delete;

    const std::string &path() const { return path_; }
    std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

}  // namespace loom_test

#endif
