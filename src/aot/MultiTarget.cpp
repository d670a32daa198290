// compile_to_multitarget_static_library / _object_files (Halide's
// compile_multitarget): one variant of the pipeline per target, each a
// function NAME<suffix> (suffix: "-" + the target's string by default, as a
// C name: brighten_x86_64_linux_avx2_fma), and a dispatcher NAME with the
// same arguments that calls the first variant whose CPU features the running
// machine has, the last one otherwise. The dispatcher asks the runtime
// (runtime/CpuFeatures.c, once per process) for the CPU's features as a mask
// of Target::Feature bits and compares it with each variant's. Also defined:
// NAME_argv, NAME_metadata (the last target's), and
// `const char *NAME_loom_target(void)`, the target string of the variant
// that runs here, for logs and tests, as loom_add_library's dispatcher has.
//
// The dispatcher is made from the last variant's own code: its function is
// emitted as for any pipeline (so its signature, NAME_argv and metadata are
// exactly a pipeline's), then its body is replaced by the dispatch.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <unistd.h>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "aot/AotArguments.h"
#include "aot/CHeader.h"
#include "aot/CompileTo.h"
#include "aot/MultiTarget.h"
#include "aot/Metadata.h"
#include "aot/RuntimeModule.h"
#include "aot/StaticLibrary.h"
#include "codegen/llvm/CodeGen_LLVM.h"
#include "codegen/llvm/EmitObject.h"
#include "codegen/llvm/LLVMTarget.h"
#include "codegen/llvm/Optimize.h"
#include "lang/GeneratorDriver.h"
#include "lang/JITPipeline.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/Pipeline.h"
#include "runtime/CpuFeatures.h"

namespace loom {
namespace internal {

namespace {

static_assert(Target::SSE41 == LOOM_CPU_FEATURE_SSE41 && Target::AVXVNNI == LOOM_CPU_FEATURE_AVXVNNI,
              "runtime/CpuFeatures.h numbers the x86 features as Target::Feature does");

/** The x86 features a target's code needs from the CPU, as the runtime's
 * mask (bit i = Target::Feature i). */
uint64_t required_cpu_features(const Target &t) {
    uint64_t mask = 0;
    for (int f = Target::SSE41; f <= Target::AVXVNNI; f++) {
        if (t.has_feature((Target::Feature)f)) mask |= uint64_t(1) << f;
    }
    return mask;
}

struct Variant {
    Target target;
    std::string suffix;  // of the file name
    std::string function;
    std::shared_ptr<ModuleContents> module;
};

void check_targets(const std::vector<Target> &targets, const std::vector<std::string> &suffixes,
                   const std::string &what) {
    if (targets.empty()) {
        throw CompileError(what + ": no targets were given. List at least one, the most capable first and a "
                                  "baseline (such as x86-64-linux) last.");
    }
    if (!suffixes.empty() && suffixes.size() != targets.size()) {
        throw CompileError(what + ": " + std::to_string(suffixes.size()) + " suffixes for " +
                           std::to_string(targets.size()) + " targets. Give one suffix per target, or none.");
    }
    const Target &first = targets[0];
    std::set<std::string> seen;
    for (const Target &t : targets) {
        if (t.arch == Target::ArchUnknown) {
            throw CompileError(what + ": a target is unknown (Target()). Name each target, e.g. "
                                      "Target(\"x86-64-linux-avx2\").");
        }
        if (!seen.insert(t.to_string()).second) {
            throw CompileError(what + ": the target " + t.to_string() + " is listed twice. List each once.");
        }
        if (t.arch != first.arch || t.bits != first.bits || t.os != first.os) {
            throw CompileError(what + ": the targets " + first.to_string() + " and " + t.to_string() +
                               " differ in architecture, bits or OS; the variants of one library may differ only "
                               "in their CPU features. Make one library per architecture and OS.");
        }
        for (int f = 0; f < Target::FeatureEnd; f++) {
            const auto feature = (Target::Feature)f;
            if (is_isa_feature(feature) || t.has_feature(feature) == first.has_feature(feature)) continue;
            throw CompileError(what + ": the targets " + first.to_string() + " and " + t.to_string() +
                               " differ in '" + Target::feature_to_name(feature) +
                               "', which is no CPU feature; the variants of one library may differ only in "
                               "their CPU features. Give every target the same other features.");
        }
    }
    if (targets.size() > 1 && first.arch != Target::X86) {
        throw CompileError(what + ": choosing between targets at run time works for x86 targets only, and " +
                           first.to_string() + " is not one. Give one target.");
    }
}

/** Lowers the pipeline once per target, as NAME<suffix>. */
std::vector<Variant> lower_variants(const std::string &fn_name, const std::vector<Target> &targets,
                                    const std::vector<std::string> &suffixes, const LowerForTarget &lower,
                                    const std::string &what) {
    std::vector<Variant> variants;
    std::set<std::string> functions;
    for (size_t i = 0; i < targets.size(); i++) {
        Variant v;
        v.target = targets[i];
        v.suffix = suffixes.empty() ? "-" + targets[i].to_string() : suffixes[i];
        v.function = fn_name + c_safe_name(v.suffix);
        if (!suffixes.empty() && v.suffix.empty()) {
            throw CompileError(what + ": the suffix of target " + targets[i].to_string() +
                               " is empty; each variant needs a suffix of its own.");
        }
        if (!functions.insert(v.function).second) {
            throw CompileError(what + ": two targets' suffixes both make the function name '" + v.function +
                               "'. Give each target a distinct suffix.");
        }
        v.module = lower(v.function, v.target);
        variants.push_back(std::move(v));
    }
    return variants;
}

/** The index of the first variant the running CPU can use (the last one if
 * none), computed from the runtime's feature mask. */
llvm::Value *chosen_variant(llvm::IRBuilder<> &b, llvm::Module &m, const std::vector<Variant> &variants) {
    llvm::FunctionCallee detect =
        m.getOrInsertFunction("loom_cpu_target_features", llvm::FunctionType::get(b.getInt64Ty(), false));
    llvm::Value *features = b.CreateCall(detect, {}, "cpu_features");
    llvm::Value *index = b.getInt32((uint32_t)variants.size() - 1);
    for (size_t i = variants.size() - 1; i-- > 0;) {
        llvm::Value *need = b.getInt64(required_cpu_features(variants[i].target));
        llvm::Value *ok = b.CreateICmpEQ(b.CreateAnd(features, need), need);
        index = b.CreateSelect(ok, b.getInt32((uint32_t)i), index);
    }
    return index;
}

/** Replaces the body of NAME by the dispatch, and adds NAME_loom_target. */
void emit_dispatch(llvm::Module &m, const std::string &fn_name, const std::vector<Variant> &variants) {
    llvm::LLVMContext &context = m.getContext();
    llvm::Function *fn = m.getFunction(fn_name);
    if (!fn) throw InternalError("compile_to_multitarget: the dispatcher's module has no function " + fn_name);
    fn->deleteBody();
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", fn));
    llvm::Value *index = chosen_variant(b, m, variants);
    std::vector<llvm::Value *> args;
    for (llvm::Argument &a : fn->args()) args.push_back(&a);
    // switch (index) { case i: return NAME<suffix i>(args...); }, the last
    // variant as the default.
    std::vector<llvm::BasicBlock *> calls;
    for (const Variant &v : variants) {
        llvm::Function *variant =
            llvm::Function::Create(fn->getFunctionType(), llvm::Function::ExternalLinkage, v.function, &m);
        variant->setAttributes(fn->getAttributes());
        calls.push_back(llvm::BasicBlock::Create(context, "call_" + v.function, fn));
        llvm::IRBuilder<> call_builder(calls.back());
        llvm::CallInst *call = call_builder.CreateCall(variant, args);
        call->setAttributes(fn->getAttributes());
        call->setTailCall();
        call_builder.CreateRet(call);
    }
    llvm::SwitchInst *choice = b.CreateSwitch(index, calls.back(), (unsigned)calls.size() - 1);
    for (size_t i = 0; i + 1 < calls.size(); i++) choice->addCase(b.getInt32((uint32_t)i), calls[i]);

    // const char *NAME_loom_target(void)
    llvm::Function *names = llvm::Function::Create(llvm::FunctionType::get(b.getPtrTy(), false),
                                                   llvm::Function::ExternalLinkage, fn_name + "_loom_target", &m);
    llvm::IRBuilder<> nb(llvm::BasicBlock::Create(context, "entry", names));
    std::vector<llvm::Constant *> strings;
    for (const Variant &v : variants) {
        strings.push_back(nb.CreateGlobalStringPtr(v.target.to_string(), fn_name + ".loom_target_name"));
    }
    llvm::ArrayType *table_type = llvm::ArrayType::get(nb.getPtrTy(), strings.size());
    auto *table = new llvm::GlobalVariable(m, table_type, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                           llvm::ConstantArray::get(table_type, strings),
                                           fn_name + ".loom_target_names");
    llvm::Value *i = chosen_variant(nb, m, variants);
    llvm::Value *slot = nb.CreateInBoundsGEP(table_type, table, {nb.getInt32(0), i});
    nb.CreateRet(nb.CreateLoad(nb.getPtrTy(), slot));
}

/** The dispatcher's object: NAME, NAME_argv, NAME_metadata and
 * NAME_loom_target, for the last target, with the runtime if asked. */
std::string dispatcher_object(const std::string &fn_name, const std::vector<Variant> &variants, bool with_runtime,
                              LoweredFunc *wrapper) {
    const Target &base = variants.back().target;
    *wrapper = variants.back().module->sources.at(0).func;
    wrapper->name = fn_name;
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> m = codegen_llvm(*wrapper, base, context);
    add_metadata_function(*m, *wrapper, base);
    emit_dispatch(*m, fn_name, variants);
    if (with_runtime) link_aot_runtime(*m, base);
    verify_module(*m);
    std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(base);
    optimize_module(*m, *tm);
    return emit_object(*m, base);
}

/** A variant's object (its code and metadata, no runtime), through a
 * temporary file. */
std::string variant_object(const Variant &v, const std::string &what) {
    static std::atomic<int> counter{0};
    const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                       ("loom_multitarget_" + std::to_string(getpid()) + "_" +
                                        std::to_string(counter++) + ".o");
    compile_module_to_files(*v.module, {{OutputFileType::object, path.string()}}, what);
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    in.close();
    std::filesystem::remove(path);
    return bytes.str();
}

void write_text(const std::string &path, const std::string &text, const std::string &what) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw CompileError(what + ": cannot write '" + path + "'.");
}

const std::vector<FunctionPtr> &pipeline_outputs(const std::shared_ptr<PipelineContents> &p, const char *what) {
    if (!p) throw CompileError(std::string(what) + ": this Pipeline is undefined (default-constructed).");
    return p->outputs;
}

/** Func's and Pipeline's calls: the function is named after the first output. */
void compile_outputs_multitarget(const std::vector<FunctionPtr> &outputs, const std::string &prefix,
                                 const std::vector<Argument> &args, const std::vector<Target> &targets,
                                 const std::vector<std::string> &suffixes, bool static_library,
                                 const std::string &what) {
    compile_multitarget(default_function_name(outputs, what), prefix, targets, suffixes, static_library,
                        [&](const std::string &fn, const Target &t) {
                            return lower_to_module(outputs, args, fn, t, what);
                        },
                        what);
}

}  // namespace

void compile_multitarget(const std::string &fn_name, const std::string &prefix, const std::vector<Target> &targets,
                         const std::vector<std::string> &suffixes, bool static_library, const LowerForTarget &lower,
                         const std::string &what) {
    check_targets(targets, suffixes, what);
    check_function_name(fn_name, what);
    std::vector<Variant> variants = lower_variants(fn_name, targets, suffixes, lower, what);
    const Target &base = variants.back().target;
    const bool with_runtime = !base.has_feature(Target::NoRuntime);
    if (with_runtime) require_aot_runtime(base);

    // Everything is made in memory first, so that nothing is written unless
    // all of it could be made.
    std::vector<std::pair<std::string, std::string>> objects;  // file or member name, bytes
    for (const Variant &v : variants) objects.emplace_back(v.function, variant_object(v, what));
    LoweredFunc wrapper;
    const std::string dispatcher = dispatcher_object(fn_name, variants, with_runtime && static_library, &wrapper);
    const std::string header = c_header_text(wrapper, base);

    if (static_library) {
        for (auto &[name, bytes] : objects) name += ".o";
        objects.emplace_back(fn_name + ".o", dispatcher);
        write_static_library(prefix + ".a", objects);
    } else {
        for (size_t i = 0; i < variants.size(); i++) {
            write_text(prefix + variants[i].suffix + ".o", objects[i].second, what);
        }
        write_text(prefix + "_wrapper.o", dispatcher, what);
        if (with_runtime) write_standalone_runtime(base, "", prefix + "_runtime.o");
    }
    write_text(prefix + ".h", header, what);
}

}  // namespace internal

void Func::compile_to_multitarget_static_library(const std::string &filename_prefix,
                                                 const std::vector<Argument> &args,
                                                 const std::vector<Target> &targets) {
    internal::compile_outputs_multitarget({func_}, filename_prefix, args, targets, {}, /*static_library=*/true,
                                          "compile_to_multitarget_static_library");
}

void Func::compile_to_multitarget_object_files(const std::string &filename_prefix, const std::vector<Argument> &args,
                                               const std::vector<Target> &targets,
                                               const std::vector<std::string> &suffixes) {
    internal::compile_outputs_multitarget({func_}, filename_prefix, args, targets, suffixes,
                                          /*static_library=*/false, "compile_to_multitarget_object_files");
}

void Pipeline::compile_to_multitarget_static_library(const std::string &filename_prefix,
                                                     const std::vector<Argument> &args,
                                                     const std::vector<Target> &targets) {
    const char *what = "compile_to_multitarget_static_library";
    internal::compile_outputs_multitarget(internal::pipeline_outputs(contents_, what), filename_prefix, args,
                                          targets, {}, /*static_library=*/true, what);
}

void Pipeline::compile_to_multitarget_object_files(const std::string &filename_prefix,
                                                   const std::vector<Argument> &args,
                                                   const std::vector<Target> &targets,
                                                   const std::vector<std::string> &suffixes) {
    const char *what = "compile_to_multitarget_object_files";
    internal::compile_outputs_multitarget(internal::pipeline_outputs(contents_, what), filename_prefix, args,
                                          targets, suffixes, /*static_library=*/false, what);
}

}  // namespace loom
