// The compiler driver behind `loom compile`: import -> graph passes -> calibration + quantize ->
// graph-pack -> partition, then the package writer hook. Kept apart from the CLI so benchmarks and
// tests run exactly what the tool runs.
#ifndef LOOM_COMPILER_PIPELINE_COMPILE_H_
#define LOOM_COMPILER_PIPELINE_COMPILE_H_

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/package/lower.h"
#include "compiler/partition/partition.h"
#include "compiler/quantize/bias_correction.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/quantize.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"

namespace loom::pipeline {

// Registers every stage's passes (quantize, graph-pack, partition) beside the core ones, so that
// tools can name any pass. Idempotent; call before looking passes up by name.
void RegisterAllPasses();

struct CompileOptions {
  std::string model_path;
  std::string output_path;
  std::string config;                    // name or path; empty: the board's config, else 1x16x16
  std::string board;                     // optional board name or path
  std::vector<std::string> calibration;  // FILE.npy or NAME=FILE.npy; empty: random N(0, 1)
  // Calibration samples already in memory (one tensor per graph input each); used instead of
  // `calibration` files when not empty.
  std::vector<quantize::Sample> calibration_samples;
  int random_samples = quantize::kDefaultSamples;  // how many, when calibration is empty
  quantize::CalibrationMethod method = quantize::CalibrationMethod::kMse;
  double percentile = quantize::kDefaultPercentile;
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Graph inputs compiled as constants (frontend::ImportOptions::constant_inputs).
  std::map<std::string, ir::Tensor> constant_inputs;
  std::set<std::string> dump_ir_after;  // pass names ("quantize", "graph-pack", ...) or "all"
  bool measure_sqnr = true;
  // Empirical bias correction on the calibration samples after quantizing
  // (quantize/bias_correction.h; `loom compile --bias-correction on|off`).
  bool bias_correction = false;
  // Zero points on activations whose producer and readers take them (quantize.h
  // QuantizeOptions; `loom compile --activations asymmetric|symmetric`).
  bool asymmetric_activations = true;
  // Move accelerator segments that do not pay for their launch and transfers to the CPU
  // (partition::PartitionOptions::segment_cost; `loom compile --partition-cost`).
  bool partition_cost = false;
  // Run a max pool inside the program of the convolution before it (package::LowerOptions
  // fuse_pool, docs/tensorize.md "Convolution + max pool"); `loom compile --no-fuse-pool` turns
  // it off.
  bool fuse_pool = true;
  // Space-to-depth and/or width-im2col convolutions whose few input channels waste the channel
  // block (passes::PackFirstLayers, docs/tensorize.md "First-layer packing"); `loom compile
  // --no-first-layer-packing` turns it off.
  bool first_layer_packing = true;
  // Also fold the packed kernel's rows into the channels where that saves GEMM steps (fewer
  // accelerator cycles for more host bytes; `loom compile --first-layer-fold`).
  bool first_layer_fold = false;
  // Targets to compile the CPU ops' native code for (codegen::ParseCpuTargets: "x86_64,armv7",
  // "x86_64:x86-64-v4", "host", "none"); `loom compile --cpu-targets`. None by default while
  // native code is not at or below the fast kernels' time on ResNet-18 (4 % above) and
  // MobileNetV2 (docs/cpu.md, "Native code").
  std::string cpu_targets = "none";
  std::string command_line;      // recorded in the package's provenance
  std::ostream* log = nullptr;   // progress and warnings (stderr in the tool); null: silent
  std::ostream* dump = nullptr;  // where --dump-ir-after goes (stderr in the tool)
  // Optional progress callback (stage, done, total) for progress bars: "calibration" after each
  // sample, "tensorize" after each layer the package stage lowers. Called on the compiling thread.
  std::function<void(const std::string&, size_t, size_t)> progress;
  // Tuned tilings for the package stage (`--tuning-log`, compiler/tune) and a hook seeing every
  // convolution's schedule (package::LowerOptions); its `unpacked` layers also skip first-layer
  // packing. Not owned; may be null / empty.
  const tensorize::ScheduleTable* schedules = nullptr;
  std::function<void(const package::Conv2dLowering&)> on_conv2d;
};

struct StageTime {
  std::string stage;
  double seconds = 0.0;
};

struct CompileResult {
  ir::Graph graph;  // quantized, packed, partitioned
  HwConfig config;
  quantize::QuantizeResult quant;
  std::vector<double> sqnr_db;  // per quant.layers entry; empty when not measured
  partition::PartitionReport partition;
  std::vector<StageTime> times;
  int calibration_samples = 0;
  bool random_calibration = false;
  quantize::BiasCorrectionStats bias_correction;  // zeros when it did not run
  std::vector<std::string> packed_layers;         // convolutions first-layer packing rewrote

  double Seconds(const std::string& stage) const;
  // Everything but calibration and SQNR measurement.
  double CompileSecondsExcludingCalibration() const;
};

// Runs every stage up to and including partitioning.
// The config CompileModel compiles for: the board's, checked against --config when both are
// given; else --config; else 1x16x16. (`loom compile --tuning-log` needs its hash up front.)
Status ResolveConfig(const CompileOptions& options, HwConfig* config);

Status CompileModel(const CompileOptions& options, CompileResult* result);

// The per-layer report (--report FILE.json): quantization, SQNR, placement, offload, timings.
nlohmann::json CompileReportJson(const CompileOptions& options, const CompileResult& result);

// The package stage (write_package.cc): lowers the partitioned graph (compiler/package/lower.h:
// constants, arena plan, segments, accelerator programs, verifier) and writes
// options.output_path. `report` (may be null) receives the per-layer lowering.
Status WritePackage(const ir::Graph& graph, const HwConfig& config, const CompileOptions& options,
                    const CompileResult& result, package::LowerReport* report);

// The lowering report as JSON (the "package" section of --report) and as a table.
nlohmann::json LoweringJson(const package::LowerReport& report);
void PrintLowering(const package::LowerReport& report, const HwConfig& config, std::ostream& os);

}  // namespace loom::pipeline

#endif  // LOOM_COMPILER_PIPELINE_COMPILE_H_
