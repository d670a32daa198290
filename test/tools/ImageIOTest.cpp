// loom/tools/ImageIO.h: Halide's load_image / save_image family through
// libpng and PGM/PPM, checked by writing buffers, reading them back and
// comparing every sample with plain C++ loops.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include <loom/Loom.h>
#include <loom/tools/ImageIO.h>

using namespace loom;
using namespace loom::Tools;

namespace {

std::string temp_path(const std::string &name) {
    return (std::filesystem::temp_directory_path() / ("loom_image_io_" + name)).string();
}

template<typename T>
Buffer<T> pattern(std::vector<int> sizes, int seed) {
    Buffer<T> b(sizes);
    const int channels = sizes.size() == 3 ? sizes[2] : 1;
    for (int c = 0; c < channels; c++) {
        for (int y = 0; y < sizes[1]; y++) {
            for (int x = 0; x < sizes[0]; x++) {
                const unsigned v = (x * 37u + y * 101u + c * 53u + seed * 7u) * 2654435761u;
                const T value = static_cast<T>(v >> (32 - 8 * sizeof(T)));
                if (sizes.size() == 3) {
                    b(x, y, c) = value;
                } else {
                    b(x, y) = value;
                }
            }
        }
    }
    return b;
}

template<typename T>
void expect_same(const Buffer<T> &a, const Buffer<T> &b) {
    ASSERT_EQ(a.dimensions(), b.dimensions());
    for (int d = 0; d < a.dimensions(); d++) ASSERT_EQ(a.dim(d).extent(), b.dim(d).extent()) << d;
    const int channels = a.dimensions() == 3 ? a.dim(2).extent() : 1;
    for (int c = 0; c < channels; c++) {
        for (int y = 0; y < a.dim(1).extent(); y++) {
            for (int x = 0; x < a.dim(0).extent(); x++) {
                const int ax = a.dim(0).min() + x, ay = a.dim(1).min() + y, bx = b.dim(0).min() + x,
                          by = b.dim(1).min() + y;
                if (a.dimensions() == 3) {
                    ASSERT_EQ(a(ax, ay, a.dim(2).min() + c), b(bx, by, b.dim(2).min() + c)) << x << "," << y << "," << c;
                } else {
                    ASSERT_EQ(a(ax, ay), b(bx, by)) << x << "," << y;
                }
            }
        }
    }
}

template<typename F>
std::string runtime_error_of(F f) {
    try {
        f();
    } catch (const RuntimeError &e) {
        return e.what();
    }
    return "(no RuntimeError)";
}

TEST(ImageIO, PngRoundTripsEveryChannelCountAndDepth) {
    for (int channels : {1, 2, 3, 4}) {
        std::vector<int> sizes = channels == 1 ? std::vector<int>{37, 21} : std::vector<int>{37, 21, channels};
        Buffer<uint8_t> in8 = pattern<uint8_t>(sizes, channels);
        const std::string p8 = temp_path("c" + std::to_string(channels) + "_8.png");
        save_image(in8, p8);
        Buffer<uint8_t> out8 = load_image(p8);
        expect_same(in8, out8);

        Buffer<uint16_t> in16 = pattern<uint16_t>(sizes, channels + 10);
        const std::string p16 = temp_path("c" + std::to_string(channels) + "_16.png");
        save_image(in16, p16);
        Buffer<uint16_t> out16 = load_image(p16);
        expect_same(in16, out16);
        std::remove(p8.c_str());
        std::remove(p16.c_str());
    }
}

TEST(ImageIO, PgmAndPpmRoundTrip) {
    Buffer<uint8_t> gray = pattern<uint8_t>({13, 9}, 1);
    Buffer<uint16_t> rgb16 = pattern<uint16_t>({13, 9, 3}, 2);
    save_image(gray, temp_path("g.pgm"));
    save_image(rgb16, temp_path("c.PPM"));  // the extension is case-insensitive
    Buffer<uint8_t> gray_back = load_image(temp_path("g.pgm"));
    Buffer<uint16_t> rgb_back = load_image(temp_path("c.PPM"));
    expect_same(gray, gray_back);
    expect_same(rgb16, rgb_back);
}

TEST(ImageIO, SavesTheBuffersRegionFromItsMins) {
    Buffer<uint8_t> shifted = pattern<uint8_t>({10, 6, 3}, 5);
    shifted.set_min(100, 50);
    save_image(shifted, temp_path("shifted.png"));
    Buffer<uint8_t> back = load_image(temp_path("shifted.png"));
    EXPECT_EQ(back.dim(0).min(), 0);
    EXPECT_EQ(back.dim(1).min(), 0);
    expect_same(shifted, back);
}

TEST(ImageIO, LoadedImagesArePlanarAndFeedAPipeline) {
    Buffer<uint8_t> in = pattern<uint8_t>({40, 30, 3}, 9);
    save_image(in, temp_path("pipeline.png"));
    Buffer<uint8_t> input = load_image(temp_path("pipeline.png"));
    EXPECT_EQ(input.dim(0).stride(), 1);
    EXPECT_EQ(input.dim(1).stride(), 40);
    EXPECT_EQ(input.dim(2).stride(), 40 * 30);
    // Halide's lesson 2: brighten by 1.5, clamped to 255.
    Func brighter;
    Var x, y, c;
    brighter(x, y, c) = cast<uint8_t>(min(input(x, y, c) * 1.5f, 255));
    Buffer<uint8_t> out = brighter.realize({input.width(), input.height(), input.channels()});
    for (int ch = 0; ch < 3; ch++) {
        for (int j = 0; j < 30; j++) {
            for (int i = 0; i < 40; i++) {
                ASSERT_EQ(out(i, j, ch), static_cast<uint8_t>(std::min(in(i, j, ch) * 1.5f, 255.0f))) << i << "," << j;
            }
        }
    }
}

TEST(ImageIO, ConvertingFormsScaleLikeHalide) {
    Buffer<uint8_t> in = pattern<uint8_t>({16, 8}, 3);
    save_image(in, temp_path("convert.png"));
    Buffer<float> f = load_and_convert_image(temp_path("convert.png"));
    Buffer<uint16_t> wide = load_and_convert_image(temp_path("convert.png"));
    for (int y = 0; y < 8; y++) {
        for (int x = 0; x < 16; x++) {
            EXPECT_FLOAT_EQ(f(x, y), in(x, y) / 255.0f);
            EXPECT_EQ(wide(x, y), in(x, y) * 257);
        }
    }
    // Floats back to 8 bits: scaled by 255, rounded, clamped to [0, 1] first.
    Buffer<float> g(4, 1);
    g(0, 0) = -0.5f;
    g(1, 0) = 0.0f;
    g(2, 0) = 0.5f;
    g(3, 0) = 2.0f;
    convert_and_save_image(g, temp_path("from_float.png"));
    Buffer<uint8_t> g8 = load_image(temp_path("from_float.png"));
    EXPECT_EQ(g8(0, 0), 0);
    EXPECT_EQ(g8(1, 0), 0);
    EXPECT_EQ(g8(2, 0), 128);
    EXPECT_EQ(g8(3, 0), 255);
    // A 16-bit file into 8 bits keeps the high byte.
    Buffer<uint16_t> w(2, 1);
    w(0, 0) = 0x1234;
    w(1, 0) = 0xffff;
    save_image(w, temp_path("wide.png"));
    Buffer<uint8_t> narrow = load_and_convert_image(temp_path("wide.png"));
    EXPECT_EQ(narrow(0, 0), 0x12);
    EXPECT_EQ(narrow(1, 0), 0xff);
}

TEST(ImageIO, ErrorsNameTheFileAndSayWhatToDo) {
    const std::string missing = temp_path("does_not_exist.png");
    std::string what = runtime_error_of([&] { Buffer<uint8_t> b = load_image(missing); });
    EXPECT_NE(what.find(missing), std::string::npos) << what;
    EXPECT_NE(what.find("cannot be opened for reading"), std::string::npos) << what;

    const std::string not_png = temp_path("text.png");
    std::FILE *f = std::fopen(not_png.c_str(), "wb");
    std::fputs("hello, not a picture", f);
    std::fclose(f);
    what = runtime_error_of([&] { Buffer<uint8_t> b = load_image(not_png); });
    EXPECT_NE(what.find("is not a PNG file"), std::string::npos) << what;

    what = runtime_error_of([&] { Buffer<uint8_t> b = load_image(temp_path("photo.jpg")); });
    EXPECT_NE(what.find("'jpg'"), std::string::npos) << what;
    EXPECT_NE(what.find(".png, .pgm or .ppm"), std::string::npos) << what;

    Buffer<uint8_t> gray = pattern<uint8_t>({4, 4}, 0);
    save_image(gray, temp_path("eight.png"));
    what = runtime_error_of([&] { Buffer<float> b = load_image(temp_path("eight.png")); });
    EXPECT_NE(what.find("Buffer<float>"), std::string::npos) << what;
    EXPECT_NE(what.find("load_and_convert_image"), std::string::npos) << what;

    Buffer<float> floats(4, 4);
    what = runtime_error_of([&] { save_image(floats, temp_path("f.png")); });
    EXPECT_NE(what.find("convert_and_save_image"), std::string::npos) << what;

    Buffer<uint8_t> five(4, 4, 5);
    what = runtime_error_of([&] { save_image(five, temp_path("five.png")); });
    EXPECT_NE(what.find("5 channels"), std::string::npos) << what;

    Buffer<uint8_t> rgb(4, 4, 3);
    what = runtime_error_of([&] { save_image(rgb, temp_path("rgb.pgm")); });
    EXPECT_NE(what.find("write gray images to .pgm"), std::string::npos) << what;

    Buffer<uint8_t> flat(16);
    what = runtime_error_of([&] { save_image(flat, temp_path("flat.png")); });
    EXPECT_NE(what.find("1 dimensions"), std::string::npos) << what;
}

}  // namespace
