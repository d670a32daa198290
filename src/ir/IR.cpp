#include "ir/IR.h"

#include "ir/IRUtil.h"
#include "loom/Error.h"
#include "loom/runtime/bfloat16.h"

namespace loom {
namespace internal {

namespace {

// Every make() checks its node's invariants with LOOM_IR_CHECK: a failure is a
// bug in whichever compiler stage built the node, never a user mistake. The
// message is only built when the check fails (the simplifier makes millions
// of nodes; building every message was a fifth of the lowering time).
[[noreturn]] void fail(const char *node, const std::string &what) {
    throw InternalError(std::string(node) + "::make: " + what);
}

#define LOOM_IR_CHECK(condition, node, what) \
    do {                                    \
        if (!(condition)) fail(node, what); \
    } while (0)

void check_defined(const Expr &e, const char *node, const char *field) {
    LOOM_IR_CHECK(e.defined(), node, std::string(field) + " is undefined");
}

void check_defined(const Stmt &s, const char *node, const char *field) {
    LOOM_IR_CHECK(s.defined(), node, std::string(field) + " is undefined");
}

// Undefined predicates/conditions are allowed (they mean "always").
void check_optional_bool(const Expr &e, int lanes, const char *node, const char *field) {
    if (!e.defined()) return;
    LOOM_IR_CHECK(e.type().is_bool(), node, std::string(field) + " must be boolean, not " + e.type().to_string());
    LOOM_IR_CHECK(e.type().lanes() == lanes, node,
          std::string(field) + " has " + std::to_string(e.type().lanes()) + " lanes, expected " +
              std::to_string(lanes));
}

void check_scalar_bool(const Expr &e, const char *node, const char *field) {
    check_defined(e, node, field);
    check_optional_bool(e, 1, node, field);
}

// Binary operands must already have been coerced to one type by the front end.
template<typename T>
Expr make_binary(Expr a, Expr b, const char *node, bool result_is_bool) {
    check_defined(a, node, "a");
    check_defined(b, node, "b");
    LOOM_IR_CHECK(a.type() == b.type(), node,
          "operand types differ: " + a.type().to_string() + " vs " + b.type().to_string());
    T *n = new T;
    n->type = result_is_bool ? Bool(a.type().lanes()) : a.type();
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
}

template<typename T>
Expr make_logical(Expr a, Expr b, const char *node) {
    check_defined(a, node, "a");
    check_defined(b, node, "b");
    LOOM_IR_CHECK(a.type().is_bool(), node, "a must be boolean, not " + a.type().to_string());
    return make_binary<T>(std::move(a), std::move(b), node, true);
}

double round_to_float_type(Type t, double value) {
    if (t.is_bfloat()) return (double)bfloat16_t::float_from_bits(bfloat16_t::bits_from_double(value));
    if (t.bits() == 64) return value;
#if defined(__FLT16_MAX__)
    if (t.bits() == 16) return (double)(_Float16)value;
#endif
    return (double)(float)value;
}

}  // namespace

// ---------------------------------------------------------------- constants

const IntImm *IntImm::make(Type t, int64_t value) {
    LOOM_IR_CHECK(t.is_int() && t.is_scalar(), "IntImm", "type must be a scalar Int, not " + t.to_string());
    LOOM_IR_CHECK(t.bits() >= 8 && t.bits() <= 64, "IntImm", "bad width " + std::to_string(t.bits()));
    IntImm *n = new IntImm;
    n->type = t;
    n->value = wrap_int(t, value);
    return n;
}

const UIntImm *UIntImm::make(Type t, uint64_t value) {
    LOOM_IR_CHECK(t.is_uint() && t.is_scalar(), "UIntImm", "type must be a scalar UInt, not " + t.to_string());
    LOOM_IR_CHECK(t.bits() >= 1 && t.bits() <= 64, "UIntImm", "bad width " + std::to_string(t.bits()));
    UIntImm *n = new UIntImm;
    n->type = t;
    n->value = wrap_uint(t, value);
    return n;
}

const FloatImm *FloatImm::make(Type t, double value) {
    LOOM_IR_CHECK(t.is_float() && t.is_scalar(), "FloatImm", "type must be a scalar Float, not " + t.to_string());
    LOOM_IR_CHECK(t.bits() == 16 || t.bits() == 32 || t.bits() == 64, "FloatImm", "bad width " + std::to_string(t.bits()));
    LOOM_IR_CHECK(!t.is_bfloat() || t.bits() == 16, "FloatImm", "bfloat has 16 bits, not " + std::to_string(t.bits()));
    FloatImm *n = new FloatImm;
    n->type = t;
    n->value = round_to_float_type(t, value);
    return n;
}

const StringImm *StringImm::make(const std::string &value) {
    StringImm *n = new StringImm;
    n->type = Handle();
    n->value = value;
    return n;
}

// ---------------------------------------------------------------- conversions

Expr Cast::make(Type t, Expr v) {
    check_defined(v, "Cast", "value");
    LOOM_IR_CHECK(t.defined(), "Cast", "target type is undefined");
    LOOM_IR_CHECK(t.lanes() == v.type().lanes(), "Cast",
          "lane counts differ: " + t.to_string() + " from " + v.type().to_string());
    Cast *n = new Cast;
    n->type = t;
    n->value = std::move(v);
    return n;
}

Expr Reinterpret::make(Type t, Expr v) {
    check_defined(v, "Reinterpret", "value");
    LOOM_IR_CHECK(t.defined(), "Reinterpret", "target type is undefined");
    LOOM_IR_CHECK(t.bits() * t.lanes() == v.type().bits() * v.type().lanes(), "Reinterpret",
          "total sizes differ: " + t.to_string() + " from " + v.type().to_string());
    Reinterpret *n = new Reinterpret;
    n->type = t;
    n->value = std::move(v);
    return n;
}

// ---------------------------------------------------------------- variables

Expr Variable::make(Type t, const std::string &name) {
    return make(t, name, Parameter());
}

Expr Variable::make(Type t, const std::string &name, const Parameter &param) {
    LOOM_IR_CHECK(t.defined(), "Variable", "type of " + name + " is undefined");
    LOOM_IR_CHECK(!name.empty(), "Variable", "name is empty");
    Variable *n = new Variable;
    n->type = t;
    n->name = name;
    n->param = param;
    return n;
}

Expr Variable::make(Type t, const std::string &name, const ReductionDomain &rdom) {
    LOOM_IR_CHECK(t.defined(), "Variable", "type of " + name + " is undefined");
    LOOM_IR_CHECK(!name.empty(), "Variable", "name is empty");
    Variable *n = new Variable;
    n->type = t;
    n->name = name;
    n->reduction_domain = rdom;
    return n;
}

// ---------------------------------------------------------------- arithmetic

Expr Add::make(Expr a, Expr b) { return make_binary<Add>(std::move(a), std::move(b), "Add", false); }
Expr Sub::make(Expr a, Expr b) { return make_binary<Sub>(std::move(a), std::move(b), "Sub", false); }
Expr Mul::make(Expr a, Expr b) { return make_binary<Mul>(std::move(a), std::move(b), "Mul", false); }
Expr Div::make(Expr a, Expr b) { return make_binary<Div>(std::move(a), std::move(b), "Div", false); }
Expr Mod::make(Expr a, Expr b) { return make_binary<Mod>(std::move(a), std::move(b), "Mod", false); }
Expr Min::make(Expr a, Expr b) { return make_binary<Min>(std::move(a), std::move(b), "Min", false); }
Expr Max::make(Expr a, Expr b) { return make_binary<Max>(std::move(a), std::move(b), "Max", false); }
Expr EQ::make(Expr a, Expr b) { return make_binary<EQ>(std::move(a), std::move(b), "EQ", true); }
Expr NE::make(Expr a, Expr b) { return make_binary<NE>(std::move(a), std::move(b), "NE", true); }
Expr LT::make(Expr a, Expr b) { return make_binary<LT>(std::move(a), std::move(b), "LT", true); }
Expr LE::make(Expr a, Expr b) { return make_binary<LE>(std::move(a), std::move(b), "LE", true); }
Expr GT::make(Expr a, Expr b) { return make_binary<GT>(std::move(a), std::move(b), "GT", true); }
Expr GE::make(Expr a, Expr b) { return make_binary<GE>(std::move(a), std::move(b), "GE", true); }
Expr And::make(Expr a, Expr b) { return make_logical<And>(std::move(a), std::move(b), "And"); }
Expr Or::make(Expr a, Expr b) { return make_logical<Or>(std::move(a), std::move(b), "Or"); }

Expr Not::make(Expr a) {
    check_defined(a, "Not", "a");
    LOOM_IR_CHECK(a.type().is_bool(), "Not", "operand must be boolean, not " + a.type().to_string());
    Not *n = new Not;
    n->type = a.type();
    n->a = std::move(a);
    return n;
}

Expr Select::make(Expr condition, Expr true_value, Expr false_value) {
    check_defined(condition, "Select", "condition");
    check_defined(true_value, "Select", "true_value");
    check_defined(false_value, "Select", "false_value");
    LOOM_IR_CHECK(condition.type().is_bool(), "Select", "condition must be boolean, not " + condition.type().to_string());
    LOOM_IR_CHECK(true_value.type() == false_value.type(), "Select",
          "value types differ: " + true_value.type().to_string() + " vs " + false_value.type().to_string());
    // A scalar condition may pick between whole vectors.
    LOOM_IR_CHECK(condition.type().is_scalar() || condition.type().lanes() == true_value.type().lanes(), "Select",
          "condition has " + std::to_string(condition.type().lanes()) + " lanes, values have " +
              std::to_string(true_value.type().lanes()));
    Select *n = new Select;
    n->type = true_value.type();
    n->condition = std::move(condition);
    n->true_value = std::move(true_value);
    n->false_value = std::move(false_value);
    return n;
}

// ---------------------------------------------------------------- memory

Expr Load::make(Type t, const std::string &name, Expr index, Expr predicate, const Parameter &param) {
    LOOM_IR_CHECK(t.defined(), "Load", "type is undefined");
    LOOM_IR_CHECK(!name.empty(), "Load", "name is empty");
    check_defined(index, "Load", "index");
    LOOM_IR_CHECK(index.type().is_int_or_uint(), "Load", "index of " + name + " must be an integer");
    LOOM_IR_CHECK(index.type().lanes() == t.lanes(), "Load",
          "index of " + name + " has " + std::to_string(index.type().lanes()) + " lanes, loaded type is " +
              t.to_string());
    check_optional_bool(predicate, t.lanes(), "Load", "predicate");
    Load *n = new Load;
    n->type = t;
    n->name = name;
    n->index = std::move(index);
    n->predicate = std::move(predicate);
    n->param = param;
    return n;
}

Expr Ramp::make(Expr base, Expr stride, int lanes) {
    check_defined(base, "Ramp", "base");
    check_defined(stride, "Ramp", "stride");
    LOOM_IR_CHECK(lanes > 1, "Ramp", "needs more than one lane, got " + std::to_string(lanes));
    LOOM_IR_CHECK(base.type() == stride.type(), "Ramp",
          "base and stride types differ: " + base.type().to_string() + " vs " + stride.type().to_string());
    Ramp *n = new Ramp;
    n->type = base.type().with_lanes(base.type().lanes() * lanes);
    n->base = std::move(base);
    n->stride = std::move(stride);
    n->lanes = lanes;
    return n;
}

Expr Broadcast::make(Expr value, int lanes) {
    check_defined(value, "Broadcast", "value");
    LOOM_IR_CHECK(lanes > 1, "Broadcast", "needs more than one lane, got " + std::to_string(lanes));
    Broadcast *n = new Broadcast;
    n->type = value.type().with_lanes(value.type().lanes() * lanes);
    n->value = std::move(value);
    n->lanes = lanes;
    return n;
}

// ---------------------------------------------------------------- calls

Expr Call::make(Type t, const std::string &name, const std::vector<Expr> &args, CallType call_type,
                const FunctionPtr &func, int value_index, const Parameter &param) {
    LOOM_IR_CHECK(t.defined(), "Call", "type of " + name + " is undefined");
    LOOM_IR_CHECK(!name.empty(), "Call", "name is empty");
    for (size_t i = 0; i < args.size(); i++) {
        LOOM_IR_CHECK(args[i].defined(), "Call", "argument " + std::to_string(i) + " of " + name + " is undefined");
    }
    LOOM_IR_CHECK(call_type != CallType::Image || param.defined(), "Call", "image call " + name + " has no parameter");
    LOOM_IR_CHECK(value_index >= 0, "Call", "negative value_index in call to " + name);
    Call *n = new Call;
    n->type = t;
    n->name = name;
    n->args = args;
    n->call_type = call_type;
    n->func = func;
    n->value_index = value_index;
    n->param = param;
    return n;
}

Expr Let::make(const std::string &name, Expr value, Expr body) {
    LOOM_IR_CHECK(!name.empty(), "Let", "name is empty");
    check_defined(value, "Let", "value");
    check_defined(body, "Let", "body");
    Let *n = new Let;
    n->type = body.type();
    n->name = name;
    n->value = std::move(value);
    n->body = std::move(body);
    return n;
}

Expr Shuffle::make(const std::vector<Expr> &vectors, const std::vector<int> &indices) {
    LOOM_IR_CHECK(!vectors.empty(), "Shuffle", "no vectors");
    LOOM_IR_CHECK(!indices.empty(), "Shuffle", "no indices");
    int total = 0;
    Type element = vectors[0].defined() ? vectors[0].type().element_of() : Type();
    for (const Expr &v : vectors) {
        LOOM_IR_CHECK(v.defined(), "Shuffle", "a vector is undefined");
        LOOM_IR_CHECK(v.type().element_of() == element, "Shuffle",
              "element types differ: " + v.type().to_string() + " vs " + element.to_string());
        total += v.type().lanes();
    }
    for (int i : indices) {
        LOOM_IR_CHECK(i >= 0 && i < total, "Shuffle",
              "index " + std::to_string(i) + " out of range [0, " + std::to_string(total) + ")");
    }
    Shuffle *n = new Shuffle;
    n->type = element.with_lanes((int)indices.size());
    n->vectors = vectors;
    n->indices = indices;
    return n;
}

Expr Shuffle::make_concat(const std::vector<Expr> &vectors) {
    LOOM_IR_CHECK(!vectors.empty(), "Shuffle", "concat of nothing");
    if (vectors.size() == 1) return vectors[0];
    std::vector<int> indices;
    for (const Expr &v : vectors) {
        LOOM_IR_CHECK(v.defined(), "Shuffle", "a vector is undefined");
        int start = (int)indices.size();
        for (int i = 0; i < v.type().lanes(); i++) indices.push_back(start + i);
    }
    return make(vectors, indices);
}

Expr Shuffle::make_extract_element(Expr vector, int lane) {
    check_defined(vector, "Shuffle", "vector");
    if (vector.type().is_scalar() && lane == 0) return vector;
    return make({std::move(vector)}, {lane});
}

Expr VectorReduce::make(Operator op, Expr value, int lanes) {
    check_defined(value, "VectorReduce", "value");
    LOOM_IR_CHECK(lanes >= 1 && value.type().lanes() % lanes == 0, "VectorReduce",
          "cannot reduce " + std::to_string(value.type().lanes()) + " lanes to " + std::to_string(lanes));
    if (op == And || op == Or) {
        LOOM_IR_CHECK(value.type().is_bool(), "VectorReduce", "And/Or need booleans, not " + value.type().to_string());
    }
    VectorReduce *n = new VectorReduce;
    n->type = value.type().with_lanes(lanes);
    n->op = op;
    n->value = std::move(value);
    return n;
}

// ---------------------------------------------------------------- statements

Stmt LetStmt::make(const std::string &name, Expr value, Stmt body) {
    LOOM_IR_CHECK(!name.empty(), "LetStmt", "name is empty");
    check_defined(value, "LetStmt", "value");
    check_defined(body, "LetStmt", "body");
    LetStmt *n = new LetStmt;
    n->name = name;
    n->value = std::move(value);
    n->body = std::move(body);
    return n;
}

Stmt AssertStmt::make(Expr condition, Expr message) {
    check_scalar_bool(condition, "AssertStmt", "condition");
    check_defined(message, "AssertStmt", "message");
    AssertStmt *n = new AssertStmt;
    n->condition = std::move(condition);
    n->message = std::move(message);
    return n;
}

Stmt ProducerConsumer::make(const std::string &name, bool is_producer, Stmt body) {
    LOOM_IR_CHECK(!name.empty(), "ProducerConsumer", "name is empty");
    check_defined(body, "ProducerConsumer", "body");
    ProducerConsumer *n = new ProducerConsumer;
    n->name = name;
    n->is_producer = is_producer;
    n->body = std::move(body);
    return n;
}

Stmt For::make(const std::string &name, Expr min, Expr extent, ForType for_type, DeviceAPI device_api, Stmt body) {
    LOOM_IR_CHECK(!name.empty(), "For", "name is empty");
    check_defined(min, "For", "min");
    check_defined(extent, "For", "extent");
    check_defined(body, "For", "body");
    LOOM_IR_CHECK(min.type().is_scalar() && min.type().is_int_or_uint(), "For",
          "min of loop " + name + " must be a scalar integer, not " + min.type().to_string());
    LOOM_IR_CHECK(min.type() == extent.type(), "For",
          "min and extent of loop " + name + " differ in type: " + min.type().to_string() + " vs " +
              extent.type().to_string());
    For *n = new For;
    n->name = name;
    n->min = std::move(min);
    n->extent = std::move(extent);
    n->for_type = for_type;
    n->device_api = device_api;
    n->body = std::move(body);
    return n;
}

Stmt While::make(Expr condition, Stmt body) {
    check_scalar_bool(condition, "While", "condition");
    check_defined(body, "While", "body");
    While *n = new While;
    n->condition = std::move(condition);
    n->body = std::move(body);
    return n;
}

Stmt Store::make(const std::string &name, Expr value, Expr index, Expr predicate, const Parameter &param) {
    LOOM_IR_CHECK(!name.empty(), "Store", "name is empty");
    check_defined(value, "Store", "value");
    check_defined(index, "Store", "index");
    LOOM_IR_CHECK(index.type().is_int_or_uint(), "Store", "index of " + name + " must be an integer");
    LOOM_IR_CHECK(index.type().lanes() == value.type().lanes(), "Store",
          "index of " + name + " has " + std::to_string(index.type().lanes()) + " lanes, value has " +
              std::to_string(value.type().lanes()));
    check_optional_bool(predicate, value.type().lanes(), "Store", "predicate");
    Store *n = new Store;
    n->name = name;
    n->value = std::move(value);
    n->index = std::move(index);
    n->predicate = std::move(predicate);
    n->param = param;
    return n;
}

Stmt Provide::make(const std::string &name, const std::vector<Expr> &values, const std::vector<Expr> &args,
                   Expr predicate) {
    LOOM_IR_CHECK(!name.empty(), "Provide", "name is empty");
    LOOM_IR_CHECK(!values.empty(), "Provide", "no values for " + name);
    for (const Expr &v : values) LOOM_IR_CHECK(v.defined(), "Provide", "a value of " + name + " is undefined");
    for (const Expr &a : args) LOOM_IR_CHECK(a.defined(), "Provide", "an argument of " + name + " is undefined");
    check_optional_bool(predicate, 1, "Provide", "predicate");
    Provide *n = new Provide;
    n->name = name;
    n->values = values;
    n->args = args;
    n->predicate = std::move(predicate);
    return n;
}

Stmt Allocate::make(const std::string &name, Type type, MemoryType memory_type, const std::vector<Expr> &extents,
                    Expr condition, Stmt body) {
    LOOM_IR_CHECK(!name.empty(), "Allocate", "name is empty");
    LOOM_IR_CHECK(type.defined(), "Allocate", "type of " + name + " is undefined");
    check_defined(body, "Allocate", "body");
    for (const Expr &e : extents) {
        LOOM_IR_CHECK(e.defined(), "Allocate", "an extent of " + name + " is undefined");
        LOOM_IR_CHECK(e.type().is_scalar() && e.type().is_int_or_uint(), "Allocate",
              "extents of " + name + " must be scalar integers, not " + e.type().to_string());
    }
    check_optional_bool(condition, 1, "Allocate", "condition");
    Allocate *n = new Allocate;
    n->name = name;
    n->type = type;
    n->memory_type = memory_type;
    n->extents = extents;
    n->condition = std::move(condition);
    n->body = std::move(body);
    return n;
}

Stmt Free::make(const std::string &name) {
    LOOM_IR_CHECK(!name.empty(), "Free", "name is empty");
    Free *n = new Free;
    n->name = name;
    return n;
}

Stmt Realize::make(const std::string &name, const std::vector<Type> &types, MemoryType memory_type,
                   const Region &bounds, Expr condition, Stmt body) {
    LOOM_IR_CHECK(!name.empty(), "Realize", "name is empty");
    LOOM_IR_CHECK(!types.empty(), "Realize", "no types for " + name);
    for (const Type &t : types) LOOM_IR_CHECK(t.defined(), "Realize", "a type of " + name + " is undefined");
    for (const Range &r : bounds) {
        LOOM_IR_CHECK(r.min.defined() && r.extent.defined(), "Realize", "a bound of " + name + " is undefined");
        LOOM_IR_CHECK(r.min.type().is_scalar() && r.extent.type().is_scalar(), "Realize",
              "bounds of " + name + " must be scalars");
    }
    check_optional_bool(condition, 1, "Realize", "condition");
    check_defined(body, "Realize", "body");
    Realize *n = new Realize;
    n->name = name;
    n->types = types;
    n->memory_type = memory_type;
    n->bounds = bounds;
    n->condition = std::move(condition);
    n->body = std::move(body);
    return n;
}

Stmt Block::make(Stmt first, Stmt rest) {
    check_defined(first, "Block", "first");
    check_defined(rest, "Block", "rest");
    Block *n = new Block;
    n->first = std::move(first);
    n->rest = std::move(rest);
    return n;
}

Stmt Fork::make(Stmt first, Stmt rest) {
    check_defined(first, "Fork", "first");
    check_defined(rest, "Fork", "rest");
    Fork *n = new Fork;
    n->first = std::move(first);
    n->rest = std::move(rest);
    return n;
}

Stmt Block::make(const std::vector<Stmt> &stmts) {
    // Built back to front so the chain nests to the right: a; (b; c).
    Stmt result;
    for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) {
        if (!it->defined()) continue;
        result = result.defined() ? make(*it, result) : *it;
    }
    return result;
}

Stmt IfThenElse::make(Expr condition, Stmt then_case, Stmt else_case) {
    check_scalar_bool(condition, "IfThenElse", "condition");
    check_defined(then_case, "IfThenElse", "then_case");
    IfThenElse *n = new IfThenElse;
    n->condition = std::move(condition);
    n->then_case = std::move(then_case);
    n->else_case = std::move(else_case);
    return n;
}

Stmt Evaluate::make(Expr value) {
    check_defined(value, "Evaluate", "value");
    Evaluate *n = new Evaluate;
    n->value = std::move(value);
    return n;
}

}  // namespace internal
}  // namespace loom
