// compile_kernel_to_spirv: the kernel's interface (storage buffers, push
// constants, entry point, workgroup size), then its body (the visitors in
// CodeGen_SPIRV_{Arith,Calls,Stmt}.cpp); validation and disassembly through
// SPIRV-Tools' C API.
//
// Vulkan 1.0 modules are SPIR-V 1.0 and use the StorageBuffer storage class
// through SPV_KHR_storage_buffer_storage_class; vk_v12 gives SPIR-V 1.5 and
// vk_v13 SPIR-V 1.6, where the entry point lists every global variable it
// uses (before 1.4 only its Input and Output variables) and float controls
// keep signed zeros, NaNs and infinities (SignedZeroInfNanPreserve).

#include <spirv-tools/libspirv.h>

#include <cstdlib>
#include <fstream>
#include <memory>

#include "codegen/spirv/CodeGen_SPIRV_Internal.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace spirv {

uint32_t spirv_version_for(const Target &target) {
    if (target.has_feature(Target::VkV13)) return 0x00010600;
    if (target.has_feature(Target::VkV12)) return 0x00010500;
    return 0x00010000;
}

namespace {

spv_target_env vulkan_environment(const Target &target) {
    if (target.has_feature(Target::VkV13)) return SPV_ENV_VULKAN_1_3;
    if (target.has_feature(Target::VkV12)) return SPV_ENV_VULKAN_1_2;
    return SPV_ENV_VULKAN_1_0;
}

// Push constants narrower than 32 bits travel as 32-bit members (the
// header's contract says lowering widens them; this keeps a narrower one
// valid too) and are converted back after loading.
Type push_constant_member_type(Type t) {
    if (t.bits() >= 32) return t;
    if (t.is_float()) return Float(32);
    return t.is_int() ? Int(32) : UInt(32);
}

// A file name from a kernel name: anything but [A-Za-z0-9_.-] becomes '_'.
std::string file_name_for(const std::string &kernel_name) {
    std::string s = kernel_name.empty() ? std::string("kernel") : kernel_name;
    for (char &c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.' || c == '-';
        if (!ok) c = '_';
    }
    return s;
}

void dump_module(const std::string &dir, const std::string &kernel_name, const std::vector<uint32_t> &words) {
    const std::string base = dir + "/" + file_name_for(kernel_name);
    std::ofstream binary(base + ".spv", std::ios::binary);
    binary.write(reinterpret_cast<const char *>(words.data()), std::streamsize(words.size() * sizeof(uint32_t)));
    std::ofstream text(base + ".spvasm");
    text << disassemble_spirv(words);
}

}  // namespace

CodeGenSPIRV::CodeGenSPIRV(const GPUKernel &kernel, const Target &target)
    : kernel_(kernel), target_(target), module_(spirv_version_for(target)), types_(module_, target, describe_kernel(kernel)) {}

std::vector<uint32_t> CodeGenSPIRV::compile() {
    if (!kernel_.body.defined()) throw InternalError("spirv: kernel '" + kernel_.name + "' has no body");
    module_.add_capability(spv::Capability::Shader);
    declare_buffers();
    const Id push_constants = declare_push_constants();

    const Id function = module_.reserve_id();
    const Id void_type = types_.void_type();
    current_block_ = module_.begin_function(function, void_type, module_.type_function(void_type, {}));
    module_.add_name(function, kernel_.name);
    {
        // The scalars, loaded once in the entry block, are in scope for the body.
        std::vector<std::unique_ptr<ScopedBinding<SpvValue>>> bindings;
        for (auto &[name, value] : load_push_constants(push_constants)) {
            bindings.push_back(std::make_unique<ScopedBinding<SpvValue>>(symbols_, name, value));
        }
        codegen(kernel_.body);
    }
    module_.emit_void(spv::Op::OpReturn, {});
    module_.end_function();
    declare_entry_point(function);
    return module_.finish();
}

// Storage buffers: set 0, binding i for the i-th buffer argument, each a
// Block struct of one runtime array (one struct per element type).
void CodeGenSPIRV::declare_buffers() {
    uint32_t binding = 0;
    for (const GPUKernelArgument &arg : kernel_.args) {
        if (!arg.is_buffer) continue;
        if (!module_.version_at_least(1, 3)) module_.add_extension("SPV_KHR_storage_buffer_storage_class");
        types_.require_in_storage_buffer(arg.type, arg.name);
        const Id element = types_.storage_element(arg.type);
        Id &block = buffer_structs_[element];
        if (!block) {
            const Id array = module_.type_runtime_array(element);
            module_.decorate(array, spv::Decoration::ArrayStride, {uint32_t(arg.type.bytes())});
            block = module_.type_struct({array});
            module_.decorate(block, spv::Decoration::Block);
            module_.decorate_member(block, 0, spv::Decoration::Offset, {0});
        }
        const Id variable = module_.global_variable(module_.type_pointer(spv::StorageClass::StorageBuffer, block),
                                                    spv::StorageClass::StorageBuffer);
        module_.decorate(variable, spv::Decoration::DescriptorSet, {0});
        module_.decorate(variable, spv::Decoration::Binding, {binding++});
        module_.add_name(variable, arg.name);
        MemoryBinding m;
        m.variable = variable;
        m.storage = spv::StorageClass::StorageBuffer;
        m.element = arg.type.element_of();
        m.is_buffer = true;
        m.bool_as_byte = arg.type.is_bool();
        memories_.push(arg.name, m);
    }
}

// Scalars: the members of one Block in argument order, C struct layout
// (which is also std140's for scalars), in push constants or, past
// LOOM_VULKAN_MAX_PUSH_CONSTANT_BYTES, in a uniform buffer bound after the
// storage buffers. Returns the variable (0 when there are no scalars).
Id CodeGenSPIRV::declare_push_constants() {
    std::vector<Id> members;
    for (const GPUKernelArgument &arg : kernel_.args) {
        if (arg.is_buffer) continue;
        if (!arg.type.is_scalar()) {
            throw InternalError("spirv: scalar argument '" + arg.name + "' of kernel '" + kernel_.name +
                                "' is a vector");
        }
        members.push_back(types_.of(push_constant_member_type(arg.type)));
    }
    if (members.empty()) return 0;
    const Id block = module_.type_struct(members);
    module_.decorate(block, spv::Decoration::Block);
    uint32_t offset = 0, member = 0;
    for (const GPUKernelArgument &arg : kernel_.args) {
        if (arg.is_buffer) continue;
        const uint32_t size = uint32_t(push_constant_member_type(arg.type).bytes());
        offset = (offset + size - 1) / size * size;
        module_.decorate_member(block, member, spv::Decoration::Offset, {offset});
        module_.add_member_name(block, member++, arg.name);
        offset += size;
    }
    scalar_storage_ = offset > LOOM_VULKAN_MAX_PUSH_CONSTANT_BYTES ? spv::StorageClass::Uniform
                                                                   : spv::StorageClass::PushConstant;
    const Id variable = module_.global_variable(module_.type_pointer(scalar_storage_, block), scalar_storage_);
    if (scalar_storage_ == spv::StorageClass::Uniform) {
        uint32_t buffers = 0;
        for (const GPUKernelArgument &arg : kernel_.args) buffers += arg.is_buffer;
        module_.decorate(variable, spv::Decoration::DescriptorSet, {0});
        module_.decorate(variable, spv::Decoration::Binding, {buffers});
    }
    module_.add_name(variable, "scalar_arguments");
    return variable;
}

std::vector<std::pair<std::string, SpvValue>> CodeGenSPIRV::load_push_constants(Id push_constants) {
    std::vector<std::pair<std::string, SpvValue>> values;
    uint32_t member = 0;
    for (const GPUKernelArgument &arg : kernel_.args) {
        if (arg.is_buffer) continue;
        const Type member_type = push_constant_member_type(arg.type);
        const Id type = types_.of(member_type);
        const Id pointer = module_.emit(spv::Op::OpAccessChain,
                                        module_.type_pointer(scalar_storage_, type),
                                        {push_constants, types_.i32(int32_t(member++))});
        SpvValue v{member_type, {module_.emit(spv::Op::OpLoad, type, {pointer})}};
        values.emplace_back(arg.name, convert(v, arg.type));
    }
    return values;
}

void CodeGenSPIRV::declare_entry_point(Id function) {
    std::vector<Id> interface;
    for (const auto &[variable, storage] : module_.global_variables()) {
        const bool io = storage == spv::StorageClass::Input || storage == spv::StorageClass::Output;
        if (io || module_.version_at_least(1, 4)) interface.push_back(variable);
    }
    module_.add_entry_point(spv::ExecutionModel::GLCompute, function, kernel_.name, interface);
    const int *size = kernel_.workgroup_size;
    for (int d = 0; d < 3; d++) {
        if (size[d] < 1) {
            throw InternalError("spirv: kernel '" + kernel_.name + "' has workgroup size " +
                                std::to_string(size[d]) + " in dimension " + std::to_string(d));
        }
    }
    module_.add_execution_mode(function, spv::ExecutionMode::LocalSize,
                               {uint32_t(size[0]), uint32_t(size[1]), uint32_t(size[2])});
    // Without this, Vulkan lets the driver ignore the sign of zero and treat
    // NaN and infinity as it likes (x * 0.0 folded to 0.0, x != x to false);
    // the CPU back end keeps IEEE semantics. Float controls are core from
    // SPIR-V 1.4, i.e. with vk_v12 and vk_v13; Vulkan 1.0 modules leave the
    // choice to the driver.
    if (module_.version_at_least(1, 4) && !types_.float_widths().empty()) {
        module_.add_capability(spv::Capability::SignedZeroInfNanPreserve);
        for (int width : types_.float_widths()) {
            module_.add_execution_mode(function, spv::ExecutionMode::SignedZeroInfNanPreserve, {uint32_t(width)});
        }
    }
}

}  // namespace spirv

std::vector<uint32_t> compile_kernel_to_spirv(const GPUKernel &kernel, const Target &target) {
    spirv::CodeGenSPIRV codegen(kernel, target);
    std::vector<uint32_t> words = codegen.compile();
    if (const char *dir = std::getenv("LOOM_DEBUG_SPIRV"); dir && *dir) spirv::dump_module(dir, kernel.name, words);
    std::string message = validate_spirv(words, target);
    if (!message.empty()) {
        throw InternalError("SPIR-V code generation made an invalid module for kernel '" + kernel.name +
                            "': " + message + " (set LOOM_DEBUG_SPIRV=<dir> to keep the module)");
    }
    return words;
}

std::string validate_spirv(const std::vector<uint32_t> &words, const Target &target) {
    if (words.empty()) return "empty SPIR-V module";
    spv_context context = spvContextCreate(spirv::vulkan_environment(target));
    spv_const_binary_t binary{words.data(), words.size()};
    spv_diagnostic diagnostic = nullptr;
    const spv_result_t result = spvValidate(context, &binary, &diagnostic);
    std::string message;
    if (result != SPV_SUCCESS) {
        message = diagnostic && diagnostic->error ? std::string(diagnostic->error)
                                                  : "SPIR-V validation failed (spv_result_t " +
                                                        std::to_string(int(result)) + ")";
        if (message.empty()) message = "SPIR-V validation failed";
    }
    spvDiagnosticDestroy(diagnostic);
    spvContextDestroy(context);
    return message;
}

std::string disassemble_spirv(const std::vector<uint32_t> &words) {
    spv_context context = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    spv_text text = nullptr;
    spv_diagnostic diagnostic = nullptr;
    const spv_result_t result =
        spvBinaryToText(context, words.data(), words.size(),
                        SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT, &text,
                        &diagnostic);
    std::string out;
    if (result == SPV_SUCCESS && text) {
        out.assign(text->str, text->length);
    } else {
        out = "; SPIR-V disassembly failed: ";
        out += diagnostic && diagnostic->error ? diagnostic->error : "unknown error";
        out += "\n";
    }
    spvTextDestroy(text);
    spvDiagnosticDestroy(diagnostic);
    spvContextDestroy(context);
    return out;
}

}  // namespace internal
}  // namespace loom
