#include "compiler/pipeline/compile.h"

#include <chrono>

#include "compiler/frontend/onnx_import.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/pack/pack.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/quantize/report.h"
#include "runtime/config/config_file.h"

namespace loom::pipeline {
namespace {

class Timer {
 public:
  Timer(CompileResult* r, std::string stage)
      : r_(r), stage_(std::move(stage)), start_(std::chrono::steady_clock::now()) {}
  ~Timer() {
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
    r_->times.push_back({stage_, d.count()});
  }

 private:
  CompileResult* r_;
  std::string stage_;
  std::chrono::steady_clock::time_point start_;
};

void MaybeDump(const CompileOptions& o, const std::string& stage, const ir::Graph& g) {
  if (!o.dump || !(o.dump_ir_after.count(stage) || o.dump_ir_after.count("all"))) return;
  *o.dump << "// ----- IR after " << stage << "\n";
  ir::PrintGraph(g, *o.dump);
}

}  // namespace

Status ResolveConfig(const CompileOptions& o, HwConfig* config) {
  if (!o.board.empty()) {
    Board board;
    LOOM_RETURN_IF_ERROR(LoadBoard(o.board, &board));
    LOOM_RETURN_IF_ERROR(LoadBoardConfig(board, config));
    if (!o.config.empty()) {
      HwConfig explicit_config;
      LOOM_RETURN_IF_ERROR(LoadHwConfig(o.config, &explicit_config));
      if (explicit_config.name != config->name) {
        return InvalidArgument("--config " + o.config + " does not match board " + board.name +
                               ", which uses config " + config->name);
      }
    }
    return Status::Ok();
  }
  return LoadHwConfig(o.config.empty() ? "1x16x16" : o.config, config);
}

double CompileResult::Seconds(const std::string& stage) const {
  double s = 0.0;
  for (const StageTime& t : times) s += t.stage == stage ? t.seconds : 0.0;
  return s;
}

double CompileResult::CompileSecondsExcludingCalibration() const {
  double s = 0.0;
  for (const StageTime& t : times) {
    if (t.stage != "calibration" && t.stage != "sqnr") s += t.seconds;
  }
  return s;
}

Status CompileModel(const CompileOptions& o, CompileResult* r) {
  LOOM_RETURN_IF_ERROR(ResolveConfig(o, &r->config));
  kernels::q::Blocking blocking;
  LOOM_RETURN_IF_ERROR(pack::BlockingFor(r->config, &blocking));
  ir::Graph& g = r->graph;
  {
    Timer t(r, "import");
    frontend::ImportOptions import;
    import.input_shapes = o.input_shapes;
    import.constant_inputs = o.constant_inputs;
    LOOM_RETURN_IF_ERROR(frontend::ImportOnnxFile(o.model_path, import, &g));
  }
  MaybeDump(o, "import", g);
  {
    Timer t(r, "import-qdq");
    std::vector<std::string> warnings;
    LOOM_RETURN_IF_ERROR(quantize::ImportPrequantized(g, &warnings));
    for (const std::string& w : warnings) {
      r->quant.warnings.push_back(w);
      if (o.log) *o.log << "warning: " << w << "\n";
    }
    LOOM_RETURN_IF_ERROR(ir::Verify(g).WithContext("after import-qdq"));
  }
  MaybeDump(o, "import-qdq", g);
  {
    Timer t(r, "passes");
    passes::PipelineOptions p;
    p.dump_after = o.dump_ir_after;
    p.dump_stream = o.dump;
    if (!o.dump) p.dump_after.clear();
    LOOM_RETURN_IF_ERROR(passes::RunPipeline(passes::DefaultPipeline(), &g, p));
  }
  std::vector<quantize::Sample> samples;
  quantize::Ranges ranges;
  quantize::Extents extents;
  {
    Timer t(r, "calibration");
    if (!o.calibration_samples.empty()) {
      samples = o.calibration_samples;
    } else if (o.calibration.empty()) {
      r->random_calibration = true;
      if (o.log) {
        *o.log << "warning: no --calibration data: calibrating on " << o.random_samples
               << " random N(0,1) inputs; scales will be poor unless the model's inputs look "
                  "like that\n";
      }
      LOOM_RETURN_IF_ERROR(quantize::RandomCalibrationSet(g, o.random_samples, 0, &samples));
    } else {
      LOOM_RETURN_IF_ERROR(quantize::LoadCalibrationSet(g, o.calibration, &samples));
    }
    r->calibration_samples = static_cast<int>(samples.size());
    quantize::CalibrationOptions cal;
    cal.method = o.method;
    cal.percentile = o.percentile;
    cal.progress = o.log;
    if (o.progress) {
      cal.on_sample = [&o](size_t done, size_t total) { o.progress("calibration", done, total); };
    }
    LOOM_RETURN_IF_ERROR(quantize::CollectRanges(g, samples, cal, &ranges, &extents));
  }
  quantize::QuantizeOptions qo;
  if (o.asymmetric_activations) qo.extents = &extents;
  qo.block = r->config.block_in;
  qo.batch = r->config.batch;
  std::vector<passes::PackedValue> moved;
  if (o.first_layer_packing) {
    // After calibration: the packed input holds the source's values (and zeros), so it takes the
    // source's range and the int8 results stay those of the unpacked graph.
    Timer t(r, "first-layer-packing");
    LOOM_RETURN_IF_ERROR(passes::PackFirstLayers(
        g, r->config.block_in, &moved, o.schedules ? &o.schedules->unpacked : nullptr,
        &r->packed_layers, /*im2col=*/true, o.first_layer_fold,
        o.schedules ? &o.schedules->folded : nullptr));
    for (const passes::PackedValue& m : moved) {
      const auto it = ranges.find(m.source);
      if (it != ranges.end()) ranges[m.value] = it->second;
      qo.symmetric.insert(m.value);  // QuantizePackedInputs needs zero point 0
    }
    LOOM_RETURN_IF_ERROR(ir::Verify(g).WithContext("after first-layer-packing"));
  }
  MaybeDump(o, "first-layer-packing", g);
  ir::Graph float_graph = o.measure_sqnr || o.bias_correction ? g.Clone() : ir::Graph();
  {
    Timer t(r, "quantize");
    LOOM_RETURN_IF_ERROR(quantize::QuantizeGraph(g, ranges, &r->quant, qo));
    LOOM_RETURN_IF_ERROR(ir::Verify(g).WithContext("after quantize"));
    for (const std::string& w : r->quant.warnings) {
      if (o.log) *o.log << "warning: " << w << "\n";
    }
  }
  if (o.bias_correction) {
    Timer t(r, "bias-correction");
    quantize::BiasCorrectionOptions bc;
    bc.progress = o.log;
    if (o.progress) {
      bc.on_layer = [&o](size_t done, size_t total) { o.progress("bias-correction", done, total); };
    }
    LOOM_RETURN_IF_ERROR(
        quantize::CorrectBiases(float_graph, g, samples, bc, r->quant, &r->bias_correction));
    LOOM_RETURN_IF_ERROR(ir::Verify(g).WithContext("after bias correction"));
  }
  MaybeDump(o, "quantize", g);
  if (o.measure_sqnr) {
    Timer t(r, "sqnr");
    LOOM_RETURN_IF_ERROR(quantize::MeasureSqnr(float_graph, g, samples, r->quant, &r->sqnr_db));
  }
  if (!moved.empty()) {
    Timer t(r, "packed-input-quantize");
    LOOM_RETURN_IF_ERROR(passes::QuantizePackedInputs(g, moved));
    LOOM_RETURN_IF_ERROR(ir::Verify(g).WithContext("after quantizing packed inputs"));
  }
  {
    Timer t(r, "graph-pack");
    LOOM_RETURN_IF_ERROR(pack::PackGraph(g, r->config));
    LOOM_RETURN_IF_ERROR(ir::Verify(g).WithContext("after graph-pack"));
  }
  MaybeDump(o, "graph-pack", g);
  {
    Timer t(r, "partition");
    partition::PartitionOptions po;
    po.segment_cost = o.partition_cost;
    LOOM_RETURN_IF_ERROR(partition::PartitionGraph(g, r->config, po, &r->partition));
    LOOM_RETURN_IF_ERROR(ir::Verify(g).WithContext("after partition"));
  }
  MaybeDump(o, "partition", g);
  return Status::Ok();
}

nlohmann::json CompileReportJson(const CompileOptions& o, const CompileResult& r) {
  nlohmann::json j;
  j["model"] = o.model_path;
  j["config"] = r.config.name;
  j["calibration"] = {{"method", quantize::CalibrationMethodName(o.method)},
                      {"percentile", o.percentile},
                      {"samples", r.calibration_samples},
                      {"random_inputs", r.random_calibration},
                      {"bias_correction", o.bias_correction}};
  if (o.bias_correction) {
    j["bias_correction"] = {{"layers", r.bias_correction.layers},
                            {"skipped", r.bias_correction.skipped},
                            {"channels", r.bias_correction.channels},
                            {"clamped", r.bias_correction.clamped},
                            {"mean_abs_shift", r.bias_correction.mean_abs_shift}};
  }
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < r.quant.layers.size(); ++i) {
    layers.push_back(quantize::LayerToJson(r.quant.layers[i],
                                           i < r.sqnr_db.size() ? r.sqnr_db[i] : std::nan("")));
  }
  j["layers"] = std::move(layers);
  j["float_ops"] = r.quant.float_ops;
  j["warnings"] = r.quant.warnings;
  j["partition"] = partition::ReportToJson(r.partition);
  nlohmann::json times = nlohmann::json::object();
  for (const StageTime& t : r.times) times[t.stage] = t.seconds;
  j["seconds"] = std::move(times);
  return j;
}

}  // namespace loom::pipeline
