// The last stage of `loom compile`: lower the partitioned graph (compiler/package/lower.h) and
// write the package file (compiler/package/writer.h), which the writer loads back with the
// runtime's loader before anything reaches the disk.
#include <cstdio>
#include <ostream>

#include "compiler/codegen/codegen.h"
#include "compiler/package/lower.h"
#include "compiler/package/writer.h"
#include "compiler/pipeline/compile.h"

#ifndef LOOM_VERSION
#define LOOM_VERSION "0.1.0"
#endif

namespace loom::pipeline {

namespace {

Status LowerModel(const ir::Graph& graph, const HwConfig& config, const CompileOptions& options,
                  package::PackageSpec* spec, package::LowerReport* report) {
  package::LowerOptions lo;
  lo.board = options.board;
  const std::string& path = options.model_path;
  lo.provenance.model_name = path.substr(path.find_last_of('/') + 1);
  lo.provenance.compiler_version = LOOM_VERSION;
  lo.provenance.command_line = options.command_line;
  if (!path.empty()) LOOM_RETURN_IF_ERROR(package::HashFile(path, &lo.provenance.model_fnv1a));
  if (options.log || options.progress) {
    lo.progress = [&options](size_t done, size_t total, const std::string& layer) {
      if (options.log) {
        *options.log << "tensorize [" << done << "/" << total << "] " << layer << "\n"
                     << std::flush;
      }
      if (options.progress) options.progress("tensorize", done, total);
    };
  }
  lo.schedules = options.schedules;
  lo.on_conv2d = options.on_conv2d;
  lo.fuse_pool = options.fuse_pool;
  return package::LowerToPackage(graph, config, lo, spec, report);
}

// Native code for every target in options.cpu_targets (codegen::AddNativeCode).
Status AddNativeCode(const CompileOptions& options, package::PackageSpec* spec) {
  std::vector<codegen::CpuTarget> targets;
  LOOM_RETURN_IF_ERROR(codegen::ParseCpuTargets(options.cpu_targets, &targets));
  codegen::CodegenOptions co;
  if (options.progress) {
    co.progress = [&](size_t done, size_t total) { options.progress("codegen", done, total); };
  }
  co.done = [&](const codegen::CpuTarget& t, const package::NativeCodeSpec& code, double s) {
    if (!options.log) return;
    char line[160];
    std::snprintf(line, sizeof(line), "codegen: %s (%s): %zu ops, %zu-byte object, %.2f s\n",
                  t.name.c_str(), t.cpu.c_str(), code.symbols.size(), code.object.size(), s);
    *options.log << line << std::flush;
  };
  return codegen::AddNativeCode(targets, co, spec);
}

}  // namespace

Status WritePackage(const ir::Graph& graph, const HwConfig& config, const CompileOptions& options,
                    const CompileResult& result, package::LowerReport* report) {
  (void)result;
  package::PackageSpec spec;
  package::LowerReport local;
  package::LowerReport& rep = report ? *report : local;
  LOOM_RETURN_IF_ERROR(LowerModel(graph, config, options, &spec, &rep));
  LOOM_RETURN_IF_ERROR(AddNativeCode(options, &spec));
  LOOM_RETURN_IF_ERROR(package::WritePackage(spec, options.output_path));
  if (options.log) {
    size_t accel = 0;
    for (const auto& s : spec.segments) accel += s.kind == package::SegmentKind::Accel;
    *options.log << "package: " << spec.segments.size() << " segments (" << accel
                 << " on the accelerator), " << rep.insns << " instructions, " << rep.uops
                 << " micro-ops, arena " << rep.arena_bytes << " bytes, constants "
                 << rep.constants_bytes << " bytes\n";
  }
  return Status::Ok();
}

nlohmann::json LoweringJson(const package::LowerReport& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : r.layers) {
    nlohmann::json j = {{"name", l.name},
                        {"op", l.op},
                        {"segment", l.segment},
                        {"target", l.accel ? "accel" : "cpu"},
                        {"macs", l.macs}};
    if (l.accel) {
      j["schedule"] = l.tiling;
      if (l.tuned) j["tuned"] = true;
      if (!l.fused_with.empty()) j["fused_with"] = l.fused_with;
      if (l.est_cycles) {
        j["est_cycles"] = l.est_cycles;
        j["est_gemm_utilization"] = l.utilization;
      }
    }
    layers.push_back(std::move(j));
  }
  return {{"arena_bytes", r.arena_bytes},
          {"constants_bytes", r.constants_bytes},
          {"instructions", r.insns},
          {"micro_ops", r.uops},
          {"layers", std::move(layers)}};
}

void PrintLowering(const package::LowerReport& r, const HwConfig& config, std::ostream& os) {
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %-12s %-8s %-30s %12s %6s\n", "layer", "op", "segment",
                "schedule", "est. cycles", "util");
  os << line;
  size_t tuned = 0;
  for (const auto& l : r.layers) {
    if (!l.accel) continue;
    tuned += l.tuned;
    const std::string schedule = l.tuned               ? l.tiling + " *"
                                 : l.tiling == "fused" ? "fused into " + l.fused_with
                                                       : l.tiling;
    std::snprintf(line, sizeof line, "%-28.28s %-12s %-8s %-30s %12llu %5.1f%%\n", l.name.c_str(),
                  l.op.c_str(), l.segment.c_str(), schedule.c_str(),
                  static_cast<unsigned long long>(l.est_cycles), 100.0 * l.utilization);
    os << line;
  }
  std::snprintf(line, sizeof line,
                "arena %llu bytes, constants %llu bytes, %llu instructions, %llu micro-ops "
                "(est. cycles: conv layers alone on %s's timing model)\n",
                static_cast<unsigned long long>(r.arena_bytes),
                static_cast<unsigned long long>(r.constants_bytes),
                static_cast<unsigned long long>(r.insns), static_cast<unsigned long long>(r.uops),
                config.name.c_str());
  os << line;
  if (tuned) os << "* " << tuned << " layers scheduled from the tuning log\n";
}

}  // namespace loom::pipeline
