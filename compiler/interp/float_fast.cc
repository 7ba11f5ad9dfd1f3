// The loops of float_fast.h.
#include "compiler/interp/float_fast.h"

#include <limits>

#include "runtime/kernels/pool_common.h"

namespace loom::interp {

using kernels::TensorView;

Status FastMaxPool2d(const kernels::PoolParams& p, const TensorView& x, const TensorView& y,
                     bool* done) {
  *done = false;
  if (p.spatial != 2 || x.dtype != DType::kF32 || y.dtype != DType::kF32) return Status::Ok();
  if (!kernels::internal::CheckPoolShapes(p, x, y, "max-pool").ok()) return Status::Ok();
  const int64_t planes = x.shape[0] * x.shape[1], h = x.shape[2], w = x.shape[3];
  const int64_t oh = y.shape[2], ow = y.shape[3];
  const int64_t kh = p.kernel[0], kw = p.kernel[1], sh = p.strides[0], sw = p.strides[1];
  const int64_t dh = p.dilations[0], dw = p.dilations[1];
  const int64_t pt = p.pads_begin[0], pl = p.pads_begin[1];
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  for (int64_t pl_i = 0; pl_i < planes; ++pl_i) {
    const float* plane = xd + pl_i * h * w;
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        float best = 0.0f;
        bool any = false;
        for (int64_t ky = 0; ky < kh; ++ky) {
          const int64_t iy = oy * sh - pt + ky * dh;
          if (iy < 0 || iy >= h) continue;
          const float* row = plane + iy * w;
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t ix = ox * sw - pl + kx * dw;
            if (ix < 0 || ix >= w) continue;
            // Strictly greater after the first tap: the reference's order, NaN included.
            if (!any || row[ix] > best) best = row[ix];
            any = true;
          }
        }
        // A window wholly in the padding: the reference writes its initial lowest().
        *yd++ = any ? best : std::numeric_limits<float>::lowest();
      }
    }
  }
  *done = true;
  return Status::Ok();
}

void FastFusedRelu(const ir::Node& n, const TensorView& y, bool* done) {
  *done = false;
  if (y.dtype != DType::kF32 || n.GetString("activation") != "relu") return;
  float* d = y.As<float>();
  const int64_t count = y.NumElements();
  int64_t i = 0;
  // Fixed-length inner loops: GCC's -O2 vectorizer takes them (no trip-count or alias checks).
  for (; i + 16 <= count; i += 16)
    for (int j = 0; j < 16; ++j) d[i + j] = d[i + j] > 0.0f ? d[i + j] : 0.0f;
  for (; i < count; ++i) d[i] = d[i] > 0.0f ? d[i] : 0.0f;
  *done = true;
}

}  // namespace loom::interp
