#include "lower/Memoize.h"

#include <atomic>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "ir/ConcreteBuffers.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {
namespace internal {

namespace {

/** Why a memoize_tag key value can't be computed where the cache key is
 * made (before the Func is computed): empty when it can. It may read
 * Params and buffer shape fields only. */
class KeyValueCheck : public IRGraphVisitor {
public:
    std::string problem;

protected:
    using IRGraphVisitor::visit;
    void visit(const Variable *op) override {
        if (!op->param.defined() && problem.empty()) {
            problem = "reads " + op->name + ", which is not a Param or a buffer's shape";
        }
    }
    void visit(const Call *op) override {
        if (problem.empty() && (op->call_type == CallType::Func || op->call_type == CallType::Image)) {
            problem = "reads " + op->name + ", a Func or buffer";
        } else if (problem.empty() && !op->is_pure()) {
            problem = "calls " + op->name + ", which has side effects";
        }
        IRGraphVisitor::visit(op);
    }
};

/** What a memoized Func's cache key is made of: the scalar Params it depends
 * on, through the Funcs it calls; the shape fields (min, extent, stride) of
 * the buffers whose shape it reads; and the values memoize_tag names. A read
 * of an ImageParam's contents outside memoize_tag is refused (as in Halide):
 * the key can't hold them. A concrete Buffer read directly is a constant of
 * the pipeline, as in Halide, and adds nothing to the key. */
class FindDependencies : public IRGraphVisitor {
public:
    explicit FindDependencies(const std::string &memoized) : memoized_(memoized) {}

    std::map<std::string, Parameter> params;
    std::map<std::string, Expr> shape_fields;
    std::vector<Expr> tags;

    void visit_function(const FunctionContents &f) {
        if (!functions_.insert(f.name).second) return;
        for (int k = 0; k < f.stages(); k++) {
            const Definition &def = f.stage(k);
            for (const Expr &e : def.args) include(e);
            for (const Expr &e : def.values) include(e);
            if (def.predicate.defined()) include(def.predicate);
            if (def.rdom.defined()) {
                for (const ReductionVariable &rv : def.rdom.domain()) {
                    include(rv.min);
                    include(rv.extent);
                }
                if (def.rdom.predicate().defined()) include(def.rdom.predicate());
            }
        }
    }

protected:
    using IRGraphVisitor::visit;

    void visit(const Variable *op) override {
        if (!op->param.defined()) return;
        if (op->param.is_buffer()) {
            shape_fields[op->name] = op;  // b.min.0, b.extent.1, ...: the value is the key
        } else {
            record(op->param);
        }
    }

    void visit(const Call *op) override {
        if (op->is_intrinsic(memoize_tag_intrinsic)) {
            // The tags are the key; what the tagged value depends on is not
            // looked at (memoize_tag(v) alone keys on v itself).
            const size_t first = op->args.size() == 1 ? 0 : 1;
            for (size_t i = first; i < op->args.size(); i++) add_tag(op->args[i]);
            return;
        }
        if (op->call_type == CallType::Image && op->param.defined() && is_concrete_buffer_parameter(op->param)) {
            IRGraphVisitor::visit(op);  // the coordinates may read Params
            return;
        }
        if (op->call_type == CallType::Image && op->param.defined()) {
            throw CompileError("Func " + memoized_ + " can't be memoized: it reads the buffer " + op->param.name() +
                               ", whose contents the cache key can't hold (as in Halide). Wrap the read in "
                               "memoize_tag(value, tags...) with tags that change whenever " + op->param.name() +
                               "'s contents do (e.g. a frame-number Param), or drop memoize().");
        }
        if (op->param.defined()) record(op->param);
        if (op->call_type == CallType::Func && op->func.defined()) visit_function(*op->func.get());
        if (op->call_type == CallType::Extern) {
            throw CompileError("Func " + memoized_ + " can't be memoized: it depends on a call of " + op->name +
                               ", which has side effects, so a cached result may differ from a new one.");
        }
        IRGraphVisitor::visit(op);
    }

private:
    void record(const Parameter &p) {
        if (p.type().is_handle()) {
            throw CompileError("Func " + memoized_ + " can't be memoized: it depends on the handle Param " +
                               p.name() + ", whose pointee the cache can't key on. Key on what it points to with "
                               "memoize_tag(value, tags...).");
        }
        params[p.name()] = p;
    }

    void add_tag(const Expr &tag) {
        KeyValueCheck check;
        check.include(tag);
        if (!check.problem.empty()) {
            std::ostringstream text;
            text << tag;
            throw CompileError("Func " + memoized_ + " can't be memoized: the memoize_tag key value " + text.str() +
                               " " + check.problem + ". The cache key is made before " + memoized_ +
                               " is computed, so key values may read only Params and buffer shapes (min, extent, "
                               "stride).");
        }
        for (const Expr &t : tags) {
            if (equal(t, tag)) return;
        }
        tags.push_back(tag);
    }

    const std::string &memoized_;
    std::set<std::string> functions_;
};

/** memoize_tag(value, ...) is value once the Memoize pass has read the tags
 * from the Funcs' definitions. */
class StripMemoizeTags : public IRMutator {
protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->is_intrinsic(memoize_tag_intrinsic)) return mutate(op->args.at(0));
        return IRMutator::visit(op);
    }
};

/** value as 64 key bits. */
Expr key_word(const Expr &value) {
    Type t = value.type();
    if (t.is_float()) {
        return cast(UInt(64), Reinterpret::make(UInt(t.bits()), value));
    }
    if (t.is_bool()) return cast(UInt(64), value);
    return Reinterpret::make(UInt(64), cast(t.is_int() ? Int(64) : UInt(64), value));
}

class HasGPULoop : public IRVisitor {
public:
    bool found = false;

protected:
    using IRVisitor::visit;
    void visit(const For *op) override {
        found = found || is_gpu_loop(op->for_type);
        IRVisitor::visit(op);
    }
};

class InjectMemoization : public IRMutator {
public:
    InjectMemoization(const PipelineStages &pipeline, const std::string &pipeline_name, int instance)
        : pipeline_(pipeline), pipeline_name_(pipeline_name), instance_(instance) {}

protected:
    using IRMutator::visit;

    Stmt visit(const Realize *op) override {
        Stmt body = mutate(op->body);
        auto it = pipeline_.env.find(op->name);
        if (it == pipeline_.env.end() || !it->second.get()->schedule.memoized) {
            return body.same_as(op->body) ? Stmt(op) : Realize::make(op->name, op->types, op->memory_type, op->bounds,
                                                                     op->condition, body);
        }
        const FunctionContents &f = *it->second.get();
        check(f);
        FindDependencies deps(f.name);
        deps.visit_function(f);
        const Expr eviction = f.schedule.memoize_eviction_key;
        if (eviction.defined()) deps.include(eviction);
        std::vector<Expr> key;
        for (const Range &r : op->bounds) {
            key.push_back(key_word(r.min));
            key.push_back(key_word(r.extent));
        }
        for (const auto &[name, p] : deps.params) key.push_back(key_word(Variable::make(p.type(), name, p)));
        for (const auto &[name, field] : deps.shape_fields) key.push_back(key_word(field));
        for (const Expr &tag : deps.tags) key.push_back(key_word(tag));
        Expr elements = Expr((int64_t)1);
        for (const Range &r : op->bounds) elements = elements * cast(Int(64), r.extent);

        Expr all_found;
        std::vector<Stmt> stores;
        for (int v = 0; v < f.outputs(); v++) {
            const std::string id = pipeline_name_ + ":" + f.name + ":" + std::to_string(instance_) +
                                   (f.outputs() > 1 ? "." + std::to_string(v) : "");
            Expr bytes = elements * Expr((int64_t)f.output_types[v].bytes());
            std::vector<Expr> common = {StringImm::make(id), StringImm::make(storage_name(f, v)), bytes};
            std::vector<Expr> lookup_args = common, store_args = common;
            lookup_args.insert(lookup_args.end(), key.begin(), key.end());
            store_args.push_back(Expr(eviction.defined() ? 1 : 0));
            store_args.push_back(eviction.defined() ? key_word(eviction) : Expr((uint64_t)0));
            store_args.insert(store_args.end(), key.begin(), key.end());
            Expr found = Call::make(Int(32), memoize_lookup_intrinsic, lookup_args, CallType::Intrinsic) != 0;
            all_found = all_found.defined() ? (all_found && found) : found;
            stores.push_back(
                Evaluate::make(Call::make(Int(32), memoize_store_intrinsic, store_args, CallType::Intrinsic)));
        }
        bool replaced = false;
        body = wrap_production(body, f.name, all_found, stores, replaced);
        if (!replaced) throw InternalError("memoize: no production of " + f.name + " in its realization");
        return Realize::make(op->name, op->types, op->memory_type, op->bounds, op->condition, body);
    }

private:
    void check(const FunctionContents &f) const {
        if (pipeline_.is_output(f.name)) {
            throw CompileError("Func " + f.name + " can't be memoized: it is an output of the pipeline (as in "
                               "Halide). Memoize a Func the output reads.");
        }
        const FuncSchedule &s = f.schedule;
        // The cache holds what one realization computes: its storage must be
        // the region it computes, densely (an inlined store level means
        // "with the computation", the default).
        const LoopLevel &compute = s.compute_level, &store = s.store_level;
        const bool stored_with_compute =
            store.is_inlined() || (store.kind == compute.kind && store.func == compute.func &&
                                   store.var == compute.var && store.stage == compute.stage);
        if (!stored_with_compute || !s.hoist_storage_level.is_inlined()) {
            throw CompileError("Func " + f.name + " can't be memoized: it is stored outside the loop it is "
                               "computed in (store_at/store_root/hoist_storage), so one computation fills part of "
                               "its storage and the cache can't hold it. Remove the store directive (storage goes "
                               "with compute_at/compute_root), or drop memoize().");
        }
        if (!s.storage_folds.empty() || !s.storage_dims.empty()) {
            throw CompileError("Func " + f.name + " can't be memoized: its storage is " +
                               (s.storage_folds.empty() ? "aligned or bounded (align_storage/bound_storage)"
                                                        : "folded (fold_storage)") +
                               ", and the cache copies the realized region as one dense block. Remove that "
                               "directive, or drop memoize().");
        }
    }

    /** Replaces `produce name {...}` in s by the guarded production. */
    Stmt wrap_production(const Stmt &s, const std::string &name, const Expr &found, const std::vector<Stmt> &stores,
                         bool &replaced) {
        if (const ProducerConsumer *pc = s.as<ProducerConsumer>(); pc && pc->is_producer && pc->name == name) {
            HasGPULoop gpu;
            pc->body.accept(&gpu);
            if (gpu.found) {
                throw CompileError("Func " + name + " can't be memoized when it is computed in GPU loops: the cache "
                                   "copies host memory. Compute it on the CPU.");
            }
            replaced = true;
            std::vector<Stmt> produce = {s};
            produce.insert(produce.end(), stores.begin(), stores.end());
            return IfThenElse::make(!found, Block::make(produce));
        }
        if (const Block *b = s.as<Block>()) {
            Stmt first = wrap_production(b->first, name, found, stores, replaced);
            Stmt rest = replaced ? b->rest : wrap_production(b->rest, name, found, stores, replaced);
            return Block::make(first, rest);
        }
        if (const ProducerConsumer *pc = s.as<ProducerConsumer>()) {
            return ProducerConsumer::make(pc->name, pc->is_producer,
                                          wrap_production(pc->body, name, found, stores, replaced));
        }
        if (const LetStmt *l = s.as<LetStmt>()) {
            return LetStmt::make(l->name, l->value, wrap_production(l->body, name, found, stores, replaced));
        }
        if (const Realize *r = s.as<Realize>()) {
            return Realize::make(r->name, r->types, r->memory_type, r->bounds, r->condition,
                                 wrap_production(r->body, name, found, stores, replaced));
        }
        return s;
    }

    const PipelineStages &pipeline_;
    const std::string &pipeline_name_;
    int instance_;
};

bool any_memoized(const PipelineStages &pipeline) {
    for (const auto &[name, f] : pipeline.env) {
        if (f.get()->schedule.memoized) return true;
    }
    return false;
}

}  // namespace

Stmt strip_memoize_tags(const Stmt &s) { return StripMemoizeTags().mutate(s); }

Stmt memoize_realizations(const Stmt &s, const PipelineStages &pipeline, const std::string &pipeline_name) {
    if (!any_memoized(pipeline)) return s;
    // Inlined memoized Funcs have no realization to cache.
    for (const auto &[name, f] : pipeline.env) {
        const FunctionContents &c = *f.get();
        if (c.schedule.memoized && pipeline.is_output(name)) {
            throw CompileError("Func " + name + " can't be memoized: it is an output of the pipeline (as in "
                               "Halide). Memoize a Func the output reads.");
        }
        if (c.schedule.memoized && c.schedule.compute_level.is_inlined()) {
            throw CompileError("Func " + name + " can't be memoized: it is computed inline, so nothing of it is "
                               "stored to cache. Add " + name + ".compute_root().");
        }
    }
    static std::atomic<int> instances{0};
    return InjectMemoization(pipeline, pipeline_name, ++instances).mutate(s);
}

}  // namespace internal
}  // namespace loom
