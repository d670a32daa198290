#include "loom/RDom.h"

#include "ir/IR.h"
#include "lang/UniqueName.h"
#include "loom/IROperator.h"
#include "loom/ImageParam.h"

namespace loom {

namespace {

/** The RDom name an RVar name "r$x" comes from. */
std::string rdom_name_of(const internal::ReductionDomain &d) {
    if (!d.defined() || d.domain().empty()) return "";
    const std::string &v = d.domain()[0].var;
    return v.substr(0, v.rfind('$'));
}

std::string rvar_suffix(size_t i) {
    static const char *names[] = {"x", "y", "z", "w"};
    return i < 4 ? names[i] : std::to_string(i);
}

Expr checked_bound(const Expr &e, const std::string &rdom, size_t dim, const char *what) {
    if (!e.defined()) {
        throw CompileError("RDom " + rdom + ": the " + what + " of dimension " + std::to_string(dim) + " is undefined.");
    }
    if (!e.type().is_int_or_uint() || e.type().is_vector()) {
        throw CompileError("RDom " + rdom + ": the " + what + " of dimension " + std::to_string(dim) + " has type " +
                           e.type().to_string() + "; it must be an integer.");
    }
    return e.type() == Int(32) ? e : cast(Int(32), e);
}

}  // namespace

RVar::RVar(const internal::ReductionDomain &domain, int index) : domain_(domain), index_(index) {
    if (!domain.defined() || index < 0 || index >= (int)domain.domain().size()) {
        throw InternalError("RVar index " + std::to_string(index) + " out of range of its RDom.");
    }
    name_ = domain.domain()[index].var;
}

Expr RVar::min() const {
    if (!domain_.defined()) throw CompileError("RVar " + name_ + " is not part of an RDom, so it has no min.");
    return domain_.domain()[index_].min;
}

Expr RVar::extent() const {
    if (!domain_.defined()) throw CompileError("RVar " + name_ + " is not part of an RDom, so it has no extent.");
    return domain_.domain()[index_].extent;
}

RVar::operator Expr() const {
    if (!domain_.defined()) {
        throw CompileError("RVar " + (name_.empty() ? std::string("<unnamed>") : name_) +
                           " is not part of an RDom, so it can't be used in an Expr.");
    }
    return internal::Variable::make(Int(32), name_, domain_);
}

RDom::RDom(const Region &region, const std::string &name) { init(region, name); }

RDom::RDom(const ImageParam &input) {
    Region region;
    for (int d = 0; d < input.dimensions(); d++) region.emplace_back(input.dim(d).min(), input.dim(d).extent());
    init(region, "");
}

RDom::RDom(const internal::ReductionDomain &domain) : domain_(domain), name_(rdom_name_of(domain)) {
    RVar *named[] = {&x, &y, &z, &w};
    for (int i = 0; i < dimensions() && i < 4; i++) *named[i] = RVar(domain_, i);
}

Region RDom::region_of(const Buffer<> &buffer) {
    if (!buffer.defined()) throw CompileError("Can't make an RDom over an undefined Buffer.");
    Region region;
    for (int d = 0; d < buffer.dimensions(); d++) region.emplace_back(Expr(buffer.min(d)), Expr(buffer.extent(d)));
    return region;
}

void RDom::init(const Region &region, const std::string &name) {
    name_ = name.empty() ? internal::unique_name('r') : name;
    if (region.empty()) throw CompileError("RDom " + name_ + " needs at least one dimension.");
    std::vector<internal::ReductionVariable> vars;
    for (size_t i = 0; i < region.size(); i++) {
        internal::ReductionVariable v;
        v.var = name_ + "$" + rvar_suffix(i);
        v.min = checked_bound(region[i].min, name_, i, "min");
        v.extent = checked_bound(region[i].extent, name_, i, "extent");
        vars.push_back(v);
    }
    domain_ = internal::ReductionDomain(vars);
    RVar *named[] = {&x, &y, &z, &w};
    for (size_t i = 0; i < vars.size() && i < 4; i++) *named[i] = RVar(domain_, (int)i);
}

RVar RDom::operator[](int i) const {
    if (i < 0 || i >= dimensions()) {
        throw CompileError("RDom " + name_ + " has " + std::to_string(dimensions()) + " dimensions, so [" +
                           std::to_string(i) + "] does not exist.");
    }
    return RVar(domain_, i);
}

RDom &RDom::where(const Expr &predicate) {
    if (!defined()) throw CompileError("where() called on an undefined RDom.");
    if (domain_.frozen()) {
        throw CompileError("RDom " + name_ + ": where() is called after " + name_ +
                           " was used in a definition. Call where() before using the RDom.");
    }
    if (!predicate.defined() || !predicate.type().is_bool() || predicate.type().is_vector()) {
        throw CompileError("RDom " + name_ + ": the predicate given to where() must be a boolean Expr.");
    }
    Expr old = domain_.predicate();
    domain_.set_predicate(old.defined() ? (old && predicate) : predicate);
    return *this;
}

RDom &RDom::loop_while(const Expr &condition) {
    if (!defined()) throw CompileError("loop_while() called on an undefined RDom.");
    if (domain_.frozen()) {
        throw CompileError("RDom " + name_ + ": loop_while() is called after " + name_ +
                           " was used in a definition. Call loop_while() before using the RDom.");
    }
    if (!condition.defined() || !condition.type().is_bool() || condition.type().is_vector()) {
        throw CompileError("RDom " + name_ + ": the condition given to loop_while() must be a boolean Expr, " +
                           "but it " + (condition.defined() ? "has type " + condition.type().to_string() : "is undefined") +
                           ". Compare the value (e.g. x != 0) to make one.");
    }
    Expr old = domain_.loop_condition();
    domain_.set_loop_condition(old.defined() ? (old && condition) : condition);
    return *this;
}

Expr RDom::loop_condition() const { return defined() ? domain_.loop_condition() : Expr(); }

Expr RDom::trip_count() const {
    if (!defined()) throw CompileError("trip_count() called on an undefined RDom.");
    internal::ReductionDomainContents *contents = domain_.get();
    // The Expr keeps the Func whose loop counts alive, as a call would.
    internal::FunctionPtr loop;
    for (const internal::FunctionPtr &user : contents->users) {
        if ((loop = user.strengthened()).defined()) break;
    }
    if (!loop.defined()) {
        throw CompileError("RDom " + name_ + ": trip_count() is asked before an update definition loops over " +
                           name_ + ". Define the loop first (f(...) = ... " + name_ + " ...), then read " + name_ +
                           ".trip_count() in the Funcs computed after it.");
    }
    if (contents->trip_count_buffer.empty()) {
        contents->trip_count_buffer = internal::unique_name('t') + "." + name_ + ".trip_count";
    }
    return internal::Call::make(Int(32), internal::intrinsic::trip_count,
                                {internal::StringImm::make(contents->trip_count_buffer)},
                                internal::CallType::Intrinsic, loop);
}

RDom::operator Expr() const {
    if (dimensions() != 1) {
        throw CompileError("RDom " + name_ + " has " + std::to_string(dimensions()) +
                           " dimensions, so it can't be used as a single Expr: use " + name_ + ".x, " + name_ +
                           ".y, ...");
    }
    return Expr(x);
}

RDom::operator RVar() const {
    if (dimensions() != 1) {
        throw CompileError("RDom " + name_ + " has " + std::to_string(dimensions()) +
                           " dimensions, so it can't be used as a single RVar: use " + name_ + ".x, " + name_ +
                           ".y, ...");
    }
    return x;
}

}  // namespace loom
