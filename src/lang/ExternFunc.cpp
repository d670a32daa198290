// Func::define_extern (include/loom/Func.h): the definition of a Func
// computed by a C function, stored as a placeholder value that lowering
// turns into the call (lower/ExternStages.h).

#include <dlfcn.h>

#include <set>

#include "ir/Function.h"
#include "ir/IRVisitor.h"
#include "lang/Backend.h"
#include "lang/ExternFunc.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "lower/ExternStages.h"

namespace loom {

using namespace internal;

namespace {

/** The Vars (not Params, not RVars) an Expr argument uses. */
std::set<std::string> free_vars(const Expr &e) {
    struct Finder : IRGraphVisitor {
        std::set<std::string> names;
        using IRGraphVisitor::visit;
        void visit(const Variable *op) override {
            if (!op->param.defined()) names.insert(op->name);
        }
    } finder;
    finder.include(e);
    return finder.names;
}

Expr func_argument(const std::string &f, int index, const FunctionPtr &g) {
    if (!g.defined() || !g.get()->defined()) {
        const std::string name = g.defined() ? g.get()->name : "<null>";
        throw CompileError("Argument " + std::to_string(index) + " of the extern stage '" + f + "' is Func '" + name +
                           "', which has no definition. Define it before define_extern.");
    }
    const FunctionContents &callee = *g.get();
    if (callee.name == f) {
        throw CompileError("Argument " + std::to_string(index) + " of the extern stage '" + f +
                           "' is the Func itself. Pass the Funcs it reads.");
    }
    std::vector<Expr> corners;
    for (int k = 0; k < callee.outputs(); k++) {
        for (bool is_min : {true, false}) {
            std::vector<Expr> coords;
            for (int d = 0; d < callee.dimensions(); d++) {
                coords.push_back(Variable::make(Int(32), extern_corner_name(f, index, k, is_min, d)));
            }
            corners.push_back(Call::make(callee.output_types[k], callee.name, coords, CallType::Func, g, k));
        }
    }
    return Call::make(Handle(), intrinsic::extern_func_arg, corners, CallType::PureIntrinsic);
}

Expr placeholder_argument(const std::string &f, int index, const ExternFuncArgument &a) {
    const std::string which = "Argument " + std::to_string(index) + " of the extern stage '" + f + "'";
    switch (a.arg_type) {
    case ExternFuncArgument::FuncArg:
        return func_argument(f, index, a.func);
    case ExternFuncArgument::BufferArg:
    case ExternFuncArgument::ImageParamArg: {
        const Parameter &p = a.is_buffer() ? a.buffer : a.image_param;
        if (!p.defined() || !p.is_buffer()) throw CompileError(which + " is an undefined Buffer or ImageParam.");
        return Variable::make(Handle(), p.name() + ".buffer", p);
    }
    case ExternFuncArgument::ExprArg: {
        if (!a.expr.defined()) throw CompileError(which + " is an undefined Expr.");
        if (a.expr.type().is_vector()) throw CompileError(which + " is a vector Expr; pass scalars.");
        std::set<std::string> vars = free_vars(a.expr);
        if (!vars.empty()) {
            throw CompileError(which + " uses the Var '" + *vars.begin() +
                               "', which has no value where the C function is called. Pass Params and constants; "
                               "pass values that vary per point as a Func.");
        }
        return a.expr;
    }
    case ExternFuncArgument::UndefinedArg:
        break;
    }
    throw CompileError(which + " is undefined (a default-constructed ExternFuncArgument).");
}

}  // namespace

ExternFuncArgument::ExternFuncArgument(const Func &f) : arg_type(FuncArg), func(f.function()) {
    if (!f.defined()) {
        throw CompileError("Func '" + f.name() + "' is passed to define_extern but has no definition. Define it first.");
    }
}

void Func::define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params,
                         const std::vector<Type> &types, const std::vector<Var> &arguments, NameMangling mangling,
                         DeviceAPI device_api) {
    FunctionContents &f = *func_.get();
    const std::string what = "define_extern of Func '" + f.name + "'";
    if (f.defined()) {
        throw CompileError(what + ": the Func already has a definition. Call define_extern on a new Func.");
    }
    if (function_name.empty()) throw CompileError(what + ": the C function's name is empty.");
    if (types.empty()) throw CompileError(what + ": no output type given. Pass one Type per output buffer.");
    if (mangling == NameMangling::CPlusPlus) {
        throw CompileError(what + " asks for C++ name mangling of '" + function_name +
                           "', which Loom does not implement. Declare the function extern \"C\" and use "
                           "NameMangling::Default.");
    }
    if (device_api != DeviceAPI::Host && device_api != DeviceAPI::None) {
        throw CompileError(what + " asks for a device API other than Host. Loom calls extern stages on the host "
                           "only; pass DeviceAPI::Host.");
    }
    std::vector<std::string> names;
    for (const Var &v : arguments) {
        for (const std::string &n : names) {
            if (n == v.name()) throw CompileError(what + ": the Var " + n + " is given twice. Pass distinct Vars.");
        }
        names.push_back(v.name());
    }
    std::vector<Expr> args;
    for (size_t i = 0; i < params.size(); i++) args.push_back(placeholder_argument(f.name, int(i), params[i]));

    Definition def;
    for (const std::string &n : names) {
        def.args.push_back(Variable::make(Int(32), n));
        Dim d;
        d.var = n;
        def.schedule.dims.push_back(d);
    }
    for (const Type &t : types) def.values.push_back(make_extern_placeholder(t, function_name, args));
    f.args = names;
    f.output_types = types;
    f.init = def;
    mark_changed(f);
    // It can't be inlined: computed at root unless scheduled otherwise.
    compute_root();
}

void Func::define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params, Type t,
                         int dimensionality, NameMangling mangling, DeviceAPI device_api) {
    define_extern(function_name, params, std::vector<Type>{t}, dimensionality, mangling, device_api);
}

void Func::define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params,
                         const std::vector<Type> &types, int dimensionality, NameMangling mangling,
                         DeviceAPI device_api) {
    if (dimensionality < 0) {
        throw CompileError("define_extern of Func '" + name() + "': dimensionality is " +
                           std::to_string(dimensionality) + "; it must be 0 or more.");
    }
    std::vector<Var> vars;
    for (int i = 0; i < dimensionality; i++) vars.push_back(Var::implicit(i));
    define_extern(function_name, params, types, vars, mangling, device_api);
}

void Func::define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params, Type t,
                         const std::vector<Var> &arguments, NameMangling mangling, DeviceAPI device_api) {
    define_extern(function_name, params, std::vector<Type>{t}, arguments, mangling, device_api);
}

bool Func::is_extern() const { return is_extern_function(*func_.get()); }

const std::string &Func::extern_function_name() const {
    const Call *placeholder = extern_placeholder(*func_.get());
    if (!placeholder) throw CompileError("Func '" + name() + "' is not an extern stage (define_extern).");
    return placeholder->args[0].as<StringImm>()->value;
}

namespace internal {

void check_extern_stages_runnable(const std::vector<FunctionPtr> &functions, bool interpreter) {
    for (const FunctionPtr &fp : functions) {
        const FunctionContents &f = *fp.get();
        const Call *placeholder = extern_placeholder(f);
        if (!placeholder) continue;
        const std::string &symbol = placeholder->args[0].as<StringImm>()->value;
        if (interpreter) {
            throw CompileError("Func '" + f.name + "' is an extern stage (define_extern of '" + symbol +
                               "'): the reference interpreter does not call C functions. Realize it with the LLVM "
                               "JIT back end.");
        }
        if (!dlsym(RTLD_DEFAULT, symbol.c_str())) {
            throw CompileError("Func '" + f.name + "' is an extern stage calling '" + symbol +
                               "', but this process has no symbol of that name. Define it extern \"C\" in the "
                               "program and export it (link with -rdynamic, or ENABLE_EXPORTS in CMake), or load the "
                               "library that defines it.");
        }
    }
}

}  // namespace internal

}  // namespace loom
