// Helpers for the loop-shaping tests: pipelines built directly on the
// compiler's Function representation, schedules written into StageSchedule
// the way the front end's directives write them, and a runner that executes
// a lowered pipeline through both the LLVM JIT and the interpreter.
#ifndef LOOM_TEST_LOWER_LOOP_SHAPING_UTIL_H
#define LOOM_TEST_LOWER_LOOP_SHAPING_UTIL_H

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/llvm/CodeGen_LLVM.h"
#include "common/FunctionBuilders.h"
#include "ir/Function.h"
#include "ir/IRPrinter.h"
#include "ir/Interpreter.h"
#include "loom/Error.h"
#include "loom/IROperator.h"
#include "loom/runtime/Buffer.h"
#include "lower/Lower.h"

namespace shaping_test {

using namespace loom;
using namespace loom::internal;

using loom_test::call;
using loom_test::image;
using loom_test::make_func;
using loom_test::v;

/** Adds an update f(args) = values over rdom (may be undefined). */
inline void add_update(const FunctionPtr &f, std::vector<Expr> args, Expr value,
                       ReductionDomain rdom = ReductionDomain()) {
    Definition d;
    d.args = std::move(args);
    d.values = {std::move(value)};
    d.rdom = std::move(rdom);
    f.get()->updates.push_back(d);
}

inline std::string text(const Stmt &s) {
    std::ostringstream o;
    o << s;
    return o.str();
}

/** Runs lf through the LLVM JIT and the interpreter; both must agree on the
 * result code and on every byte of the output (the last argument). */
inline int run(const LoweredFunc &lf, std::vector<void *> args) {
    auto *out = static_cast<loom_buffer_t *>(args.back());
    size_t bytes = 0;
    if (out->host) {
        bytes = out->type.bits / 8;
        for (int d = 0; d < out->dimensions; d++) bytes *= out->dim[d].extent;
    }
    JITPipeline jit = compile_jit(lf, get_host_target());
    int jit_result = jit.argv(args.data());
    std::vector<uint8_t> jit_bytes(out->host, out->host + bytes);
    int interp_result = interpret(lf, args.data());
    EXPECT_EQ(jit_result, interp_result);
    if (out->host) {
        EXPECT_TRUE(std::equal(jit_bytes.begin(), jit_bytes.end(), out->host)) << "JIT and interpreter disagree";
    }
    return interp_result;
}

/** Writes a stage's schedule the way the front end's directives do: the
 * loop list starts as the default order and each split replaces its var by
 * the inner var with the outer var just outside. Names are the user's. */
class Sched {
public:
    Sched(const FunctionPtr &f, int stage = 0) : f_(f), stage_(stage) { init_dims(); }

    Sched &split(const std::string &old, const std::string &outer, const std::string &inner, Expr factor,
                 loom::internal::TailStrategy tail = loom::internal::TailStrategy::Auto) {
        int i = find(old);
        Dim in = dims()[i], out = dims()[i];
        in.var = inner;
        out.var = outer;
        dims()[i] = in;
        dims().insert(dims().begin() + i + 1, out);
        Split s;
        s.kind = Split::SplitVar;
        s.old_var = old;
        s.outer = outer;
        s.inner = inner;
        s.factor = factor;
        s.tail = tail;
        sched().splits.push_back(s);
        return *this;
    }
    Sched &fuse(const std::string &inner, const std::string &outer, const std::string &fused) {
        int i = find(inner), o = find(outer);
        Dim d;
        d.var = fused;
        d.is_rvar = dims()[i].is_rvar;
        dims()[i] = d;
        dims().erase(dims().begin() + o);
        Split s;
        s.kind = Split::FuseVars;
        s.old_var = fused;
        s.outer = outer;
        s.inner = inner;
        sched().splits.push_back(s);
        return *this;
    }
    Sched &rename(const std::string &old, const std::string &renamed) {
        dims()[find(old)].var = renamed;
        Split s;
        s.kind = Split::RenameVar;
        s.old_var = old;
        s.outer = renamed;
        sched().splits.push_back(s);
        return *this;
    }
    /** The given loops, innermost first, take the places these loops had. */
    Sched &reorder(const std::vector<std::string> &order) {
        std::vector<int> places;
        for (const std::string &n : order) places.push_back(find(n));
        std::vector<Dim> moved;
        for (int p : places) moved.push_back(dims()[p]);
        std::sort(places.begin(), places.end());
        for (size_t k = 0; k < places.size(); k++) dims()[places[k]] = moved[k];
        return *this;
    }
    Sched &mark(const std::string &var, ForType t) {
        dims()[find(var)].for_type = t;
        return *this;
    }
    Sched &vectorize(const std::string &var) { return mark(var, ForType::Vectorized); }
    Sched &unroll(const std::string &var, std::vector<int> cascade = {}) {
        mark(var, ForType::Unrolled);
        dims()[find(var)].unroll_cascade = std::move(cascade);
        return *this;
    }

private:
    StageSchedule &sched() { return f_.get()->stage(stage_).schedule; }
    std::vector<Dim> &dims() { return sched().dims; }

    void init_dims() {
        if (!dims().empty()) return;
        const FunctionContents &f = *f_.get();
        const Definition &d = f.stage(stage_);
        if (d.rdom.defined()) {
            for (const ReductionVariable &rv : d.rdom.domain()) {
                Dim dim;
                dim.var = rv.var;
                dim.is_rvar = true;
                dims().push_back(dim);
            }
        }
        for (size_t i = 0; i < f.args.size(); i++) {
            const Variable *var = d.args[i].as<Variable>();
            if (stage_ > 0 && !(var && var->name == f.args[i])) continue;
            Dim dim;
            dim.var = f.args[i];
            dims().push_back(dim);
        }
    }

    int find(const std::string &name) {
        for (size_t i = 0; i < dims().size(); i++) {
            if (dims()[i].var == name) return (int)i;
        }
        ADD_FAILURE() << "no loop " << name;
        return 0;
    }

    FunctionPtr f_;
    int stage_;
};

/** Lowers a pipeline, runs it on a fresh w x h (or w) output with the given
 * mins, and returns the output. */
inline Runtime::Buffer<int> realize_2d(const FunctionPtr &f, int w, int h, int min_x = 0, int min_y = 0,
                                       std::vector<void *> inputs = {}, std::string *ir = nullptr) {
    LoweredFunc lf = lower({f}, "pipeline", Target());
    if (ir) *ir = text(lf.body);
    Runtime::Buffer<int> out(w, h);
    out.set_min({min_x, min_y});
    inputs.push_back(out.raw_buffer());
    EXPECT_EQ(run(lf, inputs), 0) << lf.body;
    return out;
}

inline Runtime::Buffer<int> realize_1d(const FunctionPtr &f, int w, int min_x = 0, std::vector<void *> inputs = {},
                                       std::string *ir = nullptr) {
    LoweredFunc lf = lower({f}, "pipeline", Target());
    if (ir) *ir = text(lf.body);
    Runtime::Buffer<int> out(w);
    out.set_min({min_x});
    inputs.push_back(out.raw_buffer());
    EXPECT_EQ(run(lf, inputs), 0) << lf.body;
    return out;
}

}  // namespace shaping_test

#endif
