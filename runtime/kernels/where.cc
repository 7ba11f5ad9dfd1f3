// Where: y = cond ? a : b with numpy broadcasting of all three operands. The values are copied
// as bytes of their element size, so every dtype takes the same loop.
#include <cstring>

#include "runtime/kernels/kernels_math.h"

namespace loom::kernels {
namespace {

// The broadcast shape of three operands.
Status Broadcast3(const TensorView& c, const TensorView& a, const TensorView& b, int64_t* dims,
                  int* rank) {
  int64_t ab[kMaxRank];
  int ab_rank = 0;
  LOOM_RETURN_IF_ERROR(BroadcastShapes(a, b, ab, &ab_rank));
  TensorView shape_ab;
  shape_ab.rank = ab_rank;
  for (int i = 0; i < ab_rank; ++i) shape_ab.shape[i] = ab[i];
  return BroadcastShapes(c, shape_ab, dims, rank);
}

}  // namespace

Status Where(const TensorView& cond, const TensorView& a, const TensorView& b,
             const TensorView& y) {
  if (cond.dtype != DType::kBool) {
    return InvalidArgument(std::string("Where: the condition is ") + DTypeName(cond.dtype) +
                           ", must be bool");
  }
  if (a.dtype != b.dtype || a.dtype != y.dtype) {
    return InvalidArgument(std::string("Where: x, y and the output must share one type, are ") +
                           DTypeName(a.dtype) + ", " + DTypeName(b.dtype) + " and " +
                           DTypeName(y.dtype));
  }
  int64_t dims[kMaxRank];
  int rank = 0;
  LOOM_RETURN_IF_ERROR(Broadcast3(cond, a, b, dims, &rank).WithContext("Where"));
  bool ok = rank == y.rank;
  for (int i = 0; ok && i < rank; ++i) ok = dims[i] == y.shape[i];
  if (!ok) return InvalidArgument("Where: the output must have the broadcast shape of the inputs");
  IndexWalker<3> walk;
  walk.rank = rank;
  for (int i = 0; i < rank; ++i) walk.shape[i] = dims[i];
  BroadcastStrides(cond, rank, walk.strides[0]);
  BroadcastStrides(a, rank, walk.strides[1]);
  BroadcastStrides(b, rank, walk.strides[2]);
  const size_t size = DTypeSize(y.dtype);
  const uint8_t* cd = cond.As<const uint8_t>();
  const uint8_t* ad = a.As<const uint8_t>();
  const uint8_t* bd = b.As<const uint8_t>();
  uint8_t* yd = y.As<uint8_t>();
  const int64_t n = y.NumElements();
  for (int64_t i = 0; i < n; ++i, walk.Next()) {
    const uint8_t* src = cd[walk.offset[0]] != 0 ? ad + walk.offset[1] * static_cast<int64_t>(size)
                                                 : bd + walk.offset[2] * static_cast<int64_t>(size);
    std::memcpy(yd + i * static_cast<int64_t>(size), src, size);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
