// ONNX import: reads an .onnx model (opsets 7-17, and opset 6 for the ops whose opset-6 form Loom
// maps, which covers PyTorch's older exports), checks it with onnx::checker, runs ONNX shape
// inference, and maps it to the graph IR in canonical form (see op_registry.h). Every failure is a
// Status, never an exception or a crash: unsupported ops, attribute values or dtypes are
// kUnimplemented naming the node, the op and what is missing; malformed input (not protobuf,
// truncated, checker failure, missing initializer, ...) is kInvalidArgument or kDataLoss.
//
// This header exposes no protobuf types, so its users need not compile against libonnx.
#ifndef LOOM_COMPILER_FRONTEND_ONNX_IMPORT_H_
#define LOOM_COMPILER_FRONTEND_ONNX_IMPORT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "runtime/core/status.h"

namespace loom::frontend {

struct ImportOptions {
  // Fixed shapes for graph inputs, by name: required for inputs with symbolic or unknown dims,
  // and overrides declared dims otherwise (e.g. a batch size).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Graph inputs to compile as constants with these values ("freezing"), by name. Loom compiles
  // shapes statically, so an input that feeds a shape parameter (Reshape's target shape, Pad's
  // pads, ...; ListOnnxInputs reports which) must be frozen to be supported.
  std::map<std::string, ir::Tensor> constant_inputs;
  // onnx::checker::check_model. Only tests that feed deliberately odd models turn it off.
  bool run_checker = true;
};

// A graph input of an ONNX model (initializers excluded), in the model's order.
struct OnnxInput {
  std::string name;
  // Feeds an operand Loom needs at compile time; import fails unless it is frozen.
  bool compile_time = false;
};
Status ListOnnxInputs(const void* data, size_t size, std::vector<OnnxInput>* out);

Status ImportOnnxFile(const std::string& path, const ImportOptions& options, ir::Graph* out);
Status ImportOnnxBytes(const void* data, size_t size, const ImportOptions& options, ir::Graph* out);

// Decodes one serialized onnx.TensorProto (the format of the ONNX backend tests' input_N.pb and
// output_N.pb files). *name receives the tensor's name (may be empty).
Status ParseTensorProto(const void* data, size_t size, ir::Tensor* out, std::string* name);

// The ONNX operators the importer maps, for documentation and the conformance report.
std::vector<std::string> SupportedOnnxOps();

}  // namespace loom::frontend

#endif  // LOOM_COMPILER_FRONTEND_ONNX_IMPORT_H_
