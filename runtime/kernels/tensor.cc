#include "runtime/kernels/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "runtime/core/checked_math.h"

namespace loom::kernels {

int64_t TensorView::NumElements() const {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= shape[i];
  return n;
}

Status MakeView(DType dtype, const void* data, const int64_t* dims, int rank, TensorView* out) {
  if (rank < 0 || rank > kMaxRank) {
    return InvalidArgument("tensor rank " + std::to_string(rank) +
                           " exceeds the kernels' limit of " + std::to_string(kMaxRank));
  }
  TensorView v;
  v.dtype = dtype;
  // The one place a const buffer becomes a view; see TensorView::data.
  v.data = const_cast<void*>(data);
  v.rank = rank;
  // Zero dims count as 1 here: with every such product in int64, no element count, stride or
  // partial product a kernel forms from the shape can overflow, even for an empty tensor.
  int64_t stride = 1, extent = 1;
  for (int i = rank - 1; i >= 0; --i) {
    if (dims[i] < 0) return InvalidArgument("negative tensor dimension " + std::to_string(dims[i]));
    v.shape[i] = dims[i];
    v.strides[i] = stride;
    if (!CheckedMul(extent, dims[i] > 1 ? dims[i] : int64_t{1}, &extent)) {
      return InvalidArgument("tensor dimensions multiply past 64 bits");
    }
    stride *= dims[i];
  }
  *out = v;
  return Status::Ok();
}

TensorView View(DType dtype, const void* data, std::initializer_list<int64_t> dims) {
  TensorView v;
  if (!MakeView(dtype, data, dims.begin(), static_cast<int>(dims.size()), &v).ok()) return {};
  return v;
}

bool SameShape(const TensorView& a, const TensorView& b) {
  if (a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; ++i) {
    if (a.shape[i] != b.shape[i]) return false;
  }
  return true;
}

const char* FormatShape(const TensorView& v, char* buf, size_t size) {
  if (size == 0) return buf;
  size_t pos = 0;
  auto put = [&](const char* s) {
    int n = std::snprintf(buf + pos, size - pos, "%s", s);
    if (n > 0) pos = std::min(size - 1, pos + static_cast<size_t>(n));
  };
  put(DTypeName(v.dtype));
  put("[");
  for (int i = 0; i < v.rank; ++i) {
    char num[24];
    std::snprintf(num, sizeof num, i ? ",%lld" : "%lld", static_cast<long long>(v.shape[i]));
    put(num);
  }
  put("]");
  return buf;
}

Status BroadcastShapes(const TensorView& a, const TensorView& b, int64_t* out_dims, int* out_rank) {
  int rank = a.rank > b.rank ? a.rank : b.rank;
  for (int i = 0; i < rank; ++i) {
    // Right-aligned: position i of the result pairs with a's dim (i - (rank - a.rank)).
    int ia = i - (rank - a.rank);
    int ib = i - (rank - b.rank);
    int64_t da = ia >= 0 ? a.shape[ia] : 1;
    int64_t db = ib >= 0 ? b.shape[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      char sa[96], sb[96];
      return InvalidArgument(std::string("shapes ") + FormatShape(a, sa, sizeof sa) + " and " +
                             FormatShape(b, sb, sizeof sb) + " do not broadcast");
    }
    out_dims[i] = da == 1 ? db : da;
  }
  *out_rank = rank;
  return Status::Ok();
}

void BroadcastStrides(const TensorView& v, int out_rank, int64_t* strides) {
  for (int i = 0; i < out_rank; ++i) {
    int iv = i - (out_rank - v.rank);
    // A size-1 dimension always reads index 0, so stride 0 is right whether or not it broadcasts.
    strides[i] = (iv < 0 || v.shape[iv] == 1) ? 0 : v.strides[iv];
  }
}

float RoundHalfToEven(float x) {
  float r = std::round(x);  // halves away from zero
  if (std::fabs(x - std::trunc(x)) == 0.5f) {
    // Exactly halfway: pick the even neighbour.
    r = 2.0f * std::round(x / 2.0f);
  }
  return r;
}

}  // namespace loom::kernels
