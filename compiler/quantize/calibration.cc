#include "compiler/quantize/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "compiler/interp/interpreter.h"
#include "compiler/quantize/abs_histogram.h"
#include "runtime/core/checked_math.h"
#include "runtime/io/npy.h"

namespace loom::quantize {

bool ParseCalibrationMethod(const std::string& name, CalibrationMethod* out) {
  if (name == "minmax") {
    *out = CalibrationMethod::kMinMax;
    return true;
  }
  if (name == "percentile") {
    *out = CalibrationMethod::kPercentile;
    return true;
  }
  if (name == "mse") {
    *out = CalibrationMethod::kMse;
    return true;
  }
  return false;
}

const char* CalibrationMethodName(CalibrationMethod m) {
  switch (m) {
    case CalibrationMethod::kMinMax:
      return "minmax";
    case CalibrationMethod::kPercentile:
      return "percentile";
    case CalibrationMethod::kMse:
      return "mse";
  }
  return "?";
}

Status LoadCalibrationSet(const ir::Graph& g, const std::vector<std::string>& specs,
                          std::vector<Sample>* out) {
  out->clear();
  std::map<ir::ValueId, std::string> files;
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos) {
      if (g.inputs().size() != 1) {
        return InvalidArgument("--calibration " + spec + ": the model has " +
                               std::to_string(g.inputs().size()) +
                               " inputs; name each one (NAME=FILE.npy)");
      }
      files[g.inputs()[0]] = spec;
      continue;
    }
    const std::string name = spec.substr(0, eq);
    const ir::ValueId id = g.FindValue(name);
    if (id == ir::kNoValue || !g.IsGraphInput(id)) {
      return InvalidArgument("--calibration " + spec + ": '" + name + "' is not a model input");
    }
    files[id] = spec.substr(eq + 1);
  }
  int64_t samples = -1;
  std::vector<std::vector<Sample::value_type>> per_input;
  for (ir::ValueId id : g.inputs()) {
    const ir::Value& v = g.value(id);
    auto it = files.find(id);
    if (it == files.end()) {
      return InvalidArgument("--calibration: no file for model input '" + v.name() + "'");
    }
    const std::string& path = it->second;
    NpyArray a;
    LOOM_RETURN_IF_ERROR(ReadNpy(path, &a));
    // Samples have the input's own type: an index or mask input (int64, bool, ...) is fed as
    // the model takes it; only float32 activations are observed for scales.
    if (a.dtype != v.dtype) {
      return InvalidArgument(path + ": model input '" + v.name() + "' is " +
                             ir::TypeToString(v.dtype, v.shape) +
                             ", so its calibration data must be " + DTypeLongName(v.dtype) +
                             ", not " + DTypeLongName(a.dtype));
    }
    if (v.shape.empty() || v.shape[0] < 1) {
      return InvalidArgument(path + ": model input '" + v.name() + "' is " +
                             ir::TypeToString(v.dtype, v.shape) +
                             "; calibration samples stack on a batch axis, which it lacks");
    }
    const ir::Shape want_rest(v.shape.begin() + 1, v.shape.end());
    const ir::Shape got_rest(a.shape.empty() ? a.shape.begin() : a.shape.begin() + 1,
                             a.shape.end());
    if (a.shape.size() != v.shape.size() || got_rest != want_rest || a.shape[0] % v.shape[0]) {
      return InvalidArgument(path + ": shape " + ir::ShapeToString(a.shape) +
                             " does not stack samples of input '" + v.name() + "' " +
                             ir::ShapeToString(v.shape) + " on axis 0");
    }
    const int64_t s = a.shape[0] / v.shape[0];
    if (s == 0) return InvalidArgument(path + ": holds no samples");
    if (samples >= 0 && s != samples) {
      return InvalidArgument(path + ": holds " + std::to_string(s) + " samples, another file " +
                             std::to_string(samples));
    }
    samples = s;
    // A bool byte other than 0 or 1 is no value the kernels may read.
    if (a.dtype == DType::kBool) {
      for (size_t k = 0; k < a.bytes.size(); ++k) {
        if (a.bytes[k] > 1) {
          return InvalidArgument(path + ": element " + std::to_string(k) + " is " +
                                 std::to_string(a.bytes[k]) + "; a bool array holds 0 or 1");
        }
      }
    }
    std::vector<ir::Tensor> tensors;
    for (int64_t i = 0; i < s; ++i) {
      ir::Tensor t;
      LOOM_RETURN_IF_ERROR(ir::Tensor::Create(v.dtype, v.shape, &t)
                               .WithContext(path + ": sample of input '" + v.name() + "'"));
      // The file holds s samples of exactly this size (checked above), so the copy stays inside.
      if (t.byte_size()) {
        std::memcpy(t.mutable_bytes(), a.bytes.data() + t.byte_size() * static_cast<size_t>(i),
                    t.byte_size());
      }
      tensors.push_back(std::move(t));
    }
    per_input.push_back(std::move(tensors));
  }
  for (int64_t i = 0; i < samples; ++i) {
    Sample s;
    for (auto& in : per_input) s.push_back(in[static_cast<size_t>(i)]);
    out->push_back(std::move(s));
  }
  return Status::Ok();
}

Status RandomCalibrationSet(const ir::Graph& g, int count, uint32_t seed, std::vector<Sample>* out) {
  out->clear();
  // The whole set is held at once, so it gets the per-tensor limit as a whole: `count` samples of
  // a large input must not add up to more memory than one tensor may take.
  uint64_t total = 0;
  for (ir::ValueId id : g.inputs()) {
    const ir::Value& v = g.value(id);
    uint64_t bytes = 0;
    LOOM_RETURN_IF_ERROR(
        ir::TensorBytes(v.dtype, v.shape, &bytes)
            .WithContext("random calibration sample of model input '" + v.name() + "'"));
    if (!CheckedAdd(total, bytes, &total)) total = UINT64_MAX;
  }
  if (count > 0 &&
      (!CheckedMul(total, static_cast<uint64_t>(count), &total) || total > ir::kMaxTensorBytes)) {
    return InvalidArgument("random calibration: " + std::to_string(count) +
                           " samples of the model's inputs need more than the " +
                           std::to_string(ir::kMaxTensorBytes) +
                           " bytes allowed for them; use fewer samples or give --calibration");
  }
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int i = 0; i < count; ++i) {
    Sample s;
    for (ir::ValueId id : g.inputs()) {
      const ir::Value& v = g.value(id);
      if (v.dtype != DType::kF32) {
        return InvalidArgument("model input '" + v.name() + "' is " + DTypeName(v.dtype) +
                               "; random calibration needs f32 inputs (give --calibration)");
      }
      ir::Tensor t;
      LOOM_RETURN_IF_ERROR(
          ir::Tensor::Create(DType::kF32, v.shape, &t)
              .WithContext("random calibration sample of model input '" + v.name() + "'"));
      float* p = t.mutable_data<float>();
      for (int64_t k = 0; k < t.num_elements(); ++k) p[k] = normal(rng);
      s.push_back(std::move(t));
    }
    out->push_back(std::move(s));
  }
  return Status::Ok();
}

Status CollectRanges(const ir::Graph& g, const std::vector<Sample>& samples,
                     const CalibrationOptions& options, Ranges* out, Extents* extents) {
  if (samples.empty()) return InvalidArgument("calibration needs at least one sample");
  if (!(options.percentile > 0.0 && options.percentile <= 100.0)) {
    return InvalidArgument("percentile must be in (0, 100]");
  }
  std::map<ir::ValueId, AbsHistogram> hist;
  Extents ext;
  auto observe = [&](ir::ValueId id, const ir::Tensor& t) {
    if (t.dtype() != DType::kF32) return;
    const float* x = t.data<float>();
    hist[id].Add(x, t.num_elements());
    if (extents == nullptr) return;
    Extent& e = ext[id];  // starts at [0, 0]: 0 is always inside
    float lo = e.lo, hi = e.hi;
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      // NaN compares false both ways and infinities are no range: skipped, as by the histogram.
      if (!std::isfinite(x[i])) continue;
      lo = x[i] < lo ? x[i] : lo;
      hi = x[i] > hi ? x[i] : hi;
    }
    e = {lo, hi};
  };
  std::vector<ir::Tensor> outputs;
  const interp::ReuseConstantWork reuse;  // g is const and outlives the loop
  for (size_t i = 0; i < samples.size(); ++i) {
    for (size_t k = 0; k < samples[i].size(); ++k) observe(g.inputs()[k], samples[i][k]);
    LOOM_RETURN_IF_ERROR(interp::Run(g, samples[i], &outputs, observe)
                             .WithContext("calibration sample " + std::to_string(i)));
    if (options.progress && ((i + 1) % 10 == 0 || i + 1 == samples.size())) {
      *options.progress << "calibration: " << (i + 1) << "/" << samples.size() << " samples\n";
    }
    if (options.on_sample) options.on_sample(i + 1, samples.size());
  }
  out->clear();
  for (const auto& [id, h] : hist) {
    double range = h.max();
    if (options.method == CalibrationMethod::kPercentile) range = h.Percentile(options.percentile);
    if (options.method == CalibrationMethod::kMse) range = h.MseRange();
    (*out)[id] = static_cast<float>(range);
    if (extents == nullptr) continue;
    Extent& e = ext[id];
    e.range = static_cast<float>(range);
    if (options.method == CalibrationMethod::kMse && range > 0.0) {
      // The levels |x| sees on the grid over [max(lo, -R), min(hi, R)]: all 255 when one-sided.
      const double lo = std::max<double>(e.lo, -range), hi = std::min<double>(e.hi, range);
      if (hi - lo > 0.0)
        e.range = static_cast<float>(h.MseRange(255.0 * std::max(hi, -lo) / (hi - lo)));
    }
  }
  if (extents != nullptr) *extents = std::move(ext);
  return Status::Ok();
}

}  // namespace loom::quantize
