// One ONNX backend test case (a folder with model.onnx and test_data_set_N/{input,output}_K.pb),
// run one of two ways:
// - float: import, compiler passes, the reference interpreter; every output within the ONNX
//   tolerance of the shipped one (integer outputs exactly);
// - int8: the whole `loom compile` pipeline, calibrated (min-max) on the data set's own inputs,
//   lowered to a package, run by the runtime on the `cpu` and `fsim` devices. The two must agree
//   bit for bit, and the int8 result's SQNR against the shipped fp32 output must reach
//   RunnerOptions::min_sqnr_db (35 dB, for accelerator and host operators alike).
#ifndef LOOM_TESTS_CONFORMANCE_CASE_RUNNER_H_
#define LOOM_TESTS_CONFORMANCE_CASE_RUNNER_H_

#include <string>
#include <vector>

#include "runtime/core/status.h"

namespace loom::conformance {

enum class Outcome { kPassed, kFailed, kUnsupported };
const char* OutcomeName(Outcome o);

struct CaseResult {
  std::string name;  // "node/test_add"
  Outcome outcome = Outcome::kFailed;
  std::string detail;  // the error, the missing op/attribute, or the worst deviation
  double max_abs_error = 0.0;
  int data_sets = 0;
  // int8 path: the worst SQNR (dB) of any output against the shipped fp32 one (+inf when
  // exact), and whether any operator ran on the accelerator.
  double sqnr_db = 0.0;
  bool accelerated = false;
};

struct Tolerance {
  // ONNX backend-test defaults (numpy.testing.assert_allclose): |got - want| <= atol + rtol*|want|.
  double rtol = 1e-3;
  double atol = 1e-7;
};

enum class Path { kFloat, kInt8 };

struct RunnerOptions {
  Path path = Path::kFloat;
  std::vector<std::string> passes;  // float: pipeline run between import and execution
  Tolerance tolerance;              // float
  std::string config = "1x16x16";   // int8: the accelerator configuration compiled for
  double min_sqnr_db = 35.0;       // int8: every output's SQNR against fp32
};

// `dir` is the case folder, `name` its label in reports.
CaseResult RunCase(const std::string& dir, const std::string& name, const RunnerOptions& options);

}  // namespace loom::conformance

#endif  // LOOM_TESTS_CONFORMANCE_CASE_RUNNER_H_
