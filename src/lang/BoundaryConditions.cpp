#include "loom/BoundaryConditions.h"

#include <functional>

#include "ir/IR.h"
#include "loom/Error.h"
#include "loom/IROperator.h"

namespace loom {
namespace BoundaryConditions {

namespace {

/** What a boundary condition reads: values at coordinates. */
struct Source {
    std::string name;
    int dimensions = 0;
    std::vector<Type> types;
    std::function<std::vector<Expr>(const std::vector<Expr> &)> read;
};

Source source_of(const Func &f) {
    if (!f.defined()) {
        throw CompileError("Can't impose a boundary condition on Func " + f.name() + ": it has no definition yet.");
    }
    Source s{f.name(), f.dimensions(), f.output_types(), nullptr};
    s.read = [f](const std::vector<Expr> &coords) {
        FuncRef call = f(coords);
        if (f.outputs() == 1) return std::vector<Expr>{Expr(call)};
        return Tuple(call).as_vector();
    };
    return s;
}

Source source_of(const ImageParam &p) {
    Source s{p.name(), p.dimensions(), {p.type()}, nullptr};
    s.read = [p](const std::vector<Expr> &coords) { return std::vector<Expr>{p(coords)}; };
    return s;
}

Source source_of(const Buffer<> &b) {
    if (!b.defined()) throw CompileError("Can't impose a boundary condition on an undefined Buffer.");
    Source s{b.name(), b.dimensions(), {b.type()}, nullptr};
    s.read = [b](const std::vector<Expr> &coords) { return std::vector<Expr>{b(coords)}; };
    return s;
}

Region own_bounds(const ImageParam &p) {
    Region r;
    for (int d = 0; d < p.dimensions(); d++) r.emplace_back(p.dim(d).min(), p.dim(d).extent());
    return r;
}

Region own_bounds(const Buffer<> &b) {
    if (!b.defined()) throw CompileError("Can't impose a boundary condition on an undefined Buffer.");
    Region r;
    for (int d = 0; d < b.dimensions(); d++) r.emplace_back(Expr(b.min(d)), Expr(b.extent(d)));
    return r;
}

/** "<source>_<kind>", made unique so two boundary Funcs of one source can
 * share a pipeline. */
std::string func_name(const std::string &source, const char *kind) {
    return internal::unique_func_name(source + "_" + kind);
}

Expr int_bound(const Source &s, const char *kind, size_t d, const Expr &e) {
    if (!e.type().is_int_or_uint() || e.type().is_vector()) {
        throw CompileError(std::string(kind) + " of " + s.name + ": the bounds of dimension " + std::to_string(d) +
                           " must be integers, not " + e.type().to_string() + ".");
    }
    return e.type() == Int(32) ? e : cast(Int(32), e);
}

/** Maps a coordinate outside [min, min + extent) to the one it reads. */
using CoordinateMap = std::function<Expr(const Expr &x, const Expr &min, const Expr &extent)>;

/** The Func that reads source at mapped coordinates. With an exterior
 * value, points outside the bounds get that value instead. */
Func impose(const Source &s, const Region &bounds, const char *kind, const CoordinateMap &map,
            const std::vector<Expr> &exterior = {}) {
    if ((int)bounds.size() > s.dimensions) {
        throw CompileError(std::string(kind) + " of " + s.name + ": " + std::to_string(bounds.size()) +
                           " bounds given, but " + s.name + " has " + std::to_string(s.dimensions) + " dimensions.");
    }
    std::vector<Var> vars;
    std::vector<Expr> coords;
    std::vector<std::pair<std::string, Expr>> lets;
    Expr inside;
    for (int d = 0; d < s.dimensions; d++) {
        Var x;
        vars.push_back(x);
        bool bounded = d < (int)bounds.size() && bounds[d].min.defined() && bounds[d].extent.defined();
        if (!bounded) {
            coords.push_back(x);
            continue;
        }
        Expr min = int_bound(s, kind, d, bounds[d].min);
        Expr extent = int_bound(s, kind, d, bounds[d].extent);
        Expr mapped = map(x, min, extent);
        Expr in_dim = x >= min && x < min + extent;
        inside = inside.defined() ? (inside && in_dim) : in_dim;
        if (exterior.empty()) {
            coords.push_back(mapped);
            continue;
        }
        // Both sides of a select are evaluated, so the read must stay clamped
        // even where the select picks the exterior value. Binding the clamped
        // coordinate outside the select keeps simplification under the
        // select's condition from removing the clamp.
        std::string name = x.name() + ".clamped";
        lets.emplace_back(name, mapped);
        coords.push_back(internal::Variable::make(Int(32), name));
    }
    std::vector<Expr> values = s.read(coords);
    if (!exterior.empty()) {
        if (exterior.size() != values.size()) {
            throw CompileError(std::string(kind) + " of " + s.name + ": the exterior value has " +
                               std::to_string(exterior.size()) + " elements, but " + s.name + " has " +
                               std::to_string(values.size()) + ".");
        }
        for (size_t i = 0; i < values.size() && inside.defined(); i++) {
            Expr value = exterior[i].type() == values[i].type() ? exterior[i] : cast(values[i].type(), exterior[i]);
            values[i] = select(inside, values[i], value);
            for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
                values[i] = internal::Let::make(it->first, it->second, values[i]);
            }
        }
    }
    Func result(func_name(s.name, kind));
    result(vars) = Tuple(values);
    return result;
}

Expr clamp_to(const Expr &x, const Expr &min, const Expr &extent) { return clamp(x, min, min + extent - 1); }

Func repeat_edge_of(const Source &s, const Region &bounds) {
    return impose(s, bounds, "repeat_edge", clamp_to);
}

Func constant_exterior_of(const Source &s, const std::vector<Expr> &value, const Region &bounds) {
    for (const Expr &v : value) {
        if (!v.defined()) throw CompileError("constant_exterior of " + s.name + ": the exterior value is undefined.");
    }
    // Reads stay clamped inside so bounds inference sees a finite region.
    return impose(s, bounds, "constant_exterior", clamp_to, value);
}

Func repeat_image_of(const Source &s, const Region &bounds) {
    return impose(s, bounds, "repeat_image", [](const Expr &x, const Expr &min, const Expr &extent) {
        // % is Euclidean, so the result is in [0, extent) for any x.
        return clamp_to((x - min) % extent + min, min, extent);
    });
}

Func mirror_image_of(const Source &s, const Region &bounds) {
    return impose(s, bounds, "mirror_image", [](const Expr &x, const Expr &min, const Expr &extent) {
        // Period 2 * extent: 0 1 .. e-1 e-1 .. 1 0 (the edge repeats).
        Expr t = (x - min) % (2 * extent);
        Expr folded = loom::min(t, 2 * extent - 1 - t);
        return clamp_to(folded + min, min, extent);
    });
}

Func mirror_interior_of(const Source &s, const Region &bounds) {
    return impose(s, bounds, "mirror_interior", [](const Expr &x, const Expr &min, const Expr &extent) {
        // Period 2 * extent - 2: 0 1 .. e-1 e-2 .. 1 (the edge does not repeat).
        Expr t = (x - min) % (2 * extent - 2);
        Expr folded = loom::min(t, 2 * extent - 2 - t);
        return clamp_to(folded + min, min, extent);
    });
}

}  // namespace

Func repeat_edge(const Func &source, const Region &bounds) { return repeat_edge_of(source_of(source), bounds); }
Func repeat_edge(const ImageParam &source, const Region &bounds) { return repeat_edge_of(source_of(source), bounds); }
Func repeat_edge(const ImageParam &source) { return repeat_edge(source, own_bounds(source)); }
Func repeat_edge(const Buffer<> &source, const Region &bounds) { return repeat_edge_of(source_of(source), bounds); }
Func repeat_edge(const Buffer<> &source) { return repeat_edge(source, own_bounds(source)); }

Func constant_exterior(const Func &source, const Expr &value, const Region &bounds) {
    return constant_exterior_of(source_of(source), {value}, bounds);
}
Func constant_exterior(const Func &source, const Tuple &value, const Region &bounds) {
    return constant_exterior_of(source_of(source), value.as_vector(), bounds);
}
Func constant_exterior(const ImageParam &source, const Expr &value, const Region &bounds) {
    return constant_exterior_of(source_of(source), {value}, bounds);
}
Func constant_exterior(const ImageParam &source, const Expr &value) {
    return constant_exterior(source, value, own_bounds(source));
}
Func constant_exterior(const Buffer<> &source, const Expr &value, const Region &bounds) {
    return constant_exterior_of(source_of(source), {value}, bounds);
}
Func constant_exterior(const Buffer<> &source, const Expr &value) {
    return constant_exterior(source, value, own_bounds(source));
}

Func repeat_image(const Func &source, const Region &bounds) { return repeat_image_of(source_of(source), bounds); }
Func repeat_image(const ImageParam &source, const Region &bounds) { return repeat_image_of(source_of(source), bounds); }
Func repeat_image(const ImageParam &source) { return repeat_image(source, own_bounds(source)); }
Func repeat_image(const Buffer<> &source, const Region &bounds) { return repeat_image_of(source_of(source), bounds); }
Func repeat_image(const Buffer<> &source) { return repeat_image(source, own_bounds(source)); }

Func mirror_image(const Func &source, const Region &bounds) { return mirror_image_of(source_of(source), bounds); }
Func mirror_image(const ImageParam &source, const Region &bounds) { return mirror_image_of(source_of(source), bounds); }
Func mirror_image(const ImageParam &source) { return mirror_image(source, own_bounds(source)); }
Func mirror_image(const Buffer<> &source, const Region &bounds) { return mirror_image_of(source_of(source), bounds); }
Func mirror_image(const Buffer<> &source) { return mirror_image(source, own_bounds(source)); }

Func mirror_interior(const Func &source, const Region &bounds) { return mirror_interior_of(source_of(source), bounds); }
Func mirror_interior(const ImageParam &source, const Region &bounds) {
    return mirror_interior_of(source_of(source), bounds);
}
Func mirror_interior(const ImageParam &source) { return mirror_interior(source, own_bounds(source)); }
Func mirror_interior(const Buffer<> &source, const Region &bounds) {
    return mirror_interior_of(source_of(source), bounds);
}
Func mirror_interior(const Buffer<> &source) { return mirror_interior(source, own_bounds(source)); }

}  // namespace BoundaryConditions
}  // namespace loom
