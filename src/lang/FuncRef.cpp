// FuncRef and FuncTupleElementRef: the left-hand sides of definitions and
// the calls of Funcs in Exprs.

#include "ir/Function.h"
#include "lang/Definitions.h"
#include "loom/Error.h"
#include "loom/Func.h"
#include "loom/IROperator.h"

namespace loom {

using namespace internal;

namespace {

const FunctionContents &contents_of(const FunctionPtr &f) {
    if (!f.defined()) throw InternalError("A FuncRef refers to a Func that no longer exists.");
    return *f.get();
}

void check_callable(const FunctionContents &f) {
    if (!f.defined()) {
        throw CompileError("Can't call Func " + f.name + ": it has no definition yet. Define " + f.name +
                           " before using it in an Expr.");
    }
}

}  // namespace

std::vector<Expr> FuncRef::args_with_implicit_vars(const std::vector<Expr> &values) const {
    const FunctionContents &f = contents_of(func_);
    const std::string &name = f.name;
    std::vector<Expr> args = args_;
    for (size_t i = 0; i < args.size(); i++) {
        if (!args[i].defined()) throw CompileError("Argument " + std::to_string(i) + " of " + name + "(...) is undefined.");
    }
    for (size_t i = 0; i < values.size(); i++) {
        if (!values[i].defined()) {
            throw CompileError("Value " + std::to_string(i) + " in the definition of " + name + " is undefined.");
        }
    }
    std::vector<Expr> all = values;
    all.insert(all.end(), args.begin(), args.end());
    const int count = count_implicit_vars(all);
    if (count == 0) return args;

    if (f.defined()) {
        // `_` was expanded when f was called; the right may not use more.
        if (implicit_count_ < count) {
            throw CompileError("The update definition of " + name + " uses " + std::to_string(count) +
                               " implicit variables, but its left-hand side has only " +
                               std::to_string(implicit_count_) + ".");
        }
    } else if (placeholder_pos_ >= 0) {
        std::vector<Expr> implicit;
        for (int i = 0; i < count; i++) implicit.push_back(Var::implicit(i));
        args.insert(args.begin() + placeholder_pos_, implicit.begin(), implicit.end());
    }
    for (int i = 0; i < count; i++) {
        const std::string implicit = Var::implicit(i).name();
        bool found = false;
        for (const Expr &a : args) {
            const Variable *v = a.as<Variable>();
            found = found || (v && v->name == implicit);
        }
        if (!found) {
            throw CompileError("The right-hand side of the definition of " + name +
                               " uses implicit variables (from _), but the left-hand side does not contain the "
                               "placeholder _. Write " + name + "(..., _) = ...");
        }
    }
    return args;
}

Stage FuncRef::operator=(const Expr &value) { return *this = Tuple(value); }

Stage FuncRef::operator=(const Tuple &values) {
    const FunctionContents &f = contents_of(func_);
    std::vector<Expr> args = args_with_implicit_vars(values.as_vector());
    if (!f.defined()) {
        define_pure(func_, args, values.as_vector());
        return Stage(func_, 0);
    }
    define_update(func_, args, values.as_vector());
    return Stage(func_, (int)f.updates.size());
}

Stage FuncRef::operator=(const FuncRef &value) {
    if (value.size() == 1) return *this = Expr(value);
    return *this = Tuple(value);
}

Stage FuncRef::operator=(const FuncTupleElementRef &value) { return *this = Expr(value); }

template<typename Op>
Stage FuncRef::update_with(const Tuple &values, int identity, Op op) {
    const FunctionContents &f = contents_of(func_);
    std::vector<Expr> args = args_with_implicit_vars(values.as_vector());
    if (!f.defined()) {
        // As Halide: the base case is the operator's identity. Pure Vars of
        // the left keep their names so the update can keep them pure.
        std::vector<Expr> pure_args;
        for (const Expr &a : args) {
            const Variable *v = a.as<Variable>();
            bool usable = v && !v->param.defined() && !v->reduction_domain.defined();
            for (const Expr &p : pure_args) usable = usable && p.as<Variable>()->name != v->name;
            pure_args.push_back(usable ? a : Expr(Var()));
        }
        std::vector<Expr> base;
        for (const Expr &v : values.as_vector()) base.push_back(cast(v.type(), identity));
        Func func(func_);
        func(pure_args) = Tuple(base);
    }
    FuncRef self = Func(func_)(args);
    std::vector<Expr> updated;
    for (size_t i = 0; i < values.size(); i++) {
        Expr current = f.outputs() == 1 ? Expr(self) : Expr(self[(int)i]);
        updated.push_back(op(current, values[i]));
    }
    return self = Tuple(updated);
}

Stage FuncRef::operator+=(const Tuple &v) {
    return update_with(v, 0, [](const Expr &a, const Expr &b) { return a + b; });
}
Stage FuncRef::operator-=(const Tuple &v) {
    return update_with(v, 0, [](const Expr &a, const Expr &b) { return a - b; });
}
Stage FuncRef::operator*=(const Tuple &v) {
    return update_with(v, 1, [](const Expr &a, const Expr &b) { return a * b; });
}
Stage FuncRef::operator/=(const Tuple &v) {
    return update_with(v, 1, [](const Expr &a, const Expr &b) { return a / b; });
}
Stage FuncRef::operator+=(const Expr &v) { return *this += Tuple(v); }
Stage FuncRef::operator-=(const Expr &v) { return *this -= Tuple(v); }
Stage FuncRef::operator*=(const Expr &v) { return *this *= Tuple(v); }
Stage FuncRef::operator/=(const Expr &v) { return *this /= Tuple(v); }

FuncRef::operator Expr() const {
    const FunctionContents &f = contents_of(func_);
    check_callable(f);
    if (f.outputs() != 1) {
        throw CompileError("Func " + f.name + " returns a Tuple of " + std::to_string(f.outputs()) +
                           " values, so a call of it is not a single Expr: use " + f.name + "(...)[i].");
    }
    if ((int)args_.size() != f.dimensions()) {
        throw CompileError("Func " + f.name + " has " + std::to_string(f.dimensions()) +
                           " dimensions, but is called with " + std::to_string(args_.size()) + " arguments.");
    }
    return Call::make(f.output_types[0], f.name, args_, CallType::Func, func_, 0);
}

FuncTupleElementRef FuncRef::operator[](int i) const {
    const FunctionContents &f = contents_of(func_);
    check_callable(f);
    if (f.outputs() == 1) {
        throw CompileError("Func " + f.name + " does not return a Tuple, so " + f.name + "(...)[" + std::to_string(i) +
                           "] is not allowed: use " + f.name + "(...) directly.");
    }
    if (i < 0 || i >= f.outputs()) {
        throw CompileError("Func " + f.name + " returns a Tuple of " + std::to_string(f.outputs()) +
                           " values, so element " + std::to_string(i) + " does not exist.");
    }
    return FuncTupleElementRef(*this, i);
}

size_t FuncRef::size() const {
    const FunctionContents &f = contents_of(func_);
    check_callable(f);
    return f.outputs();
}

FuncTupleElementRef::operator Expr() const {
    const FunctionContents &f = contents_of(ref_.function());
    if ((int)ref_.arguments().size() != f.dimensions()) {
        throw CompileError("Func " + f.name + " has " + std::to_string(f.dimensions()) +
                           " dimensions, but is called with " + std::to_string(ref_.arguments().size()) +
                           " arguments.");
    }
    return Call::make(f.output_types.at(index_), f.name, ref_.arguments(), CallType::Func, ref_.function(), index_);
}

Tuple FuncTupleElementRef::with_element(const Expr &value) const {
    // The other elements keep their current values.
    std::vector<Expr> values;
    for (int i = 0; i < (int)ref_.size(); i++) values.push_back(i == index_ ? value : Expr(ref_[i]));
    return Tuple(values);
}

Stage FuncTupleElementRef::operator=(const Expr &value) {
    FuncRef lhs = ref_;
    return lhs = with_element(value);
}
Stage FuncTupleElementRef::operator+=(const Expr &value) { return *this = Expr(*this) + value; }
Stage FuncTupleElementRef::operator-=(const Expr &value) { return *this = Expr(*this) - value; }
Stage FuncTupleElementRef::operator*=(const Expr &value) { return *this = Expr(*this) * value; }
Stage FuncTupleElementRef::operator/=(const Expr &value) { return *this = Expr(*this) / value; }

}  // namespace loom
