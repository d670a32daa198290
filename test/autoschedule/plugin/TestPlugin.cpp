// An autoscheduler plugin, as a user would write one: a shared library whose
// static initializer registers an autoscheduler with Loom. test_autoschedule
// loads it with load_plugin() (AutoScheduleApiTest.cpp, LoadPlugin).

#include "loom/Loom.h"

namespace {

void compute_outputs_at_root(const loom::Pipeline &pipeline, const loom::Target &target,
                             const loom::AutoschedulerParams &params, loom::AutoSchedulerResults *results) {
    std::string source = "// TestPlugin2026 for " + target.to_string() + "\n";
    for (loom::Func f : pipeline.outputs()) {
        f.compute_root();
        source += f.name() + ".compute_root();\n";
    }
    results->schedule_source = source + "// " + params.to_string() + "\n";
}

const bool registered = [] {
    loom::Pipeline::add_autoscheduler("TestPlugin2026", compute_outputs_at_root);
    return true;
}();

}  // namespace
