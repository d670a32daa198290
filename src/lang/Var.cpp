#include "loom/Var.h"

#include <cctype>

#include "ir/IR.h"
#include "lang/UniqueName.h"

namespace loom {

Var::Var() : name_(internal::unique_name('v')) {}

Var::Var(const std::string &name) : name_(name) {}

Var Var::implicit(int n) { return Var("_" + std::to_string(n)); }

Var Var::outermost() { return Var("__outermost"); }

int Var::implicit_index(const std::string &name) {
    if (name.size() < 2 || name.size() > 10 || name[0] != '_') return -1;
    int n = 0;
    for (size_t i = 1; i < name.size(); i++) {
        if (!std::isdigit((unsigned char)name[i])) return -1;
        n = n * 10 + (name[i] - '0');
    }
    return n;
}

Var::operator Expr() const { return internal::Variable::make(Int(32), name_); }

}  // namespace loom
