#ifndef LOOM_TOOLS_IMAGE_IO_H
#define LOOM_TOOLS_IMAGE_IO_H

/** \file
 * Loading and saving images as buffers: Loom's counterpart of Halide's
 * tools/halide_image_io.h, with the same names in loom::Tools, so a Halide
 * program that includes halide_image_io.h ports by including this header:
 *
 *     #include <loom/tools/ImageIO.h>
 *     using namespace loom::Tools;
 *     Buffer<uint8_t> in = load_image("input.png");        // (width, height[, channels])
 *     Buffer<float> f = load_and_convert_image("in.png");  // samples scaled to [0, 1]
 *     save_image(out, "out.png");                          // uint8_t or uint16_t samples
 *     convert_and_save_image(f, "out.png");                // any type, scaled back
 *
 * Formats, chosen by the file name's extension (case-insensitive):
 *  - .png: gray, gray + alpha, RGB, RGBA; 8 or 16 bits a sample. Reading
 *    expands palettes and 1/2/4-bit gray to 8 bits and a tRNS chunk to an
 *    alpha channel. Needs libpng: link it (CMake: find_package(PNG) and
 *    PNG::PNG, or -lpng), or define LOOM_NO_PNG before including this header
 *    to leave it out (PNG files are then a RuntimeError that says so).
 *  - .pgm (gray) and .ppm (RGB): binary P5/P6, maxval 255 or 65535; no library.
 *  - Halide's other formats (.jpg, .tmp, .mat, .npy) are not supported: a
 *    RuntimeError names the file and the supported extensions.
 *
 * Images are buffers of (x, y) for one gray channel and (x, y, c) otherwise,
 * planar (x innermost, then y, then c), as Halide's load_image makes them.
 * Saving writes the buffer's whole region, from its mins, and accepts any
 * layout; a 3-D buffer needs 1 to 4 channels (1 or 3 for PGM/PPM).
 *
 * Types. load_image keeps the file's sample type (uint8_t for 8-bit files,
 * uint16_t for 16-bit ones): assigning it to a Buffer of another element
 * type is a RuntimeError that points at load_and_convert_image. save_image
 * takes uint8_t or uint16_t samples. The converting forms map between the
 * file's type and the buffer's as Halide's do: integer types are scaled by
 * the ratio of their maxima (8 -> 16 bits multiplies by 257, 16 -> 8 keeps
 * the high byte), floating point spans [0, 1] (clamped when saving).
 *
 * Every failure (a file that cannot be opened, is not the format its name
 * says, or a buffer of the wrong shape or type) throws loom::RuntimeError
 * naming the file and what to do; nothing aborts.
 */

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/Error.h"

#ifndef LOOM_NO_PNG
#include <png.h>
#endif

namespace loom {
namespace Tools {
namespace image_io_internal {

[[noreturn]] inline void fail(const std::string &path, const std::string &what) {
    throw RuntimeError("image file '" + path + "': " + what);
}

/** Samples of an image as read or to be written: interleaved, row by row, each
 * an unsigned value of bit_depth (8 or 16) bits. */
struct RawImage {
    int width = 0, height = 0, channels = 0, bit_depth = 8;
    std::vector<uint16_t> samples;
    uint16_t &at(int x, int y, int c) {
        return samples[(static_cast<size_t>(y) * width + x) * channels + c];
    }
};

inline std::string extension_of(const std::string &path) {
    const size_t dot = path.find_last_of('.');
    const size_t slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot + 1);
    for (char &ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return ext;
}

[[noreturn]] inline void unsupported_format(const std::string &path) {
    fail(path, "the extension '" + extension_of(path) +
                   "' is not a format loom::Tools reads or writes; use .png, .pgm or .ppm");
}

struct FileCloser {
    void operator()(std::FILE *f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

inline File open_file(const std::string &path, const char *mode) {
    File f(std::fopen(path.c_str(), mode));
    if (!f) {
        fail(path, std::string("cannot be opened for ") + (mode[0] == 'r' ? "reading" : "writing") +
                       ": check that the path exists and is accessible");
    }
    return f;
}

// ---- PGM / PPM (binary P5 / P6) ----------------------------------------------

inline int read_pnm_number(std::FILE *f, const std::string &path) {
    int ch = std::fgetc(f);
    for (;;) {  // whitespace and '#' comments before the number
        while (ch != EOF && std::isspace(ch)) ch = std::fgetc(f);
        if (ch != '#') break;
        while (ch != EOF && ch != '\n') ch = std::fgetc(f);
    }
    if (ch == EOF || !std::isdigit(ch)) fail(path, "has a malformed PGM/PPM header");
    long value = 0;
    while (ch != EOF && std::isdigit(ch)) {
        value = value * 10 + (ch - '0');
        if (value > (1 << 30)) fail(path, "has a malformed PGM/PPM header (a number too large)");
        ch = std::fgetc(f);
    }
    return static_cast<int>(value);  // the one whitespace after it is consumed
}

inline RawImage read_pnm(const std::string &path) {
    File f = open_file(path, "rb");
    char magic[2] = {0, 0};
    if (std::fread(magic, 1, 2, f.get()) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6')) {
        fail(path, "is not a binary PGM (P5) or PPM (P6) file");
    }
    RawImage im;
    im.channels = magic[1] == '5' ? 1 : 3;
    im.width = read_pnm_number(f.get(), path);
    im.height = read_pnm_number(f.get(), path);
    const int maxval = read_pnm_number(f.get(), path);
    if (im.width <= 0 || im.height <= 0 || (maxval != 255 && maxval != 65535)) {
        fail(path, "has a PGM/PPM header Loom does not read (size " + std::to_string(im.width) + "x" +
                       std::to_string(im.height) + ", maxval " + std::to_string(maxval) +
                       "; maxval must be 255 or 65535)");
    }
    im.bit_depth = maxval == 255 ? 8 : 16;
    const size_t count = static_cast<size_t>(im.width) * im.height * im.channels;
    const size_t bytes_per_sample = im.bit_depth / 8;
    std::vector<uint8_t> bytes(count * bytes_per_sample);
    if (std::fread(bytes.data(), 1, bytes.size(), f.get()) != bytes.size()) fail(path, "is truncated");
    im.samples.resize(count);
    for (size_t i = 0; i < count; i++) {
        im.samples[i] = bytes_per_sample == 1 ? bytes[i] : static_cast<uint16_t>((bytes[2 * i] << 8) | bytes[2 * i + 1]);
    }
    return im;
}

inline void write_pnm(const std::string &path, const RawImage &im) {
    if (im.channels != 1 && im.channels != 3) {
        fail(path, "cannot hold " + std::to_string(im.channels) +
                       " channels: PGM is gray (1 channel), PPM is RGB (3); use .png for gray + alpha or RGBA");
    }
    const std::string ext = extension_of(path);
    if ((ext == "pgm") != (im.channels == 1)) {
        fail(path, std::string("is a .") + ext + " file but the buffer has " + std::to_string(im.channels) +
                       " channel(s): write gray images to .pgm and RGB images to .ppm");
    }
    File f = open_file(path, "wb");
    const std::string header = std::string(im.channels == 1 ? "P5" : "P6") + "\n" + std::to_string(im.width) + " " +
                               std::to_string(im.height) + "\n" + (im.bit_depth == 8 ? "255" : "65535") + "\n";
    std::vector<uint8_t> bytes;
    bytes.reserve(im.samples.size() * (im.bit_depth / 8));
    for (uint16_t v : im.samples) {
        if (im.bit_depth == 16) bytes.push_back(static_cast<uint8_t>(v >> 8));
        bytes.push_back(static_cast<uint8_t>(v & 0xff));
    }
    if (std::fwrite(header.data(), 1, header.size(), f.get()) != header.size() ||
        std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size()) {
        fail(path, "could not be written completely (is the disk full?)");
    }
}

// ---- PNG (libpng) -------------------------------------------------------------

#ifndef LOOM_NO_PNG
// libpng reports errors by longjmp; the handler keeps the message for the throw
// that follows the jump (nothing with a destructor lives in the setjmp scope).
inline void png_record_error(png_structp png, png_const_charp message) {
    *static_cast<std::string *>(png_get_error_ptr(png)) = message;
    png_longjmp(png, 1);
}
inline void png_ignore_warning(png_structp, png_const_charp) {}

inline RawImage read_png(const std::string &path) {
    File file = open_file(path, "rb");
    png_byte signature[8];
    if (std::fread(signature, 1, 8, file.get()) != 8 || png_sig_cmp(signature, 0, 8) != 0) {
        fail(path, "is not a PNG file (its first bytes are not the PNG signature)");
    }
    std::string error;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, png_record_error, png_ignore_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        fail(path, "libpng could not allocate its state");
    }
    RawImage im;
    std::vector<uint8_t> bytes;
    std::vector<png_bytep> rows;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        fail(path, "cannot be decoded: " + error);
    }
    png_init_io(png, file.get());
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);
    const int color_type = png_get_color_type(png, info);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    png_read_update_info(png, info);
    im.width = static_cast<int>(png_get_image_width(png, info));
    im.height = static_cast<int>(png_get_image_height(png, info));
    im.channels = png_get_channels(png, info);
    im.bit_depth = png_get_bit_depth(png, info);
    const size_t row_bytes = png_get_rowbytes(png, info);
    bytes.resize(row_bytes * static_cast<size_t>(im.height));
    rows.resize(static_cast<size_t>(im.height));
    for (int y = 0; y < im.height; y++) rows[y] = bytes.data() + row_bytes * static_cast<size_t>(y);
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    const size_t count = static_cast<size_t>(im.width) * im.height * im.channels;
    im.samples.resize(count);
    for (int y = 0; y < im.height; y++) {
        const uint8_t *row = rows[y];
        for (size_t i = 0; i < static_cast<size_t>(im.width) * im.channels; i++) {
            im.samples[static_cast<size_t>(y) * im.width * im.channels + i] =
                im.bit_depth == 16 ? static_cast<uint16_t>((row[2 * i] << 8) | row[2 * i + 1]) : row[i];
        }
    }
    return im;
}

inline void write_png(const std::string &path, const RawImage &im) {
    const int bytes_per_sample = im.bit_depth / 8;
    const size_t row_bytes = static_cast<size_t>(im.width) * im.channels * bytes_per_sample;
    std::vector<uint8_t> bytes(row_bytes * static_cast<size_t>(im.height));
    size_t i = 0;
    for (uint16_t v : im.samples) {
        if (bytes_per_sample == 2) bytes[i++] = static_cast<uint8_t>(v >> 8);
        bytes[i++] = static_cast<uint8_t>(v & 0xff);
    }
    std::vector<png_bytep> rows(static_cast<size_t>(im.height));
    for (int y = 0; y < im.height; y++) rows[y] = bytes.data() + row_bytes * static_cast<size_t>(y);
    const int color_type = im.channels == 1   ? PNG_COLOR_TYPE_GRAY
                           : im.channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
                           : im.channels == 3 ? PNG_COLOR_TYPE_RGB
                                              : PNG_COLOR_TYPE_RGB_ALPHA;
    File file = open_file(path, "wb");
    std::string error;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, png_record_error, png_ignore_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        fail(path, "libpng could not allocate its state");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fail(path, "cannot be encoded: " + error);
    }
    png_init_io(png, file.get());
    png_set_IHDR(png, info, static_cast<png_uint_32>(im.width), static_cast<png_uint_32>(im.height), im.bit_depth,
                 color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
}
#endif  // LOOM_NO_PNG

inline RawImage read_any(const std::string &path) {
    const std::string ext = extension_of(path);
    if (ext == "png") {
#ifndef LOOM_NO_PNG
        return read_png(path);
#else
        fail(path, "is a PNG file, and this program was compiled with LOOM_NO_PNG: build it without LOOM_NO_PNG "
                   "and link libpng, or use .pgm/.ppm");
#endif
    }
    if (ext == "pgm" || ext == "ppm") return read_pnm(path);
    unsupported_format(path);
}

inline void write_any(const std::string &path, const RawImage &im) {
    const std::string ext = extension_of(path);
    if (ext == "png") {
#ifndef LOOM_NO_PNG
        write_png(path, im);
        return;
#else
        fail(path, "is a PNG file, and this program was compiled with LOOM_NO_PNG: build it without LOOM_NO_PNG "
                   "and link libpng, or use .pgm/.ppm");
#endif
    }
    if (ext == "pgm" || ext == "ppm") {
        write_pnm(path, im);
        return;
    }
    unsupported_format(path);
}

template<typename T>
constexpr const char *type_name() {
    if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
    if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
    if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
    if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
    if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
    if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
    if constexpr (std::is_same_v<T, float>) return "float";
    if constexpr (std::is_same_v<T, double>) return "double";
    return "this element type";
}

/** The number of value bits of an integer type (7 for int8_t, 16 for uint16_t). */
template<typename T>
constexpr int value_bits() {
    return static_cast<int>(sizeof(T) * 8) - (std::is_signed_v<T> ? 1 : 0);
}

/** A sample of bit_depth (8 or 16) bits as a T: integer types are scaled by the
 * ratio of the maxima (through a 16-bit value: 8 -> 16 bits multiplies by 257,
 * 16 -> 8 keeps the high byte), floating point spans [0, 1]. */
template<typename T>
T convert_from_sample(uint16_t v, int bit_depth) {
    const uint64_t v16 = bit_depth == 16 ? v : static_cast<uint64_t>(v) * 257;
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(v16 / 65535.0);
    } else {
        constexpr int bits = value_bits<T>();
        const uint64_t v32 = v16 * 65537u;  // 16 -> 32 bits of the same fraction
        if constexpr (bits <= 16) {
            return static_cast<T>(v16 >> (16 - bits));
        } else if constexpr (bits <= 32) {
            return static_cast<T>(v32 >> (32 - bits));
        } else {
            return static_cast<T>(v32 << (bits - 32));
        }
    }
}

/** A T as a sample of bit_depth bits, the inverse of convert_from_sample;
 * floating point is clamped to [0, 1] and negative integers to 0. */
template<typename T>
uint16_t convert_to_sample(T v, int bit_depth) {
    uint64_t v16;
    if constexpr (std::is_floating_point_v<T>) {
        const double clamped = std::min(1.0, std::max(0.0, static_cast<double>(v)));
        v16 = static_cast<uint64_t>(clamped * 65535.0 + 0.5);
    } else {
        constexpr int bits = value_bits<T>();
        const uint64_t u = v < 0 ? 0 : static_cast<uint64_t>(v);
        if constexpr (bits >= 16) {
            v16 = u >> (bits - 16);
        } else {
            v16 = u * 65535u / ((uint64_t(1) << bits) - 1);
        }
    }
    return static_cast<uint16_t>(bit_depth == 16 ? v16 : v16 >> 8);
}

template<typename ImageType>
using ElemOf = std::remove_const_t<typename ImageType::ElemType>;

template<typename ImageType>
ImageType to_buffer(const RawImage &im, const std::string &path, bool convert) {
    using T = ElemOf<ImageType>;
    static_assert(!std::is_void_v<T>, "load_image needs a Buffer with an element type, e.g. Buffer<uint8_t>");
    const bool matches = (im.bit_depth == 8 && std::is_same_v<T, uint8_t>) ||
                         (im.bit_depth == 16 && std::is_same_v<T, uint16_t>);
    if (!convert && !matches) {
        fail(path, "holds " + std::to_string(im.bit_depth) + "-bit samples (" +
                       (im.bit_depth == 8 ? "uint8_t" : "uint16_t") + ") but is loaded into a Buffer<" +
                       type_name<T>() + ">: use load_and_convert_image to convert the samples, or a Buffer<" +
                       (im.bit_depth == 8 ? "uint8_t" : "uint16_t") + ">");
    }
    std::vector<int> sizes = {im.width, im.height};
    if (im.channels > 1) sizes.push_back(im.channels);
    ImageType result(sizes);
    RawImage &source = const_cast<RawImage &>(im);
    for (int c = 0; c < im.channels; c++) {
        for (int y = 0; y < im.height; y++) {
            for (int x = 0; x < im.width; x++) {
                const T v = convert_from_sample<T>(source.at(x, y, c), im.bit_depth);
                if (im.channels > 1) {
                    result(x, y, c) = v;
                } else {
                    result(x, y) = v;
                }
            }
        }
    }
    return result;
}

template<typename ImageType>
RawImage from_buffer(const ImageType &image, const std::string &path, bool convert) {
    using T = ElemOf<ImageType>;
    static_assert(!std::is_void_v<T>, "save_image needs a Buffer with an element type, e.g. Buffer<uint8_t>");
    if (!image.defined()) fail(path, "cannot be written from an undefined buffer");
    constexpr bool native = std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>;
    if (!convert && !native) {
        fail(path, std::string("cannot be written from a Buffer<") + type_name<T>() +
                       ">: save_image takes uint8_t or uint16_t samples; use convert_and_save_image to convert");
    }
    const int rank = image.dimensions();
    if (rank != 2 && rank != 3) {
        fail(path, "cannot be written from a buffer of " + std::to_string(rank) +
                       " dimensions: images are (x, y) or (x, y, c)");
    }
    RawImage im;
    im.width = image.dim(0).extent();
    im.height = image.dim(1).extent();
    im.channels = rank == 3 ? image.dim(2).extent() : 1;
    if (im.channels < 1 || im.channels > 4) {
        fail(path, "cannot be written from a buffer with " + std::to_string(im.channels) +
                       " channels: an image has 1 (gray), 2 (gray + alpha), 3 (RGB) or 4 (RGBA)");
    }
    im.bit_depth = std::is_same_v<T, uint16_t> ? 16 : 8;
    im.samples.resize(static_cast<size_t>(im.width) * im.height * im.channels);
    const int x0 = image.dim(0).min(), y0 = image.dim(1).min(), c0 = rank == 3 ? image.dim(2).min() : 0;
    for (int c = 0; c < im.channels; c++) {
        for (int y = 0; y < im.height; y++) {
            for (int x = 0; x < im.width; x++) {
                const T v = rank == 3 ? image(x0 + x, y0 + y, c0 + c) : image(x0 + x, y0 + y);
                im.at(x, y, c) = convert_to_sample<T>(v, im.bit_depth);
            }
        }
    }
    return im;
}

}  // namespace image_io_internal

/** Loads an image file into a Buffer whose element type is the file's
 * (uint8_t or uint16_t); as in Halide, a value of this class converts to the
 * Buffer it is assigned to: Buffer<uint8_t> in = load_image("in.png");
 * \throws RuntimeError (see the file comment). */
class load_image {
public:
    explicit load_image(const std::string &filename) : filename_(filename) {}
    template<typename ImageType>
    operator ImageType() const {
        using namespace image_io_internal;
        return to_buffer<ImageType>(read_any(filename_), filename_, /*convert=*/false);
    }

private:
    std::string filename_;
};

/** Loads an image file into a Buffer of any element type, converting the
 * samples (floating point spans [0, 1]). \throws RuntimeError. */
class load_and_convert_image {
public:
    explicit load_and_convert_image(const std::string &filename) : filename_(filename) {}
    template<typename ImageType>
    operator ImageType() const {
        using namespace image_io_internal;
        return to_buffer<ImageType>(read_any(filename_), filename_, /*convert=*/true);
    }

private:
    std::string filename_;
};

/** Saves a buffer of uint8_t or uint16_t samples; the format follows the
 * extension. \throws RuntimeError (see the file comment). */
template<typename ImageType>
void save_image(const ImageType &image, const std::string &filename) {
    using namespace image_io_internal;
    write_any(filename, from_buffer(image, filename, /*convert=*/false));
}

/** Saves a buffer of any element type, converting the samples to 8 bits
 * (16 for uint16_t buffers; floating point is clamped to [0, 1]). */
template<typename ImageType>
void convert_and_save_image(const ImageType &image, const std::string &filename) {
    using namespace image_io_internal;
    write_any(filename, from_buffer(image, filename, /*convert=*/true));
}

}  // namespace Tools
}  // namespace loom

#endif
