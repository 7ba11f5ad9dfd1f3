#include "tests/conformance/case_runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "compiler/frontend/onnx_import.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/verifier.h"
#include "compiler/package/lower.h"
#include "compiler/package/writer.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/pipeline/compile.h"
#include "compiler/quantize/report.h"
#include "runtime/drivers/sim/sim_drivers.h"
#include "runtime/exec/executor.h"

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
// float error in *max_err. float64 and float16 are compared in double under the same tolerance.
bool Compare(const ir::Tensor& got, const ir::Tensor& want, const Tolerance& tol, double* max_err,
             std::string* why) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    *why = "got " + ir::TypeToString(got.dtype(), got.shape()) + ", expected " +
           ir::TypeToString(want.dtype(), want.shape());
    return false;
  }
  const int64_t n = got.num_elements();
  if (!IsFloat(got.dtype())) {
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
  int64_t worst = -1;
  double worst_excess = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double g = got.ElementAsDouble(i), w = want.ElementAsDouble(i);
    if (std::isnan(g) || std::isnan(w)) {
      if (std::isnan(g) && std::isnan(w)) continue;
      worst = i;
      worst_excess = INFINITY;
      continue;
    }
    if (g == w) continue;  // includes equal infinities
    const double err = std::fabs(g - w);
    *max_err = std::max(*max_err, err);
    const double excess = err - (tol.atol + tol.rtol * std::fabs(w));
    if (excess > 0 && (worst < 0 || excess > worst_excess)) {
      worst = i;
      worst_excess = excess;
    }
  }
  if (worst < 0) return true;
  char buf[200];
  std::snprintf(buf, sizeof buf, "element %lld: got %.17g, expected %.17g (max abs error %.3g)",
                static_cast<long long>(worst), got.ElementAsDouble(worst),
                want.ElementAsDouble(worst), *max_err);
  *why = buf;
  return false;
}

// Unimplemented means a missing operator, attribute or kernel; anything else is a failure.
void Fail(const std::string& where, const Status& s, CaseResult* r) {
  r->outcome = s.code() == StatusCode::kUnimplemented ? Outcome::kUnsupported : Outcome::kFailed;
  r->detail = where + ": " + s.ToString();
}

// A test_data_set_N folder, read: inputs frozen into compile-time constants split from those fed
// at run time, and the expected outputs.
struct DataSet {
  std::string where;  // "test_data_set_0"
  frontend::ImportOptions import;
  std::vector<ir::Tensor> inputs, expected;
};

// Reads every data set of the case; on failure fills r and returns false.
bool ReadDataSets(const std::string& dir, const std::vector<frontend::OnnxInput>& onnx_inputs,
                  std::vector<DataSet>* out, CaseResult* r) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) {
    r->detail = "no test_data_set_* folders";
    return false;
  }
  for (const fs::path& set : sets) {
    DataSet d;
    d.where = set.filename().string();
    std::vector<ir::Tensor> all_inputs;
    Status s;
    for (const fs::path& p : Numbered(set, "input")) {
      all_inputs.emplace_back();
      s = ReadTensor(p, &all_inputs.back());
      if (!s.ok()) break;
    }
    for (const fs::path& p : Numbered(set, "output")) {
      if (!s.ok()) break;
      d.expected.emplace_back();
      s = ReadTensor(p, &d.expected.back());
    }
    if (s.ok() && all_inputs.size() != onnx_inputs.size()) {
      s = InvalidArgument("the data set has " + std::to_string(all_inputs.size()) +
                          " inputs, the model " + std::to_string(onnx_inputs.size()));
    }
    if (!s.ok()) {
      Fail(d.where, s, r);
      return false;
    }
    for (size_t i = 0; i < onnx_inputs.size(); ++i) {
      if (onnx_inputs[i].compile_time) {
        d.import.constant_inputs[onnx_inputs[i].name] = all_inputs[i];
      } else {
        d.inputs.push_back(all_inputs[i]);
      }
    }
    out->push_back(std::move(d));
  }
  return true;
}

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

// `g` is the compiled graph unless inputs are frozen (then each data set compiles its own).
CaseResult RunFloat(const std::string& model, const std::vector<DataSet>& sets, bool freeze,
                    const RunnerOptions& options, ir::Graph g, CaseResult r) {
  for (const DataSet& d : sets) {
    if (freeze && !Compile(model, d.import, options, &g, &r)) return r;
    std::vector<ir::Tensor> outputs;
    Status s = interp::Run(g, d.inputs, &outputs);
    if (!s.ok()) {
      Fail(d.where, s, &r);
      return r;
    }
    if (outputs.size() != d.expected.size()) {
      r.outcome = Outcome::kFailed;
      r.detail = d.where + ": graph has " + std::to_string(outputs.size()) +
                 " outputs, the data set " + std::to_string(d.expected.size());
      return r;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string why;
      if (!Compare(outputs[i], d.expected[i], options.tolerance, &r.max_abs_error, &why)) {
        r.outcome = Outcome::kFailed;
        r.detail = d.where + " output " + std::to_string(i) + ": " + why;
        return r;
      }
    }
    ++r.data_sets;
  }
  r.outcome = Outcome::kPassed;
  return r;
}

// Runs the package on one device; outputs come back dequantized (one multiplication by the
// output's scale, so equal float bits mean equal int8 results).
Status RunPackage(const std::vector<uint8_t>& bytes, const std::string& device,
                  const std::vector<runtime::HostTensor>& inputs,
                  std::vector<runtime::HostTensor>* outputs, bool* accelerated) {
  std::unique_ptr<runtime::Package> pkg;
  LOOM_RETURN_IF_ERROR(runtime::Package::LoadMemory(bytes.data(), bytes.size(), &pkg));
  std::unique_ptr<runtime::Driver> drv;
  LOOM_RETURN_IF_ERROR(runtime::RegisterSimulatorDrivers());
  LOOM_RETURN_IF_ERROR(runtime::CreateDriver(device, &drv));
  std::unique_ptr<runtime::Executor> ex;
  LOOM_RETURN_IF_ERROR(runtime::Executor::Create(std::move(pkg), std::move(drv), {}, &ex));
  LOOM_RETURN_IF_ERROR(ex->Run(inputs, {}, outputs));
  if (accelerated != nullptr) *accelerated = ex->profile().Total().insns > 0;
  return Status::Ok();
}

std::string Db(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f dB", v);
  return b;
}

CaseResult RunInt8(const std::string& model, const std::vector<DataSet>& sets,
                   const RunnerOptions& options, CaseResult r) {
  r.sqnr_db = INFINITY;
  for (const DataSet& d : sets) {
    pipeline::CompileOptions co;
    co.model_path = model;
    co.config = options.config;
    co.constant_inputs = d.import.constant_inputs;
    co.calibration_samples = {d.inputs};
    co.method = quantize::CalibrationMethod::kMinMax;
    co.measure_sqnr = false;
    pipeline::CompileResult compiled;
    Status s = pipeline::CompileModel(co, &compiled);
    package::PackageSpec spec;
    package::LowerReport lowering;
    std::vector<uint8_t> bytes;
    if (s.ok()) {
      s = package::LowerToPackage(compiled.graph, compiled.config, {}, &spec, &lowering);
    }
    if (s.ok()) s = package::SerializePackage(spec, &bytes);
    if (!s.ok()) {
      Fail(d.where + ": compile", s, &r);
      return r;
    }
    std::vector<runtime::HostTensor> inputs;
    for (size_t i = 0; i < d.inputs.size(); ++i) {
      runtime::HostTensor h;
      h.name = compiled.graph.value(compiled.graph.inputs()[i]).name();
      h.type = d.inputs[i].dtype();
      h.shape = d.inputs[i].shape();
      h.data.assign(d.inputs[i].bytes(), d.inputs[i].bytes() + d.inputs[i].byte_size());
      inputs.push_back(std::move(h));
    }
    std::vector<runtime::HostTensor> on_cpu, on_fsim;
    s = RunPackage(bytes, "cpu", inputs, &on_cpu, nullptr);
    if (!s.ok()) {
      Fail(d.where + ": cpu", s, &r);
      return r;
    }
    bool accelerated = false;
    s = RunPackage(bytes, "fsim", inputs, &on_fsim, &accelerated);
    if (!s.ok()) {
      Fail(d.where + ": fsim", s, &r);
      return r;
    }
    r.accelerated = r.accelerated || accelerated;
    if (on_cpu.size() != d.expected.size() || on_fsim.size() != d.expected.size()) {
      r.outcome = Outcome::kFailed;
      r.detail = d.where + ": the package has " + std::to_string(on_cpu.size()) +
                 " outputs, the data set " + std::to_string(d.expected.size());
      return r;
    }
    for (size_t i = 0; i < on_cpu.size(); ++i) {
      const std::string out = d.where + " output " + std::to_string(i);
      const ir::Tensor& want = d.expected[i];
      // int8 outputs come back as float32 (see below).
      const size_t size = want.byte_size() * (want.dtype() == DType::kI8 ? 4 : 1);
      if (on_cpu[i].data.size() != size || on_fsim[i].data.size() != size) {
        r.outcome = Outcome::kFailed;
        r.detail = out + ": " + std::to_string(on_cpu[i].data.size()) + " bytes, expected " +
                   std::to_string(size);
        return r;
      }
      if (on_cpu[i].data != on_fsim[i].data) {
        const auto diff = std::mismatch(on_cpu[i].data.begin(), on_cpu[i].data.end(),
                                        on_fsim[i].data.begin());
        r.outcome = Outcome::kFailed;
        r.detail = out + ": cpu and fsim differ from byte " +
                   std::to_string(diff.first - on_cpu[i].data.begin());
        return r;
      }
      // The int8 path quantizes float32 only: every other type (integers, bool, float16/64)
      // passes through the CPU segments as the float path computes it, under the same check.
      if (want.dtype() != DType::kF32) {
        ir::Tensor got;
        std::string why;
        double max_err = 0.0;
        // A package's int8 tensors are quantized ones: the executor returns them dequantized,
        // and a model's own int8 tensor has scale 1, so its float32 values are its integers.
        std::vector<uint8_t> raw = on_cpu[i].data;
        if (want.dtype() == DType::kI8 && on_cpu[i].type == DType::kF32) {
          raw.resize(raw.size() / 4);
          for (size_t k = 0; k < raw.size(); ++k) {
            float f;
            std::memcpy(&f, on_cpu[i].data.data() + 4 * k, 4);
            raw[k] = static_cast<uint8_t>(static_cast<int8_t>(std::lrint(f)));
          }
        }
        s = ir::Tensor::FromBytes(want.dtype(), want.shape(), std::move(raw), &got);
        if (!s.ok() || !Compare(got, want, options.tolerance, &max_err, &why)) {
          r.outcome = Outcome::kFailed;
          r.detail = out + ": " + (s.ok() ? why : s.ToString());
          return r;
        }
        continue;
      }
      const double db = quantize::SqnrDb(reinterpret_cast<const float*>(on_cpu[i].data.data()),
                                         want.data<float>(),
                                         static_cast<size_t>(want.num_elements()));
      r.sqnr_db = std::min(r.sqnr_db, db);
      if (db < options.min_sqnr_db) {
        r.outcome = Outcome::kFailed;
        r.detail = out + ": SQNR " + Db(db) + " against fp32, below the required " +
                   Db(options.min_sqnr_db) + (accelerated ? " (on the accelerator)" : " (host only)");
        return r;
      }
    }
    ++r.data_sets;
  }
  r.outcome = Outcome::kPassed;
  r.detail = "SQNR " + (std::isinf(r.sqnr_db) ? std::string("exact") : Db(r.sqnr_db)) +
             (r.accelerated ? ", on the accelerator" : ", host only");
  return r;
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
      Fail(model, s, &r);  // a sequence input is unsupported, a broken model a failure
      return r;
    }
  }
  bool freeze = false;
  for (const frontend::OnnxInput& in : onnx_inputs) freeze = freeze || in.compile_time;
  // Import first: a model Loom cannot import is reported by what it lacks, before its data files
  // (which may hold sequences or optionals, not tensors) are read.
  ir::Graph g;
  if (!freeze) {
    RunnerOptions import_only = options;
    if (options.path == Path::kInt8) import_only.passes.clear();
    if (!Compile(model, {}, import_only, &g, &r)) return r;
  }
  std::vector<DataSet> sets;
  if (!ReadDataSets(dir, onnx_inputs, &sets, &r)) return r;
  if (options.path == Path::kFloat) {
    return RunFloat(model, sets, freeze, options, std::move(g), std::move(r));
  }
  return RunInt8(model, sets, options, std::move(r));
}

}  // namespace loom::conformance
