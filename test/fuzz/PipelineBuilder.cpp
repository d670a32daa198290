// Turns a fuzzer PipelineDesc into Loom Funcs, realizes the output, and
// compares results bit for bit.

#include <climits>
#include <cstring>
#include <set>
#include <sstream>

#include "fuzz/FuzzModel.h"
#include "ir/Interpreter.h"
#include "lower/ScheduleChecks.h"
#include "lower/Lower.h"
#include "loom/runtime/loom_runtime.h"
#include "runtime/ErrorCapture.h"

using namespace loom;

namespace fuzz {

namespace {

template<typename T>
void fill_buffer(Buffer<> &b, ElemType type, uint32_t seed) {
    std::mt19937 rng(seed);
    Buffer<T> typed(b);
    typed.for_each_element([&](const std::vector<int> &pos) {
        switch (type) {
        case ElemType::I32: typed(pos) = (T)std::uniform_int_distribution<int>(-1000, 1000)(rng); break;
        case ElemType::U8: typed(pos) = (T)std::uniform_int_distribution<int>(0, 255)(rng); break;
        // Multiples of 1/8, exact in float.
        case ElemType::F32: typed(pos) = (T)(std::uniform_int_distribution<int>(-800, 800)(rng) / 8.0); break;
        }
    });
}

Buffer<> make_input(const InputDesc &in, int index) {
    Buffer<> b(loom_type(in.type), {in.width, in.height}, "fuzz_in" + std::to_string(index));
    b.set_min({in.min_x, in.min_y});
    switch (in.type) {
    case ElemType::I32: fill_buffer<int32_t>(b, in.type, in.fill_seed); break;
    case ElemType::U8: fill_buffer<uint8_t>(b, in.type, in.fill_seed); break;
    case ElemType::F32: fill_buffer<float>(b, in.type, in.fill_seed); break;
    }
    return b;
}

Expr constant_expr(const ENode &e) {
    switch (e.type) {
    case ElemType::I32: return Expr((int)e.ival);
    case ElemType::U8: return cast(UInt(8), Expr((int)e.ival));
    case ElemType::F32: return Expr((float)e.fval);
    }
    return Expr();
}

/** Builds Loom Exprs from fuzzer nodes for one definition of one Func. */
struct ExprBuilder {
    const BuiltPipeline &b;
    const Var &x, &y;
    const RDom *rdom;
    const Func *self;

    std::vector<Expr> args(const ENode &e) const {
        std::vector<Expr> a;
        for (const ENodePtr &k : e.kids) a.push_back(build(*k));
        return a;
    }

    Expr build(const ENode &e) const {
        auto kid = [&](int i) { return build(*e.kids[i]); };
        switch (e.op) {
        case Op::Const: return constant_expr(e);
        case Op::Var: return e.index == 0 ? Expr(x) : Expr(y);
        case Op::RVar: return e.index == 0 ? Expr(rdom->x) : Expr(rdom->y);
        case Op::Call: return b.funcs[e.index](args(e));
        case Op::SelfCall: return (*self)(args(e));
        case Op::InputRead: return b.inputs[e.index](args(e));
        case Op::Add: return kid(0) + kid(1);
        case Op::Sub: return kid(0) - kid(1);
        case Op::Mul: return kid(0) * kid(1);
        case Op::Div: return kid(0) / kid(1);
        case Op::Mod: return kid(0) % kid(1);
        case Op::Min: return min(kid(0), kid(1));
        case Op::Max: return max(kid(0), kid(1));
        case Op::Select: return select(kid(0) < kid(1), kid(2), kid(3));
        case Op::Clamp: return clamp(kid(0), kid(1), kid(2));
        case Op::Cast: return cast(loom_type(e.type), kid(0));
        }
        throw std::logic_error("fuzz: unknown node");
    }
};

Func boundary_func(const Buffer<> &in, Boundary bc) {
    switch (bc) {
    case Boundary::RepeatEdge: return BoundaryConditions::repeat_edge(in);
    case Boundary::ConstantExterior: return BoundaryConditions::constant_exterior(in, cast(in.type(), 0));
    case Boundary::RepeatImage: return BoundaryConditions::repeat_image(in);
    case Boundary::MirrorImage: return BoundaryConditions::mirror_image(in);
    case Boundary::MirrorInterior: return BoundaryConditions::mirror_interior(in);
    }
    throw std::logic_error("fuzz: unknown boundary");
}

}  // namespace

BuiltPipeline build_pipeline(const PipelineDesc &p, const std::vector<Buffer<>> &inputs) {
    BuiltPipeline b;
    if (inputs.empty()) {
        for (size_t i = 0; i < p.inputs.size(); i++) {
            b.inputs.push_back(p.inputs[i].raw ? Buffer<>() : make_input(p.inputs[i], (int)i));
        }
    } else {
        b.inputs = inputs;
    }
    for (size_t i = 0; i < p.inputs.size(); i++) {
        if (p.inputs[i].raw) b.params.emplace((int)i, ImageParam(loom_type(p.inputs[i].type), 2, "in" + std::to_string(i)));
    }
    Var x("x"), y("y");
    for (size_t i = 0; i < p.funcs.size(); i++) {
        const FuncDesc &d = p.funcs[i];
        Func f(d.name);
        b.funcs.push_back(f);
        if (d.kind == FuncKind::InputWrapper && d.boundary == Boundary::None) {
            f(x, y) = b.params.at(d.input)(x, y);
            continue;
        }
        if (d.kind == FuncKind::InputWrapper) {
            Func bc = boundary_func(b.inputs[d.input], d.boundary);
            f(x, y) = bc(x, y);
            continue;
        }
        RDom r;
        if (!d.rdom.empty()) {
            Region region;
            for (auto &m : d.rdom) region.emplace_back(Expr(m.first), Expr(m.second));
            r = RDom(region, "r" + std::to_string(i));
        }
        ExprBuilder eb{b, x, y, d.rdom.empty() ? nullptr : &r, &f};
        if (!d.where.empty()) r.where(eb.build(*d.where[0]) < eb.build(*d.where[1]));
        f(x, y) = eb.build(*d.pure);
        for (const UpdateDesc &u : d.updates) {
            f(eb.build(*u.lhs[0]), eb.build(*u.lhs[1])) = eb.build(*u.value);
        }
    }
    return b;
}

namespace {

/** A value that depends only on the seed and the coordinates. */
uint32_t coordinate_hash(uint32_t seed, int x, int y) {
    uint32_t h = seed * 0x9e3779b9u ^ (uint32_t)x * 0x85ebca6bu ^ (uint32_t)y * 0xc2b2ae35u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return h;
}

template<typename T>
void fill_by_coordinates(Buffer<> &b, ElemType type, uint32_t seed) {
    Buffer<T> typed(b);
    typed.for_each_element([&](const std::vector<int> &pos) {
        uint32_t h = coordinate_hash(seed, pos[0], pos[1]);
        switch (type) {
        case ElemType::I32: typed(pos) = (T)((int)(h % 2001) - 1000); break;
        case ElemType::U8: typed(pos) = (T)(h % 256); break;
        case ElemType::F32: typed(pos) = (T)(((int)(h % 1601) - 800) / 8.0); break;
        }
    });
}

}  // namespace

bool InputRegion::empty() const { return extent[0] <= 0 || extent[1] <= 0; }

bool InputRegion::contains(const InputRegion &o) const {
    if (o.empty()) return true;  // whatever its other dimension says (GPU seed 3074)
    for (int d = 0; d < 2; d++) {
        if (min[d] > o.min[d] || min[d] + extent[d] < o.min[d] + o.extent[d]) return false;
    }
    return true;
}

std::string InputRegion::to_text() const {
    return "[" + std::to_string(min[0]) + ", " + std::to_string(min[0] + extent[0] - 1) + "] x [" +
           std::to_string(min[1]) + ", " + std::to_string(min[1] + extent[1] - 1) + "]";
}

LoweredFunc lower_pipeline(BuiltPipeline &b) { return lower_pipeline(b, get_jit_target_from_environment()); }

LoweredFunc lower_pipeline(BuiltPipeline &b, const Target &target) {
    using namespace loom::internal;
    const std::vector<FunctionPtr> outputs = {b.funcs.back().function()};
    check_schedules(outputs);
    return lower(outputs, "fuzz_pipeline", target);
}

namespace {

/** The arguments of lf, in order: out for the output, the bound buffer of
 * each input, and queries[index] (when given) for raw input index. */
std::vector<void *> pipeline_args(BuiltPipeline &b, const LoweredFunc &lf, Buffer<> &out,
                                  std::map<int, std::pair<loom_buffer_t, std::vector<loom_dimension_t>>> *queries) {
    using namespace loom::internal;
    std::map<std::string, int> raw_by_name;
    for (const auto &[index, param] : b.params) raw_by_name[param.name()] = index;
    std::vector<void *> args;
    for (const LoweredArgument &a : lf.args) {
        auto raw = raw_by_name.find(a.name);
        if (a.kind == LoweredArgument::OutputBuffer) {
            args.push_back(out.raw_buffer());
        } else if (queries && a.kind == LoweredArgument::InputBuffer && raw != raw_by_name.end()) {
            auto &q = (*queries)[raw->second];
            q.second.assign(2, loom_dimension_t{0, 0, 0, 0});
            q.first = loom_buffer_t{};
            q.first.type = a.type.to_runtime();
            q.first.dimensions = 2;
            q.first.dim = q.second.data();
            args.push_back(&q.first);
        } else if (a.kind == LoweredArgument::InputBuffer && a.param.defined() && a.param.buffer()) {
            args.push_back(a.param.buffer());
        } else {
            throw std::logic_error("fuzz: unexpected or unbound argument " + a.name + " of the pipeline");
        }
    }
    return args;
}

Buffer<> make_output(const PipelineDesc &p) {
    Buffer<> out(loom_type(p.output().type), {p.out_width, p.out_height}, "fuzz_out");
    out.set_min({p.out_min_x, p.out_min_y});
    return out;
}

}  // namespace

std::map<int, InputRegion> query_raw_input_regions(const PipelineDesc &p, BuiltPipeline &b, const LoweredFunc &lf,
                                                   const loom::internal::JITPipeline *jit) {
    using namespace loom::internal;
    std::map<int, InputRegion> regions;
    if (b.params.empty()) return regions;
    Buffer<> out = make_output(p);
    // A buffer with a NULL host pointer asks for the region it needs.
    std::map<int, std::pair<loom_buffer_t, std::vector<loom_dimension_t>>> queries;
    std::vector<void *> args = pipeline_args(b, lf, out, &queries);
    int result = jit ? jit->argv(args.data()) : interpret(lf, args.data());
    if (result != 0) throw loom::RuntimeError("the bounds query failed with code " + std::to_string(result));
    for (const auto &[index, q] : queries) {
        InputRegion r;
        for (int d = 0; d < 2; d++) {
            r.min[d] = q.second[d].min;
            r.extent[d] = q.second[d].extent;
        }
        regions[index] = r;
    }
    return regions;
}

namespace {

// The loads touched_raw_input_regions records: per traced Func, the
// smallest and largest coordinate per dimension. The trace handler is a
// process-wide function pointer, and the unscheduled pipeline runs no
// parallel loops, so one recorder at a time is enough.
struct TouchedBoxes {
    std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> ranges;
};
TouchedBoxes *g_touched = nullptr;

int32_t record_load(void *, const loom_trace_event_t *e) {
    if (!g_touched || e->event != loom_trace_load || e->dimensions != 2) return 0;
    auto &[lo, hi] = g_touched->ranges[e->func];
    if (lo.empty()) {
        lo.assign(2, INT32_MAX);
        hi.assign(2, INT32_MIN);
    }
    const int lanes = e->type.lanes > 0 ? e->type.lanes : 1;
    for (int lane = 0; lane < lanes; lane++) {
        for (int d = 0; d < 2; d++) {
            int c = e->coordinates[lane * 2 + d];
            lo[d] = std::min(lo[d], c);
            hi[d] = std::max(hi[d], c);
        }
    }
    return 0;
}

}  // namespace

std::map<int, InputRegion> touched_raw_input_regions(const PipelineDesc &p, const std::vector<Buffer<>> &inputs,
                                                     const ScheduleDesc &schedule) {
    BuiltPipeline b = build_pipeline(p, inputs);
    apply_schedule(schedule, b);
    std::map<std::string, int> raw_wrappers;
    for (size_t i = 0; i < p.funcs.size(); i++) {
        const FuncDesc &d = p.funcs[i];
        if (d.kind != FuncKind::InputWrapper || d.boundary != Boundary::None || (int)i == p.output_index()) continue;
        b.funcs[i].compute_root().trace_loads();
        raw_wrappers[b.funcs[i].name()] = d.input;  // unique: not always d.name
    }
    LoweredFunc lf = lower_pipeline(b);
    bind_raw_inputs(p, b, query_raw_input_regions(p, b, lf));
    TouchedBoxes touched;
    g_touched = &touched;
    loom_trace_handler_t old = loom_set_trace_handler(record_load);
    try {
        run_lowered(p, b, lf, nullptr);
    } catch (...) {
        loom_set_trace_handler(old);
        g_touched = nullptr;
        throw;
    }
    loom_set_trace_handler(old);
    g_touched = nullptr;
    std::map<int, InputRegion> regions;
    for (const auto &[name, range] : touched.ranges) {
        auto w = raw_wrappers.find(name);
        if (w == raw_wrappers.end()) continue;
        InputRegion r;
        for (int d = 0; d < 2; d++) {
            r.min[d] = range.first[d];
            r.extent[d] = range.second[d] - range.first[d] + 1;
        }
        regions[w->second] = r;
    }
    return regions;
}

std::vector<int> reductions_computed_per_point(const PipelineDesc &p) {
    std::vector<int> funcs;
    for (int f = 0; f < p.output_index(); f++) {
        if (!p.funcs[f].updates.empty()) funcs.push_back(f);
    }
    return funcs;
}

ScheduleDesc compute_at_root(const std::vector<int> &funcs) {
    ScheduleDesc roots;
    for (int f : funcs) {
        SchedOp op;
        op.kind = SchedKind::ComputeRoot;
        op.func = f;
        roots.ops.push_back(op);
    }
    return roots;
}

void bind_raw_inputs(const PipelineDesc &p, BuiltPipeline &b, const std::map<int, InputRegion> &regions) {
    for (auto &[index, param] : b.params) {
        // An input the pipeline never reads (its reader is unused) needs no buffer.
        if (!regions.count(index)) continue;
        const InputRegion &r = regions.at(index);
        const InputDesc &in = p.inputs[index];
        Buffer<> buffer(loom_type(in.type), {std::max(r.extent[0], 0), std::max(r.extent[1], 0)},
                        "fuzz_raw" + std::to_string(index));
        buffer.set_min({r.min[0], r.min[1]});
        switch (in.type) {
        case ElemType::I32: fill_by_coordinates<int32_t>(buffer, in.type, in.fill_seed); break;
        case ElemType::U8: fill_by_coordinates<uint8_t>(buffer, in.type, in.fill_seed); break;
        case ElemType::F32: fill_by_coordinates<float>(buffer, in.type, in.fill_seed); break;
        }
        param.set(buffer);
    }
}

namespace {

bool has_tail(SchedKind k) {
    switch (k) {
    case SchedKind::Split:
    case SchedKind::Tile:
    case SchedKind::GpuTile1D:
    case SchedKind::GpuTile2D:
    case SchedKind::VectorizeSplit:
    case SchedKind::UnrollSplit:
    case SchedKind::ParallelTask: return true;
    default: return false;
    }
}

// Auto is ShiftInwards in a pure definition and RoundUp on an update's
// pure variable (Halide's defaults).
bool computes_extra_points(TailStrategy t) {
    return t == TailStrategy::RoundUp || t == TailStrategy::ShiftInwards || t == TailStrategy::Auto;
}

}  // namespace

bool may_compute_extra_points(const ScheduleDesc &s) {
    for (const SchedOp &o : s.ops) {
        if (has_tail(o.kind) && computes_extra_points(o.tail)) return true;
    }
    return false;
}

ScheduleDesc guard_every_tail(const ScheduleDesc &s) {
    ScheduleDesc guarded;
    for (SchedOp o : s.ops) {
        if (o.kind == SchedKind::Vectorize || o.kind == SchedKind::Unroll) continue;
        if (has_tail(o.kind) && computes_extra_points(o.tail)) o.tail = TailStrategy::GuardWithIf;
        guarded.ops.push_back(o);
    }
    return guarded;
}

Buffer<> realize_output(const PipelineDesc &p, BuiltPipeline &b) {
    Buffer<> out = make_output(p);
    Realization r(std::vector<Buffer<>>{out});
    // strict_float: the JIT may otherwise fuse float a*b+c into an FMA,
    // which the interpreter (the reference) never does.
    b.funcs.back().realize(r, get_jit_target_from_environment().with_feature(Target::StrictFloat));
    return out;
}

Buffer<> run_lowered(const PipelineDesc &p, BuiltPipeline &b, const LoweredFunc &lf,
                     const loom::internal::JITPipeline *jit) {
    using namespace loom::internal;
    Buffer<> out = make_output(p);
    std::vector<void *> args = pipeline_args(b, lf, out, nullptr);
    int result = 0;
    std::string message;
    {
        ScopedErrorCapture capture;
        result = jit ? jit->argv(args.data()) : interpret(lf, args.data());
        // As realize() does: what kernels wrote comes back to the host.
        if (result == 0 && jit && !lf.kernels.empty()) result = loom_copy_to_host(nullptr, out.raw_buffer());
        message = capture.message();
    }
    if (result != 0) {
        throw loom::RuntimeError("the pipeline failed with code " + std::to_string(result) +
                                 (message.empty() ? std::string() : ": " + message));
    }
    return out;
}

namespace {

template<typename T>
std::string compare_typed(const Buffer<T> &expected, const Buffer<T> &actual) {
    std::string where;
    int mismatches = 0;
    expected.for_each_element([&](const std::vector<int> &pos) {
        T e = expected(pos), a = actual(pos);
        if (std::memcmp(&e, &a, sizeof(T)) == 0) return;
        if (mismatches++ >= 3) return;
        std::ostringstream s;
        s.precision(9);
        s << "at (" << pos[0] << ", " << pos[1] << "): expected " << +e << ", got " << +a << "; ";
        where += s.str();
    });
    if (mismatches > 3) where += std::to_string(mismatches) + " points differ in all";
    return where;
}

}  // namespace

std::string compare_buffers(const Buffer<> &expected, const Buffer<> &actual) {
    if (expected.type() != actual.type()) return "the element types differ";
    if (expected.type() == Int(32)) return compare_typed(Buffer<int32_t>(expected), Buffer<int32_t>(actual));
    if (expected.type() == UInt(8)) return compare_typed(Buffer<uint8_t>(expected), Buffer<uint8_t>(actual));
    return compare_typed(Buffer<float>(expected), Buffer<float>(actual));
}

}  // namespace fuzz
