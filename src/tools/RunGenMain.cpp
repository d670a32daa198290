// Loom's RunGen: the main() of Loom::rungen, a runner for pipelines made by a
// generator. Link it with one or more generated static libraries and their
// NAME.registration.cpp files (generator driver -e registration); each
// registration file calls loom_rungen_register() before main() runs. Then
//
//     runner in=input.png gain=1.5 out=output.png
//
// loads the inputs, runs the pipeline once and saves the outputs. It needs
// neither libLoom nor LLVM: only the generated libraries, the runtime
// headers and libpng. docs/GENERATORS.md ("Running a pipeline: RunGen")
// describes the arguments.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "loom/runtime/Buffer.h"
#include "loom/runtime/loom_runtime.h"
#include "loom/tools/ImageIO.h"

// The device functions of the runtime inside the linked pipelines; weak, as
// a library made with no_runtime may leave them to another one.
extern "C" int loom_copy_to_host(void *user_context, loom_buffer_t *buf) __attribute__((weak));
extern "C" int loom_device_sync(void *user_context, loom_buffer_t *buf) __attribute__((weak));
extern "C" int loom_device_release(void *user_context, const struct loom_device_interface_t *iface)
    __attribute__((weak));

namespace {

using loom::RuntimeError;

struct RegisteredPipeline {
    int (*argv_function)(void **);
    const loom_pipeline_metadata_t *metadata;
    std::map<std::string, std::string> scalar_defaults;
};

std::vector<RegisteredPipeline> &registry() {
    static std::vector<RegisteredPipeline> pipelines;  // filled before main() by static initializers
    return pipelines;
}

[[noreturn]] void fail(const std::string &message) { throw RuntimeError(message); }

std::string type_name(loom_type_t t) {
    if (t.code == loom_type_uint && t.bits == 1) return "bool";
    const char *code = t.code == loom_type_int ? "int" : t.code == loom_type_uint ? "uint" : t.code == loom_type_float ? "float" : "handle";
    return code + std::to_string(t.bits);
}

std::string usage(const std::string &program) {
    return "Usage: " + program +
           " [--name=FUNCTION] [--describe] [--output_extents=[W,H,...]] [--benchmark=N] ARG=VALUE ...\n"
           "  ARG=VALUE          every argument of the pipeline by name (--describe lists them):\n"
           "                       scalar inputs: a number, true/false, or 'default' (the Input's default)\n"
           "                       buffer inputs: an image file (.png, .pgm, .ppm; samples are converted\n"
           "                         to the input's type as load_and_convert_image does), an .npy file of\n"
           "                         the input's type (exact), or zero:[W,H,...], constant:VALUE:[W,H,...],\n"
           "                         random:SEED:[W,H,...]\n"
           "                       outputs: the file to write: an image (.png, .pgm, .ppm; converted as\n"
           "                         convert_and_save_image does) or .npy (exact)\n"
           "  --output_extents   the outputs' extents (default: those of the first buffer input with as\n"
           "                     many dimensions as the output)\n"
           "  --name             the function to run when several are linked in\n"
           "  --describe         print the function's arguments and target, run nothing\n"
           "  --benchmark=N      run N more times and print the fastest time in milliseconds\n";
}

// ------------------------------------------------------------------ values

std::vector<int> parse_extents(const std::string &text, const std::string &who) {
    if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
        fail(who + ": '" + text + "' is not a list of extents like [640,480]");
    }
    std::vector<int> extents;
    std::stringstream ss(text.substr(1, text.size() - 2));
    for (std::string item; std::getline(ss, item, ',');) {
        char *end = nullptr;
        long v = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || v < 1 || v > (1L << 30)) {
            fail(who + ": extent '" + item + "' in " + text + " is not a positive integer");
        }
        extents.push_back((int)v);
    }
    if (extents.empty()) fail(who + ": " + text + " lists no extents");
    return extents;
}

double parse_number(const std::string &text, const std::string &who) {
    if (text == "true") return 1;
    if (text == "false") return 0;
    char *end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') fail(who + ": '" + text + "' is not a number");
    return v;
}

// ------------------------------------------------------------------ .npy files
// NumPy's format (version 1.0 written; 1.0-3.0 read), little-endian, C order:
// the shape lists the extents outermost first, so element (x, y) of a
// Loom buffer is array[y][x]. Values are stored exactly, in the argument's
// own type (no conversion, unlike images).

bool is_npy(const std::string &path) { return path.size() > 4 && path.substr(path.size() - 4) == ".npy"; }

std::string npy_descr(loom_type_t t) {
    if (t.code == loom_type_uint && t.bits == 1) return "|b1";
    const char kind = t.code == loom_type_int ? 'i' : t.code == loom_type_uint ? 'u' : t.code == loom_type_float ? 'f' : '?';
    const int bytes = (t.bits + 7) / 8;
    return std::string(bytes == 1 ? "|" : "<") + kind + std::to_string(bytes);
}

size_t element_bytes(loom_type_t t) { return t.bits == 1 ? 1 : (size_t)(t.bits + 7) / 8; }

/** Writes a dense buffer with mins of 0 (the runner's own outputs). */
void save_npy(const loom_buffer_t &b, const std::string &path) {
    std::string shape;
    size_t count = 1;
    for (int i = b.dimensions - 1; i >= 0; i--) {
        shape += std::to_string(b.dim[i].extent) + (b.dimensions == 1 ? "," : i ? ", " : "");
        count *= (size_t)b.dim[i].extent;
    }
    std::string header = "{'descr': '" + npy_descr(b.type) + "', 'fortran_order': False, 'shape': (" + shape + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) fail("output file '" + path + "' can't be opened for writing");
    const unsigned char preamble[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    const uint16_t length = (uint16_t)header.size();
    const unsigned char length_bytes[2] = {(unsigned char)(length & 0xff), (unsigned char)(length >> 8)};
    const size_t bytes = count * element_bytes(b.type);
    const bool ok = std::fwrite(preamble, 1, 8, f) == 8 && std::fwrite(length_bytes, 1, 2, f) == 2 &&
                    std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
                    std::fwrite(b.host, 1, bytes, f) == bytes;
    if (std::fclose(f) != 0 || !ok) fail("output file '" + path + "' could not be written");
}

/** Reads an .npy file of exactly the argument's type and rank into a new buffer. */
template<typename T>
loom::Runtime::Buffer<T> load_npy(const loom_argument_info_t &arg, const std::string &path) {
    const std::string who = std::string("input '") + arg.name + "' ('" + path + "')";
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) fail(who + ": the file can't be opened");
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(f, std::fclose);
    unsigned char preamble[8];
    if (std::fread(preamble, 1, 8, f) != 8 || std::memcmp(preamble, "\x93NUMPY", 6) != 0) fail(who + ": not an .npy file");
    uint32_t length = 0;
    unsigned char l[4] = {0, 0, 0, 0};
    const size_t length_size = preamble[6] == 1 ? 2 : 4;
    if (std::fread(l, 1, length_size, f) != length_size) fail(who + ": the .npy header is cut short");
    length = l[0] | (l[1] << 8) | ((uint32_t)l[2] << 16) | ((uint32_t)l[3] << 24);
    std::string header(length, ' ');
    if (length > (1u << 20) || std::fread(header.data(), 1, length, f) != length) fail(who + ": the .npy header is cut short");
    auto field = [&](const std::string &key) {
        const size_t at = header.find("'" + key + "'");
        if (at == std::string::npos) fail(who + ": the .npy header has no '" + key + "'");
        return header.substr(header.find(':', at) + 1);
    };
    std::string descr = field("descr");
    descr = descr.substr(descr.find('\'') + 1);
    descr = descr.substr(0, descr.find('\''));
    if (descr.size() == 3 && descr[0] == '=') descr[0] = '<';
    if (descr != npy_descr(arg.type)) {
        fail(who + " holds '" + descr + "' values, but the input is " + type_name(arg.type) + " ('" +
             npy_descr(arg.type) + "'); .npy inputs are not converted");
    }
    std::string fortran_order = field("fortran_order");
    fortran_order = fortran_order.substr(0, fortran_order.find(','));
    if (fortran_order.find("True") != std::string::npos) {
        fail(who + ": Fortran-order arrays are not supported; save it in C order");
    }
    std::string shape = field("shape");
    shape = shape.substr(shape.find('(') + 1);
    shape = shape.substr(0, shape.find(')'));
    std::vector<int> extents;
    std::stringstream ss(shape);
    for (std::string item; std::getline(ss, item, ',');) {
        if (item.find_first_not_of(' ') == std::string::npos) continue;
        extents.insert(extents.begin(), std::atoi(item.c_str()));
    }
    if ((int)extents.size() != arg.dimensions) {
        fail(who + " has " + std::to_string(extents.size()) + " dimensions, but the input has " +
             std::to_string(arg.dimensions));
    }
    loom::Runtime::Buffer<T> b(extents);
    const size_t bytes = b.number_of_elements() * sizeof(T);
    if (std::fread(b.data(), 1, bytes, f) != bytes) fail(who + ": the file holds fewer values than its shape says");
    return b;
}

/** A buffer of one of the element types, with a way to save it. */
struct AnyBuffer {
    loom_buffer_t *raw = nullptr;
    std::shared_ptr<void> keepalive;
    std::function<void(const std::string &)> save;
    std::vector<int> extents() const {
        std::vector<int> e;
        for (int i = 0; i < raw->dimensions; i++) e.push_back(raw->dim[i].extent);
        return e;
    }
};

template<typename T>
AnyBuffer wrap(loom::Runtime::Buffer<T> b) {
    auto held = std::make_shared<loom::Runtime::Buffer<T>>(std::move(b));
    AnyBuffer a;
    a.raw = held->raw_buffer();
    a.save = [held](const std::string &path) {
        if (is_npy(path)) {
            save_npy(*held->raw_buffer(), path);
            return;
        }
        if constexpr (std::is_same_v<T, bool>) {
            fail("output '" + path + "': bool outputs can't be saved as images");
        } else {
            loom::Tools::convert_and_save_image(*held, path);
        }
    };
    a.keepalive = held;
    return a;
}

/** Makes a buffer of the argument's type: from an image file, or synthetic. */
template<typename T>
AnyBuffer make_input(const loom_argument_info_t &arg, const std::string &value) {
    const std::string who = std::string("input '") + arg.name + "'";
    auto synthetic = [&](const std::string &rest, const std::function<T(size_t)> &fill) {
        std::vector<int> extents = parse_extents(rest, who);
        if ((int)extents.size() != arg.dimensions) {
            fail(who + " has " + std::to_string(arg.dimensions) + " dimensions, but " + rest + " gives " +
                 std::to_string(extents.size()));
        }
        loom::Runtime::Buffer<T> b(extents);
        T *data = b.data();
        for (size_t i = 0; i < b.number_of_elements(); i++) data[i] = fill(i);
        return wrap<T>(std::move(b));
    };
    if (value.rfind("zero:", 0) == 0) return synthetic(value.substr(5), [](size_t) { return T(0); });
    if (value.rfind("constant:", 0) == 0) {
        const size_t colon = value.find(':', 9);
        if (colon == std::string::npos) fail(who + ": write constant:VALUE:[W,H,...]");
        const T v = (T)parse_number(value.substr(9, colon - 9), who);
        return synthetic(value.substr(colon + 1), [v](size_t) { return v; });
    }
    if (value.rfind("random:", 0) == 0) {
        const size_t colon = value.find(':', 7);
        if (colon == std::string::npos) fail(who + ": write random:SEED:[W,H,...]");
        std::mt19937 rng((uint32_t)parse_number(value.substr(7, colon - 7), who));
        return synthetic(value.substr(colon + 1), [&rng](size_t) {
            if constexpr (std::is_floating_point_v<T>) {
                return T(std::uniform_real_distribution<double>(0.0, 1.0)(rng));
            } else if constexpr (std::is_same_v<T, bool>) {
                return (rng() & 1) != 0;
            } else {
                return T(rng());
            }
        });
    }
    if (is_npy(value)) return wrap<T>(load_npy<T>(arg, value));
    if constexpr (std::is_same_v<T, bool>) {
        fail(who + " holds bools: give an .npy file, zero:, constant: or random:, not an image file");
    } else {
        loom::Runtime::Buffer<T> image = loom::Tools::load_and_convert_image(value);
        if (image.dimensions() == 2 && arg.dimensions == 3) image.add_dimension();
        if (image.dimensions() != arg.dimensions) {
            fail(who + " has " + std::to_string(arg.dimensions) + " dimensions, but the image '" + value + "' has " +
                 std::to_string(image.dimensions()) + " (width, height" +
                 (image.dimensions() == 3 ? ", channels)" : ")"));
        }
        return wrap<T>(std::move(image));
    }
}

template<typename T>
AnyBuffer make_output(const std::vector<int> &extents) {
    return wrap<T>(loom::Runtime::Buffer<T>(extents));
}

/** Calls F<T>(args...) for the element type t. */
template<template<typename> class F, typename... Args>
auto dispatch(loom_type_t t, const std::string &who, Args &&...args) {
    if (t.lanes != 1) fail(who + " has a vector type, which the runner does not handle");
    if (t.code == loom_type_uint) {
        if (t.bits == 1) return F<bool>::run(std::forward<Args>(args)...);
        if (t.bits == 8) return F<uint8_t>::run(std::forward<Args>(args)...);
        if (t.bits == 16) return F<uint16_t>::run(std::forward<Args>(args)...);
        if (t.bits == 32) return F<uint32_t>::run(std::forward<Args>(args)...);
        if (t.bits == 64) return F<uint64_t>::run(std::forward<Args>(args)...);
    } else if (t.code == loom_type_int) {
        if (t.bits == 8) return F<int8_t>::run(std::forward<Args>(args)...);
        if (t.bits == 16) return F<int16_t>::run(std::forward<Args>(args)...);
        if (t.bits == 32) return F<int32_t>::run(std::forward<Args>(args)...);
        if (t.bits == 64) return F<int64_t>::run(std::forward<Args>(args)...);
    } else if (t.code == loom_type_float) {
        if (t.bits == 32) return F<float>::run(std::forward<Args>(args)...);
        if (t.bits == 64) return F<double>::run(std::forward<Args>(args)...);
    }
    fail(who + " has type " + type_name(t) + ", which the runner does not handle");
}

template<typename T>
struct MakeInput {
    static AnyBuffer run(const loom_argument_info_t &a, const std::string &v) { return make_input<T>(a, v); }
};
template<typename T>
struct MakeOutput {
    static AnyBuffer run(const std::vector<int> &e) { return make_output<T>(e); }
};
template<typename T>
struct StoreScalar {
    /** The scalar's bytes, as the argv convention wants them. */
    static std::shared_ptr<void> run(double v) {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            if (v != std::floor(v) || v < (double)std::numeric_limits<T>::lowest() ||
                v > (double)std::numeric_limits<T>::max()) {
                return nullptr;
            }
        }
        return std::make_shared<T>((T)v);
    }
};

// ------------------------------------------------------------------ running

const RegisteredPipeline &choose(const std::string &name) {
    const std::vector<RegisteredPipeline> &all = registry();
    if (all.empty()) fail("no pipeline is registered: link a NAME.registration.cpp (generator -e registration)");
    std::vector<std::string> sorted;
    for (const RegisteredPipeline &p : all) {
        if (p.metadata->name == name) return p;
        sorted.push_back(p.metadata->name);
    }
    std::sort(sorted.begin(), sorted.end());  // static initialisers register them in no set order
    std::string names;
    for (const std::string &n : sorted) names += (names.empty() ? "" : ", ") + n;
    if (!name.empty()) fail("--name: no pipeline is called '" + name + "'; linked: " + names);
    if (all.size() > 1) fail("several pipelines are linked in (" + names + "): choose one with --name=FUNCTION");
    return all[0];
}

void describe(const RegisteredPipeline &p) {
    const loom_pipeline_metadata_t &m = *p.metadata;
    std::cout << m.name << " (target " << m.target << ")\n";
    for (int i = 0; i < m.num_arguments; i++) {
        const loom_argument_info_t &a = m.arguments[i];
        const char *kind = a.kind == loom_argument_input_scalar  ? "input scalar"
                           : a.kind == loom_argument_input_buffer ? "input buffer"
                                                                   : "output buffer";
        std::cout << "  " << a.name << ": " << kind << ", " << type_name(a.type);
        if (a.kind != loom_argument_input_scalar) std::cout << ", " << a.dimensions << " dimensions";
        auto d = p.scalar_defaults.find(a.name);
        if (d != p.scalar_defaults.end()) std::cout << ", default " << d->second;
        std::cout << "\n";
    }
}

int run(int argc, char **argv) {
    const std::string program = argc > 0 ? argv[0] : "rungen";
    std::string name, output_extents_text;
    bool describe_only = false;
    int benchmark_runs = 0;
    std::map<std::string, std::string> values;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::cout << usage(program);
            return 0;
        }
        if (arg == "--describe") {
            describe_only = true;
            continue;
        }
        const size_t eq = arg.find('=');
        if (arg.rfind("--", 0) == 0) {
            const std::string option = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
            if (value.empty()) fail(option + " needs a value: " + option + "=...");
            if (option == "--name") {
                name = value;
            } else if (option == "--output_extents") {
                output_extents_text = value;
            } else if (option == "--benchmark") {
                const double n = parse_number(value, "--benchmark");
                if (n < 1 || n != std::floor(n)) fail("--benchmark: '" + value + "' is not a positive integer");
                benchmark_runs = (int)n;
            } else {
                fail("unknown option '" + option + "'; the options are --name, --describe, --output_extents, "
                     "--benchmark and --help");
            }
            continue;
        }
        if (eq == std::string::npos || eq == 0) fail("'" + arg + "' is not ARG=VALUE (run with --help)");
        if (!values.emplace(arg.substr(0, eq), arg.substr(eq + 1)).second) {
            fail("argument '" + arg.substr(0, eq) + "' is given twice");
        }
    }

    const RegisteredPipeline &p = choose(name);
    const loom_pipeline_metadata_t &m = *p.metadata;
    if (describe_only) {
        describe(p);
        return 0;
    }
    for (const auto &[given, value] : values) {
        bool known = false;
        for (int i = 0; i < m.num_arguments; i++) known = known || given == m.arguments[i].name;
        if (!known) fail(std::string("'") + given + "' is not an argument of " + m.name + " (run with --describe)");
    }

    std::vector<void *> call(m.num_arguments, nullptr);
    std::vector<std::shared_ptr<void>> scalars;
    std::vector<AnyBuffer> buffers(m.num_arguments);
    // GPU pipelines: the buffers' device allocations are freed, then each
    // device interface used is released, before the runner returns (never
    // from a static destructor).
    struct DeviceCleanup {
        std::vector<AnyBuffer> &buffers;
        ~DeviceCleanup() {
            std::vector<const loom_device_interface_t *> used;
            for (const AnyBuffer &b : buffers) {
                if (b.raw && b.raw->device_interface &&
                    std::find(used.begin(), used.end(), b.raw->device_interface) == used.end()) {
                    used.push_back(b.raw->device_interface);
                }
            }
            buffers.clear();
            for (const loom_device_interface_t *iface : used) {
                if (loom_device_release) loom_device_release(nullptr, iface);
            }
        }
    } device_cleanup{buffers};
    auto uses_device = [&] {
        for (const AnyBuffer &b : buffers) {
            if (b.raw && b.raw->device) return true;
        }
        return false;
    };
    // Waits for device work, so that a benchmark times the whole run.
    auto sync = [&]() { return uses_device() && loom_device_sync ? loom_device_sync(nullptr, nullptr) : 0; };
    for (int i = 0; i < m.num_arguments; i++) {
        const loom_argument_info_t &a = m.arguments[i];
        if (a.kind == loom_argument_output_buffer) continue;
        const std::string who = std::string("argument '") + a.name + "'";
        auto given = values.find(a.name);
        std::string value = given == values.end() ? "" : given->second;
        if (a.kind == loom_argument_input_scalar) {
            if (value.empty() || value == "default") {
                auto d = p.scalar_defaults.find(a.name);
                if (d == p.scalar_defaults.end()) fail(who + " (" + type_name(a.type) + ") needs a value: " + a.name + "=...");
                value = d->second;
            }
            std::shared_ptr<void> bytes = dispatch<StoreScalar>(a.type, who, parse_number(value, who));
            if (!bytes) fail(who + ": " + value + " does not fit in " + type_name(a.type));
            scalars.push_back(bytes);
            call[i] = bytes.get();
        } else {
            if (value.empty()) fail(who + " (an input buffer) needs a value: " + std::string(a.name) + "=FILE.png");
            buffers[i] = dispatch<MakeInput>(a.type, who, a, value);
            call[i] = buffers[i].raw;
        }
    }
    for (int i = 0; i < m.num_arguments; i++) {
        const loom_argument_info_t &a = m.arguments[i];
        if (a.kind != loom_argument_output_buffer) continue;
        const std::string who = std::string("output '") + a.name + "'";
        if (!values.count(a.name)) fail(who + " needs a file to be written to: " + std::string(a.name) + "=FILE.png");
        std::vector<int> extents;
        if (!output_extents_text.empty()) {
            extents = parse_extents(output_extents_text, "--output_extents");
        } else {
            for (int j = 0; j < m.num_arguments && extents.empty(); j++) {
                if (m.arguments[j].kind == loom_argument_input_buffer && m.arguments[j].dimensions == a.dimensions) {
                    extents = buffers[j].extents();
                }
            }
            if (extents.empty()) fail(who + ": no input has its " + std::to_string(a.dimensions) +
                                      " dimensions to take the extents from; give --output_extents=[...]");
        }
        if ((int)extents.size() != a.dimensions) {
            fail(who + " has " + std::to_string(a.dimensions) + " dimensions, but --output_extents gives " +
                 std::to_string(extents.size()));
        }
        buffers[i] = dispatch<MakeOutput>(a.type, who, extents);
        call[i] = buffers[i].raw;
    }

    int rc = p.argv_function(call.data());
    if (rc == 0) rc = sync();
    if (rc != 0) {
        std::cerr << "Error: " << m.name << " returned " << rc << "\n";
        return 1;
    }
    if (benchmark_runs > 0) {
        double best = 1e300;
        for (int r = 0; r < benchmark_runs && rc == 0; r++) {
            auto start = std::chrono::steady_clock::now();
            rc = p.argv_function(call.data());
            if (rc == 0) rc = sync();
            best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        if (rc != 0) {
            std::cerr << "Error: " << m.name << " returned " << rc << "\n";
            return 1;
        }
        std::cout << m.name << ": best of " << benchmark_runs << " runs: " << best << " ms\n";
    }
    for (int i = 0; i < m.num_arguments; i++) {
        if (m.arguments[i].kind != loom_argument_output_buffer) continue;
        // A GPU pipeline may leave its newest values on the device.
        if (buffers[i].raw->device && loom_copy_to_host) {
            rc = loom_copy_to_host(nullptr, buffers[i].raw);
            if (rc != 0) {
                std::cerr << "Error: copying output '" << m.arguments[i].name << "' to the host failed (" << rc
                          << ")\n";
                return 1;
            }
        }
        buffers[i].save(values.at(m.arguments[i].name));
    }
    return 0;
}

}  // namespace

/** Called by each NAME.registration.cpp before main(). scalar_defaults: NULL,
 * or pairs of (name, value text) ending with a NULL name. */
extern "C" int loom_rungen_register(int (*argv_function)(void **), const loom_pipeline_metadata_t *metadata,
                                    const char *const *scalar_defaults) {
    RegisteredPipeline p{argv_function, metadata, {}};
    for (const char *const *d = scalar_defaults; d && d[0]; d += 2) p.scalar_defaults[d[0]] = d[1];
    registry().push_back(std::move(p));
    return 0;
}

int main(int argc, char **argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "Error: " << e.what() << "\n";
        return 1;
    }
}
