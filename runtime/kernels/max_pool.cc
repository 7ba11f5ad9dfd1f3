// ONNX MaxPool over N-D inputs with dilations, asymmetric pads and the optional Indices output.
// Padding cells never win (they are skipped, not treated as -inf values), so integer inputs work.
#include <limits>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/pool_common.h"

namespace loom::kernels {
namespace {

template <typename T>
void Run(const PoolParams& p, const TensorView& x, const TensorView& y, int64_t* indices) {
  const int s = p.spatial;
  int64_t in_size = 1;
  for (int i = 0; i < s; ++i) in_size *= x.shape[2 + i];
  const T* xd = x.As<const T>();
  T* yd = y.As<T>();
  internal::ForEachPoolOutput(p, y, [&](int64_t plane, int64_t yi, const int64_t* oidx) {
    T best = std::numeric_limits<T>::lowest();
    int64_t best_index = -1;
    internal::ForEachInsideTap(p, x, oidx, [&](const int64_t* pos) {
      int64_t row_major = 0, col_major = 0, col_stride = 1;
      for (int i = 0; i < s; ++i) {
        row_major = row_major * x.shape[2 + i] + pos[i];
        col_major += pos[i] * col_stride;
        col_stride *= x.shape[2 + i];
      }
      const T v = xd[plane * in_size + row_major];
      // Strictly greater: the first maximum in window order wins, as in onnxruntime.
      if (best_index < 0 || v > best) {
        best = v;
        best_index = plane * in_size + (p.storage_order == 0 ? row_major : col_major);
      }
    });
    yd[yi] = best;
    if (indices != nullptr) indices[yi] = best_index;
  });
}

}  // namespace

Status MaxPool(const PoolParams& p, const TensorView& x, const TensorView& y,
               const TensorView* indices) {
  if (x.dtype != y.dtype ||
      (x.dtype != DType::kF32 && x.dtype != DType::kU8 && x.dtype != DType::kI8)) {
    return InvalidArgument("max-pool: x and y must both be f32, u8 or i8");
  }
  LOOM_RETURN_IF_ERROR(internal::CheckPoolShapes(p, x, y, "max-pool"));
  if (indices != nullptr && (indices->dtype != DType::kI64 || !SameShape(*indices, y))) {
    return InvalidArgument("max-pool: indices must be i64 with the shape of y");
  }
  if (p.storage_order != 0 && p.storage_order != 1) {
    return InvalidArgument("max-pool: storage_order must be 0 or 1");
  }
  int64_t* idx = indices ? indices->As<int64_t>() : nullptr;
  switch (x.dtype) {
    case DType::kF32:
      Run<float>(p, x, y, idx);
      break;
    case DType::kU8:
      Run<uint8_t>(p, x, y, idx);
      break;
    case DType::kI8:
      Run<int8_t>(p, x, y, idx);
      break;
    default:
      break;
  }
  return Status::Ok();
}

}  // namespace loom::kernels
