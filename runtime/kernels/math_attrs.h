// Kernel parameters of the elementwise math family from an op's attributes, shared by the
// interpreter (an IR node) and the runtime's loader (a package's FloatOp), as vision_attrs.h is
// for the vision family. Attribute names and defaults are ONNX's; the importer writes them all
// out (op_registry.cc), so the defaults here only serve hand-written IR and packages.
#ifndef LOOM_RUNTIME_KERNELS_MATH_ATTRS_H_
#define LOOM_RUNTIME_KERNELS_MATH_ATTRS_H_

#include <cmath>
#include <string>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/kernels_math.h"

namespace loom::kernels {

// The ONNX default attributes of the activations.
constexpr float kSeluAlpha = 1.67326319217681884765625f;
constexpr float kSeluGamma = 1.05070102214813232421875f;
constexpr float kHardSigmoidAlpha = 0.2f;
constexpr float kHardSigmoidBeta = 0.5f;
constexpr float kShrinkLambd = 0.5f;

template <typename Attrs>
Status UnaryParamsFrom(const Attrs& a, UnaryOp op, UnaryParams* p) {
  p->op = op;
  switch (op) {
    case UnaryOp::kElu:
    case UnaryOp::kCelu:
    case UnaryOp::kThresholdedRelu:
      p->alpha = a.GetFloat("alpha", 1.0f);
      break;
    case UnaryOp::kSelu:
      p->alpha = a.GetFloat("alpha", kSeluAlpha);
      p->gamma = a.GetFloat("gamma", kSeluGamma);
      break;
    case UnaryOp::kHardSigmoid:
      p->alpha = a.GetFloat("alpha", kHardSigmoidAlpha);
      p->beta = a.GetFloat("beta", kHardSigmoidBeta);
      break;
    case UnaryOp::kShrink:
      p->alpha = a.GetFloat("lambd", kShrinkLambd);
      p->beta = a.GetFloat("bias", 0.0f);
      break;
    case UnaryOp::kIsInf:
      p->detect_negative = a.GetInt("detect_negative", 1) != 0;
      p->detect_positive = a.GetInt("detect_positive", 1) != 0;
      break;
    default:
      break;
  }
  if (op == UnaryOp::kCelu && !(p->alpha != 0.0f && std::isfinite(p->alpha))) {
    return InvalidArgument("Celu: alpha must be finite and non-zero, is " +
                           std::to_string(p->alpha));
  }
  return Status::Ok();
}

// Mod's fmod and BitShift's direction select the kernel's op; `op` is the one BinaryOpByName gave.
template <typename Attrs>
Status BinaryOpFrom(const Attrs& a, BinaryOp op, BinaryOp* out) {
  *out = op;
  if (op == BinaryOp::kMod) {
    const int64_t fmod = a.GetInt("fmod", 0);
    if (fmod != 0 && fmod != 1) return InvalidArgument("Mod: fmod must be 0 or 1");
    if (fmod == 1) *out = BinaryOp::kFmod;
  } else if (op == BinaryOp::kBitShiftLeft) {
    const int64_t dir = a.GetInt("direction", -1);
    if (dir != 0 && dir != 1) {
      return InvalidArgument("BitShift: direction must be 0 (LEFT) or 1 (RIGHT), is " +
                             std::to_string(dir));
    }
    if (dir == 1) *out = BinaryOp::kBitShiftRight;
  }
  return Status::Ok();
}

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_MATH_ATTRS_H_
