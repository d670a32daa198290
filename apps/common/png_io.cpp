#include "png_io.h"

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include <png.h>

namespace apps {
namespace {

using loom::Runtime::Buffer;

struct FileCloser {
    void operator()(std::FILE *f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

[[noreturn]] void fail(const std::string &path, const std::string &what) {
    throw std::runtime_error("PNG file " + path + ": " + what);
}

// libpng reports errors through longjmp; this handler turns them into a
// message that the caller throws after the jump.
void record_error(png_structp png, png_const_charp message) {
    auto *where = static_cast<std::string *>(png_get_error_ptr(png));
    *where = message;
    png_longjmp(png, 1);
}

void ignore_warning(png_structp, png_const_charp) {}

// The decoded rows of a PNG, samples big-endian for 16 bits, as libpng
// gives them after normalising the colour type to gray or RGB.
struct DecodedPng {
    int width = 0, height = 0, channels = 0, bit_depth = 0;
    std::vector<uint8_t> bytes;  // height rows of width * channels samples
    size_t row_bytes = 0;
};

DecodedPng decode(const std::string &path) {
    File file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        fail(path, "cannot be opened for reading");
    }
    png_byte signature[8];
    if (std::fread(signature, 1, 8, file.get()) != 8 || png_sig_cmp(signature, 0, 8) != 0) {
        fail(path, "is not a PNG file");
    }
    std::string error;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, record_error, ignore_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        fail(path, "libpng could not allocate its state");
    }
    // Everything with a destructor lives outside the setjmp scope, so a
    // longjmp back here skips none.
    DecodedPng result;
    std::vector<png_bytep> rows;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        fail(path, "cannot be decoded: " + error);
    }
    png_init_io(png, file.get());
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);

    const int color_type = png_get_color_type(png, info);
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(png);
    }
    if (color_type == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) {
        png_set_expand_gray_1_2_4_to_8(png);
    }
    if (color_type & PNG_COLOR_MASK_ALPHA) {
        png_set_strip_alpha(png);
    }
    if (png_get_valid(png, info, PNG_INFO_tRNS)) {
        png_set_tRNS_to_alpha(png);
        png_set_strip_alpha(png);
    }
    png_read_update_info(png, info);

    result.width = static_cast<int>(png_get_image_width(png, info));
    result.height = static_cast<int>(png_get_image_height(png, info));
    result.channels = png_get_channels(png, info);
    result.bit_depth = png_get_bit_depth(png, info);
    result.row_bytes = png_get_rowbytes(png, info);
    result.bytes.resize(result.row_bytes * static_cast<size_t>(result.height));
    rows.resize(static_cast<size_t>(result.height));
    for (int y = 0; y < result.height; y++) {
        rows[y] = result.bytes.data() + result.row_bytes * static_cast<size_t>(y);
    }
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    if (result.channels != 1 && result.channels != 3) {
        fail(path, "has " + std::to_string(result.channels) + " channels after conversion; expected gray or RGB");
    }
    return result;
}

// Sample i of row y as a value of the file's own bit depth.
int sample(const DecodedPng &png, int y, size_t i) {
    const uint8_t *row = png.bytes.data() + png.row_bytes * static_cast<size_t>(y);
    if (png.bit_depth == 16) {
        return (row[2 * i] << 8) | row[2 * i + 1];
    }
    return row[i];
}

template<typename T>
Buffer<T> load(const std::string &path) {
    DecodedPng png = decode(path);
    Buffer<T> image(png.width, png.height, png.channels);
    for (int y = 0; y < png.height; y++) {
        for (int x = 0; x < png.width; x++) {
            for (int c = 0; c < png.channels; c++) {
                int v = sample(png, y, static_cast<size_t>(x) * png.channels + c);
                if constexpr (sizeof(T) == 1) {
                    image(x, y, c) = static_cast<T>(png.bit_depth == 16 ? (v * 255 + 32767) / 65535 : v);
                } else {
                    image(x, y, c) = static_cast<T>(png.bit_depth == 16 ? v : v * 257);
                }
            }
        }
    }
    return image;
}

template<typename T>
void save(const std::string &path, const Buffer<T> &image) {
    const int rank = image.dimensions();
    const int channels = rank == 3 ? image.dim(2).extent() : 1;
    if ((rank != 2 && rank != 3) || (channels != 1 && channels != 3)) {
        fail(path, "cannot be written from a buffer of rank " + std::to_string(rank) +
                       " with " + std::to_string(channels) + " channels; expected (x, y) or (x, y, 1 or 3)");
    }
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    const int x0 = image.dim(0).min(), y0 = image.dim(1).min(), c0 = rank == 3 ? image.dim(2).min() : 0;
    constexpr int bytes_per_sample = sizeof(T);
    std::vector<uint8_t> bytes(static_cast<size_t>(width) * height * channels * bytes_per_sample);
    size_t i = 0;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            for (int c = 0; c < channels; c++) {
                const T v = rank == 3 ? image(x0 + x, y0 + y, c0 + c) : image(x0 + x, y0 + y);
                if constexpr (bytes_per_sample == 2) {
                    bytes[i++] = static_cast<uint8_t>(v >> 8);
                }
                bytes[i++] = static_cast<uint8_t>(v & 0xff);
            }
        }
    }

    File file(std::fopen(path.c_str(), "wb"));
    if (!file) {
        fail(path, "cannot be opened for writing");
    }
    std::string error;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, record_error, ignore_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        fail(path, "libpng could not allocate its state");
    }
    std::vector<png_bytep> rows(static_cast<size_t>(height));
    const size_t row_bytes = static_cast<size_t>(width) * channels * bytes_per_sample;
    for (int y = 0; y < height; y++) {
        rows[y] = bytes.data() + row_bytes * static_cast<size_t>(y);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fail(path, "cannot be encoded: " + error);
    }
    png_init_io(png, file.get());
    png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), bytes_per_sample * 8,
                 channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
}

}  // namespace

Buffer<uint8_t> load_png8(const std::string &path) { return load<uint8_t>(path); }
Buffer<uint16_t> load_png16(const std::string &path) { return load<uint16_t>(path); }
void save_png(const std::string &path, const Buffer<uint8_t> &image) { save(path, image); }
void save_png(const std::string &path, const Buffer<uint16_t> &image) { save(path, image); }

}  // namespace apps
