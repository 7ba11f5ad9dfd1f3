// `loom tune MODEL.onnx -o LOG.json ...`: searches each distinct convolution's schedule by
// measuring candidates on a device (compiler/tune/tune.h) and writes the tuning log that
// `loom compile --tuning-log` applies. docs/tune.md.
#include <iostream>
#include <memory>

#include "compiler/tools/input_shape_flag.h"
#include "compiler/tools/loom_commands.h"
#include "compiler/tune/tune.h"

namespace loom::tools {
namespace {

struct TuneArgs {
  tune::TuneOptions options;
  std::string method = "mse";
  std::vector<std::string> input_shapes;
};

int RunTune(TuneArgs& a) {
  tune::TuneOptions& o = a.options;
  if (!o.compile.config.empty() && !o.compile.board.empty()) {
    std::cerr << "loom tune: give --board or --config, not both\n";
    return 2;
  }
  if (!quantize::ParseCalibrationMethod(a.method, &o.compile.method)) {
    std::cerr << "loom tune: --calibration-method must be minmax, percentile or mse\n";
    return 2;
  }
  for (const std::string& s : a.input_shapes) {
    if (Status st = ParseInputShape(s, 1, &o.compile.input_shapes); !st.ok()) {
      std::cerr << "loom tune: " << st.message() << "\n";
      return 2;
    }
  }
  o.compile.log = &std::cerr;
  o.progress = &std::cerr;
  tune::TuneReport report;
  if (Status st = tune::TuneModel(o, &report); !st.ok()) {
    std::cerr << "loom tune: " << st.ToString() << "\n";
    return 1;
  }
  tune::PrintTuneReport(report, std::cout);
  std::cerr << "wrote " << o.log_path << " (apply it with loom compile --tuning-log " << o.log_path
            << ")\n";
  return 0;
}

}  // namespace

void AddTuneCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<TuneArgs>();
  tune::TuneOptions& o = args->options;
  CLI::App* c = app.add_subcommand(
      "tune", "search each convolution's schedule on a device and write a tuning log");
  c->add_option("model", o.compile.model_path, "model.onnx")->required();
  c->add_option("-o,--output", o.log_path, "the tuning log to write (LOG.json, JSON lines)")
      ->required();
  c->add_option("--config", o.compile.config, "HwConfig name or path (default 1x16x16)");
  c->add_option("--board", o.compile.board, "board name or path (gives the config)");
  c->add_option("--calibration", o.compile.calibration,
                "calibration samples, as for loom compile (use the same ones)");
  c->add_option("--calibration-method", args->method,
                "mse (default: the range of least squared error on the grid each activation gets), "
                "percentile or minmax");
  c->add_option("--input-shape", args->input_shapes, "fix an input's shape: NAME=1x3x224x224");
  c->add_option("--trials", o.trials, "measurements per distinct layer (default 64)");
  c->add_option("--seconds", o.seconds,
                "time budget for the whole run, shared over the layers (default: none)");
  c->add_option("--device", o.device,
                "where candidates are measured: fsim (timing model, default), a runtime driver "
                "such as tsim, or remote://HOST:PORT[/DEVICE] (loom-run serve)");
  c->add_option("--seed", o.seed, "random seed of the search (default 1)");
  c->add_flag_function(
      "--no-knobs", [args](int64_t) { args->options.knobs = false; },
      "tune only the tilings, not first-layer packing and barrier placement");
  c->callback([args, exit_code]() { *exit_code = RunTune(*args); });
}

}  // namespace loom::tools
