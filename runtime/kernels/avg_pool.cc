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
  int64_t in_size = 1, k_size = 1;
  for (int i = 0; i < s; ++i) {
    in_size *= x.shape[2 + i];
    k_size *= p.kernel[i];
  }
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  internal::ForEachPoolOutput(p, y, [&](int64_t plane, int64_t yi, const int64_t* oidx) {
    float sum = 0.0f;
    int64_t count = 0;
    int64_t kidx[kMaxSpatial];
    for (int64_t k = 0; k < k_size; ++k) {
      int64_t rk = k;
      for (int i = s - 1; i >= 0; --i) {
        kidx[i] = rk % p.kernel[i];
        rk /= p.kernel[i];
      }
      int64_t off = 0;
      bool inside = true, in_padded = true;
      for (int i = 0; i < s; ++i) {
        const int64_t pos = oidx[i] * p.strides[i] - p.pads_begin[i] + kidx[i];
        inside = inside && pos >= 0 && pos < x.shape[2 + i];
        in_padded = in_padded && pos >= -p.pads_begin[i] && pos < x.shape[2 + i] + p.pads_end[i];
        off = off * x.shape[2 + i] + pos;
      }
      if (inside) {
        sum += xd[plane * in_size + off];
        ++count;
      } else if (p.count_include_pad && in_padded) {
        ++count;
      }
    }
    yd[yi] = count > 0 ? sum / static_cast<float>(count) : 0.0f;
  });
  return Status::Ok();
}

}  // namespace loom::kernels
