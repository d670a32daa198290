// Generator: members find their generator by address, the registry of
// generator classes, and building/compiling a generator's pipeline.

#include "loom/Generator.h"

#include "autoschedule/GeneratorAutoschedule.h"

#include <cctype>
#include <algorithm>
#include <cxxabi.h>
#include <mutex>
#include <set>

namespace loom {

namespace {

std::string join(const std::vector<std::string> &items) {
    std::string s;
    for (size_t i = 0; i < items.size(); i++) s += (i ? ", " : "") + items[i];
    return s;
}

std::string type_list(const std::vector<Type> &types) {
    std::vector<std::string> names;
    for (const Type &t : types) names.push_back(t.to_string());
    return types.size() == 1 ? names[0] : "Tuple {" + join(names) + "}";
}

// ---- Which generator a member belongs to -------------------------------------
//
// A Generator's constructor runs before its members are constructed; it records
// the address range of the whole object, and each member's constructor looks
// up the range holding its own address. Ranges are dropped when the generator
// is destroyed, so the table holds live generators only.

struct LiveGenerator {
    GeneratorBase *generator;
    const char *begin;
    const char *end;
};

std::mutex &live_mutex() {
    static std::mutex m;
    return m;
}

std::vector<LiveGenerator> &live_generators() {
    static std::vector<LiveGenerator> v;
    return v;
}

// ---- Registry -------------------------------------------------------------------

struct RegistryEntry {
    const std::type_info *type;
    GeneratorRegistry::Factory factory;
    std::string stub_name;  // HALIDE_REGISTER_GENERATOR's third argument, or ""
};

struct Registry {
    std::map<std::string, RegistryEntry> entries;
    std::set<std::string> registered_twice;
};

Registry &registry() {
    static Registry r;
    return r;
}

std::string demangled_name(const std::type_info &type) {
    int status = 0;
    char *s = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
    std::string name = (status == 0 && s) ? s : type.name();
    std::free(s);
    return name;
}

std::string generator_prefix(const std::string &name) { return "Generator '" + name + "': "; }

}  // namespace

namespace internal {

GeneratorBase *owner_of_generator_member(const void *member) {
    const char *p = static_cast<const char *>(member);
    std::lock_guard<std::mutex> lock(live_mutex());
    GeneratorBase *best = nullptr;
    size_t best_size = 0;
    for (const LiveGenerator &g : live_generators()) {
        size_t size = size_t(g.end - g.begin);
        if (p >= g.begin && p < g.end && (!best || size < best_size)) {
            best = g.generator;
            best_size = size;
        }
    }
    return best;
}

namespace {
// The generator whose configure() is running add_input/add_output: their
// members live on the heap, outside the generator's object.
thread_local GeneratorBase *adding_member_to = nullptr;

GeneratorBase *owner_or_throw(const void *member, const std::string &what) {
    GeneratorBase *owner = adding_member_to ? adding_member_to : owner_of_generator_member(member);
    if (!owner) {
        throw CompileError(what + " can only be a member of a class derived from loom::Generator<T>.");
    }
    return owner;
}
}  // namespace

GeneratorParamBase::GeneratorParamBase(const std::string &name)
    : name_(name), owner_(owner_or_throw(this, "GeneratorParam '" + name + "'")) {
    owner_->params_.push_back(this);
}

std::string GeneratorParamBase::describe() const {
    return "Generator '" + owner_->name() + "': GeneratorParam '" + name_ + "'";
}

void GeneratorParamBase::check_settable() const {
    if (owner_->built_) {
        throw CompileError(describe() + " can't be changed after the pipeline was built (generate() has run).");
    }
}

void GeneratorParamBase::set_from_string(const std::string &text) {
    check_settable();
    parse_and_set(describe(), text);
}

GeneratorMemberOwnerScope::GeneratorMemberOwnerScope(GeneratorBase *g) : previous_(adding_member_to) {
    adding_member_to = g;
}

GeneratorMemberOwnerScope::~GeneratorMemberOwnerScope() { adding_member_to = previous_; }

GeneratorInputBase::GeneratorInputBase() : owner_(owner_or_throw(this, "An Input")) {
    owner_->inputs_.push_back(this);
}

GeneratorOutputBase::GeneratorOutputBase(std::vector<Type> types, int dimensions)
    : owner_(owner_or_throw(this, "An Output")) {
    shape_.types = std::move(types);
    shape_.types_fixed = !shape_.types.empty();
    shape_.dimensions = dimensions;
    shape_.dimensions_fixed = dimensions >= 0;
    owner_->outputs_.push_back(this);
}

}  // namespace internal

// ---- GeneratorBase -------------------------------------------------------------

GeneratorBase::GeneratorBase(const std::type_info &type, size_t size) {
    name_ = GeneratorRegistry::name_of(type);
    if (name_.empty()) name_ = demangled_name(type);
    const char *begin = reinterpret_cast<const char *>(this);
    std::lock_guard<std::mutex> lock(live_mutex());
    live_generators().push_back({this, begin, begin + size});
}

GeneratorBase::~GeneratorBase() {
    std::lock_guard<std::mutex> lock(live_mutex());
    auto &v = live_generators();
    v.erase(std::remove_if(v.begin(), v.end(), [this](const LiveGenerator &g) { return g.generator == this; }),
            v.end());
}

Target GeneratorBase::get_target() const { return target_ ? *target_ : get_target_from_environment(); }

void GeneratorBase::set_target(const Target &target) {
    if (built_) {
        throw CompileError(generator_prefix(name_) + "the target can't be changed after the pipeline was built.");
    }
    target_ = std::make_unique<Target>(target);
}

void GeneratorBase::set_generator_param(const std::string &name, const std::string &value) {
    if (name == "target") {
        try {
            set_target(Target(value));
        } catch (const CompileError &e) {
            rethrow_with_name(e);
        }
        return;
    }
    for (internal::GeneratorParamBase *p : params_) {
        if (p->name() == name) {
            p->set_from_string(value);
            return;
        }
    }
    if (set_shape_param(name, value)) return;
    // Halide's built-in autoscheduler params (src/autoschedule/GeneratorAutoschedule.h).
    if (name == "autoscheduler" || name.rfind("autoscheduler.", 0) == 0 || name == "auto_schedule" ||
        name == "machine_params") {
        if (built_) {
            throw CompileError(generator_prefix(name_) + "'" + name + "' can't be changed after the pipeline was built.");
        }
        internal::set_autoscheduler_generator_param(autoscheduling_, generator_prefix(name_), name, value);
        return;
    }
    std::vector<std::string> names;
    for (internal::GeneratorParamBase *p : params_) names.push_back(p->name());
    names.push_back("target");
    for (const std::string &n : shape_params()) names.push_back(n);
    throw CompileError(generator_prefix(name_) + "there is no GeneratorParam '" + name +
                       "'; its GeneratorParams are " + join(names) + ".");
}

void GeneratorBase::set_generator_param_values(const std::map<std::string, std::string> &values) {
    for (const auto &[name, value] : values) set_generator_param(name, value);
}

std::vector<std::string> GeneratorBase::shape_params() const {
    std::vector<std::string> names;
    for (const internal::GeneratorInputBase *in : inputs_) {
        for (const std::string &n : in->open_shape_params()) names.push_back(n);
    }
    for (const internal::GeneratorOutputBase *out : outputs_) {
        for (const std::string &n : out->open_shape_params()) names.push_back(n);
    }
    return names;
}

bool GeneratorBase::set_shape_param(const std::string &name, const std::string &value) {
    size_t dot = name.rfind('.');
    if (dot == std::string::npos) return false;
    std::string member = name.substr(0, dot), key = name.substr(dot + 1);
    for (internal::GeneratorInputBase *in : inputs_) {
        if (in->member_name() != member) continue;
        if (built_) throw CompileError(generator_prefix(name_) + "'" + name + "' can't be changed after the pipeline was built.");
        if (in->set_shape_param(key, value)) return true;
        throw CompileError(generator_prefix(name_) + "Input '" + member + "' has no '" + key +
                           "' to set; Input<Func> and Input arrays take " + member + ".type, " + member + ".dim" +
                           " and (arrays declared with []) " + member + ".size.");
    }
    for (internal::GeneratorOutputBase *out : outputs_) {
        if (out->member_name() != member) continue;
        if (built_) throw CompileError(generator_prefix(name_) + "'" + name + "' can't be changed after the pipeline was built.");
        if (out->set_shape_param(key, value)) return true;
        throw CompileError(generator_prefix(name_) + "Output '" + member + "' has no '" + key + "' to set; Outputs take " +
                           member + ".type, " + member + ".dim and (arrays declared with []) " + member + ".size.");
    }
    return false;
}

void GeneratorBase::check_configuring(const char *what, const std::string &name) const {
    if (!configuring_) {
        throw CompileError(generator_prefix(name_) + std::string(what) + "(\"" + name +
                           "\") can only be called in configure().");
    }
}

std::vector<GeneratorParamInfo> GeneratorBase::generator_params() const {
    std::vector<GeneratorParamInfo> info;
    for (const internal::GeneratorParamBase *p : params_) {
        info.push_back({p->name(), p->type_description(), p->default_string(), p->value_string()});
    }
    return info;
}

std::vector<Argument> GeneratorBase::input_arguments() const {
    std::vector<Argument> args;
    for (const internal::GeneratorInputBase *in : inputs_) {
        for (const Argument &a : in->arguments()) args.push_back(a);
    }
    return args;
}

std::vector<Argument> GeneratorBase::arguments() const {
    std::vector<Argument> args = input_arguments();
    for (const internal::GeneratorOutputBase *out : outputs_) {
        for (const Func &f : out->funcs()) {
            std::vector<Type> types = f.defined() ? f.output_types() : out->declared_types();
            if (types.empty()) types.push_back(Type());  // Output<Buffer<>> not yet defined: type unknown
            int dimensions = out->declared_dimensions();
            if (dimensions < 0 && f.defined()) dimensions = f.dimensions();
            for (size_t i = 0; i < types.size(); i++) {
                Argument a;
                a.name = types.size() == 1 ? f.name() : f.name() + "." + std::to_string(i);
                a.kind = Argument::OutputBuffer;
                a.type = types[i];
                a.dimensions = dimensions;
                args.push_back(a);
            }
        }
    }
    return args;
}

void GeneratorBase::rethrow_with_name(const CompileError &e) const {
    std::string message = e.what();
    std::string prefix = generator_prefix(name_);
    if (message.compare(0, prefix.size(), prefix) == 0) throw e;
    throw CompileError(prefix + message);
}

void GeneratorBase::check_members() const {
    if (outputs_.empty()) {
        throw CompileError(generator_prefix(name_) + "it declares no Output; add at least one Output<Buffer<T>>.");
    }
    std::map<std::string, std::string> seen;  // name -> what it names
    auto claim = [&](const std::string &name, const std::string &what) {
        auto [it, inserted] = seen.emplace(name, what);
        if (!inserted) {
            throw CompileError(generator_prefix(name_) + "the name '" + name + "' is used by " + it->second +
                               " and by " + what + "; give them distinct names.");
        }
    };
    claim("target", "the built-in GeneratorParam 'target'");
    for (const internal::GeneratorParamBase *p : params_) claim(p->name(), "a GeneratorParam");
    for (const internal::GeneratorInputBase *in : inputs_) {
        claim(in->member_name(), "an Input");
        for (const Argument &a : in->arguments()) {
            if (a.name != in->member_name()) claim(a.name, "an element of Input '" + in->member_name() + "'");
        }
    }
    for (const internal::GeneratorOutputBase *out : outputs_) {
        claim(out->member_name(), "an Output");
        for (const Func &f : out->funcs()) {
            if (f.name() != out->member_name()) claim(f.name(), "an element of Output '" + out->member_name() + "'");
        }
    }
}

void GeneratorBase::check_outputs() const {
    for (const internal::GeneratorOutputBase *out : outputs_) {
        if (out->array_size_open()) {
            const std::string &n = out->member_name();
            throw CompileError(generator_prefix(name_) + "Output array '" + n + "' has no size; set " + n +
                               ".size=N on the command line or call " + n + ".resize(n) in configure() or generate().");
        }
        for (const Func &f : out->funcs()) check_output(out, f);
    }
}

void GeneratorBase::check_output(const internal::GeneratorOutputBase *out, const Func &f) const {
    {
        std::string what = generator_prefix(name_) + "Output '" + f.name() + "'";
        if (f.name() != out->member_name()) what += " (of the array '" + out->member_name() + "')";
        if (!f.defined()) {
            static const char *example_args[] = {"", "x", "x, y", "x, y, c"};
            int d = out->declared_dimensions();
            std::string args = d < 0 ? "x, ..." : d < 4 ? example_args[d] : "x, y, c, ...";
            throw CompileError(what + " is not defined; generate() must define it (e.g. " + f.name() + "(" + args +
                               ") = ...).");
        }
        if (out->declared_dimensions() >= 0 && f.dimensions() != out->declared_dimensions()) {
            throw CompileError(what + " is declared with " + std::to_string(out->declared_dimensions()) +
                               " dimensions, but generate() defines it with " + std::to_string(f.dimensions()) + ".");
        }
        const std::vector<Type> &declared = out->declared_types();
        if (!declared.empty() && f.output_types() != declared) {
            throw CompileError(what + " is declared as " + type_list(declared) + ", but generate() defines it as " +
                               type_list(f.output_types()) + "; cast the value or change the declaration.");
        }
    }
}

Pipeline GeneratorBase::build_pipeline() {
    if (built_) return pipeline_;
    // generate() may have defined some Funcs before it failed; running it
    // again would report redefinitions instead of the real mistake.
    if (!build_error_.empty()) throw CompileError(build_error_);
    try {
        try {
            configuring_ = true;
            call_configure();
            configuring_ = false;
        } catch (const CompileError &e) {
            configuring_ = false;
            rethrow_with_name(e);
        }
        for (internal::GeneratorInputBase *in : inputs_) in->finalize();
        check_members();
        try {
            call_generate();
            call_schedule();
        } catch (const CompileError &e) {
            rethrow_with_name(e);
        }
        check_outputs();
    } catch (const CompileError &e) {
        build_error_ = e.what();
        throw;
    }
    std::vector<Func> funcs;
    for (const internal::GeneratorOutputBase *out : outputs_) {
        for (const Func &f : out->funcs()) funcs.push_back(f);
    }
    Pipeline pipeline(funcs);
    if (internal::wants_autoscheduler(autoscheduling_.get())) {
        try {
            internal::run_generator_autoscheduler(*autoscheduling_, pipeline, get_target());
        } catch (const CompileError &e) {
            const std::string prefix = generator_prefix(name_), message = e.what();
            build_error_ = message.compare(0, prefix.size(), prefix) == 0 ? message : prefix + message;
            throw CompileError(build_error_);
        }
    }
    pipeline_ = pipeline;
    built_ = true;
    return pipeline_;
}

Realization GeneratorBase::realize(const std::vector<int> &sizes) {
    Pipeline p = build_pipeline();
    try {
        return p.realize(sizes);
    } catch (const CompileError &e) {
        rethrow_with_name(e);
    }
}

void GeneratorBase::realize(Realization &outputs) {
    Pipeline p = build_pipeline();
    try {
        p.realize(outputs);
    } catch (const CompileError &e) {
        rethrow_with_name(e);
    }
}

// ---- GeneratorRegistry --------------------------------------------------------------

void GeneratorRegistry::register_factory(const std::string &name, const std::type_info &type, Factory factory,
                                         const std::string &stub_name) {
    Registry &r = registry();
    if (!r.entries.emplace(name, RegistryEntry{&type, std::move(factory), stub_name}).second) {
        r.registered_twice.insert(name);
    }
}

std::string GeneratorRegistry::stub_name_of(const std::string &name) {
    auto it = registry().entries.find(name);
    if (it == registry().entries.end()) create(name);  // throws the message listing the registered ones
    std::string stub = it->second.stub_name;
    if (stub.empty()) return "loom_stub::" + name;
    if (stub.rfind("::", 0) == 0) stub = stub.substr(2);  // ::ns::Name is ns::Name
    // A qualified C++ class name: identifiers joined by "::".
    bool valid = !stub.empty();
    size_t start = 0;
    while (valid && start <= stub.size()) {
        size_t end = stub.find("::", start);
        const std::string part = stub.substr(start, end == std::string::npos ? std::string::npos : end - start);
        valid = !part.empty() && !std::isdigit((unsigned char)part[0]);
        for (char c : part) valid = valid && (std::isalnum((unsigned char)c) || c == '_');
        if (end == std::string::npos) break;
        start = end + 2;
    }
    if (!valid) {
        throw CompileError("Generator '" + name + "': the stub name '" + stub +
                           "' is not a C++ class name (write it as ns::Name).");
    }
    return stub;
}

std::vector<std::string> GeneratorRegistry::enumerate() {
    std::vector<std::string> names;
    for (const auto &[name, entry] : registry().entries) names.push_back(name);
    return names;
}

std::unique_ptr<GeneratorBase> GeneratorRegistry::create(const std::string &name) {
    Registry &r = registry();
    auto it = r.entries.find(name);
    if (it == r.entries.end()) {
        std::vector<std::string> names = enumerate();
        throw CompileError("There is no generator named '" + name + "'; " +
                           (names.empty() ? std::string("no generator is registered in this program.")
                                          : "the registered generators are " + join(names) + "."));
    }
    if (r.registered_twice.count(name)) {
        throw CompileError("Two generators are registered under the name '" + name +
                           "'; give each LOOM_REGISTER_GENERATOR its own name.");
    }
    std::unique_ptr<GeneratorBase> g = it->second.factory();
    g->name_ = name;
    return g;
}

std::string GeneratorRegistry::name_of(const std::type_info &type) {
    for (const auto &[name, entry] : registry().entries) {
        if (*entry.type == type) return name;
    }
    return "";
}

}  // namespace loom
