// ONNX LayerNormalization (opset 17) on f32: statistics over the trailing dims [axis, rank) in
// double, the affine part in float; scale and bias broadcast to x.shape[axis:] numpy-style.
#include <cmath>

#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {
namespace {

// Strides to read `v` broadcast over the trailing `inner_rank` dims of x (from `axis`).
Status AffineStrides(const char* what, const TensorView& v, const TensorView& x, int axis,
                     int64_t* strides) {
  const int inner_rank = x.rank - axis;
  if (v.dtype != DType::kF32 || v.rank > inner_rank) {
    return InvalidArgument(std::string("layer-norm: ") + what +
                           " must be f32 and broadcast to x's normalized dims");
  }
  for (int i = 0; i < v.rank; ++i) {
    const int64_t xd = x.shape[x.rank - v.rank + i];
    if (v.shape[i] != 1 && v.shape[i] != xd) {
      return InvalidArgument(std::string("layer-norm: ") + what + " dim " + std::to_string(i) +
                             " (" + std::to_string(v.shape[i]) +
                             ") does not broadcast to x's dim " +
                             std::to_string(x.rank - v.rank + i) + " (" + std::to_string(xd) + ")");
    }
  }
  int64_t stride = 1;
  for (int i = inner_rank - 1; i >= 0; --i) {
    const int vi = i - (inner_rank - v.rank);
    if (vi < 0 || v.shape[vi] == 1) {
      strides[i] = 0;
    } else {
      strides[i] = stride;
    }
    if (vi >= 0) stride *= v.shape[vi];
  }
  return Status::Ok();
}

Status CheckStats(const char* what, const TensorView* s, const TensorView& x, int axis) {
  if (s == nullptr) return Status::Ok();
  bool ok = s->dtype == DType::kF32 && s->rank == x.rank;
  for (int i = 0; ok && i < x.rank; ++i) ok = s->shape[i] == (i < axis ? x.shape[i] : 1);
  if (!ok) {
    return InvalidArgument(std::string("layer-norm: ") + what +
                           " must be f32 with x's dims before axis and 1 from it");
  }
  return Status::Ok();
}

}  // namespace

Status LayerNorm(const TensorView& x, const TensorView& scale, const TensorView* bias, int axis,
                 float epsilon, const TensorView& y, const TensorView* mean,
                 const TensorView* inv_std_dev) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 || !SameShape(x, y)) {
    return InvalidArgument("layer-norm: x and y must be f32 of the same shape");
  }
  if (axis < 0 || axis >= x.rank) {
    return InvalidArgument("layer-norm: axis " + std::to_string(axis) + " outside [0, " +
                           std::to_string(x.rank) + ")");
  }
  int64_t s_strides[kMaxRank] = {}, b_strides[kMaxRank] = {};
  LOOM_RETURN_IF_ERROR(AffineStrides("scale", scale, x, axis, s_strides));
  if (bias != nullptr) LOOM_RETURN_IF_ERROR(AffineStrides("bias", *bias, x, axis, b_strides));
  LOOM_RETURN_IF_ERROR(CheckStats("mean", mean, x, axis));
  LOOM_RETURN_IF_ERROR(CheckStats("inv_std_dev", inv_std_dev, x, axis));
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = axis; i < x.rank; ++i) inner *= x.shape[i];
  const int inner_rank = x.rank - axis;
  const float* xd = x.As<const float>();
  const float* sd = scale.As<const float>();
  const float* bd = bias != nullptr ? bias->As<const float>() : nullptr;
  float* yd = y.As<float>();
  for (int64_t o = 0; o < outer; ++o) {
    const float* xp = xd + o * inner;
    float* yp = yd + o * inner;
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < inner; ++i) sum += xp[i];
    const double mu = inner > 0 ? sum / static_cast<double>(inner) : 0.0;
    for (int64_t i = 0; i < inner; ++i) sq += (xp[i] - mu) * (xp[i] - mu);
    const double var = inner > 0 ? sq / static_cast<double>(inner) : 0.0;
    const double inv = 1.0 / std::sqrt(var + static_cast<double>(epsilon));
    int64_t idx[kMaxRank] = {};
    int64_t so = 0, bo = 0;
    for (int64_t i = 0; i < inner; ++i) {
      const float norm = static_cast<float>((xp[i] - mu) * inv);
      yp[i] = norm * sd[so] + (bd != nullptr ? bd[bo] : 0.0f);
      for (int d = inner_rank - 1; d >= 0; --d) {
        ++idx[d];
        so += s_strides[d];
        bo += b_strides[d];
        if (idx[d] < x.shape[axis + d]) break;
        so -= s_strides[d] * idx[d];
        bo -= b_strides[d] * idx[d];
        idx[d] = 0;
      }
    }
    if (mean != nullptr) mean->As<float>()[o] = static_cast<float>(mu);
    if (inv_std_dev != nullptr) inv_std_dev->As<float>()[o] = static_cast<float>(inv);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
