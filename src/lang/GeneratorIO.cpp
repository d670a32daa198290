// Generator Inputs and Outputs with shapes the command line may set:
// Input<Func>, Output<Func>, arrays of both, and LoopLevel GeneratorParams.

#include <cctype>

#include "ir/Function.h"
#include "loom/Generator.h"

namespace loom {
namespace internal {

namespace {

bool is_identifier(const std::string &s) {
    if (s.empty() || std::isdigit((unsigned char)s[0])) return false;
    for (char c : s) {
        if (!std::isalnum((unsigned char)c) && c != '_' && c != '$') return false;
    }
    return true;
}

std::string element_name(const std::string &name, size_t i) { return name + "_" + std::to_string(i); }

}  // namespace

std::string describe_generator_member(const GeneratorBase *owner, const std::string &kind, const std::string &name) {
    return "Generator '" + owner->name() + "': " + kind + " '" + name + "'";
}

bool set_generator_io_shape(GeneratorIOShape &shape, const std::string &who, const std::string &key,
                            const std::string &value, bool allow_tuple) {
    auto fixed = [&](const char *what) {
        throw CompileError(who + " declares its " + std::string(what) + "; '" + key +
                           "' can be set only when the declaration leaves it out.");
    };
    if (key == "type") {
        if (shape.types_fixed) fixed("type");
        std::vector<Type> types;
        size_t start = 0;
        while (true) {
            size_t comma = value.find(',', start);
            types.push_back(parse_generator_type(who + " (" + key + ")", value.substr(start, comma - start)));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        if (types.size() > 1 && !allow_tuple) {
            throw CompileError(who + ": an Input has one type; '" + value + "' lists " + std::to_string(types.size()) +
                               ".");
        }
        shape.types = types;
        return true;
    }
    if (key == "dim") {
        if (shape.dimensions_fixed) fixed("dimensions");
        int64_t d = parse_generator_int(who + " (dim)", value);
        if (d < 0 || d > 16) throw_generator_param_out_of_range(who + " (dim)", value, "0", "16");
        shape.dimensions = int(d);
        return true;
    }
    if (key == "size") {
        if (!shape.is_array) {
            throw CompileError(who + " is not an array; 'size' applies to arrays declared with [] only.");
        }
        if (shape.size_fixed) fixed("array size");
        int64_t n = parse_generator_int(who + " (size)", value);
        if (n < 0 || n > 1024) throw_generator_param_out_of_range(who + " (size)", value, "0", "1024");
        shape.array_size = int(n);
        return true;
    }
    return false;
}

std::vector<std::string> open_generator_io_shape_params(const GeneratorIOShape &shape, const std::string &name) {
    std::vector<std::string> open;
    if (!shape.types_fixed) open.push_back(name + ".type");
    if (!shape.dimensions_fixed) open.push_back(name + ".dim");
    if (shape.is_array && !shape.size_fixed) open.push_back(name + ".size");
    return open;
}

loom::LoopLevel parse_generator_loop_level(const std::string &who, const std::string &text) {
    if (text == "root") return loom::LoopLevel::root();
    if (text == "inline" || text == "inlined") return loom::LoopLevel::inlined();
    size_t dot = text.find('.');
    if (dot != std::string::npos && text.find('.', dot + 1) == std::string::npos) {
        std::string func = text.substr(0, dot), var = text.substr(dot + 1);
        if (is_identifier(func) && is_identifier(var)) {
            return loom::LoopLevel::from_internal(internal::LoopLevel::at(func, var));
        }
    }
    throw CompileError(who + ": '" + text + "' is not a LoopLevel; write root, inline, or FUNC.VAR (e.g. output.y).");
}

void require_generator_io_shape(const GeneratorIOShape &shape, const std::string &who, const std::string &name) {
    if (shape.types.empty()) {
        throw CompileError(who + " has no type yet; give it in the declaration or set " + name +
                           ".type=uint8 (or another type) on the command line.");
    }
    if (shape.dimensions < 0) {
        throw CompileError(who + " has no dimension count yet; give it in the declaration or set " + name +
                           ".dim=N on the command line.");
    }
}

Argument generator_input_buffer_argument(const GeneratorIOShape &shape, const std::string &name) {
    Argument a;
    a.name = name;
    a.kind = Argument::InputBuffer;
    a.type = shape.types.empty() ? Type() : shape.types[0];
    a.dimensions = shape.dimensions;
    return a;
}

void throw_generator_array_unsized(const std::string &who, const std::string &name) {
    throw CompileError(who + " has no size yet; set " + name + ".size=N on the command line or call " + name +
                       ".resize(n) in configure().");
}

void throw_generator_array_index(const std::string &who, size_t index, size_t size) {
    throw CompileError(who + ": index " + std::to_string(index) + " is out of range; the array has " +
                       std::to_string(size) + " elements.");
}

// ---- Inputs and Outputs without a shape of their own -------------------------

Argument GeneratorInputBase::argument() const {
    throw InternalError("GeneratorInputBase::argument() on an Input without a single argument");
}

bool GeneratorInputBase::set_shape_param(const std::string &, const std::string &) { return false; }

const Func &GeneratorOutputBase::func() const {
    throw InternalError("GeneratorOutputBase::func() on an Output without a single Func");
}

bool GeneratorOutputBase::set_shape_param(const std::string &key, const std::string &value) {
    int size_before = shape_.array_size;
    bool set = set_generator_io_shape(shape_, describe_generator_member(owner_, "Output", member_name()), key, value,
                                      /*allow_tuple=*/true);
    if (set && key == "size" && shape_.array_size != size_before) on_resize(shape_.array_size);
    return set;
}

std::vector<std::string> GeneratorOutputBase::open_shape_params() const {
    return open_generator_io_shape_params(shape_, member_name());
}

// ---- GeneratorImageInputs ----------------------------------------------------

GeneratorImageInputs::GeneratorImageInputs(const std::string &name, std::optional<Type> fixed_type,
                                           std::optional<Type> type, std::optional<int> dimensions, int array_size)
    : name_(name) {
    if (fixed_type && type && *fixed_type != *type) {
        throw CompileError(describe() + " holds " + fixed_type->to_string() + " buffers; the constructor's type " +
                           type->to_string() + " contradicts it (use Buffer<> to give the type as an argument).");
    }
    if (fixed_type) type = fixed_type;
    if (type) {
        shape_.types = {*type};
        shape_.types_fixed = true;
    }
    if (dimensions) {
        if (*dimensions < 0) throw CompileError(describe() + " can't have a negative number of dimensions.");
        shape_.dimensions = *dimensions;
        shape_.dimensions_fixed = true;
    }
    shape_.is_array = array_size >= 0;
    if (array_size > 0) {
        shape_.array_size = array_size;
        shape_.size_fixed = true;
    }
}

std::string GeneratorImageInputs::describe() const { return describe_generator_member(owner_, "Input", name_); }

bool GeneratorImageInputs::set_shape_param(const std::string &key, const std::string &value) {
    if (created_) {
        throw CompileError(describe() + ": '" + name_ + "." + key +
                           "' can't be set after the Input was used (its buffer parameters exist already).");
    }
    return set_generator_io_shape(shape_, describe(), key, value, /*allow_tuple=*/false);
}

std::vector<std::string> GeneratorImageInputs::open_shape_params() const {
    return open_generator_io_shape_params(shape_, name_);
}

size_t GeneratorImageInputs::size() const {
    if (!shape_.is_array) return 1;
    if (shape_.array_size < 0) {
        throw CompileError(describe() + " has no size yet; set " + name_ + ".size=N on the command line or call " +
                           name_ + ".resize(n) in configure().");
    }
    return size_t(shape_.array_size);
}

void GeneratorImageInputs::resize(size_t n) {
    if (!shape_.is_array || shape_.size_fixed) {
        throw CompileError(describe() + " can't be resized; only Input arrays declared with [] can.");
    }
    if (created_) throw CompileError(describe() + " can't be resized after it was used.");
    shape_.array_size = int(n);
}

Type GeneratorImageInputs::type() const {
    if (shape_.types.empty()) {
        throw CompileError(describe() + " has no type yet; give it in the declaration or set " + name_ +
                           ".type=uint8 (or another type) on the command line.");
    }
    return shape_.types[0];
}

int GeneratorImageInputs::dimensions() const {
    if (shape_.dimensions < 0) {
        throw CompileError(describe() + " has no dimension count yet; give it in the declaration or set " + name_ +
                           ".dim=N on the command line.");
    }
    return shape_.dimensions;
}

void GeneratorImageInputs::create() const {
    if (created_) return;
    Type t = type();
    int d = dimensions();
    size_t n = size();
    images_.clear();
    for (size_t i = 0; i < n; i++) images_.emplace_back(t, d, shape_.is_array ? element_name(name_, i) : name_);
    created_ = true;
}

ImageParam &GeneratorImageInputs::image(size_t i) const {
    create();
    if (i >= images_.size()) {
        throw CompileError(describe() + ": index " + std::to_string(i) + " is out of range; the array has " +
                           std::to_string(images_.size()) + " elements.");
    }
    return images_[i];
}

std::vector<Argument> GeneratorImageInputs::arguments() const {
    if (created_) {
        std::vector<Argument> args;
        for (const ImageParam &p : images_) args.emplace_back(p);
        return args;
    }
    // Not created yet (e.g. the driver's -l): describe what is known.
    size_t n = shape_.is_array ? size_t(std::max(shape_.array_size, 0)) : 1;
    std::vector<Argument> args;
    for (size_t i = 0; i < n; i++) {
        Argument a;
        a.name = shape_.is_array ? element_name(name_, i) : name_;
        a.kind = Argument::InputBuffer;
        a.type = shape_.types.empty() ? Type() : shape_.types[0];
        a.dimensions = shape_.dimensions;
        args.push_back(a);
    }
    return args;
}

// ---- GeneratorFuncOutputs ----------------------------------------------------

GeneratorFuncOutputs::GeneratorFuncOutputs(const std::string &name, std::vector<Type> types, int dimensions,
                                           int array_size)
    : GeneratorOutputBase(std::move(types), dimensions), name_(name) {
    shape_.is_array = true;
    if (array_size > 0) {
        shape_.size_fixed = true;
        shape_.array_size = array_size;
        on_resize(array_size);
    }
}

void GeneratorFuncOutputs::on_resize(int n) {
    funcs_.clear();
    for (int i = 0; i < n; i++) funcs_.emplace_back(ExactFuncName{element_name(name_, size_t(i))});
}

void GeneratorFuncOutputs::resize(size_t n) {
    if (shape_.size_fixed) {
        throw CompileError(describe_generator_member(owner_, "Output", name_) +
                           " can't be resized; only Output arrays declared with [] can.");
    }
    if (shape_.array_size == int(n)) return;
    shape_.array_size = int(n);
    on_resize(int(n));
}

Func &GeneratorFuncOutputs::operator[](size_t i) {
    if (i >= funcs_.size()) {
        throw CompileError(describe_generator_member(owner_, "Output", name_) + ": index " + std::to_string(i) +
                           " is out of range; the array has " + std::to_string(funcs_.size()) +
                           " elements (set " + name_ + ".size=N or call " + name_ + ".resize(n)).");
    }
    return funcs_[i];
}

const Func &GeneratorFuncOutputs::operator[](size_t i) const {
    return const_cast<GeneratorFuncOutputs *>(this)->operator[](i);
}

}  // namespace internal
}  // namespace loom
