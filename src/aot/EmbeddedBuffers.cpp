// Module::append(Buffer): buffers compiled into a Module's object as global
// loom_buffer_t structs (EmbeddedBuffers.h).

#include "aot/EmbeddedBuffers.h"

#include <cstring>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "aot/AotArguments.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"

namespace loom {
namespace internal {

namespace {

/** The elements of b in dense order (dimension 0 innermost), as bytes. */
std::vector<uint8_t> dense_bytes(const loom_buffer_t &b) {
    const size_t element = (b.type.bits + 7) / 8;
    size_t count = 1;
    for (int d = 0; d < b.dimensions; d++) count *= (size_t)b.dim[d].extent;
    std::vector<uint8_t> out(count * element);
    std::vector<int32_t> index(b.dimensions, 0);
    for (size_t i = 0; i < count; i++) {
        int64_t offset = 0;
        for (int d = 0; d < b.dimensions; d++) offset += (int64_t)index[d] * b.dim[d].stride;
        std::memcpy(out.data() + i * element, b.host + offset * (int64_t)element, element);
        for (int d = 0; d < b.dimensions && ++index[d] == b.dim[d].extent; d++) index[d] = 0;
    }
    return out;
}

}  // namespace

void check_embeddable_buffer(const Buffer<> &buffer, const std::string &what) {
    if (!buffer.defined()) throw CompileError(what + ": the Buffer is undefined; give it a size and a name.");
    const std::string name = buffer.name();
    if (!is_c_identifier(name) || name.rfind("loom_", 0) == 0) {
        throw CompileError(what + ": Buffer '" + name +
                           "' names a global of the object, so its name must be a C identifier not starting with "
                           "'loom_'; construct it with one (Buffer<uint8_t>(w, \"table\")).");
    }
    const loom_buffer_t *raw = buffer.raw_buffer();
    if (!raw->host) {
        throw CompileError(what + ": Buffer '" + name + "' has no host memory to embed.");
    }
    if (raw->flags & loom_buffer_flag_device_dirty) {
        throw CompileError(what + ": Buffer '" + name +
                           "' is newer on its device than on the host; call copy_to_host() before appending it.");
    }
}

namespace {

/** The global loom_buffer_t `name` (and its private data and dims) holding a
 * dense copy of raw's elements. */
llvm::GlobalVariable *add_buffer_global(llvm::Module &m, const loom_buffer_t &raw, const std::string &name,
                                        llvm::GlobalValue::LinkageTypes linkage) {
    llvm::LLVMContext &c = m.getContext();
    llvm::Type *i8 = llvm::Type::getInt8Ty(c), *i16 = llvm::Type::getInt16Ty(c);
    llvm::Type *i32 = llvm::Type::getInt32Ty(c), *i64 = llvm::Type::getInt64Ty(c);
    llvm::PointerType *ptr = llvm::PointerType::get(c, 0);
    // loom_runtime.h's loom_type_t, loom_dimension_t and loom_buffer_t; the
    // target's DataLayout places the fields as its C compiler does.
    llvm::StructType *type_t = llvm::StructType::get(c, {i8, i8, i16});
    llvm::StructType *dim_t = llvm::StructType::get(c, {i32, i32, i32, i32});
    llvm::StructType *buffer_t = llvm::StructType::get(c, {i64, ptr, ptr, i64, type_t, i32, ptr, ptr});
    const std::vector<uint8_t> bytes = dense_bytes(raw);
    auto *data = new llvm::GlobalVariable(m, llvm::ArrayType::get(i8, bytes.size()), /*isConstant=*/false,
                                          llvm::GlobalValue::PrivateLinkage,
                                          llvm::ConstantDataArray::get(c, llvm::ArrayRef<uint8_t>(bytes)),
                                          name + ".data");
    data->setAlignment(llvm::Align(64));
    std::vector<llvm::Constant *> dims;
    int32_t stride = 1;
    for (int d = 0; d < raw.dimensions; d++) {
        dims.push_back(llvm::ConstantStruct::get(
            dim_t, {llvm::ConstantInt::get(i32, raw.dim[d].min), llvm::ConstantInt::get(i32, raw.dim[d].extent),
                    llvm::ConstantInt::get(i32, stride), llvm::ConstantInt::get(i32, 0)}));
        stride *= raw.dim[d].extent;
    }
    llvm::Constant *dim_pointer = llvm::ConstantPointerNull::get(ptr);
    if (!dims.empty()) {
        llvm::ArrayType *dims_t = llvm::ArrayType::get(dim_t, dims.size());
        dim_pointer = new llvm::GlobalVariable(m, dims_t, /*isConstant=*/false, llvm::GlobalValue::PrivateLinkage,
                                               llvm::ConstantArray::get(dims_t, dims), name + ".dim");
    }
    llvm::Constant *type = llvm::ConstantStruct::get(
        type_t, {llvm::ConstantInt::get(i8, raw.type.code), llvm::ConstantInt::get(i8, raw.type.bits),
                 llvm::ConstantInt::get(i16, raw.type.lanes)});
    llvm::Constant *value = llvm::ConstantStruct::get(
        buffer_t, {llvm::ConstantInt::get(i64, 0), llvm::ConstantPointerNull::get(ptr), data,
                   llvm::ConstantInt::get(i64, 0), type, llvm::ConstantInt::get(i32, raw.dimensions), dim_pointer,
                   llvm::ConstantPointerNull::get(ptr)});
    return new llvm::GlobalVariable(m, buffer_t, /*isConstant=*/false, linkage, value, name);
}

}  // namespace

void add_embedded_buffers(llvm::Module &m, const std::vector<Buffer<>> &buffers) {
    for (const Buffer<> &b : buffers) add_buffer_global(m, *b.raw_buffer(), b.name(), llvm::GlobalValue::ExternalLinkage);
}

std::string embedded_buffer_accessor(const std::string &fn_name, const std::string &buffer_name) {
    return fn_name + ".embedded_buffer." + buffer_name;
}

void check_pipeline_embedded_buffer(const Parameter &buffer, const std::string &fn_name, const std::string &what) {
    const loom_buffer_t *raw = buffer.buffer();
    const std::string who = what + " of '" + fn_name + "': Buffer '" + buffer.name() + "'";
    const std::string why = " (the pipeline reads it directly and it is not in the argument list, so it is embedded "
                            "in the object, as in Halide)";
    if (!raw || !raw->host) {
        throw CompileError(who + " has no host memory to embed" + why + ". Give it memory, or pass it as an "
                           "argument (add it to args).");
    }
    if (raw->flags & loom_buffer_flag_device_dirty) {
        throw CompileError(who + " is newer on its device than on the host" + why + ". Call copy_to_host() first.");
    }
}

void define_embedded_buffer_accessor(llvm::Module &m, const std::string &fn_name, const Parameter &buffer) {
    const std::string accessor = embedded_buffer_accessor(fn_name, buffer.name());
    llvm::Function *fn = m.getFunction(accessor);
    if (!fn) return;  // lowering dropped the read (e.g. a specialization never taken)
    if (!fn->isDeclaration()) throw InternalError("embedded buffer accessor " + accessor + " defined twice");
    llvm::GlobalVariable *global = add_buffer_global(m, *buffer.buffer(), accessor + ".buffer",
                                                     llvm::GlobalValue::PrivateLinkage);
    fn->setLinkage(llvm::GlobalValue::InternalLinkage);
    llvm::IRBuilder<> builder(llvm::BasicBlock::Create(m.getContext(), "entry", fn));
    builder.CreateRet(global);
}

std::string embedded_buffer_declarations(const std::vector<Buffer<>> &buffers) {
    std::string text;
    for (const Buffer<> &b : buffers) {
        const loom_buffer_t &raw = *b.raw_buffer();
        std::string shape;
        for (int d = 0; d < raw.dimensions; d++) {
            shape += (d ? " x " : "") + std::to_string(raw.dim[d].extent);
        }
        text += "/* Embedded buffer of " + b.type().to_string() + (shape.empty() ? ", 0 dimensions" : ", " + shape) +
                " (dense; min " ;
        for (int d = 0; d < raw.dimensions; d++) text += (d ? ", " : "") + std::to_string(raw.dim[d].min);
        text += std::string(raw.dimensions ? "" : "-") + "): pass &" + b.name() + " to the functions. */\n";
        text += "extern struct loom_buffer_t " + b.name() + ";\n\n";
    }
    return text;
}

}  // namespace internal
}  // namespace loom
