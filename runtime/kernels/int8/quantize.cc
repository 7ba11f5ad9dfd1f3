// Float <-> int8 at the graph boundary (qops.h): q = Saturate8(round_half_even(x / scale) + z).
#include <cmath>
#include <string>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {
namespace {

Status CheckScale(float scale, const char* op) {
  if (!(scale > 0.0f) || !std::isfinite(scale)) {
    return InvalidArgument(std::string(op) + ": scale " + std::to_string(scale) +
                           " must be finite and > 0");
  }
  return Status::Ok();
}

Status CheckZeroPoint(int32_t z, const char* op) {
  return internal::CheckRange(z, -128, 127, op, "zero point");
}

// Round half to even, independent of the floating-point rounding mode; saturates before the
// conversion so out-of-range values (and infinities) never reach an undefined cast. NaN maps to 0.
// The zero point z moves the saturation bounds: round(v) + z saturates exactly when v leaves
// [-128 - z, 127 - z], whose ends are integers. NaN maps to z, the real 0.
int8_t QuantizeOne(float x, float scale, int32_t z) {
  const float v = x / scale;
  if (std::isnan(v)) return static_cast<int8_t>(z);
  if (v <= static_cast<float>(-128 - z)) return -128;
  if (v >= static_cast<float>(127 - z)) return 127;
  float r = std::floor(v);
  const float diff = v - r;
  int32_t i = static_cast<int32_t>(r);  // r is in [-256, 255): exact
  if (diff > 0.5f || (diff == 0.5f && (i & 1) != 0)) ++i;
  return Saturate8(i + z);
}

}  // namespace

Status QuantizeF32(const float* x, size_t count, float scale, int32_t zero_point, int8_t* q) {
  LOOM_RETURN_IF_ERROR(CheckScale(scale, "QuantizeF32"));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(zero_point, "QuantizeF32"));
  if (count == 0) return Status::Ok();
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(x, "QuantizeF32: input"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(q, "QuantizeF32: output"));
  LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(x, count * sizeof(float), q, count, "QuantizeF32"));
  for (size_t i = 0; i < count; ++i) q[i] = QuantizeOne(x[i], scale, zero_point);
  return Status::Ok();
}

Status DequantizeF32(const int8_t* q, size_t count, float scale, int32_t zero_point, float* x) {
  LOOM_RETURN_IF_ERROR(CheckScale(scale, "DequantizeF32"));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(zero_point, "DequantizeF32"));
  if (count == 0) return Status::Ok();
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(q, "DequantizeF32: input"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(x, "DequantizeF32: output"));
  LOOM_RETURN_IF_ERROR(
      internal::CheckNoAlias(q, count, x, count * sizeof(float), "DequantizeF32"));
  for (size_t i = 0; i < count; ++i) x[i] = static_cast<float>(int32_t{q[i]} - zero_point) * scale;
  return Status::Ok();
}

}  // namespace loom::kernels::q
