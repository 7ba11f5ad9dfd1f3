// Scalar types, shapes, layouts and quantization parameters of IR values. See docs/compiler.md
// ("The IR") for the invariants.
#ifndef LOOM_COMPILER_IR_TYPES_H_
#define LOOM_COMPILER_IR_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/dtype.h"
#include "runtime/core/status.h"

namespace loom::ir {

// Memory layout of a value's data. kPlain: row-major in the logical dim order (NCHW for
// activations, OIHW for conv weights). kBlocked: a 4-D int8 activation stored as
// runtime/kernels/int8/qops.h lays it out ([N/B][C/c][H][W][B][c], zero padding); set by the
// graph-pack pass. A blocked value keeps its logical shape, so shape functions and the verifier
// keep working on logical shapes. Weight constants stay logical (kPlain) in the IR; the package
// writer packs them.
enum class Layout : uint8_t {
  kPlain = 0,
  kBlocked = 1,
};
const char* LayoutName(Layout l);
bool ParseLayout(std::string_view name, Layout* out);

// Static shape; every dim >= 0. Rank 0 is a scalar.
using Shape = std::vector<int64_t>;

// Element count with overflow and negative-dim checks (shapes come from untrusted files): at most
// 2^40, and so is the product of the nonzero dims. Every value of a verified graph passes it.
Status NumElements(const Shape& shape, int64_t* out);
// Unchecked product; only for shapes a verified graph holds.
int64_t NumElementsUnchecked(const Shape& shape);
// "[1,3,224,224]"; "[]" for a scalar.
std::string ShapeToString(const Shape& shape);
// "f32[1,3,224,224]"
std::string TypeToString(DType t, const Shape& shape);

// Affine quantization of a value: real = (q - zero_point) * scale. One scale/zero point for the
// whole tensor (axis == -1, one entry each) or one per index of `axis` (per-channel weights).
// Attached by the quantizer; the importer leaves it empty and keeps ONNX's explicit Q/DQ ops.
struct QuantParams {
  std::vector<float> scales;
  std::vector<int32_t> zero_points;
  int axis = -1;

  bool per_axis() const { return axis >= 0; }
  bool operator==(const QuantParams& o) const {
    return scales == o.scales && zero_points == o.zero_points && axis == o.axis;
  }
};

// Checks sizes against the value's shape: per-tensor has one entry; per-axis has shape[axis].
Status CheckQuantParams(const QuantParams& q, const Shape& shape);

}  // namespace loom::ir

#endif  // LOOM_COMPILER_IR_TYPES_H_
