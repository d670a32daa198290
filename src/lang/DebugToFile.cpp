// Func::debug_to_file (Halide's): records the file name on the Function; the
// lowering pass lower/InjectDebugToFile.cpp calls the runtime's writer
// (runtime/DebugToFile.c) after each production.

#include "lang/DebugToFile.h"

#include "lang/Backend.h"
#include "loom/Error.h"
#include "loom/Func.h"

namespace loom {

Func &Func::debug_to_file(const std::string &filename) {
    if (filename.empty()) {
        throw CompileError("Func '" + name() + "'.debug_to_file(): the file name is empty. Name a .npy, .mat or "
                           ".tiff file.");
    }
    if (filename.find('\0') != std::string::npos) {
        throw CompileError("Func '" + name() + "'.debug_to_file(): the file name holds a null character.");
    }
    func_.get()->schedule.debug_file = filename;
    internal::mark_changed(*func_.get());
    return *this;
}

namespace internal {

void check_debug_to_file_runnable(const std::vector<FunctionPtr> &functions, bool interpreter) {
    if (!interpreter) return;
    for (const FunctionPtr &fp : functions) {
        const FunctionContents &f = *fp.get();
        if (f.schedule.debug_file.empty()) continue;
        throw CompileError("Func '" + f.name + "' has debug_to_file(\"" + f.schedule.debug_file +
                           "\"): the reference interpreter calls no runtime functions and cannot write the file. "
                           "Realize it with the LLVM JIT back end.");
    }
}

}  // namespace internal
}  // namespace loom
