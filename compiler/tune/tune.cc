#include "compiler/tune/tune.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>

#include "compiler/package/lower.h"
#include "compiler/tune/cost_model.h"
#include "compiler/tune/measure.h"
#include "compiler/tune/search.h"
#include "compiler/tune/tuning_log.h"

namespace loom::tune {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Task {
  TunedLayer report;
  tensorize::Conv2dLayer layer;
  // What one trial costs the simulator, relative to the other layers: its built-in cycles (for the
  // ETA; the first layers are often the largest, so a plain per-trial average overshoots).
  uint64_t work = 1;
};

// The model's distinct convolutions, in order of first appearance, with the built-in tilings.
Status CollectLayers(const TuneOptions& o, pipeline::CompileResult* r, std::vector<Task>* out) {
  pipeline::CompileOptions co = o.compile;
  co.measure_sqnr = false;
  LOOM_RETURN_IF_ERROR(pipeline::CompileModel(co, r));
  std::map<std::string, size_t> index;
  package::LowerOptions lo;
  lo.fuse_pool = co.fuse_pool;  // a fused conv is not a layer to tune alone (lower.h)
  lo.on_conv2d = [&](const package::Conv2dLowering& conv) {
    auto [it, added] = index.emplace(conv.signature, out->size());
    if (added) {
      Task t;
      t.layer = conv.layer;
      t.report.signature = conv.signature;
      t.report.name = conv.name;
      t.report.builtin = conv.choice.tiling;
      t.work = std::max<uint64_t>(1, conv.choice.cycles);
      out->push_back(std::move(t));
    }
    ++(*out)[it->second].report.count;
  };
  package::PackageSpec spec;
  package::LowerReport lowering;
  return package::LowerToPackage(r->graph, r->config, lo, &spec, &lowering);
}

std::string Eta(double seconds) {
  char s[32];
  if (seconds >= 60) {
    std::snprintf(s, sizeof s, "%dm%02ds", static_cast<int>(seconds) / 60,
                  static_cast<int>(seconds) % 60);
  } else {
    std::snprintf(s, sizeof s, "%.0fs", seconds);
  }
  return s;
}

}  // namespace

Status TuneModel(const TuneOptions& o, TuneReport* report) {
  const Clock::time_point start = Clock::now();
  if (o.log_path.empty())
    return InvalidArgument("loom tune needs a log file to write (-o LOG.json)");
  if (o.trials == 0) return InvalidArgument("--trials must be at least 1 (the built-in tiling)");
  pipeline::CompileResult compiled;
  std::vector<Task> tasks;
  LOOM_RETURN_IF_ERROR(CollectLayers(o, &compiled, &tasks));
  const HwConfig& config = compiled.config;
  std::unique_ptr<Measurer> measurer;
  LOOM_RETURN_IF_ERROR(CreateMeasurer(o.device, config, o.wall_timeout_ms, &measurer));
  std::ofstream log(o.log_path, std::ios::trunc);
  if (!log) return NotFound("cannot write tuning log " + o.log_path);

  TuneReport rep;
  rep.config = config.name;
  rep.config_hash = config.HashHex();
  rep.device = measurer->device();
  auto write = [&](const std::string& kind, const std::string& sig,
                   const tensorize::Conv2dTiling& t, uint64_t cycles, uint64_t builtin) {
    TuningRecord r;
    r.kind = kind;
    r.signature = sig;
    r.config = rep.config;
    r.config_hash = rep.config_hash;
    r.tiling = t;
    r.cycles = cycles;
    r.device = rep.device;
    r.builtin_cycles = builtin;
    log << FormatRecord(r) << "\n" << std::flush;
  };
  if (o.progress) {
    *o.progress << "tune: " << tasks.size() << " distinct convolutions on " << rep.device
                << " (config " << rep.config << "), up to " << o.trials << " trials each\n";
  }
  double weighted_rho = 0;
  const Clock::time_point tuning = Clock::now();
  double work_total = 0, work_done = 0;
  for (const Task& t : tasks) work_total += double(t.work) * o.trials;
  for (size_t i = 0; i < tasks.size(); ++i) {
    Task& task = tasks[i];
    SearchOptions so;
    so.trials = o.trials;
    so.seed = o.seed + static_cast<uint32_t>(i);
    if (o.seconds > 0) {
      // What is left of the budget, shared by work: a trial costs the simulator about what the
      // layer costs the device, so every layer gets about the same number of trials.
      const double left = std::max(0.0, o.seconds - Since(start));
      double work_left = 0;
      for (size_t j = i; j < tasks.size(); ++j) work_left += double(tasks[j].work);
      so.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(left * task.work / work_left));
    }
    so.on_measured = [&](const tensorize::Conv2dTiling& t, uint64_t cycles) {
      // The first measurement is the built-in tiling's: the progress lines show it.
      if (task.report.builtin_cycles == 0) task.report.builtin_cycles = cycles;
      write("measured", task.report.signature, t, cycles, 0);
    };
    so.on_batch = [&](uint32_t trials, uint64_t best) {
      if (!o.progress) return;
      const double done = work_done + double(task.work) * trials;
      double eta = Since(tuning) / done * std::max(0.0, work_total - done);
      if (o.seconds > 0) eta = std::min(eta, std::max(0.0, o.seconds - Since(start)));
      char line[256];
      std::snprintf(line, sizeof line,
                    "tune [%zu/%zu] %-24.24s trials %3u/%u  best %10llu cycles (built-in %llu)  "
                    "ETA %s\n",
                    i + 1, tasks.size(), task.report.name.c_str(), trials, o.trials,
                    static_cast<unsigned long long>(best),
                    static_cast<unsigned long long>(task.report.builtin_cycles), Eta(eta).c_str());
      *o.progress << line << std::flush;
    };
    SearchResult sr;
    LOOM_RETURN_IF_ERROR(
        SearchLayer(config, task.layer, task.report.builtin, measurer.get(), so, &sr));
    TunedLayer& t = task.report;
    t.best = sr.best;
    t.best_cycles = sr.best_cycles;
    t.builtin_cycles = sr.builtin_cycles;
    t.trials = sr.trials;
    t.failed = sr.failed;
    t.space = sr.space;
    t.ranked = static_cast<uint32_t>(sr.predicted.size());
    t.spearman = SpearmanCorrelation(sr.predicted, sr.measured);
    work_done += double(task.work) * o.trials;  // a layer cut short by time counts as done
    write("best", t.signature, t.best, t.best_cycles, t.builtin_cycles);
    rep.builtin_cycles += t.ModelCycles(t.builtin_cycles);
    rep.best_cycles += t.ModelCycles(t.best_cycles);
    if (t.ranked >= 4) {
      weighted_rho += t.spearman * t.ranked;
      rep.ranked += t.ranked;
    }
    rep.trials += t.trials;
    rep.layers.push_back(t);
  }
  rep.spearman = rep.ranked ? weighted_rho / rep.ranked : 0;
  if (o.knobs) {
    tensorize::ScheduleTable table;
    for (const TunedLayer& t : rep.layers) table.conv2d[t.signature] = t.best;
    auto log_knob = [&](TuningRecord r) {
      r.config = rep.config;
      r.config_hash = rep.config_hash;
      r.device = "fsim";  // the whole model on the timing model, whatever measured the tilings
      log << FormatRecord(r) << "\n" << std::flush;
    };
    LOOM_RETURN_IF_ERROR(TuneKnobs(o.compile, &table, log_knob, o.progress, &rep.knobs));
    rep.knobs_tuned = true;
  }
  rep.seconds = Since(start);
  if (!log) return NotFound("cannot write tuning log " + o.log_path);
  *report = std::move(rep);
  return Status::Ok();
}

void PrintTuneReport(const TuneReport& r, std::ostream& os) {
  char line[320];
  std::snprintf(line, sizeof line, "%-24s %4s %-28s %-28s %12s %12s %7s %6s %6s\n", "layer", "uses",
                "built-in tiling", "tuned tiling", "built-in cyc", "tuned cyc", "speedup", "trials",
                "rho");
  os << line;
  for (const TunedLayer& l : r.layers) {
    char rho[16] = "     -";  // too few proposals measured to rank
    if (l.ranked >= 4) std::snprintf(rho, sizeof rho, "%6.2f", l.spearman);
    std::snprintf(line, sizeof line, "%-24.24s %4u %-28s %-28s %12llu %12llu %6.2fx %6u %s\n",
                  l.name.c_str(), l.count, l.builtin.ToString().c_str(), l.best.ToString().c_str(),
                  static_cast<unsigned long long>(l.builtin_cycles),
                  static_cast<unsigned long long>(l.best_cycles),
                  l.best_cycles ? double(l.builtin_cycles) / double(l.best_cycles) : 0.0, l.trials,
                  rho);
    os << line;
  }
  std::snprintf(
      line, sizeof line,
      "convolutions in the model (each layer x its uses): built-in %llu cycles, tuned %llu "
      "cycles (%.3fx) on %s, config %s\n",
      static_cast<unsigned long long>(r.builtin_cycles),
      static_cast<unsigned long long>(r.best_cycles),
      r.best_cycles ? double(r.builtin_cycles) / double(r.best_cycles) : 0.0, r.device.c_str(),
      r.config.c_str());
  os << line;
  if (r.knobs_tuned) {
    for (const KnobChoice& k : r.knobs.knobs) {
      std::snprintf(line, sizeof line, "%-8s %-40.40s default %12llu  flipped %12llu  -> %s\n",
                    k.kind.c_str(), k.layer.c_str(),
                    static_cast<unsigned long long>(k.default_cycles),
                    static_cast<unsigned long long>(k.flipped_cycles), k.value.c_str());
      os << line;
    }
    std::snprintf(line, sizeof line,
                  "model knobs (%zu: first-layer packing, barriers; whole model on the fsim timing "
                  "model with the tuned tilings): %llu -> %llu cycles\n",
                  r.knobs.knobs.size(), static_cast<unsigned long long>(r.knobs.before),
                  static_cast<unsigned long long>(r.knobs.after));
    os << line;
  }
  std::snprintf(line, sizeof line,
                "%u trials in %.1f s; cost model rank correlation (Spearman, predicted before "
                "measuring vs measured) %.3f over %u candidates\n",
                r.trials, r.seconds, r.spearman, r.ranked);
  os << line;
}

}  // namespace loom::tune
