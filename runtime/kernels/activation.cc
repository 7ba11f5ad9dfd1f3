// Elementwise activations. Also the epilogue of fused Conv/Gemm/Add (the fusion pass sets an
// `activation` attribute; the interpreter runs this in place on the op's output).
#include <cmath>

#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

template <typename T>
void ReluClip(const ActivationParams& p, const T* x, T* y, int64_t n) {
  if (p.kind == ActivationKind::kRelu) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] > T(0) ? x[i] : T(0);
    return;
  }
  // Clip compares in double: exact for every integer type up to i32 and for floats. A NaN input
  // fails both comparisons and passes through unchanged, as in numpy.clip.
  for (int64_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(x[i]);
    y[i] = v < p.min ? static_cast<T>(p.min) : v > p.max ? static_cast<T>(p.max) : x[i];
  }
}

}  // namespace

Status Activation(const ActivationParams& p, const TensorView& x, const TensorView& y) {
  if (x.dtype != y.dtype || x.NumElements() != y.NumElements()) {
    return InvalidArgument("activation: x and y must have the same dtype and size");
  }
  const int64_t n = x.NumElements();
  switch (p.kind) {
    case ActivationKind::kNone:
      if (x.data != y.data) {
        for (int64_t i = 0; i < n * static_cast<int64_t>(DTypeSize(x.dtype)); ++i) {
          y.As<uint8_t>()[i] = x.As<const uint8_t>()[i];
        }
      }
      return Status::Ok();
    case ActivationKind::kRelu:
    case ActivationKind::kClip:
      if (p.kind == ActivationKind::kClip && !(p.min <= p.max)) {
        // ONNX leaves min > max undefined; we refuse it instead of picking an answer.
        return InvalidArgument("clip: min must not exceed max");
      }
      switch (x.dtype) {
        case DType::kF32:
          ReluClip(p, x.As<const float>(), y.As<float>(), n);
          break;
        case DType::kI8:
          ReluClip(p, x.As<const int8_t>(), y.As<int8_t>(), n);
          break;
        case DType::kU8:
          ReluClip(p, x.As<const uint8_t>(), y.As<uint8_t>(), n);
          break;
        case DType::kI32:
          ReluClip(p, x.As<const int32_t>(), y.As<int32_t>(), n);
          break;
        case DType::kI64:
          ReluClip(p, x.As<const int64_t>(), y.As<int64_t>(), n);
          break;
        default:
          return InvalidArgument(std::string("activation: ") + DTypeName(x.dtype) +
                                 " is not supported");
      }
      return Status::Ok();
    case ActivationKind::kLeakyRelu:
    case ActivationKind::kSigmoid:
      break;
  }
  if (x.dtype != DType::kF32) return InvalidArgument("activation: LeakyRelu/Sigmoid need f32");
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  if (p.kind == ActivationKind::kLeakyRelu) {
    for (int64_t i = 0; i < n; ++i) yd[i] = xd[i] >= 0.0f ? xd[i] : p.alpha * xd[i];
  } else {
    // Split by sign so exp never overflows: 1/(1+e^-x) for x >= 0, e^x/(1+e^x) otherwise.
    for (int64_t i = 0; i < n; ++i) {
      const float v = xd[i];
      if (v >= 0.0f) {
        yd[i] = 1.0f / (1.0f + std::exp(-v));
      } else {
        const float e = std::exp(v);
        yd[i] = e / (1.0f + e);
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
