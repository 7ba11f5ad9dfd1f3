// ONNX RoiAlign (opset 16), as ONNX's reference (after Caffe2/Detectron) computes it: each output
// bin of a region takes grid_h x grid_w bilinear samples at the centers of an even sub-grid; a
// sample more than one pixel outside the image counts as 0, one just outside is clamped to the
// edge. avg divides the samples' sum by their number; max takes the largest *weighted corner*
// (max of the four w_i * v_i, not of the interpolated value -- what ONNX specifies today).
#include <algorithm>
#include <cmath>

#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {
namespace {

// One bilinear sample: four source offsets in the plane and their weights (all 0 outside).
struct Sample {
  int64_t pos[4] = {};
  double w[4] = {};
};

Sample At(double y, double x, int64_t h, int64_t w) {
  Sample s;
  if (y < -1.0 || y > static_cast<double>(h) || x < -1.0 || x > static_cast<double>(w)) return s;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
  if (y0 >= h - 1) {
    y0 = y1 = h - 1;
    y = static_cast<double>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= w - 1) {
    x0 = x1 = w - 1;
    x = static_cast<double>(x0);
  } else {
    x1 = x0 + 1;
  }
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0);
  const double hy = 1.0 - ly, hx = 1.0 - lx;
  s.pos[0] = y0 * w + x0;
  s.pos[1] = y0 * w + x1;
  s.pos[2] = y1 * w + x0;
  s.pos[3] = y1 * w + x1;
  s.w[0] = hy * hx;
  s.w[1] = hy * lx;
  s.w[2] = ly * hx;
  s.w[3] = ly * lx;
  return s;
}

int64_t BatchIndex(const TensorView& b, int64_t r) {
  return b.dtype == DType::kI32 ? b.As<const int32_t>()[r] : b.As<const int64_t>()[r];
}

}  // namespace

Status RoiAlign(const RoiAlignParams& p, const TensorView& x, const TensorView& rois,
                const TensorView& batch_indices, const TensorView& y) {
  if (x.dtype != DType::kF32 || rois.dtype != DType::kF32 || y.dtype != DType::kF32 ||
      (batch_indices.dtype != DType::kI32 && batch_indices.dtype != DType::kI64)) {
    return InvalidArgument("roi-align: x, rois and y must be f32, batch_indices i32 or i64");
  }
  if (x.rank != 4 || rois.rank != 2 || rois.shape[1] != 4 || batch_indices.rank != 1 ||
      batch_indices.shape[0] != rois.shape[0] || y.rank != 4 || y.shape[0] != rois.shape[0] ||
      y.shape[1] != x.shape[1]) {
    char sx[96], sr[96], sy[96];
    return InvalidArgument(std::string("roi-align: needs x [N, C, H, W], rois [R, 4], "
                                       "batch_indices [R] and y [R, C, Ho, Wo], got ") +
                           FormatShape(x, sx, sizeof sx) + ", " + FormatShape(rois, sr, sizeof sr) +
                           ", " + FormatShape(y, sy, sizeof sy));
  }
  const int64_t c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const int64_t ho = y.shape[2], wo = y.shape[3];
  const float* xd = x.As<const float>();
  const float* rd = rois.As<const float>();
  float* yd = y.As<float>();
  const double offset = p.half_pixel ? 0.5 : 0.0;
  for (int64_t r = 0; r < rois.shape[0]; ++r) {
    const int64_t b = BatchIndex(batch_indices, r);
    if (b < 0 || b >= x.shape[0]) {
      return InvalidArgument("roi-align: roi " + std::to_string(r) + " names batch " +
                             std::to_string(b) + ", x has " + std::to_string(x.shape[0]));
    }
    const float* roi = rd + r * 4;
    const double x0 = roi[0] * static_cast<double>(p.spatial_scale) - offset;
    const double y0 = roi[1] * static_cast<double>(p.spatial_scale) - offset;
    double rw = roi[2] * static_cast<double>(p.spatial_scale) - offset - x0;
    double rh = roi[3] * static_cast<double>(p.spatial_scale) - offset - y0;
    if (!p.half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bin_h = rh / static_cast<double>(ho), bin_w = rw / static_cast<double>(wo);
    const int64_t gh =
        p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<int64_t>(std::ceil(rh / ho));
    const int64_t gw =
        p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<int64_t>(std::ceil(rw / wo));
    const double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
    for (int64_t ch = 0; ch < c; ++ch) {
      const float* plane = xd + (b * c + ch) * h * w;
      for (int64_t ph = 0; ph < ho; ++ph) {
        for (int64_t pw = 0; pw < wo; ++pw) {
          double acc = 0.0;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy) {
            const double sy = y0 + ph * bin_h + (iy + 0.5) * bin_h / static_cast<double>(gh);
            for (int64_t ix = 0; ix < gw; ++ix) {
              const double sx = x0 + pw * bin_w + (ix + 0.5) * bin_w / static_cast<double>(gw);
              const Sample s = At(sy, sx, h, w);
              if (p.mode == RoiAlignMode::kAvg) {
                for (int k = 0; k < 4; ++k) acc += s.w[k] * plane[s.pos[k]];
              } else {
                double v = s.w[0] * plane[s.pos[0]];
                for (int k = 1; k < 4; ++k) v = std::max(v, s.w[k] * plane[s.pos[k]]);
                acc = first ? v : std::max(acc, v);
                first = false;
              }
            }
          }
          if (p.mode == RoiAlignMode::kAvg) acc /= count;
          yd[((r * c + ch) * ho + ph) * wo + pw] = static_cast<float>(acc);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
