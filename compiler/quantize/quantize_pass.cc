// The `quantize` pass (pass registry): calibrate on random N(0, 1) inputs or an .npy file, then
// QuantizeGraph. The compiler driver (loom compile) calls the same steps with its own options.
#include <cstdlib>
#include <iostream>

#include "compiler/passes/pass.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/quantize.h"

namespace loom::passes {

Status Quantize(ir::Graph& g, const PassOptions& options) {
  quantize::CalibrationOptions cal;
  auto get = [&](const char* key, const char* fallback) {
    auto it = options.find(key);
    return it == options.end() ? std::string(fallback) : it->second;
  };
  if (!quantize::ParseCalibrationMethod(get("method", "percentile"), &cal.method)) {
    return InvalidArgument("quantize: method must be minmax or percentile, got '" +
                           get("method", "") + "'");
  }
  char* end = nullptr;
  const std::string pct = get("percentile", "99.99");
  cal.percentile = std::strtod(pct.c_str(), &end);
  if (pct.empty() || *end != '\0') return InvalidArgument("quantize: bad percentile '" + pct + "'");
  // (passes::IntOption lives in loom_passes, which links this library; parse here instead.)
  auto int_option = [&](const char* key, long long fallback, long long* out) {
    const std::string v = get(key, "");
    if (v.empty()) {
      *out = fallback;
      return Status::Ok();
    }
    char* e = nullptr;
    *out = std::strtoll(v.c_str(), &e, 10);
    if (*e != '\0' || *out < 0) {
      return InvalidArgument("quantize: option " + std::string(key) + "=" + v +
                             " is not a non-negative integer");
    }
    return Status::Ok();
  };
  long long samples = 0, seed = 0;
  LOOM_RETURN_IF_ERROR(int_option("samples", quantize::kDefaultSamples, &samples));
  LOOM_RETURN_IF_ERROR(int_option("seed", 0, &seed));
  std::vector<quantize::Sample> set;
  const std::string file = get("calibration", "");
  if (file.empty()) {
    LOOM_RETURN_IF_ERROR(quantize::RandomCalibrationSet(g, static_cast<int>(samples),
                                                        static_cast<uint32_t>(seed), &set));
  } else {
    LOOM_RETURN_IF_ERROR(quantize::LoadCalibrationSet(g, {file}, &set));
  }
  quantize::Ranges ranges;
  LOOM_RETURN_IF_ERROR(quantize::CollectRanges(g, set, cal, &ranges));
  quantize::QuantizeResult result;
  return quantize::QuantizeGraph(g, ranges, &result);
}

Status ImportQdq(ir::Graph& g, const PassOptions&) {
  std::vector<std::string> warnings;
  LOOM_RETURN_IF_ERROR(quantize::ImportPrequantized(g, &warnings));
  for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
  return Status::Ok();
}

}  // namespace loom::passes
