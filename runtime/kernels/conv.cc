// Float N-D convolution (ONNX Conv): groups (incl. depthwise), strides, dilations, asymmetric
// padding. Geometry checks and the loop itself live in conv_common.h, shared with the integer
// convolutions so all three agree on which taps fall in the padding.
#include "runtime/kernels/conv_common.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status Conv(const ConvParams& p, const TensorView& x, const TensorView& w, const TensorView* bias,
            const TensorView& y) {
  if (x.dtype != DType::kF32 || w.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument("conv: x, w and y must be f32");
  }
  LOOM_RETURN_IF_ERROR(internal::CheckConvShapes(p, x, w, y));
  const float* b = nullptr;
  if (bias != nullptr) {
    if (bias->dtype != DType::kF32 || bias->NumElements() != w.shape[0]) {
      return InvalidArgument("conv: bias must be f32 with one value per output channel");
    }
    b = bias->As<const float>();
  }
  const float* xd = x.As<const float>();
  const float* wd = w.As<const float>();
  float* yd = y.As<float>();
  internal::ConvLoop<float>(
      p, x, w, y, [xd](int64_t i) { return xd[i]; }, [wd](int64_t i, int64_t) { return wd[i]; },
      [yd, b](int64_t i, int64_t oc, float acc) { yd[i] = b ? acc + b[oc] : acc; });
  return Status::Ok();
}

}  // namespace loom::kernels
