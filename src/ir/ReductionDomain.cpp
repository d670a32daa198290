#include "loom/internal/ReductionDomain.h"

#include "ir/IRMutator.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

/** Makes the Variables of one domain refer to it weakly. */
class WeakenDomain : public IRMutator {
public:
    explicit WeakenDomain(const ReductionDomainContents *contents, ReductionDomain weak)
        : contents_(contents), weak_(std::move(weak)) {}

protected:
    using IRMutator::visit;
    const ReductionDomainContents *contents_;
    ReductionDomain weak_;

    Expr visit(const Variable *op) override {
        if (!op->reduction_domain.defined() || op->reduction_domain.get() != contents_) return op;
        return Variable::make(op->type, op->name, weak_);
    }
};

}  // namespace

ReductionDomainContents *ReductionDomain::get() const {
    if (contents_) return contents_.get();
    if (!weak_) return nullptr;
    std::shared_ptr<ReductionDomainContents> alive = weak_ref_.lock();
    if (!alive) throw InternalError("An RVar outlived its RDom's predicate (a weak reference to a destroyed domain).");
    return alive.get();  // kept alive by the strong references elsewhere
}

ReductionDomain ReductionDomain::strong() const {
    ReductionDomain r;
    r.contents_ = contents_ ? contents_ : weak_ref_.lock();
    if (weak_ && !r.contents_) {
        throw InternalError("An RVar outlived its RDom's predicate (a weak reference to a destroyed domain).");
    }
    return r;
}

std::weak_ptr<ReductionDomainContents> ReductionDomain::observe() const {
    return contents_ ? std::weak_ptr<ReductionDomainContents>(contents_) : weak_ref_;
}

Expr ReductionDomain::weakened(const Expr &e) const {
    ReductionDomainContents *c = get();
    if (!c) throw InternalError("weakening an Expr against an undefined ReductionDomain");
    ReductionDomain weak;
    weak.weak_ref_ = observe();
    weak.weak_ = true;
    return e.defined() ? WeakenDomain(c, weak).mutate(e) : e;
}

void ReductionDomain::set_predicate(Expr p) { get()->predicate = weakened(p); }

void ReductionDomain::set_loop_condition(Expr c) { get()->loop_condition = weakened(c); }

}  // namespace internal
}  // namespace loom
