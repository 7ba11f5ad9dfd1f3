// Small packages built by hand with the writer, for the runtime's tests, the fuzz seed corpus and
// the C API example: real accelerator programs (compiler/tensorize EmitConv2d with the tiling
// search's choice) between CPU segments.
#ifndef LOOM_TESTS_RUNTIME_TEST_PACKAGES_H_
#define LOOM_TESTS_RUNTIME_TEST_PACKAGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/package/writer.h"

namespace loom::testing {

// conv3x3 (accel) -> maxpool 2x2 (cpu) -> conv1x1 (accel) -> dequantize, flatten, softmax (cpu).
// Outputs: "features" (int8 conv2 output, dequantized unless int8 is requested) and "probs".
// With float_tail, a further CPU segment runs float ops that read attributes and constants on the
// dequantized features: Conv (strides, pads, bias) -> Relu -> MaxPool -> Transpose (perm) ->
// Reshape -> Gemm (transB, C) -> Mul (broadcast) -> Clip (min) -> Concat with probs (axis) ->
// Softmax, output "tail" [n, 5 + 96] (hw = 8, o2 = 6).
struct ConvModelOptions {
  uint32_t n = 1;        // images (a multiple of the config's batch is not required)
  uint32_t c = 5;        // input channels (not a multiple of the block: padding lanes)
  uint32_t hw = 8;       // input height = width
  uint32_t o = 12;       // conv1 output channels
  uint32_t o2 = 6;       // conv2 output channels
  bool float_input = false;  // input tensor float32 with a Quantize op in a first CPU segment
  bool float_tail = false;   // the float-op segment above, and its output "tail"
  uint32_t seed = 1;
};

Status BuildConvModel(const HwConfig& config, const ConvModelOptions& options,
                      package::PackageSpec* spec);

// The input as float32 NCHW values in the input's quantization range.
std::vector<float> ConvModelInput(const ConvModelOptions& options, uint32_t seed);

// An input-to-output model with one CPU segment (relayout) and no accelerator program.
Status BuildCpuOnlyModel(const HwConfig& config, package::PackageSpec* spec);

// A CPU-only model over one element type (schema 1.3: every type stored as itself): input "x"
// [2, 3] of `dtype` -> Transpose -> Concat (axis 0) with a [1, 2] constant of the same type whose
// bytes are 0x01 each -> output "y" [4, 2]. Runs the data-movement float-op rows on each type.
Status BuildTypedCpuModel(const HwConfig& config, pkg::DType dtype, package::PackageSpec* spec);

// A CPU-only model with a string attribute (schema 1.7): input "x" f32 [2, 3] -> Pad with `mode`
// (FloatAttr.text), pads [1, 1, 0, 1] -> output "y" f32 [3, 5].
Status BuildPadCpuModel(const HwConfig& config, const std::string& mode,
                        package::PackageSpec* spec);

// Packages whose size fields ask for more than they hold or than a device allows, each refused by
// the loader with `code` and a message containing `message`: the package tests check them, and
// make_test_package --corpus writes them to the fuzz seed corpus (bad_<name>.loom).
struct OversizedPackage {
  std::string name;
  package::PackageSpec spec;
  StatusCode code;
  std::string message;
};
Status BuildOversizedPackages(const HwConfig& config, std::vector<OversizedPackage>* out);

}  // namespace loom::testing

#endif  // LOOM_TESTS_RUNTIME_TEST_PACKAGES_H_
