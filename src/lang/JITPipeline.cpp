#include "lang/JITPipeline.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "ir/IRPrinter.h"
#include "ir/Interpreter.h"
#include "lang/DebugToFile.h"
#include "lang/ExternFunc.h"
#include "lang/Backend.h"
#include "lang/ConstraintGeneration.h"
#include "lang/ScanRealize.h"
#include "loom/Error.h"
#include "loom/ImageParam.h"
#include "loom/Param.h"
#include "loom/runtime/loom_runtime.h"
#include "lower/ExtractGPUKernels.h"
#include "lower/Lower.h"
#include "lower/Stages.h"
#include "runtime/ErrorCapture.h"

namespace loom {
namespace internal {

namespace {

/** One compiled pipeline: for one back end and target, of its Funcs as they
 * were at one definition generation. */
struct CompiledPipeline {
    Backend backend = Backend::LLVM;
    uint64_t generation = 0;
    uint64_t input_constraints = 0;  // input_constraint_generation() then
    std::string target;
    /** Every Func it was compiled from (weak: the cache of a Func must not
     * keep that Func alive). */
    std::vector<FunctionPtr> functions;
    LoweredFunc lowered;
    JITPipeline jit;  // LLVM only

    /** Whether one of its Funcs changed (or is gone) since it was compiled.
     * Changes to Funcs outside the pipeline do not matter. */
    bool stale() const {
        if (input_constraints < input_constraint_generation()) return true;
        for (const FunctionPtr &f : functions) {
            const FunctionContents *c = f.get();
            if (!c || c->generation > generation) return true;
        }
        return false;
    }
};

/** What a cache slot holds: the latest compilation for each back end, and
 * the handlers of Func/Pipeline::jit_handlers(). */
struct JITCache {
    std::map<Backend, std::shared_ptr<CompiledPipeline>> entries;
    JITHandlers handlers;
};

JITCache &cache_of(std::shared_ptr<void> *slot) {
    if (!*slot) *slot = std::make_shared<JITCache>();
    return *static_cast<JITCache *>(slot->get());
}

std::string outputs_description(const std::vector<FunctionPtr> &outputs) {
    std::string s;
    for (const FunctionPtr &f : outputs) s += (s.empty() ? "" : ", ") + f.get()->name;
    return s;
}

void check_outputs_defined(const std::vector<FunctionPtr> &outputs) {
    if (outputs.empty()) throw CompileError("Can't realize a Pipeline without outputs.");
    for (const FunctionPtr &f : outputs) {
        if (!f.defined()) throw CompileError("Can't realize an undefined Pipeline.");
        if (!f.get()->defined()) {
            throw CompileError("Can't realize Func " + f.get()->name + ": it has no definition. Define it (" +
                               f.get()->name + "(x, ...) = ...) first.");
        }
    }
}

/** Target() (unknown) means "the JIT target", as in Halide. */
Target jit_target(const Target &t) { return t.arch == Target::ArchUnknown ? get_jit_target_from_environment() : t; }

/** The JIT runs its kernels on this process's device, known now: a
 * workgroup or shared memory it cannot hold is a CompileError here rather
 * than a failed dispatch later. Without a device, the first run says so. */
void check_kernels_fit_this_device(const LoweredFunc &f) {
    if (f.kernels.empty()) return;
    loom_vulkan_device_info_t info;
    {
        ScopedErrorCapture quiet;
        if (loom_vulkan_get_device_info(nullptr, &info) != 0) return;
    }
    GPUDeviceLimits device;
    device.name = info.device_name;
    for (int d = 0; d < 3; d++) device.max_workgroup_size[d] = int(info.max_workgroup_size[d]);
    device.max_workgroup_invocations = info.max_workgroup_invocations;
    device.max_shared_memory_bytes = info.max_shared_memory_bytes;
    check_kernels_fit_device(f.kernels, device);
}

/** The Vulkan conformance back end (lang/Backend.h): t with the Vulkan
 * features of this process's device. */
Target with_host_vulkan(Target t) {
    if (t.has_feature(Target::Vulkan)) return t;
    const Target vk("host-vulkan");
    for (Target::Feature f : {Target::Vulkan, Target::VkInt8, Target::VkInt16, Target::VkInt64, Target::VkFloat16,
                              Target::VkFloat64, Target::VkV12, Target::VkV13}) {
        if (vk.has_feature(f)) t.set_feature(f);
    }
    return t;
}

/** Compiles with every loop nest that admits it on the GPU; when that
 * version does not compile, records why and compiles for the CPU. */
void compile_for_gpu_conformance(CompiledPipeline &c, const std::vector<FunctionPtr> &outputs,
                                 const std::string &name, const Target &cpu_target) {
    const Target target = with_host_vulkan(cpu_target);
    try {
        LowerOptions options;
        options.map_loops_to_gpu = true;
        c.lowered = lower(outputs, name, target, options);
        check_kernels_fit_this_device(c.lowered);
        c.jit = compile_jit(c.lowered, target);
        if (!c.lowered.kernels.empty()) {
            count_gpu_kernel_pipeline();
            return;
        }
        set_gpu_fallback_reason("no loop of " + outputs[0].get()->name + " can run on the GPU");
    } catch (const CompileError &e) {
        set_gpu_fallback_reason(e.what());
    }
    c.lowered = lower(outputs, name, cpu_target);
    c.jit = compile_jit(c.lowered, cpu_target);
}

std::shared_ptr<CompiledPipeline> compiled_pipeline(const JITSlot &p, const Target &requested) {
    check_outputs_defined(p.outputs);
    JITCache &cache = cache_of(p.cache);
    const Backend backend = jit_backend();
    std::shared_ptr<CompiledPipeline> &entry = cache.entries[backend];
    // Target() (realize() without a target) runs the code compiled last, for
    // whatever target compile_jit(t) was given, as in Halide; the JIT target
    // only when there is none (or it is out of date).
    const bool reuse = requested.arch == Target::ArchUnknown && entry && !entry->stale();
    const Target target = reuse ? Target(entry->target) : jit_target(requested);
    const std::string target_string = target.to_string();
    if (entry && entry->target == target_string && !entry->stale()) return entry;

    auto fresh = std::make_shared<CompiledPipeline>();
    fresh->backend = backend;
    fresh->generation = definition_generation();
    fresh->input_constraints = input_constraint_generation();
    fresh->target = target_string;
    fresh->functions = pipeline_functions(p.outputs);
    check_extern_stages_runnable(fresh->functions, backend == Backend::Interpreter);
    check_debug_to_file_runnable(fresh->functions, backend == Backend::Interpreter);
    // "jit_" keeps the symbol away from C functions a Func may be named after.
    const std::string name = "jit_" + p.outputs[0].get()->name;
    if (backend == Backend::Vulkan) {
        compile_for_gpu_conformance(*fresh, p.outputs, name, target);
    } else {
        if (backend == Backend::Interpreter) {
            for (Target::Feature feature : {Target::Profile, Target::LargeBuffers}) {
                if (!target.has_feature(feature)) continue;
                throw CompileError("The reference interpreter does not implement the target feature " +
                                   Target::feature_to_name(feature) +
                                   " (it calls no profiler, and its index arithmetic is 32-bit). Realize " +
                                   p.outputs[0].get()->name + " with the LLVM back end, or without " +
                                   Target::feature_to_name(feature) + ".");
            }
        }
        fresh->lowered = lower(p.outputs, name, target);
        if (backend == Backend::Interpreter && !fresh->lowered.kernels.empty()) {
            throw CompileError("The reference interpreter does not run GPU kernels, and " + p.outputs[0].get()->name +
                               " has GPU loops. Realize it with the LLVM back end, or without GPU schedules.");
        }
        if (backend == Backend::LLVM) {
            check_kernels_fit_this_device(fresh->lowered);
            fresh->jit = compile_jit(fresh->lowered, target);
        }
    }
    count_jit_compile();
    entry = fresh;
    return entry;
}

/** Checks count, rank and type of the output buffers against the Funcs;
 * `operation` ("realize", "infer_input_bounds") begins the messages. */
void check_output_buffers(const std::vector<FunctionPtr> &outputs, const std::vector<Buffer<>> &buffers,
                          const std::string &operation = "realize") {
    size_t expected = 0;
    for (const FunctionPtr &f : outputs) expected += f.get()->outputs();
    if (buffers.size() != expected) {
        throw CompileError(operation + " of " + outputs_description(outputs) + " needs " + std::to_string(expected) +
                           " buffers (one per output and Tuple element), but was given " +
                           std::to_string(buffers.size()) + ".");
    }
    size_t k = 0;
    for (const FunctionPtr &f : outputs) {
        const FunctionContents &func = *f.get();
        for (int j = 0; j < func.outputs(); j++, k++) {
            const Buffer<> &b = buffers[k];
            if (!b.defined()) throw CompileError(operation + " of " + func.name + " into an undefined Buffer.");
            if (b.dimensions() != func.dimensions()) {
                throw CompileError(operation + " of " + func.name + " with " + std::to_string(b.dimensions()) +
                                   " dimensions, but " + func.name + " has " + std::to_string(func.dimensions()) +
                                   ".");
            }
            if (b.type() != func.output_types[j]) {
                std::string element = func.outputs() > 1 ? " element " + std::to_string(j) : "";
                throw CompileError(operation + " of " + func.name + " into buffer " + b.name() + " of type " +
                                   b.type().to_string() + ", but " + func.name + element + " has type " +
                                   func.output_types[j].to_string() + ".");
            }
        }
    }
}

/** One buffer of sizes per output and Tuple element: zeroed, or without
 * host memory (a shape only) when !with_memory. */
std::vector<Buffer<>> allocate_outputs(const std::vector<FunctionPtr> &outputs, const std::vector<int> &sizes,
                                       const std::string &operation = "realize", bool with_memory = true) {
    std::vector<Buffer<>> buffers;
    for (const FunctionPtr &f : outputs) {
        const FunctionContents &func = *f.get();
        if ((int)sizes.size() != func.dimensions()) {
            throw CompileError(operation + " of " + func.name + " with " + std::to_string(sizes.size()) +
                               " dimensions, but " + func.name + " has " + std::to_string(func.dimensions()) + ".");
        }
        for (int j = 0; j < func.outputs(); j++) {
            if (with_memory) {
                buffers.emplace_back(func.output_types[j], sizes);
            } else {
                buffers.emplace_back(func.output_types[j], nullptr, sizes);
            }
        }
    }
    return buffers;
}

/** A buffer without host memory of b's type and shape (mins, extents,
 * strides): a bounds query may write its answer into it, never into b. */
Buffer<> shape_of(const Buffer<> &b) {
    const loom_buffer_t *raw = b.raw_buffer();
    std::vector<loom_dimension_t> dims(raw->dim, raw->dim + raw->dimensions);
    return Buffer<>(b.type(), nullptr, dims);
}

/** Binds the arguments and runs with context's handlers, then `defaults`.
 * `queries` replaces the buffers of some input Parameters (bounds queries).
 * Returns 0, or the error code a custom_error handler was given. */
int run(const CompiledPipeline &c, const std::vector<Buffer<>> &outputs, JITUserContext *context,
         const JITHandlers &defaults, const std::map<const ParameterContents *, loom_buffer_t *> &queries = {}) {
    std::vector<void *> args;
    size_t next_output = 0;
    for (const LoweredArgument &a : c.lowered.args) {
        switch (a.kind) {
        case LoweredArgument::InputScalar:
            if (!a.param.defined()) throw InternalError("Scalar argument " + a.name + " has no Parameter.");
            if (!a.param.scalar_set()) throw_param_without_value(a.param.name());
            args.push_back(a.param.scalar_address());
            break;
        case LoweredArgument::InputBuffer: {
            if (!a.param.defined()) throw InternalError("Buffer argument " + a.name + " has no Parameter.");
            auto q = queries.find(a.param.get());
            loom_buffer_t *buffer = q != queries.end() ? q->second : a.param.buffer();
            if (!buffer) {
                throw CompileError("ImageParam '" + a.name + "' has no buffer: call " + a.name +
                                   ".set(buffer) before realizing.");
            }
            args.push_back(buffer);
            break;
        }
        case LoweredArgument::OutputBuffer:
            if (next_output >= outputs.size()) throw InternalError("More output arguments than output buffers.");
            args.push_back(outputs[next_output++].raw_buffer());
            break;
        }
    }
    if (next_output != outputs.size()) throw InternalError("Fewer output arguments than output buffers.");

    std::vector<loom_buffer_t *> raw_outputs;
    for (const Buffer<> &b : outputs) raw_outputs.push_back(b.raw_buffer());
    return run_lowered(c.lowered, c.jit, c.backend == Backend::Interpreter, args.data(), raw_outputs, context,
                       defaults);
}

/** What the bounds query of a realize found: the region of each output
 * the pipeline writes (empty: the regions asked for), or that it failed. */
struct OutputQuery {
    std::vector<std::vector<std::pair<int, int>>> regions;
    bool failed = false;  // the error went to the custom_error handler
};

/** Asks the pipeline (a bounds query: outputs without host memory) which
 * region of each output it writes when asked for `outputs`' regions.
 * `regions` is empty if every output is what was asked for, if a region
 * does not contain the one asked for, or if the target turns bounds queries
 * off, or if the call is refused before the pipeline runs (a RuntimeError:
 * the real run reports it). A query that fails inside the pipeline has
 * reported its error to the custom_error handler (`failed`): the pipeline
 * must not run again and report it twice. */
OutputQuery output_regions_needed(const CompiledPipeline &c, const std::vector<Buffer<>> &outputs,
                                  JITUserContext *context, const JITHandlers &defaults) {
    if (Target(c.target).has_feature(Target::NoBoundsQuery)) return {};
    for (const Buffer<> &b : outputs) {
        if (b.dimensions() == 0) return {};  // a scalar has no region to grow
    }
    std::vector<Buffer<>> queries;
    for (const Buffer<> &b : outputs) {
        std::vector<int> extents;
        for (int d = 0; d < b.dimensions(); d++) extents.push_back(b.dim(d).extent());
        queries.emplace_back(b.type(), nullptr, extents);
    }
    int rc = 0;
    try {
        rc = run(c, queries, context, defaults);
    } catch (const RuntimeError &) {
        return {};  // refused before the pipeline ran: the run reports it
    }
    if (rc != 0) return OutputQuery{{}, true};
    std::vector<std::vector<std::pair<int, int>>> regions;
    bool differs = false;
    for (size_t i = 0; i < queries.size(); i++) {
        std::vector<std::pair<int, int>> region;
        for (int d = 0; d < queries[i].dimensions(); d++) {
            const int min = queries[i].dim(d).min(), extent = queries[i].dim(d).extent();
            region.emplace_back(min, extent);
            const int asked_min = outputs[i].dim(d).min(), asked_extent = outputs[i].dim(d).extent();
            if (min != asked_min || extent != asked_extent) differs = true;
            // A region that does not hold the one asked for (a constraint
            // smaller than it) can't be cropped to it: run as asked, and
            // the run reports the constraint.
            if (min > asked_min || (int64_t)min + extent < (int64_t)asked_min + asked_extent) return {};
        }
        regions.push_back(region);
    }
    if (!differs) return {};
    return OutputQuery{regions, false};
}

}  // namespace

Realization jit_realize(const JITSlot &p, const std::vector<int> &sizes, const Target &target,
                        JITUserContext *context) {
    check_outputs_defined(p.outputs);
    if (realizes_at_bounds(p.outputs, sizes)) return realize_at_bounds(p, target, context);
    std::vector<Buffer<>> buffers = allocate_outputs(p.outputs, sizes);
    auto c = compiled_pipeline(p, target);
    const JITHandlers &handlers = cache_of(p.cache).handlers;
    const OutputQuery query = output_regions_needed(*c, buffers, context, handlers);
    if (query.failed) return Realization(buffers, "realize of " + outputs_description(p.outputs));
    const std::vector<std::vector<std::pair<int, int>>> &grown = query.regions;
    if (grown.empty()) {
        run(*c, buffers, context, handlers);
        return Realization(buffers, "realize of " + outputs_description(p.outputs));
    }
    // The schedule writes more than was asked for (a RoundUp split, a
    // scatter, a constraint): realize into buffers of the region it needs and
    // return crops of them at the size asked for, as Halide does.
    std::vector<Buffer<>> larger, crops;
    for (size_t i = 0; i < buffers.size(); i++) {
        std::vector<int> mins, extents;
        for (const auto &[min, extent] : grown[i]) {
            mins.push_back(min);
            extents.push_back(extent);
        }
        Buffer<> b(buffers[i].type(), extents);
        b.set_min(mins);
        larger.push_back(b);
    }
    run(*c, larger, context, handlers);
    std::vector<std::pair<int, int>> asked;
    for (int size : sizes) asked.emplace_back(0, size);
    for (const Buffer<> &b : larger) crops.push_back(b.cropped(asked));
    return Realization(crops, "realize of " + outputs_description(p.outputs));
}

int jit_realize_into(const JITSlot &p, const Realization &outputs, const Target &target,
                     JITUserContext *context) {
    check_outputs_defined(p.outputs);
    check_output_buffers(p.outputs, outputs.as_vector());
    auto c = compiled_pipeline(p, target);
    return run(*c, outputs.as_vector(), context, cache_of(p.cache).handlers);
}

JITHandlers &jit_handlers_of(std::shared_ptr<void> *cache) { return cache_of(cache).handlers; }

void jit_invalidate(const JITSlot &p) {
    if (*p.cache) cache_of(p.cache).entries.clear();
}

void jit_compile(const JITSlot &p, const Target &target) { compiled_pipeline(p, target); }

Realization jit_output_shapes(const JITSlot &p, const std::vector<int> &sizes, const std::string &operation) {
    check_outputs_defined(p.outputs);
    std::vector<Buffer<>> shapes = allocate_outputs(p.outputs, sizes, operation, false);
    return Realization(shapes, operation + " of " + outputs_description(p.outputs));
}

void jit_infer_input_bounds(const JITSlot &p, const Realization &outputs, const Target &target) {
    check_outputs_defined(p.outputs);
    check_output_buffers(p.outputs, outputs.as_vector(), "infer_input_bounds");
    auto c = compiled_pipeline(p, target);
    if (Target(c->target).has_feature(Target::NoBoundsQuery)) {
        throw CompileError("infer_input_bounds of " + outputs_description(p.outputs) + ": the target " + c->target +
                           " has no_bounds_query, so the pipeline can't answer a bounds query. Use a target "
                           "without no_bounds_query.");
    }

    // A loom_buffer_t with a NULL host pointer asks the pipeline for the
    // region it needs instead of computing.
    struct Query {
        Parameter param;
        loom_buffer_t raw{};
        std::vector<loom_dimension_t> dims;
    };
    std::vector<std::unique_ptr<Query>> queries;
    std::map<const ParameterContents *, loom_buffer_t *> by_param;
    for (const LoweredArgument &a : c->lowered.args) {
        if (a.kind != LoweredArgument::InputBuffer || a.param.buffer()) continue;
        auto q = std::make_unique<Query>();
        q->param = a.param;
        q->dims.assign(a.param.dimensions(), loom_dimension_t{0, 0, 0, 0});
        q->raw.type = a.param.type().to_runtime();
        q->raw.dimensions = a.param.dimensions();
        q->raw.dim = q->dims.empty() ? nullptr : q->dims.data();
        by_param[a.param.get()] = &q->raw;
        queries.push_back(std::move(q));
    }
    if (queries.empty()) return;
    // The outputs' regions are what is asked for. The query runs on copies
    // of their shapes without memory: nothing is computed, and the answer
    // for an output (the region the pipeline would write) changes a copy,
    // so the caller's buffers stay as they were.
    std::vector<Buffer<>> shapes;
    for (const Buffer<> &b : outputs.as_vector()) shapes.push_back(shape_of(b));
    run(*c, shapes, nullptr, cache_of(p.cache).handlers, by_param);

    for (const auto &q : queries) {
        std::vector<int> mins, extents;
        for (const loom_dimension_t &d : q->dims) {
            mins.push_back(d.min);
            extents.push_back(d.extent);
        }
        Buffer<> buffer(q->param.type(), extents);
        buffer.set_min(mins);
        bind_buffer(q->param, buffer);
    }
}

void print_pipeline_loop_nest(const std::vector<FunctionPtr> &outputs, const Target &target) {
    check_outputs_defined(outputs);
    std::cout << loop_nest_text(outputs, target.arch == Target::ArchUnknown ? get_target_from_environment() : target);
    std::cout.flush();
}

void write_lowered_stmt(const std::vector<FunctionPtr> &outputs, const std::string &filename, const Target &target) {
    check_outputs_defined(outputs);
    LoweredFunc f = lower(outputs, outputs[0].get()->name,
                          target.arch == Target::ArchUnknown ? get_target_from_environment() : target);
    std::ofstream file(filename);
    if (!file) throw CompileError("compile_to_lowered_stmt: can't open " + filename + " for writing.");
    file << lowered_func_text(f);
    if (!file) throw CompileError("compile_to_lowered_stmt: can't write " + filename + ".");
}

}  // namespace internal
}  // namespace loom
