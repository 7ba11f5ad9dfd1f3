#include "compiler/tune/cost_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "runtime/core/blocked_layout.h"

namespace loom::tune {
namespace {

double Log(double v) { return std::log(std::max(v, 1.0)); }

// Solves a x = b in place (Gaussian elimination, partial pivoting); a is n x n, row-major.
// The ridge term keeps a positive definite, so no pivot is zero.
std::vector<double> Solve(std::vector<double> a, std::vector<double> b) {
  const size_t n = b.size();
  for (size_t k = 0; k < n; ++k) {
    size_t p = k;
    for (size_t i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    if (p != k) {
      for (size_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap(b[k], b[p]);
    }
    for (size_t i = k + 1; i < n; ++i) {
      const double f = a[i * n + k] / a[k * n + k];
      for (size_t j = k; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
      b[i] -= f * b[k];
    }
  }
  std::vector<double> x(n);
  for (size_t k = n; k-- > 0;) {
    double s = b[k];
    for (size_t j = k + 1; j < n; ++j) s -= a[k * n + j] * x[j];
    x[k] = s / a[k * n + k];
  }
  return x;
}

std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = 0.5 * static_cast<double>(i + j);
    i = j + 1;
  }
  return r;
}

}  // namespace

std::vector<double> ScheduleFeatures(const HwConfig& c, const tensorize::Conv2dLayer& l,
                                     const tensorize::Conv2dTiling& t) {
  const double OH = l.out_h(), OW = l.out_w();
  const double n_oc = CeilDiv(l.o_blocks, t.oc), n_ic = l.depthwise ? 1 : CeilDiv(l.c_blocks, t.ic);
  const double n_oh = CeilDiv(l.out_h(), t.oh), n_ow = CeilDiv(l.out_w(), t.ow);
  const double tiles = l.n_blocks * n_oc * n_oh * n_ow, steps = tiles * n_ic;
  const double ih = (t.oh - 1) * l.stride_h + l.kh, iw = (t.ow - 1) * l.stride_w + l.kw;
  const double k = static_cast<double>(l.kh) * l.kw;
  // A depthwise step reads its own oc blocks; in window form a block's weights are its KH filter
  // rows and its GEMM walks every input column once per output row and filter row.
  const bool window = tensorize::UsesDepthwiseWindow(c, l);
  const double in_blocks = l.depthwise ? t.oc : t.ic;
  const double inp = steps * in_blocks * ih * iw * c.inp_elem_bytes();
  const double wgt_loads = n_ic == 1 ? n_oc * t.virtual_threads : steps;
  const double wgt = wgt_loads * t.oc * (window ? l.kh + 1.0 : t.ic * k) * c.wgt_elem_bytes();
  const double gemm =
      window ? steps * t.oc * iw * l.kh * t.oh : steps * t.oc * t.ic * k * t.oh * t.ow;
  const double alu = tiles * t.oc * t.oh * t.ow * 6;
  const double store = tiles * t.oc * t.oh * t.ow * c.out_elem_bytes();
  const double dma_rows = steps * in_blocks * ih + tiles * t.oc * t.oh + wgt_loads * t.oc;
  const double insns = steps * (in_blocks + 2) + tiles * (t.oc + 7);
  const double vt2 = t.virtual_threads == 2 ? 1.0 : 0.0;
  const double busiest = std::max({inp + wgt, gemm + alu, store});
  return {Log(t.oc),
          Log(t.ic),
          Log(t.oh),
          Log(t.ow),
          vt2,
          Log(tiles),
          Log(steps),
          Log(inp),
          Log(wgt),
          Log(gemm),
          Log(alu),
          Log(store),
          Log(dma_rows),
          Log(insns),
          Log(busiest),
          Log(inp + wgt + gemm + alu + store),
          vt2 * Log(busiest),
          n_oh * t.oh / OH + n_ow * t.ow / OW + n_oc * t.oc / l.o_blocks,
          ih * iw / (static_cast<double>(t.oh) * t.ow)};
}

void CostModel::Add(const std::vector<double>& features, uint64_t cycles) {
  xs_.push_back(features);
  ys_.push_back(Log(static_cast<double>(cycles)));
}

bool CostModel::Fit() {
  weights_.clear();
  if (ys_.size() < 4) return false;
  const size_t n = ys_.size(), d = xs_[0].size();
  mean_.assign(d, 0.0);
  scale_.assign(d, 0.0);
  for (const auto& x : xs_)
    for (size_t j = 0; j < d; ++j) mean_[j] += x[j] / n;
  for (const auto& x : xs_)
    for (size_t j = 0; j < d; ++j) scale_[j] += (x[j] - mean_[j]) * (x[j] - mean_[j]) / n;
  for (double& s : scale_) s = s > 1e-12 ? std::sqrt(s) : 1.0;
  bias_ = std::accumulate(ys_.begin(), ys_.end(), 0.0) / n;
  // Normal equations of the standardized problem: (Z'Z + ridge n I) w = Z'(y - mean y).
  std::vector<double> a(d * d, 0.0), b(d, 0.0);
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> z(d);
    for (size_t j = 0; j < d; ++j) z[j] = (xs_[i][j] - mean_[j]) / scale_[j];
    for (size_t j = 0; j < d; ++j) {
      b[j] += z[j] * (ys_[i] - bias_);
      for (size_t m = 0; m < d; ++m) a[j * d + m] += z[j] * z[m];
    }
  }
  for (size_t j = 0; j < d; ++j) a[j * d + j] += ridge_ * static_cast<double>(n);
  weights_ = Solve(std::move(a), std::move(b));
  return true;
}

double CostModel::Predict(const std::vector<double>& x) const {
  if (weights_.empty()) return 0.0;
  double y = bias_;
  for (size_t j = 0; j < weights_.size() && j < x.size(); ++j) {
    y += weights_[j] * (x[j] - mean_[j]) / scale_[j];
  }
  return y;
}

double SpearmanCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return 0.0;
  const std::vector<double> ra = Ranks(a), rb = Ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa == 0 || sbb == 0) return 0.0;
  return sab / std::sqrt(saa * sbb);
}

}  // namespace loom::tune
