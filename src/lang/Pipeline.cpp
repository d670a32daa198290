#include "loom/Pipeline.h"

#include <algorithm>

#include "lang/JITPipeline.h"
#include "lower/Lower.h"
#include "lower/TopologicalOrder.h"
#include "loom/Error.h"

namespace loom {

using namespace internal;

Pipeline::Pipeline(const Func &output) : Pipeline(std::vector<Func>{output}) {}

Pipeline::Pipeline(const std::vector<Func> &outputs) : contents_(std::make_shared<PipelineContents>()) {
    if (outputs.empty()) throw CompileError("A Pipeline needs at least one output Func.");
    for (const Func &f : outputs) {
        for (const FunctionPtr &seen : contents_->outputs) {
            if (seen.same_as(f.function())) {
                throw CompileError("Func " + f.name() + " is given twice as an output of the same Pipeline.");
            }
        }
        contents_->outputs.push_back(f.function());
    }
}

namespace {
PipelineContents &checked(const std::shared_ptr<PipelineContents> &p) {
    if (!p) throw CompileError("This Pipeline is undefined (default-constructed): give it output Funcs.");
    return *p;
}
JITSlot slot_of(const std::shared_ptr<PipelineContents> &p) {
    PipelineContents &c = checked(p);
    return JITSlot{c.outputs, &c.jit_cache};
}
}  // namespace

std::vector<Func> Pipeline::outputs() const {
    std::vector<Func> funcs;
    for (const FunctionPtr &f : checked(contents_).outputs) funcs.emplace_back(f);
    return funcs;
}

Func Pipeline::get_func(size_t index) const {
    const std::vector<FunctionPtr> order = topological_order(checked(contents_).outputs);
    if (index >= order.size()) {
        throw CompileError("Pipeline::get_func(" + std::to_string(index) + "): the pipeline has only " +
                           std::to_string(order.size()) + " Funcs (outputs and the Funcs they call), so the index "
                           "must be less than " + std::to_string(order.size()) +
                           ". Was the schedule written for another pipeline?");
    }
    return Func(order[index]);
}

Realization Pipeline::realize(const std::vector<int> &sizes, const Target &target) {
    return jit_realize(slot_of(contents_), sizes, target);
}

void Pipeline::realize(Realization &outputs, const Target &target) {
    jit_realize_into(slot_of(contents_), outputs, target);
}

Realization Pipeline::realize(JITUserContext *context, const std::vector<int> &sizes, const Target &target) {
    return jit_realize(slot_of(contents_), sizes, target, context);
}

void Pipeline::realize(JITUserContext *context, Realization &outputs, const Target &target) {
    jit_realize_into(slot_of(contents_), outputs, target, context);
}

JITHandlers &Pipeline::jit_handlers() { return jit_handlers_of(slot_of(contents_).cache); }

Callable Pipeline::compile_to_callable(const std::vector<Argument> &args, const Target &target) {
    const JITSlot slot = slot_of(contents_);
    return make_callable(slot.outputs, args, target, jit_handlers_of(slot.cache));
}

void Pipeline::compile_jit(const Target &target) { jit_compile(slot_of(contents_), target); }

void Pipeline::invalidate_cache() { jit_invalidate(slot_of(contents_)); }

std::vector<Argument> Pipeline::infer_arguments(const Target &target) {
    const PipelineContents &c = checked(contents_);
    const LoweredFunc f = lower(c.outputs, "infer_arguments_" + c.outputs[0].get()->name, target);
    std::vector<Argument> buffers, scalars;
    for (const LoweredArgument &a : f.args) {
        if (a.kind == LoweredArgument::OutputBuffer || !a.param.defined() || a.param.is_output_buffer()) continue;
        (a.is_buffer() ? buffers : scalars).emplace_back(a.param);
    }
    auto by_name = [](const Argument &x, const Argument &y) { return x.name < y.name; };
    std::sort(buffers.begin(), buffers.end(), by_name);
    std::sort(scalars.begin(), scalars.end(), by_name);
    buffers.insert(buffers.end(), scalars.begin(), scalars.end());
    return buffers;
}

void Pipeline::infer_input_bounds(const std::vector<int> &sizes, const Target &target) {
    Realization outputs = jit_output_shapes(slot_of(contents_), sizes, "infer_input_bounds");
    infer_input_bounds(outputs, target);
}

void Pipeline::infer_input_bounds(Realization &outputs, const Target &target) {
    jit_infer_input_bounds(slot_of(contents_), outputs, target);
}

void Pipeline::print_loop_nest() { print_pipeline_loop_nest(checked(contents_).outputs, get_target_from_environment()); }

void Pipeline::lowered_stmt_for_target(const std::string &filename, const Target &target) {
    write_lowered_stmt(checked(contents_).outputs, filename, target);
}

}  // namespace loom
