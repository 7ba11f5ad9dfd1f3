// Shared by the integer kernels: reading u8/i8 tensors as int32, zero-point validation (scalar or
// one per channel) and the ONNX requantization step. Internal to the kernels library.
#ifndef LOOM_RUNTIME_KERNELS_INT_COMMON_H_
#define LOOM_RUNTIME_KERNELS_INT_COMMON_H_

#include <cstdint>
#include <string>

#include "runtime/kernels/tensor.h"

namespace loom::kernels::internal {

inline bool IsInt8Like(DType t) { return t == DType::kU8 || t == DType::kI8; }

// Reads element i of a u8 or i8 view as int32.
class Int8Reader {
 public:
  explicit Int8Reader(const TensorView& v)
      : data_(static_cast<const uint8_t*>(v.data)), is_signed_(v.dtype == DType::kI8) {}
  int32_t operator()(int64_t i) const {
    return is_signed_ ? int32_t{static_cast<int8_t>(data_[i])} : int32_t{data_[i]};
  }

 private:
  const uint8_t* data_;
  bool is_signed_;
};

// A zero point that is either one scalar or one value per channel.
class ZeroPoints {
 public:
  ZeroPoints() = default;
  ZeroPoints(const TensorView* v, bool per_channel) : v_(v), per_channel_(per_channel) {}
  int32_t operator()(int64_t channel) const {
    if (v_ == nullptr) return 0;
    return Int8Reader(*v_)(per_channel_ ? channel : 0);
  }

 private:
  const TensorView* v_ = nullptr;
  bool per_channel_ = false;
};

// nullptr means 0. Otherwise one element of the operand's type.
inline Status ScalarZeroPoint(const TensorView* zp, DType operand, const char* what, int32_t* out) {
  *out = 0;
  if (zp == nullptr) return Status::Ok();
  if (zp->dtype != operand || zp->NumElements() != 1) {
    return InvalidArgument(std::string(what) + " must be a single " + DTypeName(operand) +
                           " value");
  }
  *out = Int8Reader(*zp)(0);
  return Status::Ok();
}

// nullptr means 0. Otherwise one element, or `channels` elements (one per channel).
inline Status ChannelZeroPoints(const TensorView* zp, DType operand, int64_t channels,
                                const char* what, ZeroPoints* out) {
  *out = ZeroPoints();
  if (zp == nullptr) return Status::Ok();
  const int64_t n = zp->NumElements();
  if (zp->dtype != operand || (n != 1 && n != channels)) {
    return InvalidArgument(std::string(what) + " must be " + DTypeName(operand) + " with 1 or " +
                           std::to_string(channels) + " values");
  }
  *out = ZeroPoints(zp, n != 1);
  return Status::Ok();
}

inline int32_t WrapToI32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

// Integer range of a u8/i8 output.
inline int32_t QMin(DType t) { return t == DType::kI8 ? -128 : 0; }
inline int32_t QMax(DType t) { return t == DType::kI8 ? 127 : 255; }

// ONNX requantization: saturate(round_half_even(acc * multiplier) + zero_point). The multiplier is
// float32 (x_scale * w_scale / y_scale, computed in float), matching onnxruntime's reference.
inline int32_t Requantize(int64_t acc, float multiplier, int32_t zero_point, DType out) {
  float scaled = RoundHalfToEven(static_cast<float>(acc) * multiplier);
  // Clamp in float before converting, so huge values cannot overflow the int conversion.
  const float lo = static_cast<float>(QMin(out) - zero_point);
  const float hi = static_cast<float>(QMax(out) - zero_point);
  if (!(scaled >= lo)) scaled = lo;  // also catches NaN
  if (scaled > hi) scaled = hi;
  return static_cast<int32_t>(scaled) + zero_point;
}

// Writes a saturated value into element i of a u8/i8 view.
inline void StoreInt8(const TensorView& v, int64_t i, int32_t value) {
  if (v.dtype == DType::kI8) {
    static_cast<int8_t*>(v.data)[i] = static_cast<int8_t>(value);
  } else {
    static_cast<uint8_t*>(v.data)[i] = static_cast<uint8_t>(value);
  }
}

// A float scalar (a quantization scale): one f32 element, positive and finite.
inline Status ScalarScale(const TensorView* s, const char* what, float* out) {
  if (s == nullptr || s->dtype != DType::kF32 || s->NumElements() != 1) {
    return InvalidArgument(std::string(what) + " must be a single f32 value");
  }
  *out = s->As<const float>()[0];
  return Status::Ok();
}

}  // namespace loom::kernels::internal

#endif  // LOOM_RUNTIME_KERNELS_INT_COMMON_H_
