#include "lang/ScanRealize.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Simplify.h"
#include "loom/Error.h"
#include "lower/ScanOutputs.h"

namespace loom {
namespace internal {

namespace {

/** Rows allocated at once for a scan whose loop bound is known. */
constexpr int64_t kMostRowsFromTheBound = 1 << 20;
/** Rows of the first run of a scan whose loop has no usable bound. */
constexpr int kFirstCapacity = 16;
constexpr int64_t kMostRows = int64_t(1) << 30;

/** The value of e with the current values of its scalar Params, if that is
 * a constant (it is not when e reads a Func or a buffer's shape). */
std::optional<int64_t> value_now(const Expr &e) {
    struct ParamValues : IRMutator {
        using IRMutator::visit;
        Expr visit(const Variable *op) override {
            if (!op->param.defined() || op->param.is_buffer() || !op->type.is_int_or_uint()) return op;
            const Parameter &p = op->param;
            const Type t = op->type;
            if (t.is_uint()) {
                uint64_t bits = 0;
                std::memcpy(&bits, p.scalar_address(), t.bytes());
                return make_const(t, bits);
            }
            switch (t.bits()) {
            case 8: return make_const(t, (int64_t)p.scalar<int8_t>());
            case 16: return make_const(t, (int64_t)p.scalar<int16_t>());
            case 32: return make_const(t, (int64_t)p.scalar<int32_t>());
            default: return make_const(t, p.scalar<int64_t>());
            }
        }
    };
    ParamValues values;
    return as_const_int(simplify(values.mutate(e)));
}

/** The extent of the loop a trip count counts, if known before the run. */
std::optional<int64_t> loop_bound(const ScanDimension &scan) {
    for (const Definition &def : scan.loop_func.get()->updates) {
        if (!def.rdom.defined() || def.rdom.get()->trip_count_buffer != scan.trip_count_buffer) continue;
        return value_now(def.rdom.domain().back().extent);
    }
    return std::nullopt;
}

const Bound *bound_of(const FunctionContents &f, const std::string &var) {
    for (const Bound &b : f.schedule.bounds) {
        if (b.var == var) return &b;
    }
    return nullptr;
}

/** The size of one loop's scan outputs along their scan dimension. */
struct Capacity {
    int64_t rows = kFirstCapacity;
    std::optional<int64_t> limit;  // the loop's extent, when known
};

/** min and extent of each dimension of output f; scan dimensions get the
 * capacity of their loop. */
std::vector<std::pair<int, int>> shape_of(const FunctionContents &f, const std::vector<ScanDimension> &scans,
                                          const std::map<std::string, Capacity> &capacity) {
    std::vector<std::pair<int, int>> shape;
    for (int d = 0; d < f.dimensions(); d++) {
        const std::string &var = f.args[d];
        const Bound *b = bound_of(f, var);
        if (!b) {
            throw CompileError("realize() of Func " + f.name + " without sizes needs a bound() on each of its "
                               "dimensions, and " + var + " has none. Pass the sizes to realize(), or bound " +
                               var + ".");
        }
        const ScanDimension *scan = nullptr;
        for (const ScanDimension &s : scans) {
            if (s.func.get() == &f && s.dim == d) scan = &s;
        }
        std::optional<int64_t> min = b->min.defined() ? value_now(b->min) : std::optional<int64_t>(0);
        std::optional<int64_t> extent = scan ? capacity.at(scan->trip_count_buffer).rows : value_now(b->extent);
        if (!min || !extent) {
            throw CompileError("realize() of Func " + f.name + " without sizes: the bound of " + var +
                               " is known only when the pipeline runs (it reads a Func or a buffer). Pass the "
                               "sizes to realize().");
        }
        if (*extent < 0 || *extent > INT32_MAX || *min < INT32_MIN || *min > INT32_MAX) {
            throw CompileError("realize() of Func " + f.name + " without sizes: the bound of " + var + " is min " +
                               std::to_string(*min) + ", extent " + std::to_string(*extent) +
                               ", which no buffer can have.");
        }
        shape.emplace_back((int)*min, (int)*extent);
    }
    return shape;
}

std::vector<Buffer<>> allocate(const std::vector<FunctionPtr> &outputs, const std::vector<ScanDimension> &scans,
                               const std::map<std::string, Capacity> &capacity) {
    std::vector<Buffer<>> buffers;
    for (const FunctionPtr &o : outputs) {
        const FunctionContents &f = *o.get();
        std::vector<int> sizes, mins;
        for (auto [min, extent] : shape_of(f, scans, capacity)) {
            mins.push_back(min);
            sizes.push_back(extent);
        }
        for (int v = 0; v < f.outputs(); v++) {
            Buffer<> b(f.output_types[v], sizes);
            b.set_min(mins);
            buffers.push_back(b);
        }
    }
    return buffers;
}

/** The first buffer of each output, in order. */
std::map<const FunctionContents *, Buffer<>> first_buffers(const std::vector<FunctionPtr> &outputs,
                                                           const std::vector<Buffer<>> &buffers) {
    std::map<const FunctionContents *, Buffer<>> first;
    size_t at = 0;
    for (const FunctionPtr &o : outputs) {
        first[o.get()] = buffers[at];
        at += o.get()->outputs();
    }
    return first;
}

}  // namespace

bool realizes_at_bounds(const std::vector<FunctionPtr> &outputs, const std::vector<int> &sizes) {
    if (!sizes.empty()) return false;
    for (const FunctionPtr &o : outputs) {
        if (o.defined() && o.get()->dimensions() > 0) return true;
    }
    return false;
}

Realization realize_at_bounds(const JITSlot &p, const Target &target, JITUserContext *context) {
    const std::vector<ScanDimension> scans = find_scan_dimensions(p.outputs);
    std::map<std::string, Capacity> capacity;
    for (const ScanDimension &scan : scans) {
        if (capacity.count(scan.trip_count_buffer)) continue;
        Capacity c;
        c.limit = loop_bound(scan);
        if (c.limit) c.limit = std::max<int64_t>(*c.limit, 0);
        if (c.limit && *c.limit <= kMostRowsFromTheBound) c.rows = *c.limit;
        capacity[scan.trip_count_buffer] = c;
    }
    for (;;) {
        std::vector<Buffer<>> buffers = allocate(p.outputs, scans, capacity);
        if (jit_realize_into(p, Realization(buffers), target, context) != 0) {
            return Realization(buffers, "realize of the pipeline's scan outputs");  // custom_error has it
        }
        // Each scan output is now cropped to its trip count. A loop that
        // filled its rows and could have gone on runs again with twice as many.
        auto first = first_buffers(p.outputs, buffers);
        bool again = false;
        for (auto &[trip_count, c] : capacity) {
            const ScanDimension *scan = nullptr;
            for (const ScanDimension &s : scans) {
                if (s.trip_count_buffer == trip_count) scan = &s;
            }
            const int64_t ran = first.at(scan->func.get()).dim(scan->dim).extent();
            const bool could_go_on = !c.limit || ran < *c.limit;
            if (ran < c.rows || !could_go_on) continue;
            if (c.rows >= kMostRows) {
                throw RuntimeError("Scan output " + scan->func.get()->name + ": the loop of Func " +
                                   scan->loop_func.get()->name + " did not end within 2^30 iterations.");
            }
            c.rows = std::min(std::max<int64_t>(c.rows * 2, 1), c.limit ? *c.limit : kMostRows);
            again = true;
        }
        if (!again) return Realization(buffers, "realize of the pipeline's scan outputs");
    }
}

}  // namespace internal
}  // namespace loom
