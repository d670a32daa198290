// The text of the generator driver's cpp_stub emit (NAME.stub.h): a class
// with Inputs, GeneratorParams and Outputs structs and a static generate()
// that calls build_generator_stub (loom/GeneratorStub.h). Written from the
// generator's declared members, without building it.

#include <map>
#include <set>

#include "lang/GeneratorDriver.h"
#include "loom/Error.h"
#include "loom/Generator.h"

namespace loom {
namespace internal {

namespace {

/** The C++ type and default value of a GeneratorParam in the stub. */
struct StubParam {
    std::string type, value;
};

std::string quoted(const std::string &s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        q += c;
    }
    return q + "\"";
}

/** "int16" -> "loom::Int(16)", for a Type GeneratorParam's default. */
std::string type_expression(const std::string &name) {
    if (name == "bool") return "loom::Bool()";
    static const std::vector<std::pair<std::string, std::string>> prefixes = {
        {"uint", "loom::UInt("}, {"int", "loom::Int("}, {"float", "loom::Float("}};
    for (const auto &[prefix, make] : prefixes) {
        if (name.rfind(prefix, 0) == 0) return make + name.substr(prefix.size()) + ")";
    }
    throw InternalError("cpp_stub: a Type GeneratorParam with the value '" + name + "'");
}

StubParam stub_param(const GeneratorParamInfo &p) {
    static const std::map<std::string, std::string> numbers = {
        {"int8", "int8_t"},   {"int16", "int16_t"},   {"int32", "int32_t"},   {"int64", "int64_t"},
        {"uint8", "uint8_t"}, {"uint16", "uint16_t"}, {"uint32", "uint32_t"}, {"uint64", "uint64_t"},
        {"float32", "float"}, {"float64", "double"},  {"bool", "bool"}};
    auto n = numbers.find(p.type);
    if (n != numbers.end()) return {n->second, p.default_value};
    if (p.type == "string" || p.type.rfind("enum", 0) == 0) return {"std::string", quoted(p.default_value)};
    if (p.type == "Type") return {"loom::Type", type_expression(p.default_value)};
    if (p.type == "LoopLevel") {
        if (p.default_value == "root") return {"loom::LoopLevel", "loom::LoopLevel::root()"};
        if (p.default_value == "inlined") return {"loom::LoopLevel", "loom::LoopLevel::inlined()"};
        return {"loom::LoopLevel", ""};  // undefined: the generator's own default
    }
    throw InternalError("cpp_stub: a GeneratorParam of type '" + p.type + "'");
}

struct StubMember {
    std::string name;
    bool is_array = false;
    bool is_buffer = false;
    bool takes_buffer = false;  // Input<Buffer<>> or each element of Input<Buffer<>[]>: a Func or a Buffer
    std::string comment;
};

std::string describe_argument(const Argument &a) {
    std::string type = a.type.defined() ? a.type.to_string() : "any type";
    if (!a.is_buffer()) return type;
    return type + ", " + (a.dimensions < 0 ? std::string("any number of") : std::to_string(a.dimensions)) +
           " dimensions";
}

std::vector<StubMember> input_members(const GeneratorBase &g) {
    const std::vector<std::string> open_list = g.shape_params();
    const std::set<std::string> open(open_list.begin(), open_list.end());
    std::vector<StubMember> members;
    for (GeneratorInputBase *in : g.input_members()) {
        StubMember m;
        m.name = in->member_name();
        std::vector<Argument> args;
        try {
            args = in->arguments();
        } catch (const CompileError &) {
            // an array of open size has no arguments yet
        }
        m.is_array = open.count(m.name + ".size") || !(args.size() == 1 && args[0].name == m.name);
        m.is_buffer = args.empty() ? dynamic_cast<GeneratorImageInputs *>(in) != nullptr : args[0].is_buffer();
        // As Halide's stubs: Input<Buffer<>> and the elements of Input<Buffer<>[]>
        // take a Func or a Buffer; Input<Func> and Input<Func[]> take Funcs.
        const auto *images = dynamic_cast<const GeneratorImageInputs *>(in);
        m.takes_buffer = images ? images->stub_takes_buffers() : dynamic_cast<const ImageParam *>(in) != nullptr;
        m.comment = args.empty() ? (m.is_buffer ? "buffer" : "scalar") : describe_argument(args[0]);
        if (m.is_array) m.comment += open.count(m.name + ".size") ? ", any number of them" : ", " + std::to_string(args.size()) + " of them";
        members.push_back(m);
    }
    return members;
}

std::vector<StubMember> output_members(const GeneratorBase &g) {
    std::vector<StubMember> members;
    for (GeneratorOutputBase *out : g.output_members()) {
        StubMember m;
        m.is_array = dynamic_cast<GeneratorFuncOutputs *>(out) != nullptr;
        m.name = out->member_name();
        members.push_back(m);
    }
    return members;
}

/** A fresh instance of g's generator with g's target and GeneratorParams,
 * whose configure() has run, so that the Inputs and Outputs it adds are
 * among its members. Building runs configure() first; the rest of the
 * build may fail here (an Input whose type comes from the caller, say)
 * without changing the members, and the caller reports any error later,
 * when the stub builds the generator with its own values. */
std::unique_ptr<GeneratorBase> configured_instance(const GeneratorBase &g) {
    std::unique_ptr<GeneratorBase> fresh = GeneratorRegistry::create(g.name());
    fresh->set_target(g.get_target());
    for (const GeneratorParamInfo &p : g.generator_params()) {
        if (p.value != p.default_value) fresh->set_generator_param(p.name, p.value);
    }
    try {
        fresh->build_pipeline();
    } catch (const CompileError &) {
        // see above
    }
    return fresh;
}

}  // namespace

std::string cpp_stub_text(const GeneratorBase &declared, const std::string &stub_name) {
    std::unique_ptr<GeneratorBase> configured = configured_instance(declared);
    const GeneratorBase &g = *configured;
    // stub_name: "ns1::ns2::Name" or "Name"
    std::vector<std::string> namespaces;
    std::string class_name = stub_name;
    for (size_t p; (p = class_name.find("::")) != std::string::npos;) {
        namespaces.push_back(class_name.substr(0, p));
        class_name = class_name.substr(p + 2);
    }
    std::string guard = "LOOM_STUB_";
    for (char c : stub_name) guard += std::isalnum((unsigned char)c) ? char(std::toupper((unsigned char)c)) : '_';
    guard += "_H";

    const std::vector<StubMember> inputs = input_members(g);
    const std::vector<StubMember> outputs = output_members(g);
    std::string t = "// " + g.name() + ".stub.h, written by the Loom generator driver: generator '" + g.name() +
                    "' as a C++\n// function of Funcs and Exprs (loom/GeneratorStub.h, docs/GENERATORS.md). Link the\n"
                    "// generator's source (its LOOM_REGISTER_GENERATOR) into the program that uses it.\n";
    t += "#ifndef " + guard + "\n#define " + guard + "\n\n";
    t += "#include <cstdint>\n#include <string>\n#include <utility>\n#include <vector>\n\n"
         "#include \"loom/Func.h\"\n#include \"loom/GeneratorStub.h\"\n#include \"loom/Pipeline.h\"\n\n";
    for (const std::string &ns : namespaces) t += "namespace " + ns + " {\n";
    if (!namespaces.empty()) t += "\n";
    t += "class " + class_name + " {\npublic:\n";

    t += "    struct Inputs {\n";
    for (const StubMember &m : inputs) {
        const std::string type = m.takes_buffer ? (m.is_array ? "loom::internal::StubInputBuffers"
                                                              : "loom::internal::StubInputBuffer")
                                 : m.is_buffer  ? "loom::Func"
                                                : "loom::Expr";
        t += "        " + (m.is_array && !m.takes_buffer ? "std::vector<" + type + ">" : type) + " " + m.name +
             ";  // " + m.comment + "\n";
    }
    t += "    };\n\n";

    t += "    struct GeneratorParams {\n";
    std::vector<GeneratorParamInfo> params = g.generator_params();
    for (GeneratorParamInfo p : params) {
        // The stub's defaults are the values it is written for: with them,
        // configure() adds the members the stub has.
        if (!p.value.empty()) p.default_value = p.value;
        const StubParam s = stub_param(p);
        t += "        " + s.type + " " + p.name + (s.value.empty() ? "" : "{" + s.value + "}") + ";  // " + p.type +
             "\n";
    }
    t += "    };\n\n";

    t += "    struct Outputs {\n";
    for (const StubMember &m : outputs) {
        t += "        " + std::string(m.is_array ? "std::vector<loom::Func>" : "loom::Func") + " " + m.name + ";\n";
    }
    t += "        /** The Outputs as one Pipeline, to realize or compile on their own. */\n"
         "        loom::Pipeline get_pipeline() const {\n"
         "            std::vector<loom::Func> all;\n";
    for (const StubMember &m : outputs) {
        t += m.is_array ? "            all.insert(all.end(), " + m.name + ".begin(), " + m.name + ".end());\n"
                        : "            all.push_back(" + m.name + ");\n";
    }
    t += "            return loom::Pipeline(all);\n        }\n"
         "        /** JIT: computes the Outputs over sizes (one buffer per Output and Tuple element). */\n"
         "        loom::Realization realize(const std::vector<int> &sizes) const { return get_pipeline().realize(sizes); }\n"
         "    };\n\n";

    t += "    static Outputs generate(const loom::GeneratorContext &context, const Inputs &inputs) {\n"
         "        return generate(context, inputs, GeneratorParams());\n"
         "    }\n\n"
         "    static Outputs generate(const loom::GeneratorContext &context, const Inputs &inputs,\n"
         "                            const GeneratorParams &generator_params) {\n"
         "        std::vector<std::pair<std::string, std::string>> params;\n"
         "        (void)generator_params;\n";
    for (const GeneratorParamInfo &p : params) {
        const std::string add = "params.emplace_back(" + quoted(p.name) +
                                ", loom::internal::stub_param_text(generator_params." + p.name + "));\n";
        if (p.type == "LoopLevel") {
            t += "        if (generator_params." + p.name + ".defined()) " + add;
        } else {
            t += "        " + add;
        }
    }
    t += "        std::vector<std::vector<loom::Func>> out = loom::internal::build_generator_stub(\n"
         "            " + quoted(g.name()) + ", context, params, {\n";
    for (const StubMember &m : inputs) {
        t += "                loom::internal::StubInput(" + quoted(m.name) + ", inputs." + m.name + "),\n";
    }
    t += "            }, {";
    for (size_t i = 0; i < outputs.size(); i++) t += (i ? ", " : "") + quoted(outputs[i].name);
    t += "});\n        Outputs outputs;\n";
    for (size_t i = 0; i < outputs.size(); i++) {
        t += "        outputs." + outputs[i].name + " = " +
             (outputs[i].is_array ? "out[" + std::to_string(i) + "]" : "out[" + std::to_string(i) + "][0]") + ";\n";
    }
    t += "        return outputs;\n    }\n};\n";
    if (!namespaces.empty()) t += "\n";
    for (auto it = namespaces.rbegin(); it != namespaces.rend(); ++it) t += "}  // namespace " + *it + "\n";
    t += "\n#endif\n";
    return t;
}

}  // namespace internal
}  // namespace loom
