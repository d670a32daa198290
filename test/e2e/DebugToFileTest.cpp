// Func::debug_to_file: after the Func is computed, the runtime writes its
// storage to the file in the format of its extension (.npy, .mat, .tiff).
// Each test realizes a pipeline, reads the file back with the small readers
// of DebugFileReaders.h and compares the header and every element with a
// C++ loop. The reference interpreter calls no runtime functions, so there
// the same pipelines are a CompileError naming the Func; on Vulkan the
// pipeline runs (on the CPU where a GPU loop would hold the Func).

#include <cstdio>
#include <string>
#include <vector>

#include "e2e/DebugFileReaders.h"
#include "e2e/E2ETest.h"

namespace {

using namespace loom;
using loom_test::contains;

class DebugToFileTest : public loom_test::BackendTest {
protected:
    /** A file name private to this process and test. */
    std::string file(const std::string &name) {
        std::string unique = std::to_string(getpid()) + "_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
        for (char &c : unique) c = c == '/' ? '_' : c;  // "Test/llvm"
        const std::string path = ::testing::TempDir() + unique;
        files_.push_back(path);
        std::remove(path.c_str());
        return path;
    }
    void TearDown() override {
        for (const std::string &f : files_) std::remove(f.c_str());
        BackendTest::TearDown();
    }
    bool interpreter() const { return GetParam() == internal::Backend::Interpreter; }

    /** Realizes out; on the interpreter, expects the CompileError naming
     * func instead and returns false. */
    template<typename F>
    bool realize_or_refused(F realize, const std::string &func) {
        if (!interpreter()) {
            realize();
            return true;
        }
        std::string msg = loom_test::compile_error_message(realize);
        EXPECT_TRUE(contains(msg, "Func '" + func + "'")) << msg;
        EXPECT_TRUE(contains(msg, "interpreter")) << msg;
        return false;
    }

private:
    std::vector<std::string> files_;
};

int32_t g_value(int x, int y) { return x * 3 - y * 100 + 7; }

TEST_P(DebugToFileTest, NpyOfAFuncComputedAtRoot) {
    const int w = 7, h = 5;
    const std::string path = file("g.npy");
    Var x("x"), y("y");
    Func g("dtf_npy_g"), f("dtf_npy_f");
    g(x, y) = x * 3 - y * 100 + 7;
    f(x, y) = g(x, y) + 1;
    g.compute_root().debug_to_file(path);
    Buffer<int32_t> out(w, h);
    if (!realize_or_refused([&] { f.realize(out); }, "dtf_npy_g")) return;
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return g_value(p[0], p[1]) + 1; });

    loom_test::NpyFile npy = loom_test::read_npy(path);
    ASSERT_EQ(npy.error, "");
    EXPECT_EQ(npy.header_bytes % 64, 0u);
    EXPECT_EQ(npy.descr, "<i4");
    EXPECT_EQ(npy.fortran_order, "False");
    EXPECT_EQ(npy.shape, (std::vector<long>{h, w}));  // C order: the last dimension first
    std::vector<int32_t> values = loom_test::elements_of<int32_t>(npy.data);
    ASSERT_EQ(values.size(), size_t(w * h));
    for (int yy = 0; yy < h; yy++) {
        for (int xx = 0; xx < w; xx++) EXPECT_EQ(values[yy * w + xx], g_value(xx, yy)) << xx << ", " << yy;
    }
}

TEST_P(DebugToFileTest, NpyOfAnOutputWithAnUpdateAndAnOffsetRegion) {
    // The output's own buffer (min 3), after its update definition.
    const std::string path = file("out.npy");
    Var x("x");
    Func f("dtf_npy_out");
    f(x) = cast<float>(x) * 0.5f;
    f(x) += 1.0f;
    f.debug_to_file(path);
    Buffer<float> out(10);
    out.set_min({3});
    if (!realize_or_refused([&] { f.realize(out); }, "dtf_npy_out")) return;
    loom_test::NpyFile npy = loom_test::read_npy(path);
    ASSERT_EQ(npy.error, "");
    EXPECT_EQ(npy.descr, "<f4");
    EXPECT_EQ(npy.shape, (std::vector<long>{10}));
    std::vector<float> values = loom_test::elements_of<float>(npy.data);
    ASSERT_EQ(values.size(), 10u);
    for (int i = 0; i < 10; i++) EXPECT_EQ(values[i], float(i + 3) * 0.5f + 1.0f) << i;
}

TEST_P(DebugToFileTest, MatLevel5OfAFloatFunc) {
    const int w = 6, h = 3;
    const std::string path = file("weights.mat");
    Var x("x"), y("y");
    Func g("dtf_mat_g"), f("dtf_mat_f");
    g(x, y) = cast<double>(x) - cast<double>(y) * 0.25;
    f(x, y) = cast<float>(g(x, y) * 2.0);
    g.compute_root().debug_to_file(path);
    Buffer<float> out(w, h);
    if (!realize_or_refused([&] { f.realize(out); }, "dtf_mat_g")) return;

    loom_test::MatFile mat = loom_test::read_mat(path);
    ASSERT_EQ(mat.error, "");
    EXPECT_EQ(mat.text.rfind("MATLAB 5.0 MAT-file", 0), 0u) << mat.text;
    EXPECT_EQ(mat.class_code, 6u);  // mxDOUBLE_CLASS
    EXPECT_EQ(mat.dims, (std::vector<int32_t>{w, h}));  // column-major: Loom's order
    EXPECT_TRUE(contains(mat.name, "weights")) << mat.name;
    EXPECT_EQ(mat.data_type, 9u);  // miDOUBLE
    std::vector<double> values = loom_test::elements_of<double>(mat.data);
    ASSERT_EQ(values.size(), size_t(w * h));
    for (int yy = 0; yy < h; yy++) {
        for (int xx = 0; xx < w; xx++) EXPECT_EQ(values[yy * w + xx], double(xx) - double(yy) * 0.25);
    }
}

TEST_P(DebugToFileTest, MatOfA1DFuncHasTwoDimensions) {
    const std::string path = file("line.mat");
    Var x("x");
    Func g("dtf_mat1_g"), f("dtf_mat1_f");
    g(x) = cast<int16_t>(x * x - 20);
    f(x) = g(x) * 2;
    g.compute_root().debug_to_file(path);
    Buffer<int16_t> out(9);
    if (!realize_or_refused([&] { f.realize(out); }, "dtf_mat1_g")) return;
    loom_test::MatFile mat = loom_test::read_mat(path);
    ASSERT_EQ(mat.error, "");
    EXPECT_EQ(mat.class_code, 10u);  // mxINT16_CLASS
    EXPECT_EQ(mat.data_type, 3u);    // miINT16
    EXPECT_EQ(mat.dims, (std::vector<int32_t>{9, 1}));
    std::vector<int16_t> values = loom_test::elements_of<int16_t>(mat.data);
    ASSERT_EQ(values.size(), 9u);
    for (int i = 0; i < 9; i++) EXPECT_EQ(values[i], int16_t(i * i - 20));
}

TEST_P(DebugToFileTest, TiffWithPlanesAsFurtherImages) {
    const int w = 5, h = 4, c = 3;
    const std::string path = file("rgb.tiff");
    Var x("x"), y("y"), ch("c");
    Func g("dtf_tiff_g"), f("dtf_tiff_f");
    g(x, y, ch) = cast<uint8_t>(x * 10 + y * 3 + ch * 50);
    f(x, y, ch) = g(x, y, ch) / 2;
    g.compute_root().debug_to_file(path);
    Buffer<uint8_t> out(w, h, c);
    if (!realize_or_refused([&] { f.realize(out); }, "dtf_tiff_g")) return;

    loom_test::TiffFile tiff = loom_test::read_tiff(path);
    ASSERT_EQ(tiff.error, "");
    ASSERT_EQ(tiff.pages.size(), size_t(c));
    for (int p = 0; p < c; p++) {
        const loom_test::TiffPage &page = tiff.pages[p];
        EXPECT_EQ(page.tags.at(256), uint32_t(w));  // ImageWidth
        EXPECT_EQ(page.tags.at(257), uint32_t(h));  // ImageLength
        EXPECT_EQ(page.tags.at(258), 8u);           // BitsPerSample
        EXPECT_EQ(page.tags.at(259), 1u);           // no compression
        EXPECT_EQ(page.tags.at(277), 1u);           // SamplesPerPixel
        EXPECT_EQ(page.tags.at(339), 1u);           // SampleFormat: unsigned
        ASSERT_EQ(page.data.size(), size_t(w * h));
        for (int yy = 0; yy < h; yy++) {
            for (int xx = 0; xx < w; xx++) {
                EXPECT_EQ((uint8_t)page.data[yy * w + xx], uint8_t(xx * 10 + yy * 3 + p * 50)) << xx << yy << p;
            }
        }
    }
}

TEST_P(DebugToFileTest, TifOfSignedAndFloatSamples) {
    const std::string ints = file("i.tif"), floats = file("f.tif");
    Var x("x"), y("y");
    Func a("dtf_tif_a"), b("dtf_tif_b"), f("dtf_tif_f");
    a(x, y) = x - y * 4;
    b(x, y) = cast<float>(a(x, y)) * 1.5f;
    f(x, y) = b(x, y) + 1.0f;
    a.compute_root().debug_to_file(ints);
    b.compute_root().debug_to_file(floats);
    Buffer<float> out(3, 2);
    if (!realize_or_refused([&] { f.realize(out); }, "dtf_tif_a")) return;
    loom_test::TiffFile ti = loom_test::read_tiff(ints), tf = loom_test::read_tiff(floats);
    ASSERT_EQ(ti.error, "");
    ASSERT_EQ(tf.error, "");
    ASSERT_EQ(ti.pages.size(), 1u);
    ASSERT_EQ(tf.pages.size(), 1u);
    EXPECT_EQ(ti.pages[0].tags.at(339), 2u);  // signed
    EXPECT_EQ(ti.pages[0].tags.at(258), 32u);
    EXPECT_EQ(tf.pages[0].tags.at(339), 3u);  // floating point
    std::vector<int32_t> iv = loom_test::elements_of<int32_t>(ti.pages[0].data);
    std::vector<float> fv = loom_test::elements_of<float>(tf.pages[0].data);
    ASSERT_EQ(iv.size(), 6u);
    ASSERT_EQ(fv.size(), 6u);
    for (int yy = 0; yy < 2; yy++) {
        for (int xx = 0; xx < 3; xx++) {
            EXPECT_EQ(iv[yy * 3 + xx], xx - yy * 4);
            EXPECT_EQ(fv[yy * 3 + xx], float(xx - yy * 4) * 1.5f);
        }
    }
}

TEST_P(DebugToFileTest, ComputedInsideALoopTheFileHoldsTheLastProduction) {
    // g is computed per row of f: the file is rewritten for each row and
    // holds the last one (y = 3), a 1-row region.
    const std::string path = file("row.npy");
    Var x("x"), y("y");
    Func g("dtf_row_g"), f("dtf_row_f");
    g(x, y) = x + y * 10;
    f(x, y) = g(x, y) * 2;
    g.compute_at(f, y).debug_to_file(path);
    Buffer<int32_t> out(4, 4);
    if (!realize_or_refused([&] { f.realize(out); }, "dtf_row_g")) return;
    loom_test::expect_buffer_eq(out, [](const std::vector<int> &p) { return (p[0] + p[1] * 10) * 2; });
    loom_test::NpyFile npy = loom_test::read_npy(path);
    ASSERT_EQ(npy.error, "");
    EXPECT_EQ(npy.shape, (std::vector<long>{1, 4}));
    EXPECT_EQ(loom_test::elements_of<int32_t>(npy.data), (std::vector<int32_t>{30, 31, 32, 33}));
}

TEST_P(DebugToFileTest, Errors) {
    Var x("x");
    const std::string path = file("never.npy");

    // Inlined: no storage to write.
    {
        Func g("dtf_err_inlined"), f("dtf_err_inlined_out");
        g(x) = x;
        f(x) = g(x) + 1;
        g.debug_to_file(path);
        std::string msg = loom_test::compile_error_message([&] { f.realize({4}); });
        EXPECT_TRUE(contains(msg, "Func 'dtf_err_inlined'")) << msg;
        if (!interpreter()) EXPECT_TRUE(contains(msg, "compute_root()")) << msg;
    }
    // An extension that names no format.
    {
        Func f("dtf_err_ext");
        f(x) = x;
        f.debug_to_file(file("out.png"));
        std::string msg = loom_test::compile_error_message([&] { f.realize({4}); });
        EXPECT_TRUE(contains(msg, "Func 'dtf_err_ext'")) << msg;
        if (!interpreter()) {
            EXPECT_TRUE(contains(msg, "'.png'")) << msg;
            EXPECT_TRUE(contains(msg, ".npy")) << msg;
        }
    }
    // A Tuple.
    {
        Func f("dtf_err_tuple");
        f(x) = Tuple(x, x * 2);
        f.debug_to_file(path);
        std::string msg = loom_test::compile_error_message([&] { f.realize({4}); });
        EXPECT_TRUE(contains(msg, "Func 'dtf_err_tuple'")) << msg;
        if (!interpreter()) EXPECT_TRUE(contains(msg, "Tuple")) << msg;
    }
    // A type the format cannot hold.
    {
        Func f("dtf_err_half");
        f(x) = cast(Float(16), x);
        f.debug_to_file(file("half.mat"));
        std::string msg = loom_test::compile_error_message([&] { f.realize({4}); });
        EXPECT_TRUE(contains(msg, "Func 'dtf_err_half'")) << msg;
        if (!interpreter()) EXPECT_TRUE(contains(msg, "MATLAB")) << msg;
    }
    // An empty name, at once.
    {
        Func f("dtf_err_empty");
        f(x) = x;
        std::string msg = loom_test::compile_error_message([&] { f.debug_to_file(""); });
        EXPECT_TRUE(contains(msg, "dtf_err_empty")) << msg;
    }
    // A file that cannot be written: a RuntimeError naming the Func and the file.
    {
        Func f("dtf_err_unwritable");
        f(x) = x;
        const std::string bad = "/nonexistent_loom_folder/out.npy";
        f.debug_to_file(bad);
        if (interpreter()) {
            std::string msg = loom_test::compile_error_message([&] { f.realize({4}); });
            EXPECT_TRUE(contains(msg, "Func 'dtf_err_unwritable'")) << msg;
        } else {
            std::string msg = loom_test::runtime_error_message([&] { f.realize({4}); });
            EXPECT_TRUE(contains(msg, "dtf_err_unwritable")) << msg;
            EXPECT_TRUE(contains(msg, bad)) << msg;
        }
    }
}

LOOM_INSTANTIATE_BACKENDS(DebugToFileTest);

}  // namespace
