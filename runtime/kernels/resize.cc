// ONNX Resize / Upsample on f32, any rank: per output cell, each dim maps its index to a source
// coordinate (the coordinate transformation mode), picks its taps (1 nearest, 2 linear, 4 cubic)
// and the cell is the weighted sum over the product of the dims' taps. Taps beyond the input read
// the edge value, as ONNX's reference implementation pads; with exclude_outside the cubic weights
// of such taps are dropped and the rest renormalized. Coordinates are computed in double so ties
// of the nearest modes fall the way the spec's arithmetic puts them.
#include <cmath>

#include "runtime/kernels/interp_taps.h"
#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {
namespace {

// The source coordinate of output index `o` along a dim; false if it lies outside the input
// under tf_crop_and_resize (the cell then takes extrapolation_value).
bool SourceCoord(const ResizeParams& p, int d, int64_t o, int64_t in_len, double* x) {
  const double scale = p.scales[d];
  const double xo = static_cast<double>(o);
  // The resized length the transforms divide by is in * scale, unrounded (as ONNX's reference
  // computes it): with explicit scales it differs from the integer output length.
  const double in = static_cast<double>(in_len), out = in * scale;
  switch (p.coord) {
    case ResizeCoord::kHalfPixel:
      *x = (xo + 0.5) / scale - 0.5;
      break;
    case ResizeCoord::kAsymmetric:
      *x = xo / scale;
      break;
    case ResizeCoord::kPytorchHalfPixel:
      *x = out > 1 ? (xo + 0.5) / scale - 0.5 : 0.0;
      break;
    case ResizeCoord::kTfHalfPixelForNn:
      *x = (xo + 0.5) / scale;
      break;
    case ResizeCoord::kAlignCorners:
      *x = out > 1 ? xo * (in - 1) / (out - 1) : 0.0;
      break;
    case ResizeCoord::kHalfPixelSymmetric: {
      const double adjustment = out / (scale * in);
      const double offset = in / 2 * (1 - adjustment);
      *x = offset + (xo + 0.5) / scale - 0.5;
      break;
    }
    case ResizeCoord::kTfCropAndResize: {
      const double s = p.roi_start[d], e = p.roi_end[d];
      *x = out > 1 ? s * (in - 1) + xo * (e - s) * (in - 1) / (out - 1) : 0.5 * (s + e) * (in - 1);
      if (*x < 0 || *x > in - 1) return false;
      break;
    }
  }
  return true;
}

int64_t Clamp(int64_t i, int64_t len) { return i < 0 ? 0 : (i >= len ? len - 1 : i); }

void NearestTaps(const ResizeParams& p, double x, int64_t len, Taps* t) {
  double r = 0;
  switch (p.nearest) {
    case ResizeNearest::kRoundPreferFloor:
      r = std::ceil(x - 0.5);
      break;
    case ResizeNearest::kRoundPreferCeil:
      r = std::floor(x + 0.5);
      break;
    case ResizeNearest::kFloor:
      r = std::floor(x);
      break;
    case ResizeNearest::kCeil:
      r = std::ceil(x);
      break;
  }
  t->count = 1;
  t->index[0] = Clamp(static_cast<int64_t>(r), len);
  t->weight[0] = 1.0;
}

void LinearTaps(double x, int64_t len, Taps* t) {
  const double f = std::floor(x);
  const double r = x - f;
  const int64_t i = static_cast<int64_t>(f);
  t->count = 2;
  t->index[0] = Clamp(i, len);
  t->index[1] = Clamp(i + 1, len);
  t->weight[0] = 1.0 - r;
  t->weight[1] = r;
}

void CubicTaps(const ResizeParams& p, double x, int64_t len, Taps* t) {
  const double f = std::floor(x);
  const double r = x - f;
  const int64_t i = static_cast<int64_t>(f);
  t->count = 4;
  double sum = 0;
  for (int k = 0; k < 4; ++k) {
    const int64_t src = i - 1 + k;
    double w = KeysCubic(p.cubic_coeff_a, r - (k - 1));
    if (p.exclude_outside && (src < 0 || src >= len)) w = 0;
    t->index[k] = Clamp(src, len);
    t->weight[k] = w;
    sum += w;
  }
  if (p.exclude_outside && sum != 0) {
    for (int k = 0; k < 4; ++k) t->weight[k] /= sum;
  }
}

}  // namespace

Status Resize(const ResizeParams& p, const TensorView& x, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument("resize: x and y must be f32");
  }
  if (x.rank != y.rank || x.rank < 1) {
    return InvalidArgument("resize: x and y must have the same rank (>= 1)");
  }
  for (int d = 0; d < x.rank; ++d) {
    if (x.shape[d] == 0 && y.shape[d] != 0) {
      return InvalidArgument("resize: dim " + std::to_string(d) + " of x is empty but y's is not");
    }
    if (!(p.scales[d] > 0) || !std::isfinite(p.scales[d])) {
      return InvalidArgument("resize: scale of dim " + std::to_string(d) +
                             " must be a finite number > 0");
    }
  }
  const int64_t total = y.NumElements();
  if (total == 0) return Status::Ok();
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  const int rank = x.rank;
  int64_t idx[kMaxRank] = {};
  for (int64_t o = 0; o < total; ++o) {
    Taps taps[kMaxRank];
    bool inside = true;
    for (int d = 0; d < rank && inside; ++d) {
      double c = 0;
      inside = SourceCoord(p, d, idx[d], x.shape[d], &c);
      if (!inside) break;
      switch (p.mode) {
        case ResizeMode::kNearest:
          NearestTaps(p, c, x.shape[d], &taps[d]);
          break;
        case ResizeMode::kLinear:
          LinearTaps(c, x.shape[d], &taps[d]);
          break;
        case ResizeMode::kCubic:
          CubicTaps(p, c, x.shape[d], &taps[d]);
          break;
      }
    }
    if (!inside) {
      yd[o] = p.extrapolation_value;
    } else {
      // Sum over the product of the dims' taps (row-major over tap indices).
      double acc = 0;
      int k[kMaxRank] = {};
      while (true) {
        double w = 1;
        int64_t off = 0;
        for (int d = 0; d < rank; ++d) {
          w *= taps[d].weight[k[d]];
          off = off * x.shape[d] + taps[d].index[k[d]];
        }
        if (w != 0) acc += w * static_cast<double>(xd[off]);
        int d = rank - 1;
        for (; d >= 0; --d) {
          if (++k[d] < taps[d].count) break;
          k[d] = 0;
        }
        if (d < 0) break;
      }
      yd[o] = static_cast<float>(acc);
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < y.shape[d]) break;
      idx[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
