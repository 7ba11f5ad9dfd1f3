// Kernel parameters from an operator's attributes, wherever the attributes live: an IR node in the
// compiler's interpreter, a FloatOp's attribute list in a package on the runtime's CPU path. One
// reader, so both paths read strides, pads, dilations and the rest the same way.
//
// `Attrs` is any type with the three lookups ir::Node has:
//   std::vector<int64_t> GetInts(std::string_view name) const;   // empty when absent
//   int64_t GetInt(std::string_view name, int64_t fallback) const;
//   float GetFloat(std::string_view name, float fallback) const;
// Absent attributes take ONNX's defaults (strides and dilations 1, pads 0, group 1); a present one
// of the wrong length is an error naming it.
#ifndef LOOM_RUNTIME_KERNELS_OP_ATTRS_H_
#define LOOM_RUNTIME_KERNELS_OP_ATTRS_H_

#include <string>
#include <vector>

#include "runtime/kernels/kernels.h"

namespace loom::kernels {

namespace attrs_detail {

// Copies `v` (length `want`, or empty for `fallback` everywhere) into out[0..want).
inline Status Fill(const char* name, const std::vector<int64_t>& v, size_t want, int64_t fallback,
                   int64_t* out) {
  if (!v.empty() && v.size() != want) {
    return InvalidArgument(std::string("attribute ") + name + " has " + std::to_string(v.size()) +
                           " values, the input needs " + std::to_string(want));
  }
  for (size_t i = 0; i < want; ++i) out[i] = v.empty() ? fallback : v[i];
  return Status::Ok();
}

inline Status Spatial(int rank, int* s) {
  *s = rank - 2;
  if (*s < 1 || *s > kMaxSpatial) {
    return InvalidArgument("a sliding window needs an input of rank 3 to " +
                           std::to_string(kMaxSpatial + 2) + ", not " + std::to_string(rank));
  }
  return Status::Ok();
}

// The sliding-window geometry ConvParams and PoolParams share: spatial, strides, dilations and
// pads (ONNX orders pads all begins, then all ends).
template <typename Attrs, typename Params>
Status Window(const Attrs& a, int rank, Params* p) {
  int s = 0;
  LOOM_RETURN_IF_ERROR(Spatial(rank, &s));
  const size_t n = static_cast<size_t>(s);
  p->spatial = s;
  LOOM_RETURN_IF_ERROR(Fill("strides", a.GetInts("strides"), n, 1, p->strides));
  LOOM_RETURN_IF_ERROR(Fill("dilations", a.GetInts("dilations"), n, 1, p->dilations));
  int64_t pads[2 * kMaxSpatial];
  LOOM_RETURN_IF_ERROR(Fill("pads", a.GetInts("pads"), 2 * n, 0, pads));
  for (int i = 0; i < s; ++i) {
    p->pads_begin[i] = pads[i];
    p->pads_end[i] = pads[s + i];
  }
  return Status::Ok();
}

}  // namespace attrs_detail

// Conv, ConvInteger, QLinearConv over an input of rank `rank`.
template <typename Attrs>
Status ConvParamsFrom(const Attrs& a, int rank, ConvParams* p) {
  LOOM_RETURN_IF_ERROR(attrs_detail::Window(a, rank, p));
  p->group = a.GetInt("group", 1);
  return Status::Ok();
}

// MaxPool and AveragePool over an input of rank `rank`; kernel_shape is required.
template <typename Attrs>
Status PoolParamsFrom(const Attrs& a, int rank, PoolParams* p) {
  LOOM_RETURN_IF_ERROR(attrs_detail::Window(a, rank, p));
  const std::vector<int64_t> kernel = a.GetInts("kernel_shape");
  if (kernel.empty()) return InvalidArgument("attribute kernel_shape is missing");
  LOOM_RETURN_IF_ERROR(attrs_detail::Fill("kernel_shape", kernel,
                                          static_cast<size_t>(p->spatial), 1, p->kernel));
  p->count_include_pad = a.GetInt("count_include_pad", 0) != 0;
  // Narrowed only once known to be 0 or 1: a wrapped 2^32 must not read as 0. MaxPool refuses -1.
  const int64_t order = a.GetInt("storage_order", 0);
  p->storage_order = order == 0 || order == 1 ? static_cast<int>(order) : -1;
  return Status::Ok();
}

template <typename Attrs>
GemmParams GemmParamsFrom(const Attrs& a) {
  GemmParams p;
  p.alpha = a.GetFloat("alpha", 1.0f);
  p.beta = a.GetFloat("beta", 1.0f);
  p.trans_a = a.GetInt("transA", 0) != 0;
  p.trans_b = a.GetInt("transB", 0) != 0;
  return p;
}

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_OP_ATTRS_H_
