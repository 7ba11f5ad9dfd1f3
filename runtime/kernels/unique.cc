// ONNX Unique: slices along an axis (or elements of the flattened input) sorted with their index
// as the tie-break, so each run of equal slices starts at its first occurrence; the runs are the
// unique values, numbered in sorted order or by first occurrence. Comparisons are typed (int64
// and uint64 beyond 2^53 compare exactly); NaN sorts last and equals NaN, as NumPy's unique does.
// All bookkeeping lives in the caller's scratch (UniqueScratchSize), none is allocated here.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {
namespace {

template <typename T>
int Cmp(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CmpElem(DType t, const void* d, int64_t i, int64_t j) {
  switch (t) {
    case DType::kF32:
      return Cmp(static_cast<const float*>(d)[i], static_cast<const float*>(d)[j]);
    case DType::kF64:
      return Cmp(static_cast<const double*>(d)[i], static_cast<const double*>(d)[j]);
    case DType::kF16: {
      const uint16_t* h = static_cast<const uint16_t*>(d);
      return Cmp(F16ToF32(h[i]), F16ToF32(h[j]));
    }
    case DType::kI8:
      return Cmp(static_cast<const int8_t*>(d)[i], static_cast<const int8_t*>(d)[j]);
    case DType::kU8:
    case DType::kBool:
      return Cmp(static_cast<const uint8_t*>(d)[i], static_cast<const uint8_t*>(d)[j]);
    case DType::kI16:
      return Cmp(static_cast<const int16_t*>(d)[i], static_cast<const int16_t*>(d)[j]);
    case DType::kU16:
      return Cmp(static_cast<const uint16_t*>(d)[i], static_cast<const uint16_t*>(d)[j]);
    case DType::kI32:
      return Cmp(static_cast<const int32_t*>(d)[i], static_cast<const int32_t*>(d)[j]);
    case DType::kU32:
      return Cmp(static_cast<const uint32_t*>(d)[i], static_cast<const uint32_t*>(d)[j]);
    case DType::kI64:
      return Cmp(static_cast<const int64_t*>(d)[i], static_cast<const int64_t*>(d)[j]);
    case DType::kU64:
      return Cmp(static_cast<const uint64_t*>(d)[i], static_cast<const uint64_t*>(d)[j]);
    case DType::kUndefined:
      break;
  }
  return 0;
}

// x seen as [outer, slices, inner]; a slice is its outer * inner elements in row-major order.
struct Layout {
  int64_t outer = 1, slices = 1, inner = 1;
};

Status Shape(const UniqueParams& p, const TensorView& x, Layout* l) {
  if (DTypeSize(x.dtype) == 0) return InvalidArgument("unique: x has no element type");
  if (p.axis < 0) {
    l->slices = x.NumElements();
    return Status::Ok();
  }
  if (p.axis >= x.rank) {
    return InvalidArgument("unique: axis " + std::to_string(p.axis) + " is outside rank " +
                           std::to_string(x.rank));
  }
  l->slices = x.shape[p.axis];
  for (int i = 0; i < p.axis; ++i) l->outer *= x.shape[i];
  for (int i = p.axis + 1; i < x.rank; ++i) l->inner *= x.shape[i];
  return Status::Ok();
}

int CmpSlice(const TensorView& x, const Layout& l, int64_t a, int64_t b) {
  for (int64_t o = 0; o < l.outer; ++o) {
    const int64_t base = o * l.slices * l.inner;
    for (int64_t k = 0; k < l.inner; ++k) {
      const int c = CmpElem(x.dtype, x.data, base + a * l.inner + k, base + b * l.inner + k);
      if (c != 0) return c;
    }
  }
  return 0;
}

// Sorts and groups: order[0, S) the slices sorted, start[0, U] where each run begins. Returns U.
int64_t Group(const TensorView& x, const Layout& l, int64_t* order, int64_t* start) {
  const int64_t s = l.slices;
  for (int64_t i = 0; i < s; ++i) order[i] = i;
  std::sort(order, order + s, [&](int64_t a, int64_t b) {
    const int c = CmpSlice(x, l, a, b);
    return c < 0 || (c == 0 && a < b);
  });
  int64_t u = 0;
  for (int64_t m = 0; m < s; ++m) {
    if (m == 0 || CmpSlice(x, l, order[m - 1], order[m]) != 0) start[u++] = m;
  }
  start[u] = s;
  return u;
}

}  // namespace

int64_t UniqueScratchSize(const UniqueParams& p, const TensorView& x) {
  Layout l;
  if (!Shape(p, x, &l).ok()) return 0;
  return 4 * l.slices + 1;
}

Status UniqueCount(const UniqueParams& p, const TensorView& x, int64_t* scratch, int64_t* count) {
  Layout l;
  LOOM_RETURN_IF_ERROR(Shape(p, x, &l));
  *count = Group(x, l, scratch, scratch + l.slices);
  return Status::Ok();
}

Status Unique(const UniqueParams& p, const TensorView& x, int64_t* scratch, const TensorView& y,
              const TensorView* indices, const TensorView* inverse, const TensorView* counts) {
  Layout l;
  LOOM_RETURN_IF_ERROR(Shape(p, x, &l));
  int64_t* order = scratch;
  int64_t* start = scratch + l.slices;         // U + 1 entries
  int64_t* perm = scratch + 2 * l.slices + 1;  // output position -> run
  int64_t* rank = scratch + 3 * l.slices + 1;  // run -> output position
  const int64_t u = Group(x, l, order, start);
  // y is x with the slice axis (or the flattened x) cut to U.
  const bool y_ok =
      y.dtype == x.dtype && (p.axis < 0 ? y.rank == 1 && y.shape[0] == u
                                        : y.rank == x.rank && y.shape[p.axis] == u &&
                                              y.NumElements() == l.outer * u * l.inner);
  if (!y_ok) {
    return InvalidArgument("unique: x has " + std::to_string(u) +
                           " distinct slices, which y's shape does not match");
  }
  for (const TensorView* v : {indices, counts}) {
    if (v != nullptr && (v->dtype != DType::kI64 || v->rank != 1 || v->shape[0] != u)) {
      return InvalidArgument("unique: indices and counts must be i64 [" + std::to_string(u) + "]");
    }
  }
  if (inverse != nullptr &&
      (inverse->dtype != DType::kI64 || inverse->rank != 1 || inverse->shape[0] != l.slices)) {
    return InvalidArgument("unique: inverse_indices must be i64 [" + std::to_string(l.slices) +
                           "]");
  }
  for (int64_t g = 0; g < u; ++g) perm[g] = g;
  if (!p.sorted) {
    // Runs by first occurrence: order[start[g]] is the run's smallest slice index.
    std::sort(perm, perm + u,
              [&](int64_t a, int64_t b) { return order[start[a]] < order[start[b]]; });
  }
  for (int64_t k = 0; k < u; ++k) rank[perm[k]] = k;
  const size_t esize = DTypeSize(x.dtype);
  const uint8_t* xd = static_cast<const uint8_t*>(x.data);
  uint8_t* yd = static_cast<uint8_t*>(y.data);
  for (int64_t k = 0; k < u; ++k) {
    const int64_t g = perm[k], first = order[start[g]];
    for (int64_t o = 0; o < l.outer; ++o) {
      std::memcpy(yd + static_cast<size_t>((o * u + k) * l.inner) * esize,
                  xd + static_cast<size_t>((o * l.slices + first) * l.inner) * esize,
                  static_cast<size_t>(l.inner) * esize);
    }
    if (indices != nullptr) indices->As<int64_t>()[k] = first;
    if (counts != nullptr) counts->As<int64_t>()[k] = start[g + 1] - start[g];
  }
  if (inverse != nullptr) {
    for (int64_t g = 0; g < u; ++g) {
      for (int64_t m = start[g]; m < start[g + 1]; ++m) inverse->As<int64_t>()[order[m]] = rank[g];
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
