#include "lower/ScanOutputs.h"

#include <set>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "loom/Error.h"
#include "lower/Stages.h"

namespace loom {
namespace internal {

namespace {

/** The trip_count() call an Expr is, or null. */
const Call *as_trip_count(const Expr &e) {
    const Call *c = e.as<Call>();
    if (!c || !c->is_intrinsic(intrinsic::trip_count) || c->args.empty()) return nullptr;
    return c->args[0].as<StringImm>() ? c : nullptr;
}

int dimension_of(const FunctionContents &f, const std::string &var) {
    for (size_t d = 0; d < f.args.size(); d++) {
        if (f.args[d] == var) return (int)d;
    }
    throw InternalError("Func " + f.name + " has a bound on " + var + ", which is not one of its Vars.");
}

/** "rows.extent.0" of value 0 (every Tuple element has the same shape). */
Expr buffer_extent(const FunctionContents &f, int dim) {
    return Variable::make(Int(32), storage_name(f, 0) + ".extent." + std::to_string(dim));
}

bool reads_a_trip_count(const Expr &e) {
    struct Find : IRGraphVisitor {
        bool found = false;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            found = found || op->is_intrinsic(intrinsic::trip_count);
            IRGraphVisitor::visit(op);
        }
    } find;
    e.accept(&find);
    return find.found;
}

/** Crops each scan output after its produce node. Its region lets (f.s0.i.max
 * = trip count - 1, ...) are defined with the other bounds at the top of the
 * pipeline, before its loop has run, so those that read a trip count are
 * defined again around its produce node, where the count is known. */
class CropScanOutputs : public IRMutator {
public:
    CropScanOutputs(std::vector<ScanDimension> scans, const Stmt &s) : scans_(std::move(scans)) {
        std::vector<std::pair<std::string, Expr>> top;
        for (const LetStmt *l = s.as<LetStmt>(); l; l = l->body.as<LetStmt>()) top.emplace_back(l->name, l->value);
        for (const ScanDimension &scan : scans_) {
            const std::string prefix = scan.func.get()->name + ".";
            std::set<std::string> late;
            auto &lets = late_lets_[scan.func.get()->name];
            for (const auto &[name, value] : top) {
                if (name.compare(0, prefix.size(), prefix) != 0) continue;
                bool is_late = reads_a_trip_count(value);
                for (const std::string &other : late) is_late = is_late || expr_uses_var(value, other);
                if (!is_late) continue;
                late.insert(name);
                lets.emplace_back(name, value);
            }
        }
    }

protected:
    using IRMutator::visit;
    Stmt visit(const ProducerConsumer *op) override {
        Stmt node = IRMutator::visit(op);
        if (!op->is_producer) return node;
        auto late = late_lets_.find(op->name);
        if (late != late_lets_.end()) {
            for (auto it = late->second.rbegin(); it != late->second.rend(); ++it) {
                node = LetStmt::make(it->first, it->second, node);
            }
        }
        std::vector<Stmt> all = {node};
        for (const ScanDimension &scan : scans_) {
            const FunctionContents &f = *scan.func.get();
            if (f.name != op->name) continue;
            Expr count = Call::make(Int(32), intrinsic::trip_count, {StringImm::make(scan.trip_count_buffer)},
                                    CallType::Intrinsic);
            for (int v = 0; v < f.outputs(); v++) {
                Expr handle = Variable::make(Handle(), storage_name(f, v) + ".buffer");
                all.push_back(Evaluate::make(Call::make(Int(32), intrinsic::buffer_set_bounds,
                                                        {handle, Expr(scan.dim), scan.min, count},
                                                        CallType::Intrinsic)));
            }
        }
        return all.size() == 1 ? node : Block::make(all);
    }

private:
    std::vector<ScanDimension> scans_;
    std::map<std::string, std::vector<std::pair<std::string, Expr>>> late_lets_;
};

}  // namespace

std::vector<ScanDimension> find_scan_dimensions(const std::vector<FunctionPtr> &outputs) {
    std::vector<ScanDimension> scans;
    for (const FunctionPtr &o : outputs) {
        const FunctionContents &f = *o.get();
        const ScanDimension *found = nullptr;
        for (const Bound &b : f.schedule.bounds) {
            const Call *count = as_trip_count(b.extent);
            if (!count) continue;
            if (found) {
                throw CompileError("Func " + f.name + " is bounded by a trip count along two dimensions (" +
                                   f.args[found->dim] + " and " + b.var +
                                   "). A scan output has one row per iteration of one loop: bound one "
                                   "dimension by the trip count.");
            }
            ScanDimension scan;
            scan.func = o;
            scan.dim = dimension_of(f, b.var);
            // bound_extent leaves the min to the buffer
            scan.min = b.min.defined()
                           ? b.min
                           : Variable::make(Int(32), storage_name(f, 0) + ".min." + std::to_string(scan.dim));
            scan.trip_count_buffer = count->args[0].as<StringImm>()->value;
            scan.loop_func = count->func;
            scans.push_back(scan);
            found = &scans.back();
        }
    }
    return scans;
}

std::map<std::string, Expr> scan_loop_capacities(const std::vector<FunctionPtr> &outputs) {
    std::map<std::string, Expr> capacity;
    for (const ScanDimension &scan : find_scan_dimensions(outputs)) {
        Expr extent = buffer_extent(*scan.func.get(), scan.dim);
        auto [it, added] = capacity.emplace(scan.trip_count_buffer, extent);
        if (!added) it->second = Min::make(it->second, extent);
    }
    return capacity;
}

Stmt crop_scan_outputs(const Stmt &s, const PipelineStages &pipeline) {
    std::vector<ScanDimension> scans = find_scan_dimensions(pipeline.outputs);
    if (scans.empty()) return s;
    return CropScanOutputs(std::move(scans), s).mutate(s);
}

}  // namespace internal
}  // namespace loom
