#ifndef LOOM_INTERNAL_REDUCTION_DOMAIN_H
#define LOOM_INTERNAL_REDUCTION_DOMAIN_H

/** \file
 * The shared state behind an RDom: named reduction variables, each with a
 * min and an extent, and an optional predicate (RDom::where). Iterated with
 * the first variable innermost.
 */

#include <memory>
#include <string>
#include <vector>

#include "loom/Expr.h"

namespace loom {
namespace internal {

struct ReductionVariable {
    std::string var;
    Expr min, extent;
};

struct ReductionDomainContents {
    std::vector<ReductionVariable> domain;
    Expr predicate;       // undefined means "always true"
    bool frozen = false;  // set once used in a definition; where() is then an error
};

class ReductionDomain {
public:
    ReductionDomain() = default;
    explicit ReductionDomain(std::vector<ReductionVariable> domain)
        : contents_(std::make_shared<ReductionDomainContents>()) {
        contents_->domain = std::move(domain);
    }
    bool defined() const { return contents_ != nullptr; }
    const std::vector<ReductionVariable> &domain() const { return contents_->domain; }
    Expr predicate() const { return contents_->predicate; }
    void set_predicate(Expr p) { contents_->predicate = std::move(p); }
    bool frozen() const { return contents_->frozen; }
    void freeze() { contents_->frozen = true; }
    ReductionDomainContents *get() const { return contents_.get(); }
    bool same_as(const ReductionDomain &o) const { return contents_ == o.contents_; }

private:
    std::shared_ptr<ReductionDomainContents> contents_;
};

}  // namespace internal
}  // namespace loom

#endif
