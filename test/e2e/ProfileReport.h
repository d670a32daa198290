// Reading the profiler's report (Target::Profile) in tests: collecting what
// a pipeline prints, the line of one Func and its share of the time.
#ifndef LOOM_TEST_E2E_PROFILE_REPORT_H
#define LOOM_TEST_E2E_PROFILE_REPORT_H

#include <mutex>
#include <regex>
#include <sstream>
#include <string>

#include <loom/JITUserContext.h>

namespace loom_test {

/** A JITUserContext whose print handler (record) collects what the
 * pipeline prints, the profiler's report included. */
struct PrintedContext : loom::JITUserContext {
    std::mutex mutex;
    std::string text;
};

inline void record(loom::JITUserContext *c, const char *message) {
    auto *p = static_cast<PrintedContext *>(c);
    std::lock_guard<std::mutex> lock(p->mutex);
    p->text += message;
}

/** The line of the report that starts with "  <name>: ", or "". */
inline std::string func_line(const std::string &report, const std::string &name) {
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("  " + name + ": ", 0) == 0) return line;
    }
    return "";
}

/** The percentage in "(N%)" on a Func's line, or -1. */
inline int percent_of(const std::string &line) {
    std::smatch m;
    if (!std::regex_search(line, m, std::regex(R"(\((\d+)%\))"))) return -1;
    return std::stoi(m[1]);
}

}  // namespace loom_test

#endif
