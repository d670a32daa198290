// The generator driver's -r: the Loom runtime alone, as a static library
// (and an object), for applications that link several pipelines compiled
// without it (-e o).

#include <fstream>
#include <memory>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "aot/RuntimeModule.h"
#include "aot/StaticLibrary.h"
#include "codegen/llvm/EmitObject.h"
#include "codegen/llvm/LLVMTarget.h"
#include "lang/GeneratorDriver.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

void write_standalone_runtime(const Target &target, const std::string &static_library_path,
                              const std::string &object_path) {
    require_aot_runtime(target);
    llvm::LLVMContext context;
    auto module = std::make_unique<llvm::Module>("loom_runtime", context);
    std::unique_ptr<llvm::TargetMachine> machine = make_target_machine(target);
    module->setTargetTriple(llvm_triple(target));
    module->setDataLayout(machine->createDataLayout());
    link_aot_runtime(*module, target);
    std::string object = emit_object(*module, target);
    if (!static_library_path.empty()) write_static_library(static_library_path, "loom_runtime.o", object);
    if (!object_path.empty()) {
        std::ofstream out(object_path, std::ios::binary);
        out.write(object.data(), std::streamsize(object.size()));
        if (!out) throw CompileError("-r: can't write '" + object_path + "'.");
    }
}

}  // namespace internal
}  // namespace loom
