// One ONNX backend test case (a folder with model.onnx and test_data_set_N/{input,output}_K.pb):
// import it, run the compiler passes, execute every data set on the reference interpreter and
// compare with the shipped outputs.
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
};

struct Tolerance {
  // ONNX backend-test defaults (numpy.testing.assert_allclose): |got - want| <= atol + rtol*|want|.
  double rtol = 1e-3;
  double atol = 1e-7;
};

struct RunnerOptions {
  std::vector<std::string> passes;  // pipeline run between import and execution
  Tolerance tolerance;
};

// `dir` is the case folder, `name` its label in reports.
CaseResult RunCase(const std::string& dir, const std::string& name, const RunnerOptions& options);

}  // namespace loom::conformance

#endif  // LOOM_TESTS_CONFORMANCE_CASE_RUNNER_H_
