// `loom profile`'s attribution (runtime/tools/profile.h) on compiled models, on fsim and on the RTL
// (tsim, whose timeline comes from loom_top's trace port): every accelerator layer appears with
// its instruction range, per-layer cycles tile the segment up to the FINISH tail, and per-layer
// MACs and bytes add up to the device's segment counters. fsim's per-layer cycles track the RTL's.
#include "runtime/tools/profile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <tuple>

#include "compiler/package/lower.h"
#include "compiler/package/writer.h"
#include "compiler/pipeline/compile.h"
#include "runtime/api/host_runtime.h"
#include "runtime/api/session.h"
#include "runtime/io/npy.h"

namespace loom {
namespace {

std::string Src(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }

Status CompileBlock(const std::string& block, const std::string& config, std::vector<uint8_t>* bytes) {
  pipeline::CompileOptions o;
  o.model_path = Src("tests/e2e/models/" + block + ".onnx");
  o.config = config;
  o.calibration = {Src("tests/e2e/models/" + block + "_calibration.npy")};
  o.measure_sqnr = false;
  pipeline::CompileResult result;
  LOOM_RETURN_IF_ERROR(pipeline::CompileModel(o, &result));
  package::PackageSpec spec;
  package::LowerReport report;
  LOOM_RETURN_IF_ERROR(package::LowerToPackage(result.graph, result.config, {}, &spec, &report));
  return package::SerializePackage(spec, bytes);
}

Status Open(const std::vector<uint8_t>& bytes, const std::string& device,
            std::unique_ptr<runtime::Executor>* exec) {
  LOOM_RETURN_IF_ERROR(runtime::RegisterHostRuntime());
  std::unique_ptr<runtime::Package> pkg;
  LOOM_RETURN_IF_ERROR(runtime::Package::LoadMemory(bytes.data(), bytes.size(), &pkg));
  runtime::SessionOptions so;
  so.device = device;
  so.timeline = true;
  return runtime::OpenSession(std::move(pkg), so, exec);
}

// The profile of `block` compiled for 1x8x8 (a config every tsim build has) on `device`; false
// (and a skip) when this build has no such device.
bool ProfileOn(const std::string& block, const std::string& device,
               std::unique_ptr<runtime::Executor>* exec, runtime::ProfileReport* r) {
  std::vector<uint8_t> bytes;
  const Status cs = CompileBlock(block, "1x8x8", &bytes);
  EXPECT_TRUE(cs.ok()) << cs.ToString();
  if (!cs.ok()) return false;
  const Status os = Open(bytes, device, exec);
  if (device == "tsim" && (os.code() == StatusCode::kNotFound ||
                           os.code() == StatusCode::kUnimplemented)) {
    return false;  // no RTL model in this build
  }
  EXPECT_TRUE(os.ok()) << os.ToString();
  if (!os.ok()) return false;
  std::vector<runtime::HostTensor> zeros;
  const Status zs = runtime::ZeroInputs((*exec)->package(), &zeros);
  EXPECT_TRUE(zs.ok()) << zs.ToString();
  if (!zs.ok()) return false;
  const Status ps = runtime::ProfileInference(**exec, zeros, r);
  EXPECT_TRUE(ps.ok()) << ps.ToString();
  return ps.ok();
}

class Profile : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(Profile, LayersTileEachAcceleratorSegment) {
  const auto [block, device] = GetParam();
  std::unique_ptr<runtime::Executor> exec;
  runtime::ProfileReport r;
  if (!ProfileOn(block, device, &exec, &r)) {
    if (HasFailure()) return;
    GTEST_SKIP() << "this build has no " << device << " model of 1x8x8";
  }
  EXPECT_TRUE(r.timed);

  // Every op of the package appears once, in order.
  const runtime::Package& p = exec->package();
  size_t ops = 0, accel_layers = 0;
  for (const pkg::Segment* s : *p.root().segments()) ops += s->ops()->size();
  ASSERT_EQ(r.layers.size(), ops);
  ASSERT_EQ(r.segments.size(), p.num_segments());

  for (size_t s = 0; s < r.segments.size(); ++s) {
    const runtime::SegmentSummary& seg = r.segments[s];
    if (!seg.accel) continue;
    ASSERT_TRUE(seg.timed) << seg.name;
    uint64_t cycles = 0, macs = 0, loaded = 0, stored = 0;
    uint32_t next_insn = 0;
    for (const runtime::LayerProfile& l : r.layers) {
      if (l.segment != s) continue;
      ++accel_layers;
      SCOPED_TRACE(l.name);
      EXPECT_TRUE(l.timed);
      // The lowering's ranges tile the program: each layer starts where the previous ended.
      EXPECT_EQ(l.insn_begin, next_insn);
      EXPECT_LT(l.insn_begin, l.insn_end);
      next_insn = l.insn_end;
      EXPECT_GT(l.cycles, 0u);
      EXPECT_GT(l.bytes_stored, 0u);
      // Barriers separate layers, so no module is busy longer than the layer's interval.
      for (uint64_t b : l.busy) EXPECT_LE(b, l.cycles);
      if (l.op.rfind("Conv2d", 0) == 0) {
        EXPECT_GE(l.macs, l.model_macs);  // channel padding only adds
        EXPECT_GT(l.gemm_utilization, 0.0);
        EXPECT_LE(l.gemm_utilization, 1.0);
        // Real MACs never exceed the executed ones, and no schedule beats the compute roof.
        EXPECT_LE(l.real_utilization, l.gemm_utilization);
        EXPECT_GT(l.real_utilization, 0.0);
        EXPECT_GT(l.bound.compute_cycles, 0u);
        EXPECT_LE(l.bound.compute_cycles, l.cycles);
      }
      // Every accelerator layer reads and writes something, so its bound is never 0.
      EXPECT_GT(l.bound.dram_cycles, 0u);
      EXPECT_GT(l.min_bytes_read, 0u);
      EXPECT_GT(l.min_bytes_written, 0u);
      cycles += l.cycles;
      macs += l.macs;
      loaded += l.bytes_loaded;
      stored += l.bytes_stored;
    }
    // Only FINISH follows the last layer.
    EXPECT_EQ(next_insn + 1, p.program(s)->insns.size()) << seg.name;
    EXPECT_LE(cycles, seg.cycles) << seg.name;
    EXPECT_EQ(cycles + seg.untimed_tail, seg.cycles) << seg.name;
    EXPECT_LE(seg.untimed_tail, 8u) << seg.name;
    EXPECT_EQ(macs, seg.macs) << seg.name;
    EXPECT_EQ(loaded, seg.bytes_loaded) << seg.name;
    EXPECT_EQ(stored, seg.bytes_stored) << seg.name;
  }
  EXPECT_GT(accel_layers, 0u);
  EXPECT_GT(r.bound_cycles, 0u);
  EXPECT_LE(r.bound_cycles, r.cycles);
  EXPECT_GT(r.device_model_macs, 0u);
  const std::string table = runtime::FormatProfile(r);
  EXPECT_NE(table.find("roofline bound"), std::string::npos);
  for (const runtime::LayerProfile& l : r.layers) {
    EXPECT_NE(table.find(l.name.size() <= 40 ? l.name : l.name.substr(l.name.size() - 38)),
              std::string::npos) << l.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Blocks, Profile,
                         ::testing::Combine(::testing::Values("resnet_basic", "mbv2_inverted",
                                                              "squeeze_fire"),
                                            ::testing::Values("fsim", "tsim")),
                         [](const auto& i) {
                           return std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param);
                         });

// fsim's timing model against the RTL, layer by layer: the same package's per-layer cycles on
// both. The whole-program ratio is within 2 % (e2e_test); single layers may differ more, so the
// bound is 15 %, and the table is printed.
TEST(ProfileFsimVsTsim, LayerCyclesTrackTheRtl) {
  std::unique_ptr<runtime::Executor> fe, te;
  runtime::ProfileReport f, t;
  ASSERT_TRUE(ProfileOn("resnet_basic", "fsim", &fe, &f));
  if (!ProfileOn("resnet_basic", "tsim", &te, &t)) {
    if (HasFailure()) return;
    GTEST_SKIP() << "this build has no tsim model of 1x8x8";
  }
  ASSERT_EQ(f.layers.size(), t.layers.size());
  for (size_t i = 0; i < f.layers.size(); ++i) {
    const runtime::LayerProfile &a = f.layers[i], &b = t.layers[i];
    if (!a.timed) continue;
    ASSERT_TRUE(b.timed) << b.name;
    const double ratio = static_cast<double>(a.cycles) / static_cast<double>(b.cycles);
    std::printf("%-40s %-10s fsim %8llu  tsim %8llu  fsim/tsim %.3f\n", a.name.c_str(),
                a.op.c_str(), static_cast<unsigned long long>(a.cycles),
                static_cast<unsigned long long>(b.cycles), ratio);
    EXPECT_NEAR(ratio, 1.0, 0.15) << a.name;
    EXPECT_EQ(a.macs, b.macs) << a.name;
    EXPECT_EQ(a.bytes_loaded, b.bytes_loaded) << a.name;
  }
}

// A max pool fused into its convolution's program (tensorize/conv2d_pool.h) shares the conv's
// row, named after both: the bound counts both ops' MACs and the pair's compulsory traffic (the
// conv's output never moves), and the program stores exactly the pooled output.
TEST(ProfileFsim, FusedPoolSharesItsConvsRow) {
  std::unique_ptr<runtime::Executor> exec;
  runtime::ProfileReport r;
  ASSERT_TRUE(ProfileOn("resnet_stem", "fsim", &exec, &r));
  const runtime::LayerProfile* fused = nullptr;
  for (const runtime::LayerProfile& l : r.layers) {
    if (l.op.find("+MaxPool") != std::string::npos) fused = &l;
  }
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->fused.size(), 1u);
  EXPECT_EQ(fused->op.rfind("Conv2d", 0), 0u) << fused->op;
  EXPECT_NE(fused->name.find('+'), std::string::npos) << fused->name;
  EXPECT_TRUE(fused->timed);
  EXPECT_GT(fused->cycles, 0u);
  EXPECT_EQ(fused->bytes_stored, fused->min_bytes_written);
  EXPECT_GT(fused->bound.cycles(), 0u);
  EXPECT_LE(fused->bound.cycles(), fused->cycles);
  const std::string& n = fused->name;  // the table keeps a long name's end
  EXPECT_NE(runtime::FormatProfile(r).find(n.size() <= 40 ? n : n.substr(n.size() - 38)),
            std::string::npos);
}

// On the cpu device nothing runs on an accelerator: layers keep their MACs, nothing is timed.
TEST(ProfileCpu, NothingTimed) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(CompileBlock("resnet_basic", "1x8x8", &bytes).ok());
  std::unique_ptr<runtime::Executor> exec;
  ASSERT_TRUE(Open(bytes, "cpu", &exec).ok());
  runtime::ProfileReport r;
  std::vector<runtime::HostTensor> zeros;
  ASSERT_TRUE(runtime::ZeroInputs(exec->package(), &zeros).ok());
  ASSERT_TRUE(runtime::ProfileInference(*exec, zeros, &r).ok());
  EXPECT_FALSE(r.timed);
  for (const runtime::LayerProfile& l : r.layers) {
    EXPECT_FALSE(l.timed);
    EXPECT_EQ(l.macs, l.model_macs);
  }
  EXPECT_NE(runtime::FormatProfile(r).find("records no per-instruction timeline"), std::string::npos);
}

// The ViT block's attention products run float on the host and count their MACs in the package,
// but the accelerator's utilization counts only what it did in its own cycles.
TEST(ProfileFsim, HostMacsAreNotTheAcceleratorsUtilization) {
  std::unique_ptr<runtime::Executor> exec;
  runtime::ProfileReport r;
  if (!ProfileOn("vit_block", "fsim", &exec, &r)) return;
  uint64_t host_macs = 0, device_macs = 0;
  for (const runtime::SegmentSummary& s : r.segments)
    (s.on_device ? device_macs : host_macs) += s.macs;
  EXPECT_GT(host_macs, 0u);  // the float attention products
  EXPECT_EQ(r.macs, host_macs + device_macs);
  EXPECT_EQ(r.device_macs, device_macs);
  const runtime::SegmentProfile total = exec->profile().Total();
  EXPECT_EQ(total.device_macs, device_macs);
  const double util = static_cast<double>(device_macs) /
                      (static_cast<double>(total.cycles) * r.config.macs_per_cycle());
  EXPECT_DOUBLE_EQ(total.gemm_utilization(r.config), util);
}

}  // namespace
}  // namespace loom
