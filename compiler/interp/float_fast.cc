// The loops of float_fast.h.
#include "compiler/interp/float_fast.h"

#include <algorithm>
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
  constexpr int kLanes = 16;
  // Columns [xlo, xhi) have every kx tap inside the row; they run kLanes at a time.
  const int64_t xlo = std::min(ow, pl > 0 ? (pl + sw - 1) / sw : 0);
  const int64_t reach = (kw - 1) * dw - pl;  // the last tap's column is ox * sw + reach
  const int64_t xhi = std::max(xlo, std::min(ow, w - reach > 0 ? (w - reach - 1) / sw + 1 : 0));
  for (int64_t pl_i = 0; pl_i < planes; ++pl_i) {
    const float* plane = xd + pl_i * h * w;
    for (int64_t oy = 0; oy < oh; ++oy, yd += ow) {
      auto window = [&](int64_t ox) {
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
        return any ? best : std::numeric_limits<float>::lowest();
      };
      int64_t ox = 0;
      for (; ox < xlo; ++ox) yd[ox] = window(ox);
      int64_t ky0 = 0;  // the first row inside the input
      while (ky0 < kh && (oy * sh - pt + ky0 * dh < 0 || oy * sh - pt + ky0 * dh >= h)) ++ky0;
      for (; ky0 < kh && ox + kLanes <= xhi; ox += kLanes) {
        // The same taps in the same order, kLanes windows side by side.
        float best[kLanes];
        const float* first = plane + (oy * sh - pt + ky0 * dh) * w + ox * sw - pl;
        for (int l = 0; l < kLanes; ++l) best[l] = first[l * sw];
        for (int64_t ky = ky0; ky < kh; ++ky) {
          const int64_t iy = oy * sh - pt + ky * dh;
          if (iy < 0 || iy >= h) continue;
          for (int64_t kx = ky == ky0 ? 1 : 0; kx < kw; ++kx) {
            const float* tap = plane + iy * w + ox * sw - pl + kx * dw;
            for (int l = 0; l < kLanes; ++l)
              best[l] = tap[l * sw] > best[l] ? tap[l * sw] : best[l];
          }
        }
        std::copy(best, best + kLanes, yd + ox);
      }
      for (; ox < ow; ++ox) yd[ox] = window(ox);
    }
  }
  *done = true;
  return Status::Ok();
}

Status FastAddSameShape(const TensorView& a, const TensorView& b, const TensorView& y, bool* done) {
  *done = false;
  if (a.dtype != DType::kF32 || b.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return Status::Ok();
  }
  if (a.rank != y.rank || b.rank != y.rank) return Status::Ok();
  for (int i = 0; i < y.rank; ++i) {
    if (a.shape[i] != y.shape[i] || b.shape[i] != y.shape[i]) return Status::Ok();
  }
  const float* ad = a.As<const float>();
  const float* bd = b.As<const float>();
  float* yd = y.As<float>();
  const int64_t count = y.NumElements();
  for (int64_t i = 0; i < count; ++i) yd[i] = ad[i] + bd[i];
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
