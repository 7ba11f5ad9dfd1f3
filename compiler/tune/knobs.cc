#include "compiler/tune/knobs.h"

#include "compiler/package/lower.h"
#include "compiler/tensorize/conv2d.h"

namespace loom::tune {
namespace {

Status Compile(const pipeline::CompileOptions& options, const tensorize::ScheduleTable& table,
               pipeline::CompileResult* out) {
  pipeline::CompileOptions co = options;
  co.measure_sqnr = false;
  co.log = nullptr;  // the first compile already printed the warnings
  co.progress = nullptr;
  co.schedules = &table;
  return pipeline::CompileModel(co, out);
}

}  // namespace

Status ModelCycles(const pipeline::CompileOptions& options, const tensorize::ScheduleTable& table,
                   const pipeline::CompileResult* compiled, uint64_t* cycles,
                   std::vector<std::string>* buffer_barriers, std::vector<std::string>* packed) {
  pipeline::CompileResult own;
  if (compiled == nullptr) {
    LOOM_RETURN_IF_ERROR(Compile(options, table, &own));
    compiled = &own;
  }
  package::LowerOptions lo;
  lo.schedules = &table;
  lo.fuse_pool = options.fuse_pool;
  package::PackageSpec spec;
  package::LowerReport lowering;
  LOOM_RETURN_IF_ERROR(
      package::LowerToPackage(compiled->graph, compiled->config, lo, &spec, &lowering));
  uint64_t total = 0;
  for (const package::SegmentSpec& seg : spec.segments) {
    if (!seg.has_program) continue;
    tensorize::AccelCode code;
    code.insns = seg.program.insns;
    code.regions = seg.program.regions;
    uint64_t c = 0;
    LOOM_RETURN_IF_ERROR(
        tensorize::TimeCode(compiled->config, code, &c).WithContext("segment " + seg.name));
    total += c;
  }
  *cycles = total;
  if (buffer_barriers) {
    buffer_barriers->clear();
    for (const package::LayerLowering& l : lowering.layers) {
      if (l.barrier == "buffer") buffer_barriers->push_back(l.name);
    }
  }
  if (packed) *packed = compiled->packed_layers;
  return Status::Ok();
}

Status TuneKnobs(const pipeline::CompileOptions& options, tensorize::ScheduleTable* table,
                 const std::function<void(TuningRecord)>& log, std::ostream* progress,
                 KnobReport* report) {
  KnobReport rep;
  pipeline::CompileResult base;
  LOOM_RETURN_IF_ERROR(Compile(options, *table, &base));
  uint64_t current = 0;
  std::vector<std::string> barriers, packed;
  LOOM_RETURN_IF_ERROR(ModelCycles(options, *table, &base, &current, &barriers, &packed));
  rep.before = current;
  size_t done = 0;
  // Each packed layer: off, then fold if it stays packed; each barrier candidate.
  size_t total = packed.size() * (options.first_layer_fold ? 1 : 2) + barriers.size();
  // Measures `table` with one knob flipped; keeps the flip when the model gets faster.
  auto flip = [&](const std::string& kind, const std::string& layer, const char* keep,
                  const char* flipped, bool recompile,
                  const std::function<void(tensorize::ScheduleTable*)>& apply) -> Status {
    tensorize::ScheduleTable candidate = *table;
    apply(&candidate);
    uint64_t cycles = 0;
    LOOM_RETURN_IF_ERROR(ModelCycles(options, candidate, recompile ? nullptr : &base, &cycles));
    auto record = [&](const char* value, uint64_t c) {
      TuningRecord r;
      r.kind = kind;
      r.layer = layer;
      r.value = value;
      r.cycles = c;
      log(r);
    };
    record(keep, current);
    record(flipped, cycles);
    KnobChoice k{kind, layer, keep, current, cycles};
    if (cycles < current) {
      k.value = flipped;
      *table = std::move(candidate);
      current = cycles;
    }
    if (progress) {
      *progress << "tune knobs [" << ++done << "/" << total << "] " << kind << " " << layer << ": "
                << keep << " " << k.default_cycles << " cycles, " << flipped << " " << cycles
                << " -> " << k.value << "\n"
                << std::flush;
    }
    rep.knobs.push_back(std::move(k));
    return Status::Ok();
  };
  for (const std::string& p : packed) {
    LOOM_RETURN_IF_ERROR(flip("packing", p, "on", "off", true,
                              [&](tensorize::ScheduleTable* t) { t->unpacked.insert(p); }));
    // Kept packed: also with the row fold (more host bytes, fewer GEMM steps where it applies).
    if (options.first_layer_fold) continue;
    if (table->unpacked.count(p) != 0) {
      --total;
      continue;
    }
    LOOM_RETURN_IF_ERROR(flip("packing", p, "on", "fold", true,
                              [&](tensorize::ScheduleTable* t) { t->folded.insert(p); }));
  }
  if (!table->unpacked.empty() || !table->folded.empty()) {  // the barriers of the graph kept
    LOOM_RETURN_IF_ERROR(Compile(options, *table, &base));
    LOOM_RETURN_IF_ERROR(ModelCycles(options, *table, &base, &current, &barriers));
  }
  for (const std::string& b : barriers) {
    LOOM_RETURN_IF_ERROR(flip("barrier", b, "auto", "layer", false,
                              [&](tensorize::ScheduleTable* t) { t->layer_barriers.insert(b); }));
  }
  rep.after = current;
  *report = std::move(rep);
  return Status::Ok();
}

}  // namespace loom::tune
