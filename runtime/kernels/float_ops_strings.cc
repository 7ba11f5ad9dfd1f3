#include "runtime/kernels/float_ops_strings.h"

#include <string>

#include "runtime/kernels/kernels_index.h"
#include "runtime/kernels/loss_common.h"

namespace loom::kernels::strings {
namespace {

const TensorView* Optional(const TensorView* const* in, size_t n, size_t i) {
  return i < n ? in[i] : nullptr;
}

// `value` of attribute `name` as the index of its entry in `names` (`count` of them).
Status OneOf(const char* op, const char* name, const std::string& value, const char* const* names,
             int count, int* out) {
  std::string known;
  for (int i = 0; i < count; ++i) {
    if (value == names[i]) {
      *out = i;
      return Status::Ok();
    }
    known += std::string(i ? ", " : "") + names[i];
  }
  // A package's string may be anything: quote at most 32 bytes of it.
  const std::string shown = value.size() > 32 ? value.substr(0, 32) + "..." : value;
  return InvalidArgument(std::string(op) + ": " + name + " '" + shown + "' is not one of " + known);
}

}  // namespace

// --- losses -----------------------------------------------------------------------------------

Status PrepLoss(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                FloatOpParams* p) {
  static const char* const kReductions[] = {"none", "sum", "mean"};  // LossReduction's order
  int r = 0;
  LOOM_RETURN_IF_ERROR(
      OneOf("loss", "reduction", a.GetString("reduction", "mean"), kReductions, 3, &r));
  p->loss.reduction = static_cast<LossReduction>(r);
  p->loss.has_ignore_index = a.Has("ignore_index");
  p->loss.ignore_index = a.GetInt("ignore_index", 0);
  // The kernels' operand checks read shapes and types only, so the loader can run them now.
  loss::Dims d;
  return loss::CheckOperands("loss", *in[0], *in[1], Optional(in, n, 2), p->loss.reduction, y, &d);
}

Status RunNllLoss(const FloatOpParams& p, const TensorView* const* in, size_t n,
                  const TensorView& y) {
  return NllLoss(p.loss, *in[0], *in[1], Optional(in, n, 2), y);
}

Status RunSoftmaxCrossEntropy(const FloatOpParams& p, const TensorView* const* in, size_t n,
                              const TensorView* const* out, size_t num_outputs, void*) {
  return SoftmaxCrossEntropy(p.loss, *in[0], *in[1], Optional(in, n, 2), *out[0],
                             num_outputs > 1 ? out[1] : nullptr);
}

// --- Pad --------------------------------------------------------------------------------------

Status PrepPad(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
               FloatOpParams* p) {
  // ONNX 19's "wrap" is not among them: Loom imports opsets up to 18.
  static const char* const kModes[] = {"constant", "reflect", "edge"};  // PadMode's order
  int m = 0;
  LOOM_RETURN_IF_ERROR(OneOf("Pad", "mode", a.GetString("mode", "constant"), kModes, 3, &m));
  p->pad_mode = static_cast<PadMode>(m);
  const std::vector<int64_t> pads = a.GetInts("pads");
  const size_t want = 2 * static_cast<size_t>(in[0]->rank);
  if (pads.size() != want) {
    return InvalidArgument("Pad: pads has " + std::to_string(pads.size()) + " entries, a rank-" +
                           std::to_string(in[0]->rank) + " input needs " + std::to_string(want));
  }
  for (size_t i = 0; i < want; ++i) p->pads[i] = pads[i];
  p->pad_value = a.GetFloat("value", 0.0f);
  return PadShapes(*in[0], p->pads, p->pad_mode, y);
}

Status RunPad(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Pad(*in[0], p.pads, p.pad_mode, p.pad_value, y);
}

// --- EyeLike ----------------------------------------------------------------------------------

Status PrepEyeLike(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                   FloatOpParams* p) {
  const std::string dtype = a.GetString("dtype", "");
  DType t = DType::kUndefined;
  if (!ParseDType(dtype, &t)) {
    return InvalidArgument("EyeLike: dtype '" + dtype + "' is not an element type");
  }
  if (t != y.dtype) {
    return InvalidArgument("EyeLike: dtype says " + dtype + ", the output tensor is " +
                           DTypeName(y.dtype));
  }
  if (!EyeLikeTakes(t)) return InvalidArgument("EyeLike: dtype " + dtype + " is not supported");
  if (y.rank != 2 || !SameShape(*in[0], y)) {
    return InvalidArgument("EyeLike: the output must be 2-D with the input's shape");
  }
  p->k = a.GetInt("k", 0);
  return Status::Ok();
}

Status RunEyeLike(const FloatOpParams& p, const TensorView* const*, size_t, const TensorView& y) {
  return EyeLike(p.k, y);
}

// --- TopK -------------------------------------------------------------------------------------

Status PrepTopK(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                FloatOpParams* p) {
  const TensorView& x = *in[0];
  const int64_t axis = a.GetInt("axis", -1);
  if (axis < -x.rank || axis >= x.rank) {
    return InvalidArgument("TopK: axis " + std::to_string(axis) + " is outside [" +
                           std::to_string(-x.rank) + ", " + std::to_string(x.rank) + ")");
  }
  p->axis = static_cast<int>(axis < 0 ? axis + x.rank : axis);
  p->largest = a.GetInt("largest", 1) != 0;
  bool fits = x.dtype == DType::kF32 && y.dtype == DType::kF32 && y.rank == x.rank;
  for (int d = 0; fits && d < x.rank; ++d) {
    fits = d == p->axis ? y.shape[d] <= x.shape[d] : y.shape[d] == x.shape[d];
  }
  if (!fits) {
    return InvalidArgument("TopK: x and values must be f32 of one shape but on axis " +
                           std::to_string(p->axis) + ", where values are at most x's length");
  }
  return Status::Ok();
}

size_t TopKScratch(const FloatOpParams&, const TensorView* const*, size_t, const TensorView& y) {
  return static_cast<size_t>(y.NumElements()) * sizeof(int64_t);
}

Status RunTopK(const FloatOpParams& p, const TensorView* const* in, size_t,
               const TensorView* const* out, size_t num_outputs, void* scratch) {
  if (num_outputs > 1) return TopK(*in[0], p.axis, p.largest, *out[0], *out[1]);
  TensorView indices;
  LOOM_RETURN_IF_ERROR(
      MakeView(DType::kI64, scratch, out[0]->shape, out[0]->rank, &indices).WithContext("TopK"));
  return TopK(*in[0], p.axis, p.largest, *out[0], indices);
}

}  // namespace loom::kernels::strings
