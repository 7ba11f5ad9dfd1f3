// ONNX Einsum over parsed labels (kernels_reduce.h). Every label gets one extent and, per operand,
// one stride (the sum of the strides of the dims carrying it, so a repeated label steps along the
// diagonal; 0 where the dim broadcasts). One odometer over all labels then visits every term:
// y[out] += product of the operands at their offsets. The cost is the product of all extents,
// the plain definition, which is what a reference kernel is for.
#include <string>

#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

template <typename T>
void Run(const EinsumSpec& s, const TensorView* const* in, const int64_t* extent,
         const int64_t (*stride)[kMaxEinsumLabels], const int64_t* out_stride,
         const TensorView& y) {
  T* yd = y.As<T>();
  const int64_t total = y.NumElements();
  for (int64_t i = 0; i < total; ++i) yd[i] = 0;
  for (int l = 0; l < s.num_labels; ++l) {
    if (extent[l] == 0) return;  // no terms: y stays 0
  }
  int64_t index[kMaxEinsumLabels] = {};
  int64_t offset[kMaxEinsumInputs] = {};
  int64_t out = 0;
  while (true) {
    double term = 1.0;
    for (int k = 0; k < s.num_inputs; ++k)
      term *= static_cast<double>(in[k]->As<const T>()[offset[k]]);
    yd[out] = static_cast<T>(static_cast<double>(yd[out]) + term);
    int l = s.num_labels - 1;
    for (; l >= 0; --l) {
      ++index[l];
      for (int k = 0; k < s.num_inputs; ++k) offset[k] += stride[k][l];
      out += out_stride[l];
      if (index[l] < extent[l]) break;
      for (int k = 0; k < s.num_inputs; ++k) offset[k] -= stride[k][l] * extent[l];
      out -= out_stride[l] * extent[l];
      index[l] = 0;
    }
    if (l < 0) return;
  }
}

}  // namespace

Status EinsumSpecFrom(const int64_t* labels, size_t num_labels_listed, const int64_t* out_labels,
                      size_t out_count, const TensorView* const* in, int num_inputs,
                      EinsumSpec* spec) {
  if (num_inputs < 1 || num_inputs > kMaxEinsumInputs) {
    return InvalidArgument("einsum: takes 1.." + std::to_string(kMaxEinsumInputs) + " operands");
  }
  *spec = EinsumSpec();
  spec->num_inputs = num_inputs;
  size_t at = 0;
  auto take = [&](int64_t l, int8_t* dst) {
    if (l < 0 || l >= kMaxEinsumLabels) {
      return InvalidArgument("einsum: label " + std::to_string(l) + " is outside [0, " +
                             std::to_string(kMaxEinsumLabels) + ")");
    }
    *dst = static_cast<int8_t>(l);
    if (l + 1 > spec->num_labels) spec->num_labels = static_cast<int>(l + 1);
    return Status::Ok();
  };
  for (int k = 0; k < num_inputs; ++k) {
    for (int d = 0; d < in[k]->rank; ++d) {
      if (at >= num_labels_listed) {
        return InvalidArgument("einsum: fewer labels than operand dims");
      }
      LOOM_RETURN_IF_ERROR(take(labels[at++], &spec->labels[k][d]));
    }
  }
  if (at != num_labels_listed) return InvalidArgument("einsum: more labels than operand dims");
  if (out_count > static_cast<size_t>(kMaxRank)) return InvalidArgument("einsum: y's rank");
  bool seen[kMaxEinsumLabels] = {};
  for (size_t d = 0; d < out_count; ++d) {
    LOOM_RETURN_IF_ERROR(take(out_labels[d], &spec->out_labels[d]));
    if (seen[out_labels[d]]) return InvalidArgument("einsum: y names a label twice");
    seen[out_labels[d]] = true;
  }
  return Status::Ok();
}

Status Einsum(const EinsumSpec& s, const TensorView* const* in, int num_inputs,
              const TensorView& y) {
  if (num_inputs != s.num_inputs) return InvalidArgument("einsum: operand count differs");
  if (y.dtype != DType::kF32 && y.dtype != DType::kF64) {
    return InvalidArgument("einsum: f32 or f64 only");
  }
  int64_t extent[kMaxEinsumLabels];
  for (int64_t& e : extent) e = -1;
  int64_t stride[kMaxEinsumInputs][kMaxEinsumLabels] = {};
  int64_t out_stride[kMaxEinsumLabels] = {};
  for (int d = 0; d < y.rank; ++d) {
    extent[s.out_labels[d]] = y.shape[d];
    out_stride[s.out_labels[d]] = y.strides[d];
  }
  // Extents: y's fix a label; otherwise the largest operand dim (1s broadcast).
  for (int k = 0; k < num_inputs; ++k) {
    if (in[k]->dtype != y.dtype) return InvalidArgument("einsum: operands and y differ in type");
    for (int d = 0; d < in[k]->rank; ++d) {
      const int l = s.labels[k][d];
      bool in_y = false;
      for (int o = 0; o < y.rank; ++o) in_y = in_y || s.out_labels[o] == l;
      if (!in_y && in[k]->shape[d] > extent[l]) extent[l] = in[k]->shape[d];
    }
  }
  for (int k = 0; k < num_inputs; ++k) {
    for (int d = 0; d < in[k]->rank; ++d) {
      const int l = s.labels[k][d];
      const int64_t n = in[k]->shape[d];
      if (n != extent[l] && n != 1) {
        return InvalidArgument("einsum: operand " + std::to_string(k) + " dim " +
                               std::to_string(d) + " has " + std::to_string(n) +
                               " entries, its label " + std::to_string(l) + " " +
                               std::to_string(extent[l]));
      }
      if (n != 1 || extent[l] == 1) stride[k][l] += in[k]->strides[d];
    }
  }
  for (int l = 0; l < s.num_labels; ++l) {
    if (extent[l] < 0) extent[l] = 1;  // a label no dim carries
  }
  if (y.dtype == DType::kF32) {
    Run<float>(s, in, extent, stride, out_stride, y);
  } else {
    Run<double>(s, in, extent, stride, out_stride, y);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
