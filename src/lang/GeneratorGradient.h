#ifndef LOOM_LANG_GENERATOR_GRADIENT_H
#define LOOM_LANG_GENERATOR_GRADIENT_H

/** \file
 * The generator driver's gradient module (-d 1, Halide's
 * build_gradient_module): a pipeline that computes, for every output of a
 * generator and every one of its buffer Inputs, the derivative of a loss with
 * respect to the input, given the derivative of the loss with respect to the
 * output.
 *
 * Its arguments are the generator's Inputs, in order, then one float buffer
 * per Output, "_grad_loss_for_<output>" (the adjoint of the output, zero
 * outside the buffer); its outputs are "_grad_loss_<output>_wrt_<input>" for
 * each output and buffer input, over the input's coordinates, or
 * "_dummy_grad_loss_<output>_wrt_<input>", all zeros over the output's
 * dimensions, where the output does not depend on the input (Halide's names
 * and order, so a caller written for Halide's gradient modules works).
 */

#include <vector>

#include "loom/Argument.h"
#include "loom/Generator.h"
#include "loom/ImageParam.h"
#include "loom/Pipeline.h"

namespace loom {
namespace internal {

struct GradientPipeline {
    Pipeline pipeline;
    /** The generator's Inputs, then the adjoint buffers (inputs of the module). */
    std::vector<Argument> arguments;
    /** The adjoint buffer of each output, in the order of the outputs. */
    std::vector<ImageParam> output_adjoints;
};

/** Builds g's pipeline, then its gradient module's.
 * \throws CompileError naming the generator for what propagate_adjoints
 * refuses, a Tuple Output, or an autoscheduler (Loom does not schedule the
 * gradient pipeline with one yet: its adjoint Funcs are computed at the root). */
GradientPipeline build_gradient_pipeline(GeneratorBase &g);

}  // namespace internal
}  // namespace loom

#endif
