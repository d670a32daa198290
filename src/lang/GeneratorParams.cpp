// The string forms of GeneratorParam values: parsing (with errors that name
// the generator and the parameter) and printing.

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>

#include "loom/Generator.h"

namespace loom {
namespace internal {

namespace {

std::string join(const std::vector<std::string> &items) {
    std::string s;
    for (size_t i = 0; i < items.size(); i++) s += (i ? ", " : "") + items[i];
    return s;
}

[[noreturn]] void throw_not_a(const std::string &who, const std::string &kind, const std::string &text) {
    throw CompileError(who + " expects " + kind + ", but is given '" + text + "'.");
}

struct NamedType {
    const char *name;
    Type type;
};

const std::vector<NamedType> &named_types() {
    static const std::vector<NamedType> types = {
        {"bool", Bool()},       {"int8", Int(8)},       {"int16", Int(16)},     {"int32", Int(32)},
        {"int64", Int(64)},     {"uint8", UInt(8)},     {"uint16", UInt(16)},   {"uint32", UInt(32)},
        {"uint64", UInt(64)},   {"float16", Float(16)}, {"float32", Float(32)}, {"float64", Float(64)},
        {"bfloat16", BFloat(16)},
    };
    return types;
}

}  // namespace

int64_t parse_generator_int(const std::string &who, const std::string &text) {
    const char *begin = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
    const char *end = text.data() + text.size();
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec == std::errc::result_out_of_range) {
        throw CompileError(who + ": '" + text + "' does not fit in 64 bits.");
    }
    if (ec != std::errc() || ptr != end || begin == end) throw_not_a(who, "an integer", text);
    return value;
}

uint64_t parse_generator_uint(const std::string &who, const std::string &text) {
    const char *begin = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
    const char *end = text.data() + text.size();
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec == std::errc::result_out_of_range) {
        throw CompileError(who + ": '" + text + "' does not fit in 64 bits.");
    }
    if (ec != std::errc() || ptr != end || begin == end) throw_not_a(who, "a non-negative integer", text);
    return value;
}

double parse_generator_float(const std::string &who, const std::string &text) {
    if (text.empty() || std::isspace((unsigned char)text[0])) throw_not_a(who, "a number", text);
    char *end = nullptr;
    errno = 0;
    double value = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) throw_not_a(who, "a number", text);
    if (errno == ERANGE && (value > 1 || value < -1)) {
        throw CompileError(who + ": '" + text + "' is too large for a double.");
    }
    return value;
}

bool parse_generator_bool(const std::string &who, const std::string &text) {
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
    throw_not_a(who, "true or false (or 1 or 0)", text);
}

Type parse_generator_type(const std::string &who, const std::string &text) {
    std::vector<std::string> names;
    for (const NamedType &t : named_types()) {
        if (text == t.name) return t.type;
        names.push_back(t.name);
    }
    throw CompileError(who + ": '" + text + "' is not a type; valid types are " + join(names) + ".");
}

std::string generator_type_name(const Type &t) { return t.to_string(); }

std::string format_generator_float(double value) {
    char buf[64];
    auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), value);
    return ec == std::errc() ? std::string(buf, ptr) : std::to_string(value);
}

std::string format_generator_float(float value) {
    char buf[64];
    auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), value);
    return ec == std::errc() ? std::string(buf, ptr) : std::to_string(value);
}

void throw_generator_param_out_of_range(const std::string &who, const std::string &value, const std::string &lo,
                                        const std::string &hi) {
    throw CompileError(who + ": " + value + " is outside its range [" + lo + ", " + hi + "].");
}

void throw_unknown_generator_enum(const std::string &who, const std::string &text,
                                  const std::vector<std::string> &valid) {
    throw CompileError(who + ": '" + text + "' is not one of its values; valid values are " + join(valid) + ".");
}

}  // namespace internal
}  // namespace loom
