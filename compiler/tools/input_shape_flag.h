// --input-shape, parsed once for `loom compile` and `loom-opt`: fixes a model input's shape
// (symbolic or too general dims in the ONNX file).
#ifndef LOOM_COMPILER_TOOLS_INPUT_SHAPE_FLAG_H_
#define LOOM_COMPILER_TOOLS_INPUT_SHAPE_FLAG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/core/status.h"

namespace loom::tools {

// "NAME=1x3x224x224" or "NAME=1,3,224,224" ('x' and ',' both separate dims) into shapes[NAME].
// Each dim is a decimal integer >= min_dim (`loom compile` wants 1, `loom-opt` also takes 0).
Status ParseInputShape(const std::string& spec, int64_t min_dim,
                       std::map<std::string, std::vector<int64_t>>* shapes);

}  // namespace loom::tools

#endif  // LOOM_COMPILER_TOOLS_INPUT_SHAPE_FLAG_H_
