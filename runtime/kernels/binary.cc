// Elementwise Add/Sub/Mul with numpy broadcasting. Integer types wrap on overflow (computed in the
// unsigned type of the same width), which is what ONNX backends produce for the uint8 tests and
// avoids signed-overflow undefined behaviour.
#include <type_traits>

#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

template <typename T>
T Apply(BinaryOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    switch (op) {
      case BinaryOp::kAdd:
        return static_cast<T>(static_cast<U>(ua + ub));
      case BinaryOp::kSub:
        return static_cast<T>(static_cast<U>(ua - ub));
      case BinaryOp::kMul:
        return static_cast<T>(static_cast<U>(ua * ub));
    }
  } else {
    switch (op) {
      case BinaryOp::kAdd:
        return a + b;
      case BinaryOp::kSub:
        return a - b;
      case BinaryOp::kMul:
        return a * b;
    }
  }
  return T(0);
}

template <typename T>
void Run(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  IndexWalker<2> walk;
  walk.rank = y.rank;
  for (int i = 0; i < y.rank; ++i) walk.shape[i] = y.shape[i];
  BroadcastStrides(a, y.rank, walk.strides[0]);
  BroadcastStrides(b, y.rank, walk.strides[1]);
  const T* ad = a.As<const T>();
  const T* bd = b.As<const T>();
  T* yd = y.As<T>();
  const int64_t n = y.NumElements();
  for (int64_t i = 0; i < n; ++i, walk.Next()) {
    yd[i] = Apply(op, ad[walk.offset[0]], bd[walk.offset[1]]);
  }
}

}  // namespace

Status Binary(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  if (a.dtype != b.dtype || a.dtype != y.dtype) {
    return InvalidArgument("binary: a, b and y must have the same dtype");
  }
  int64_t dims[kMaxRank];
  int rank = 0;
  LOOM_RETURN_IF_ERROR(BroadcastShapes(a, b, dims, &rank));
  bool ok = rank == y.rank;
  for (int i = 0; ok && i < rank; ++i) ok = dims[i] == y.shape[i];
  if (!ok) return InvalidArgument("binary: y must have the broadcast shape of a and b");
  switch (y.dtype) {
    case DType::kF32:
      Run<float>(op, a, b, y);
      break;
    case DType::kI8:
      Run<int8_t>(op, a, b, y);
      break;
    case DType::kU8:
      Run<uint8_t>(op, a, b, y);
      break;
    case DType::kI32:
      Run<int32_t>(op, a, b, y);
      break;
    case DType::kI64:
      Run<int64_t>(op, a, b, y);
      break;
    default:
      return InvalidArgument(std::string("binary: ") + DTypeName(y.dtype) + " is not supported");
  }
  return Status::Ok();
}

}  // namespace loom::kernels
