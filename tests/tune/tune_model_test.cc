// `loom tune` on a whole model, and `loom compile --tuning-log` applying it: on the ResNet basic
// block of tests/e2e, tuning never ends slower than the built-in search (simulated cycles), the log
// holds what was measured, the compile applies the log's tilings (seen in the lowering report),
// records for another config fall back to the built-in search, and packages built with tuned or
// deliberately different tilings give bit-identical outputs on cpu, fsim and tsim.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <memory>

#include "compiler/ir/printer.h"
#include "compiler/package/lower.h"
#include "compiler/package/writer.h"
#include "compiler/pipeline/compile.h"
#include "compiler/tune/knobs.h"
#include "compiler/tune/search.h"
#include "compiler/tune/tune.h"
#include "compiler/tune/tuning_log.h"
#include "runtime/api/host_runtime.h"
#include "runtime/config/config_file.h"
#include "runtime/exec/executor.h"
#include "runtime/io/npy.h"

namespace loom::tune {
namespace {

std::string Src(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }
const char kBlock[] = "tests/e2e/models/resnet_basic";

pipeline::CompileOptions BlockOptions(const std::string& block = kBlock) {
  pipeline::CompileOptions o;
  o.model_path = Src(block + ".onnx");
  o.calibration = {Src(block + "_calibration.npy")};
  o.config = "1x16x16";
  o.measure_sqnr = false;
  return o;
}

struct Compiled {
  package::LowerReport lowering;
  std::vector<package::Conv2dLowering> convs;
  std::vector<uint8_t> bytes;
  std::vector<std::string> packed;  // first-layer packing's layers
};

Status Compile(const tensorize::ScheduleTable* schedules, Compiled* out,
               const std::string& block = kBlock) {
  pipeline::CompileOptions o = BlockOptions(block);
  o.schedules = schedules;  // its packing knob applies in the pipeline
  pipeline::CompileResult r;
  LOOM_RETURN_IF_ERROR(pipeline::CompileModel(o, &r));
  out->packed = r.packed_layers;
  package::LowerOptions lo;
  lo.schedules = schedules;
  lo.on_conv2d = [out](const package::Conv2dLowering& c) { out->convs.push_back(c); };
  package::PackageSpec spec;
  LOOM_RETURN_IF_ERROR(package::LowerToPackage(r.graph, r.config, lo, &spec, &out->lowering));
  return package::SerializePackage(spec, &out->bytes);
}

Status RunOn(const std::string& device, const Compiled& c, std::vector<runtime::HostTensor>* out,
             const std::string& block = kBlock) {
  LOOM_RETURN_IF_ERROR(runtime::RegisterHostRuntime());
  NpyArray in;
  LOOM_RETURN_IF_ERROR(ReadNpy(Src(block + "_input.npy"), &in));
  runtime::HostTensor x;
  x.type = DType::kF32;
  x.shape = in.shape;
  x.data = in.bytes;
  std::unique_ptr<runtime::Package> pkg;
  LOOM_RETURN_IF_ERROR(runtime::Package::LoadMemory(c.bytes.data(), c.bytes.size(), &pkg));
  std::unique_ptr<runtime::Driver> drv;
  LOOM_RETURN_IF_ERROR(runtime::CreateDriver(device, &drv));
  std::unique_ptr<runtime::Executor> ex;
  LOOM_RETURN_IF_ERROR(runtime::Executor::Create(std::move(pkg), std::move(drv), {}, &ex));
  return ex->Run({x}, {}, out);
}

// The tuned log, made once for every test.
struct Tuned {
  Status status;
  TuneReport report;
  std::vector<TuningRecord> records;
  std::string log;
};

const Tuned& GetTuned() {
  static Tuned* tuned = [] {
    auto* t = new Tuned;
    TuneOptions o;
    o.compile = BlockOptions();
    o.trials = 16;
    // One file per process: ctest runs each test of this file as its own process, in parallel.
    o.log_path =
        ::testing::TempDir() + "/resnet_basic_tune_" + std::to_string(::getpid()) + ".json";
    t->log = o.log_path;
    t->status = TuneModel(o, &t->report);
    if (t->status.ok()) t->status = ReadTuningLog(o.log_path, &t->records);
    return t;
  }();
  return *tuned;
}

TEST(TuneModel, NeverSlowerThanTheBuiltInSearchAndLogsEveryTrial) {
  const Tuned& t = GetTuned();
  ASSERT_TRUE(t.status.ok()) << t.status.ToString();
  ASSERT_FALSE(t.report.layers.empty());
  size_t measured = 0, best = 0;
  for (const TuningRecord& r : t.records) {
    EXPECT_EQ(r.config_hash, t.report.config_hash);
    EXPECT_EQ(r.device, "fsim");
    if (IsKnobKind(r.kind)) continue;  // the model-level knobs' records (KnobsTest below)
    (r.kind == "best" ? best : measured) += 1;
  }
  EXPECT_EQ(best, t.report.layers.size());
  uint32_t failed = 0;
  for (const TunedLayer& l : t.report.layers) {
    SCOPED_TRACE(l.signature);
    EXPECT_LE(l.best_cycles, l.builtin_cycles);
    EXPECT_GE(l.count, 1u);
    failed += l.failed;
  }
  EXPECT_EQ(measured + failed, t.report.trials);
  EXPECT_LE(t.report.best_cycles, t.report.builtin_cycles);
  PrintTuneReport(t.report, std::cout);
}

TEST(TuneModel, CompileAppliesTheLogsBestTilingPerLayer) {
  const Tuned& t = GetTuned();
  ASSERT_TRUE(t.status.ok()) << t.status.ToString();
  const tensorize::ScheduleTable table = BestSchedules(t.records, t.report.config_hash);
  Compiled c;
  ASSERT_TRUE(Compile(&table, &c).ok());
  ASSERT_FALSE(c.convs.empty());
  std::map<std::string, const TunedLayer*> by_sig;
  for (const TunedLayer& l : t.report.layers) by_sig[l.signature] = &l;
  for (const package::Conv2dLowering& conv : c.convs) {
    SCOPED_TRACE(conv.name);
    EXPECT_TRUE(conv.tuned);
    ASSERT_EQ(by_sig.count(conv.signature), 1u);
    EXPECT_EQ(conv.choice.tiling, by_sig[conv.signature]->best);
    EXPECT_EQ(conv.choice.cycles, by_sig[conv.signature]->best_cycles);
  }
  // The report the tool prints and writes (--report) says which layers the log scheduled.
  size_t tuned = 0;
  for (const package::LayerLowering& l : c.lowering.layers) {
    if (!l.tuned) continue;
    ++tuned;
    EXPECT_EQ(pipeline::LoweringJson(c.lowering)["layers"].size(), c.lowering.layers.size());
  }
  EXPECT_EQ(tuned, c.convs.size());
}

TEST(TuneModel, RecordsForAnotherConfigFallBackToTheBuiltInSearch) {
  const Tuned& t = GetTuned();
  ASSERT_TRUE(t.status.ok()) << t.status.ToString();
  std::vector<TuningRecord> other = t.records;
  for (TuningRecord& r : other) r.config_hash = "0000000000000000";
  size_t skipped = 0;
  const tensorize::ScheduleTable table = BestSchedules(other, t.report.config_hash, &skipped);
  EXPECT_EQ(skipped, other.size());
  Compiled tuned_none, builtin;
  ASSERT_TRUE(Compile(&table, &tuned_none).ok());
  ASSERT_TRUE(Compile(nullptr, &builtin).ok());
  ASSERT_EQ(tuned_none.convs.size(), builtin.convs.size());
  for (size_t i = 0; i < builtin.convs.size(); ++i) {
    EXPECT_FALSE(tuned_none.convs[i].tuned);
    EXPECT_EQ(tuned_none.convs[i].choice.tiling, builtin.convs[i].choice.tiling);
  }
  EXPECT_EQ(tuned_none.bytes, builtin.bytes);
}

// The same search measured on the RTL through the runtime's Driver interface.
TEST(TuneModel, TunesOnTsimThroughTheDriverInterface) {
  ASSERT_TRUE(runtime::RegisterHostRuntime().ok());
  std::unique_ptr<runtime::Driver> probe;
  if (!runtime::CreateDriver("tsim", &probe).ok()) GTEST_SKIP() << "this build has no tsim";
  TuneOptions o;
  o.compile = BlockOptions();
  o.compile.config = "1x8x8";  // verilated in every build (the ASan build has no 1x16x16 model)
  o.trials = 6;
  o.device = "tsim";
  o.log_path = ::testing::TempDir() + "/resnet_basic_tsim_" + std::to_string(::getpid()) + ".json";
  TuneReport report;
  const Status s = TuneModel(o, &report);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(report.device, "tsim");
  ASSERT_FALSE(report.layers.empty());
  for (const TunedLayer& l : report.layers) {
    EXPECT_GT(l.builtin_cycles, 0u);
    EXPECT_LE(l.best_cycles, l.builtin_cycles);
  }
  std::vector<TuningRecord> records;
  ASSERT_TRUE(ReadTuningLog(o.log_path, &records).ok());
  for (const TuningRecord& r : records) {
    // The knobs are measured on the whole model on fsim's timing model, whatever the device.
    EXPECT_EQ(r.device, IsKnobKind(r.kind) ? "fsim" : "tsim");
  }
}

// Every convolution forced onto a tiling the built-in search did not choose (another thread count
// or the smallest tiles), so the schedule really changes; the outputs must not.
TEST(TuneModel, TunedPackagesAreBitIdenticalOnCpuFsimAndTsim) {
  Compiled builtin;
  ASSERT_TRUE(Compile(nullptr, &builtin).ok());
  tensorize::ScheduleTable forced;
  for (const package::Conv2dLowering& conv : builtin.convs) {
    HwConfig config;
    ASSERT_TRUE(LoadHwConfig("1x16x16", &config).ok());
    for (const tensorize::Conv2dTiling& t : KnobSpace(config, conv.layer)) {
      if (!(t == conv.choice.tiling) && t.virtual_threads != conv.choice.tiling.virtual_threads) {
        forced.conv2d[conv.signature] = t;
        break;
      }
    }
  }
  Compiled c;
  ASSERT_TRUE(Compile(&forced, &c).ok());
  ASSERT_EQ(c.convs.size(), builtin.convs.size());
  for (size_t i = 0; i < c.convs.size(); ++i) {
    EXPECT_TRUE(c.convs[i].tuned) << c.convs[i].name;
    EXPECT_FALSE(c.convs[i].choice.tiling == builtin.convs[i].choice.tiling) << c.convs[i].name;
  }
  std::vector<runtime::HostTensor> ref;
  ASSERT_TRUE(RunOn("cpu", builtin, &ref).ok());
  for (const char* device : {"cpu", "fsim", "tsim"}) {
    SCOPED_TRACE(device);
    for (const Compiled* p : {&builtin, &c}) {
      std::vector<runtime::HostTensor> out;
      const Status s = RunOn(device, *p, &out);
      // A build without tsim, or without the 1x16x16 RTL model (the ASan build verilates 1x8x8).
      if (std::string(device) == "tsim" &&
          (s.code() == StatusCode::kNotFound || s.code() == StatusCode::kUnimplemented)) {
        GTEST_SKIP() << s.ToString();
      }
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(out.size(), ref.size());
      for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].data, ref[i].data);
    }
  }
}

// The model-level knobs. First-layer packing: the stem block's 7x7/2 convolution over 3 channels
// is packed by default; the knob measures it unpacked and with the row fold, logs each beside
// "on" with the model's cycles, and a log choosing "off" compiles it unpacked, with the same
// outputs on cpu and fsim. (On 1x16x16 the fold changes nothing for this layer: every fold gives
// the same GEMM steps, so the pass keeps f = 1 and "fold" measures the same cycles as "on".)
TEST(KnobsTest, PackingIsMeasuredBothWaysAndTheLogAppliesIt) {
  const std::string stem = "tests/e2e/models/resnet_stem";
  tensorize::ScheduleTable table;
  std::vector<TuningRecord> records;
  KnobReport rep;
  const Status s = TuneKnobs(
      BlockOptions(stem), &table, [&](TuningRecord r) { records.push_back(std::move(r)); }, nullptr,
      &rep);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Compiled packed;
  ASSERT_TRUE(Compile(nullptr, &packed, stem).ok());
  ASSERT_EQ(packed.packed.size(), 1u);
  const std::string layer = packed.packed[0];
  std::map<std::string, uint64_t> cycles;
  TuningRecord on_rec, off_rec;
  for (const TuningRecord& r : records) {
    if (r.kind != "packing") continue;
    EXPECT_EQ(r.layer, layer);
    cycles[r.value] = r.cycles;
    if (r.value == "on") on_rec = r;
    if (r.value == "off") off_rec = r;
  }
  ASSERT_EQ(cycles.size(), 3u);
  EXPECT_GT(cycles["off"], 0u);
  EXPECT_EQ(cycles["fold"], cycles["on"]);
  EXPECT_LE(rep.after, rep.before);
  EXPECT_EQ(rep.before, cycles["on"]);

  tensorize::ScheduleTable off;
  off.unpacked.insert(layer);
  uint64_t measured = 0;
  ASSERT_TRUE(ModelCycles(BlockOptions(stem), off, nullptr, &measured).ok());
  EXPECT_EQ(measured, cycles["off"]);
  Compiled unpacked;
  ASSERT_TRUE(Compile(&off, &unpacked, stem).ok());
  EXPECT_TRUE(unpacked.packed.empty());
  // Through the log, as `loom compile --tuning-log` reads it.
  on_rec.config_hash = off_rec.config_hash = "0123456789abcdef";
  on_rec.cycles = off_rec.cycles + 1;  // "off" wins
  const tensorize::ScheduleTable from_log = BestSchedules({on_rec, off_rec}, "0123456789abcdef");
  EXPECT_EQ(from_log.unpacked, off.unpacked);

  std::vector<runtime::HostTensor> ref;
  ASSERT_TRUE(RunOn("cpu", packed, &ref, stem).ok());
  for (const char* device : {"cpu", "fsim"}) {
    std::vector<runtime::HostTensor> out;
    ASSERT_TRUE(RunOn(device, unpacked, &out, stem).ok()) << device;
    ASSERT_EQ(out.size(), ref.size());
    for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].data, ref[i].data) << device;
  }
}

// A "fold" knob folds its layer as `--first-layer-fold` folds every packed layer: on 1x32x32 the
// stem's 7x7/2 folds two kernel rows into the channels (docs/tensorize.md "Row fold"), and the
// compiled graph is the flag's, where without the knob it is the unfolded one.
TEST(KnobsTest, AFoldRecordFoldsItsLayerAsTheFlagDoes) {
  const std::string stem = "tests/e2e/models/resnet_stem";
  auto graph = [&](const tensorize::ScheduleTable* t, bool flag, std::string* text,
                   std::vector<std::string>* packed) {
    pipeline::CompileOptions o = BlockOptions(stem);
    o.config = "1x32x32";
    o.schedules = t;
    o.first_layer_fold = flag;
    pipeline::CompileResult r;
    LOOM_RETURN_IF_ERROR(pipeline::CompileModel(o, &r));
    *text = ir::PrintGraph(r.graph);
    if (packed) *packed = r.packed_layers;
    return Status::Ok();
  };
  std::string plain, flagged, knob;
  std::vector<std::string> packed;
  ASSERT_TRUE(graph(nullptr, false, &plain, &packed).ok());
  ASSERT_EQ(packed.size(), 1u);
  ASSERT_TRUE(graph(nullptr, true, &flagged, nullptr).ok());
  tensorize::ScheduleTable folded;
  folded.folded.insert(packed[0]);
  ASSERT_TRUE(graph(&folded, false, &knob, nullptr).ok());
  EXPECT_NE(plain, flagged);  // the fold applies here
  EXPECT_NE(flagged.find(".row"), std::string::npos);
  EXPECT_EQ(knob, flagged);
}

// Barriers: the bottleneck block's downsample reads the block input, not the layer before it, so
// it gets the buffer barrier; forcing the layer barrier there changes the program, not the outputs.
TEST(KnobsTest, AForcedLayerBarrierKeepsTheOutputs) {
  const std::string block = "tests/e2e/models/resnet_bottleneck";
  uint64_t cycles = 0;
  std::vector<std::string> buffer;
  ASSERT_TRUE(ModelCycles(BlockOptions(block), {}, nullptr, &cycles, &buffer).ok());
  ASSERT_FALSE(buffer.empty()) << "no layer of the block has the buffer barrier";
  tensorize::ScheduleTable forced;
  forced.layer_barriers.insert(buffer.begin(), buffer.end());
  uint64_t forced_cycles = 0;
  std::vector<std::string> left;
  ASSERT_TRUE(ModelCycles(BlockOptions(block), forced, nullptr, &forced_cycles, &left).ok());
  EXPECT_TRUE(left.empty());
  EXPECT_NE(forced_cycles, cycles);  // the program changed

  Compiled builtin, c;
  ASSERT_TRUE(Compile(nullptr, &builtin, block).ok());
  ASSERT_TRUE(Compile(&forced, &c, block).ok());
  for (const package::LayerLowering& l : c.lowering.layers) {
    if (forced.layer_barriers.count(l.name)) {
      EXPECT_EQ(l.barrier, "layer") << l.name;
    }
  }
  std::vector<runtime::HostTensor> ref;
  ASSERT_TRUE(RunOn("cpu", builtin, &ref, block).ok());
  std::vector<runtime::HostTensor> out;
  ASSERT_TRUE(RunOn("fsim", c, &out, block).ok());
  ASSERT_EQ(out.size(), ref.size());
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].data, ref[i].data);
}

}  // namespace
}  // namespace loom::tune
