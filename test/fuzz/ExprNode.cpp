// Expression nodes of the fuzzer's pipelines: construction and printing.

#include <cmath>
#include <sstream>

#include "fuzz/FuzzModel.h"

namespace fuzz {

loom::Type loom_type(ElemType t) {
    switch (t) {
    case ElemType::I32: return loom::Int(32);
    case ElemType::U8: return loom::UInt(8);
    case ElemType::F32: return loom::Float(32);
    }
    return loom::Int(32);
}

const char *cpp_type_name(ElemType t) {
    switch (t) {
    case ElemType::I32: return "int32_t";
    case ElemType::U8: return "uint8_t";
    case ElemType::F32: return "float";
    }
    return "?";
}

ENodePtr make_int(int64_t v, ElemType t) {
    auto n = std::make_shared<ENode>();
    n->op = Op::Const;
    n->type = t;
    n->ival = v;
    n->fval = (double)v;
    n->bound = std::fabs((double)v);
    return n;
}

ENodePtr make_float(double v) {
    auto n = std::make_shared<ENode>();
    n->op = Op::Const;
    n->type = ElemType::F32;
    n->fval = v;
    n->bound = std::fabs(v);
    return n;
}

ENodePtr make_var(int index) {
    auto n = std::make_shared<ENode>();
    n->op = Op::Var;
    n->index = index;
    n->bound = 1 << 12;
    return n;
}

ENodePtr make_rvar(int index) {
    auto n = std::make_shared<ENode>();
    n->op = Op::RVar;
    n->index = index;
    n->bound = 1 << 12;
    return n;
}

ENodePtr make_node(Op op, ElemType t, std::vector<ENodePtr> kids, double bound) {
    auto n = std::make_shared<ENode>();
    n->op = op;
    n->type = t;
    n->kids = std::move(kids);
    n->bound = bound;
    return n;
}

ENodePtr make_cast(ElemType t, const ENodePtr &e) {
    if (e->type == t) return e;
    double bound = e->bound;
    if (t == ElemType::U8) bound = 255;
    if (t == ElemType::I32 && e->type == ElemType::F32) bound = std::floor(e->bound);
    return make_node(Op::Cast, t, {e}, bound);
}

namespace {

std::string const_text(const ENode &e) {
    std::ostringstream s;
    if (e.type == ElemType::F32) {
        s.precision(9);
        s << e.fval << "f";
        std::string t = s.str();
        if (t.find('.') == std::string::npos && t.find('e') == std::string::npos) t.insert(t.size() - 1, ".0");
        return t;
    }
    if (e.type == ElemType::U8) return "cast<uint8_t>(" + std::to_string(e.ival) + ")";
    return std::to_string(e.ival);
}

std::string args_text(const ENode &e, const std::vector<std::string> &funcs, const std::vector<std::string> &inputs,
                      const std::string &self) {
    std::string s;
    for (size_t i = 0; i < e.kids.size(); i++) {
        if (i) s += ", ";
        s += to_text(*e.kids[i], funcs, inputs, self);
    }
    return s;
}

}  // namespace

std::string to_text(const ENode &e, const std::vector<std::string> &funcs, const std::vector<std::string> &inputs,
                    const std::string &self) {
    auto kid = [&](int i) { return to_text(*e.kids[i], funcs, inputs, self); };
    switch (e.op) {
    case Op::Const: return const_text(e);
    case Op::Var: return e.index == 0 ? "x" : "y";
    case Op::RVar: return e.index == 0 ? "r.x" : "r.y";
    case Op::Call: return funcs[e.index] + "(" + args_text(e, funcs, inputs, self) + ")";
    case Op::SelfCall: return self + "(" + args_text(e, funcs, inputs, self) + ")";
    case Op::InputRead: return inputs[e.index] + "(" + args_text(e, funcs, inputs, self) + ")";
    case Op::Add: return "(" + kid(0) + " + " + kid(1) + ")";
    case Op::Sub: return "(" + kid(0) + " - " + kid(1) + ")";
    case Op::Mul: return "(" + kid(0) + " * " + kid(1) + ")";
    case Op::Div: return "(" + kid(0) + " / " + kid(1) + ")";
    case Op::Mod: return "(" + kid(0) + " % " + kid(1) + ")";
    case Op::Min: return "min(" + kid(0) + ", " + kid(1) + ")";
    case Op::Max: return "max(" + kid(0) + ", " + kid(1) + ")";
    case Op::Select: return "select(" + kid(0) + " < " + kid(1) + ", " + kid(2) + ", " + kid(3) + ")";
    case Op::Clamp: return "clamp(" + kid(0) + ", " + kid(1) + ", " + kid(2) + ")";
    case Op::Cast: return std::string("cast<") + cpp_type_name(e.type) + ">(" + kid(0) + ")";
    }
    return "?";
}

}  // namespace fuzz
