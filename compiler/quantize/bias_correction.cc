#include "compiler/quantize/bias_correction.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

#include "compiler/interp/interpreter.h"

namespace loom::quantize {
namespace {

using ir::ValueId;

// Runs one graph node by node on every sample at once, so the caller can look at (and change the
// constants of) each node before the next runs. Values are freed after their last reader, except
// `pinned` ones, which live until Release.
class SampleRun {
 public:
  SampleRun(const ir::Graph& g, const std::vector<Sample>& samples, const std::set<ValueId>& pinned)
      : g_(g),
        nv_(static_cast<size_t>(g.num_values())),
        values_(samples.size(), std::vector<ir::Tensor>(nv_)),
        remaining_(nv_, 0),
        results_(samples.size()),
        pinned_(pinned) {
    for (const ir::Node* n : g.nodes()) {
      for (ValueId in : n->inputs) {
        if (in != ir::kNoValue) ++remaining_[static_cast<size_t>(in)];
      }
    }
    for (ValueId out : g.outputs()) ++remaining_[static_cast<size_t>(out)];
    for (ValueId p : pinned) ++remaining_[static_cast<size_t>(p)];
    for (size_t s = 0; s < samples.size(); ++s) {
      for (size_t i = 0; i < samples[s].size() && i < g.inputs().size(); ++i) {
        values_[s][static_cast<size_t>(g.inputs()[i])] = samples[s][i];
      }
    }
  }

  // Computes n's outputs for every sample into results() (n's inputs must be live).
  Status Evaluate(const ir::Node& n) {
    for (size_t s = 0; s < values_.size(); ++s) {
      args_.clear();
      for (ValueId in : n.inputs) {
        if (in == ir::kNoValue) {
          args_.push_back(nullptr);
        } else {
          const ir::Value& v = g_.value(in);
          args_.push_back(v.is_constant() ? &*v.constant : &values_[s][static_cast<size_t>(in)]);
        }
      }
      LOOM_RETURN_IF_ERROR(interp::EvaluateNode(g_, n, args_, &results_[s]));
    }
    return Status::Ok();
  }
  const ir::Tensor& Result(size_t sample, size_t output) const { return results_[sample][output]; }

  // Keeps the last Evaluate's outputs of n and frees the inputs n was the last reader of.
  void Commit(const ir::Node& n) {
    for (size_t s = 0; s < values_.size(); ++s) {
      for (size_t i = 0; i < n.outputs.size(); ++i) {
        values_[s][static_cast<size_t>(n.outputs[i])] = std::move(results_[s][i]);
      }
    }
    for (ValueId in : n.inputs) Release(in);
  }

  // Runs the graph's next nodes until `id` is computed; false if the graph ends first. For a
  // pinned value whose node has a fused activation (Relu, Clip), PreActivation then also holds
  // the node's output without it.
  Status RunUntil(ValueId id, bool* found) {
    *found = false;
    while (!Computed(id) && next_ < g_.nodes().size()) {
      const ir::Node& n = *g_.nodes()[next_++];
      if (n.outputs.size() == 1 && pinned_.count(n.outputs[0]) && n.FindAttr("activation")) {
        ir::Node plain = n;
        for (const char* key : {"activation", "clip_min", "clip_max"}) plain.attrs.erase(key);
        LOOM_RETURN_IF_ERROR(Evaluate(plain));
        std::vector<ir::Tensor>& pre = pre_[n.outputs[0]];
        for (std::vector<ir::Tensor>& r : results_) pre.push_back(std::move(r[0]));
      }
      LOOM_RETURN_IF_ERROR(Evaluate(n));
      Commit(n);
    }
    *found = Computed(id);
    return Status::Ok();
  }
  const ir::Tensor& PreActivation(size_t sample, ValueId id) const {
    auto it = pre_.find(id);
    return it == pre_.end() ? Value(sample, id) : it->second[sample];
  }

  const ir::Tensor& Value(size_t sample, ValueId id) const {
    return values_[sample][static_cast<size_t>(id)];
  }
  void Release(ValueId id) {
    // A constant added after construction (a new bias) has no slot and needs none.
    if (id == ir::kNoValue || static_cast<size_t>(id) >= nv_) return;
    if (--remaining_[static_cast<size_t>(id)] != 0) return;
    for (std::vector<ir::Tensor>& v : values_) v[static_cast<size_t>(id)] = ir::Tensor();
    pre_.erase(id);
  }

 private:
  bool Computed(ValueId id) const {
    return id >= 0 && static_cast<size_t>(id) < nv_ && !values_.empty() &&
           values_[0][static_cast<size_t>(id)].defined();
  }

  const ir::Graph& g_;
  size_t nv_;
  std::vector<std::vector<ir::Tensor>> values_;  // [sample][value id]
  std::vector<int> remaining_;
  std::vector<std::vector<ir::Tensor>> results_;  // [sample][output]
  std::vector<const ir::Tensor*> args_;
  size_t next_ = 0;
  std::set<ValueId> pinned_;
  std::map<ValueId, std::vector<ir::Tensor>> pre_;  // pinned values before the activation
};

// Per channel (axis 1 of [N, C, ...]): the mean of float - q * s_y over the positions where the
// int8 output is not saturated (-128 or 127): there the error is the clipping of a tail, not a
// shift a bias can undo. A channel with no such position gets NaN. False when the tensors do not
// line up.
bool ChannelErrors(const ir::Tensor& f, const ir::Tensor& q, double s_y, int32_t z_y,
                   size_t channels, std::vector<double>* out) {
  const ir::Shape& fs = f.shape();
  const ir::Shape& qs = q.shape();
  const int64_t c = static_cast<int64_t>(channels);
  if (f.dtype() != DType::kF32 || q.dtype() != DType::kI8 || fs.size() < 2 || qs.size() < 2 ||
      fs[1] != c || qs[1] != c || fs[0] != qs[0] || f.num_elements() != q.num_elements() ||
      f.num_elements() == 0) {
    return false;
  }
  const int64_t inner = f.num_elements() / (fs[0] * c);
  std::vector<double> sum(channels, 0.0);
  std::vector<int64_t> count(channels, 0);
  const float* fp = f.data<float>();
  const int8_t* qp = q.data<int8_t>();
  for (int64_t n = 0; n < fs[0]; ++n) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const int64_t base = (n * c + ch) * inner;
      double acc = 0.0;
      int64_t k = 0;
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t v = qp[base + i];
        if (v == -128 || v == 127) continue;
        acc += fp[base + i] - static_cast<double>(v - z_y) * s_y;
        ++k;
      }
      sum[static_cast<size_t>(ch)] += acc;
      count[static_cast<size_t>(ch)] += k;
    }
  }
  out->resize(channels);
  for (size_t ch = 0; ch < channels; ++ch) {
    (*out)[ch] = count[ch] ? sum[ch] / static_cast<double>(count[ch])
                           : std::numeric_limits<double>::quiet_NaN();
  }
  return true;
}

// How many standard errors of the mean a channel's mean error must clear to be kept whole.
constexpr double kShrinkSe = 3.0;

// The correction of one channel from its per-sample mean errors: their mean, shrunk towards 0 by
// the share of it that sampling noise could explain, max(0, 1 - (k se / mean)^2) with se the
// standard error of the mean over samples and k = kShrinkSe. On a few calibration samples a late
// layer's mean (a dense or squeeze-excitation layer has one value per sample) is mostly those
// samples' own errors, which "correcting" would add to every other input; a bias that all samples
// share keeps nearly all of its correction. Measured on the zoo (docs/quantization.md): k = 1, 2,
// 3 cost MobileNetV2 0.0033, 0.0009, 0.0006 of held-out cosine, no shrinking more. Samples where
// the channel never left its clip bounds (NaN) do not count.
double ShrunkMean(const std::vector<double>& per_sample) {
  std::vector<double> errors;
  for (double e : per_sample) {
    if (!std::isnan(e)) errors.push_back(e);
  }
  if (errors.empty()) return 0.0;
  const double n = static_cast<double>(errors.size());
  double mean = 0.0;
  for (double e : errors) mean += e / n;
  if (errors.size() < 2 || mean == 0.0) return mean;
  double var = 0.0;
  for (double e : errors) var += (e - mean) * (e - mean);
  const double se2 = var / (n - 1.0) / n;
  return mean * std::max(0.0, 1.0 - kShrinkSe * kShrinkSe * se2 / (mean * mean));
}

// Adds round(delta / accumulator scale) to the bias of q.conv2d `n` (creating a zero bias when it
// has none), clamped so that the layer's requantization stays free of wraps (see the header).
void ApplyCorrection(ir::Graph& g, ir::Node& n, const std::vector<double>& delta,
                     BiasCorrectionStats* stats) {
  const int64_t o = static_cast<int64_t>(delta.size());
  const ir::Tensor& w = *g.value(n.input(1)).constant;
  const int32_t* mult = g.value(n.input(3)).constant->data<int32_t>();
  std::vector<int32_t> bias(static_cast<size_t>(o), 0);
  if (n.has_input(2)) {
    const int32_t* b = g.value(n.input(2)).constant->data<int32_t>();
    bias.assign(b, b + o);
  }
  const int64_t per_o = w.num_elements() / o;
  std::vector<int64_t> weight_bound(static_cast<size_t>(o), 0);
  int64_t max_mult = 1;
  for (int64_t c = 0; c < o; ++c) {
    int64_t abs_sum = 0;
    for (int64_t i = 0; i < per_o; ++i)
      abs_sum += std::abs(int64_t{w.data<int8_t>()[c * per_o + i]});
    weight_bound[static_cast<size_t>(c)] = abs_sum * 128;
    max_mult = std::max(max_mult, std::abs(int64_t{mult[c]}));
  }
  // The largest accumulator bound A for which this pre_shift and these multipliers still keep
  // (ceil(A / 2^pre) + 1) * mult within int32 (requant.h's guarantee), and A itself too.
  const int64_t pre = std::clamp<int64_t>(n.GetInt("pre_shift", 0), 0, 31);
  const int64_t int32_max = std::numeric_limits<int32_t>::max();
  const int64_t bound = std::min(int32_max, (int32_max / max_mult - 1) << pre);
  const double s_y = g.value(n.outputs[0]).quant->scales[0];
  const double shift =
      std::ldexp(1.0, static_cast<int>(n.GetInt("pre_shift", 0) + n.GetInt("post_shift", 0)));
  for (int64_t c = 0; c < o; ++c) {
    const size_t i = static_cast<size_t>(c);
    if (mult[c] == 0) continue;  // the channel's output does not depend on its accumulator
    ++stats->channels;
    const double acc_scale = s_y * mult[c] / shift;
    const int64_t room = std::max<int64_t>(0, bound - weight_bound[i]);
    const double steps = std::clamp(std::nearbyint(delta[i] / acc_scale), -4e9, 4e9);
    const int64_t want = static_cast<int64_t>(bias[i]) + static_cast<int64_t>(steps);
    const int64_t got = std::clamp(want, -room, room);
    stats->clamped += got != want;
    bias[i] = static_cast<int32_t>(got);
    stats->mean_abs_shift += std::fabs(delta[i]);
  }
  ir::Tensor t = ir::Tensor::FromVector<int32_t>(DType::kI32, {o}, bias);
  if (n.has_input(2)) {
    g.value(n.input(2)).constant = std::move(t);
  } else {
    n.inputs.resize(std::max<size_t>(n.inputs.size(), 4));
    n.inputs[2] = g.AddConstant(g.value(n.outputs[0]).name() + ".bias_corr", std::move(t));
  }
}

}  // namespace

Status CorrectBiases(const ir::Graph& float_graph, ir::Graph& q_graph,
                     const std::vector<Sample>& samples, const BiasCorrectionOptions& options,
                     const QuantizeResult& result, BiasCorrectionStats* stats) {
  *stats = BiasCorrectionStats();
  if (samples.empty()) return Status::Ok();
  for (size_t s = 0; s < samples.size(); ++s) {
    if (samples[s].size() != q_graph.inputs().size() ||
        samples[s].size() != float_graph.inputs().size()) {
      return InvalidArgument("bias correction: sample " + std::to_string(s) + " has " +
                             std::to_string(samples[s].size()) + " inputs, the graph " +
                             std::to_string(q_graph.inputs().size()));
    }
    // SampleRun hands the samples to the kernels as they are; interp::Run checks this itself.
    for (const ir::Graph* g : {&float_graph, static_cast<const ir::Graph*>(&q_graph)}) {
      for (size_t i = 0; i < samples[s].size(); ++i) {
        const ir::Value& v = g->value(g->inputs()[i]);
        const ir::Tensor& t = samples[s][i];
        if (t.dtype() != v.dtype || t.shape() != v.shape) {
          return InvalidArgument("bias correction: sample " + std::to_string(s) + " input %" +
                                 v.name() + " must be " + ir::TypeToString(v.dtype, v.shape) +
                                 ", got " + ir::TypeToString(t.dtype(), t.shape()));
        }
      }
    }
  }
  // Layers to correct: q.conv2d outputs whose float output the float graph computes.
  std::map<ValueId, const LayerInfo*> by_q;
  std::set<ValueId> float_outputs;
  for (const LayerInfo& l : result.layers) {
    if (l.op != "q.conv2d" || l.q_output == ir::kNoValue) continue;
    if (l.float_output < 0 || l.float_output >= float_graph.num_values() ||
        float_graph.Producer(l.float_output) == nullptr) {
      ++stats->skipped;
      continue;
    }
    by_q[l.q_output] = &l;
    float_outputs.insert(l.float_output);
  }
  const size_t total = by_q.size();
  // The float graph runs alongside, up to each layer's float output, which stays until that
  // layer is corrected: only the outputs between the two graphs' positions are alive at once.
  interp::ReuseConstantWork reuse;
  SampleRun fp(float_graph, samples, float_outputs);
  SampleRun qr(q_graph, samples, {});
  const size_t ns = samples.size();
  size_t done = 0;
  for (ir::Node* n : std::vector<ir::Node*>(q_graph.nodes())) {
    auto it = n->op == "q.conv2d" ? by_q.find(n->outputs[0]) : by_q.end();
    if (it == by_q.end()) {
      LOOM_RETURN_IF_ERROR(qr.Evaluate(*n));
    } else {
      const ValueId f_out = it->second->float_output;
      bool found = false;
      LOOM_RETURN_IF_ERROR(fp.RunUntil(f_out, &found));
      const size_t nc = static_cast<size_t>(q_graph.value(n->outputs[0]).shape[1]);
      const double s_y = q_graph.value(n->outputs[0]).quant->scales[0];
      const int32_t z_y = q_graph.value(n->outputs[0]).quant->zero_points[0];
      // The bias acts before the fused activation: compare the outputs without it (the int8 one
      // with its clip widened to the int8 range), over the positions where the int8 one is not
      // saturated.
      ir::Node wide = *n;
      wide.SetAttr("clip_lo", ir::Attribute::Int(-128));
      wide.SetAttr("clip_hi", ir::Attribute::Int(127));
      LOOM_RETURN_IF_ERROR(qr.Evaluate(wide));
      std::vector<std::vector<double>> errors(nc, std::vector<double>(ns));
      bool ok = found;
      std::vector<double> e;
      for (size_t s = 0; s < ns && ok; ++s) {
        ok = ChannelErrors(fp.PreActivation(s, f_out), qr.Result(s, 0), s_y, z_y, nc, &e);
        for (size_t c = 0; c < nc && ok; ++c) errors[c][s] = e[c];
      }
      if (found) fp.Release(f_out);
      if (ok) {
        std::vector<double> delta(nc);
        for (size_t c = 0; c < nc; ++c) delta[c] = ShrunkMean(errors[c]);
        ApplyCorrection(q_graph, *n, delta, stats);
        ++stats->layers;
      } else {
        ++stats->skipped;
      }
      LOOM_RETURN_IF_ERROR(qr.Evaluate(*n));  // readers see the corrected, clipped output
      ++done;
      if (options.on_layer) options.on_layer(done, total);
      if (options.progress && (done % 10 == 0 || done == total)) {
        *options.progress << "bias correction: " << done << "/" << total << " layers\n";
      }
    }
    qr.Commit(*n);
  }
  if (stats->channels > 0) stats->mean_abs_shift /= static_cast<double>(stats->channels);
  return Status::Ok();
}

}  // namespace loom::quantize
