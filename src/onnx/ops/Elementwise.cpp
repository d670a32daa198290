// Elementwise ops with numpy broadcasting: arithmetic, math, comparisons,
// logic, Where, Cast, Clip and the activations.

#include "../Importer.h"

namespace loom::onnx::detail {

namespace {

using Unary = std::function<Expr(Expr)>;
using Binary = std::function<Expr(Expr, Expr)>;

Expr zero_of(const Expr &e) { return cast(e.type(), Expr(0)); }

// ONNX integer division truncates toward zero; Loom's rounds so that the
// remainder is non-negative (Euclidean), as Halide's does.
Expr trunc_div(Expr a, Expr b) {
    if (a.type().is_float()) return a / b;
    if (a.type().is_uint()) return a / b;
    Expr q = a / b, r = a % b;
    Expr one = cast(a.type(), Expr(1));
    return select(a < zero_of(a) && r != zero_of(r), q + select(b > zero_of(b), one, -one), q);
}

/** Float32 Tanh is fast_tanh (the rational function of ONNX Runtime's MLAS
 * and Eigen, which vectorises; Loom's tanh() calls libm's tanhf once per
 * lane, docs/ONNX.md). Other types keep tanh(). */
Expr float_tanh(const Expr &v) { return v.type().element_of() == Float(32) ? fast_tanh(v) : tanh(v); }

Val elementwise(NodeContext &ctx, const std::vector<const Tensor *> &ins, int element_type,
                const std::function<Expr(const std::vector<Expr> &)> &f) {
    Shape out = ins[0]->shape;
    for (size_t k = 1; k < ins.size(); k++) out = broadcast_shapes(out, ins[k]->shape, ctx.where());
    std::vector<Tensor> copies;
    for (const Tensor *t : ins) copies.push_back(*t);
    return Val::of(make_tensor(
        element_type, out,
        [&](const Index &i) {
            std::vector<Expr> args;
            for (const Tensor &t : copies) args.push_back(read_broadcast(t, out, i));
            return f(args);
        },
        union_inputs(ins), ctx.node.output(0), true));
}

OpFunction unary(Unary f, bool float_only = false) {
    return [f, float_only](NodeContext &ctx) {
        const Tensor &x = ctx.tensor(0);
        if (float_only && !x.type().is_float()) ctx.fail("needs a floating-point input, not " + element_type_name(x.element_type));
        return std::vector<Val>{elementwise(ctx, {&x}, x.element_type, [&](const std::vector<Expr> &a) { return f(a[0]); })};
    };
}

OpFunction binary(Binary f, int result_type = 0) {
    return [f, result_type](NodeContext &ctx) {
        const Tensor &a = ctx.tensor(0), &b = ctx.tensor(1);
        if (a.element_type != b.element_type)
            ctx.fail("inputs have different types (" + element_type_name(a.element_type) + " and " +
                     element_type_name(b.element_type) + "); insert a Cast");
        int e = result_type ? result_type : a.element_type;
        return std::vector<Val>{elementwise(ctx, {&a, &b}, e, [&](const std::vector<Expr> &v) { return f(v[0], v[1]); })};
    };
}

OpFunction variadic(Binary f, bool mean = false) {
    return [f, mean](NodeContext &ctx) {
        std::vector<const Tensor *> ins;
        for (int i = 0; i < ctx.num_inputs(); i++) ins.push_back(&ctx.tensor(i));
        if (ins.empty()) ctx.fail("needs at least one input");
        int e = ins[0]->element_type;
        return std::vector<Val>{elementwise(ctx, ins, e, [&](const std::vector<Expr> &v) {
            Expr acc = v[0];
            for (size_t k = 1; k < v.size(); k++) acc = f(acc, v[k]);
            if (mean) acc = acc / cast(acc.type(), Expr((int)v.size()));
            return acc;
        })};
    };
}

std::vector<Val> pow_op(NodeContext &ctx) {
    const Tensor &a = ctx.tensor(0), &b = ctx.tensor(1);
    Type ta = a.type();
    return {elementwise(ctx, {&a, &b}, a.element_type, [&](const std::vector<Expr> &v) {
        if (ta.is_float() && ta.bits() >= 32) return pow(v[0], cast(ta, v[1]));
        return cast(ta, pow(cast(Float(64), v[0]), cast(Float(64), v[1])));
    })};
}

std::vector<Val> mod_op(NodeContext &ctx) {
    const Tensor &a = ctx.tensor(0), &b = ctx.tensor(1);
    bool fmod = ctx.attr_int("fmod", 0) != 0;
    return {elementwise(ctx, {&a, &b}, a.element_type, [&](const std::vector<Expr> &v) {
        Expr x = v[0], y = v[1];
        if (x.type().is_float()) {
            Expr r = x - trunc(x / y) * y;
            if (fmod) return r;
            return select(r != zero_of(r) && ((r < zero_of(r)) != (y < zero_of(y))), r + y, r);
        }
        if (fmod) return x - trunc_div(x, y) * y;
        Expr r = x % y;  // Euclidean: 0 <= r < |y|; Python's takes y's sign
        if (x.type().is_uint()) return r;
        return select(r != zero_of(r) && y < zero_of(y), r + y, r);
    })};
}

std::vector<Val> where_op(NodeContext &ctx) {
    const Tensor &c = ctx.tensor(0), &x = ctx.tensor(1), &y = ctx.tensor(2);
    return {elementwise(ctx, {&c, &x, &y}, x.element_type,
                        [&](const std::vector<Expr> &v) { return select(v[0], v[1], v[2]); })};
}

std::vector<Val> cast_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    int to = (int)ctx.attr_int("to", 0);
    Type t = loom_type_of(to);
    return {elementwise(ctx, {&x}, to, [&](const std::vector<Expr> &v) {
        if (t.is_bool()) return v[0] != zero_of(v[0]);
        return cast(t, v[0]);
    })};
}

std::vector<Val> clip_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    Type t = x.type();
    std::vector<const Tensor *> ins = {&x};
    Expr lo, hi;
    if (ctx.opset < 11) {
        lo = cast(t, Expr((double)ctx.attr_float("min", -3.4028234663852886e38f)));
        hi = cast(t, Expr((double)ctx.attr_float("max", 3.4028234663852886e38f)));
    }
    int lo_index = -1, hi_index = -1;
    if (ctx.opset >= 11 && ctx.has_input(1)) lo_index = (int)ins.size(), ins.push_back(&ctx.tensor(1));
    if (ctx.opset >= 11 && ctx.has_input(2)) hi_index = (int)ins.size(), ins.push_back(&ctx.tensor(2));
    return {elementwise(ctx, ins, x.element_type, [&](const std::vector<Expr> &v) {
        Expr r = v[0];
        if (lo.defined()) r = max(r, lo);
        if (hi.defined()) r = min(r, hi);
        if (lo_index >= 0) r = max(r, v[lo_index]);
        if (hi_index >= 0) r = min(r, v[hi_index]);
        return r;
    })};
}

std::vector<Val> identity_op(NodeContext &ctx) { return {ctx.input(0)}; }

std::vector<Val> cast_like_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    int to = ctx.tensor(1).element_type;
    Type t = loom_type_of(to);
    return {elementwise(ctx, {&x}, to, [&](const std::vector<Expr> &v) {
        if (t.is_bool()) return v[0] != zero_of(v[0]);
        return cast(t, v[0]);
    })};
}

// Inference only: the output is the input, the mask all true.
std::vector<Val> dropout_op(NodeContext &ctx) {
    const Tensor &x = ctx.tensor(0);
    bool training = ctx.opset >= 12 ? (ctx.has_input(2) && ctx.ints(2, "training_mode")[0] != 0)
                                    : (ctx.opset < 7 && ctx.attr_int("is_test", 0) == 0);
    double ratio = ctx.opset >= 12 ? (ctx.has_input(1) ? ctx.doubles(1, "ratio")[0] : 0.5) : ctx.attr_float("ratio", 0.5f);
    if (training && ratio != 0) ctx.fail("training mode (random dropout) is not supported; only inference");
    std::vector<Val> outs = {Val::of(x)};
    if (ctx.num_outputs() > 1)
        outs.push_back(Val::of(make_tensor(Boolean, x.shape, [](const Index &) { return Expr(true); },
                                           {}, ctx.node.output(1), true)));
    return outs;
}

std::vector<Val> bit_shift_op(NodeContext &ctx) {
    std::string direction = ctx.attr_string("direction", "");
    if (direction != "LEFT" && direction != "RIGHT") ctx.fail("direction must be LEFT or RIGHT");
    bool left = direction == "LEFT";
    return binary([left](Expr a, Expr b) { return left ? a << b : a >> b; })(ctx);
}

Expr f32(double v) { return Expr((float)v); }

}  // namespace

void register_elementwise_ops(OpTable &t) {
    t["Add"] = binary([](Expr a, Expr b) { return a + b; });
    t["Sub"] = binary([](Expr a, Expr b) { return a - b; });
    t["Mul"] = binary([](Expr a, Expr b) { return a * b; });
    t["Div"] = binary(trunc_div);
    t["Pow"] = pow_op;
    t["Mod"] = mod_op;
    t["Max"] = variadic([](Expr a, Expr b) { return max(a, b); });
    t["Min"] = variadic([](Expr a, Expr b) { return min(a, b); });
    t["Sum"] = variadic([](Expr a, Expr b) { return a + b; });
    t["Mean"] = variadic([](Expr a, Expr b) { return a + b; }, true);
    t["Neg"] = unary([](Expr x) { return -x; });
    t["Abs"] = unary([](Expr x) { return x.type().is_uint() ? x : cast(x.type(), abs(x)); });
    t["Sign"] = unary([](Expr x) {
        Expr z = zero_of(x);
        return select(x > z, cast(x.type(), Expr(1)), x < z, cast(x.type(), Expr(-1)), z);
    });
    t["Reciprocal"] = unary([](Expr x) { return cast(x.type(), Expr(1)) / x; }, true);
    t["Sqrt"] = unary([](Expr x) { return sqrt(x); }, true);
    t["Exp"] = unary([](Expr x) { return exp(x); }, true);
    t["Log"] = unary([](Expr x) { return log(x); }, true);
    t["Tanh"] = unary([](Expr x) { return float_tanh(x); }, true);
    t["Sin"] = unary([](Expr x) { return sin(x); }, true);
    t["Cos"] = unary([](Expr x) { return cos(x); }, true);
    t["Tan"] = unary([](Expr x) { return tan(x); }, true);
    t["Asin"] = unary([](Expr x) { return asin(x); }, true);
    t["Acos"] = unary([](Expr x) { return acos(x); }, true);
    t["Atan"] = unary([](Expr x) { return atan(x); }, true);
    t["Sinh"] = unary([](Expr x) { return sinh(x); }, true);
    t["Cosh"] = unary([](Expr x) { return cosh(x); }, true);
    t["Floor"] = unary([](Expr x) { return floor(x); }, true);
    t["Ceil"] = unary([](Expr x) { return ceil(x); }, true);
    t["Round"] = unary([](Expr x) { return round(x); }, true);  // half to even, as ONNX
    t["Sigmoid"] = unary([](Expr x) { return cast(x.type(), Expr(1)) / (cast(x.type(), Expr(1)) + exp(-x)); }, true);
    t["Relu"] = unary([](Expr x) { return max(x, zero_of(x)); });
    t["Softplus"] = unary([](Expr x) { return log(exp(x) + cast(x.type(), Expr(1))); }, true);
    t["Softsign"] = unary([](Expr x) { return x / (cast(x.type(), Expr(1)) + abs(x)); }, true);
    t["IsNaN"] = [](NodeContext &ctx) {
        const Tensor &x = ctx.tensor(0);
        return std::vector<Val>{elementwise(ctx, {&x}, Boolean, [](const std::vector<Expr> &v) { return is_nan(v[0]); })};
    };
    t["LeakyRelu"] = [](NodeContext &ctx) {
        float alpha = ctx.attr_float("alpha", 0.01f);
        return unary([alpha](Expr x) { return select(x < zero_of(x), x * f32(alpha), x); }, true)(ctx);
    };
    t["Elu"] = [](NodeContext &ctx) {
        float alpha = ctx.attr_float("alpha", 1.0f);
        return unary([alpha](Expr x) { return select(x < zero_of(x), f32(alpha) * (exp(x) - 1.0f), x); }, true)(ctx);
    };
    t["Selu"] = [](NodeContext &ctx) {
        float alpha = ctx.attr_float("alpha", 1.67326319217681884765625f);
        float gamma = ctx.attr_float("gamma", 1.05070102214813232421875f);
        return unary([=](Expr x) { return f32(gamma) * select(x <= zero_of(x), f32(alpha) * (exp(x) - 1.0f), x); },
                     true)(ctx);
    };
    t["HardSigmoid"] = [](NodeContext &ctx) {
        float alpha = ctx.attr_float("alpha", 0.2f), beta = ctx.attr_float("beta", 0.5f);
        return unary([=](Expr x) { return clamp(f32(alpha) * x + f32(beta), 0.0f, 1.0f); }, true)(ctx);
    };
    t["ThresholdedRelu"] = [](NodeContext &ctx) {
        float alpha = ctx.attr_float("alpha", 1.0f);
        return unary([=](Expr x) { return select(x > f32(alpha), x, zero_of(x)); }, true)(ctx);
    };
    t["Greater"] = binary([](Expr a, Expr b) { return a > b; }, Boolean);
    t["Less"] = binary([](Expr a, Expr b) { return a < b; }, Boolean);
    t["Equal"] = binary([](Expr a, Expr b) { return a == b; }, Boolean);
    t["GreaterOrEqual"] = binary([](Expr a, Expr b) { return a >= b; }, Boolean);
    t["LessOrEqual"] = binary([](Expr a, Expr b) { return a <= b; }, Boolean);
    t["And"] = binary([](Expr a, Expr b) { return a && b; });
    t["Or"] = binary([](Expr a, Expr b) { return a || b; });
    t["Xor"] = binary([](Expr a, Expr b) { return a != b; });
    t["Not"] = unary([](Expr x) { return !x; });
    t["BitwiseAnd"] = binary([](Expr a, Expr b) { return a & b; });
    t["BitwiseOr"] = binary([](Expr a, Expr b) { return a | b; });
    t["BitwiseXor"] = binary([](Expr a, Expr b) { return a ^ b; });
    t["BitwiseNot"] = unary([](Expr x) { return ~x; });
    t["Where"] = where_op;
    t["Cast"] = cast_op;
    t["Clip"] = clip_op;
    t["Identity"] = identity_op;
    t["CastLike"] = cast_like_op;
    t["Dropout"] = dropout_op;
    t["BitShift"] = bit_shift_op;
}

}  // namespace loom::onnx::detail
