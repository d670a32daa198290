// An ONNX model as a C function: test_scan9_sum compiled by `loom-onnx
// compile` at build time (test/onnx/CMakeLists.txt), called here with the
// backend test's data and compared with its expected outputs.

#include <gtest/gtest.h>

#include "loom/onnx/BackendTest.h"

#ifdef LOOM_ONNX_AOT_SCAN9
#include "onnx_scan9_sum.h"
#endif

using namespace loom::onnx;

namespace {

#ifdef LOOM_ONNX_AOT_SCAN9
TEST(OnnxAot, ScanModelAsCFunction) {
    std::string dir = std::string(LOOM_ONNX_TESTDATA) + "/test_scan9_sum";
    Model model = load_model(dir + "/model.onnx");
    Value initial = read_value_file(dir + "/test_data_set_0/input_0.pb", &model.inputs()[0]);
    Value x = read_value_file(dir + "/test_data_set_0/input_1.pb", &model.inputs()[1]);
    Value y_expected = read_value_file(dir + "/test_data_set_0/output_0.pb", &model.outputs()[0]);
    Value z_expected = read_value_file(dir + "/test_data_set_0/output_1.pb", &model.outputs()[1]);
    Value y = Value::zeros(Float32, y_expected.shape), z = Value::zeros(Float32, z_expected.shape);
    int rc = onnx_scan9_sum(initial.tensor.raw_buffer(), x.tensor.raw_buffer(), y.tensor.raw_buffer(),
                            z.tensor.raw_buffer());
    ASSERT_EQ(rc, 0);
    double difference = 0;
    std::string why;
    EXPECT_TRUE(values_match(y_expected, y, 1e-3, 1e-7, difference, why)) << why;
    EXPECT_TRUE(values_match(z_expected, z, 1e-3, 1e-7, difference, why)) << why;
}
#endif

}  // namespace
