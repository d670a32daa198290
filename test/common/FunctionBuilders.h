// Pipelines built directly on the compiler's Function representation (no
// front end), for tests of lowering, as the front end builds them: a pure
// definition over its Vars with the default loop order (innermost Var
// first), so schedules written into StageSchedule name loops that exist.
#ifndef LOOM_TEST_COMMON_FUNCTION_BUILDERS_H
#define LOOM_TEST_COMMON_FUNCTION_BUILDERS_H

#include <memory>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/FunctionGroup.h"
#include "ir/IR.h"

namespace loom_test {

inline loom::Expr v(const std::string &name) { return loom::internal::Variable::make(loom::Int(32), name); }

/** Func `name`(args...) = value. */
inline loom::internal::FunctionPtr make_func(const std::string &name, std::vector<std::string> args,
                                             loom::Expr value) {
    loom::internal::FunctionPtr made = loom::internal::FunctionGroup::make_function();
    loom::internal::FunctionContents *f = made.get();
    f->name = name;
    f->args = args;
    f->output_types = {value.type()};
    for (const auto &a : args) {
        f->init.args.push_back(v(a));
        loom::internal::Dim d;
        d.var = a;
        f->init.schedule.dims.push_back(d);
    }
    f->init.values = {value};
    return made;
}

/** A call of f's first value. */
inline loom::Expr call(const loom::internal::FunctionPtr &f, std::vector<loom::Expr> args) {
    using namespace loom::internal;
    return Call::make(f.get()->output_types[0], f.get()->name, args, CallType::Func, f);
}

/** A read of input buffer p. */
inline loom::Expr image(const loom::internal::Parameter &p, std::vector<loom::Expr> args) {
    using namespace loom::internal;
    return Call::make(p.type(), p.name(), args, CallType::Image, FunctionPtr(), 0, p);
}

}  // namespace loom_test

#endif
