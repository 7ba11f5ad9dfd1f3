#include "runtime/kernels/float_ops_multi.h"

#include <string>

#include "runtime/kernels/op_attrs.h"
#include "runtime/kernels/seq_attrs.h"

namespace loom::kernels::multi {
namespace {

const TensorView* At(const TensorView* const* v, size_t n, size_t i) {
  return i < n ? v[i] : nullptr;
}

}  // namespace

Status RunLayerNorm(const FloatOpParams& p, const TensorView* const* in, size_t n,
                    const TensorView* const* out, size_t m, void*) {
  return LayerNorm(*in[0], *in[1], At(in, n, 2), p.axis, p.epsilon, *out[0], At(out, m, 1),
                   At(out, m, 2));
}

Status PrepBatchNormTraining(const AttrReader& a, const TensorView* const*, size_t,
                             const TensorView&, FloatOpParams* p) {
  p->epsilon = a.GetFloat("epsilon", 1e-5f);
  p->momentum = a.GetFloat("momentum", 0.9f);
  return Status::Ok();
}
Status RunBatchNormTraining(const FloatOpParams& p, const TensorView* const* in, size_t,
                            const TensorView* const* out, size_t m, void*) {
  return BatchNormTraining(*in[0], *in[1], *in[2], *in[3], *in[4], p.epsilon, p.momentum, *out[0],
                           At(out, m, 1), At(out, m, 2));
}

// The scratch is sized from hidden_size, so hidden_size must be R's last dim ([D, G*H, H]): a
// package cannot ask for more scratch than its own tensors justify.
template <int kGates>
Status PrepRecurrent(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView&,
                     FloatOpParams* p) {
  p->gates = kGates;
  LOOM_RETURN_IF_ERROR(RecurrentParamsFrom(a, &p->recurrent));
  const TensorView* r = At(in, n, 2);
  if (r == nullptr || r->rank != 3 || r->shape[2] != p->recurrent.hidden_size ||
      r->shape[1] != int64_t{kGates} * p->recurrent.hidden_size) {
    return InvalidArgument("recurrent op: R must be [directions, " + std::to_string(kGates) +
                           " * hidden_size, hidden_size] with hidden_size " +
                           std::to_string(p->recurrent.hidden_size));
  }
  return Status::Ok();
}
template Status PrepRecurrent<kRnnGates>(const AttrReader&, const TensorView* const*, size_t,
                                         const TensorView&, FloatOpParams*);
template Status PrepRecurrent<kGruGates>(const AttrReader&, const TensorView* const*, size_t,
                                         const TensorView&, FloatOpParams*);
template Status PrepRecurrent<kLstmGates>(const AttrReader&, const TensorView* const*, size_t,
                                          const TensorView&, FloatOpParams*);

size_t RecurrentScratch(const FloatOpParams& p, const TensorView* const*, size_t,
                        const TensorView&) {
  return RecurrentScratchFloats(p.gates, p.recurrent.hidden_size) * sizeof(float);
}

Status RunRecurrent(const FloatOpParams& p, const TensorView* const* in, size_t n,
                    const TensorView* const* out, size_t m, void* scratch) {
  RecurrentOperands o;
  o.x = in[0];
  o.w = in[1];
  o.r = in[2];
  o.b = At(in, n, 3);
  o.seq_lens = At(in, n, 4);
  o.init_h = At(in, n, 5);
  o.init_c = At(in, n, 6);
  o.p = At(in, n, 7);
  o.y = out[0];
  o.y_h = At(out, m, 1);
  o.y_c = At(out, m, 2);
  float* s = static_cast<float*>(scratch);
  switch (p.gates) {
    case kRnnGates:
      return Rnn(p.recurrent, o, s);
    case kGruGates:
      return Gru(p.recurrent, o, s);
    default:
      return Lstm(p.recurrent, o, s);
  }
}

Status RunDynamicQuantizeLinear(const FloatOpParams&, const TensorView* const* in, size_t,
                                const TensorView* const* out, size_t m, void*) {
  // Scale and zero point the package does not return still need somewhere to go.
  float scale = 0.0f;
  uint8_t zero_point = 0;
  const TensorView s = View(DType::kF32, &scale, {});
  const TensorView zp = View(DType::kU8, &zero_point, {});
  return DynamicQuantizeLinear(*in[0], *out[0], m > 1 ? *out[1] : s, m > 2 ? *out[2] : zp);
}

Status PrepDet(const AttrReader&, const TensorView* const* in, size_t, const TensorView&,
               FloatOpParams*) {
  const TensorView& x = *in[0];
  if (x.rank < 2 || x.shape[x.rank - 1] != x.shape[x.rank - 2]) {
    return InvalidArgument("Det: x must be [..., M, M], is rank " + std::to_string(x.rank));
  }
  return Status::Ok();
}
size_t DetScratch(const FloatOpParams&, const TensorView* const* in, size_t, const TensorView&) {
  const int64_t m = in[0]->shape[in[0]->rank - 1];
  return static_cast<size_t>(m * m) * sizeof(double);
}
Status RunDet(const FloatOpParams&, const TensorView* const* in, size_t,
              const TensorView* const* out, size_t, void* scratch) {
  return Det(*in[0], *out[0], static_cast<double*>(scratch));
}

Status PrepMaxPool(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                   FloatOpParams* p) {
  const DType t = in[0]->dtype;
  if (t != y.dtype || (t != DType::kF32 && t != DType::kU8 && t != DType::kI8)) {
    return InvalidArgument(std::string("MaxPool: x is ") + DTypeName(t) + ", y " +
                           DTypeName(y.dtype) + "; both f32, u8 or i8");
  }
  return PoolParamsFrom(a, in[0]->rank, &p->pool);
}
Status RunMaxPool(const FloatOpParams& p, const TensorView* const* in, size_t,
                  const TensorView* const* out, size_t m, void*) {
  return MaxPool(p.pool, *in[0], *out[0], m > 1 ? out[1] : nullptr);
}

Status PrepDropout(const AttrReader&, const TensorView* const* in, size_t, const TensorView& y,
                   FloatOpParams*) {
  if (in[0]->dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument("Dropout: x and y must be f32");
  }
  return Status::Ok();
}
Status RunDropout(const FloatOpParams&, const TensorView* const* in, size_t,
                  const TensorView* const* out, size_t m, void*) {
  LOOM_RETURN_IF_ERROR(Copy(*in[0], *out[0]));
  if (m < 2) return Status::Ok();
  const TensorView& mask = *out[1];
  if (mask.dtype != DType::kBool || !SameShape(mask, *in[0])) {
    return InvalidArgument("Dropout: the mask must be bool of x's shape");
  }
  uint8_t* d = mask.As<uint8_t>();
  for (int64_t i = 0; i < mask.NumElements(); ++i) d[i] = 1;
  return Status::Ok();
}

}  // namespace loom::kernels::multi
