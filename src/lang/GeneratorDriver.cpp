// The generator driver: command-line parsing, listing, and running one
// generator to files. See GeneratorDriver.h and docs/GENERATORS.md.

#include "lang/GeneratorDriver.h"

#include <exception>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "loom/Generator.h"

namespace loom {
namespace internal {

namespace {

struct EmitKind {
    const char *name;
    const char *extension;
    OutputFileType type;
};

// The driver's -e names and the extensions of the files they write.
const std::vector<EmitKind> &emit_kinds() {
    static const std::vector<EmitKind> kinds = {
        {"static_library", ".a", OutputFileType::static_library},
        {"h", ".h", OutputFileType::c_header},
        {"o", ".o", OutputFileType::object},
        {"assembly", ".s", OutputFileType::assembly},
        {"llvm_assembly", ".ll", OutputFileType::llvm_assembly},
        {"stmt", ".stmt", OutputFileType::stmt},
    };
    return kinds;
}

const EmitKind &emit_kind(OutputFileType type) {
    for (const EmitKind &k : emit_kinds()) {
        if (k.type == type) return k;
    }
    throw InternalError("generator driver: an OutputFileType without a name");
}

std::string join(const std::vector<std::string> &items, const std::string &sep = ", ") {
    std::string s;
    for (size_t i = 0; i < items.size(); i++) s += (i ? sep : "") + items[i];
    return s;
}

std::vector<OutputFileType> parse_emit_list(const std::string &list) {
    std::vector<OutputFileType> types;
    std::stringstream ss(list);
    std::string item;
    std::vector<std::string> valid;
    for (const EmitKind &k : emit_kinds()) valid.push_back(k.name);
    while (std::getline(ss, item, ',')) {
        const EmitKind *found = nullptr;
        for (const EmitKind &k : emit_kinds()) {
            if (item == k.name) found = &k;
        }
        if (!found) {
            throw CompileError("-e: unknown output kind '" + item + "'; valid kinds are " + join(valid) + ".");
        }
        if (std::find(types.begin(), types.end(), found->type) == types.end()) types.push_back(found->type);
    }
    if (types.empty()) throw CompileError("-e needs at least one output kind, e.g. -e static_library,h.");
    return types;
}

void list_generators(std::ostream &out) {
    std::vector<std::string> names = GeneratorRegistry::enumerate();
    if (names.empty()) {
        out << "No generators are registered in this program.\n";
        return;
    }
    out << "Generators:\n";
    for (const std::string &name : names) {
        std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create(name);
        out << "  " << name << "\n";
        for (const GeneratorParamInfo &p : g->generator_params()) {
            out << "    " << p.name << "=" << p.default_value << "  (" << p.type << ")\n";
        }
        out << "    target=" << g->get_target().to_string() << "  (Target)\n";
        std::vector<std::string> args;
        for (const Argument &a : g->arguments()) {
            std::string type = a.type.defined() ? a.type.to_string() : "any type";
            if (a.is_buffer()) type += " buffer, " + std::to_string(a.dimensions) + "-D";
            args.push_back(a.name + " (" + (a.is_input() ? "" : "output ") + type + ")");
        }
        out << "    function arguments: " << join(args) << "\n";
    }
}

std::unique_ptr<GeneratorBase> choose_generator(const GeneratorCommand &command, std::ostream &err) {
    if (!command.generator.empty()) return GeneratorRegistry::create(command.generator);
    std::vector<std::string> names = GeneratorRegistry::enumerate();
    if (names.size() == 1) return GeneratorRegistry::create(names[0]);
    if (names.empty()) throw CompileError("No generator is registered in this program (LOOM_REGISTER_GENERATOR).");
    list_generators(err);
    throw CompileError("Several generators are registered; choose one with -g NAME.");
}

bool is_c_identifier(const std::string &s) {
    if (s.empty() || std::isdigit((unsigned char)s[0])) return false;
    for (char c : s) {
        if (!std::isalnum((unsigned char)c) && c != '_') return false;
    }
    return true;
}

void generate(const GeneratorCommand &command, std::ostream &err) {
    std::unique_ptr<GeneratorBase> g = choose_generator(command, err);
    if (!command.target.empty()) g->set_generator_param("target", command.target);
    for (const auto &[name, value] : command.params) g->set_generator_param(name, value);

    std::string function_name = command.function_name.empty() ? g->name() : command.function_name;
    if (!is_c_identifier(function_name)) {
        throw CompileError("-f: '" + function_name + "' is not a C identifier; the function name must be one.");
    }
    std::string base = command.file_base_name.empty() ? function_name : command.file_base_name;
    std::error_code ec;
    std::filesystem::create_directories(command.output_dir, ec);
    if (ec) throw CompileError("-o: can't create the directory '" + command.output_dir + "': " + ec.message());

    std::map<OutputFileType, std::string> files;
    for (OutputFileType type : command.emit) {
        files[type] = (std::filesystem::path(command.output_dir) / (base + emit_kind(type).extension)).string();
    }
    g->compile_to(files, function_name);
}

}  // namespace

std::string generator_usage(const std::string &program) {
    std::vector<std::string> kinds;
    for (const EmitKind &k : emit_kinds()) kinds.push_back(k.name);
    return "Usage: " + program +
           " -g NAME -o DIR [-e KINDS] [-f FUNCTION_NAME] [-n FILE_BASE_NAME] [target=TARGET] [param=value ...]\n"
           "       " + program + " -l\n"
           "  -g NAME            the generator to run (may be left out when only one is registered)\n"
           "  -o DIR             where to write the files (created if missing)\n"
           "  -e KINDS           comma-separated, of: " + join(kinds) + " (default: static_library,h)\n"
           "  -f FUNCTION_NAME   the C function's name (default: the generator's name)\n"
           "  -n FILE_BASE_NAME  files are DIR/FILE_BASE_NAME.<ext> (default: the function name)\n"
           "  -l                 list the registered generators, their GeneratorParams and arguments\n"
           "  target=TARGET      e.g. host, x86-64-linux-avx2 (default: $LOOM_TARGET or host)\n"
           "  param=value        sets a GeneratorParam\n";
}

GeneratorCommand parse_generator_command(const std::vector<std::string> &args) {
    GeneratorCommand command;
    std::set<std::string> params_seen;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &arg = args[i];
        if (arg == "-h" || arg == "--help") {
            command.help = true;
            continue;
        }
        if (arg == "-l") {
            command.list = true;
            continue;
        }
        if (arg.size() > 1 && arg[0] == '-') {
            static const std::vector<std::string> with_value = {"-g", "-o", "-e", "-f", "-n"};
            if (std::find(with_value.begin(), with_value.end(), arg) == with_value.end()) {
                throw CompileError("Unknown option '" + arg + "'; the options are -g, -o, -e, -f, -n, -l and -h.");
            }
            if (i + 1 >= args.size() || args[i + 1].empty()) throw CompileError(arg + " needs a value.");
            const std::string &value = args[++i];
            if (arg == "-g") command.generator = value;
            if (arg == "-o") command.output_dir = value;
            if (arg == "-e") command.emit = parse_emit_list(value);
            if (arg == "-f") command.function_name = value;
            if (arg == "-n") command.file_base_name = value;
            continue;
        }
        size_t eq = arg.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw CompileError("Unexpected argument '" + arg + "'; GeneratorParams are given as name=value.");
        }
        std::string name = arg.substr(0, eq), value = arg.substr(eq + 1);
        if (!params_seen.insert(name).second) throw CompileError("'" + name + "' is given twice.");
        if (name == "target") {
            command.target = value;
        } else {
            command.params.emplace_back(name, value);
        }
    }
    if (!command.help && !command.list && command.output_dir.empty()) {
        throw CompileError("-o DIR is required: it says where the generated files go.");
    }
    return command;
}

int run_generator_command(const GeneratorCommand &command, std::ostream &out, std::ostream &err) {
    try {
        if (command.help) {
            out << generator_usage("generator");
            return 0;
        }
        if (command.list) {
            list_generators(out);
            return 0;
        }
        generate(command, err);
        return 0;
    } catch (const std::exception &e) {
        err << "Error: " << e.what() << "\n";
    } catch (...) {
        err << "Error: an unknown exception.\n";
    }
    return 1;
}

int generate_filter_main(int argc, char **argv) {
    std::string program = argc > 0 && argv[0] ? std::filesystem::path(argv[0]).filename().string() : "generator";
    std::vector<std::string> args;
    for (int i = 1; i < argc; i++) args.emplace_back(argv[i]);
    GeneratorCommand command;
    try {
        command = parse_generator_command(args);
    } catch (const std::exception &e) {
        std::cerr << "Error: " << e.what() << "\n" << generator_usage(program);
        return 1;
    }
    if (command.help) {
        std::cout << generator_usage(program);
        return 0;
    }
    return run_generator_command(command, std::cout, std::cerr);
}

}  // namespace internal
}  // namespace loom
