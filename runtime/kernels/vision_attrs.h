// Kernel parameters of the vision and normalization family from an op's attributes, shared by the
// interpreter (an IR node) and the runtime's loader (a package's FloatOp), as op_attrs.h is for
// the convolutions and pools. Attributes are the IR's canonical ones (op_registry.cc).
#ifndef LOOM_RUNTIME_KERNELS_VISION_ATTRS_H_
#define LOOM_RUNTIME_KERNELS_VISION_ATTRS_H_

#include <string>
#include <vector>

#include "runtime/kernels/kernels_vision.h"
#include "runtime/kernels/op_attrs.h"

namespace loom::kernels {

// Resize from x [rank] to y (same rank): the mode codes, and per dim the scale (attribute
// `scales`, else y / x in double) and the roi (tf_crop_and_resize).
template <typename Attrs>
Status ResizeParamsFrom(const Attrs& a, const TensorView& x, const TensorView& y, ResizeParams* p) {
  const int rank = x.rank;
  if (rank < 1 || rank > kMaxRank || y.rank != rank) {
    return InvalidArgument("Resize: x and y need the same rank in 1.." + std::to_string(kMaxRank));
  }
  const int64_t mode = a.GetInt("mode", 0), coord = a.GetInt("coordinate_transformation_mode", 0),
                nearest = a.GetInt("nearest_mode", 0);
  if (mode < 0 || mode > 2 || coord < 0 || coord > 6 || nearest < 0 || nearest > 3) {
    return InvalidArgument("Resize: mode " + std::to_string(mode) + ", coordinate mode " +
                           std::to_string(coord) + " or nearest mode " + std::to_string(nearest) +
                           " is not a known code");
  }
  p->mode = static_cast<ResizeMode>(mode);
  p->coord = static_cast<ResizeCoord>(coord);
  p->nearest = static_cast<ResizeNearest>(nearest);
  p->cubic_coeff_a = a.GetFloat("cubic_coeff_a", -0.75f);
  p->exclude_outside = a.GetInt("exclude_outside", 0) != 0;
  p->extrapolation_value = a.GetFloat("extrapolation_value", 0.0f);
  const std::vector<float> scales = a.GetFloats("scales");
  const std::vector<float> roi = a.GetFloats("roi");
  if (!scales.empty() && scales.size() != static_cast<size_t>(rank)) {
    return InvalidArgument("Resize: scales has " + std::to_string(scales.size()) +
                           " entries for rank " + std::to_string(rank));
  }
  if (p->coord == ResizeCoord::kTfCropAndResize && roi.size() != static_cast<size_t>(2 * rank)) {
    return InvalidArgument("Resize: tf_crop_and_resize needs roi with " + std::to_string(2 * rank) +
                           " entries, got " + std::to_string(roi.size()));
  }
  for (int d = 0; d < rank; ++d) {
    const size_t i = static_cast<size_t>(d);
    if (!scales.empty()) {
      p->scales[d] = static_cast<double>(scales[i]);
    } else if (x.shape[d] > 0 && y.shape[d] > 0) {
      p->scales[d] = static_cast<double>(y.shape[d]) / static_cast<double>(x.shape[d]);
    } else {
      p->scales[d] = 1.0;
    }
    if (!(p->scales[d] > 0) || p->scales[d] > 1e6) {
      return InvalidArgument("Resize: scale of dim " + std::to_string(d) + " must lie in (0, 1e6]");
    }
    if (!roi.empty()) {
      p->roi_start[d] = static_cast<double>(roi[i]);
      p->roi_end[d] = static_cast<double>(roi[static_cast<size_t>(rank) + i]);
    }
  }
  return Status::Ok();
}

template <typename Attrs>
Status LrnParamsFrom(const Attrs& a, LrnParams* p) {
  p->size = a.GetInt("size", 0);
  if (p->size < 1) return InvalidArgument("LRN: size must be >= 1, got " + std::to_string(p->size));
  p->alpha = a.GetFloat("alpha", 1e-4f);
  p->beta = a.GetFloat("beta", 0.75f);
  p->bias = a.GetFloat("bias", 1.0f);
  return Status::Ok();
}

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_VISION_ATTRS_H_
