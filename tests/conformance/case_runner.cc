#include "tests/conformance/case_runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "compiler/exec/interpreter.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/pass_manager.h"

namespace loom::conformance {
namespace fs = std::filesystem;

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPassed:
      return "passed";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kUnsupported:
      return "unsupported";
  }
  return "?";
}

namespace {

Status ReadTensor(const fs::path& path, ir::Tensor* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read " + path.string());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string name;
  return frontend::ParseTensorProto(bytes.data(), bytes.size(), out, &name)
      .WithContext(path.filename().string());
}

// The files named <prefix>_0.pb, <prefix>_1.pb, ... in index order.
std::vector<fs::path> Numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int i = 0;; ++i) {
    fs::path p = dir / (prefix + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    files.push_back(p);
  }
  return files;
}

// Compares one output; on mismatch writes a description into *why. Tracks the largest absolute
// float error in *max_err.
bool Compare(const ir::Tensor& got, const ir::Tensor& want, const Tolerance& tol, double* max_err,
             std::string* why) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    *why = "got " + ir::TypeToString(got.dtype(), got.shape()) + ", expected " +
           ir::TypeToString(want.dtype(), want.shape());
    return false;
  }
  const int64_t n = got.num_elements();
  if (got.dtype() != ir::DType::kF32) {
    // Integer and bool outputs must match exactly.
    if (got.byte_size() == want.byte_size() &&
        (n == 0 || std::equal(got.bytes(), got.bytes() + got.byte_size(), want.bytes()))) {
      return true;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (got.ElementAsDouble(i) != want.ElementAsDouble(i)) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "element %lld: got %.17g, expected %.17g (exact match needed)",
                      static_cast<long long>(i), got.ElementAsDouble(i), want.ElementAsDouble(i));
        *why = buf;
        return false;
      }
    }
    return true;
  }
  const float* g = got.data<float>();
  const float* w = want.data<float>();
  int64_t worst = -1;
  double worst_excess = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(g[i]) || std::isnan(w[i])) {
      if (std::isnan(g[i]) && std::isnan(w[i])) continue;
      worst = i;
      worst_excess = INFINITY;
      continue;
    }
    if (g[i] == w[i]) continue;  // includes equal infinities
    const double err = std::fabs(static_cast<double>(g[i]) - w[i]);
    *max_err = std::max(*max_err, err);
    const double excess = err - (tol.atol + tol.rtol * std::fabs(static_cast<double>(w[i])));
    if (excess > 0 && (worst < 0 || excess > worst_excess)) {
      worst = i;
      worst_excess = excess;
    }
  }
  if (worst < 0) return true;
  char buf[200];
  std::snprintf(buf, sizeof buf, "element %lld: got %.9g, expected %.9g (max abs error %.3g)",
                static_cast<long long>(worst), g[worst], w[worst], *max_err);
  *why = buf;
  return false;
}

}  // namespace

namespace {

// Import + passes; on failure fills r and returns false.
bool Compile(const std::string& model, const frontend::ImportOptions& import,
             const RunnerOptions& options, ir::Graph* g, CaseResult* r) {
  Status s = frontend::ImportOnnxFile(model, import, g);
  if (!s.ok()) {
    r->outcome = s.code() == StatusCode::kUnimplemented ? Outcome::kUnsupported : Outcome::kFailed;
    r->detail = s.ToString();
    return false;
  }
  s = passes::RunPipeline(options.passes, g);
  if (!s.ok()) {
    r->outcome = Outcome::kFailed;
    r->detail = "passes: " + s.ToString();
    return false;
  }
  return true;
}

}  // namespace

CaseResult RunCase(const std::string& dir, const std::string& name, const RunnerOptions& options) {
  CaseResult r;
  r.name = name;
  const std::string model = (fs::path(dir) / "model.onnx").string();
  // Inputs that feed shape parameters are compile-time values in Loom: freeze them from each
  // data set (and compile once per set); every other input is fed at run time.
  std::vector<frontend::OnnxInput> onnx_inputs;
  {
    std::ifstream in(model, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Status s = frontend::ListOnnxInputs(bytes.data(), bytes.size(), &onnx_inputs);
    if (!s.ok()) {
      r.detail = s.ToString();
      return r;
    }
  }
  bool freeze = false;
  for (const frontend::OnnxInput& in : onnx_inputs) freeze = freeze || in.compile_time;

  ir::Graph g;
  if (!freeze && !Compile(model, {}, options, &g, &r)) return r;
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) {
    r.detail = "no test_data_set_* folders";
    return r;
  }
  for (const fs::path& set : sets) {
    const std::string where = set.filename().string();
    std::vector<ir::Tensor> all_inputs, inputs, outputs, expected;
    Status s;
    for (const fs::path& p : Numbered(set, "input")) {
      all_inputs.emplace_back();
      s = ReadTensor(p, &all_inputs.back());
      if (!s.ok()) break;
    }
    for (const fs::path& p : Numbered(set, "output")) {
      if (!s.ok()) break;
      expected.emplace_back();
      s = ReadTensor(p, &expected.back());
    }
    if (s.ok() && all_inputs.size() != onnx_inputs.size()) {
      s = InvalidArgument("the data set has " + std::to_string(all_inputs.size()) +
                          " inputs, the model " + std::to_string(onnx_inputs.size()));
    }
    if (!s.ok()) {
      r.outcome = Outcome::kFailed;
      r.detail = where + ": " + s.ToString();
      return r;
    }
    frontend::ImportOptions import;
    for (size_t i = 0; i < onnx_inputs.size(); ++i) {
      if (onnx_inputs[i].compile_time) {
        import.constant_inputs[onnx_inputs[i].name] = all_inputs[i];
      } else {
        inputs.push_back(all_inputs[i]);
      }
    }
    if (freeze && !Compile(model, import, options, &g, &r)) return r;
    s = exec::Run(g, inputs, &outputs);
    if (!s.ok()) {
      r.outcome = s.code() == StatusCode::kUnimplemented ? Outcome::kUnsupported : Outcome::kFailed;
      r.detail = where + ": " + s.ToString();
      return r;
    }
    if (outputs.size() != expected.size()) {
      r.detail = where + ": graph has " + std::to_string(outputs.size()) +
                 " outputs, the data set " + std::to_string(expected.size());
      return r;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string why;
      if (!Compare(outputs[i], expected[i], options.tolerance, &r.max_abs_error, &why)) {
        r.detail = where + " output " + std::to_string(i) + ": " + why;
        return r;
      }
    }
    ++r.data_sets;
  }
  r.outcome = Outcome::kPassed;
  return r;
}

}  // namespace loom::conformance
