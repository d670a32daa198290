// Generator stubs (loom/GeneratorStub.h): a registered generator built inside
// the caller's pipeline. The generator is built exactly as for AOT (its
// Inputs are ImageParams and Params); then every read of an Input in the
// Funcs it made is redirected to the caller's Func or Expr.

#include "loom/GeneratorStub.h"

#include <cstdio>
#include <map>
#include <set>

#include "ir/DefinitionExprs.h"
#include "ir/Function.h"
#include "ir/IRMutator.h"
#include "lang/UniqueName.h"
#include "loom/Error.h"
#include "loom/Generator.h"
#include "loom/IROperator.h"

namespace loom {
namespace internal {

namespace {

/** Replaces reads of the bound Inputs: image reads by calls of the caller's
 * Funcs or reads of the caller's Buffers, scalar Params by the caller's
 * Exprs, and a bound Buffer's shape Variables (in.min.0, in.extent.0, ...)
 * by the Buffer's. Notes reads of a Func-bound image's shape, which a Func
 * does not have. */
class BindStubInputs : public IRMutator {
public:
    std::map<const ParameterContents *, Func> images;
    std::map<const ParameterContents *, Buffer<>> buffers;
    std::map<const ParameterContents *, Expr> scalars;
    std::map<const ParameterContents *, std::string> shape_reads;  // param -> first Variable read
    using IRMutator::mutate;

protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *c = e.as<Call>();
        if (!c || c->call_type != CallType::Image || !c->param.defined()) return e;
        auto it = images.find(c->param.get());
        if (it != images.end()) return Expr(it->second(c->args));
        auto b = buffers.find(c->param.get());
        if (b != buffers.end()) return b->second(c->args);
        return e;
    }
    Expr visit(const Variable *op) override {
        if (!op->param.defined()) return op;
        auto s = scalars.find(op->param.get());
        if (s != scalars.end()) return s->second;
        auto b = buffers.find(op->param.get());
        const std::string &param_name = op->param.name();
        if (b != buffers.end() && op->name.compare(0, param_name.size(), param_name) == 0) {
            const Parameter buffer_param = b->second.parameter();
            return Variable::make(op->type, buffer_param.name() + op->name.substr(param_name.size()), buffer_param);
        }
        if (images.count(op->param.get())) shape_reads.emplace(op->param.get(), op->name);
        return op;
    }
};

void mutate_exprs(std::vector<Expr> &exprs, IRMutator &m) {
    for (Expr &e : exprs) {
        if (e.defined()) e = m.mutate(e);
    }
}

void mutate_expr(Expr &e, IRMutator &m) {
    if (e.defined()) e = m.mutate(e);
}

void mutate_stage_schedule(StageSchedule &s, IRMutator &m) {
    for (Split &split : s.splits) mutate_expr(split.factor, m);
}

void mutate_specializations(std::vector<Specialization> &specializations, IRMutator &m) {
    for (Specialization &spec : specializations) {
        mutate_expr(spec.condition, m);
        mutate_stage_schedule(spec.schedule, m);
        mutate_specializations(spec.specializations, m);
    }
}

/** Every Expr of f's definitions and schedule that may read an Input. */
void mutate_function(FunctionContents &f, IRMutator &m) {
    for (int s = 0; s < f.stages(); s++) {
        Definition &d = f.stage(s);
        mutate_exprs(d.args, m);
        mutate_exprs(d.values, m);
        mutate_expr(d.predicate, m);
        mutate_stage_schedule(d.schedule, m);
        mutate_specializations(d.specializations, m);
        if (!d.rdom.defined()) continue;
        for (ReductionVariable &rv : d.rdom.get()->domain) {
            mutate_expr(rv.min, m);
            mutate_expr(rv.extent, m);
        }
        if (d.rdom.predicate().defined()) d.rdom.set_predicate(m.mutate(d.rdom.predicate()));
        if (d.rdom.loop_condition().defined()) d.rdom.set_loop_condition(m.mutate(d.rdom.loop_condition()));
    }
    for (Bound &b : f.schedule.bounds) {
        mutate_expr(b.min, m);
        mutate_expr(b.extent, m);
    }
}

/** The Funcs reachable from the outputs through calls and wrappers. */
class CollectFunctions : public IRGraphVisitor {
public:
    std::vector<FunctionPtr> found;
    std::set<const FunctionContents *> seen;

    void add(const FunctionPtr &f) {
        if (!f.defined() || !seen.insert(f.get()).second) return;
        found.push_back(f.strengthened());
        FunctionContents &c = *f.get();
        for (const auto &[consumer, wrapper] : c.wrappers) add(wrapper.func);
        for_each_definition_expr(c, [&](const Expr &e) { include(e); });
    }

protected:
    using IRGraphVisitor::visit;
    void visit(const Call *op) override {
        IRGraphVisitor::visit(op);
        if (op->call_type == CallType::Func) add(op->func);
    }
};

std::string who(const std::string &generator, const std::string &member) {
    return "Generator '" + generator + "' (used as a stub): Input '" + member + "'";
}

/** Sets the open type, dimension count and array size of Input `in` from
 * the caller's values, before the generator is built. */
void set_open_shape(GeneratorBase &g, const StubInput &in, const std::set<std::string> &open) {
    if (open.count(in.name + ".size")) {
        g.set_generator_param(in.name + ".size", std::to_string(in.is_array ? std::max(in.funcs.size(), in.exprs.size()) : 1));
    }
    // An array's elements share one type and dimension count: element 0's.
    if (!in.buffers.empty() && in.buffers[0].defined()) {
        const Buffer<> &b = in.buffers[0];
        if (open.count(in.name + ".type")) g.set_generator_param(in.name + ".type", generator_type_name(b.type()));
        if (open.count(in.name + ".dim")) g.set_generator_param(in.name + ".dim", std::to_string(b.dimensions()));
        return;
    }
    if (in.funcs.empty() || !in.funcs[0].defined()) return;
    const Func &f = in.funcs[0];
    if (open.count(in.name + ".type") && f.function().get()->defined()) {
        g.set_generator_param(in.name + ".type", generator_type_name(f.types()[0]));
    }
    if (open.count(in.name + ".dim") && f.function().get()->defined()) {
        g.set_generator_param(in.name + ".dim", std::to_string(f.dimensions()));
    }
}

void bind_buffer(const std::string &generator, const std::string &member, const Argument &arg, const Buffer<> &b,
                 BindStubInputs &binder) {
    const std::string w = who(generator, member) + (arg.name == member ? "" : " (element " + arg.name + ")");
    const std::string buffer_name = b.name().empty() ? std::string("a Buffer") : "Buffer '" + b.name() + "'";
    if (b.dimensions() != arg.dimensions) {
        throw CompileError(w + " has " + std::to_string(arg.dimensions) + " dimensions, but is bound to " +
                           buffer_name + " with " + std::to_string(b.dimensions()) + ".");
    }
    if (b.type() != arg.type) {
        throw CompileError(w + " has element type " + arg.type.to_string() + ", but is bound to " + buffer_name +
                           " of type " + b.type().to_string() + "; give it a Buffer of that type.");
    }
    binder.buffers[arg.param.get()] = b;
}

void bind_buffer_input(const std::string &generator, const std::string &member, const Argument &arg, const Func &f,
                       BindStubInputs &binder) {
    const std::string w = who(generator, member) + (arg.name == member ? "" : " (element " + arg.name + ")");
    if (!f.defined() || !f.function().get()->defined()) {
        throw CompileError(w + " is bound to an undefined Func; define it before calling generate().");
    }
    if (f.dimensions() != arg.dimensions) {
        throw CompileError(w + " has " + std::to_string(arg.dimensions) + " dimensions, but is bound to Func '" +
                           f.name() + "' with " + std::to_string(f.dimensions()) + ".");
    }
    if (f.types().size() != 1 || f.types()[0] != arg.type) {
        throw CompileError(w + " has element type " + arg.type.to_string() + ", but is bound to Func '" + f.name() +
                           "' of type " + (f.types().size() == 1 ? f.types()[0].to_string() : "Tuple") +
                           "; cast it first.");
    }
    binder.images[arg.param.get()] = f;
}

void bind_scalar_input(const std::string &generator, const std::string &member, const Argument &arg, const Expr &e,
                       BindStubInputs &binder) {
    const std::string w = who(generator, member) + (arg.name == member ? "" : " (element " + arg.name + ")");
    if (!e.defined()) throw CompileError(w + " is bound to an undefined Expr; give it a value.");
    Expr value = e;
    if (e.type() != arg.type) {
        const bool constant = e.as<IntImm>() || e.as<UIntImm>() || e.as<FloatImm>();
        if (!constant) {
            throw CompileError(w + " has type " + arg.type.to_string() + ", but is bound to an Expr of type " +
                               e.type().to_string() + "; cast it first.");
        }
        value = cast(arg.type, e);
    }
    binder.scalars[arg.param.get()] = value;
}

/** Whether `member` was added by configure() (it follows the declared
 * members, which a fresh instance of the generator has). */
bool member_added_by_configure(const GeneratorBase &g, const GeneratorInputBase *member) {
    std::unique_ptr<GeneratorBase> fresh = GeneratorRegistry::create(g.name());
    for (const GeneratorInputBase *in : fresh->input_members()) {
        if (in->member_name() == member->member_name()) return false;
    }
    return true;
}

std::string joined(const std::vector<std::string> &names) {
    std::string s;
    for (const std::string &n : names) s += (s.empty() ? "'" : ", '") + n + "'";
    return s.empty() ? "none" : s;
}

/** \throws CompileError unless g's Output members are `expected` (the
 * ones the stub's Outputs struct has), in order. */
void check_stub_outputs(const std::string &generator, const GeneratorBase &g, const std::vector<std::string> &expected) {
    // A single Output's name is its Func's, which the caller's pipeline may
    // have made unique ("output_1" for "output").
    auto same_member = [](const std::string &actual, const std::string &stub) {
        if (actual == stub) return true;
        if (actual.size() <= stub.size() + 1 || actual.compare(0, stub.size() + 1, stub + "_") != 0) return false;
        return actual.find_first_not_of("0123456789", stub.size() + 1) == std::string::npos;
    };
    std::vector<std::string> actual;
    for (const GeneratorOutputBase *out : g.output_members()) actual.push_back(out->member_name());
    bool same = actual.size() == expected.size();
    for (size_t i = 0; same && i < actual.size(); i++) same = same_member(actual[i], expected[i]);
    if (same) return;
    throw CompileError("Generator '" + generator + "' (used as a stub) has the Outputs " + joined(actual) +
                       " with these GeneratorParams, but the stub was written for " + joined(expected) +
                       " (configure() adds Outputs by GeneratorParams): write the stub (-e cpp_stub) with the "
                       "GeneratorParams it is called with.");
}

}  // namespace

std::vector<std::vector<Func>> build_generator_stub(const std::string &generator, const GeneratorContext &context,
                                                    const std::vector<std::pair<std::string, std::string>> &params,
                                                    const std::vector<StubInput> &inputs,
                                                    const std::vector<std::string> &output_names) {
    // The generator's Output Funcs join the caller's pipeline: their names
    // are made unique like any other Func's.
    UniqueExactFuncNames unique_names;
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create(generator);
    g->set_target(context.target());
    for (const auto &[name, value] : params) g->set_generator_param(name, value);

    std::map<std::string, const StubInput *> given;
    for (const StubInput &in : inputs) given[in.name] = &in;
    const std::vector<std::string> open_list = g->shape_params();
    const std::set<std::string> open(open_list.begin(), open_list.end());
    for (const StubInput &in : inputs) set_open_shape(*g, in, open);

    Pipeline pipeline = g->build_pipeline();

    BindStubInputs binder;
    for (GeneratorInputBase *member : g->input_members()) {
        const std::string name = member->member_name();
        auto it = given.find(name);
        if (it == given.end()) {
            throw CompileError(who(generator, name) + " is not given a value." +
                               (member_added_by_configure(*g, member)
                                    ? " configure() added it for these GeneratorParams, but the stub was written "
                                      "for other values: write the stub (-e cpp_stub) with the GeneratorParams it "
                                      "is called with."
                                    : ""));
        }
        const StubInput &in = *it->second;
        given.erase(it);
        const std::vector<Argument> args = member->arguments();
        const size_t count = in.is_array ? std::max(in.funcs.size(), in.exprs.size()) : 1;
        if (count != args.size()) {
            throw CompileError(who(generator, name) + " has " + std::to_string(args.size()) + " elements, but " +
                               std::to_string(count) + " are given.");
        }
        for (size_t i = 0; i < args.size(); i++) {
            if (args[i].kind == Argument::InputBuffer) {
                // A Buffer is read directly (its shape is readable); a Func is called.
                if (i < in.buffers.size() && in.buffers[i].defined()) {
                    bind_buffer(generator, name, args[i], in.buffers[i], binder);
                    continue;
                }
                if (i >= in.funcs.size()) {
                    throw CompileError(who(generator, name) + " is a buffer: give it a Func or a Buffer" +
                                       (in.is_array ? " per element." : "."));
                }
                bind_buffer_input(generator, name, args[i], in.funcs[i], binder);
            } else {
                if (i >= in.exprs.size()) throw CompileError(who(generator, name) + " is a scalar: give it an Expr.");
                bind_scalar_input(generator, name, args[i], in.exprs[i], binder);
            }
        }
    }
    if (!given.empty()) {
        throw CompileError("Generator '" + generator + "' (used as a stub) has no Input '" + given.begin()->first +
                           "' with these GeneratorParams; if configure() adds it, call the stub with the "
                           "GeneratorParams it was written for.");
    }
    if (!output_names.empty()) check_stub_outputs(generator, *g, output_names);

    CollectFunctions functions;
    for (GeneratorOutputBase *member : g->output_members()) {
        for (const Func &f : member->funcs()) functions.add(f.function());
    }
    for (const FunctionPtr &f : functions.found) mutate_function(*f.get(), binder);
    if (!binder.shape_reads.empty()) {
        const auto &[param, variable] = *binder.shape_reads.begin();
        throw CompileError("Generator '" + generator + "' (used as a stub): it reads the buffer shape of Input '" +
                           param->name + "' (" + variable +
                           "), which a Func bound to it does not have. Give that Input a Buffer instead (its "
                           "shape is the Buffer's), or make the generator read only the Input's values, type() "
                           "and dimensions().");
    }

    std::vector<std::vector<Func>> outputs;
    for (GeneratorOutputBase *member : g->output_members()) outputs.push_back(member->funcs());
    return outputs;
}

std::string stub_param_text(bool v) { return v ? "true" : "false"; }
std::string stub_param_text(int64_t v) { return std::to_string(v); }
std::string stub_param_text(uint64_t v) { return std::to_string(v); }
std::string stub_param_text(double v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}
std::string stub_param_text(const std::string &v) { return v; }
std::string stub_param_text(const Type &v) { return generator_type_name(v); }
std::string stub_param_text(const loom::LoopLevel &v) {
    if (!v.defined()) throw CompileError("A stub's LoopLevel GeneratorParam is undefined; give root, inlined or a loop.");
    if (v.is_root()) return "root";
    if (v.is_inlined()) return "inline";
    return v.func() + "." + v.var().name();
}

}  // namespace internal
}  // namespace loom
