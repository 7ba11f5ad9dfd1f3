#include "compiler/ir/types.h"

namespace loom::ir {

const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kPlain:
      return "plain";
    case Layout::kBlocked:
      return "blocked";
  }
  return "?";
}

bool ParseLayout(std::string_view name, Layout* out) {
  for (Layout l : {Layout::kPlain, Layout::kBlocked}) {
    if (name == LayoutName(l)) {
      *out = l;
      return true;
    }
  }
  return false;
}

Status NumElements(const Shape& shape, int64_t* out) {
  // Cap well below int64 so byte sizes (x8) and index arithmetic cannot overflow either. Zero
  // dims count as 1 for the cap: an empty [0, 2^62, 2^62] still has row strides that overflow.
  constexpr int64_t kLimit = int64_t{1} << 40;
  int64_t n = 1, extent = 1;
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("negative dimension in shape " + ShapeToString(shape));
    if (d > 1 && extent > kLimit / d) {
      return InvalidArgument("shape " + ShapeToString(shape) +
                             " has too many elements (more than 2^40)");
    }
    if (d > 1) extent *= d;
    n *= d;
  }
  *out = n;
  return Status::Ok();
}

int64_t NumElementsUnchecked(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string TypeToString(DType t, const Shape& shape) {
  return std::string(DTypeName(t)) + ShapeToString(shape);
}

Status CheckQuantParams(const QuantParams& q, const Shape& shape) {
  if (q.scales.empty() || q.scales.size() != q.zero_points.size()) {
    return InvalidArgument("quantization needs as many zero points as scales (at least one)");
  }
  if (!q.per_axis()) {
    if (q.scales.size() != 1) return InvalidArgument("per-tensor quantization has one scale");
    return Status::Ok();
  }
  if (q.axis >= static_cast<int>(shape.size())) {
    return InvalidArgument("quantization axis " + std::to_string(q.axis) + " out of range for " +
                           ShapeToString(shape));
  }
  if (static_cast<int64_t>(q.scales.size()) != shape[q.axis]) {
    return InvalidArgument("per-axis quantization needs " + std::to_string(shape[q.axis]) +
                           " scales, has " + std::to_string(q.scales.size()));
  }
  return Status::Ok();
}

}  // namespace loom::ir
