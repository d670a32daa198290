#ifndef LOOM_ONNX_BACKEND_TEST_H
#define LOOM_ONNX_BACKEND_TEST_H

/** \file
 * Running an ONNX backend test directory (model.onnx and
 * test_data_set_N/input_K.pb, output_K.pb), as `loom-onnx test` does and
 * the conformance tests do. Outputs match when every element has
 * |actual - expected| <= atol + rtol * |expected| (NaN matches NaN), with
 * the backend tests' tolerances by default.
 */

#include <string>
#include <vector>

#include "loom/onnx/Onnx.h"

namespace loom::onnx {

struct DataSetResult {
    std::string name;
    bool passed = false;
    double max_difference = 0;  // largest |actual - expected| over all outputs
    std::string message;        // why it failed
};

struct BackendTestResult {
    std::string dir;
    bool passed = false;       // every data set matched
    std::string error;         // a CompileError / RuntimeError, if one ended the test
    std::vector<DataSetResult> data_sets;
    int compilations = 0;
    double compile_and_run_ms = 0;
};

/** Compares two values; `why` says what differs. */
bool values_match(const Value &expected, const Value &actual, double rtol, double atol, double &max_difference,
                  std::string &why);

/** Never throws for a bad model or data: the error is in the result. */
BackendTestResult run_backend_test(const std::string &dir, const CompileOptions &options = {}, double rtol = 1e-3,
                                   double atol = 1e-7);

}  // namespace loom::onnx

#endif
