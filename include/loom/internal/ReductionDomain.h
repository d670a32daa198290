#ifndef LOOM_INTERNAL_REDUCTION_DOMAIN_H
#define LOOM_INTERNAL_REDUCTION_DOMAIN_H

/** \file
 * The shared state behind an RDom: named reduction variables, each with a
 * min and an extent, and an optional predicate (RDom::where). Iterated with
 * the first variable innermost, and an optional loop condition
 * (RDom::loop_while) that ends the loop over the outermost variable early.
 */

#include <memory>
#include <string>
#include <vector>

#include "loom/Expr.h"
#include "loom/internal/FunctionPtr.h"

namespace loom {
namespace internal {

struct ReductionVariable {
    std::string var;
    Expr min, extent;
};

struct ReductionDomainContents {
    std::vector<ReductionVariable> domain;
    Expr predicate;       // undefined means "always true"
    /** RDom::loop_while: the loop over the outermost variable runs while
     * this holds (undefined means "to the end of the domain"). */
    Expr loop_condition;
    /** Set by RDom::trip_count(): the one-element buffer the loop over the
     * outermost variable writes its trip count to (empty: nobody asks). */
    std::string trip_count_buffer;
    /** The Funcs with an update definition over this domain, in the order
     * they were defined (weak: each Func holds its domain). */
    std::vector<FunctionPtr> users;
    bool frozen = false;  // set once used in a definition; where() is then an error
};

/** A reference to the contents, shared by every RVar of the RDom. The
 * RVars inside the domain's own predicate refer to it weakly: the predicate
 * belongs to the contents, and a strong reference back would be a cycle
 * that keeps every RDom with where() alive forever. */
class ReductionDomain {
public:
    ReductionDomain() = default;
    explicit ReductionDomain(std::vector<ReductionVariable> domain)
        : contents_(std::make_shared<ReductionDomainContents>()) {
        contents_->domain = std::move(domain);
    }
    bool defined() const { return contents_ != nullptr || weak_; }
    const std::vector<ReductionVariable> &domain() const { return get()->domain; }
    Expr predicate() const { return get()->predicate; }
    /** Sets the predicate, its references to this domain made weak. */
    void set_predicate(Expr p);
    Expr loop_condition() const { return get()->loop_condition; }
    /** Sets the loop condition, its references to this domain made weak. */
    void set_loop_condition(Expr c);
    bool frozen() const { return get()->frozen; }
    void freeze() { get()->frozen = true; }
    /** The contents; a weak reference whose domain is gone is an
     * InternalError (the Definition or RDom that owns it must outlive it). */
    ReductionDomainContents *get() const;
    bool same_as(const ReductionDomain &o) const { return get() == o.get(); }
    /** A strong reference to the same contents (this one may be weak). */
    ReductionDomain strong() const;
    /** Whether the contents still exist (for tests of their lifetime). */
    std::weak_ptr<ReductionDomainContents> observe() const;

private:
    /** e with its references to this domain made weak. */
    Expr weakened(const Expr &e) const;

    std::shared_ptr<ReductionDomainContents> contents_;  // null when weak
    std::weak_ptr<ReductionDomainContents> weak_ref_;
    bool weak_ = false;
};

}  // namespace internal
}  // namespace loom

#endif
