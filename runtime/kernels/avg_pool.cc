// ONNX AveragePool over N-D inputs. The divisor is the number of window cells inside the input
// (count_include_pad = 0) or inside the input plus its explicit padding (= 1); cells that a
// ceil_mode window reaches beyond the end padding are never counted, matching onnxruntime and
// PyTorch.
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/pool_common.h"

namespace loom::kernels {

Status AvgPool(const PoolParams& p, const TensorView& x, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument("avg-pool: x and y must be f32");
  }
  LOOM_RETURN_IF_ERROR(internal::CheckPoolShapes(p, x, y, "avg-pool"));
  const int s = p.spatial;
  for (int i = 0; i < s; ++i) {
    if (p.dilations[i] != 1) return InvalidArgument("avg-pool: dilations are not supported");
  }
  int64_t in_size = 1;
  for (int i = 0; i < s; ++i) in_size *= x.shape[2 + i];
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  internal::ForEachPoolOutput(p, y, [&](int64_t plane, int64_t yi, const int64_t* oidx) {
    float sum = 0.0f;
    int64_t inside = 0;
    internal::ForEachInsideTap(p, x, oidx, [&](const int64_t* pos) {
      int64_t off = 0;
      for (int i = 0; i < s; ++i) off = off * x.shape[2 + i] + pos[i];
      sum += xd[plane * in_size + off];
      ++inside;
    });
    // With padding counted, the divisor is the window cells within [-pads_begin, input +
    // pads_end) per dim, a product computed rather than counted: a huge kernel costs nothing and
    // the double holds any such product (exactly below 2^53, the only counts a float divisor
    // tells apart anyway).
    double count = static_cast<double>(inside);
    if (p.count_include_pad) {
      count = 1.0;
      for (int i = 0; i < s; ++i) {
        // Taps k with start + k < input + pads_end, where start = o * stride - pads_begin.
        int64_t cells = x.shape[2 + i] + p.pads_end[i] + p.pads_begin[i] - oidx[i] * p.strides[i];
        if (cells > p.kernel[i]) cells = p.kernel[i];
        count *= static_cast<double>(cells < 0 ? 0 : cells);
      }
    }
    yd[yi] = count > 0 ? sum / static_cast<float>(count) : 0.0f;
  });
  return Status::Ok();
}

}  // namespace loom::kernels
