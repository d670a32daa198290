#ifndef LOOM_GENERATOR_STUB_H
#define LOOM_GENERATOR_STUB_H

/** \file
 * Generator stubs (Halide's): the header NAME.stub.h that the generator
 * driver writes with `-e cpp_stub` lets C++ code -- another Generator's
 * generate(), or a JIT program -- use a generator as a function from Funcs
 * and Exprs to Funcs, inside its own pipeline:
 *
 *     #include "brighten.stub.h"            // declares loom_stub::brighten
 *     loom_stub::brighten::Inputs in;
 *     in.input = blurred;                   // Input<Buffer<>>: a Func or a Buffer;
 *                                           // Input<Func>: a Func
 *     in.gain = 1.5f;                       // a scalar Input: an Expr
 *     loom_stub::brighten::GeneratorParams gp;
 *     gp.offset = 3;
 *     auto out = loom_stub::brighten::generate(loom::GeneratorContext(get_target()), in, gp);
 *     output(x, y) = out.output(x, y) / 2;  // each Output is a Func
 *
 * The program must be linked with the generator's source (its
 * LOOM_REGISTER_GENERATOR), as in Halide. The generator's Outputs get unique
 * names in the caller's pipeline (output_1 when the caller has an output);
 * everything is scheduled by the generator's schedule(), and the caller may
 * schedule the returned Funcs further.
 *
 * Inputs and Outputs that configure() adds (add_input/add_output) are in
 * the stub too: the driver runs configure() with the GeneratorParams the
 * stub is written for, and a stub called with GeneratorParams that make
 * configure() add other members is a CompileError saying so.
 *
 * A Buffer given to an Input<Buffer<>> (or to an element of an array of
 * buffer Inputs, a StubInputBuffers) is read directly, and the generator
 * may read its shape (width(), dim(d).extent(), ...), which are the Buffer's.
 * A Func has no shape: the generator may read the Input's type() and
 * dimensions() (they are the Func's), but reading its width() or dim(d) is a
 * CompileError that says to pass a Buffer instead.
 *
 * Errors (CompileError naming the generator and the member): an Input left
 * undefined, a Func or Buffer with another number of dimensions or element
 * type than the Input declares, an array Input given another number of
 * elements than its fixed size, an Input bound to a Func whose buffer shape
 * the generator reads, and Inputs/Outputs that differ from the stub's.
 */

#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loom/Buffer.h"
#include "loom/Expr.h"
#include "loom/Func.h"
#include "loom/LoopLevel.h"
#include "loom/Target.h"
#include "loom/Type.h"

namespace loom {

/** What a stub's generate() is given besides the Inputs: the target the
 * generator is built for (Halide's GeneratorContext). */
class GeneratorContext {
public:
    /** The target of $LOOM_TARGET, else the host. */
    GeneratorContext() : target_(get_target_from_environment()) {}
    explicit GeneratorContext(const Target &target) : target_(target) {}
    const Target &target() const { return target_; }
    const Target &get_target() const { return target_; }

private:
    Target target_;
};

namespace internal {

/** What a stub's Input<Buffer<>> is given (Halide's StubInputBuffer): a Func,
 * or a Buffer that the generator reads directly. */
class StubInputBuffer {
public:
    StubInputBuffer() = default;
    StubInputBuffer(const Func &f) : func_(f) {}
    template<typename T, int D>
    StubInputBuffer(const Buffer<T, D> &b) : buffer_(b) {}

    /** True when given a Buffer. */
    bool is_buffer() const { return buffer_.defined(); }
    const Func &func() const { return func_; }
    const Buffer<> &buffer() const { return buffer_; }

private:
    Func func_;
    Buffer<> buffer_;
};

/** What a stub's array of buffer Inputs (Input<Buffer<T>[]>, Input<Func[]>:
 * each element an ImageParam) is given: per element a Func or a Buffer
 * (Halide's std::vector<StubInputBuffer>). Converts from a std::vector of
 * Funcs or of Buffers, or a list of either: in.planes = {f, buffer}. */
class StubInputBuffers : public std::vector<StubInputBuffer> {
public:
    StubInputBuffers() = default;
    StubInputBuffers(std::initializer_list<StubInputBuffer> elements) : std::vector<StubInputBuffer>(elements) {}
    StubInputBuffers(const std::vector<StubInputBuffer> &elements) : std::vector<StubInputBuffer>(elements) {}
    StubInputBuffers(const std::vector<Func> &funcs) : std::vector<StubInputBuffer>(funcs.begin(), funcs.end()) {}
    template<typename T, int D>
    StubInputBuffers(const std::vector<Buffer<T, D>> &buffers)
        : std::vector<StubInputBuffer>(buffers.begin(), buffers.end()) {}
};

/** One Input of a stub call: a Func (or a Buffer) for a buffer Input, an
 * Expr for a scalar, or a vector of either for an array. */
struct StubInput {
    std::string name;
    std::vector<Func> funcs;
    std::vector<Buffer<>> buffers;  // element i's Buffer, if given one (else undefined or absent)
    std::vector<Expr> exprs;
    bool is_array = false;

    StubInput(std::string n, const Func &f) : name(std::move(n)), funcs{f} {}
    StubInput(std::string n, const StubInputBuffer &b) : name(std::move(n)), funcs{b.func()} {
        if (b.is_buffer()) buffers.push_back(b.buffer());
    }
    StubInput(std::string n, const Expr &e) : name(std::move(n)), exprs{e} {}
    StubInput(std::string n, const std::vector<Func> &f) : name(std::move(n)), funcs(f), is_array(true) {}
    StubInput(std::string n, const StubInputBuffers &elements) : name(std::move(n)), is_array(true) {
        for (const StubInputBuffer &b : elements) {
            funcs.push_back(b.func());
            buffers.push_back(b.buffer());
        }
    }
    StubInput(std::string n, const std::vector<Expr> &e) : name(std::move(n)), exprs(e), is_array(true) {}
};

/** Creates the registered generator `generator`, sets the target and the
 * GeneratorParams (name, value text), builds it, and binds each of its
 * Inputs to the caller's Funcs, Buffers and Exprs. Returns the Outputs'
 * Funcs, one vector per Output member in declaration order (declared, then
 * added by configure()). output_names, when given, are the Output members
 * the stub was written for: \throws CompileError unless the built generator
 * has exactly those (and see the file comment). */
std::vector<std::vector<Func>> build_generator_stub(const std::string &generator, const GeneratorContext &context,
                                                    const std::vector<std::pair<std::string, std::string>> &params,
                                                    const std::vector<StubInput> &inputs,
                                                    const std::vector<std::string> &output_names = {});

/** The text a GeneratorParam value is set from (set_generator_param). */
std::string stub_param_text(bool v);
std::string stub_param_text(int64_t v);
std::string stub_param_text(uint64_t v);
std::string stub_param_text(double v);
std::string stub_param_text(const std::string &v);
std::string stub_param_text(const Type &v);
std::string stub_param_text(const loom::LoopLevel &v);
inline std::string stub_param_text(const char *v) { return stub_param_text(std::string(v)); }
template<typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
std::string stub_param_text(T v) {
    if constexpr (std::is_signed_v<T>) {
        return stub_param_text(int64_t(v));
    } else {
        return stub_param_text(uint64_t(v));
    }
}
inline std::string stub_param_text(float v) { return stub_param_text(double(v)); }

}  // namespace internal
}  // namespace loom

#endif
