// loom._native.compile: the `loom compile` pipeline (compiler/pipeline) from Python. The Python
// side writes model bytes and calibration arrays to files first, so that this runs exactly what
// the command line runs, with the same checks and messages.
#include "compiler/pipeline/compile.h"

#include <pybind11/stl.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "python/src/native.h"

namespace loom::python {
namespace {

struct CompileArgs {
  std::string model_path, output_path, config, board, method, command_line;
  std::vector<std::string> calibration;  // FILE.npy or NAME=FILE.npy
  std::map<std::string, std::vector<int64_t>> input_shapes;
  double percentile = quantize::kDefaultPercentile;
  bool measure_sqnr = true, bias_correction = false, asymmetric = true, report = false,
       verbose = false;
};

// Returns the compile report as JSON text when args.report, else "".
std::string Compile(const CompileArgs& a, py::object progress) {
  pipeline::CompileOptions o;
  o.model_path = a.model_path;
  o.output_path = a.output_path;
  o.config = a.config;
  o.board = a.board;
  o.calibration = a.calibration;
  o.input_shapes = a.input_shapes;
  o.percentile = a.percentile;
  o.measure_sqnr = a.measure_sqnr;
  o.bias_correction = a.bias_correction;
  o.asymmetric_activations = a.asymmetric;
  o.command_line = a.command_line;
  if (!quantize::ParseCalibrationMethod(a.method, &o.method)) {
    Raise(
        InvalidArgument("calibration_method must be \"minmax\", \"percentile\" or \"mse\", not \"" +
                        a.method + "\""));
  }
  if (a.verbose) o.log = &std::cerr;
  Callback callback(std::move(progress));
  if (callback.enabled()) {
    o.progress = [&callback](const std::string& stage, size_t done, size_t total) {
      callback(stage, done, total);
    };
  }
  pipeline::CompileResult result;
  package::LowerReport lowering;
  CallWithoutGil([&] {
    LOOM_RETURN_IF_ERROR(pipeline::CompileModel(o, &result));
    return pipeline::WritePackage(result.graph, result.config, o, result, &lowering);
  });
  callback.Rethrow();
  if (!a.report) return "";
  nlohmann::json report = pipeline::CompileReportJson(o, result);
  report["package"] = pipeline::LoweringJson(lowering);
  return report.dump();
}

}  // namespace

void AddCompile(py::module_& m) {
  m.def(
      "compile",
      [](std::string model_path, std::string output_path, std::string config, std::string board,
         std::vector<std::string> calibration,
         std::map<std::string, std::vector<int64_t>> input_shapes, std::string method,
         double percentile, bool measure_sqnr, bool bias_correction, bool asymmetric, bool report,
         bool verbose, std::string command_line, py::object progress) {
        CompileArgs a;
        a.model_path = std::move(model_path);
        a.output_path = std::move(output_path);
        a.config = std::move(config);
        a.board = std::move(board);
        a.calibration = std::move(calibration);
        a.input_shapes = std::move(input_shapes);
        a.method = std::move(method);
        a.percentile = percentile;
        a.measure_sqnr = measure_sqnr;
        a.bias_correction = bias_correction;
        a.asymmetric = asymmetric;
        a.report = report;
        a.verbose = verbose;
        a.command_line = std::move(command_line);
        return Compile(a, std::move(progress));
      },
      py::arg("model_path"), py::arg("output_path"), py::arg("config"), py::arg("board"),
      py::arg("calibration"), py::arg("input_shapes"), py::arg("method"), py::arg("percentile"),
      py::arg("measure_sqnr"), py::arg("bias_correction"), py::arg("asymmetric"), py::arg("report"),
      py::arg("verbose"), py::arg("command_line"), py::arg("progress"),
      "Compiles model_path into the package output_path; returns the report JSON or \"\".");
}

}  // namespace loom::python
