// Shared by conv.cc, conv_integer.cc and qlinear_conv.cc: shape validation and the one N-D
// convolution loop, parameterised by how an input/weight element is loaded (float, or integer
// minus zero point) and how an accumulator is stored (bias + activation, or requantization).
// Internal to the kernels library.
#ifndef LOOM_RUNTIME_KERNELS_CONV_COMMON_H_
#define LOOM_RUNTIME_KERNELS_CONV_COMMON_H_

#include <cstdint>
#include <string>

#include "runtime/core/checked_math.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels::internal {

// Checks ranks, channel/group consistency and that y has the shape the geometry implies.
inline Status CheckConvShapes(const ConvParams& p, const TensorView& x, const TensorView& w,
                              const TensorView& y) {
  const int s = p.spatial;
  if (s < 1 || s > kMaxSpatial) return InvalidArgument("conv: spatial rank out of range");
  if (x.rank != s + 2 || w.rank != s + 2 || y.rank != s + 2) {
    return InvalidArgument("conv: x, w and y must all have rank " + std::to_string(s + 2));
  }
  if (p.group < 1) return InvalidArgument("conv: group must be >= 1");
  const int64_t c = x.shape[1], m = w.shape[0];
  int64_t wc = 0;
  if (c % p.group != 0 || m % p.group != 0 || !CheckedMul(w.shape[1], p.group, &wc) || wc != c) {
    return InvalidArgument("conv: " + std::to_string(c) + " input channels, " + std::to_string(m) +
                           " filters of " + std::to_string(w.shape[1]) +
                           " channels do not fit group " + std::to_string(p.group));
  }
  if (y.shape[0] != x.shape[0] || y.shape[1] != m) {
    return InvalidArgument("conv: output batch/channels do not match input and weights");
  }
  for (int i = 0; i < s; ++i) {
    if (p.strides[i] < 1 || p.dilations[i] < 1) {
      return InvalidArgument("conv: strides and dilations must be >= 1");
    }
    if (p.pads_begin[i] < 0 || p.pads_end[i] < 0) return InvalidArgument("conv: pads must be >= 0");
    // Checked here, so every position ConvLoop forms lies in [-pads_begin, input + pads_end).
    int64_t span = 0, padded = 0;
    if (w.shape[2 + i] < 1 || !CheckedMul(p.dilations[i], w.shape[2 + i] - 1, &span) ||
        !CheckedAdd(span, int64_t{1}, &span) ||
        !CheckedAdd(x.shape[2 + i], p.pads_begin[i], &padded) ||
        !CheckedAdd(padded, p.pads_end[i], &padded)) {
      return InvalidArgument("conv: spatial dim " + std::to_string(i) +
                             ": kernel, dilation or pads out of range (past 64 bits)");
    }
    const int64_t room = padded - span;
    const int64_t out = room < 0 ? 0 : room / p.strides[i] + 1;
    if (out != y.shape[2 + i] || out == 0) {
      return InvalidArgument("conv: output spatial dim " + std::to_string(i) + " is " +
                             std::to_string(y.shape[2 + i]) + ", geometry gives " +
                             std::to_string(out));
    }
  }
  return Status::Ok();
}

// For every output element (n, m, o...), accumulates load_x(x offset) * load_w(w offset, m) over
// the receptive field (cells in the padding contribute nothing) starting from Acc(0), then calls
// store(y offset, m, acc).
template <typename Acc, typename LoadX, typename LoadW, typename Store>
void ConvLoop(const ConvParams& p, const TensorView& x, const TensorView& w, const TensorView& y,
              LoadX load_x, LoadW load_w, Store store) {
  const int s = p.spatial;
  const int64_t batch = x.shape[0], c = x.shape[1], m = w.shape[0];
  const int64_t cg = c / p.group, mg = m / p.group;
  int64_t in_size = 1, k_size = 1, out_size = 1;
  for (int i = 0; i < s; ++i) {
    in_size *= x.shape[2 + i];
    k_size *= w.shape[2 + i];
    out_size *= y.shape[2 + i];
  }
  // An empty output has nothing to compute, and no input channels nothing to sum: skip the loops,
  // whose other extents (kernel taps of empty weights) need not be bounded by any buffer.
  if (batch * m * out_size == 0) return;
  int64_t oidx[kMaxSpatial], kidx[kMaxSpatial];
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oc = 0; oc < m; ++oc) {
      const int64_t g = oc / mg;
      const int64_t x_base = (n * c + g * cg) * in_size;
      const int64_t w_base = oc * cg * k_size;
      const int64_t y_base = (n * m + oc) * out_size;
      for (int64_t o = 0; o < out_size; ++o) {
        int64_t r = o;
        for (int i = s - 1; i >= 0; --i) {
          oidx[i] = r % y.shape[2 + i];
          r /= y.shape[2 + i];
        }
        Acc acc = Acc(0);
        for (int64_t k = 0; cg > 0 && k < k_size; ++k) {
          int64_t rk = k;
          for (int i = s - 1; i >= 0; --i) {
            kidx[i] = rk % w.shape[2 + i];
            rk /= w.shape[2 + i];
          }
          // Input offset of this kernel tap within one channel plane, or skip if it is padding.
          int64_t off = 0;
          bool inside = true;
          for (int i = 0; i < s && inside; ++i) {
            const int64_t pos = oidx[i] * p.strides[i] - p.pads_begin[i] + kidx[i] * p.dilations[i];
            inside = pos >= 0 && pos < x.shape[2 + i];
            if (inside) off = off * x.shape[2 + i] + pos;
          }
          if (!inside) continue;
          for (int64_t ic = 0; ic < cg; ++ic) {
            acc += load_x(x_base + ic * in_size + off) * load_w(w_base + ic * k_size + k, oc);
          }
        }
        store(y_base + o, oc, acc);
      }
    }
  }
}

}  // namespace loom::kernels::internal

#endif  // LOOM_RUNTIME_KERNELS_CONV_COMMON_H_
