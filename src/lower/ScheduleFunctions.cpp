#include "lower/ScheduleFunctions.h"

#include "lower/StageLoopNest.h"

#include "ir/IRUtil.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

Stmt build_produce(const PipelineStages &p, const std::string &name) {
    std::vector<Stmt> stages;
    for (const Stage &s : p.stages.at(name)) stages.push_back(build_stage_loop_nest(s));
    return ProducerConsumer::make_produce(name, Block::make(stages));
}

Region realized_region(const FunctionContents &f) {
    Region bounds;
    for (const std::string &a : f.args) {
        bounds.emplace_back(var(f.name + "." + a + ".min_realized"), var(f.name + "." + a + ".extent_realized"));
    }
    return bounds;
}

}  // namespace

Stmt schedule_functions(const PipelineStages &p) {
    Stmt stmt;
    for (auto it = p.order.rbegin(); it != p.order.rend(); ++it) {
        const std::string &name = *it;
        const FunctionContents &f = p.func(name);
        if (f.schedule.compute_level.kind == LoopLevel::At) {
            throw InternalError("compute_at is not supported by schedule_functions yet (Func " + name + ")");
        }
        Stmt produce = build_produce(p, name);
        if (p.is_output(name)) {
            stmt = stmt.defined() ? Block::make(produce, stmt) : produce;
            continue;
        }
        if (!stmt.defined()) throw InternalError("Func " + name + " is realized but nothing consumes it");
        Stmt consume = ProducerConsumer::make_consume(name, stmt);
        stmt = Realize::make(name, f.output_types, f.schedule.memory_type, realized_region(f), const_true(),
                             Block::make(produce, consume));
    }
    return stmt;
}

}  // namespace internal
}  // namespace loom
