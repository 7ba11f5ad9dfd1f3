// What the op table's two files share (op_registry.cc: the core ops and the verifier;
// op_registry_families.cc: the operator families of the ONNX coverage work): the attribute
// specs several rows use, and the families' rows.
#ifndef LOOM_COMPILER_IR_OP_REGISTRY_INTERNAL_H_
#define LOOM_COMPILER_IR_OP_REGISTRY_INTERNAL_H_

#include <vector>

#include "compiler/ir/op_registry.h"

namespace loom::ir::internal {

using K = Attribute::Kind;

// Attribute groups shared by several rows.
inline const AttrSpec kStrides{"strides", K::kInts, true};
inline const AttrSpec kPads{"pads", K::kInts, true};
inline const AttrSpec kDilations{"dilations", K::kInts, true};
inline const AttrSpec kGroup{"group", K::kInt, true};
inline const AttrSpec kKernelShape{"kernel_shape", K::kInts, true};
inline const AttrSpec kCeilMode{"ceil_mode", K::kInt, true};
// Fused activation epilogue (set by the fusion pass).
inline const AttrSpec kActivation{"activation", K::kString, false};
inline const AttrSpec kClipMin{"clip_min", K::kFloat, false};
inline const AttrSpec kClipMax{"clip_max", K::kFloat, false};
// Integer requantization (q.* ops), in the ranges the package loader accepts: shifts in
// [-31, 31], clips inside int8, multipliers in the ALU's signed 16-bit immediate.
inline constexpr int64_t kImmLo = -32768;
inline constexpr int64_t kImmHi = 32767;
inline const AttrSpec kPreShift{"pre_shift", K::kInt, true, -31, 31};
inline const AttrSpec kPostShift{"post_shift", K::kInt, true, -31, 31};
inline const AttrSpec kClipLo{"clip_lo", K::kInt, true, -128, 127};
inline const AttrSpec kClipHi{"clip_hi", K::kInt, true, -128, 127};
// Reduction family.
inline const AttrSpec kAxis{"axis", K::kInt, true};
inline const AttrSpec kAxes{"axes", K::kInts, true};
inline const AttrSpec kKeepDims{"keepdims", K::kInt, true};
inline const AttrSpec kSelectLast{"select_last_index", K::kInt, true};
inline const AttrSpec kReduction{"reduction", K::kString, true};  // none | sum | mean
inline const AttrSpec kIgnoreIndex{"ignore_index", K::kInt, false};
// Recurrent, signal and misc family.
inline const AttrSpec kHiddenSize{"hidden_size", K::kInt, true};
inline const AttrSpec kDirection{"direction", K::kInt, true};
inline const AttrSpec kLayout{"layout", K::kInt, true};
inline const AttrSpec kClip{"clip", K::kFloat, true};  // 0: no clipping
inline const AttrSpec kActivations{"activations", K::kInts, true};
inline const AttrSpec kActAlpha{"activation_alpha", K::kFloats, true};
inline const AttrSpec kActBeta{"activation_beta", K::kFloats, true};
inline const AttrSpec kSize{"size", K::kInt, true};
inline const AttrSpec kPeriodic{"periodic", K::kInt, true};
inline const AttrSpec kDTypeAttr{"dtype", K::kString, true};

// Appends the rows of the detection/vision, reduction, elementwise math, shape and indexing, and
// recurrent/signal families.
void AppendFamilyOps(std::vector<OpDef>* table);

}  // namespace loom::ir::internal

#endif  // LOOM_COMPILER_IR_OP_REGISTRY_INTERNAL_H_
