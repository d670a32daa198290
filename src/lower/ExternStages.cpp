#include "lower/ExternStages.h"

#include <map>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "loom/Error.h"
#include "loom/runtime/loom_runtime.h"
#include "lower/Memoize.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }

Expr null_handle() { return Reinterpret::make(Handle(), make_zero(UInt(64))); }

std::string symbol_of(const Call *placeholder) { return placeholder->args.at(0).as<StringImm>()->value; }

std::string describe_stage(const FunctionContents &f) {
    return "Func '" + f.name + "' is an extern stage (define_extern of '" + symbol_of(extern_placeholder(f)) + "')";
}

/** A loom_buffer_t over `dims` (min, extent, stride each) of type t at host
 * (+ offset elements). */
Expr make_buffer(const Expr &host, Type t, const Expr &offset, const std::vector<Expr> &dims) {
    std::vector<Expr> args = {host, make_const(UInt(8), int64_t(t.code())), make_const(UInt(8), int64_t(t.bits())),
                              offset};
    args.insert(args.end(), dims.begin(), dims.end());
    return Call::make(Handle(), intrinsic::extern_make_buffer, args, CallType::Intrinsic);
}

Expr error_call(const Expr &code, const std::vector<Expr> &pieces) {
    std::vector<Expr> args = {code};
    args.insert(args.end(), pieces.begin(), pieces.end());
    return Call::make(Int(32), intrinsic::error, args, CallType::Intrinsic);
}

Expr failure_message(const FunctionContents &f, const std::string &symbol, const Expr &code, bool query) {
    return error_call(code, {StringImm::make("Extern stage " + f.name + ": the C function " + symbol + " returned "),
                             code,
                             StringImm::make(query ? " in its bounds query (a call with null host pointers "
                                                     "asking for the regions of its inputs)."
                                                   : " (non-zero: an error).")});
}

/** The Funcs a Func argument of the placeholder passes, one Call per
 * Tuple element (the min corner's). */
std::vector<const Call *> func_elements(const Expr &arg) {
    std::vector<const Call *> elements;
    const Call *c = arg.as<Call>();
    for (size_t k = 0; k < c->args.size(); k += 2) elements.push_back(c->args[k].as<Call>());
    return elements;
}

/** A scalar argument without its memoize_tags: the Memoize pass read the
 * tags from the definition, and the C function gets the tagged value (as
 * Halide's code generator passes it). */
Expr without_memoize_tags(const Expr &arg) { return strip_memoize_tags(Evaluate::make(arg)).as<Evaluate>()->value; }

bool is_func_arg(const Expr &arg) {
    const Call *c = arg.as<Call>();
    return c && c->is_intrinsic(intrinsic::extern_func_arg);
}

/** The region f's stage 0 computes, as min, extent per dimension. */
std::vector<std::pair<Expr, Expr>> computed_region(const Stage &s) {
    std::vector<std::pair<Expr, Expr>> region;
    for (const std::string &v : s.pure_vars) {
        Expr min = var(v + ".min");
        region.emplace_back(min, Add::make(Sub::make(var(v + ".max"), min), Expr(1)));
    }
    return region;
}

void check_level_is_compute_level(const FunctionContents &g, const std::string &why) {
    const FuncSchedule &s = g.schedule;
    const bool same = s.store_level.is_inlined() || (s.store_level.kind == s.compute_level.kind &&
                                                     s.store_level.func == s.compute_level.func &&
                                                     s.store_level.var == s.compute_level.var &&
                                                     s.store_level.stage == s.compute_level.stage);
    if (!same || !s.storage_folds.empty()) {
        throw CompileError("Func '" + g.name + "' " + why + ", so it is handed over as one whole buffer: it must be "
                           "stored where it is computed, without store_at/store_root elsewhere or fold_storage "
                           "(a sliding window or a folded buffer can't be passed to a C function).");
    }
}

bool same_level(const LoopLevel &a, const LoopLevel &b) {
    return a.kind == b.kind && a.func == b.func && a.var == b.var && a.stage == b.stage;
}

/** An extern stage computed inside a loop queries its inputs' regions in
 * each iteration: an input computed further out can't be sized by them. */
void check_input_level(const FunctionContents &f, const FunctionContents &g) {
    const LoopLevel &level = f.schedule.compute_level;
    if (level.kind != LoopLevel::At || same_level(level, g.schedule.compute_level)) return;
    throw CompileError("Func '" + g.name + "' is an input of the extern stage '" + f.name +
                       "', which is computed at loop " + level.var + " of Func '" + level.func + "': the region of '" +
                       g.name + "' is the answer of the bounds query made in each iteration, so compute '" + g.name +
                       "' at the same loop (compute_at(" + level.func + ", " + level.var + ")).");
}

void check_own_schedule(const FunctionContents &f, bool is_output) {
    const std::string what = describe_stage(f);
    if (!f.updates.empty()) {
        throw CompileError(what + " and has an update definition. The C function computes all of it: define "
                           "another Func that reads it and update that one.");
    }
    const StageSchedule &s = f.init.schedule;
    bool default_loops = s.splits.empty() && s.dims.size() == f.args.size() && s.compute_with.is_inlined() &&
                         s.single_thread_device_api == DeviceAPI::None && f.init.specializations.empty();
    for (size_t i = 0; default_loops && i < s.dims.size(); i++) {
        default_loops = s.dims[i].var == f.args[i] && s.dims[i].for_type == ForType::Serial;
    }
    if (!default_loops) {
        throw CompileError(what + ": its loops are inside the C function, so it can't be split, tiled, reordered, "
                           "vectorized, unrolled, parallelized, specialized, fused or moved to a GPU. Schedule only "
                           "where it is computed (compute_root, compute_at).");
    }
    if (!is_output && f.schedule.compute_level.is_inlined()) {
        throw CompileError(what + " and can't be inlined. Compute it with compute_root() or compute_at().");
    }
    if (!is_output) check_level_is_compute_level(f, "is an extern stage (define_extern)");
}

}  // namespace

const Call *extern_placeholder(const FunctionContents &f) {
    if (!f.init.defined()) return nullptr;
    const Call *c = f.init.values[0].as<Call>();
    return c && c->is_intrinsic(intrinsic::extern_stage) ? c : nullptr;
}

Expr make_extern_placeholder(Type type, const std::string &symbol, const std::vector<Expr> &args) {
    std::vector<Expr> all = {StringImm::make(symbol)};
    all.insert(all.end(), args.begin(), args.end());
    return Call::make(type, intrinsic::extern_stage, all, CallType::Intrinsic);
}

std::string extern_corner_name(const std::string &func, int arg, int element, bool is_min, int dim) {
    return func + ".extern." + std::to_string(arg) + "." + std::to_string(element) + (is_min ? ".min." : ".max.") +
           std::to_string(dim);
}

void check_extern_stages(const std::vector<FunctionPtr> &outputs) {
    std::vector<FunctionPtr> funcs = pipeline_functions(outputs);
    auto is_output = [&](const FunctionContents &f) {
        for (const FunctionPtr &o : outputs) {
            if (o.get() == &f) return true;
        }
        return false;
    };
    std::map<std::string, const FunctionContents *> externs;
    for (const FunctionPtr &fp : funcs) {
        const FunctionContents &f = *fp.get();
        const Call *placeholder = extern_placeholder(f);
        if (!placeholder) continue;
        externs[f.name] = &f;
        check_own_schedule(f, is_output(f));
        for (size_t i = 1; i < placeholder->args.size(); i++) {
            if (!is_func_arg(placeholder->args[i])) continue;
            const FunctionContents &g = *func_elements(placeholder->args[i])[0]->func.get();
            if (g.schedule.compute_level.is_inlined() && !is_output(g)) {
                throw CompileError("Func '" + g.name + "' cannot be scheduled to be computed inline, because it is "
                                   "used in the externally-computed function '" + f.name +
                                   "' (define_extern). Compute it with compute_root() or compute_at().");
            }
            if (!is_output(g)) check_level_is_compute_level(g, "is an input of the extern stage '" + f.name + "'");
            if (!is_output(g)) check_input_level(f, g);
        }
    }
    for (const FunctionPtr &hp : funcs) {
        const FunctionContents &h = *hp.get();
        for (const LoopLevel *level : {&h.schedule.compute_level, &h.schedule.store_level}) {
            if (level->kind != LoopLevel::At || !externs.count(level->func)) continue;
            throw CompileError("Func '" + h.name + "' is computed or stored at loop '" + level->var + "' of " +
                               describe_stage(*externs.at(level->func)) +
                               ", whose loops are inside the C function. Compute it at root or at a loop of "
                               "another Func.");
        }
    }
}

bool is_extern_bounds_query(const Expr &e) {
    struct Finder : IRGraphVisitor {
        bool found = false;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            if (op->call_type == CallType::Extern || op->is_intrinsic(intrinsic::extern_make_buffer)) found = true;
            IRGraphVisitor::visit(op);
        }
    } finder;
    if (e.defined()) finder.include(e);
    return finder.found;
}

std::vector<std::pair<std::string, Expr>> extern_bounds_query(const PipelineStages &p, const Stage &s) {
    const FunctionContents &f = p.func(s.func);
    const Call *placeholder = s.values.at(0).as<Call>();
    if (!placeholder || !placeholder->is_intrinsic(intrinsic::extern_stage)) return {};
    const std::string symbol = symbol_of(placeholder);
    const std::string prefix = f.name + ".bounds_query.";

    std::vector<std::pair<std::string, Expr>> lets;
    std::vector<Expr> call_args;
    // (query buffer, corner names' argument and element) of each Func input.
    struct Query {
        std::string buffer;
        int arg, element, dims;
    };
    std::vector<Query> queries;
    for (size_t i = 1; i < placeholder->args.size(); i++) {
        const Expr &arg = placeholder->args[i];
        if (!is_func_arg(arg)) {
            call_args.push_back(without_memoize_tags(arg));
            continue;
        }
        std::vector<const Call *> elements = func_elements(arg);
        for (size_t k = 0; k < elements.size(); k++) {
            const int dims = (int)elements[k]->args.size();
            std::vector<Expr> shape;
            for (int d = 0; d < dims; d++) shape.insert(shape.end(), {Expr(0), Expr(0), Expr(0)});
            const std::string name = prefix + std::to_string(i - 1) + "." + std::to_string(k) + ".buffer";
            lets.emplace_back(name, make_buffer(null_handle(), elements[k]->type, Expr(0), shape));
            call_args.push_back(Variable::make(Handle(), name));
            queries.push_back({name, int(i - 1), int(k), dims});
        }
    }
    if (queries.empty()) return {};
    std::vector<Expr> out_shape;
    Expr stride = Expr(1);
    for (const auto &[min, extent] : computed_region(s)) {
        out_shape.insert(out_shape.end(), {min, extent, stride});
        stride = Mul::make(stride, extent);
    }
    for (int v = 0; v < f.outputs(); v++) {
        const std::string name = prefix + "out." + std::to_string(v) + ".buffer";
        lets.emplace_back(name, make_buffer(null_handle(), f.output_types[v], Expr(0), out_shape));
        call_args.push_back(Variable::make(Handle(), name));
    }
    // The first corner carries the call and its check, so that the call
    // stays wherever the corners are needed and runs once, before them.
    Expr result = var(prefix + "result");
    Expr call = Call::make(Int(32), symbol, call_args, CallType::Extern);
    bool first = true;
    for (const Query &q : queries) {
        Expr buffer = Variable::make(Handle(), q.buffer);
        for (int d = 0; d < q.dims; d++) {
            Expr min = Call::make(Int(32), intrinsic::extern_buffer_min, {buffer, Expr(d)}, CallType::Intrinsic);
            Expr extent = Call::make(Int(32), intrinsic::extern_buffer_extent, {buffer, Expr(d)}, CallType::Intrinsic);
            const std::string min_name = extern_corner_name(f.name, q.arg, q.element, true, d);
            if (first) {
                min = Let::make(prefix + "result", call,
                                Call::make(Int(32), intrinsic::require,
                                           {EQ::make(result, Expr(0)), min, failure_message(f, symbol, result, true)},
                                           CallType::Intrinsic));
                first = false;
            }
            lets.emplace_back(min_name, min);
            lets.emplace_back(extern_corner_name(f.name, q.arg, q.element, false, d),
                              Sub::make(Add::make(var(min_name), extent), Expr(1)));
        }
    }
    return lets;
}

namespace {

class LowerExternStages : public IRMutator {
public:
    explicit LowerExternStages(const PipelineStages &p) : p_(p) {}

protected:
    using IRMutator::visit;

    Stmt visit(const ProducerConsumer *op) override {
        if (!op->is_producer || !p_.env.count(op->name) || !is_extern_function(p_.func(op->name))) {
            return IRMutator::visit(op);
        }
        return ProducerConsumer::make_produce(op->name, call_stage(p_.func(op->name), p_.stages.at(op->name).at(0)));
    }

private:
    /** The buffer of a Func's whole storage (Tuple element storage). */
    static Expr storage_buffer(const std::string &storage, Type t, int dims) {
        std::vector<Expr> shape;
        for (int d = 0; d < dims; d++) {
            const std::string dim = std::to_string(d);
            shape.insert(shape.end(), {var(storage + ".min." + dim), var(storage + ".extent." + dim),
                                       var(storage + ".stride." + dim)});
        }
        return make_buffer(Variable::make(Handle(), storage), t, Expr(0), shape);
    }

    Stmt call_stage(const FunctionContents &f, const Stage &s) {
        const Call *placeholder = s.values.at(0).as<Call>();
        const std::string symbol = symbol_of(placeholder);
        std::vector<Expr> args;
        for (size_t i = 1; i < placeholder->args.size(); i++) {
            const Expr &arg = placeholder->args[i];
            if (!is_func_arg(arg)) {
                args.push_back(without_memoize_tags(arg));
                continue;
            }
            for (const Call *element : func_elements(arg)) {
                const FunctionContents &g = *element->func.get();
                args.push_back(storage_buffer(storage_name(g, element->value_index), element->type, g.dimensions()));
            }
        }
        // The output: the region computed, inside f's storage.
        for (int v = 0; v < f.outputs(); v++) {
            const std::string storage = storage_name(f, v);
            std::vector<Expr> shape;
            Expr offset = Expr(0);
            const auto region = computed_region(s);
            for (int d = 0; d < f.dimensions(); d++) {
                const std::string dim = std::to_string(d);
                Expr stride = var(storage + ".stride." + dim);
                shape.insert(shape.end(), {region[d].first, region[d].second, stride});
                offset = Add::make(offset, Mul::make(Sub::make(region[d].first, var(storage + ".min." + dim)), stride));
            }
            args.push_back(make_buffer(Variable::make(Handle(), storage), f.output_types[v], offset, shape));
        }
        const std::string result_name = f.name + ".extern.result";
        Expr result = var(result_name);
        Stmt check = AssertStmt::make(EQ::make(result, Expr(0)), failure_message(f, symbol, result, false));
        return LetStmt::make(result_name, Call::make(Int(32), symbol, args, CallType::Extern), check);
    }

    const PipelineStages &p_;
};

}  // namespace

Stmt lower_extern_stages(const Stmt &s, const PipelineStages &p) {
    bool any = false;
    for (const auto &[name, f] : p.env) any = any || is_extern_function(*f.get());
    if (!any) return s;
    return LowerExternStages(p).mutate(s);
}

}  // namespace internal
}  // namespace loom
