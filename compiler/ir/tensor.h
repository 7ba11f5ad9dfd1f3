// Tensor: an owned, immutable-by-default dense array (dtype, shape, row-major bytes). Constant
// values, tensor attributes, interpreter inputs/outputs and constant-folding results are all
// Tensors. Copies share the bytes (a shared_ptr), so copying a graph or an attribute never copies
// weights; writing through mutable_bytes() first un-shares them (copy on write).
#ifndef LOOM_COMPILER_IR_TENSOR_H_
#define LOOM_COMPILER_IR_TENSOR_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/types.h"
#include "runtime/core/status.h"

namespace loom::ir {

// The most bytes one tensor the compiler allocates may hold: a constant read from a file, an
// interpreter result, a calibration sample, a folded constant. 4 GiB is what the accelerator's
// 32-bit DRAM addresses reach and what a .npy input may hold (kMaxTensorFileBytes); a shape
// asking for more is an error naming the value, never a bad_alloc or an hour of swapping.
inline constexpr uint64_t kMaxTensorBytes = uint64_t{4} << 30;

// The byte size of a dtype/shape, checked: the element count (NumElements), the product with the
// element size, and kMaxTensorBytes. This is the one check every allocation from a shape makes.
Status TensorBytes(DType dtype, const Shape& shape, uint64_t* bytes);

class Tensor {
 public:
  Tensor() = default;

  // A zero-filled tensor: the one place the compiler allocates tensor data from a shape. Fails on
  // an undefined dtype, a negative shape, one over TensorBytes' limits, or when the memory is not
  // there (bad_alloc is caught here). Callers add which value the tensor is for.
  static Status Create(DType dtype, Shape shape, Tensor* out);
  // Takes `bytes`, which must hold exactly num_elements * DTypeSize(dtype) bytes.
  static Status FromBytes(DType dtype, Shape shape, std::vector<uint8_t> bytes, Tensor* out);
  // For tests and passes that build small constants. T must match dtype's C++ type.
  template <typename T>
  static Tensor FromVector(DType dtype, Shape shape, const std::vector<T>& values) {
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = std::move(shape);
    auto bytes = std::make_shared<std::vector<uint8_t>>(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(bytes->data(), values.data(), bytes->size());
    t.data_ = std::move(bytes);
    return t;
  }

  bool defined() const { return dtype_ != DType::kUndefined; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t num_elements() const { return NumElementsUnchecked(shape_); }
  size_t byte_size() const { return data_ ? data_->size() : 0; }

  const uint8_t* bytes() const { return data_ ? data_->data() : nullptr; }
  uint8_t* mutable_bytes();
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes());
  }
  template <typename T>
  T* mutable_data() {
    return reinterpret_cast<T*>(mutable_bytes());
  }

  // Element i converted to double (exact for every supported dtype except i64 beyond 2^53).
  double ElementAsDouble(int64_t i) const;

  // FNV-1a over dtype, shape and bytes: the short content hash the text form prints. Equal
  // tensors hash equal; it is not a cryptographic hash.
  uint64_t Hash() const;
  bool SameContents(const Tensor& o) const;

  // The same bytes with another shape of equal element count (no copy).
  Status Reshaped(Shape shape, Tensor* out) const;

 private:
  DType dtype_ = DType::kUndefined;
  Shape shape_;
  std::shared_ptr<std::vector<uint8_t>> data_;
};

// "1a2b3c4d": the 32 low bits of Hash(), as printed after `const`.
std::string ShortHash(const Tensor& t);

}  // namespace loom::ir

#endif  // LOOM_COMPILER_IR_TENSOR_H_
