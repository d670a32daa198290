#include "lang/GeneratorGradient.h"

#include <string>

#include "ir/IRUtil.h"
#include "loom/BoundaryConditions.h"
#include "loom/Derivative.h"
#include "loom/Error.h"
#include "loom/Var.h"

namespace loom {
namespace internal {

GradientPipeline build_gradient_pipeline(GeneratorBase &g) {
    const std::string who = "Generator '" + g.name() + "': ";
    if (g.using_autoscheduler()) {
        throw CompileError(who + "-d 1 (a gradient module) with an autoscheduler: Loom does not autoschedule the "
                                 "gradient pipeline yet. Leave the autoscheduler out; the adjoint Funcs are "
                                 "computed at the root.");
    }
    Pipeline original = g.build_pipeline();
    GradientPipeline result;
    result.arguments = g.input_arguments();
    const std::vector<Argument> inputs = result.arguments;
    std::vector<Func> outputs;
    for (const Func &out : original.outputs()) {
        if (out.outputs() != 1) {
            throw CompileError(who + "the Output " + out.name() +
                               " is a Tuple; a gradient module (-d 1) needs Outputs of one value.");
        }
        const Type t = out.output_types()[0];
        const Type adjoint_type = t.is_float() ? t : Float(32);
        ImageParam d_out(adjoint_type, out.dimensions(), "_grad_loss_for_" + out.name());
        result.arguments.push_back(Argument(d_out));
        result.output_adjoints.push_back(d_out);
        Region bounds;
        for (int i = 0; i < out.dimensions(); i++) bounds.push_back({d_out.dim(i).min(), d_out.dim(i).extent()});
        Func adjoint = BoundaryConditions::constant_exterior(d_out, make_const(adjoint_type, 0.0));
        Derivative d = [&] {
            try {
                return propagate_adjoints(out, adjoint, bounds);
            } catch (const CompileError &e) {
                throw CompileError(who + e.what());
            }
        }();
        for (const Argument &in : inputs) {
            if (in.kind != Argument::InputBuffer) continue;
            const std::string name = "_grad_loss_" + out.name() + "_wrt_" + in.name;
            Func d_in = d(in.param.name());
            if (d_in.defined()) {
                Func grad(name);
                grad(_) = d_in(_);
                outputs.push_back(grad);
            } else {
                Func grad("_dummy" + name);
                std::vector<Var> vars;
                for (int i = 0; i < out.dimensions(); i++) vars.push_back(Var::implicit(i));
                grad(vars) = make_const(adjoint_type, 0.0);
                outputs.push_back(grad);
            }
        }
    }
    if (outputs.empty()) {
        throw CompileError(who + "-d 1 asks for a gradient module, but the generator has no buffer Inputs to "
                                 "differentiate with respect to.");
    }
    result.pipeline = Pipeline(outputs);
    return result;
}

}  // namespace internal
}  // namespace loom
