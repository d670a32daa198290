#include "loom/Buffer.h"

#include "ir/ConcreteBuffers.h"
#include "ir/IR.h"
#include "lang/UniqueName.h"
#include "loom/IROperator.h"
#include "loom/Var.h"
#include "runtime/ErrorCapture.h"

namespace loom {
namespace internal {

std::shared_ptr<BufferInfo> make_buffer_info(const std::string &name) {
    auto info = std::make_shared<BufferInfo>();
    info->name = name.empty() ? unique_name('b') : name;
    return info;
}

Parameter buffer_parameter(BufferInfo &info, const Runtime::Buffer<void> &storage) {
    if (info.param.defined()) return info.param;
    info.param = Parameter(Type(storage.type()), true, storage.dimensions(), info.name);
    // The keepalive holds the storage only (not the BufferInfo), so there is
    // no reference cycle through the Parameter.
    info.param.set_buffer(storage.raw_buffer(), std::make_shared<Runtime::Buffer<void>>(storage));
    note_concrete_buffer_parameter(info.param);  // not an ImageParam: memoize and AOT tell them apart
    return info.param;
}

const loom_device_interface_t *device_interface_for(DeviceAPI api, const std::string &buffer_name) {
    switch (api) {
    case DeviceAPI::Default_GPU:
    case DeviceAPI::Vulkan: return loom_vulkan_device_interface();
    case DeviceAPI::None:
    case DeviceAPI::Host: break;
    }
    throw CompileError("Buffer " + buffer_name +
                       ": device memory needs a GPU DeviceAPI (Vulkan or Default_GPU), not None or Host.");
}

void run_device_call(const std::string &buffer_name, const char *what, const std::function<int()> &call) {
    int result;
    std::string message;
    {
        ScopedErrorCapture capture;
        result = call();
        message = capture.message();
    }
    if (result == 0) return;
    throw RuntimeError("Buffer " + buffer_name + ": " + what + " failed (error " + std::to_string(result) +
                       (message.empty() ? std::string(")") : "): " + message));
}

void throw_buffer_type_mismatch(const std::string &name, Type actual, Type expected) {
    throw CompileError("Buffer " + name + " has element type " + actual.to_string() + ", but is used as a Buffer<" +
                       expected.to_string() + ">.");
}

void throw_buffer_dimensions_mismatch(const std::string &name, int actual, int expected) {
    throw RuntimeError("Buffer " + name + " has " + std::to_string(actual) + " dimensions, but is held by a Buffer<T, " +
                       std::to_string(expected) + "> (" + std::to_string(expected) +
                       " static dimensions); use Buffer<T> (AnyDims) or a buffer of " + std::to_string(expected) +
                       " dimensions.");
}

void throw_buffer_misuse(const std::string &buffer_name, const char *what) {
    // Runtime::Buffer's messages start "loom::Runtime::Buffer::<method>: ".
    std::string message = what;
    const std::string prefix = "loom::Runtime::Buffer::";
    if (message.compare(0, prefix.size(), prefix) == 0) message = message.substr(prefix.size());
    const std::string short_prefix = "loom::Runtime::Buffer: ";
    if (message.compare(0, short_prefix.size(), short_prefix) == 0) message = message.substr(short_prefix.size());
    throw RuntimeError("Buffer " + (buffer_name.empty() ? std::string("<undefined>") : buffer_name) + ": " + message);
}

void throw_undefined_buffer() {
    throw CompileError("An undefined Buffer (default-constructed, with no storage) is used in an Expr.");
}

Expr image_access(const Parameter &param, std::vector<Expr> args) {
    if (!param.defined()) throw CompileError("An undefined ImageParam is used in an Expr.");
    const std::string &name = param.name();
    const int dims = param.dimensions();
    for (size_t i = 0; i < args.size(); i++) {
        if (!args[i].defined()) throw CompileError("Coordinate " + std::to_string(i) + " in a read of " + name + " is undefined.");
    }
    // `_` stands for the dimensions not given explicitly.
    for (size_t i = 0; i < args.size(); i++) {
        const Variable *v = args[i].as<Variable>();
        if (!v || v->name != "_") continue;
        args.erase(args.begin() + i);
        std::vector<Expr> implicit;
        for (int k = 0; (int)(args.size() + implicit.size()) < dims; k++) implicit.push_back(Var::implicit(k));
        args.insert(args.begin() + i, implicit.begin(), implicit.end());
        break;
    }
    if ((int)args.size() != dims) {
        throw CompileError(name + " has " + std::to_string(dims) + " dimensions, but is read with " +
                           std::to_string(args.size()) + " coordinates.");
    }
    for (size_t i = 0; i < args.size(); i++) {
        Type t = args[i].type();
        if (!t.is_int_or_uint() || t.is_vector()) {
            throw CompileError("Coordinate " + std::to_string(i) + " in a read of " + name + " has type " +
                               t.to_string() + "; coordinates must be integers (cast<int> them).");
        }
        if (t != Int(32)) args[i] = cast(Int(32), args[i]);
    }
    return Call::make(param.type(), name, args, CallType::Image, FunctionPtr(), 0, param);
}

}  // namespace internal
}  // namespace loom
