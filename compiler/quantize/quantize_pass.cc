// The `quantize` pass (pass registry): calibrate on random N(0, 1) inputs or an .npy file, then
// QuantizeGraph. The compiler driver (loom compile) calls the same steps with its own options.
#include <cstdlib>
#include <iostream>

#include "compiler/passes/pass.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/quantize.h"

namespace loom::quantize {
namespace {

using passes::PassOptions;

Status Quantize(ir::Graph& g, const PassOptions& options) {
  CalibrationOptions cal;
  auto get = [&](const char* key, const char* fallback) {
    auto it = options.find(key);
    return it == options.end() ? std::string(fallback) : it->second;
  };
  if (!ParseCalibrationMethod(get("method", "percentile"), &cal.method)) {
    return InvalidArgument("quantize: method must be minmax, percentile or mse, got '" +
                           get("method", "") + "'");
  }
  char* end = nullptr;
  const std::string pct = get("percentile", "99.99");
  cal.percentile = std::strtod(pct.c_str(), &end);
  if (pct.empty() || *end != '\0') return InvalidArgument("quantize: bad percentile '" + pct + "'");
  int64_t samples = 0, seed = 0;
  QuantizeOptions qo;
  LOOM_RETURN_IF_ERROR(passes::IntOption(options, "samples", kDefaultSamples, &samples));
  LOOM_RETURN_IF_ERROR(passes::IntOption(options, "seed", 0, &seed));
  LOOM_RETURN_IF_ERROR(passes::IntOption(options, "block", 0, &qo.block));
  if (samples < 0 || samples > 1000000 || seed < 0 || seed > UINT32_MAX || qo.block < 0 ||
      qo.block > 256) {
    return InvalidArgument(
        "quantize: samples must be in [0, 1000000], seed in [0, 2^32) and block in [0, 256]");
  }
  std::vector<Sample> set;
  const std::string file = get("calibration", "");
  if (file.empty()) {
    LOOM_RETURN_IF_ERROR(
        RandomCalibrationSet(g, static_cast<int>(samples), static_cast<uint32_t>(seed), &set));
  } else {
    LOOM_RETURN_IF_ERROR(LoadCalibrationSet(g, {file}, &set));
  }
  Ranges ranges;
  LOOM_RETURN_IF_ERROR(CollectRanges(g, set, cal, &ranges));
  QuantizeResult result;
  return QuantizeGraph(g, ranges, &result, qo);
}

Status ImportQdq(ir::Graph& g, const PassOptions&) {
  std::vector<std::string> warnings;
  LOOM_RETURN_IF_ERROR(ImportPrequantized(g, &warnings));
  for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
  return Status::Ok();
}

}  // namespace

void RegisterQuantizePasses() {
  passes::RegisterPass({"import-qdq",
                        "adopt the scales of a pre-quantized (QDQ) model: fold int8 weights, drop "
                        "Q/DQ pairs",
                        "", ImportQdq});
  passes::RegisterPass(
      {"quantize", "calibrate and rewrite into the int8 q.* graph (docs/quantization.md)",
       "calibration=: .npy samples (default: random N(0,1)); method=percentile: "
       "minmax, percentile or mse; percentile=99.99: of |x|; samples=8: random samples; "
       "seed=0: their seed; block=0: the channel block grouped convolutions merge into (0: none)",
       Quantize});
}

}  // namespace loom::quantize
