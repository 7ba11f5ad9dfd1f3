// From a quantized, packed and partitioned graph (compiler/quantize, pack, partition) to a package
// (PackageSpec, serialized by writer.h):
//   - constants packed into the layouts of runtime/kernels/int8/qops.h, aligned for the DMA;
//   - every other value placed in one DRAM arena by a liveness-based first-fit plan, so the arena
//     size is fixed at compile time;
//   - consecutive nodes with the same `target` form a segment; an accelerator segment carries the
//     op-level description (what the cpu device runs) and the instruction stream computing the same
//     numbers (conv2d, depthwise, dense, add; compiler/tensorize), layers separated by barriers;
//   - before anything is serialized, every program is verified: each instruction against the
//     config, token balance per queue, and every DRAM access inside a tensor of its layer. A
//     violation is a compiler bug reported with the layer's name.
// docs/package.md describes the result; docs/tensorize.md the programs.
#ifndef LOOM_COMPILER_PACKAGE_LOWER_H_
#define LOOM_COMPILER_PACKAGE_LOWER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/package/writer.h"
#include "compiler/tensorize/schedule.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"

namespace loom::package {

// One accelerator convolution as the lowering scheduled it.
struct Conv2dLowering {
  std::string name;
  std::string signature;         // tensorize::Conv2dSignature
  tensorize::Conv2dLayer layer;  // what the tiling is for
  bool depthwise = false;
  tensorize::TilingChoice choice;
  bool tuned = false;  // the tiling came from LowerOptions::schedules
};

struct LowerOptions {
  std::string board;
  ProvenanceSpec provenance;
  // Called once per accelerator layer as its tiling is chosen (progress output); may be empty.
  std::function<void(size_t done, size_t total, const std::string& layer)> progress;
  // Tuned tilings by layer signature (`loom compile --tuning-log`, compiler/tune); layers not in
  // it, and entries the emitter refuses, take the built-in search. Not owned; may be null.
  const tensorize::ScheduleTable* schedules = nullptr;
  // Called for every accelerator convolution with the tiling it got (`loom tune` collects the
  // layers to tune and the built-in choice to beat); may be empty.
  std::function<void(const Conv2dLowering&)> on_conv2d;
  // Fuse a q.max_pool into the program of the q.conv2d before it when the pool is the conv's
  // only consumer (tensorize/conv2d_pool.h; `loom compile --no-fuse-pool` turns it off). A fused
  // conv takes the fused tiling search, not LowerOptions::schedules, and is not reported to
  // on_conv2d (its tiling is not a plain conv's).
  bool fuse_pool = true;
};

struct LayerLowering {
  std::string name;
  std::string op;
  std::string segment;
  bool accel = false;
  uint64_t macs = 0;
  std::string tiling;        // accelerator layers: the chosen tiling
  bool tuned = false;        // conv layers: the tiling came from a tuning log
  uint64_t est_cycles = 0;   // fsim timing model, the layer alone (conv layers)
  double utilization = 0.0;  // GEMM utilization of that estimate
  // Accelerator layers after the first of their segment: the barrier before them, "buffer" (the
  // weaker one: no DRAM dependency on the previous layer) or "layer"; empty otherwise.
  std::string barrier;
  // Fused pairs (LowerOptions::fuse_pool): on the conv, the pool run inside its program; on the
  // pool, the conv whose program computes it (the pool has no instructions of its own, and the
  // conv's output is never written on the accelerator).
  std::string fused_with;
};

struct LowerReport {
  uint64_t arena_bytes = 0;
  uint64_t constants_bytes = 0;
  uint64_t insns = 0;
  uint64_t uops = 0;
  std::vector<LayerLowering> layers;
};

Status LowerToPackage(const ir::Graph& graph, const HwConfig& config, const LowerOptions& options,
                      PackageSpec* out, LowerReport* report);

}  // namespace loom::package

#endif  // LOOM_COMPILER_PACKAGE_LOWER_H_
