#ifndef LOOM_MODULE_H
#define LOOM_MODULE_H

/** \file
 * A lowered pipeline kept in memory for ahead-of-time compilation (Halide's
 * Module): Func::compile_to_module / Pipeline::compile_to_module lower once,
 * and Module::compile writes any of the files of compile_to (object, static
 * library, header, assembly, LLVM IR, stmt, stmt_html) from that one lowering,
 * now or later, as often as asked.
 *
 *     Pipeline p(output);
 *     Module m = p.compile_to_module(p.infer_arguments(), "transpose");
 *     m.name();                                   // "transpose"
 *     m.functions()[0].args;                      // the C function's arguments
 *     m.compile({{OutputFileType::static_library, "transpose.a"},
 *                {OutputFileType::c_header, "transpose.h"}});
 *
 *
 * A Module holds any number of functions (Halide's Module::append): append()
 * adds another Module's functions, and compile() writes all of them into
 * one object, one static library (one copy of the runtime) and one header.
 *
 *     Module both("filters", target);             // empty
 *     both.append(blur.compile_to_module({in}, "blur", target));
 *     both.append(sharpen.compile_to_module({in, k}, "sharpen", target));
 *     both.compile({{OutputFileType::static_library, "filters.a"},
 *                   {OutputFileType::c_header, "filters.h"}});  // blur() and sharpen()
 *
 * As in Halide, a Module is a handle: copies share the functions, and
 * append() on one is seen by all.
 *
 * Errors: compile_to_module throws CompileError as compile_to does (a
 * Param/ImageParam missing from the arguments, a function name that is not
 * a C identifier, a target Loom cannot compile for); compile throws
 * CompileError for an empty request, an unknown OutputFileType, a static
 * library for a target without a runtime, a file that cannot be written,
 * for any call on an undefined (default-constructed) Module, for stmt_html
 * of a Module with more than one function, and for compiling a Module
 * without functions; append throws CompileError for an undefined Module,
 * another target, a function name the Module holds already, or a Module
 * appended to itself; Module(name, target) for a name that is not a C
 * identifier; append(Buffer) for an undefined Buffer, one without host
 * memory or dirty on a device, or whose name is not a C identifier or is
 * already a function's or buffer's of the Module.
 */

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "loom/Argument.h"
#include "loom/Buffer.h"
#include "loom/OutputFileType.h"
#include "loom/Target.h"

namespace loom {

namespace internal {
struct ModuleContents;
}

/** One C function of a Module: its name, its arguments in call order (the
 * inputs, then one OutputBuffer per output and Tuple element) and its
 * lowered body as text (what OutputFileType::stmt writes). */
struct ModuleFunction {
    std::string name;
    std::vector<Argument> args;
    std::string stmt;
};

class Module {
public:
    /** An undefined Module; every query on it throws CompileError. */
    Module() = default;
    explicit Module(std::shared_ptr<internal::ModuleContents> contents);
    /** A Module without functions, for target, to append() others to; its
     * name names the static library's member (name.o) and the header's
     * include guard. */
    Module(const std::string &name, const Target &target);

    bool defined() const { return contents_ != nullptr; }
    /** The Module's name: the fn_name given to compile_to_module, or the
     * name given to Module(name, target). */
    const std::string &name() const;
    /** The target it was lowered for. */
    const Target &target() const;
    /** The functions it holds, in the order they were appended, made on
     * first use and kept with the Module (a reference, as in Halide; an
     * append() makes it anew). */
    const std::vector<ModuleFunction> &functions() const;
    /** Adds the functions of `other` (lowered for the same target) after
     * this Module's own, and its buffers. */
    void append(const Module &other);
    /** Adds a Buffer to the Module (Halide's Module::append(Buffer)):
     * compile() writes it into the object as a global `struct loom_buffer_t
     * NAME` (NAME = the Buffer's name) holding a dense copy of its elements
     * as they are then, with its mins and extents, and the header declares
     * it; an application passes &NAME to the Module's functions. */
    void append(const Buffer<> &buffer);
    /** The Buffers appended, in order. */
    const std::vector<Buffer<>> &buffers() const;
    /** \throws CompileError naming fn_name if the Module has no such function. */
    ModuleFunction get_function_by_name(const std::string &fn_name) const;
    /** Writes each requested file (kind -> path), as compile_to would. */
    void compile(const std::map<OutputFileType, std::string> &output_files) const;

    const std::shared_ptr<internal::ModuleContents> &contents() const { return contents_; }

private:
    internal::ModuleContents &checked(const char *what) const;
    std::shared_ptr<internal::ModuleContents> contents_;
};

}  // namespace loom

#endif
