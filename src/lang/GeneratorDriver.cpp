// The generator driver: command-line parsing, listing, and running one
// generator to files. See GeneratorDriver.h and docs/GENERATORS.md.

#include "lang/GeneratorDriver.h"
#include "lang/GeneratorMultiTarget.h"

#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <set>
#include <sstream>

#include "aot/CHeader.h"
#include "lang/GeneratorGradient.h"
#include "loom/Generator.h"

namespace loom {
namespace internal {

namespace {

struct EmitKind {
    const char *name;
    const char *extension;
    OutputFileType type;
    bool driver_written = false;  // written by the driver, not by compile_to (type unused)
};

// The driver's -e names and the extensions of the files they write.
// "c_header" is Halide's name for "h".
const std::vector<EmitKind> &emit_kinds() {
    static const std::vector<EmitKind> kinds = {
        {"static_library", ".a", OutputFileType::static_library},
        {"h", ".h", OutputFileType::c_header},
        {"c_header", ".h", OutputFileType::c_header},
        {"o", ".o", OutputFileType::object},
        {"assembly", ".s", OutputFileType::assembly},
        {"llvm_assembly", ".ll", OutputFileType::llvm_assembly},
        {"bitcode", ".bc", OutputFileType::bitcode},
        {"c_source", ".loom_generated.cpp", OutputFileType::c_source},
        {"stmt", ".stmt", OutputFileType::stmt},
        {"stmt_html", ".stmt.html", OutputFileType::stmt_html},
        {"function_info_header", ".function_info.h", OutputFileType::c_header, true},
        {"schedule", ".schedule.h", OutputFileType::c_header, true},
        {"registration", ".registration.cpp", OutputFileType::c_header, true},
        {"cpp_stub", ".stub.h", OutputFileType::c_header, true},
    };
    return kinds;
}

// Halide emits Loom does not write, and why (a clear error instead of "unknown").
const std::map<std::string, std::string> &unsupported_emits() {
    static const std::map<std::string, std::string> kinds = {
        {"python_extension", "Loom has no Python bindings"},
        {"pytorch_wrapper", "Loom has no PyTorch bindings"},
        {"compiler_log", "Loom's autoscheduler keeps no log (its schedule is the 'schedule' emit)"},
        {"hlpipe", "Loom has no pipeline serialization"},
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

void parse_emit_list(const std::string &list, GeneratorCommand &command) {
    std::vector<OutputFileType> types;
    std::vector<std::string> driver_kinds;
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
            auto why = unsupported_emits().find(item);
            if (why != unsupported_emits().end()) {
                throw CompileError("-e: the output kind '" + item + "' is not supported: " + why->second +
                                   "; valid kinds are " + join(valid) + ".");
            }
            throw CompileError("-e: unknown output kind '" + item + "'; valid kinds are " + join(valid) + ".");
        }
        if (found->driver_written) {
            if (std::find(driver_kinds.begin(), driver_kinds.end(), item) == driver_kinds.end()) {
                driver_kinds.push_back(item);
            }
        } else if (std::find(types.begin(), types.end(), found->type) == types.end()) {
            types.push_back(found->type);
        }
    }
    if (types.empty() && driver_kinds.empty()) {
        throw CompileError("-e needs at least one output kind, e.g. -e static_library,h.");
    }
    command.emit = types;
    command.driver_emit = driver_kinds;
}

const char *argument_kind_name(const Argument &a) {
    if (a.kind == Argument::InputScalar) return "InputScalar";
    if (a.kind == Argument::InputBuffer) return "InputBuffer";
    return "OutputBuffer";
}

void write_text_file(const std::string &path, const std::string &text) {
    std::ofstream out(path);
    out << text;
    if (!out) throw CompileError("Can't write '" + path + "'.");
}

std::string schedule_header_text(const std::string &function_name, GeneratorBase &g) {
    std::string text = "// " + function_name + ".schedule.h, written by the Loom generator driver.\n";
    if (const AutoSchedulerResults *results = g.autoscheduler_results()) {
        return text + "// The schedule the autoscheduler (" + results->autoscheduler_params.to_string() +
               ") applied:\n" + results->schedule_source;
    }
    text += "// No autoscheduler was run for this Generator (no autoscheduler=NAME): its\n"
            "// schedule is the one its schedule() wrote, with these GeneratorParams:\n";
    for (const GeneratorParamInfo &p : g.generator_params()) text += "//   " + p.name + "=" + p.value + "\n";
    text += "//   target=" + g.get_target().to_string() + "\n";
    return text;
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
        std::vector<std::string> shapes = g->shape_params();
        if (!shapes.empty()) out << "    Input/Output shapes settable: " << join(shapes) << "\n";
        std::vector<std::string> args;
        for (const Argument &a : g->arguments()) {
            std::string type = a.type.defined() ? a.type.to_string() : "any type";
            if (a.is_buffer()) type += " buffer, " + (a.dimensions < 0 ? std::string("?") : std::to_string(a.dimensions)) + "-D";
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

std::string scalar_value_text(const Parameter &p) {
    const Type t = p.type();
    char text[64];
    if (t.is_bool()) return p.scalar<bool>() ? "true" : "false";
    if (t.is_float() && t.bits() == 32) {
        std::snprintf(text, sizeof text, "%.9g", (double)p.scalar<float>());
        return text;
    }
    if (t.is_float() && t.bits() == 64) {
        std::snprintf(text, sizeof text, "%.17g", p.scalar<double>());
        return text;
    }
    if (t.is_int() && t.bits() == 8) return std::to_string(p.scalar<int8_t>());
    if (t.is_int() && t.bits() == 16) return std::to_string(p.scalar<int16_t>());
    if (t.is_int() && t.bits() == 32) return std::to_string(p.scalar<int32_t>());
    if (t.is_int() && t.bits() == 64) return std::to_string(p.scalar<int64_t>());
    if (t.is_uint() && t.bits() == 8) return std::to_string(p.scalar<uint8_t>());
    if (t.is_uint() && t.bits() == 16) return std::to_string(p.scalar<uint16_t>());
    if (t.is_uint() && t.bits() == 32) return std::to_string(p.scalar<uint32_t>());
    if (t.is_uint() && t.bits() == 64) return std::to_string(p.scalar<uint64_t>());
    return "";  // float16, handles: no default the runner could parse
}

std::string registration_text(const std::string &function_name, const std::vector<Argument> &args) {
    std::string defaults;
    for (const Argument &a : args) {
        if (a.kind != Argument::InputScalar || !a.param.defined() || !a.param.scalar_set()) continue;
        const std::string value = scalar_value_text(a.param);
        if (!value.empty()) defaults += "    \"" + a.name + "\", \"" + value + "\",\n";
    }
    return "// " + function_name + ".registration.cpp, written by the Loom generator driver: registers\n"
           "// " + function_name + "() with Loom's runner. Link this file, the pipeline's library and\n"
           "// Loom::rungen (its main()) into one program; run it with --help.\n"
           "struct loom_pipeline_metadata_t;\n"
           "extern \"C\" {\n"
           "int " + function_name + "_argv(void **args);\n"
           "const struct loom_pipeline_metadata_t *" + function_name + "_metadata(void);\n"
           "int loom_rungen_register(int (*argv_function)(void **), const struct loom_pipeline_metadata_t *metadata,\n"
           "                         const char *const *scalar_defaults);\n"
           "}\n\n"
           "namespace {\n"
           "// The scalar Inputs' defaults: name, value, ..., then a null name.\n"
           "const char *const " + function_name + "_scalar_defaults[] = {\n" + defaults + "    nullptr};\n"
           "const int " + function_name + "_registered =\n"
           "    loom_rungen_register(" + function_name + "_argv, " + function_name + "_metadata(), " +
           function_name + "_scalar_defaults);\n"
           "}  // namespace\n";
}

/** -d 1: the gradient module, with the emits that describe its arguments. */
void generate_gradient(const GeneratorCommand &command, GeneratorBase &g,
                       const std::map<OutputFileType, std::string> &files, const std::string &function_name,
                       const std::string &base) {
    GradientPipeline grad = build_gradient_pipeline(g);
    if (!files.empty()) grad.pipeline.compile_to(files, grad.arguments, function_name, g.get_target());
    std::vector<Argument> all = grad.arguments;
    for (const Func &f : grad.pipeline.outputs()) {
        Argument a;
        a.name = f.name();
        a.kind = Argument::OutputBuffer;
        a.type = f.output_types()[0];
        a.dimensions = f.dimensions();
        all.push_back(a);
    }
    for (const std::string &kind : command.driver_emit) {
        std::string path = (std::filesystem::path(command.output_dir) / base).string();
        if (kind == "cpp_stub") {
            write_text_file(path + ".stub.h", cpp_stub_text(g, GeneratorRegistry::stub_name_of(g.name())));
        } else if (kind == "function_info_header") {
            write_text_file(path + ".function_info.h", function_info_header_text(function_name, all));
        } else if (kind == "registration") {
            write_text_file(path + ".registration.cpp", registration_text(function_name, all));
        } else {
            throw CompileError("-e " + kind + " is not written for a gradient module (-d 1): it describes the "
                               "generator's own schedule. Emit it in a run without -d 1.");
        }
    }
}

void generate(const GeneratorCommand &command, std::ostream &err) {
    std::unique_ptr<GeneratorBase> g = choose_generator(command, err);
    const bool multitarget = is_multitarget(command.target);  // target=a,b,c: GeneratorMultiTarget.h
    if (!command.target.empty() && !multitarget) g->set_generator_param("target", command.target);
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
    if (multitarget) {
        if (command.gradient || !command.driver_emit.empty()) {
            throw CompileError("target=" + command.target +
                               ": with several targets the driver writes -e static_library,h only (no -d 1).");
        }
        generate_multitarget(command, files, function_name, [&] { return choose_generator(command, err); });
        return;
    }
    if (command.gradient) {
        generate_gradient(command, *g, files, function_name, base);
        return;
    }
    if (!files.empty()) g->compile_to(files, function_name);
    for (const std::string &kind : command.driver_emit) {
        std::string path = (std::filesystem::path(command.output_dir) / base).string();
        if (kind == "cpp_stub") {
            // cpp_stub_text configures a fresh copy with g's target and GeneratorParams (the command
            // line's), so the stub has the members configure() adds for them.
            write_text_file(path + ".stub.h", cpp_stub_text(*g, GeneratorRegistry::stub_name_of(g->name())));
            continue;
        }
        g->build_pipeline();
        if (kind == "function_info_header") {
            write_text_file(path + ".function_info.h", function_info_header_text(function_name, g->arguments()));
        } else if (kind == "schedule") {
            write_text_file(path + ".schedule.h", schedule_header_text(function_name, *g));
        } else if (kind == "registration") {
            write_text_file(path + ".registration.cpp", registration_text(function_name, g->arguments()));
        }
    }
}

void generate_runtime(const GeneratorCommand &command) {
    Target target = command.target.empty() ? get_target_from_environment() : Target(command.target);
    std::error_code ec;
    std::filesystem::create_directories(command.output_dir, ec);
    if (ec) throw CompileError("-o: can't create the directory '" + command.output_dir + "': " + ec.message());
    std::filesystem::path base = std::filesystem::path(command.output_dir) / command.runtime_name;
    bool library = false, object = false, header = false;
    for (OutputFileType t : command.emit) {
        library = library || t == OutputFileType::static_library;
        object = object || t == OutputFileType::object;
        header = header || t == OutputFileType::c_header;
    }
    if (library || object) {
        write_standalone_runtime(target, library ? base.string() + ".a" : "", object ? base.string() + ".o" : "");
    }
    if (header) {
        const std::string path = base.string() + ".h";
        std::ofstream file(path, std::ios::binary);
        file << runtime_header_text(command.runtime_name, target);
        file.close();
        if (!file) throw CompileError("-r: can't write '" + path + "'; check that the directory is writable.");
    }
}

/** -t: ends the process with an error if the generator is still running
 * after `seconds` (Halide's build-system safeguard); 0 means no limit.
 * It exits with status 1 through _Exit: the generator's thread may be in
 * any state (inside LLVM, holding locks), so nothing may unwind or run
 * static destructors, and abort() would read as a crash. */
class GeneratorWatchdog {
public:
    GeneratorWatchdog(int seconds, const std::string &generator, std::ostream &err) {
        if (seconds <= 0) return;
        const std::string who = generator.empty() ? "the generator" : "generator '" + generator + "'";
        thread_ = std::thread([this, seconds, who, &err] {
            std::unique_lock<std::mutex> lock(mutex_);
            if (done_changed_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) return;
            err << "Error: " << who << " ran longer than the -t limit of " << seconds
                << " seconds and was stopped; its output files may be missing or incomplete. Give a larger "
                   "-t, or -t 0 for no limit.\n";
            err.flush();
            std::_Exit(1);
        });
    }
    ~GeneratorWatchdog() {
        if (!thread_.joinable()) return;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        done_changed_.notify_all();
        thread_.join();
    }

private:
    std::mutex mutex_;
    std::condition_variable done_changed_;
    bool done_ = false;
    std::thread thread_;
};

void parse_autoscheduler_option(const std::string &option, const std::string &value, GeneratorCommand &command) {
    if (option == "-p") {
        std::stringstream ss(value);
        std::string lib;
        while (std::getline(ss, lib, ',')) {
            if (!lib.empty()) command.plugins.push_back(lib);
        }
    } else if (option == "-s") {
        command.default_autoscheduler = value;
    } else if (option == "-d") {
        if (value != "0" && value != "1") throw CompileError("-d takes 0 or 1, not '" + value + "'.");
        command.gradient = value == "1";
    } else if (option == "-t") {
        int seconds = -1;
        auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
        if (ec != std::errc() || ptr != value.data() + value.size() || seconds < 0) {
            throw CompileError("-t takes a number of seconds (0 for no limit), not '" + value + "'.");
        }
        command.timeout_seconds = seconds;
    }
}

}  // namespace

std::string function_info_header_text(const std::string &function_name, const std::vector<Argument> &args) {
    std::string guard = "LOOM_FUNCTION_INFO_" + function_name;
    for (char &c : guard) c = char(std::toupper((unsigned char)c));
    std::string text = "// " + function_name + ".function_info.h, written by the Loom generator driver:\n"
                       "// the arguments of " + function_name + "(), as constexpr data (C++17).\n"
                       "#ifndef " + guard + "_H\n#define " + guard + "_H\n\n"
                       "#include <array>\n#include <cstdint>\n#include <string_view>\n\n"
                       "#ifndef LOOM_FUNCTION_INFO_TYPES\n#define LOOM_FUNCTION_INFO_TYPES\n"
                       "namespace LoomFunctionInfo {\n"
                       "enum class ArgumentKind { InputScalar, InputBuffer, OutputBuffer };\n"
                       "enum class TypeCode { Int, UInt, Float, Handle };\n"
                       "struct ArgumentInfo {\n"
                       "    std::string_view name;\n"
                       "    ArgumentKind kind;\n"
                       "    int32_t dimensions;  // 0 for scalars\n"
                       "    TypeCode type_code;\n"
                       "    int32_t type_bits;\n"
                       "    int32_t type_lanes;\n"
                       "};\n"
                       "}  // namespace LoomFunctionInfo\n#endif\n\n";
    text += "inline constexpr std::array<::LoomFunctionInfo::ArgumentInfo, " + std::to_string(args.size()) + "> " +
            function_name + "_argument_info() {\n    return {{\n";
    for (const Argument &a : args) {
        const char *code = a.type.is_float() ? "Float" : a.type.is_uint() || a.type.is_bool() ? "UInt"
                           : a.type.is_handle()                       ? "Handle"
                                                                      : "Int";
        text += "        {\"" + a.name + "\", ::LoomFunctionInfo::ArgumentKind::" + argument_kind_name(a) + ", " +
                std::to_string(a.is_buffer() ? a.dimensions : 0) + ", ::LoomFunctionInfo::TypeCode::" + code + ", " +
                std::to_string(a.type.bits()) + ", " + std::to_string(a.type.lanes()) + "},\n";
    }
    text += "    }};\n}\n\n#endif\n";
    return text;
}

std::string generator_usage(const std::string &program) {
    std::vector<std::string> kinds;
    for (const EmitKind &k : emit_kinds()) kinds.push_back(k.name);
    return "Usage: " + program +
           " -g NAME -o DIR [-e KINDS] [-f FUNCTION_NAME] [-n FILE_BASE_NAME] [target=TARGET] [param=value ...]\n"
           "       " + program + " -r RUNTIME_NAME -o DIR [-e static_library,o] [target=TARGET]\n"
           "       " + program + " -l\n"
           "  -g NAME            the generator to run (may be left out when only one is registered)\n"
           "  -o DIR             where to write the files (created if missing)\n"
           "  -e KINDS           comma-separated, of: " + join(kinds) + " (default: static_library,h)\n"
           "  -f FUNCTION_NAME   the C function's name (default: the generator's name)\n"
           "  -n FILE_BASE_NAME  files are DIR/FILE_BASE_NAME.<ext> (default: the function name)\n"
           "  -r RUNTIME_NAME    write the Loom runtime alone, as DIR/RUNTIME_NAME.a (and .o with -e o)\n"
           "  -l                 list the registered generators, their GeneratorParams and arguments\n"
           "  -p LIBS            comma-separated autoscheduler plugins to load first (load_plugin)\n"
           "  -s NAME            the default autoscheduler (for auto_schedule=true)\n"
           "  -t SECONDS         stop with an error after this long (default 900; 0: no limit)\n"
           "  -d 1               write the gradient module instead (Halide's: the Inputs, then\n"
           "                     _grad_loss_for_<output>; outputs _grad_loss_<output>_wrt_<input>)\n"
           "  target=TARGET      e.g. host, x86-64-linux-avx2 (default: $LOOM_TARGET or host)\n"
           "  param=value        sets a GeneratorParam (or an Input/Output's NAME.type, NAME.dim, NAME.size)\n"
           "  autoscheduler=NAME autoschedules after schedule() (autoscheduler.KEY=VALUE: its parameters)\n";
}

GeneratorCommand parse_generator_command(const std::vector<std::string> &args) {
    GeneratorCommand command;
    std::set<std::string> params_seen;
    bool emit_given = false;
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
            static const std::vector<std::string> with_value = {"-g", "-o", "-e", "-f", "-n", "-r",
                                                                "-p", "-s", "-d", "-t"};
            if (std::find(with_value.begin(), with_value.end(), arg) == with_value.end()) {
                throw CompileError("Unknown option '" + arg +
                                   "'; the options are -g, -o, -e, -f, -n, -r, -p, -s, -t, -d, -l and -h.");
            }
            if (i + 1 >= args.size() || args[i + 1].empty()) throw CompileError(arg + " needs a value.");
            const std::string &value = args[++i];
            if (arg == "-g") command.generator = value;
            if (arg == "-o") command.output_dir = value;
            if (arg == "-e") {
                parse_emit_list(value, command);
                emit_given = true;
            }
            if (arg == "-r") command.runtime_name = value;
            if (arg == "-f") command.function_name = value;
            if (arg == "-n") command.file_base_name = value;
            parse_autoscheduler_option(arg, value, command);
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
    if (!command.runtime_name.empty()) {
        if (!emit_given) command.emit = {OutputFileType::static_library};
        if (!command.generator.empty()) {
            throw CompileError("-r and -g can't be combined: -r writes the runtime alone, -g a generator's pipeline.");
        }
        if (!is_c_identifier(command.runtime_name)) {
            throw CompileError("-r: '" + command.runtime_name + "' is not a valid file base name (use a C identifier).");
        }
        for (OutputFileType t : command.emit) {
            if (t != OutputFileType::static_library && t != OutputFileType::object &&
                t != OutputFileType::c_header) {
                throw CompileError(std::string("-r writes static_library, o and h only; '") + emit_kind(t).name +
                                   std::string("' needs a generator (-g)."));
            }
        }
        if (!command.driver_emit.empty()) {
            throw CompileError("-r writes static_library, o and h only; '" + command.driver_emit[0] +
                               "' needs a generator (-g).");
        }
        if (!command.params.empty()) {
            throw CompileError("-r takes no GeneratorParams (only target=); '" + command.params[0].first + "' was given.");
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
        for (const std::string &lib : command.plugins) load_plugin(lib);
        if (!command.default_autoscheduler.empty()) {
            Pipeline::set_default_autoscheduler_name(command.default_autoscheduler);
        }
        GeneratorWatchdog watchdog(command.timeout_seconds, command.generator, err);
        if (!command.runtime_name.empty()) {
            generate_runtime(command);
        } else {
            generate(command, err);
        }
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
