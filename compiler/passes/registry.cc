// The pass registry: the one table of every graph pass. Order here is documentation order, not
// execution order; pipelines name passes explicitly (DefaultPipeline() in pass_manager.cc).
#include <cstdlib>

#include "compiler/passes/pass.h"

namespace loom::passes {

const std::vector<PassInfo>& AllPasses() {
  static const std::vector<PassInfo> table = {
      {"shape-inference", "recompute every node's output dtype and shape with Loom's op table", "",
       ShapeInference},
      {"identity-removal", "remove Identity and inference Dropout, rewiring their users", "",
       IdentityRemoval},
      {"constant-folding",
       "evaluate nodes whose inputs are all constants with the reference kernels",
       "max-bytes=16777216: largest result (bytes) to fold", ConstantFolding},
      {"batchnorm-folding",
       "fold BatchNormalization into a preceding Conv, Gemm, MatMul or MatMul+Add", "",
       BatchNormFolding},
      {"fusion", "fuse per-channel bias adds into Conv and Relu/Clip into Conv, Gemm and Add", "",
       Fusion},
      {"dead-code-elimination",
       "remove nodes and unused trailing outputs nothing reads; drop dead values", "",
       DeadCodeElimination},
      {"import-qdq",
       "adopt the scales of a pre-quantized (QDQ) model: fold int8 weights, drop Q/DQ pairs",
       "", ImportQdq},
      {"quantize",
       "calibrate and rewrite into the int8 q.* graph (docs/quantization.md)",
       "calibration=: .npy samples (default: random N(0,1)); method=percentile: minmax or "
       "percentile; percentile=99.99: of |x|; samples=8: random samples; seed=0: their seed",
       Quantize},
      {"graph-pack", "mark int8 activations of q.* ops blocked for the HwConfig",
       "config=1x16x16: HwConfig name or path", GraphPack},
      {"partition", "place each node on the accelerator or the CPU (node attr target)",
       "config=1x16x16: HwConfig name or path", Partition},
  };
  return table;
}

const PassInfo* FindPass(std::string_view name) {
  for (const PassInfo& p : AllPasses()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

Status IntOption(const PassOptions& options, const std::string& key, int64_t fallback,
                 int64_t* out) {
  auto it = options.find(key);
  if (it == options.end()) {
    *out = fallback;
    return Status::Ok();
  }
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0') {
    return InvalidArgument("option " + key + "=" + it->second + " is not an integer");
  }
  *out = v;
  return Status::Ok();
}

}  // namespace loom::passes
