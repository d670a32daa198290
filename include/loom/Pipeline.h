#ifndef LOOM_PIPELINE_H
#define LOOM_PIPELINE_H

/** \file
 * Pipeline: one or more output Funcs compiled and run together.
 *
 *     Pipeline p({sum, count});              // two outputs
 *     Realization r = p.realize({100});      // r[0] from sum, r[1] from count
 *
 * The pipeline is lowered and JIT-compiled on the first realize() and kept;
 * later realize() calls with new Param values or ImageParam buffers reuse
 * the compiled code. Changing a definition or a schedule of one of the
 * pipeline's Funcs recompiles on the next realize(); changes to Funcs the
 * pipeline does not use do not.
 */

#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/Argument.h"
#include "loom/AutoSchedule.h"
#include "loom/Buffer.h"
#include "loom/Callable.h"
#include "loom/Func.h"
#include "loom/JITUserContext.h"
#include "loom/Module.h"
#include "loom/OutputFileType.h"
#include "loom/Realization.h"
#include "loom/Target.h"

namespace loom {

namespace internal {
struct PipelineContents;
}

class Pipeline {
public:
    /** An undefined pipeline. */
    Pipeline() = default;
    Pipeline(const Func &output);
    Pipeline(const std::vector<Func> &outputs);

    bool defined() const { return contents_ != nullptr; }
    std::vector<Func> outputs() const;
    /** The index-th Func of the pipeline (inlined ones too) in Halide's
     * topological order: producers before consumers, by a depth-first walk
     * from the outputs in order, each Func's callees in the order its
     * definitions first call them. The order depends only on who calls whom,
     * not on the schedule or the Funcs' names, so schedule_source (which
     * names Funcs as pipeline.get_func(i)) applies to a copy of the pipeline
     * whose Funcs are named differently.
     *
     *     f(x) = in(x) + 1;  g(x) = f(x) * 2;
     *     Pipeline(g).get_func(0);   // f
     *     Pipeline(g).get_func(1);   // g
     *
     * \throws CompileError if index is not less than the number of Funcs
     * (the message says how many there are). */
    Func get_func(size_t index) const;

    /** Computes every output over [0, size) in each dimension: one buffer per
     * output and Tuple element, in order. Target() (the default) means the
     * target of the code compiled last (compile_jit(t)), else the JIT target,
     * as Func::realize. \throws CompileError if an output has a different
     * number of dimensions than sizes. */
    Realization realize(const std::vector<int> &sizes = {}, const Target &target = Target());
    /** Computes into existing buffers (one per output and Tuple element). */
    void realize(Realization &outputs, const Target &target = Target());
    /** Into the buffers of a temporary Realization, e.g. realize({a, b}) (the
     * buffers share their storage with a and b). */
    void realize(Realization &&outputs, const Target &target = Target()) {
        realize(outputs, target);
    }
    template<typename T, int D>
    void realize(Buffer<T, D> &output, const Target &target = Target()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        realize(r, target);
    }
    template<typename T, int D>
    void realize(Buffer<T, D> &&output, const Target &target = Target()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        realize(r, target);
    }

    /** The same, with handlers from context (loom/JITUserContext.h); it may
     * be nullptr. With a custom_error handler, a failing run reports to it
     * and returns instead of throwing RuntimeError. */
    Realization realize(JITUserContext *context, const std::vector<int> &sizes = {},
                        const Target &target = Target());
    void realize(JITUserContext *context, Realization &outputs,
                 const Target &target = Target());
    void realize(JITUserContext *context, Realization &&outputs,
                 const Target &target = Target()) {
        realize(context, outputs, target);
    }
    template<typename T, int D>
    void realize(JITUserContext *context, Buffer<T, D> &output, const Target &target = Target()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        realize(context, r, target);
    }
    template<typename T, int D>
    void realize(JITUserContext *context, Buffer<T, D> &&output,
                 const Target &target = Target()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        realize(context, r, target);
    }
    /** The handlers every JIT run of this Pipeline uses where the run's
     * JITUserContext sets none. */
    JITHandlers &jit_handlers();
    /** Lowers and JIT-compiles once into a Callable taking args in order,
     * then one buffer per output and Tuple element (loom/Callable.h).
     * \throws CompileError as compile_to. */
    Callable compile_to_callable(const std::vector<Argument> &args,
                                 const Target &target = get_jit_target_from_environment());

    void compile_jit(const Target &target = get_jit_target_from_environment());
    /** Drops the JIT-compiled code, so the next realize() or compile_jit()
     * lowers and compiles again (Halide's invalidate_cache). jit_handlers()
     * stay. */
    void invalidate_cache();
    /** The inputs the pipeline reads, as Halide's infer_arguments: its
     * ImageParams and Buffers sorted by name, then its Params sorted by
     * name; outputs are not included. Pass them to compile_to_callable() or
     * compile_to_*(). \throws CompileError as compile_jit. */
    std::vector<Argument> infer_arguments(const Target &target = get_jit_target_from_environment());
    /** Binds every ImageParam without a buffer to a new (zeroed) buffer of
     * exactly the region a realize over sizes reads, as
     * Func::infer_input_bounds; ImageParams with a buffer keep it. */
    void infer_input_bounds(const std::vector<int> &sizes = {},
                            const Target &target = get_jit_target_from_environment());
    /** The same for the region of existing output buffers (one per output
     * and Tuple element, over their own mins and extents), which are
     * neither computed into nor changed: p.infer_input_bounds({a, b}).
     * \throws CompileError (naming the Func) for a buffer of the wrong
     * element type or number of dimensions, or the wrong number of buffers. */
    void infer_input_bounds(Realization &outputs, const Target &target = get_jit_target_from_environment());
    void infer_input_bounds(Realization &&outputs, const Target &target = get_jit_target_from_environment()) {
        infer_input_bounds(outputs, target);
    }
    template<typename T, int D>
    void infer_input_bounds(Buffer<T, D> &output, const Target &target = get_jit_target_from_environment()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        infer_input_bounds(r, target);
    }
    template<typename T, int D>
    void infer_input_bounds(Buffer<T, D> &&output, const Target &target = get_jit_target_from_environment()) {
        Realization r(std::vector<Buffer<>>{Buffer<>(output)});
        infer_input_bounds(r, target);
    }
    void print_loop_nest();
    /** Writes the lowered program as text for a target (Loom's form;
     * Halide's takes the arguments, below). The target is a template
     * parameter only so that Halide's `compile_to_lowered_stmt(file, {})`
     * is not ambiguous with it. */
    void compile_to_lowered_stmt(const std::string &filename) {
        lowered_stmt_for_target(filename, get_target_from_environment());
    }
    template<typename T, typename = std::enable_if_t<std::is_same_v<T, Target>>>
    void compile_to_lowered_stmt(const std::string &filename, const T &target) {
        lowered_stmt_for_target(filename, target);
    }

    /** \name Ahead-of-time compilation
     * Each writes files for a C function `fn_name` (default: the first output's name)
     * taking `args` in order, then one output buffer per output and Tuple
     * element; it returns 0 or a negative loom_error_code_t. The target
     * defaults to LOOM_TARGET or the host. See docs/AOT.md.
     * \throws CompileError if a Param/ImageParam the pipeline uses is not in
     * args, two arguments share a name, fn_name is not a C identifier, the
     * target cannot be compiled for, or a file cannot be written. */
    ///@{
    void compile_to(const std::map<OutputFileType, std::string> &output_files, const std::vector<Argument> &args,
                    const std::string &fn_name, const Target &target = get_target_from_environment());
    /** filename_prefix + ".a" (pipeline and runtime) and ".h". */
    void compile_to_static_library(const std::string &filename_prefix, const std::vector<Argument> &args,
                                   const std::string &fn_name = "",
                                   const Target &target = get_target_from_environment());
    /** filename_prefix + ".o" (no runtime) and ".h". */
    void compile_to_file(const std::string &filename_prefix, const std::vector<Argument> &args,
                         const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_llvm_assembly(const std::string &filename, const std::vector<Argument> &args,
                                  const std::string &fn_name = "",
                                  const Target &target = get_target_from_environment());
    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                 const Target &target = get_target_from_environment());
    /** fmt == HTML writes the page of OutputFileType::stmt_html (docs/AOT.md). */
    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                 StmtOutputFormat fmt, const Target &target = get_target_from_environment());
    /** As Func::compile_to_bitcode, compile_to_c and the multitarget
     * compiles; the default fn_name is the first output's name. */
    void compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                            const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_c(const std::string &filename, const std::vector<Argument> &args,
                      const std::string &fn_name = "", const Target &target = get_target_from_environment());
    void compile_to_multitarget_static_library(const std::string &filename_prefix,
                                               const std::vector<Argument> &args,
                                               const std::vector<Target> &targets);
    void compile_to_multitarget_object_files(const std::string &filename_prefix, const std::vector<Argument> &args,
                                             const std::vector<Target> &targets,
                                             const std::vector<std::string> &suffixes = {});
    /** Lowers once, for `fn_name` (default: the first output's name) taking
     * args, into a Module whose compile() writes any of the files above
     * (loom/Module.h). */
    Module compile_to_module(const std::vector<Argument> &args, const std::string &fn_name = "",
                             const Target &target = get_target_from_environment());
    ///@}

    /** \name Autoscheduling (loom/AutoSchedule.h, docs/AUTOSCHEDULER.md)
     * Each schedules the pipeline's Funcs with the named autoscheduler and
     * returns the schedule as C++ source too. The outputs need estimates of
     * every dimension (Func::set_estimates), and so do the ImageParams the
     * pipeline reads (dim(d).set_estimate).
     * \throws CompileError for an unknown name (listing the known ones), a
     * parameter the autoscheduler does not take, a missing estimate (naming
     * the Func or ImageParam and the dimension), a Func of the pipeline that
     * is already scheduled by hand (Halide refuses partial schedules too;
     * this includes a second autoscheduling), or a GPU target. */
    ///@{
    /** Halide 16: params.name chooses the autoscheduler, params.extra its parameters. */
    AutoSchedulerResults apply_autoscheduler(const Target &target, const AutoschedulerParams &params) const;
    /** Halide 14, by name. */
    AutoSchedulerResults auto_schedule(const std::string &autoscheduler_name, const Target &target,
                                       const MachineParams &arch_params = MachineParams::generic()) const;
    /** Halide 14, with the default autoscheduler (set_default_autoscheduler_name; "LoomHeuristic" until set). */
    AutoSchedulerResults auto_schedule(const Target &target,
                                       const MachineParams &arch_params = MachineParams::generic()) const;
    /** Registers an autoscheduler under name. \throws CompileError if name
     * is empty or already registered. */
    static void add_autoscheduler(const std::string &name, const AutoSchedulerFn &autoscheduler);
    /** The autoscheduler auto_schedule(target) and a generator's
     * auto_schedule=true use. \throws CompileError for an unknown name. */
    static void set_default_autoscheduler_name(const std::string &name);
    ///@}

private:
    void lowered_stmt_for_target(const std::string &filename, const Target &target);

    std::shared_ptr<internal::PipelineContents> contents_;
};

}  // namespace loom

#endif
