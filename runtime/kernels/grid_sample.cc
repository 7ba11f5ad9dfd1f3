// ONNX GridSample (opset 16), as ONNX's reference computes it: each normalized grid position is
// mapped to input pixels (align_corners: -1 and 1 are the centers of the corner pixels; otherwise
// their outer edges), moved inside the image first for border/reflection padding, then
// interpolated separably: per axis 1 (nearest, rounded half to even), 2 (linear) or 4 (cubic,
// Keys with a = -0.75) taps, each tap index padded on its own (zeros: outside reads 0).
#include <cmath>

#include "runtime/kernels/interp_taps.h"
#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {
namespace {

// Reflects v into [lo, hi] by folding at the borders (lo < hi; otherwise lo).
double Reflect(double v, double lo, double hi) {
  const double range = hi - lo;
  if (!(range > 0)) return lo;
  if (v < lo) {
    const double d = lo - v;
    const double folds = std::floor(d / range);
    const double r = d - folds * range;
    return std::fmod(folds, 2.0) == 0 ? lo + r : hi - r;
  }
  if (v > hi) {
    const double d = v - hi;
    const double folds = std::floor(d / range);
    const double r = d - folds * range;
    return std::fmod(folds, 2.0) == 0 ? hi - r : lo + r;
  }
  return v;
}

// The source index a tap at integer position i reads, or -1 for a zero.
int64_t PadIndex(const GridSampleParams& p, int64_t i, int64_t size, double lo, double hi) {
  switch (p.padding) {
    case GridSamplePadding::kZeros:
      return i >= 0 && i < size ? i : -1;
    case GridSamplePadding::kBorder:
      return i < 0 ? 0 : (i >= size ? size - 1 : i);
    case GridSamplePadding::kReflection: {
      const int64_t r = static_cast<int64_t>(Reflect(static_cast<double>(i), lo, hi));
      return r < 0 ? 0 : (r >= size ? size - 1 : r);
    }
  }
  return -1;
}

// Taps of one axis; an index of -1 reads zero.
Taps AxisTaps(const GridSampleParams& p, float normalized, int64_t size) {
  // In float, as the reference stores denormalized positions; the rest in double.
  const float n = normalized;
  const float sz = static_cast<float>(size);
  float xf = p.align_corners ? (n + 1) / 2.0f * (sz - 1) : ((n + 1) * sz - 1) / 2.0f;
  const double lo = p.align_corners ? 0.0 : -0.5;
  const double hi =
      p.align_corners ? static_cast<double>(size) - 1 : static_cast<double>(size) - 0.5;
  double x = xf;
  if (p.mode == GridSampleMode::kNearest) x = std::nearbyint(x);  // half to even
  if (x < lo || x > hi) {
    if (p.padding == GridSamplePadding::kBorder) {
      x = x < 0 ? 0 : (x > static_cast<double>(size - 1) ? static_cast<double>(size - 1) : x);
    } else if (p.padding == GridSamplePadding::kReflection) {
      x = Reflect(x, lo, hi);
    }
  }
  Taps t;
  if (p.mode == GridSampleMode::kNearest) {
    t.count = 1;
    t.index[0] = PadIndex(p, static_cast<int64_t>(x), size, lo, hi);  // truncation, as int32
    t.weight[0] = 1.0;
    return t;
  }
  const double base = std::floor(x);
  const double frac = x - base;
  const int64_t i0 = static_cast<int64_t>(base);
  if (p.mode == GridSampleMode::kLinear) {
    t.count = 2;
    t.weight[0] = 1 - frac;
    t.weight[1] = frac;
    for (int k = 0; k < 2; ++k) t.index[k] = PadIndex(p, i0 + k, size, lo, hi);
    return t;
  }
  t.count = 4;
  KeysCubicWeights(-0.75, frac, t.weight);
  for (int k = 0; k < 4; ++k) t.index[k] = PadIndex(p, i0 - 1 + k, size, lo, hi);
  return t;
}

}  // namespace

Status GridSample(const GridSampleParams& p, const TensorView& x, const TensorView& grid,
                  const TensorView& y) {
  if (x.dtype != DType::kF32 || grid.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument("grid-sample: x, grid and y must be f32");
  }
  if (x.rank != 4 || grid.rank != 4 || y.rank != 4 || grid.shape[3] != 2 ||
      grid.shape[0] != x.shape[0] || y.shape[0] != x.shape[0] || y.shape[1] != x.shape[1] ||
      y.shape[2] != grid.shape[1] || y.shape[3] != grid.shape[2]) {
    char sx[96], sg[96], sy[96];
    return InvalidArgument(std::string("grid-sample: needs x [N, C, H, W], grid [N, Ho, Wo, 2] "
                                       "and y [N, C, Ho, Wo], got ") +
                           FormatShape(x, sx, sizeof sx) + ", " + FormatShape(grid, sg, sizeof sg) +
                           ", " + FormatShape(y, sy, sizeof sy));
  }
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const int64_t ho = y.shape[2], wo = y.shape[3];
  if ((h == 0 || w == 0) && y.NumElements() > 0) {
    return InvalidArgument("grid-sample: cannot sample an empty image");
  }
  const float* xd = x.As<const float>();
  const float* gd = grid.As<const float>();
  float* yd = y.As<float>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oy = 0; oy < ho; ++oy) {
      for (int64_t ox = 0; ox < wo; ++ox) {
        const float* g = gd + ((b * ho + oy) * wo + ox) * 2;
        const Taps tx = AxisTaps(p, g[0], w), ty = AxisTaps(p, g[1], h);
        for (int64_t ch = 0; ch < c; ++ch) {
          const float* plane = xd + (b * c + ch) * h * w;
          double acc = 0;
          for (int j = 0; j < ty.count; ++j) {
            if (ty.index[j] < 0) continue;
            double row = 0;
            for (int i = 0; i < tx.count; ++i) {
              if (tx.index[i] >= 0) row += tx.weight[i] * plane[ty.index[j] * w + tx.index[i]];
            }
            acc += ty.weight[j] * row;
          }
          yd[((b * c + ch) * ho + oy) * wo + ox] = static_cast<float>(acc);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
