#include "loom/ImageParam.h"

#include "ir/IR.h"
#include "lang/ConstraintGeneration.h"
#include "lang/UniqueName.h"
#include "lang/Wrappers.h"
#include "loom/Func.h"
#include "loom/IROperator.h"

namespace loom {

namespace internal {

void bind_buffer(const Parameter &param, const Buffer<> &buffer) {
    // The keepalive is a loom::Buffer<> so bound_buffer() can return it with
    // its name; ImageParams are not owned by buffers, so this makes no cycle.
    Parameter p = param;
    p.set_buffer(buffer.raw_buffer(), std::make_shared<Buffer<>>(buffer));
}

Buffer<> bound_buffer(const Parameter &param) {
    if (!param.defined() || !param.buffer() || !param.get()->buffer_keepalive) return Buffer<>();
    return *std::static_pointer_cast<Buffer<>>(param.get()->buffer_keepalive);
}

}  // namespace internal

ImageParam::ImageParam(Type type, int dimensions) : ImageParam(type, dimensions, internal::unique_name('p')) {}

ImageParam::ImageParam(Type type, int dimensions, const std::string &name)
    : OutputImageParam(internal::Parameter(type, true, dimensions, name)),
      wrapper_(std::make_shared<internal::FunctionPtr>()) {
    if (name.empty()) throw CompileError("An ImageParam needs a non-empty name.");
    if (dimensions < 0) throw CompileError("ImageParam '" + name + "' can't have a negative number of dimensions.");
    if (!type.defined() || type.is_vector()) {
        throw CompileError("ImageParam '" + name + "' needs a scalar element type.");
    }
}

namespace {
const internal::Parameter &checked(const internal::Parameter &p) {
    if (!p.defined()) throw CompileError("This ImageParam is undefined (default-constructed).");
    return p;
}
}  // namespace


ImageParam &ImageParam::trace_loads() {
    checked(parameter()).get()->trace_loads = true;
    internal::advance_input_constraint_generation();  // compiled pipelines must add the traces
    return *this;
}

ImageParam &ImageParam::add_trace_tag(const std::string &tag) {
    if (tag.find('\0') != std::string::npos) {
        throw CompileError("ImageParam '" + name() + "'.add_trace_tag(): a trace tag can't hold a null character.");
    }
    checked(parameter()).get()->trace_tags.push_back(tag);
    internal::advance_input_constraint_generation();
    return *this;
}

void ImageParam::set(const Buffer<> &buffer) {
    const std::string &n = name();
    if (!buffer.defined()) throw CompileError("ImageParam '" + n + "' can't be set to an undefined Buffer.");
    if (buffer.type() != type()) {
        throw CompileError("ImageParam '" + n + "' has type " + type().to_string() + ", but is set to Buffer " +
                           buffer.name() + " of type " + buffer.type().to_string() + ".");
    }
    if (buffer.dimensions() != dimensions()) {
        throw CompileError("ImageParam '" + n + "' has " + std::to_string(dimensions()) +
                           " dimensions, but is set to Buffer " + buffer.name() + " with " +
                           std::to_string(buffer.dimensions()) + ".");
    }
    internal::bind_buffer(param_, buffer);
}

Buffer<> ImageParam::get() const { return internal::bound_buffer(checked(param_)); }

void ImageParam::reset() {
    internal::Parameter p = checked(param_);
    p.set_buffer(nullptr, nullptr);
}

Expr ImageParam::operator()(const std::vector<Expr> &args) const { return internal::image_access(checked(param_), args); }

ImageParam::operator Func() const {
    checked(param_);
    if (wrapper_->defined()) return Func(*wrapper_);
    Func f(internal::unique_func_name(name() + "_im"));
    f(_) = (*this)(_);
    *wrapper_ = f.function();
    return f;
}

Func ImageParam::in(const Func &g) { return in(std::vector<Func>{g}); }

Func ImageParam::in(const std::vector<Func> &gs) {
    if (gs.empty()) throw CompileError("ImageParam '" + name() + "'.in({}) names no consumer; use in() for all.");
    return internal::image_wrapper_of(checked(param_), gs, [&](Func &w) { w(_) = (*this)(_); });
}

Func ImageParam::in() {
    return internal::image_wrapper_of(checked(param_), {}, [&](Func &w) { w(_) = (*this)(_); });
}

}  // namespace loom
