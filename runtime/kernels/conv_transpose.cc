// Float N-D transposed convolution (ONNX ConvTranspose): groups, strides, dilations, pads, with
// the output extent (output_shape / output_padding / auto_pad, resolved by the importer) read
// from y. Scatter form: every input cell adds its weighted taps into the output; accumulation is
// in float per output cell in a fixed order (input channel, then input cell, then tap), so the
// result does not depend on anything but the operands.
#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {
namespace {

const char* kName = "conv-transpose";

Status CheckShapes(const ConvParams& p, const TensorView& x, const TensorView& w,
                   const TensorView& y) {
  const int s = p.spatial;
  if (s < 1 || s > kMaxSpatial || x.rank != s + 2 || w.rank != s + 2 || y.rank != s + 2) {
    return InvalidArgument(std::string(kName) + ": x, w and y must all be [N, C, D1.." +
                           std::to_string(s) + "]");
  }
  if (p.group < 1 || x.shape[1] % p.group != 0 || w.shape[0] != x.shape[1]) {
    return InvalidArgument(std::string(kName) + ": weights' dim 0 (" + std::to_string(w.shape[0]) +
                           ") must equal the input channels (" + std::to_string(x.shape[1]) +
                           "), divisible by group " + std::to_string(p.group));
  }
  if (y.shape[0] != x.shape[0] || y.shape[1] != w.shape[1] * p.group) {
    return InvalidArgument(std::string(kName) + ": y must be [N, group * w.shape[1], ...]");
  }
  for (int i = 0; i < s; ++i) {
    if (p.strides[i] < 1 || p.dilations[i] < 1 || p.pads_begin[i] < 0) {
      return InvalidArgument(std::string(kName) +
                             ": strides and dilations must be >= 1, pads >= 0");
    }
  }
  return Status::Ok();
}

}  // namespace

Status ConvTranspose(const ConvParams& p, const TensorView& x, const TensorView& w,
                     const TensorView* bias, const TensorView& y) {
  if (x.dtype != DType::kF32 || w.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument(std::string(kName) + ": x, w and y must be f32");
  }
  LOOM_RETURN_IF_ERROR(CheckShapes(p, x, w, y));
  const int64_t out_ch = y.shape[1];
  if (bias != nullptr && (bias->dtype != DType::kF32 || bias->NumElements() != out_ch)) {
    return InvalidArgument(std::string(kName) +
                           ": bias must be f32 with one value per output channel");
  }
  const int s = p.spatial;
  int64_t in_plane = 1, out_plane = 1, taps = 1;
  for (int i = 0; i < s; ++i) {
    in_plane *= x.shape[2 + i];
    out_plane *= y.shape[2 + i];
    taps *= w.shape[2 + i];
  }
  const float* xd = x.As<const float>();
  const float* wd = w.As<const float>();
  float* yd = y.As<float>();
  const int64_t n_batch = x.shape[0];
  const int64_t in_ch = x.shape[1];
  const int64_t in_per_group = in_ch / p.group;
  const int64_t out_per_group = w.shape[1];
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t oc = 0; oc < out_ch; ++oc) {
      const float b = bias != nullptr ? bias->As<const float>()[oc] : 0.0f;
      float* yp = yd + (n * out_ch + oc) * out_plane;
      for (int64_t i = 0; i < out_plane; ++i) yp[i] = b;
    }
    for (int64_t ic = 0; ic < in_ch; ++ic) {
      const int64_t g = ic / in_per_group;
      const float* xp = xd + (n * in_ch + ic) * in_plane;
      for (int64_t m = 0; m < out_per_group; ++m) {
        const int64_t oc = g * out_per_group + m;
        const float* wp = wd + (ic * out_per_group + m) * taps;
        float* yp = yd + (n * out_ch + oc) * out_plane;
        int64_t in_idx[kMaxSpatial] = {};
        for (int64_t ii = 0; ii < in_plane; ++ii) {
          const float xv = xp[ii];
          int64_t k_idx[kMaxSpatial] = {};
          for (int64_t k = 0; k < taps; ++k) {
            int64_t off = 0;
            bool inside = true;
            for (int d = 0; d < s && inside; ++d) {
              const int64_t o =
                  in_idx[d] * p.strides[d] + k_idx[d] * p.dilations[d] - p.pads_begin[d];
              inside = o >= 0 && o < y.shape[2 + d];
              off = off * y.shape[2 + d] + o;
            }
            if (inside) yp[off] += xv * wp[k];
            for (int d = s - 1; d >= 0; --d) {  // next tap, row-major
              if (++k_idx[d] < w.shape[2 + d]) break;
              k_idx[d] = 0;
            }
          }
          for (int d = s - 1; d >= 0; --d) {  // next input cell, row-major
            if (++in_idx[d] < x.shape[2 + d]) break;
            in_idx[d] = 0;
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
