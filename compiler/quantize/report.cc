#include "compiler/quantize/report.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "compiler/interp/interpreter.h"

namespace loom::quantize {

Status MeasureSqnr(const ir::Graph& float_graph, const ir::Graph& q_graph,
                   const std::vector<Sample>& samples, const QuantizeResult& result,
                   std::vector<double>* sqnr_db) {
  const size_t n = result.layers.size();
  std::vector<double> signal(n, 0.0), noise(n, 0.0);
  std::map<ir::ValueId, size_t> by_float, by_q;
  for (size_t i = 0; i < n; ++i) {
    by_float[result.layers[i].float_output] = i;
    by_q[result.layers[i].q_output] = i;
  }
  std::vector<std::vector<float>> ref(n);
  std::vector<ir::Tensor> outs;
  for (const Sample& s : samples) {
    LOOM_RETURN_IF_ERROR(
        interp::Run(float_graph, s, &outs, [&](ir::ValueId id, const ir::Tensor& t) {
          auto it = by_float.find(id);
          if (it != by_float.end() && t.dtype() == DType::kF32) {
            ref[it->second].assign(t.data<float>(), t.data<float>() + t.num_elements());
          }
        }));
    LOOM_RETURN_IF_ERROR(interp::Run(q_graph, s, &outs, [&](ir::ValueId id, const ir::Tensor& t) {
      auto it = by_q.find(id);
      if (it == by_q.end() || t.dtype() != DType::kI8) return;
      const size_t l = it->second;
      const float scale = q_graph.value(id).quant->scales[0];
      const int32_t zero = q_graph.value(id).quant->zero_points[0];
      const int8_t* q = t.data<int8_t>();
      const std::vector<float>& r = ref[l];
      if (static_cast<int64_t>(r.size()) != t.num_elements()) return;  // same elements, 2-D vs 4-D
      for (size_t k = 0; k < r.size(); ++k) {
        const double e =
            static_cast<double>(r[k]) - static_cast<double>(int32_t{q[k]} - zero) * scale;
        signal[l] += static_cast<double>(r[k]) * r[k];
        noise[l] += e * e;
      }
    }));
  }
  sqnr_db->assign(n, 0.0);
  for (size_t i = 0; i < n; ++i) (*sqnr_db)[i] = SqnrDb(signal[i], noise[i]);
  return Status::Ok();
}

double SqnrDb(double signal, double noise) {
  return noise == 0.0 ? std::numeric_limits<double>::infinity()
                      : 10.0 * std::log10(signal / noise);
}

double SqnrDb(const float* got, const float* want, size_t n) {
  double signal = 0, noise = 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = static_cast<double>(got[i]) - want[i];
    signal += static_cast<double>(want[i]) * want[i];
    noise += e * e;
  }
  return SqnrDb(signal, noise);
}

nlohmann::json LayerToJson(const LayerInfo& l, double sqnr_db) {
  nlohmann::json j;
  j["name"] = l.name;
  j["source_op"] = l.source_op;
  j["op"] = l.op;
  j["input_scales"] = l.input_scales;
  j["output_scale"] = l.output_scale;
  j["output_scale_given"] = l.given_scale;
  if (l.op == "q.conv2d") {
    j["weight_min"] = l.weight_min;
    j["weight_max"] = l.weight_max;
    j["bias_saturated"] = l.bias_saturated;
  }
  if (l.op == "q.conv2d" || l.op == "q.avg_pool" || l.op == "q.mul") {
    j["requant"] = {{"pre_shift", l.pre_shift}, {"post_shift", l.post_shift},
                    {"clip_lo", l.clip_lo}, {"clip_hi", l.clip_hi}, {"mult", l.mults}};
  } else if (l.op == "q.add") {
    j["requant"] = {{"mult_a", l.mults[0]}, {"mult_b", l.mults[1]}, {"shift", l.shift},
                    {"clip_lo", l.clip_lo}, {"clip_hi", l.clip_hi}};
  } else if (l.op == "q.concat") {
    j["requant"] = {{"mults", l.mults}};
  }
  // JSON has no infinity: an exact layer reports null.
  if (std::isfinite(sqnr_db)) {
    j["sqnr_db"] = sqnr_db;
  } else {
    j["sqnr_db"] = nullptr;
  }
  return j;
}

void PrintLayerTable(const QuantizeResult& result, const std::vector<double>& sqnr_db,
                     std::ostream& os) {
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %-12s %-10s %-10s %-10s %-7s %-14s\n", "layer", "op",
                "in scale", "out scale", "w max|w|", "SQNR dB", "shifts pre/post");
  os << line;
  for (size_t i = 0; i < result.layers.size(); ++i) {
    const LayerInfo& l = result.layers[i];
    const double s = i < sqnr_db.size() ? sqnr_db[i] : 0.0;
    char sq[32];
    if (i >= sqnr_db.size()) {
      std::snprintf(sq, sizeof sq, "-");
    } else if (std::isfinite(s)) {
      std::snprintf(sq, sizeof sq, "%.1f", s);
    } else {
      std::snprintf(sq, sizeof sq, "exact");
    }
    const float wmax = std::max(std::fabs(l.weight_min), std::fabs(l.weight_max));
    std::snprintf(line, sizeof line, "%-28.28s %-12s %-10.3g %-10.3g %-10.3g %-7s %lld/%lld\n",
                  l.name.c_str(), l.op.c_str(), l.input_scales.empty() ? 0.0 : l.input_scales[0],
                  static_cast<double>(l.output_scale), static_cast<double>(wmax), sq,
                  static_cast<long long>(l.pre_shift), static_cast<long long>(l.post_shift));
    os << line;
  }
}

}  // namespace loom::quantize
