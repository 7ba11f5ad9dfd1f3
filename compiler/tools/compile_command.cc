// `loom compile MODEL.onnx -o OUT.loom ...`: runs the compiler driver, prints the per-layer
// quantization and placement tables, writes --report JSON, then hands the graph to the package
// writer hook (pipeline::WritePackage) when one is linked.
#include <fstream>
#include <iostream>
#include <memory>

#include "compiler/passes/pass.h"
#include "compiler/pipeline/compile.h"
#include "compiler/quantize/report.h"
#include "compiler/tools/input_shape_flag.h"
#include "compiler/tools/loom_commands.h"
#include "compiler/tune/tuning_log.h"

namespace loom::tools {
namespace {

struct CompileArgs {
  pipeline::CompileOptions options;
  std::string method = "mse";
  std::string bias_correction = "off";
  std::string activations = "asymmetric";
  std::string report;
  std::vector<std::string> input_shapes;
  std::vector<std::string> dump_after;
  std::string tuning_log;
  tensorize::ScheduleTable schedules;
};

// The flags that shape the package, for its provenance record.
std::string CommandLine(const CompileArgs& a) {
  const pipeline::CompileOptions& o = a.options;
  std::string s = "loom compile " + o.model_path + " -o " + o.output_path;
  if (!o.config.empty()) s += " --config " + o.config;
  if (!o.board.empty()) s += " --board " + o.board;
  for (const std::string& c : o.calibration) s += " --calibration " + c;
  s += " --calibration-method " + a.method;
  s += " --bias-correction " + a.bias_correction;
  s += " --activations " + a.activations;
  for (const std::string& i : a.input_shapes) s += " --input-shape " + i;
  if (o.partition_cost) s += " --partition-cost";
  if (!o.fuse_pool) s += " --no-fuse-pool";
  if (!a.tuning_log.empty()) s += " --tuning-log " + a.tuning_log;
  if (!o.first_layer_packing) s += " --no-first-layer-packing";
  if (o.first_layer_fold) s += " --first-layer-fold";
  s += " --cpu-targets " + o.cpu_targets;
  return s;
}

int RunCompile(CompileArgs& a) {
  pipeline::CompileOptions& o = a.options;
  o.command_line = CommandLine(a);
  o.bias_correction = a.bias_correction == "on";
  o.asymmetric_activations = a.activations == "asymmetric";
  if (!quantize::ParseCalibrationMethod(a.method, &o.method)) {
    std::cerr << "loom compile: --calibration-method must be minmax, percentile or mse\n";
    return 2;
  }
  for (const std::string& s : a.input_shapes) {
    if (Status st = ParseInputShape(s, 1, &o.input_shapes); !st.ok()) {
      std::cerr << "loom compile: " << st.message() << "\n";
      return 2;
    }
  }
  for (const std::string& d : a.dump_after) {
    const bool stage = d == "all" || d == "import" || d == "import-qdq" || d == "quantize" ||
                       d == "graph-pack" || d == "partition";
    if (!stage && passes::FindPass(d) == nullptr) {
      std::cerr << "loom compile: --dump-ir-after " << d
                << ": not a pass of the compile pipeline (see loom-opt --list-passes)\n";
      return 2;
    }
  }
  o.dump_ir_after.insert(a.dump_after.begin(), a.dump_after.end());
  o.log = &std::cerr;
  o.dump = &std::cerr;
  std::vector<tune::TuningRecord> records;  // a bad log fails before the pipeline runs
  if (!a.tuning_log.empty()) {
    if (Status st = tune::ReadTuningLog(a.tuning_log, &records); !st.ok()) {
      std::cerr << "loom compile: " << st.ToString() << "\n";
      return 1;
    }
  }
  if (!a.tuning_log.empty()) {
    // The config hash selects the records; the table is needed from first-layer packing on.
    HwConfig config;
    if (Status st = pipeline::ResolveConfig(o, &config); !st.ok()) {
      std::cerr << "loom compile: " << st.ToString() << "\n";
      return 1;
    }
    size_t other = 0;
    a.schedules = tune::BestSchedules(records, config.HashHex(), &other);
    std::cerr << "tuning log " << a.tuning_log << ": " << a.schedules.conv2d.size()
              << " tuned layer signatures, " << a.schedules.unpacked.size()
              << " layers left unpacked, " << a.schedules.folded.size() << " folded, "
              << a.schedules.layer_barriers.size() << " layer barriers for config " << config.name;
    if (other) std::cerr << " (" << other << " records for other configs ignored)";
    std::cerr << "\n";
    o.schedules = &a.schedules;
  }
  pipeline::CompileResult r;
  if (Status st = pipeline::CompileModel(o, &r); !st.ok()) {
    std::cerr << "loom compile: " << st.ToString() << "\n";
    return 1;
  }
  std::cout << "quantization (" << quantize::CalibrationMethodName(o.method) << ", "
            << r.calibration_samples << (r.random_calibration ? " random" : "")
            << " calibration samples";
  if (o.bias_correction) {
    char line[96];
    std::snprintf(line, sizeof line, ", bias correction on %lld layers, mean |shift| %.3g",
                  static_cast<long long>(r.bias_correction.layers),
                  r.bias_correction.mean_abs_shift);
    std::cout << line;
  }
  std::cout << "):\n";
  quantize::PrintLayerTable(r.quant, r.sqnr_db, std::cout);
  std::cout << "\nplacement (config " << r.config.name << "):\n";
  partition::PrintReport(r.partition, std::cout);
  std::printf("compile time %.3f s (calibration %.3f s, SQNR %.3f s not included)\n",
              r.CompileSecondsExcludingCalibration(), r.Seconds("calibration"), r.Seconds("sqnr"));
  std::fflush(stdout);
  package::LowerReport lowering;
  if (Status st = pipeline::WritePackage(r.graph, r.config, o, r, &lowering); !st.ok()) {
    std::cerr << "loom compile: " << st.ToString() << "\n";
    return 1;
  }
  std::cout << "\naccelerator schedule:\n";
  pipeline::PrintLowering(lowering, r.config, std::cout);
  if (!a.report.empty()) {
    nlohmann::json report = pipeline::CompileReportJson(o, r);
    report["package"] = pipeline::LoweringJson(lowering);
    std::ofstream out(a.report);
    out << report.dump(2) << "\n";
    if (!out) {
      std::cerr << "loom compile: cannot write " << a.report << "\n";
      return 1;
    }
  }
  std::cerr << "wrote " << o.output_path << "\n";
  return 0;
}

}  // namespace

void AddCompileCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App* c = app.add_subcommand("compile", "compile an ONNX model into a Loom package");
  c->add_option("model", args->options.model_path, "model.onnx")->required();
  c->add_option("-o,--output", args->options.output_path, "the package to write (OUT.loom)")
      ->required();
  c->add_option("--config", args->options.config, "HwConfig name or path (default 1x16x16)");
  c->add_option("--board", args->options.board, "board name or path (gives the config)");
  c->add_option(
      "--calibration", args->options.calibration,
      "calibration samples: FILE.npy, or NAME=FILE.npy per input (N samples on axis 0, each "
      "of its input's element type: float32, int64, bool, ...)");
  c->add_option("--calibration-method", args->method,
                "mse (default: the range of least squared error on the grid each activation gets), "
                "percentile or minmax");
  c->add_option("--percentile", args->options.percentile,
                "percentile of |x| for --calibration-method percentile (default 99.99)");
  c->add_option("--bias-correction", args->bias_correction,
                "on or off (default): shift each convolution's int32 bias by the mean error its "
                "int8 output shows on the calibration samples (docs/quantization.md)")
      ->check(CLI::IsMember({"on", "off"}));
  c->add_option("--activations", args->activations,
                "asymmetric (default): a zero point per activation tensor where every op that "
                "makes or reads it takes one (a ReLU output gets all 256 levels); symmetric: "
                "zero point 0 everywhere, as packages before schema 1.10 (docs/quantization.md)")
      ->check(CLI::IsMember({"asymmetric", "symmetric"}));
  c->add_option("--report", args->report, "write the per-layer report as JSON");
  c->add_option("--dump-ir-after", args->dump_after,
                "print the IR to stderr after a pass (import, import-qdq, a graph pass, "
                "quantize, graph-pack, partition, or all)");
  c->add_option("--input-shape", args->input_shapes, "fix an input's shape: NAME=1x3x224x224");
  c->add_flag("--partition-cost", args->options.partition_cost,
              "move accelerator segments that do not pay for their launch and transfers to the "
              "CPU (BYOC-style cost; the placement table gives each one's estimate)");
  c->add_option("--tuning-log", args->tuning_log,
                "apply the fastest schedule per layer from a loom tune log (JSON lines); layers "
                "it lacks, or records for another config, take the built-in search");
  c->add_option(
      "--cpu-targets", args->options.cpu_targets,
      "compile the CPU ops to native code for these targets: x86_64, aarch64, armv7, "
      "each optionally :CPU (x86_64:cascadelake); host (this machine's widest CPU), or none "
      "(default)");
  c->add_flag(
      "--no-fuse-pool", [args](int64_t) { args->options.fuse_pool = false; },
      "store each convolution's output and max-pool it as a layer of its own, instead of "
      "pooling inside the convolution's program (for A/B measurement)");
  c->add_flag(
      "--no-first-layer-packing", [args](int64_t) { args->options.first_layer_packing = false; },
      "keep convolutions over few input channels unpacked (no space-to-depth, no width im2col)");
  c->add_flag("--first-layer-fold", args->options.first_layer_fold,
              "fold the packed first layer's kernel rows into the channels too where that saves "
              "GEMM steps (fewer accelerator cycles; the host writes more bytes)");
  c->add_flag("--no-sqnr", [args](int64_t) { args->options.measure_sqnr = false; },
              "skip the per-layer SQNR measurement");
  c->callback([args, exit_code]() { *exit_code = RunCompile(*args); });
}

}  // namespace loom::tools
