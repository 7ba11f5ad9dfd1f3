#include "runtime/kernels/float_ops.h"

#include <cstring>

#include "runtime/kernels/float_ops_multi.h"
#include "runtime/kernels/float_ops_quant.h"
#include "runtime/kernels/float_ops_strings.h"
#include "runtime/kernels/float_ops_typed.h"
#include "runtime/kernels/index_common.h"
#include "runtime/kernels/math_attrs.h"
#include "runtime/kernels/op_attrs.h"
#include "runtime/kernels/vision_attrs.h"

namespace loom::kernels {
namespace {

const TensorView* Optional(const TensorView* const* in, size_t n, size_t i) {
  return i < n ? in[i] : nullptr;
}

// An axis as ONNX allows it (negative counts from the end), resolved against `rank`.
Status ResolveAxis(const char* op, int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument(std::string(op) + ": axis " + std::to_string(axis) + " is outside [" +
                           std::to_string(-rank) + ", " + std::to_string(rank) + ") for rank " +
                           std::to_string(rank));
  }
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::Ok();
}

// --- prepare: attributes and shapes -> parameters, once at load -------------------------------

// Data-movement kernels take any type but never convert: every operand has the output's type.
Status SameTypes(const char* op, const TensorView* const* in, size_t n, const TensorView& y) {
  for (size_t i = 0; i < n; ++i) {
    if (in[i] != nullptr && in[i]->dtype != y.dtype) {
      return InvalidArgument(std::string(op) + ": input " + std::to_string(i) + " is " +
                             DTypeName(in[i]->dtype) + ", the output " + DTypeName(y.dtype) +
                             "; the types must match");
    }
  }
  return Status::Ok();
}
Status PrepCopy(const AttrReader&, const TensorView* const* in, size_t n, const TensorView& y,
                FloatOpParams*) {
  return SameTypes("copy", in, n, y);
}

Status PrepNothing(const AttrReader&, const TensorView* const*, size_t, const TensorView&,
                   FloatOpParams*) {
  return Status::Ok();
}
Status PrepRelu(const AttrReader&, const TensorView* const*, size_t, const TensorView&,
                FloatOpParams* p) {
  p->act.kind = ActivationKind::kRelu;
  return Status::Ok();
}
Status PrepSigmoid(const AttrReader&, const TensorView* const*, size_t, const TensorView&,
                   FloatOpParams* p) {
  p->act.kind = ActivationKind::kSigmoid;
  return Status::Ok();
}
Status PrepLeakyRelu(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
                     FloatOpParams* p) {
  p->act.kind = ActivationKind::kLeakyRelu;
  p->act.alpha = a.GetFloat("alpha", 0.01f);
  return Status::Ok();
}
Status PrepSoftmax(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
                   FloatOpParams* p) {
  return ResolveAxis("Softmax", a.GetInt("axis", -1), in[0]->rank, &p->axis);
}
Status PrepConcat(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                  FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(SameTypes("Concat", in, n, y));
  return ResolveAxis("Concat", a.GetInt("axis", 0), y.rank, &p->axis);
}
Status PrepTranspose(const AttrReader& a, const TensorView* const* in, size_t n,
                     const TensorView& y, FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(SameTypes("Transpose", in, n, y));
  const int rank = in[0]->rank;
  std::vector<int64_t> perm = a.GetInts("perm");
  if (perm.empty()) {  // ONNX's default reverses the dims
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  if (perm.size() != static_cast<size_t>(rank)) {
    return InvalidArgument("Transpose: perm has " + std::to_string(perm.size()) +
                           " entries for a rank-" + std::to_string(rank) + " input");
  }
  bool used[kMaxRank] = {};
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= rank || used[perm[i]]) {
      return InvalidArgument("Transpose: perm is not a permutation of 0.." +
                             std::to_string(rank - 1) + " (entry " + std::to_string(i) + " is " +
                             std::to_string(perm[i]) + ")");
    }
    used[perm[i]] = true;
    p->perm[i] = perm[i];
  }
  return Status::Ok();
}
Status PrepBatchNorm(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
                     FloatOpParams* p) {
  p->epsilon = a.GetFloat("epsilon", 1e-5f);
  return Status::Ok();
}
template <BinaryOp kOp>
Status PrepBinary(const AttrReader&, const TensorView* const*, size_t, const TensorView&,
                  FloatOpParams* p) {
  p->binary = kOp;
  return Status::Ok();
}
Status PrepConv(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
                FloatOpParams* p) {
  return ConvParamsFrom(a, in[0]->rank, &p->conv);
}
Status PrepGemm(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
                FloatOpParams* p) {
  p->gemm = GemmParamsFrom(a);
  return Status::Ok();
}
Status PrepPool(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
                FloatOpParams* p) {
  return PoolParamsFrom(a, in[0]->rank, &p->pool);
}

// --- run: the kernels, per inference ----------------------------------------------------------

Status RunCopy(const FloatOpParams&, const TensorView* const* in, size_t, const TensorView& y) {
  return Copy(*in[0], y);
}
Status RunActivation(const FloatOpParams& p, const TensorView* const* in, size_t,
                     const TensorView& y) {
  return Activation(p.act, *in[0], y);
}
Status RunSoftmax(const FloatOpParams& p, const TensorView* const* in, size_t,
                  const TensorView& y) {
  return Softmax(*in[0], p.axis, y);
}
Status RunTranspose(const FloatOpParams& p, const TensorView* const* in, size_t,
                    const TensorView& y) {
  return Transpose(*in[0], p.perm, y);
}
Status RunBatchNorm(const FloatOpParams& p, const TensorView* const* in, size_t,
                    const TensorView& y) {
  return BatchNorm(*in[0], *in[1], *in[2], *in[3], *in[4], p.epsilon, y);
}
Status RunBinary(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Binary(p.binary, *in[0], *in[1], y);
}
Status RunConv(const FloatOpParams& p, const TensorView* const* in, size_t n, const TensorView& y) {
  return Conv(p.conv, *in[0], *in[1], Optional(in, n, 2), y);
}
Status RunGemm(const FloatOpParams& p, const TensorView* const* in, size_t n, const TensorView& y) {
  return Gemm(p.gemm, *in[0], *in[1], Optional(in, n, 2), y);
}
Status RunMatMul(const FloatOpParams&, const TensorView* const* in, size_t, const TensorView& y) {
  return MatMul(*in[0], *in[1], y);
}
Status RunAvgPool(const FloatOpParams& p, const TensorView* const* in, size_t,
                  const TensorView& y) {
  return AvgPool(p.pool, *in[0], y);
}
Status RunGlobalAvgPool(const FloatOpParams&, const TensorView* const* in, size_t,
                        const TensorView& y) {
  return GlobalAvgPool(*in[0], y);
}
Status RunConcat(const FloatOpParams& p, const TensorView* const* in, size_t n,
                 const TensorView& y) {
  return Concat(in, static_cast<int>(n), p.axis, y);
}

// --- vision and normalization family (kernels_vision.h) ---------------------------------------

Status PrepResize(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                  FloatOpParams* p) {
  return ResizeParamsFrom(a, *in[0], y, &p->resize);
}
Status PrepLayerNorm(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
                     FloatOpParams* p) {
  p->epsilon = a.GetFloat("epsilon", 1e-5f);
  return ResolveAxis("LayerNormalization", a.GetInt("axis", -1), in[0]->rank, &p->axis);
}
Status PrepLrn(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
               FloatOpParams* p) {
  return LrnParamsFrom(a, &p->lrn);
}
Status RunConvTranspose(const FloatOpParams& p, const TensorView* const* in, size_t n,
                        const TensorView& y) {
  return ConvTranspose(p.conv, *in[0], *in[1], Optional(in, n, 2), y);
}
Status RunResize(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Resize(p.resize, *in[0], y);
}
Status RunLayerNorm(const FloatOpParams& p, const TensorView* const* in, size_t n,
                    const TensorView& y) {
  return LayerNorm(*in[0], *in[1], Optional(in, n, 2), p.axis, p.epsilon, y, nullptr, nullptr);
}
Status RunInstanceNorm(const FloatOpParams& p, const TensorView* const* in, size_t,
                       const TensorView& y) {
  return InstanceNorm(*in[0], *in[1], *in[2], p.epsilon, y);
}
Status RunLrn(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Lrn(p.lrn, *in[0], y);
}
Status RunGlobalMaxPool(const FloatOpParams&, const TensorView* const* in, size_t,
                        const TensorView& y) {
  return GlobalMaxPool(*in[0], y);
}

// --- detection/vision family (kernels_vision2.h) ----------------------------------------------

Status PrepGridSample(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
                      FloatOpParams* p) {
  return GridSampleParamsFrom(a, &p->grid_sample);
}
Status PrepRoiAlign(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
                    FloatOpParams* p) {
  return RoiAlignParamsFrom(a, &p->roi_align);
}
Status RunRoiAlign(const FloatOpParams& p, const TensorView* const* in, size_t,
                   const TensorView& y) {
  return RoiAlign(p.roi_align, *in[0], *in[1], *in[2], y);
}
Status RunGridSample(const FloatOpParams& p, const TensorView* const* in, size_t,
                     const TensorView& y) {
  return GridSample(p.grid_sample, *in[0], *in[1], y);
}

// --- reduction family (kernels_reduce.h) -----------------------------------------------------

template <ReduceOp kOp>
Status PrepReduce(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                  FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(SameTypes("Reduce", in, n, y));
  // The kernel sums integers in int64 but has no integer L2 or logarithm.
  constexpr bool kFloatOnly =
      kOp == ReduceOp::kL2 || kOp == ReduceOp::kLogSum || kOp == ReduceOp::kLogSumExp;
  if (kFloatOnly && y.dtype != DType::kF32 && y.dtype != DType::kF64) {
    return InvalidArgument(std::string("Reduce: ") + DTypeName(y.dtype) +
                           " has no L2 or log reduction (f32, f64)");
  }
  p->reduce = kOp;
  const std::vector<int64_t> axes = a.GetInts("axes");
  if (axes.empty()) return InvalidArgument("Reduce: axes is missing or empty");
  return ReduceAxesMask(axes.data(), static_cast<int>(axes.size()), in[0]->rank, &p->reduce_axes);
}
Status PrepLogSoftmax(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
                      FloatOpParams* p) {
  return ResolveAxis("LogSoftmax", a.GetInt("axis", -1), in[0]->rank, &p->axis);
}
Status PrepHardmax(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
                   FloatOpParams* p) {
  return ResolveAxis("Hardmax", a.GetInt("axis", -1), in[0]->rank, &p->axis);
}
Status PrepCumSum(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                  FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(SameTypes("CumSum", in, n, y));
  p->exclusive = a.GetInt("exclusive", 0) != 0;
  p->reverse = a.GetInt("reverse", 0) != 0;
  return ResolveAxis("CumSum", a.GetInt("axis", 0), in[0]->rank, &p->axis);
}
Status PrepMvn(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
               FloatOpParams* p) {
  const std::vector<int64_t> axes = a.GetInts("axes");
  if (axes.empty()) return InvalidArgument("MeanVarianceNormalization: axes is missing or empty");
  return ReduceAxesMask(axes.data(), static_cast<int>(axes.size()), in[0]->rank, &p->reduce_axes);
}
Status PrepEinsum(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                  FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(SameTypes("Einsum", in, n, y));
  const std::vector<int64_t> labels = a.GetInts("labels");
  const std::vector<int64_t> out = a.GetInts("out_labels");
  return EinsumSpecFrom(labels.data(), labels.size(), out.data(), out.size(), in,
                        static_cast<int>(n), &p->einsum);
}
Status RunMvn(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return MeanVarianceNorm(*in[0], p.reduce_axes, y);
}
Status RunEinsum(const FloatOpParams& p, const TensorView* const* in, size_t n,
                 const TensorView& y) {
  return Einsum(p.einsum, in, static_cast<int>(n), y);
}
Status RunReduce(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Reduce(p.reduce, *in[0], p.reduce_axes, y);
}
Status RunLogSoftmax(const FloatOpParams& p, const TensorView* const* in, size_t,
                     const TensorView& y) {
  return LogSoftmax(*in[0], p.axis, y);
}
Status RunHardmax(const FloatOpParams& p, const TensorView* const* in, size_t,
                  const TensorView& y) {
  return Hardmax(*in[0], p.axis, y);
}
Status RunCumSum(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return CumSum(*in[0], p.axis, p.exclusive, p.reverse, y);
}

// --- elementwise math and activations (kernels_math.h) -----------------------------------------

template <UnaryOp kOp>
Status PrepUnary(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
                 FloatOpParams* p) {
  return UnaryParamsFrom(a, kOp, &p->unary);
}
template <BinaryOp kOp>
Status PrepMathBinary(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
                      FloatOpParams* p) {
  return BinaryOpFrom(a, kOp, &p->binary);
}
Status PrepPRelu(const AttrReader&, const TensorView* const* in, size_t, const TensorView&,
                 FloatOpParams* p) {
  // The slope broadcasts to x; a slope that would grow the output is not PRelu.
  int64_t dims[kMaxRank];
  int rank = 0;
  LOOM_RETURN_IF_ERROR(BroadcastShapes(*in[0], *in[1], dims, &rank).WithContext("PRelu"));
  bool same = rank == in[0]->rank;
  for (int i = 0; same && i < rank; ++i) same = dims[i] == in[0]->shape[i];
  if (!same) return InvalidArgument("PRelu: the slope does not broadcast to x's shape");
  p->binary = BinaryOp::kPRelu;
  return Status::Ok();
}
Status RunUnary(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Unary(p.unary, *in[0], y);
}

// --- shape and indexing family (kernels_index.h) ---------------------------------------------

// An int attribute that must lie in [lo, hi): the loader refuses a package where it does not.
Status IntIn(const AttrReader& a, const char* op, const char* name, int64_t fallback, int64_t lo,
             int64_t hi, int64_t* out) {
  *out = a.GetInt(name, fallback);
  if (*out < lo || *out >= hi) {
    return InvalidArgument(std::string(op) + ": " + name + " " + std::to_string(*out) +
                           " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + ")");
  }
  return Status::Ok();
}
Status PrepSlice(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                 FloatOpParams* p) {
  const std::vector<int64_t> starts = a.GetInts("starts"), steps = a.GetInts("steps");
  const size_t rank = static_cast<size_t>(in[0]->rank);
  if (starts.size() != rank || steps.size() != rank || y.rank != in[0]->rank) {
    return InvalidArgument("Slice: starts and steps need one entry per dim (" +
                           std::to_string(rank) + ")");
  }
  for (size_t i = 0; i < rank; ++i) {
    p->starts[i] = starts[i];
    p->steps[i] = steps[i];
  }
  return Status::Ok();
}
Status PrepIndexAxis(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
                     FloatOpParams* p) {
  int64_t axis = 0;
  LOOM_RETURN_IF_ERROR(IntIn(a, "Gather", "axis", 0, 0, in[0]->rank, &axis));
  p->axis = static_cast<int>(axis);
  int64_t r = 0;
  LOOM_RETURN_IF_ERROR(IntIn(a, "Scatter", "reduction", 0, 0, 3, &r));
  p->reduction = static_cast<ScatterReduction>(r);
  return Status::Ok();
}
Status PrepGatherND(const AttrReader& a, const TensorView* const* in, size_t, const TensorView&,
                    FloatOpParams* p) {
  int64_t b = 0;
  LOOM_RETURN_IF_ERROR(IntIn(a, "GatherND", "batch_dims", 0, 0, in[0]->rank, &b));
  p->axis = static_cast<int>(b);
  return Status::Ok();
}
Status PrepTrilu(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
                 FloatOpParams* p) {
  p->k = a.GetInt("k", 0);
  p->upper = a.GetInt("upper", 1) != 0;
  return Status::Ok();
}
Status PrepOneHot(const AttrReader& a, const TensorView* const*, size_t, const TensorView& y,
                  FloatOpParams* p) {
  int64_t axis = 0;
  LOOM_RETURN_IF_ERROR(IntIn(a, "OneHot", "axis", 0, 0, y.rank, &axis));
  p->axis = static_cast<int>(axis);
  return Status::Ok();
}
// x and y of one type (any), the second operand indices (i32 or i64).
Status DataAndIndex(const char* op, const TensorView* const* in, const TensorView& y) {
  LOOM_RETURN_IF_ERROR(SameTypes(op, in, 1, y));
  return index_detail::CheckIndexType(op, *in[1]);
}
Status PrepReverseSequence(const AttrReader& a, const TensorView* const* in, size_t,
                           const TensorView& y, FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(DataAndIndex("ReverseSequence", in, y));
  int64_t b = 0, t = 0;
  LOOM_RETURN_IF_ERROR(IntIn(a, "ReverseSequence", "batch_axis", 1, 0, in[0]->rank, &b));
  LOOM_RETURN_IF_ERROR(IntIn(a, "ReverseSequence", "time_axis", 0, 0, in[0]->rank, &t));
  p->axis = static_cast<int>(b);
  p->second_axis = static_cast<int>(t);
  return Status::Ok();
}
Status RunSlice(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Slice(*in[0], p.starts, p.steps, y);
}
Status RunGather(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Gather(*in[0], *in[1], p.axis, y);
}
Status RunGatherElements(const FloatOpParams& p, const TensorView* const* in, size_t,
                         const TensorView& y) {
  return GatherElements(*in[0], *in[1], p.axis, y);
}
Status RunGatherND(const FloatOpParams& p, const TensorView* const* in, size_t,
                   const TensorView& y) {
  return GatherND(*in[0], *in[1], p.axis, y);
}
Status RunScatterND(const FloatOpParams& p, const TensorView* const* in, size_t,
                    const TensorView& y) {
  return ScatterND(*in[0], *in[1], *in[2], p.reduction, y);
}
Status RunScatterElements(const FloatOpParams& p, const TensorView* const* in, size_t,
                          const TensorView& y) {
  return ScatterElements(*in[0], *in[1], *in[2], p.axis, p.reduction, y);
}
Status RunExpand(const FloatOpParams&, const TensorView* const* in, size_t, const TensorView& y) {
  return Expand(*in[0], y);
}
Status RunTile(const FloatOpParams&, const TensorView* const* in, size_t, const TensorView& y) {
  return Tile(*in[0], y);
}
Status RunTrilu(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Trilu(*in[0], p.k, p.upper, y);
}
Status RunOneHot(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return OneHot(*in[0], *in[1], p.axis, y);
}
Status PrepShape(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                 FloatOpParams* p) {
  int64_t start = 0;
  LOOM_RETURN_IF_ERROR(IntIn(a, "Shape", "start", 0, 0, in[0]->rank + 1, &start));
  if (y.rank != 1 || start + y.shape[0] > in[0]->rank) {
    return InvalidArgument("Shape: the output must be 1-D and within the input's rank");
  }
  p->starts[0] = start;
  return Status::Ok();
}
Status RunShape(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return ShapeOf(*in[0], p.starts[0], y);
}
Status RunSize(const FloatOpParams&, const TensorView* const* in, size_t, const TensorView& y) {
  return SizeOf(*in[0], y);
}
Status PrepMaxUnpool(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                     FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(DataAndIndex("MaxUnpool", in, y));
  const std::vector<int64_t> dims = a.GetInts("index_shape");
  if (dims.size() != static_cast<size_t>(y.rank)) {
    return InvalidArgument("MaxUnpool: index_shape needs one dim per output dim (" +
                           std::to_string(y.rank) + ")");
  }
  for (size_t i = 0; i < dims.size(); ++i) p->starts[i] = dims[i];
  return Status::Ok();
}
Status RunMaxUnpool(const FloatOpParams& p, const TensorView* const* in, size_t,
                    const TensorView& y) {
  return MaxUnpool(*in[0], *in[1], p.starts, y);
}
Status RunReverseSequence(const FloatOpParams& p, const TensorView* const* in, size_t,
                          const TensorView& y) {
  return ReverseSequence(*in[0], *in[1], p.axis, p.second_axis, y);
}

// Ignored attributes, and why they cannot matter: the output shape is fixed in the package, so
// Reshape's `shape`, Flatten's `axis` and the pools' `ceil_mode` are already in it; Conv's
// `kernel_shape` is the weights' shape; Dropout's `seed` and BatchNormalization's `momentum` act
// only in training.
// The `dtypes` of rows whose kernel only moves bytes (copy, transpose, concat).
constexpr const char* kEveryType = "f32 f64 f16 i8 u8 i16 i32 i64 bool u16 u32 u64";
// The reductions' and CumSum's: they accumulate floats in double, integers in int64.
constexpr const char* kNumeric = "f32 f64 i32 i64";

// --- recurrent, signal and misc family (kernels_seq.h) ----------------------------------------

Status PrepDft(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
               FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(ResolveAxis("DFT", a.GetInt("axis", 1), in[0]->rank, &p->axis));
  p->dft_length = a.GetInt("dft_length", 0);
  p->inverse = a.GetInt("inverse", 0) != 0;
  p->onesided = a.GetInt("onesided", 0) != 0;
  if (p->dft_length < 1 || y.rank != in[0]->rank) {
    return InvalidArgument("DFT: dft_length must be >= 1 and y of x's rank");
  }
  return Status::Ok();
}
Status RunDft(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Dft(*in[0], p.axis, p.dft_length, p.inverse, p.onesided, y);
}
Status PrepStft(const AttrReader& a, const TensorView* const*, size_t, const TensorView&,
                FloatOpParams* p) {
  p->frame_step = a.GetInt("frame_step", 0);
  p->dft_length = a.GetInt("frame_length", 0);
  p->onesided = a.GetInt("onesided", 1) != 0;
  if (p->frame_step < 1 || p->dft_length < 1) {
    return InvalidArgument("STFT: frame_step and frame_length must be >= 1");
  }
  return Status::Ok();
}
Status RunStft(const FloatOpParams& p, const TensorView* const* in, size_t n, const TensorView& y) {
  return Stft(*in[0], p.frame_step, Optional(in, n, 1), p.dft_length, p.onesided, y);
}

// The attributes RNN, GRU and LSTM share (a macro: the rows' strings are literals).
#define LOOM_RECURRENT_ATTRS \
  "hidden_size direction layout clip activations activation_alpha activation_beta"

constexpr FloatOpDef kFloatOps[] = {
    // name, required, optional, variadic, same_elements, reads, ignores, prepare, run[, dtypes]
    {"Identity", 1, 0, false, true, "", "", PrepCopy, RunCopy, kEveryType},
    {"Reshape", 1, 0, false, true, "", "shape allowzero", PrepCopy, RunCopy, kEveryType},
    {"Flatten", 1, 0, false, true, "", "axis", PrepCopy, RunCopy, kEveryType},
    // Inference: a copy. Inputs ratio and training_mode are accepted and ignored (the importer
    // refuses training_mode that would drop anything).
    {"Dropout", 1, 2, false, true, "", "seed", multi::PrepDropout, nullptr, "f32 bool", 1,
     multi::RunDropout},  // ratio, training_mode; mask
    {"Relu", 1, 0, false, true, "", "", PrepRelu, RunActivation},
    {"Sigmoid", 1, 0, false, true, "", "", PrepSigmoid, RunActivation},
    {"LeakyRelu", 1, 0, false, true, "alpha", "", PrepLeakyRelu, RunActivation},
    {"Clip", 1, 2, false, true, "", "", typed::PrepClip, typed::RunClip,
     "f32 i8 u8 i32 i64"},  // min, max: scalar inputs of x's type
    {"Softmax", 1, 0, false, true, "axis", "", PrepSoftmax, RunSoftmax},
    {"Transpose", 1, 0, false, true, "perm", "", PrepTranspose, RunTranspose, kEveryType},
    {"BatchNormalization", 5, 0, false, true, "epsilon", "momentum", PrepBatchNorm, RunBatchNorm},
    {"Add", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kAdd>, RunBinary,
     typed::kAnyType},
    {"Sub", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kSub>, RunBinary,
     typed::kAnyType},
    {"Mul", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kMul>, RunBinary,
     typed::kAnyType},
    {"Conv", 2, 1, false, false, "strides dilations pads group", "kernel_shape", PrepConv,
     RunConv},                                                                        // bias
    {"Gemm", 2, 1, false, false, "alpha beta transA transB", "", PrepGemm, RunGemm},  // C
    {"MatMul", 2, 0, false, false, "", "", PrepNothing, RunMatMul},
    {"MaxPool", 1, 0, false, false, "kernel_shape strides dilations pads storage_order",
     "ceil_mode", multi::PrepMaxPool, nullptr, "f32 u8 i8 i64", 1, multi::RunMaxPool},  // Indices
    // No dilations: AvgPool has none (ONNX <= 18), so a package with them is refused.
    {"AveragePool", 1, 0, false, false, "kernel_shape strides pads count_include_pad", "ceil_mode",
     PrepPool, RunAvgPool},
    {"GlobalAveragePool", 1, 0, false, false, "", "", PrepNothing, RunGlobalAvgPool},
    {"Concat", 1, 0, true, false, "axis", "", PrepConcat, RunConcat, kEveryType},
    // Vision and normalization family. ConvTranspose's output_padding is already in y's shape;
    // Resize's sizes are y's shape.
    {"ConvTranspose", 2, 1, false, false, "strides dilations pads group", "output_padding",
     PrepConv, RunConvTranspose},  // bias
    {"Resize", 1, 0, false, false,
     "mode coordinate_transformation_mode nearest_mode cubic_coeff_a exclude_outside "
     "extrapolation_value scales roi",
     "sizes", PrepResize, RunResize},
    {"LayerNormalization", 2, 1, false, true, "axis epsilon", "", PrepLayerNorm, RunLayerNorm,
     "f32", 2, multi::RunLayerNorm},  // bias; Mean, InvStdDev
    {"InstanceNormalization", 3, 0, false, true, "epsilon", "", PrepBatchNorm, RunInstanceNorm},
    {"LRN", 1, 0, false, true, "size alpha beta bias", "", PrepLrn, RunLrn},
    {"GlobalMaxPool", 1, 0, false, false, "", "", PrepNothing, RunGlobalMaxPool},
    // Reduction family. keepdims is already in y's shape. ArgMax / ArgMin are rows of the typed
    // family below; TopK and the losses are rows of the string-attribute family.
    {"ReduceSum", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kSum>, RunReduce,
     kNumeric},
    {"ReduceMean", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kMean>, RunReduce,
     kNumeric},
    {"ReduceMax", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kMax>, RunReduce,
     kNumeric},
    {"ReduceMin", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kMin>, RunReduce,
     kNumeric},
    {"ReduceProd", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kProd>, RunReduce,
     kNumeric},
    {"ReduceL1", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kL1>, RunReduce,
     kNumeric},
    {"ReduceL2", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kL2>, RunReduce,
     kNumeric},
    {"ReduceLogSum", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kLogSum>,
     RunReduce, kNumeric},
    {"ReduceLogSumExp", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kLogSumExp>,
     RunReduce, kNumeric},
    {"ReduceSumSquare", 1, 0, false, false, "axes", "keepdims", PrepReduce<ReduceOp::kSumSquare>,
     RunReduce, kNumeric},
    {"LogSoftmax", 1, 0, false, true, "axis", "", PrepLogSoftmax, RunLogSoftmax},
    {"Hardmax", 1, 0, false, true, "axis", "", PrepHardmax, RunHardmax},
    {"CumSum", 1, 0, false, true, "axis exclusive reverse", "", PrepCumSum, RunCumSum, kNumeric},
    {"MeanVarianceNormalization", 1, 0, false, true, "axes", "", PrepMvn, RunMvn},
    {"Einsum", 1, 0, true, false, "labels out_labels", "", PrepEinsum, RunEinsum, "f32 f64"},
    // Elementwise math and activations. The arithmetic rows take every type their kernel does
    // (typed::PrepBinary checks them at load); the comparisons, logic, Where, IsNaN / IsInf rows
    // are the typed family below; the float functions are float32 rows.
    {"Div", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kDiv>, RunBinary,
     typed::kAnyType},
    {"Pow", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kPow>, RunBinary,
     typed::kAnyType},
    {"Mod", 2, 0, false, false, "fmod", "", typed::PrepBinary<BinaryOp::kMod>, RunBinary,
     typed::kAnyType},
    {"Max", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kMax>, RunBinary,
     typed::kAnyType},
    {"Min", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kMin>, RunBinary,
     typed::kAnyType},
    {"PRelu", 2, 0, false, true, "", "", PrepPRelu, RunBinary},
    {"Abs", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kAbs>, RunUnary},
    {"Neg", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kNeg>, RunUnary},
    {"Sign", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kSign>, RunUnary},
    {"Shrink", 1, 0, false, true, "lambd bias", "", PrepUnary<UnaryOp::kShrink>, RunUnary},
    {"Ceil", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kCeil>, RunUnary},
    {"Floor", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kFloor>, RunUnary},
    {"Round", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kRound>, RunUnary},
    {"Reciprocal", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kReciprocal>, RunUnary},
    {"Exp", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kExp>, RunUnary},
    {"Log", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kLog>, RunUnary},
    {"Sqrt", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kSqrt>, RunUnary},
    {"Tanh", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kTanh>, RunUnary},
    {"Sin", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kSin>, RunUnary},
    {"Cos", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kCos>, RunUnary},
    {"Tan", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kTan>, RunUnary},
    {"Asin", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kAsin>, RunUnary},
    {"Acos", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kAcos>, RunUnary},
    {"Atan", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kAtan>, RunUnary},
    {"Sinh", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kSinh>, RunUnary},
    {"Cosh", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kCosh>, RunUnary},
    {"Asinh", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kAsinh>, RunUnary},
    {"Acosh", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kAcosh>, RunUnary},
    {"Atanh", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kAtanh>, RunUnary},
    {"Erf", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kErf>, RunUnary},
    {"Softsign", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kSoftsign>, RunUnary},
    {"Softplus", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kSoftplus>, RunUnary},
    {"HardSwish", 1, 0, false, true, "", "", PrepUnary<UnaryOp::kHardSwish>, RunUnary},
    {"Elu", 1, 0, false, true, "alpha", "", PrepUnary<UnaryOp::kElu>, RunUnary},
    {"Selu", 1, 0, false, true, "alpha gamma", "", PrepUnary<UnaryOp::kSelu>, RunUnary},
    {"Celu", 1, 0, false, true, "alpha", "", PrepUnary<UnaryOp::kCelu>, RunUnary},
    {"HardSigmoid", 1, 0, false, true, "alpha beta", "", PrepUnary<UnaryOp::kHardSigmoid>,
     RunUnary},
    {"ThresholdedRelu", 1, 0, false, true, "alpha", "", PrepUnary<UnaryOp::kThresholdedRelu>,
     RunUnary},
    // Shape and indexing family. The resolved output shape is y's, so Slice's ends, Expand's
    // shape, Tile's repeats, OneHot's depth and MaxUnpool's shape are already in it. The index
    // operands (Gather's indices, ReverseSequence's sequence_lens, OneHot's indices) are
    // int32/int64 tensors; the data may have any type (the kernels check the index types).
    {"Slice", 1, 0, false, false, "starts steps", "ends", PrepSlice, RunSlice, kEveryType},
    {"Gather", 2, 0, false, false, "axis", "", PrepIndexAxis, RunGather, kEveryType},
    {"GatherElements", 2, 0, false, false, "axis", "", PrepIndexAxis, RunGatherElements,
     kEveryType},
    {"GatherND", 2, 0, false, false, "batch_dims", "", PrepGatherND, RunGatherND, kEveryType},
    {"ScatterND", 3, 0, false, true, "reduction", "", PrepIndexAxis, RunScatterND, kEveryType},
    {"ScatterElements", 3, 0, false, true, "axis reduction", "", PrepIndexAxis, RunScatterElements,
     kEveryType},
    {"Expand", 1, 0, false, false, "", "shape", PrepNothing, RunExpand, kEveryType},
    {"Tile", 1, 0, false, false, "", "repeats", PrepNothing, RunTile, kEveryType},
    {"Trilu", 1, 0, false, true, "upper k", "", PrepTrilu, RunTrilu, kEveryType},
    {"OneHot", 2, 0, false, false, "axis", "depth", PrepOneHot, RunOneHot, kEveryType},
    {"ReverseSequence", 2, 0, false, true, "batch_axis time_axis", "", PrepReverseSequence,
     RunReverseSequence, kEveryType},
    {"MaxUnpool", 2, 0, false, false, "index_shape", "shape", PrepMaxUnpool, RunMaxUnpool,
     kEveryType},
    // i64 outputs.
    {"Shape", 1, 0, false, false, "start", "end", PrepShape, RunShape, kEveryType},
    {"Size", 1, 0, false, false, "", "", PrepNothing, RunSize, kEveryType},
    // Recurrent, signal and misc family; RNN, GRU, LSTM, DynamicQuantizeLinear and Det are
    // rows of the multi-output family below. The windows and MelWeightMatrix fold to constants.
    {"DFT", 1, 0, false, false, "axis dft_length inverse onesided", "", PrepDft, RunDft},
    {"STFT", 1, 1, false, false, "frame_step frame_length onesided", "", PrepStft, RunStft},
    // Detection/vision family. NonMaxSuppression and Unique are not rows: their inputs are
    // compile-time constants (their output length depends on the values), so they fold before
    // partitioning and never reach a CPU segment.
    {"GridSample", 2, 0, false, false, "mode padding_mode align_corners", "", PrepGridSample,
     RunGridSample},
    // batch_indices is i32/i64; output_height/width are y's shape.
    {"RoiAlign", 3, 0, false, false, "mode half_pixel sampling_ratio spatial_scale",
     "output_height output_width", PrepRoiAlign, RunRoiAlign, "f32 i32 i64"},
    // Several outputs or scratch (float_ops_multi.h): run_multi, extra outputs, scratch bytes.
    {"BatchNormalizationTraining", 5, 0, false, true, "epsilon momentum", "",
     multi::PrepBatchNormTraining, nullptr, "f32", 2, multi::RunBatchNormTraining},
    {"RNN", 3, 3, false, false, LOOM_RECURRENT_ATTRS, "", multi::PrepRecurrent<kRnnGates>, nullptr,
     "f32 i32", 1, multi::RunRecurrent, multi::RecurrentScratch},  // B, seq_lens, initial_h
    {"GRU", 3, 3, false, false, LOOM_RECURRENT_ATTRS " linear_before_reset", "",
     multi::PrepRecurrent<kGruGates>, nullptr, "f32 i32", 1, multi::RunRecurrent,
     multi::RecurrentScratch},
    {"LSTM", 3, 5, false, false, LOOM_RECURRENT_ATTRS " input_forget", "",
     multi::PrepRecurrent<kLstmGates>, nullptr, "f32 i32", 2, multi::RunRecurrent,
     multi::RecurrentScratch},  // ... initial_c, P
    {"DynamicQuantizeLinear", 1, 0, false, true, "", "", PrepNothing, nullptr, "f32 u8", 2,
     multi::RunDynamicQuantizeLinear},
    {"Det", 1, 0, false, false, "", "", multi::PrepDet, nullptr, "f32", 0, multi::RunDet,
     multi::DetScratch},
    // Integer and bool operands (float_ops_typed.h): the prepares check each op's types.
    {"Equal", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kEqual>, typed::RunBinary,
     typed::kAnyType},
    {"Greater", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kGreater>, typed::RunBinary,
     typed::kAnyType},
    {"Less", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kLess>, typed::RunBinary,
     typed::kAnyType},
    {"GreaterOrEqual", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kGreaterOrEqual>,
     typed::RunBinary, typed::kAnyType},
    {"LessOrEqual", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kLessOrEqual>,
     typed::RunBinary, typed::kAnyType},
    {"And", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kAnd>, typed::RunBinary,
     "bool"},
    {"Or", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kOr>, typed::RunBinary, "bool"},
    {"Xor", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kXor>, typed::RunBinary,
     "bool"},
    {"BitShift", 2, 0, false, false, "direction", "", typed::PrepBinary<BinaryOp::kBitShiftLeft>,
     typed::RunBinary, typed::kAnyType},
    {"BitwiseAnd", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kBitwiseAnd>,
     typed::RunBinary, typed::kAnyType},
    {"BitwiseOr", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kBitwiseOr>,
     typed::RunBinary, typed::kAnyType},
    {"BitwiseXor", 2, 0, false, false, "", "", typed::PrepBinary<BinaryOp::kBitwiseXor>,
     typed::RunBinary, typed::kAnyType},
    {"Not", 1, 0, false, true, "", "", typed::PrepUnary<UnaryOp::kNot>, typed::RunUnary, "bool"},
    {"BitwiseNot", 1, 0, false, true, "", "", typed::PrepUnary<UnaryOp::kBitwiseNot>,
     typed::RunUnary, typed::kAnyType},
    {"IsNaN", 1, 0, false, true, "", "", typed::PrepUnary<UnaryOp::kIsNaN>, typed::RunUnary,
     typed::kAnyType},
    {"IsInf", 1, 0, false, true, "detect_negative detect_positive", "",
     typed::PrepUnary<UnaryOp::kIsInf>, typed::RunUnary, typed::kAnyType},
    {"Where", 3, 0, false, false, "", "", typed::PrepWhere, typed::RunWhere, typed::kAnyType},
    {"Cast", 1, 0, false, true, "", "saturate", typed::PrepCast, typed::RunCast, typed::kAnyType},
    {"ArgMax", 1, 0, false, false, "axis select_last_index", "keepdims", typed::PrepArgReduce<true>,
     typed::RunArgReduce, typed::kAnyType},
    {"ArgMin", 1, 0, false, false, "axis select_last_index", "keepdims",
     typed::PrepArgReduce<false>, typed::RunArgReduce, typed::kAnyType},
    // String attributes (package 1.7) and TopK's two outputs (float_ops_strings.h).
    {"NegativeLogLikelihoodLoss", 2, 1, false, false, "reduction ignore_index", "",
     strings::PrepLoss, strings::RunNllLoss, "f32 i32 i64"},  // weight
    {"SoftmaxCrossEntropyLoss", 2, 1, false, false, "reduction ignore_index", "", strings::PrepLoss,
     nullptr, "f32 i32 i64", 1, strings::RunSoftmaxCrossEntropy},  // weight; log_prob
    {"Pad", 1, 0, false, false, "mode pads value", "", strings::PrepPad, strings::RunPad,
     kEveryType},
    {"EyeLike", 1, 0, false, false, "k dtype", "", strings::PrepEyeLike, strings::RunEyeLike,
     kEveryType},
    {"TopK", 1, 0, false, false, "axis largest", "k sorted", strings::PrepTopK, nullptr, "f32 i64",
     1, strings::RunTopK, strings::TopKScratch},  // values; indices
    // ONNX's quantized operators (float_ops_quant.h); zero points take the quantized type.
    {"QuantizeLinear", 3, 0, false, true, "axis", "", quant::PrepLinear, quant::RunQuantizeLinear,
     quant::kQuantTypes},
    {"DequantizeLinear", 3, 0, false, true, "axis", "", quant::PrepLinear,
     quant::RunDequantizeLinear, quant::kQuantTypes},
    {"ConvInteger", 2, 2, false, false, "strides dilations pads group", "kernel_shape", PrepConv,
     quant::RunConvInteger, quant::kQuantTypes},  // x_zero_point, w_zero_point
    {"QLinearConv", 8, 1, false, false, "strides dilations pads group", "kernel_shape", PrepConv,
     quant::RunQLinearConv, quant::kQuantTypes},  // bias
    {"MatMulInteger", 2, 2, false, false, "", "", PrepNothing, quant::RunMatMulInteger,
     quant::kQuantTypes},  // a_zero_point, b_zero_point
    {"QLinearMatMul", 8, 0, false, false, "", "", PrepNothing, quant::RunQLinearMatMul,
     quant::kQuantTypes},
};
#undef LOOM_RECURRENT_ATTRS

}  // namespace

bool AttrListed(const char* list, std::string_view attr) {
  const std::string_view l(list);
  size_t pos = 0;
  while (pos < l.size()) {
    size_t end = l.find(' ', pos);
    if (end == std::string_view::npos) end = l.size();
    if (l.substr(pos, end - pos) == attr) return true;
    pos = end + 1;
  }
  return false;
}

bool FloatOpTakes(const FloatOpDef& def, DType t) {
  if (t == DType::kUndefined) return false;
  return std::string_view(def.dtypes) == "any" || AttrListed(def.dtypes, DTypeName(t));
}

const FloatOpDef* FindFloatOp(std::string_view name) {
  for (const FloatOpDef& d : kFloatOps) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

const FloatOpDef* FloatOpTable(size_t* count) {
  *count = sizeof(kFloatOps) / sizeof(kFloatOps[0]);
  return kFloatOps;
}

}  // namespace loom::kernels
