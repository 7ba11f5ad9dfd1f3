// compile_bench: wall time of `loom compile` (import, graph passes, quantize, graph-pack,
// partition; calibration and SQNR excluded, as the target says) for the torchvision models
// bench/models/build_models.py exports. Prints one table row per model; target < 2 s each.
//   compile_bench [MODEL.onnx ...]   (default: bench/models/out/{resnet18,mobilenet_v2}.onnx)
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/pipeline/compile.h"

int main(int argc, char** argv) {
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) models.push_back(argv[i]);
  if (models.empty()) {
    for (const char* m : {"resnet18", "mobilenet_v2"}) {
      models.push_back(std::string(LOOM_SOURCE_DIR) + "/bench/models/out/" + m + ".onnx");
    }
  }
  std::printf("%-20s %8s %8s %8s %8s %8s %9s %7s %8s\n", "model", "import", "passes", "quant",
              "pack", "part", "total(s)", "layers", "offload");
  int failures = 0;
  for (const std::string& path : models) {
    loom::pipeline::CompileOptions o;
    o.model_path = path;
    o.measure_sqnr = false;
    o.random_samples = 1;  // calibration is not timed; one sample keeps the run short
    loom::pipeline::CompileResult r;
    const loom::Status s = loom::pipeline::CompileModel(o, &r);
    const std::string name = path.substr(path.find_last_of('/') + 1);
    if (!s.ok()) {
      std::printf("%-20s error: %s\n", name.c_str(), s.ToString().c_str());
      ++failures;
      continue;
    }
    std::printf("%-20s %8.3f %8.3f %8.3f %8.3f %8.3f %9.3f %7zu %7.1f%%\n", name.c_str(),
                r.Seconds("import") + r.Seconds("import-qdq"), r.Seconds("passes"),
                r.Seconds("quantize"), r.Seconds("graph-pack"), r.Seconds("partition"),
                r.CompileSecondsExcludingCalibration(), r.quant.layers.size(),
                100.0 * r.partition.mac_ratio());
  }
  return failures ? 1 : 0;
}
