#ifndef LOOM_INTERNAL_PARAMETER_H
#define LOOM_INTERNAL_PARAMETER_H

/** \file
 * The shared state behind a Param<T> or an ImageParam: a named pipeline input
 * whose value (a scalar, or a buffer) is supplied when the pipeline runs, so
 * that changing it never recompiles.
 */

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "loom/Expr.h"
#include "loom/internal/FunctionPtr.h"

namespace loom {
namespace internal {

/** What a buffer Parameter requires of one dimension of the buffer it is
 * bound to (ImageParam::dim(d).set_min(...), Func::output_buffer()...):
 * each Expr is undefined (no constraint) or an Int(32) Expr of Params and
 * buffer fields, checked when the pipeline runs and used by the compiler in
 * place of the buffer's field. The estimates constrain nothing: they are
 * recorded for tools that plan schedules. */
struct BufferConstraint {
    Expr min, extent, stride;
    Expr min_estimate, extent_estimate;
};

struct ParameterContents {
    std::string name;
    Type type;              // element type for buffers, value type for scalars
    bool is_buffer = false;
    int dimensions = 0;     // buffers only
    uint64_t scalar_bits = 0;  // the scalar's current value, bit-copied
    bool scalar_set = false;
    // Buffers: the bound buffer (not owned here) and something that keeps it alive.
    loom_buffer_t *buffer = nullptr;
    std::shared_ptr<void> buffer_keepalive;
    Expr scalar_min, scalar_max;  // optional range of a scalar, may be undefined
    /** Scalars: a typical value (Param::set_estimate), a constant of the
     * Param's type or undefined. Autoschedulers read it; it constrains nothing. */
    Expr scalar_estimate;
    /** Buffers: one per dimension. As in Halide, dimension 0 has stride 1
     * unless dim(0).set_stride(Expr()) removes that constraint. */
    std::vector<BufferConstraint> buffer_constraints;
    /** The output buffer of a Func (Func::output_buffer()), not an input:
     * lowering binds its fields itself and never makes it an argument. */
    bool is_output_buffer = false;
    /** Input buffers: ImageParam::trace_loads() and add_trace_tag(). */
    bool trace_loads = false;
    std::vector<std::string> trace_tags;
    /** Input buffers: ImageParam::in() (src/lang/Wrappers.h): the Func each
     * consumer reads instead of the buffer, by consumer name ("" for in():
     * every consumer without its own). Weak, as Func::in's: the consumers'
     * calls keep a wrapper alive. */
    std::map<std::string, FunctionPtr> wrappers;
    /** Input buffers: the Funcs whose definitions read it (weak), which a
     * later in() redirects. */
    std::vector<FunctionPtr> users;
};

/** A handle to ParameterContents; copies share the same parameter. */
class Parameter {
public:
    Parameter() = default;
    Parameter(Type type, bool is_buffer, int dimensions, const std::string &name)
        : contents_(std::make_shared<ParameterContents>()) {
        contents_->type = type;
        contents_->is_buffer = is_buffer;
        contents_->dimensions = dimensions;
        contents_->name = name;
        if (is_buffer && dimensions > 0) {
            contents_->buffer_constraints.resize(dimensions);
            contents_->buffer_constraints[0].stride = Expr(1);
        }
    }

    bool defined() const { return contents_ != nullptr; }
    const std::string &name() const { return contents_->name; }
    Type type() const { return contents_->type; }
    bool is_buffer() const { return contents_->is_buffer; }
    int dimensions() const { return contents_->dimensions; }

    template<typename T>
    void set_scalar(T value) {
        uint64_t bits = 0;
        static_assert(sizeof(T) <= sizeof(bits), "scalar too large");
        std::memcpy(&bits, &value, sizeof(T));
        contents_->scalar_bits = bits;
        contents_->scalar_set = true;
    }
    template<typename T>
    T scalar() const {
        T value;
        std::memcpy(&value, &contents_->scalar_bits, sizeof(T));
        return value;
    }
    /** Address of the scalar's storage, passed to compiled pipelines. */
    void *scalar_address() const { return &contents_->scalar_bits; }
    bool scalar_set() const { return contents_->scalar_set; }

    void set_buffer(loom_buffer_t *buf, std::shared_ptr<void> keepalive) {
        contents_->buffer = buf;
        contents_->buffer_keepalive = std::move(keepalive);
    }
    loom_buffer_t *buffer() const { return contents_->buffer; }

    /** The constraints of dimension d (buffers only). */
    BufferConstraint &constraint(int d) const { return contents_->buffer_constraints.at(d); }
    bool is_output_buffer() const { return contents_->is_output_buffer; }

    ParameterContents *get() const { return contents_.get(); }
    bool same_as(const Parameter &o) const { return contents_ == o.contents_; }

private:
    std::shared_ptr<ParameterContents> contents_;
};

}  // namespace internal
}  // namespace loom

#endif
