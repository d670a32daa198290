#include "loom/LoopLevel.h"

#include "ir/Function.h"
#include "loom/Error.h"
#include "loom/Func.h"

namespace loom {

LoopLevel::LoopLevel(const Func &f, const VarOrRVar &var, int stage_index)
    : kind_(Kind::At), func_(f.name()), var_(var.name()), var_is_rvar_(var.is_rvar), stage_(stage_index) {
    if (stage_index < -1) {
        throw CompileError("LoopLevel(" + f.name() + ", " + var.name() + ", " + std::to_string(stage_index) +
                           "): the stage index must be -1 (the last stage) or a stage of " + f.name() + ".");
    }
}

LoopLevel LoopLevel::inlined() {
    LoopLevel l;
    l.kind_ = Kind::Inlined;
    return l;
}

const LoopLevel &LoopLevel::checked(const char *query) const {
    if (defined()) return *this;
    throw CompileError(std::string("LoopLevel::") + query + "() of an undefined LoopLevel. LoopLevel() is undefined, "
                       "as in Halide; use LoopLevel::inlined(), LoopLevel::root() or LoopLevel(f, x), and check "
                       "defined() first where a level may be undefined.");
}

LoopLevel LoopLevel::root() {
    LoopLevel l;
    l.kind_ = Kind::Root;
    return l;
}

std::string LoopLevel::to_string() const {
    if (!defined()) return "undefined";
    if (is_inlined()) return "inlined";
    if (is_root()) return "root";
    return stage_ < 0 ? func_ + "." + var_ : func_ + ".s" + std::to_string(stage_) + "." + var_;
}

bool LoopLevel::operator==(const LoopLevel &other) const {
    return kind_ == other.kind_ && func_ == other.func_ && var_ == other.var_ && stage_ == other.stage_;
}

internal::LoopLevel LoopLevel::to_internal() const {
    if (!defined()) {
        throw CompileError("A schedule was given an undefined LoopLevel. LoopLevel() is undefined, as in Halide; "
                           "use LoopLevel::inlined(), LoopLevel::root() or LoopLevel(f, x).");
    }
    if (is_inlined()) return internal::LoopLevel::inlined();
    if (is_root()) return internal::LoopLevel::root();
    return internal::LoopLevel::at(func_, var_, stage_);
}

LoopLevel LoopLevel::from_internal(const internal::LoopLevel &level) {
    LoopLevel l = inlined();
    if (level.kind == internal::LoopLevel::Root) l.kind_ = Kind::Root;
    if (level.kind != internal::LoopLevel::At) return l;
    l.kind_ = Kind::At;
    l.func_ = level.func;
    l.var_ = level.var;
    l.var_is_rvar_ = level.var.find('$') != std::string::npos;  // RDom RVars are named "r$x"
    l.stage_ = level.stage;
    return l;
}

}  // namespace loom
