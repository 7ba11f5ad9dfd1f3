// The dense tensor view every reference kernel takes: a borrowed data pointer, an element type, a
// shape and row-major strides. A view never owns memory; the caller keeps the buffer alive for the
// duration of the kernel call and provides every output buffer (kernels never allocate).
//
// Shapes live inline (kMaxRank dims) so building a view allocates nothing, which keeps the kernels
// usable on the bare-metal runtime.
#ifndef LOOM_RUNTIME_KERNELS_TENSOR_H_
#define LOOM_RUNTIME_KERNELS_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "runtime/core/dtype.h"
#include "runtime/core/status.h"

namespace loom::kernels {

constexpr int kMaxRank = 8;
// Conv and pooling kernels accept up to this many spatial dimensions (1-D, 2-D, 3-D, ...).
constexpr int kMaxSpatial = kMaxRank - 2;

struct TensorView {
  DType dtype = DType::kF32;
  // Borrowed. Kernels write only through the views they take as outputs; input views are read-only
  // by contract even though the pointer is not const (one view type keeps the API small).
  void* data = nullptr;
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};  // in elements, row-major: strides[rank-1] == 1

  int64_t NumElements() const;
  int64_t dim(int i) const { return shape[i]; }
  template <typename T>
  T* As() const {
    return static_cast<T*>(data);
  }
};

// Builds a row-major view. Fails if rank > kMaxRank, a dimension is negative, or the dimensions
// (zeros counted as 1) multiply past int64, so sizes the kernels derive from a view never wrap.
Status MakeView(DType dtype, const void* data, const int64_t* dims, int rank, TensorView* out);
// Convenience for tests and callers with literal shapes; aborts on an invalid shape is not an
// option in the runtime, so this returns an empty (rank 0, null data) view on error instead.
TensorView View(DType dtype, const void* data, std::initializer_list<int64_t> dims);

// True when both views have the same rank and dims.
bool SameShape(const TensorView& a, const TensorView& b);
// "f32[1,3,224,224]" into buf (always NUL-terminated); for error messages.
const char* FormatShape(const TensorView& v, char* buf, size_t size);

// Numpy-style broadcasting of two shapes: right-aligned, each pair equal or one of them 1.
// Writes the broadcast shape into out_dims (kMaxRank entries) and its rank into out_rank.
Status BroadcastShapes(const TensorView& a, const TensorView& b, int64_t* out_dims, int* out_rank);

// Strides (in elements) to read `v` as if it had a broadcast shape of rank out_rank that it
// broadcasts to: a size-1 dimension gets stride 0, missing leading dimensions too.
void BroadcastStrides(const TensorView& v, int out_rank, int64_t* strides);

// Walks every index of a shape in row-major order while keeping one linear offset per operand
// (each operand with its own strides, e.g. 0 for broadcast dimensions). No allocation.
template <int N>
struct IndexWalker {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t strides[N][kMaxRank] = {};
  int64_t index[kMaxRank] = {};
  int64_t offset[N] = {};

  // Advances to the next index; the offsets follow. Returns false after the last index.
  bool Next() {
    for (int d = rank - 1; d >= 0; --d) {
      ++index[d];
      for (int k = 0; k < N; ++k) offset[k] += strides[k][d];
      if (index[d] < shape[d]) return true;
      for (int k = 0; k < N; ++k) offset[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
    return false;
  }
};

// Round half to even, the rounding ONNX's QuantizeLinear and QLinear* ops specify. Independent of
// the floating-point environment's rounding mode.
float RoundHalfToEven(float x);

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_TENSOR_H_
