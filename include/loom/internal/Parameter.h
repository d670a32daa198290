#ifndef LOOM_INTERNAL_PARAMETER_H
#define LOOM_INTERNAL_PARAMETER_H

/** \file
 * The shared state behind a Param<T> or an ImageParam: a named pipeline input
 * whose value (a scalar, or a buffer) is supplied when the pipeline runs, so
 * that changing it never recompiles.
 */

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "loom/Expr.h"

namespace loom {
namespace internal {

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

    ParameterContents *get() const { return contents_.get(); }
    bool same_as(const Parameter &o) const { return contents_ == o.contents_; }

private:
    std::shared_ptr<ParameterContents> contents_;
};

}  // namespace internal
}  // namespace loom

#endif
