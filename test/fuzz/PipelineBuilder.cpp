// Turns a fuzzer PipelineDesc into Loom Funcs, realizes the output, and
// compares results bit for bit.

#include <cstring>
#include <sstream>

#include "fuzz/FuzzModel.h"

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
        for (size_t i = 0; i < p.inputs.size(); i++) b.inputs.push_back(make_input(p.inputs[i], (int)i));
    } else {
        b.inputs = inputs;
    }
    Var x("x"), y("y");
    for (size_t i = 0; i < p.funcs.size(); i++) {
        const FuncDesc &d = p.funcs[i];
        Func f(d.name);
        b.funcs.push_back(f);
        if (d.kind == FuncKind::InputWrapper) {
            Func bc = boundary_func(b.inputs[d.input], d.boundary);
            f(x, y) = bc(x, y);
            continue;
        }
        RDom r;
        if (!d.rdom.empty()) {
            std::vector<std::pair<Expr, Expr>> region;
            for (auto &m : d.rdom) region.emplace_back(Expr(m.first), Expr(m.second));
            r = RDom(region, "r" + std::to_string(i));
        }
        ExprBuilder eb{b, x, y, d.rdom.empty() ? nullptr : &r, &f};
        f(x, y) = eb.build(*d.pure);
        for (const UpdateDesc &u : d.updates) {
            f(eb.build(*u.lhs[0]), eb.build(*u.lhs[1])) = eb.build(*u.value);
        }
    }
    return b;
}

Buffer<> realize_output(const PipelineDesc &p, BuiltPipeline &b) {
    Buffer<> out(loom_type(p.output().type), {p.out_width, p.out_height}, "fuzz_out");
    out.set_min({p.out_min_x, p.out_min_y});
    Realization r(std::vector<Buffer<>>{out});
    b.funcs.back().realize(r);
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
