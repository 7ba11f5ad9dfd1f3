#include "compiler/ir/tensor.h"

#include <cstdio>
#include <new>

#include "runtime/core/checked_math.h"

namespace loom::ir {

Status TensorBytes(DType dtype, const Shape& shape, uint64_t* bytes) {
  if (dtype == DType::kUndefined) return InvalidArgument("tensor needs a dtype");
  int64_t n = 0;
  LOOM_RETURN_IF_ERROR(NumElements(shape, &n));
  uint64_t b = 0;
  // NumElements' cap keeps the product far below 2^64; checked all the same.
  if (!CheckedMul(static_cast<uint64_t>(n), static_cast<uint64_t>(DTypeSize(dtype)), &b)) {
    b = UINT64_MAX;
  }
  if (b > kMaxTensorBytes) {
    return InvalidArgument("tensor " + TypeToString(dtype, shape) + " needs " + std::to_string(b) +
                           " bytes, more than the compiler's limit of " +
                           std::to_string(kMaxTensorBytes) + " bytes (4 GiB) per tensor");
  }
  *bytes = b;
  return Status::Ok();
}

Status Tensor::Create(DType dtype, Shape shape, Tensor* out) {
  uint64_t bytes = 0;
  LOOM_RETURN_IF_ERROR(TensorBytes(dtype, shape, &bytes));
  size_t size = 0;
  if (!CheckedCast(bytes, &size)) {
    return InvalidArgument("tensor " + TypeToString(dtype, shape) + " does not fit in memory");
  }
  // Host-side compiler code, where exceptions exist: a request within the limit that the machine
  // cannot honour still becomes a status, not std::terminate.
  std::shared_ptr<std::vector<uint8_t>> data;
  try {
    data = std::make_shared<std::vector<uint8_t>>(size);
  } catch (const std::bad_alloc&) {
    return InvalidArgument("out of memory allocating tensor " + TypeToString(dtype, shape) + " (" +
                           std::to_string(bytes) + " bytes)");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.data_ = std::move(data);
  *out = std::move(t);
  return Status::Ok();
}

Status Tensor::FromBytes(DType dtype, Shape shape, std::vector<uint8_t> bytes, Tensor* out) {
  uint64_t want = 0;
  LOOM_RETURN_IF_ERROR(TensorBytes(dtype, shape, &want));
  if (bytes.size() != want) {
    return InvalidArgument("tensor " + TypeToString(dtype, shape) + " needs " +
                           std::to_string(want) + " bytes, got " + std::to_string(bytes.size()));
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.data_ = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  *out = std::move(t);
  return Status::Ok();
}

uint8_t* Tensor::mutable_bytes() {
  if (!data_) return nullptr;
  if (data_.use_count() > 1) data_ = std::make_shared<std::vector<uint8_t>>(*data_);
  return data_->data();
}

double Tensor::ElementAsDouble(int64_t i) const {
  switch (dtype_) {
    case DType::kF32:
      return data<float>()[i];
    case DType::kI8:
      return data<int8_t>()[i];
    case DType::kU8:
      return data<uint8_t>()[i];
    case DType::kI32:
      return data<int32_t>()[i];
    case DType::kI64:
      return static_cast<double>(data<int64_t>()[i]);
    case DType::kBool:
      return data<uint8_t>()[i] != 0 ? 1.0 : 0.0;
    case DType::kF64:
      return data<double>()[i];
    case DType::kF16:
      return F16ToF32(data<uint16_t>()[i]);
    case DType::kI16:
      return data<int16_t>()[i];
    case DType::kU16:
      return data<uint16_t>()[i];
    case DType::kU32:
      return data<uint32_t>()[i];
    case DType::kU64:
      return static_cast<double>(data<uint64_t>()[i]);
    case DType::kUndefined:
      break;
  }
  return 0.0;
}

uint64_t Tensor::Hash() const {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ull;
    }
  };
  const uint8_t tag = static_cast<uint8_t>(dtype_);
  mix(&tag, 1);
  for (int64_t d : shape_) mix(reinterpret_cast<const uint8_t*>(&d), sizeof d);
  if (data_) mix(data_->data(), data_->size());
  return h;
}

bool Tensor::SameContents(const Tensor& o) const {
  if (dtype_ != o.dtype_ || shape_ != o.shape_ || byte_size() != o.byte_size()) return false;
  return byte_size() == 0 || std::memcmp(bytes(), o.bytes(), byte_size()) == 0;
}

Status Tensor::Reshaped(Shape shape, Tensor* out) const {
  int64_t n = 0;
  LOOM_RETURN_IF_ERROR(NumElements(shape, &n));
  if (n != num_elements()) {
    return InvalidArgument("cannot reshape " + TypeToString(dtype_, shape_) + " to " +
                           ShapeToString(shape));
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  *out = std::move(t);
  return Status::Ok();
}

std::string ShortHash(const Tensor& t) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(t.Hash() & 0xffffffffu));
  return buf;
}

}  // namespace loom::ir
