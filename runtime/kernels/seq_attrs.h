// Recurrent-op parameters from an op's attributes, shared by the interpreter (an IR node) and the
// runtime's loader (a package's FloatOp), as op_attrs.h is for the convolutions. Attributes are
// the IR's canonical ones: `activations` as RnnActivation codes with one alpha and beta each.
#ifndef LOOM_RUNTIME_KERNELS_SEQ_ATTRS_H_
#define LOOM_RUNTIME_KERNELS_SEQ_ATTRS_H_

#include <string>
#include <vector>

#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {

// `Attrs` has GetInt, GetInts, GetFloat and GetFloats as ir::Node does. A code outside the enum
// is refused: a package's attributes are not trusted to be the importer's.
template <typename Attrs>
Status RecurrentParamsFrom(const Attrs& a, RecurrentParams* p) {
  p->hidden_size = a.GetInt("hidden_size", 0);
  p->direction = static_cast<int>(a.GetInt("direction", 0));
  p->layout = static_cast<int>(a.GetInt("layout", 0));
  p->clip = a.GetFloat("clip", 0.0f);
  p->linear_before_reset = a.GetInt("linear_before_reset", 0) != 0;
  p->input_forget = a.GetInt("input_forget", 0) != 0;
  if (p->hidden_size < 1 || p->direction < 0 || p->direction > 2 || p->layout < 0 ||
      p->layout > 1) {
    return InvalidArgument("recurrent op: hidden_size " + std::to_string(p->hidden_size) +
                           ", direction " + std::to_string(p->direction) + " or layout " +
                           std::to_string(p->layout) + " is out of range");
  }
  const std::vector<int64_t> codes = a.GetInts("activations");
  const std::vector<float> alpha = a.GetFloats("activation_alpha");
  const std::vector<float> beta = a.GetFloats("activation_beta");
  if (codes.size() > static_cast<size_t>(kMaxRnnActivations) || alpha.size() != codes.size() ||
      beta.size() != codes.size()) {
    return InvalidArgument(
        "recurrent op: activations (" + std::to_string(codes.size()) + "), activation_alpha (" +
        std::to_string(alpha.size()) + ") and activation_beta (" + std::to_string(beta.size()) +
        ") need one entry each per activation, at most " + std::to_string(kMaxRnnActivations));
  }
  for (size_t i = 0; i < codes.size(); ++i) {
    if (codes[i] < 0 || codes[i] >= kNumRnnActivations) {
      return InvalidArgument("recurrent op: activation code " + std::to_string(codes[i]) +
                             " is not one of the " + std::to_string(kNumRnnActivations) + " known");
    }
    p->activations[i] = {static_cast<RnnActivation>(codes[i]), alpha[i], beta[i]};
  }
  return Status::Ok();
}

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_SEQ_ATTRS_H_
