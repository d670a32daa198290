#include "lower/ScheduleFunctions.h"

#include <functional>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"
#include "lower/ComputeWith.h"
#include "lower/LoopExits.h"
#include "lower/Specialize.h"
#include "lower/StageLoopNest.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

/** The Funcs some level names with Var::outermost(). */
std::set<std::string> funcs_with_outermost_loop(const PipelineStages &p) {
    std::set<std::string> result;
    for (const auto &entry : p.env) {
        const FunctionContents &f = p.func(entry.first);
        for (const LoopLevel *level : {&f.schedule.compute_level, &f.schedule.store_level,
                                       &f.schedule.hoist_storage_level}) {
            if (level->kind == LoopLevel::At && level->var == kOutermostLoop) result.insert(level->func);
        }
    }
    return result;
}

Stmt build_produce(const PipelineStages &p, const std::string &name, bool outermost_loop,
                   std::set<std::string> *coordinates) {
    // Folded storage holds only the slots the consumers need: a ShiftInwards
    // tail may not compute points outside them.
    // An update fused with an earlier stage of its Func must not meet a
    // recomputed point either: it would overwrite an updated value.
    const bool fixed_storage = !p.func(name).schedule.storage_folds.empty() || has_own_stage_fusion(p, name);
    std::vector<Stmt> stages;
    for (const Stage &s : p.stages.at(name)) {
        // A pure definition of undef() stores nothing (the updates do;
        // build_pipeline_stages refuses one without updates).
        if (s.index == 0 && is_undef(s.values.at(0))) continue;
        Stmt nest = build_specialized_loop_nest(s, fixed_storage, coordinates);
        if (outermost_loop) {
            nest = For::make(stage_var_name(name, s.index, kOutermostLoop), 0, 1, ForType::Serial, DeviceAPI::None,
                             nest);
        }
        stages.push_back(nest);
    }
    return ProducerConsumer::make_produce(name, Block::make(stages));
}

Region realized_region(const FunctionContents &f) {
    Region bounds;
    for (const std::string &a : f.args) {
        bounds.emplace_back(var(f.name + "." + a + ".min_realized"), var(f.name + "." + a + ".extent_realized"));
    }
    return bounds;
}

std::string describe_level(const LoopLevel &level) {
    if (level.is_root()) return "root";
    std::string s = level.func + "." + level.var;
    if (level.stage >= 0) s += " (stage " + std::to_string(level.stage) + ")";
    return s;
}

/** Whether a statement mentions Func `name`: a call to it or its production. */
class MentionsFunc : public IRVisitor {
public:
    explicit MentionsFunc(const std::string &name) : name_(name) {}
    bool found = false;

private:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == CallType::Func && op->name == name_) found = true;
        IRVisitor::visit(op);
    }
    void visit(const ProducerConsumer *op) override {
        if (op->name == name_) found = true;
        IRVisitor::visit(op);
    }
    std::string name_;
};

bool mentions(const Stmt &s, const std::string &name) {
    MentionsFunc finder(name);
    s.accept(&finder);
    return finder.found;
}

/** Wraps the bodies of the loops a level names. A level with a stage index
 * names one loop, e.g. "g.s1.y". A level without one names loop `var` of
 * every stage of its Func, as in Halide: the Func is placed in each such loop
 * whose body uses it (`func`), so a producer is computed in the loop of each
 * stage that reads it, sized to what that stage reads. */
class InjectAtLoop : public IRMutator {
public:
    InjectAtLoop(const LoopLevel &level, const std::string &func, std::function<Stmt(Stmt)> wrap)
        : level_(level), func_(func), wrap_(std::move(wrap)) {}
    bool found = false;     // a loop the level names
    bool injected = false;  // ... that uses func_, where it was placed

protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        if (!names(op->name)) return IRMutator::visit(op);
        found = true;
        if (level_.stage < 0 && !mentions(op->body, func_)) return IRMutator::visit(op);
        injected = true;
        // A loop that can stop early tests its condition before anything
        // of the iteration runs, the Funcs computed in it included.
        const Block *b = op->body.as<Block>();
        if (b && is_loop_exit_marker(b->first)) {
            return For::make(op->name, op->min, op->extent, op->for_type, op->device_api,
                             Block::make(b->first, wrap_(b->rest)));
        }
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, wrap_(op->body));
    }

private:
    bool names(const std::string &loop) const {
        if (level_.stage >= 0) return loop == stage_var_name(level_.func, level_.stage, level_.var);
        const std::string prefix = level_.func + ".s", suffix = "." + level_.var;
        if (loop.size() <= prefix.size() + suffix.size() || loop.compare(0, prefix.size(), prefix) != 0 ||
            loop.compare(loop.size() - suffix.size(), suffix.size(), suffix) != 0) {
            return false;
        }
        const std::string stage = loop.substr(prefix.size(), loop.size() - prefix.size() - suffix.size());
        return !stage.empty() && stage.find_first_not_of("0123456789") == std::string::npos;
    }

    LoopLevel level_;
    std::string func_;
    std::function<Stmt(Stmt)> wrap_;
};

/** Wraps each Provide of another Func that uses func: where a Func with
 * update definitions left at the inlined level (it cannot be substituted)
 * is computed, as in Halide: around the innermost statement of each use. */
class InjectAroundProvides : public IRMutator {
public:
    InjectAroundProvides(const std::string &func, std::function<Stmt(Stmt)> wrap)
        : func_(func), wrap_(std::move(wrap)) {}

protected:
    using IRMutator::visit;
    Stmt visit(const Provide *op) override {
        if (op->name == func_ || !mentions(Stmt(op), func_)) return op;
        return wrap_(op);
    }

private:
    std::string func_;
    std::function<Stmt(Stmt)> wrap_;
};

Stmt inject_at(const PipelineStages &p, const LoopLevel &level, const Stmt &s, const std::function<Stmt(Stmt)> &wrap,
               const std::string &func, const char *what) {
    if (level.is_root()) return wrap(s);
    if (!p.env.count(level.func) || !p.stages.count(level.func)) {
        throw CompileError("Func '" + func + "' is scheduled " + what + "(" + describe_level(level) + "), but Func '" +
                           level.func + "' is not computed in this pipeline (it is inlined or unused). Schedule '" +
                           level.func + "' with compute_root() or compute_at(), or pick another loop.");
    }
    InjectAtLoop injector(level, func, wrap);
    Stmt result = injector.mutate(s);
    if (!injector.found) {
        throw CompileError("Func '" + func + "' is scheduled " + what + "(" + describe_level(level) +
                           "), but the loop nest around its consumers has no loop '" + level.var + "' of Func '" +
                           level.func + "'. Use a loop variable of that Func's schedule (see print_loop_nest()), " +
                           "or an enclosing Func's.");
    }
    if (!injector.injected) {
        throw CompileError("Func '" + func + "' is scheduled " + what + "(" + describe_level(level) +
                           "), but no stage of Func '" + level.func + "' that uses '" + func + "' has a loop '" +
                           level.var + "'. Use a loop of a stage that reads '" + func + "' (see print_loop_nest()).");
    }
    return result;
}

/** Finds calls to a Func outside its consume node. */
class FindUseOutsideConsume : public IRVisitor {
public:
    explicit FindUseOutsideConsume(const std::string &name) : name_(name) {}
    bool found = false;

private:
    using IRVisitor::visit;
    void visit(const ProducerConsumer *op) override {
        if (op->name == name_) return;  // its own production and its consumers
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (op->call_type == CallType::Func && op->name == name_) found = true;
        IRVisitor::visit(op);
    }
    std::string name_;
};

/** Whether a produce node of `name` lies inside its Realize. */
class ProduceInsideRealize : public IRVisitor {
public:
    explicit ProduceInsideRealize(const std::string &name) : name_(name) {}
    bool produce_outside = false;

private:
    using IRVisitor::visit;
    void visit(const Realize *op) override {
        if (op->name == name_) {
            inside_++;
            IRVisitor::visit(op);
            inside_--;
            return;
        }
        IRVisitor::visit(op);
    }
    void visit(const ProducerConsumer *op) override {
        if (op->name == name_ && op->is_producer && inside_ == 0) produce_outside = true;
        IRVisitor::visit(op);
    }
    std::string name_;
    int inside_ = 0;
};

void check_storage_encloses_computation(const Stmt &s, const std::string &name, const LoopLevel &store,
                                        const LoopLevel &compute) {
    ProduceInsideRealize check(name);
    s.accept(&check);
    if (check.produce_outside) {
        throw CompileError("Func '" + name + "' is stored at " + describe_level(store) + " but computed at " +
                           describe_level(compute) + ", which is outside its storage. store_at must name the " +
                           "compute_at loop or a loop that encloses it.");
    }
}

}  // namespace

Stmt schedule_functions(const PipelineStages &p, std::set<std::string> *coordinates) {
    Stmt stmt;
    const std::set<std::string> outermost = funcs_with_outermost_loop(p);
    for (auto it = p.order.rbegin(); it != p.order.rend(); ++it) {
        const std::string &name = *it;
        const FunctionContents &f = p.func(name);
        Stmt produce = build_produce(p, name, outermost.count(name) > 0, coordinates);
        if (p.is_output(name)) {
            stmt = stmt.defined() ? Block::make(produce, stmt) : produce;
            continue;
        }
        if (!stmt.defined()) throw InternalError("Func " + name + " is realized but nothing consumes it");
        LoopLevel compute = f.schedule.compute_level;
        LoopLevel store = f.schedule.store_level;
        auto realize = [&](Stmt body) {
            return Realize::make(name, f.output_types, f.schedule.memory_type, realized_region(f), const_true(), body);
        };
        auto produce_and_consume = [&](Stmt body) {
            return Block::make(produce, ProducerConsumer::make_consume(name, body));
        };
        if (compute.is_inlined()) {
            // A Func with updates left inline: computed (and, unless stored
            // elsewhere, stored) around each statement that uses it, as in
            // Halide; at root if some use is not in a statement (an RDom's
            // bounds), which the schedule checks allow for the same reason.
            const bool stored_here = store.is_inlined();
            Stmt around = InjectAroundProvides(name, [&](Stmt body) {
                              Stmt computed = produce_and_consume(body);
                              return stored_here ? realize(computed) : computed;
                          }).mutate(stmt);
            FindUseOutsideConsume outside(name);
            around.accept(&outside);
            if (!outside.found) {
                stmt = stored_here ? around : inject_at(p, store, around, realize, name, "store_at");
                if (!stored_here) check_storage_encloses_computation(stmt, name, store, compute);
                continue;
            }
            compute = LoopLevel::root();
        }
        if (store.is_inlined()) store = compute;

        stmt = inject_at(p, compute, stmt,
                         [&](Stmt body) { return Block::make(produce, ProducerConsumer::make_consume(name, body)); },
                         name, "compute_at");
        FindUseOutsideConsume uses(name);
        stmt.accept(&uses);
        if (uses.found) {
            throw CompileError("Func '" + name + "' is computed at " + describe_level(compute) +
                               ", but it is also used outside that loop. Compute it at a loop that encloses all of " +
                               "its uses (e.g. compute_root()).");
        }
        stmt = inject_at(p, store, stmt,
                         [&](Stmt body) {
                             return Realize::make(name, f.output_types, f.schedule.memory_type, realized_region(f),
                                                  const_true(), body);
                         },
                         name, "store_at");
        check_storage_encloses_computation(stmt, name, store, compute);
    }
    return stmt;
}

}  // namespace internal
}  // namespace loom
