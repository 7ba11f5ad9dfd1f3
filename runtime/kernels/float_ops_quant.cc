#include "runtime/kernels/float_ops_quant.h"

#include <string>

namespace loom::kernels::quant {
namespace {

const TensorView* Optional(const TensorView* const* in, size_t n, size_t i) {
  return i < n ? in[i] : nullptr;
}

}  // namespace

// A per-axis scale names its axis; it is resolved and checked against x here, at load, so a
// package whose scale does not fit its input is refused before it runs. A scalar scale ignores
// the axis, as ONNX does.
Status PrepLinear(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
                  FloatOpParams* p) {
  const TensorView& x = *in[0];
  const TensorView& scale = *in[1];
  int64_t axis = a.GetInt("axis", 1);
  if (axis < 0) axis += x.rank;
  p->axis = static_cast<int>(axis);
  if (scale.NumElements() == 1) return Status::Ok();
  if (scale.rank != 1 || axis < 0 || axis >= x.rank || x.shape[axis] != scale.shape[0]) {
    return InvalidArgument("a per-axis scale of " + std::to_string(scale.NumElements()) +
                           " values needs a 1-D scale of x.shape[axis] with axis " +
                           std::to_string(a.GetInt("axis", 1)) + " inside rank " +
                           std::to_string(x.rank));
  }
  return Status::Ok();
}

Status RunQuantizeLinear(const FloatOpParams& p, const TensorView* const* in, size_t,
                         const TensorView& y) {
  return QuantizeLinear(*in[0], *in[1], *in[2], p.axis, y);
}

Status RunDequantizeLinear(const FloatOpParams& p, const TensorView* const* in, size_t,
                           const TensorView& y) {
  return DequantizeLinear(*in[0], *in[1], *in[2], p.axis, y);
}

Status RunConvInteger(const FloatOpParams& p, const TensorView* const* in, size_t n,
                      const TensorView& y) {
  return ConvInteger(p.conv, *in[0], *in[1], Optional(in, n, 2), Optional(in, n, 3), y);
}

Status RunQLinearConv(const FloatOpParams& p, const TensorView* const* in, size_t n,
                      const TensorView& y) {
  return QLinearConv(p.conv, *in[0], {in[1], in[2]}, *in[3], {in[4], in[5]}, {in[6], in[7]},
                     Optional(in, n, 8), y);
}

Status RunMatMulInteger(const FloatOpParams&, const TensorView* const* in, size_t n,
                        const TensorView& y) {
  return MatMulInteger(*in[0], *in[1], Optional(in, n, 2), Optional(in, n, 3), y);
}

Status RunQLinearMatMul(const FloatOpParams&, const TensorView* const* in, size_t,
                        const TensorView& y) {
  return QLinearMatMul(*in[0], {in[1], in[2]}, *in[3], {in[4], in[5]}, {in[6], in[7]}, y);
}

}  // namespace loom::kernels::quant
