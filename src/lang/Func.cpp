#include "loom/Func.h"

#include <mutex>
#include <set>

#include "ir/Function.h"
#include "ir/FunctionGroup.h"
#include "lang/Backend.h"
#include "lang/JITPipeline.h"
#include "lang/UniqueName.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {

using namespace internal;

namespace {

FunctionPtr new_function(const std::string &name, bool exact = false) {
    if (name.empty()) throw CompileError("A Func needs a non-empty name.");
    if (name.find('.') != std::string::npos) {
        throw CompileError("Func name \"" + name + "\" contains '.', which Loom uses to separate the parts of "
                           "loop names. Choose another name.");
    }
    FunctionPtr f = FunctionGroup::make_function();
    auto lease = lease_func_name(name, exact);
    f.get()->name = *lease;
    f.get()->name_lease = lease;
    return f;
}

/** A coordinate as Int(32). \throws CompileError for non-integers. */
Expr coordinate(const std::string &func, size_t i, const Expr &e) {
    if (!e.defined()) throw CompileError("Argument " + std::to_string(i) + " of " + func + "(...) is undefined.");
    Type t = e.type();
    if (!t.is_int_or_uint() || t.is_vector()) {
        throw CompileError("Argument " + std::to_string(i) + " of " + func + "(...) has type " + t.to_string() +
                           "; Funcs are indexed by integers (cast<int> it).");
    }
    return t == Int(32) ? e : cast(Int(32), e);
}

}  // namespace

std::string internal::unique_func_name(const std::string &base) {
    static std::mutex mutex;
    static std::set<std::string> used;
    std::lock_guard<std::mutex> lock(mutex);
    std::string name = base;
    for (int n = 1; !used.insert(name).second; n++) name = base + "_" + std::to_string(n);
    return name;
}

// ---- Construction ---------------------------------------------------------

Func::Func() : func_(new_function(unique_name('f'))) {}

Func::Func(const std::string &name) : func_(new_function(name)) {}

Func::Func(const internal::ExactFuncName &name) : func_(new_function(name.name, /*exact=*/true)) {}

Func::Func(const Expr &e) : Func() { (*this)(_) = e; }

Func::Func(const FunctionPtr &function) : func_(function.strengthened()) {
    if (!func_.defined()) throw InternalError("Func made from a null FunctionPtr.");
}

// ---- Calls ----------------------------------------------------------------

FuncRef Func::operator()(const std::vector<Expr> &given) const {
    const FunctionContents &f = *func_.get();
    std::vector<Expr> args = given;
    int placeholder_pos = -1, implicit_count = 0;
    for (size_t i = 0; i < args.size(); i++) {
        const Variable *v = args[i].defined() ? args[i].as<Variable>() : nullptr;
        if (!v || v->name != "_") continue;
        // `_` stands for the dimensions not named; before f is defined, the
        // right-hand side of the definition decides how many.
        placeholder_pos = (int)i;
        args.erase(args.begin() + i);
        if (f.defined()) {
            std::vector<Expr> implicit;
            while ((int)(args.size() + implicit.size()) < f.dimensions()) implicit.push_back(Var::implicit(implicit_count++));
            args.insert(args.begin() + i, implicit.begin(), implicit.end());
        }
        break;
    }
    if (f.defined() && (int)args.size() != f.dimensions()) {
        throw CompileError("Func " + f.name + " has " + std::to_string(f.dimensions()) +
                           " dimensions, but is called with " + std::to_string(args.size()) + " arguments.");
    }
    for (size_t i = 0; i < args.size(); i++) args[i] = coordinate(f.name, i, args[i]);
    return FuncRef(func_, args, placeholder_pos, implicit_count);
}

FuncRef Func::operator()(const std::vector<Var> &args) const {
    std::vector<Expr> exprs(args.begin(), args.end());
    return (*this)(exprs);
}

// ---- Queries --------------------------------------------------------------

const std::string &Func::name() const { return func_.get()->name; }

bool Func::defined() const { return func_.get()->defined(); }

int Func::dimensions() const { return defined() ? func_.get()->dimensions() : 0; }

int Func::outputs() const { return defined() ? func_.get()->outputs() : 0; }

Type Func::output_type() const {
    if (!defined()) throw CompileError("Func " + name() + " has no definition, so it has no type yet.");
    if (outputs() != 1) {
        throw CompileError("Func " + name() + " returns a Tuple of " + std::to_string(outputs()) +
                           " values: use output_types().");
    }
    return func_.get()->output_types[0];
}

std::vector<Type> Func::output_types() const { return func_.get()->output_types; }

std::vector<Var> Func::args() const {
    std::vector<Var> vars;
    for (const std::string &a : func_.get()->args) vars.emplace_back(a);
    return vars;
}

Expr Func::value() const {
    if (!defined()) throw CompileError("Func " + name() + " has no definition, so it has no value.");
    if (outputs() != 1) throw CompileError("Func " + name() + " returns a Tuple: use values().");
    return func_.get()->init.values[0];
}

Tuple Func::values() const {
    if (!defined()) throw CompileError("Func " + name() + " has no definition, so it has no values.");
    return Tuple(func_.get()->init.values);
}

int Func::num_update_definitions() const { return (int)func_.get()->updates.size(); }

namespace {
const Definition &update_definition(const FunctionContents &f, int index) {
    if (index < 0 || index >= (int)f.updates.size()) {
        throw CompileError("Func " + f.name + " has " + std::to_string(f.updates.size()) +
                           " update definitions, so update(" + std::to_string(index) + ") does not exist.");
    }
    return f.updates[index];
}
}  // namespace

Stage Func::update(int index) {
    update_definition(*func_.get(), index);
    return Stage(func_, index + 1);
}

const std::vector<Expr> &Func::update_args(int index) const { return update_definition(*func_.get(), index).args; }

Expr Func::update_value(int index) const {
    const Definition &d = update_definition(*func_.get(), index);
    if (d.values.size() != 1) throw CompileError("Func " + name() + " returns a Tuple: use update_values().");
    return d.values[0];
}

Tuple Func::update_values(int index) const { return Tuple(update_definition(*func_.get(), index).values); }

// ---- Running --------------------------------------------------------------

namespace {
JITSlot slot_of(const FunctionPtr &f) { return JITSlot{{f}, &f.get()->jit_cache}; }
}  // namespace

Realization Func::realize(const std::vector<int> &sizes, const Target &target) {
    return jit_realize(slot_of(func_), sizes, target);
}

void Func::realize(Realization &outputs, const Target &target) { jit_realize_into(slot_of(func_), outputs, target); }

void Func::compile_jit(const Target &target) { internal::jit_compile(slot_of(func_), target); }

void Func::infer_input_bounds(const std::vector<int> &sizes, const Target &target) {
    Realization outputs = jit_output_shapes(slot_of(func_), sizes, "infer_input_bounds");
    infer_input_bounds(outputs, target);
}

void Func::infer_input_bounds(Realization &outputs, const Target &target) {
    jit_infer_input_bounds(slot_of(func_), outputs, target);
}

void Func::print_loop_nest() { print_pipeline_loop_nest({func_}, get_target_from_environment()); }

void Func::lowered_stmt_for_target(const std::string &filename, const Target &target) {
    write_lowered_stmt({func_}, filename, target);
}

}  // namespace loom
