#include "codegen/llvm/JITModule.h"

#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/Mangling.h>
#include <llvm/ExecutionEngine/Orc/TaskDispatch.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

namespace loom::internal {

namespace {

namespace orc = llvm::orc;

// The C runtime ABI (loom_runtime.h) that generated code calls. Add new
// runtime entry points here so that JIT code can resolve them.
const std::pair<const char *, void *> runtime_symbols[] = {
    {"loom_set_error_handler", reinterpret_cast<void *>(&loom_set_error_handler)},
    {"loom_error", reinterpret_cast<void *>(&loom_error)},
    {"loom_set_print_handler", reinterpret_cast<void *>(&loom_set_print_handler)},
    {"loom_print", reinterpret_cast<void *>(&loom_print)},
    {"loom_trace", reinterpret_cast<void *>(&loom_trace)},
    {"loom_memoization_cache_lookup", reinterpret_cast<void *>(&loom_memoization_cache_lookup)},
    {"loom_memoization_cache_store", reinterpret_cast<void *>(&loom_memoization_cache_store)},
    {"loom_malloc", reinterpret_cast<void *>(&loom_malloc)},
    {"loom_free", reinterpret_cast<void *>(&loom_free)},
    {"loom_vulkan_device_interface", reinterpret_cast<void *>(&loom_vulkan_device_interface)},
    {"loom_device_malloc", reinterpret_cast<void *>(&loom_device_malloc)},
    {"loom_device_free", reinterpret_cast<void *>(&loom_device_free)},
    {"loom_copy_to_device", reinterpret_cast<void *>(&loom_copy_to_device)},
    {"loom_copy_to_host", reinterpret_cast<void *>(&loom_copy_to_host)},
    {"loom_device_sync", reinterpret_cast<void *>(&loom_device_sync)},
    {"loom_device_wrap_native", reinterpret_cast<void *>(&loom_device_wrap_native)},
    {"loom_device_detach_native", reinterpret_cast<void *>(&loom_device_detach_native)},
    {"loom_device_native_handle", reinterpret_cast<void *>(&loom_device_native_handle)},
    {"loom_device_release", reinterpret_cast<void *>(&loom_device_release)},
    {"loom_vulkan_initialize_kernels", reinterpret_cast<void *>(&loom_vulkan_initialize_kernels)},
    {"loom_vulkan_run", reinterpret_cast<void *>(&loom_vulkan_run)},
    {"loom_vulkan_get_device_info", reinterpret_cast<void *>(&loom_vulkan_get_device_info)},
};

// Errors that ORC reports asynchronously (e.g. a symbol that no library
// defines) would otherwise go to stderr; keep them for the exception.
class ErrorLog {
public:
    void add(llvm::Error err) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!text_.empty()) text_ += "; ";
        text_ += llvm::toString(std::move(err));
    }
    std::string text() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return text_;
    }

private:
    mutable std::mutex mutex_;
    std::string text_;
};

std::string describe(llvm::Error err, const ErrorLog &log) {
    std::string message = llvm::toString(std::move(err));
    const std::string reported = log.text();
    if (!reported.empty() && reported != message) message += " (" + reported + ")";
    return message;
}

// JIT code runs on this CPU, so the target must not ask for more.
void check_runnable_on_host(const Target &t) {
    const Target host = get_host_target();
    if (t.arch != host.arch || t.bits != host.bits || t.os != host.os) {
        throw CompileError("Cannot JIT-compile for target " + t.to_string() + " in a process running on " +
                           host.to_string() + ": arch, bits and OS must match the host.");
    }
    std::string missing;
    for (int i = 0; i < Target::FeatureEnd; i++) {
        auto f = Target::Feature(i);
        // no_neon removes a capability, so it never asks too much.
        if (!is_isa_feature(f) || f == Target::NoNEON) continue;
        if (t.has_feature(f) && !host.has_feature(f)) {
            missing += ' ';
            missing += Target::feature_to_name(f);
        }
    }
    if (!missing.empty()) {
        throw CompileError("Cannot JIT-compile for target " + t.to_string() +
                           ": this CPU lacks the features" + missing + " (host is " + host.to_string() + ").");
    }
}

llvm::CodeGenOptLevel codegen_opt_level(int level) {
    switch (level) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 2: return llvm::CodeGenOptLevel::Default;
    default: return llvm::CodeGenOptLevel::Aggressive;
    }
}

// Names of everything the module defines that other code can call.
std::vector<std::string> exported_symbol_names(const llvm::Module &m) {
    std::vector<std::string> names;
    for (const llvm::GlobalValue &gv : m.global_values()) {
        if (gv.isDeclarationForLinker() || gv.hasLocalLinkage()) continue;
        names.push_back(gv.getName().str());
    }
    return names;
}

std::unique_ptr<orc::LLJIT> create_jit(std::unique_ptr<llvm::TargetMachine> tm, const llvm::DataLayout &layout,
                                       const std::shared_ptr<ErrorLog> &log) {
    // Run materialisation on the calling thread: compile() does the work
    // itself, and no thread is spawned per module.
    auto epc = orc::SelfExecutorProcessControl::Create(nullptr, std::make_unique<orc::InPlaceTaskDispatcher>());
    if (!epc) throw InternalError("Cannot create the JIT process control: " + llvm::toString(epc.takeError()));

    orc::JITTargetMachineBuilder jtmb(tm->getTargetTriple());
    jtmb.setCPU(tm->getTargetCPU().str())
        .setFeatures(tm->getTargetFeatureString())
        .setOptions(tm->Options)
        .setRelocationModel(tm->getRelocationModel())
        .setCodeGenOptLevel(tm->getOptLevel());

    // The optimiser already built a TargetMachine for this target; hand the
    // same one to the code generator instead of building another.
    auto shared_tm = std::make_shared<std::unique_ptr<llvm::TargetMachine>>(std::move(tm));
    auto compile_function = [shared_tm](orc::JITTargetMachineBuilder)
        -> llvm::Expected<std::unique_ptr<orc::IRCompileLayer::IRCompiler>> {
        if (!*shared_tm) {
            return llvm::make_error<llvm::StringError>("target machine already used",
                                                       llvm::inconvertibleErrorCode());
        }
        return std::make_unique<orc::TMOwningSimpleCompiler>(std::move(*shared_tm));
    };

    auto jit = orc::LLJITBuilder()
                   .setExecutorProcessControl(std::move(*epc))
                   .setJITTargetMachineBuilder(std::move(jtmb))
                   .setDataLayout(layout)
                   .setCompileFunctionCreator(std::move(compile_function))
                   .setLinkProcessSymbolsByDefault(false)
                   .setPlatformSetUp(orc::setUpInactivePlatform)
                   .create();
    if (!jit) throw InternalError("Cannot create the LLVM JIT: " + llvm::toString(jit.takeError()));
    (*jit)->getExecutionSession().setErrorReporter([log](llvm::Error err) { log->add(std::move(err)); });
    return std::move(*jit);
}

// The runtime and extern functions first, then anything in this process.
void add_symbol_sources(orc::LLJIT &jit, const JITModule::SymbolMap &extern_symbols) {
    orc::JITDylib &main = jit.getMainJITDylib();
    orc::MangleAndInterner mangle(jit.getExecutionSession(), jit.getDataLayout());
    const auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;

    orc::SymbolMap symbols;
    for (const auto &[name, address] : runtime_symbols) {
        symbols[mangle(name)] = {orc::ExecutorAddr::fromPtr(address), flags};
    }
    for (const auto &[name, address] : extern_symbols) {
        symbols[mangle(name)] = {orc::ExecutorAddr::fromPtr(address), flags};
    }
    if (auto err = main.define(orc::absoluteSymbols(std::move(symbols)))) {
        throw InternalError("Cannot define the Loom runtime symbols in the JIT: " + llvm::toString(std::move(err)));
    }

    auto process = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit.getDataLayout().getGlobalPrefix());
    if (!process) {
        throw InternalError("Cannot search this process for symbols: " + llvm::toString(process.takeError()));
    }
    main.addGenerator(std::move(*process));
}

}  // namespace

int jit_opt_level_from_environment() {
    const char *v = std::getenv("LOOM_JIT_OPT_LEVEL");
    if (!v || !*v) return 3;
    if (v[0] >= '0' && v[0] <= '3' && v[1] == '\0') return v[0] - '0';
    throw CompileError("LOOM_JIT_OPT_LEVEL is '" + std::string(v) +
                       "'; it must be 0, 1, 2 or 3 (the LLVM optimisation level of JIT code; unset means 3).");
}

std::unique_ptr<llvm::LLVMContext> make_unnamed_llvm_context() {
    auto context = std::make_unique<llvm::LLVMContext>();
    context->setDiscardValueNames(true);
    return context;
}

struct JITModule::Impl {
    Target target;
    std::shared_ptr<ErrorLog> errors = std::make_shared<ErrorLog>();
    std::unique_ptr<orc::LLJIT> jit;
    std::map<std::string, void *> symbols;  // everything the module exports, by IR name
};

JITModule::JITModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

JITModule::~JITModule() = default;

std::shared_ptr<JITModule> JITModule::compile(std::unique_ptr<llvm::Module> module,
                                              std::unique_ptr<llvm::LLVMContext> context, const Target &target,
                                              const SymbolMap &extern_symbols) {
    if (!module || !context) throw InternalError("JITModule::compile needs a module and its context");
    if (&module->getContext() != context.get()) {
        throw InternalError("JITModule::compile: the module does not belong to the given context");
    }
    check_runnable_on_host(target);

    auto impl = std::make_unique<Impl>();
    impl->target = target;

    std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(target);
    module->setTargetTriple(tm->getTargetTriple().str());
    module->setDataLayout(tm->createDataLayout());
    verify_module(*module);
    const int level = jit_opt_level_from_environment();
    optimize_module(*module, *tm, level);
    tm->setOptLevel(codegen_opt_level(level));

    const std::vector<std::string> names = exported_symbol_names(*module);
    const llvm::DataLayout layout = module->getDataLayout();
    impl->jit = create_jit(std::move(tm), layout, impl->errors);
    orc::LLJIT &jit = *impl->jit;
    add_symbol_sources(jit, extern_symbols);

    if (auto err = jit.addIRModule(orc::ThreadSafeModule(std::move(module), std::move(context)))) {
        throw InternalError("Cannot add the module to the JIT: " + describe(std::move(err), *impl->errors));
    }

    // Compile and link everything now, so that errors surface here and
    // lookup() is a map read.
    orc::MangleAndInterner mangle(jit.getExecutionSession(), jit.getDataLayout());
    orc::SymbolLookupSet wanted;
    std::map<orc::SymbolStringPtr, std::string> ir_names;
    for (const std::string &name : names) {
        orc::SymbolStringPtr mangled = mangle(name);
        wanted.add(mangled);
        ir_names[mangled] = name;
    }
    if (!names.empty()) {
        auto found = jit.getExecutionSession().lookup(orc::makeJITDylibSearchOrder(&jit.getMainJITDylib()),
                                                      std::move(wanted));
        if (!found) {
            throw InternalError("JIT compilation failed: " + describe(found.takeError(), *impl->errors));
        }
        for (const auto &[mangled, def] : *found) {
            impl->symbols[ir_names[mangled]] = def.getAddress().toPtr<void *>();
        }
    }

    return std::shared_ptr<JITModule>(new JITModule(std::move(impl)));
}

void *JITModule::lookup(const std::string &name) const {
    // Only the module's own symbols: a typo must not silently find a libc
    // function of the same name.
    auto it = impl_->symbols.find(name);
    if (it == impl_->symbols.end()) {
        throw InternalError("JIT module has no symbol named '" + name + "'");
    }
    return it->second;
}

const Target &JITModule::target() const {
    return impl_->target;
}

}  // namespace loom::internal
