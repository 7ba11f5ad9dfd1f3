// End to end: ONNX model → `loom compile` pipeline (import, passes, calibration + quantization,
// pack, partition, lowering, package) → runtime on every device. The integer program is the
// truth (docs/architecture.md §2, contract 5): the cpu device (int8 kernels from the op-level
// description), fsim and tsim (the accelerator programs) and the compiler's own interpreter of the
// quantized graph must agree bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "compiler/frontend/onnx_import.h"
#include "compiler/interp/interpreter.h"
#include "compiler/package/lower.h"
#include "compiler/package/writer.h"
#include "compiler/pipeline/compile.h"
#include "compiler/quantize/report.h"
#include "runtime/config/config_file.h"
#include "runtime/drivers/sim/sim_drivers.h"
#include "runtime/exec/executor.h"
#include "runtime/io/npy.h"

namespace loom {
namespace {

std::string Src(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }

struct Model {
  std::string name;
  std::string onnx, calibration, input, expected;  // paths relative to the source tree
};

void PrintTo(const Model& m, std::ostream* os) { *os << m.name; }

std::vector<Model> Blocks() {
  std::vector<Model> v;
  for (const char* b :
       {"resnet_basic", "resnet_bottleneck", "mbv2_inverted", "squeeze_fire", "mbv3_bneck",
        "effnet_mbconv", "lraspp_head", "regnet_block", "resnext_block", "vit_block", "resnet_stem",
        "upsample_block", "deconv_block", "vgg_stem"}) {
    const std::string p = std::string("tests/e2e/models/") + b;
    v.push_back({b, p + ".onnx", p + "_calibration.npy", p + "_input.npy", p + "_expected.npy"});
  }
  v.push_back({"digits", "examples/digits/digits.onnx", "examples/digits/calibration.npy",
               "examples/digits/test_images.npy", ""});
  return v;
}

// One compiled model: the quantized graph and the package bytes.
struct Compiled {
  pipeline::CompileResult result;
  package::LowerReport lowering;
  std::vector<uint8_t> bytes;
};

Status Compile(const Model& m, const std::string& config, Compiled* out,
               bool first_layer_packing = true, bool bias_correction = false,
               bool first_layer_fold = false, bool fuse_pool = true) {
  pipeline::CompileOptions o;
  o.first_layer_packing = first_layer_packing;
  o.first_layer_fold = first_layer_fold;
  o.bias_correction = bias_correction;
  o.model_path = Src(m.onnx);
  o.config = config;
  o.calibration = {Src(m.calibration)};
  o.measure_sqnr = false;
  LOOM_RETURN_IF_ERROR(pipeline::CompileModel(o, &out->result));
  package::PackageSpec spec;
  package::LowerOptions lo;
  lo.provenance.model_name = m.name;
  lo.fuse_pool = fuse_pool;
  LOOM_RETURN_IF_ERROR(
      package::LowerToPackage(out->result.graph, out->result.config, lo, &spec, &out->lowering));
  return package::SerializePackage(spec, &out->bytes);
}

// Cache: every test of a model and config shares one compilation.
const Compiled& Get(const Model& m, const std::string& config) {
  static std::map<std::string, std::unique_ptr<Compiled>> cache;
  auto& slot = cache[m.name + "@" + config];
  if (!slot) {
    slot = std::make_unique<Compiled>();
    const Status st = Compile(m, config, slot.get());
    EXPECT_TRUE(st.ok()) << m.name << ": " << st.ToString();
  }
  return *slot;
}

runtime::HostTensor FloatInput(const NpyArray& a, int64_t first, int64_t count) {
  runtime::HostTensor t;
  t.type = DType::kF32;
  t.shape = a.shape;
  t.shape[0] = count;
  const size_t per = a.bytes.size() / static_cast<size_t>(a.shape[0]);
  t.data.assign(a.bytes.begin() + static_cast<std::ptrdiff_t>(per * first),
                a.bytes.begin() + static_cast<std::ptrdiff_t>(per * (first + count)));
  return t;
}

struct DeviceRun {
  Status status;
  std::vector<runtime::HostTensor> out;  // float32 (dequantized)
  runtime::SegmentProfile total;
};

DeviceRun RunOn(const std::string& device, const Compiled& c, const runtime::HostTensor& input,
                const std::string& cpu_kernels = "") {
  DeviceRun r;
  std::unique_ptr<runtime::Package> pkg;
  r.status = runtime::Package::LoadMemory(c.bytes.data(), c.bytes.size(), &pkg);
  std::unique_ptr<runtime::Driver> drv;
  if (r.status.ok()) r.status = runtime::RegisterSimulatorDrivers();
  if (r.status.ok()) r.status = runtime::CreateDriver(device, &drv);
  std::unique_ptr<runtime::Executor> ex;
  runtime::ExecutorOptions options;
  options.cpu_kernels = cpu_kernels;
  if (r.status.ok()) {
    r.status = runtime::Executor::Create(std::move(pkg), std::move(drv), options, &ex);
  }
  if (!r.status.ok()) return r;
  // Outputs are dequantized with one multiplication by the output scale, so equal float bits
  // mean equal int8 results.
  r.status = ex->Run({input}, {}, &r.out);
  if (r.status.ok()) r.total = ex->profile().Total();
  return r;
}

class EndToEnd : public ::testing::TestWithParam<std::tuple<Model, std::string>> {};

TEST_P(EndToEnd, DevicesAndInterpreterAgreeBitForBit) {
  const auto& [m, config] = GetParam();
  const Compiled& c = Get(m, config);
  ASSERT_FALSE(c.bytes.empty());
  NpyArray in;
  ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
  const runtime::HostTensor input = FloatInput(in, 0, 2);  // two samples: a stacked run

  const DeviceRun cpu = RunOn("cpu", c, input);
  ASSERT_TRUE(cpu.status.ok()) << cpu.status.ToString();
  const DeviceRun fsim = RunOn("fsim", c, input);
  ASSERT_TRUE(fsim.status.ok()) << fsim.status.ToString();
  ASSERT_EQ(cpu.out.size(), fsim.out.size());
  for (size_t i = 0; i < cpu.out.size(); ++i) {
    EXPECT_EQ(cpu.out[i].data, fsim.out[i].data) << "output " << cpu.out[i].name;
  }
  EXPECT_GT(fsim.total.cycles, 0u);
  EXPECT_GT(fsim.total.macs, 0u);

  // The compiler's interpreter of the quantized graph, sample by sample.
  for (int64_t s = 0; s < 2; ++s) {
    const runtime::HostTensor one = FloatInput(in, s, 1);
    ir::Tensor x;
    ASSERT_TRUE(ir::Tensor::FromBytes(DType::kF32, one.shape, one.data, &x).ok());
    std::vector<ir::Tensor> outs;
    const Status st = interp::Run(c.result.graph, std::vector<ir::Tensor>{x}, &outs);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(outs.size(), cpu.out.size());
    const size_t per = outs[0].byte_size();
    ASSERT_EQ(per * 2, cpu.out[0].data.size());
    EXPECT_TRUE(std::equal(outs[0].bytes(), outs[0].bytes() + per,
                           cpu.out[0].data.begin() + static_cast<std::ptrdiff_t>(per * s)))
        << "sample " << s << ": the runtime differs from the interpreter";
  }

  // tsim (the RTL) when this build has it; its configs are the ones verilated.
  std::unique_ptr<runtime::Driver> probe;
  if (!runtime::CreateDriver("tsim", &probe).ok()) GTEST_SKIP() << "this build has no tsim";
  const DeviceRun tsim = RunOn("tsim", c, input);
  if (tsim.status.code() == StatusCode::kUnimplemented) {
    GTEST_SKIP() << tsim.status.ToString();  // this build verilated other configs only
  }
  ASSERT_TRUE(tsim.status.ok()) << tsim.status.ToString();
  for (size_t i = 0; i < cpu.out.size(); ++i) {
    EXPECT_EQ(tsim.out[i].data, fsim.out[i].data) << "tsim output " << i;
  }
  std::cout << m.name << " on " << config << ": tsim " << tsim.total.cycles << " cycles, fsim "
            << fsim.total.cycles << " (fsim/tsim " << double(fsim.total.cycles) / double(tsim.total.cycles)
            << ")\n";
}

// Nearest Resize x2 runs on the accelerator (q.resize, tensorize/resize.h), both of the block's
// coordinate modes, inside one accelerator segment with the convolutions around it.
TEST(UpsampleBlock, ResizeRunsOnTheAccelerator) {
  for (const Model& m : Blocks()) {
    if (m.name != "upsample_block") continue;
    for (const char* config : {"1x8x8", "1x16x16"}) {
      const Compiled& c = Get(m, config);
      int resizes = 0;
      for (const package::LayerLowering& l : c.lowering.layers) {
        if (l.op != "q.resize") continue;
        ++resizes;
        EXPECT_TRUE(l.accel) << l.name << " on " << config << " stayed on the CPU";
        EXPECT_EQ(l.tiling, "copy") << l.name;
      }
      EXPECT_EQ(resizes, 2) << config;
    }
    return;
  }
  FAIL() << "no upsample_block";
}

// A grouped convolution's groups merge into groups of whole channel blocks (the accelerator runs
// those as one layer per group, the CPU a group at a time on its row kernels), or into one group,
// a plain convolution, where no merge is whole. ResNeXt's 8 groups of 8 -> 8 and 16 groups of 4 ->
// 8, and RegNet's 3 groups of 8 -> 8 (whole blocks of 8; 2 groups of 16 at block 16, the last one
// short; one group at block 32).
TEST(GroupedConv, GroupsMergeIntoWholeChannelBlocks) {
  const std::map<std::string, std::map<std::string, int64_t>> want = {
      {"1x8x8", {{"/b/Conv", 8}, {"/d/Conv", 8}}},
      {"1x16x16", {{"/b/Conv", 4}, {"/d/Conv", 4}}},
      {"1x32x32", {{"/b/Conv", 2}, {"/d/Conv", 2}}}};
  const std::map<std::string, int64_t> regnet = {{"1x8x8", 3}, {"1x16x16", 2}, {"1x32x32", 1}};
  for (const Model& m : Blocks()) {
    if (m.name != "resnext_block" && m.name != "regnet_block") continue;
    for (const auto& [config, groups] : want) {
      const Compiled& c = Get(m, config);
      for (const ir::Node* n : c.result.graph.nodes()) {
        const bool grouped =
            m.name == "resnext_block" ? groups.count(n->name) != 0 : n->name == "/b/Conv";
        if (n->op != "q.conv2d" || !grouped) continue;
        const int64_t g = m.name == "regnet_block" ? regnet.at(config) : groups.at(n->name);
        EXPECT_EQ(n->GetInt("group", 1), g) << m.name << " " << n->name << " on " << config;
        const ir::Value& w = c.result.graph.value(n->input(1));
        const int64_t channels = c.result.graph.value(n->input(0)).shape[1];
        EXPECT_GE(w.shape[1] * g, channels) << n->name;
        EXPECT_LT(w.shape[1] * (g - 1), channels) << n->name;
      }
      for (const package::LayerLowering& l : c.lowering.layers) {
        if (m.name == "resnext_block" && groups.count(l.name)) {
          EXPECT_TRUE(l.accel) << l.name << " on " << config;  // one layer per group
        }
      }
    }
  }
}

// Both ConvTransposes (2x2 stride 2; 3x3 stride 2 pad 1 output_padding 1 with a fused ReLU) run
// on the accelerator as a zero insertion and a stride-1 convolution
// (passes/conv_transpose_as_conv.h), in one accelerator segment; the int8 output's cosine to the
// fp32 reference is reported.
TEST(DeconvBlock, ConvTransposeRunsOnTheAccelerator) {
  const Model m = [] {
    for (const Model& b : Blocks()) {
      if (b.name == "deconv_block") return b;
    }
    return Model{};
  }();
  ASSERT_EQ(m.name, "deconv_block");
  NpyArray in, want;
  ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
  ASSERT_TRUE(ReadNpy(Src(m.expected), &want).ok());
  for (const char* config : {"1x8x8", "1x16x16"}) {
    SCOPED_TRACE(config);
    const Compiled& c = Get(m, config);
    ASSERT_FALSE(c.bytes.empty());
    int inserts = 0;
    std::set<std::string> accel_segments;
    for (const package::LayerLowering& l : c.lowering.layers) {
      if (l.op == "q.zero_insert") ++inserts;
      if (l.op == "q.zero_insert" || l.op == "q.conv2d") {
        EXPECT_TRUE(l.accel) << l.name << " stayed on the CPU";
      }
      if (l.accel) accel_segments.insert(l.segment);
    }
    EXPECT_EQ(inserts, 2);
    for (const ir::Node* n : c.result.graph.nodes()) EXPECT_NE(n->op, "ConvTranspose");
    EXPECT_EQ(accel_segments.size(), 1u);
    const DeviceRun r = RunOn("fsim", c, FloatInput(in, 0, in.shape[0]));
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    ASSERT_EQ(r.out[0].data.size(), want.bytes.size());
    const float* a = reinterpret_cast<const float*>(r.out[0].data.data());
    const float* b = reinterpret_cast<const float*>(want.bytes.data());
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < want.bytes.size() / 4; ++i) {
      ab += double{a[i]} * b[i];
      aa += double{a[i]} * a[i];
      bb += double{b[i]} * b[i];
    }
    const double cosine = ab / std::sqrt(aa * bb);
    RecordProperty(std::string("cosine_") + config, std::to_string(cosine));
    std::cout << "deconv_block on " << config << ": cosine to fp32 " << cosine << ", fsim "
              << r.total.cycles << " cycles\n";
    EXPECT_GT(cosine, 0.99);
  }
}

// The cpu device on its fast int8 kernels (the best this CPU has, and AVX2 where the CPU runs it:
// its row kernels take every block) and on the portable reference kernels: the same package gives
// the same bytes.
TEST_P(EndToEnd, FastCpuKernelsMatchReferenceBitForBit) {
  const auto& [m, config] = GetParam();
  const Compiled& c = Get(m, config);
  ASSERT_FALSE(c.bytes.empty());
  NpyArray in;
  ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
  const runtime::HostTensor input = FloatInput(in, 0, 2);
  const DeviceRun ref = RunOn("cpu", c, input, "reference");
  ASSERT_TRUE(ref.status.ok()) << ref.status.ToString();
  for (const char* kernels : {"auto", "portable", "avx2"}) {
    const DeviceRun fast = RunOn("cpu", c, input, kernels);
    if (fast.status.code() == StatusCode::kUnimplemented) continue;  // not this CPU's
    ASSERT_TRUE(fast.status.ok()) << fast.status.ToString();
    ASSERT_EQ(fast.out.size(), ref.out.size());
    for (size_t i = 0; i < ref.out.size(); ++i) {
      EXPECT_EQ(fast.out[i].data, ref.out[i].data) << kernels << " kernels, output " << i;
    }
  }
  const DeviceRun bad = RunOn("cpu", c, input, "sse9");
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument) << bad.status.ToString();
}

// The opencl device (the ISA as an OpenCL kernel; PoCL's CPU device in CI) runs the same packages
// to fsim's outputs bit for bit, and counts what fsim counts, except time.
TEST_P(EndToEnd, OpenclMatchesFsimBitForBit) {
  const auto& [m, config] = GetParam();
  std::unique_ptr<runtime::Driver> probe;
  if (!runtime::CreateDriver("opencl", &probe).ok()) GTEST_SKIP() << "this build has no opencl";
  const Compiled& c = Get(m, config);
  ASSERT_FALSE(c.bytes.empty());
  NpyArray in;
  ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
  const runtime::HostTensor input = FloatInput(in, 0, 2);
  const DeviceRun fsim = RunOn("fsim", c, input);
  ASSERT_TRUE(fsim.status.ok()) << fsim.status.ToString();
  const DeviceRun ocl = RunOn("opencl", c, input);
  ASSERT_TRUE(ocl.status.ok()) << ocl.status.ToString();
  ASSERT_EQ(ocl.out.size(), fsim.out.size());
  for (size_t i = 0; i < ocl.out.size(); ++i) {
    EXPECT_EQ(ocl.out[i].data, fsim.out[i].data) << "opencl output " << ocl.out[i].name;
  }
  EXPECT_EQ(ocl.total.macs, fsim.total.macs);
  EXPECT_EQ(ocl.total.insns, fsim.total.insns);
}

// The quantized blocks stay close to torch's fp32 output: every block measures 33.7–38.3 dB on both
// configs today, so 30 dB catches a regression in quantization or lowering without being tuned to
// one block.
TEST_P(EndToEnd, QuantizedOutputTracksFloat) {
  const auto& [m, config] = GetParam();
  if (m.expected.empty()) GTEST_SKIP() << "no fp32 reference output";
  const Compiled& c = Get(m, config);
  NpyArray in, want;
  ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
  ASSERT_TRUE(ReadNpy(Src(m.expected), &want).ok());
  const DeviceRun r = RunOn("fsim", c, FloatInput(in, 0, in.shape[0]));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.out[0].data.size(), want.bytes.size());
  const double sqnr = quantize::SqnrDb(reinterpret_cast<const float*>(r.out[0].data.data()),
                                       reinterpret_cast<const float*>(want.bytes.data()),
                                       want.bytes.size() / 4);
  RecordProperty("sqnr_db", std::to_string(sqnr));
  EXPECT_GT(sqnr, 30.0) << m.name << ": int8 output SQNR " << sqnr << " dB against fp32";
}

INSTANTIATE_TEST_SUITE_P(e2e, EndToEnd,
                         ::testing::Combine(::testing::ValuesIn(Blocks()),
                                            ::testing::Values("1x8x8", "1x16x16")),
                         [](const auto& i) {
                           return std::get<0>(i.param).name + "_" +
                                  (std::get<1>(i.param) == "1x8x8" ? "1x8x8" : "1x16x16");
                         });

// 1x32x32, the zcu104 and alveo-u250 config, whose wider blocks and buffers change every tiling:
// a residual block, a depthwise block, grouped convolutions (merged into one group: regnet_block;
// two groups of whole 32-channel blocks, a layer per group: resnext_block) and digits, which
// keeps CI's test time in budget.
std::vector<Model> Blocks1x32x32() {
  std::vector<Model> v;
  for (const Model& m : Blocks()) {
    if (m.name == "resnet_basic" || m.name == "mbv2_inverted" || m.name == "regnet_block" ||
        m.name == "resnext_block" || m.name == "digits") {
      v.push_back(m);
    }
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(e2e_1x32x32, EndToEnd,
                         ::testing::Combine(::testing::ValuesIn(Blocks1x32x32()),
                                            ::testing::Values("1x32x32")),
                         [](const auto& i) { return std::get<0>(i.param).name; });

// `--board B` compiles for the board's own config and records the board; an explicit --config
// that disagrees with the board is refused with both names.
TEST(Boards, CompileForABoardUsesItsConfig) {
  const Model m = Blocks().back();
  for (const auto& [board, config_name] : std::vector<std::pair<std::string, std::string>>{
           {"zcu104", "1x32x32"}, {"alveo-u250", "1x32x32"}, {"ultra96-v2", "1x16x16"}}) {
    pipeline::CompileOptions o;
    o.model_path = Src(m.onnx);
    o.board = board;
    o.calibration = {Src(m.calibration)};
    o.measure_sqnr = false;
    pipeline::CompileResult r;
    ASSERT_TRUE(pipeline::CompileModel(o, &r).ok()) << board;
    EXPECT_EQ(r.config.name, config_name) << board;
    package::PackageSpec spec;
    package::LowerOptions lo;
    lo.board = board;
    package::LowerReport lowering;
    ASSERT_TRUE(package::LowerToPackage(r.graph, r.config, lo, &spec, &lowering).ok()) << board;
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(package::SerializePackage(spec, &bytes).ok()) << board;
    std::unique_ptr<runtime::Package> pkg;
    ASSERT_TRUE(runtime::Package::LoadMemory(bytes.data(), bytes.size(), &pkg).ok()) << board;
    EXPECT_EQ(pkg->config().name, config_name) << board;
    EXPECT_EQ(pkg->config().HashHex(), r.config.HashHex()) << board;
    ASSERT_NE(pkg->root().board(), nullptr) << board;
    EXPECT_EQ(pkg->root().board()->str(), board);
  }
  pipeline::CompileOptions o;
  o.model_path = Src(m.onnx);
  o.board = "zcu104";
  o.config = "1x16x16";
  o.calibration = {Src(m.calibration)};
  pipeline::CompileResult r;
  const Status st = pipeline::CompileModel(o, &r);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("board zcu104, which uses config 1x32x32"), std::string::npos)
      << st.ToString();
}

// The packed graph of block `name` on `config` (its Concat and Transpose counts as given, each
// moving int8 bytes, quantized before them) gives on fsim the bytes of the same block compiled
// without first-layer packing, in fewer cycles.
void ExpectPackedKeepsItsBytes(const std::string& name, const char* config, int concats,
                               int transposes) {
  SCOPED_TRACE(name + " on " + config);
  Model m;
  for (const Model& b : Blocks()) m = b.name == name ? b : m;
  ASSERT_EQ(m.name, name);
  NpyArray in;
  ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
  const runtime::HostTensor input = FloatInput(in, 0, in.shape[0]);
  const Compiled& packed = Get(m, config);
  ASSERT_FALSE(packed.bytes.empty());
  int found_concats = 0, found_transposes = 0;
  for (const ir::Node* n : packed.result.graph.nodes()) {
    if (n->op != "Transpose" && n->op != "Concat") continue;
    EXPECT_EQ(packed.result.graph.value(n->outputs[0]).dtype, DType::kI8) << n->op;
    (n->op == "Concat" ? found_concats : found_transposes) += 1;
  }
  EXPECT_EQ(found_concats, concats);
  EXPECT_EQ(found_transposes, transposes);
  Compiled plain;
  const Status st = Compile(m, config, &plain, /*first_layer_packing=*/false);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const DeviceRun a = RunOn("fsim", packed, input), b = RunOn("fsim", plain, input);
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  ASSERT_TRUE(b.status.ok()) << b.status.ToString();
  ASSERT_EQ(a.out.size(), b.out.size());
  for (size_t i = 0; i < a.out.size(); ++i) EXPECT_EQ(a.out[i].data, b.out[i].data);
  EXPECT_LT(a.total.cycles, b.total.cycles);
  std::cout << name << " on " << config << ": " << a.total.cycles << " fsim cycles packed, "
            << b.total.cycles << " unpacked\n";
}

// First-layer packing (passes::PackFirstLayers) moves the stem's 7x7/2 window over 3 channels
// into the channel dimension (space-to-depth, then a width im2col: a 4x1 kernel over 48
// channels): the same int8 results as the unpacked layer (the packed input keeps
// the source's scale and the sums are the same products), in fewer accelerator cycles.
TEST(FirstLayerPacking, StemKeepsItsBytesInFewerCycles) {
  for (const char* config : {"1x8x8", "1x16x16"}) {
    ExpectPackedKeepsItsBytes("resnet_stem", config, /*concats=*/1, /*transposes=*/1);
  }
}

// At stride 1 (VGG's features.0) the pass's width im2col alone: vgg_stem's 3x3/1 pad 1 over 3
// channels of the graph input becomes 3x1 over 9 channels (on 1x16x16 one block, 3 GEMM steps
// instead of 9; on 1x8x8 two blocks, 6 instead of 9). The packed package's bytes on fsim are the
// unpacked one's; EndToEnd runs the same package on cpu, fsim, tsim and opencl. (upsample_block's
// first 3x3/1, over 8 channels, packs too on 1x16x16 and stays on 1x8x8, where 8 fill the block.)
TEST(FirstLayerPacking, Stride1Im2colKeepsItsBytesInFewerCycles) {
  // No space-to-depth at stride 1.
  for (const char* config : {"1x8x8", "1x16x16"}) {
    ExpectPackedKeepsItsBytes("vgg_stem", config, /*concats=*/1, /*transposes=*/0);
  }
}

// The row fold (`--first-layer-fold`) on the configs where it saves GEMM steps: vgg_stem's 3x3/1
// over 3 channels becomes 1x1 over 27 on 1x8x8 and 1x16x16, resnet_stem's conv1 2x1 over 96 on
// 1x32x32, the host writing each channel group's height padding. cpu, fsim and tsim (where
// verilated) give the bytes of the unfolded package. (Cycles are printed, not compared: the folded
// input has more bytes, which on resnet_stem's small image outweighs the GEMM steps saved.)
TEST(FirstLayerPacking, RowFoldKeepsItsBytesOnEveryDevice) {
  const std::pair<const char*, const char*> kCases[] = {
      {"vgg_stem", "1x8x8"}, {"vgg_stem", "1x16x16"}, {"resnet_stem", "1x32x32"}};
  std::unique_ptr<runtime::Driver> probe;
  const bool have_tsim = runtime::CreateDriver("tsim", &probe).ok();
  for (const auto& [name, config] : kCases) {
    SCOPED_TRACE(std::string(name) + " on " + config);
    Model m;
    for (const Model& b : Blocks()) m = b.name == name ? b : m;
    ASSERT_EQ(m.name, name);
    NpyArray in;
    ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
    const runtime::HostTensor input = FloatInput(in, 0, in.shape[0]);
    Compiled folded, plain;
    Status st = Compile(m, config, &folded, /*first_layer_packing=*/true,
                        /*bias_correction=*/false, /*first_layer_fold=*/true);
    ASSERT_TRUE(st.ok()) << st.ToString();
    st = Compile(m, config, &plain);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_NE(folded.bytes, plain.bytes) << "nothing folded";
    const DeviceRun want = RunOn("fsim", plain, input);
    ASSERT_TRUE(want.status.ok()) << want.status.ToString();
    for (const char* device : {"cpu", "fsim", "tsim"}) {
      if (std::string(device) == "tsim" && !have_tsim) continue;
      const DeviceRun got = RunOn(device, folded, input);
      if (got.status.code() == StatusCode::kUnimplemented) continue;  // config not verilated
      ASSERT_TRUE(got.status.ok()) << device << ": " << got.status.ToString();
      ASSERT_EQ(got.out.size(), want.out.size());
      for (size_t i = 0; i < got.out.size(); ++i) {
        EXPECT_EQ(got.out[i].data, want.out[i].data) << device << " output " << i;
      }
      if (std::string(device) == "fsim") {
        std::cout << name << " on " << config << ": " << got.total.cycles << " fsim cycles folded, "
                  << want.total.cycles << " unfolded\n";
      }
    }
  }
}

// Bias correction (quantize/bias_correction.h) changes only int32 bias constants: the corrected
// package of a block with depthwise, squeeze-excitation and hard-swish layers still runs bit for
// bit alike on cpu and fsim, and its biases did move.
TEST(BiasCorrection, CorrectedPackageRunsBitForBitOnCpuAndFsim) {
  Model m;
  for (const Model& b : Blocks()) m = b.name == "mbv3_bneck" ? b : m;
  ASSERT_EQ(m.name, "mbv3_bneck");
  NpyArray in;
  ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
  const runtime::HostTensor input = FloatInput(in, 0, in.shape[0]);
  Compiled c;
  const Status st = Compile(m, "1x8x8", &c, /*first_layer_packing=*/true,
                            /*bias_correction=*/true);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_GT(c.result.bias_correction.layers, 0);
  EXPECT_GT(c.result.bias_correction.mean_abs_shift, 0.0);
  const Compiled& plain = Get(m, "1x8x8");
  EXPECT_NE(c.bytes, plain.bytes);
  const DeviceRun cpu = RunOn("cpu", c, input), fsim = RunOn("fsim", c, input);
  ASSERT_TRUE(cpu.status.ok()) << cpu.status.ToString();
  ASSERT_TRUE(fsim.status.ok()) << fsim.status.ToString();
  ASSERT_EQ(cpu.out.size(), fsim.out.size());
  for (size_t i = 0; i < cpu.out.size(); ++i) EXPECT_EQ(cpu.out[i].data, fsim.out[i].data);
}

// The example model: int8 top-1 on fsim over the whole test set is within 1 point of fp32.
TEST(Digits, Int8AccuracyOnFsimWithinOnePointOfFp32) {
  const Model m = Blocks().back();
  const Compiled& c = Get(m, "1x16x16");
  NpyArray images, labels;
  ASSERT_TRUE(ReadNpy(Src("examples/digits/test_images.npy"), &images).ok());
  ASSERT_TRUE(ReadNpy(Src("examples/digits/test_labels.npy"), &labels).ok());
  std::vector<int64_t> y;
  ASSERT_TRUE(NpyToVector(labels, &y).ok());
  const DeviceRun r = RunOn("fsim", c, FloatInput(images, 0, images.shape[0]));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  const float* logits = reinterpret_cast<const float*>(r.out[0].data.data());
  const size_t classes = r.out[0].data.size() / 4 / y.size();
  size_t correct = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const float* row = logits + i * classes;
    correct += static_cast<int64_t>(std::max_element(row, row + classes) - row) == y[i];
  }
  const double int8_acc = 100.0 * double(correct) / double(y.size());
  // fp32 accuracy: the imported float graph on the compiler's interpreter, image by image.
  ir::Graph fp32;
  ASSERT_TRUE(frontend::ImportOnnxFile(Src(m.onnx), {}, &fp32).ok());
  size_t fp32_correct = 0;
  for (int64_t i = 0; i < images.shape[0]; ++i) {
    const runtime::HostTensor one = FloatInput(images, i, 1);
    ir::Tensor x;
    ASSERT_TRUE(ir::Tensor::FromBytes(DType::kF32, one.shape, one.data, &x).ok());
    std::vector<ir::Tensor> outs;
    ASSERT_TRUE(interp::Run(fp32, std::vector<ir::Tensor>{x}, &outs).ok());
    const float* row = outs[0].data<float>();
    const int64_t n = outs[0].num_elements();
    fp32_correct += static_cast<int64_t>(std::max_element(row, row + n) - row) == y[static_cast<size_t>(i)];
  }
  const double fp32_acc = 100.0 * double(fp32_correct) / double(y.size());
  std::cout << "digits: fp32 " << fp32_acc << " %, int8 on fsim " << int8_acc << " % ("
            << correct << "/" << y.size() << "), " << r.total.cycles << " cycles\n";
  EXPECT_GE(int8_acc, fp32_acc - 1.0);
}

// A blocked activation whose padded size does not fit 64 bits is an error naming the value, not
// a wrapped arena size.
TEST(Lowering, BlockedSizeOverflowIsRefused) {
  HwConfig config;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &config).ok());
  ir::Graph g;
  const int64_t big = 0xffffffff;
  const ir::ValueId x = g.AddInput("x", DType::kI8, {big, big, big, big});
  g.value(x).layout = ir::Layout::kBlocked;
  g.AddOutput(x);
  package::PackageSpec spec;
  package::LowerReport report;
  const Status s = package::LowerToPackage(g, config, {}, &spec, &report);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("value x: its blocked size overflows"), std::string::npos)
      << s.ToString();
}

// Conv + max pool fusion (tensorize/conv2d_pool.h): each stem's max pool runs inside its
// convolution's program (the conv's output never reaches DRAM), with on fsim the bytes of the
// pair lowered apart (`loom compile --no-fuse-pool`), in fewer cycles. EndToEnd runs the fused
// packages on cpu, fsim, tsim and opencl.
TEST(PoolFusion, StemsKeepTheirBytesInFewerCycles) {
  for (const char* name : {"resnet_stem", "vgg_stem"}) {
    for (const char* config : {"1x8x8", "1x16x16"}) {
      SCOPED_TRACE(std::string(name) + " on " + config);
      Model m;
      for (const Model& b : Blocks()) m = b.name == name ? b : m;
      NpyArray in;
      ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
      const runtime::HostTensor input = FloatInput(in, 0, in.shape[0]);
      const Compiled& fused = Get(m, config);
      ASSERT_FALSE(fused.bytes.empty());
      int pools = 0;
      for (const package::LayerLowering& l : fused.lowering.layers) {
        if (l.op != "q.max_pool") continue;
        ++pools;
        EXPECT_EQ(l.tiling, "fused") << l.name;
        EXPECT_FALSE(l.fused_with.empty()) << l.name;
      }
      EXPECT_EQ(pools, 1);
      Compiled apart;
      const Status st = Compile(m, config, &apart, /*first_layer_packing=*/true,
                                /*bias_correction=*/false, /*first_layer_fold=*/false,
                                /*fuse_pool=*/false);
      ASSERT_TRUE(st.ok()) << st.ToString();
      for (const package::LayerLowering& l : apart.lowering.layers)
        EXPECT_TRUE(l.fused_with.empty());
      const DeviceRun a = RunOn("fsim", fused, input), b = RunOn("fsim", apart, input);
      ASSERT_TRUE(a.status.ok()) << a.status.ToString();
      ASSERT_TRUE(b.status.ok()) << b.status.ToString();
      ASSERT_EQ(a.out.size(), b.out.size());
      for (size_t i = 0; i < a.out.size(); ++i) EXPECT_EQ(a.out[i].data, b.out[i].data);
      EXPECT_LT(a.total.cycles, b.total.cycles);
      std::cout << name << " on " << config << ": " << a.total.cycles << " fsim cycles fused, "
                << b.total.cycles << " apart\n";
    }
  }
}

}  // namespace
}  // namespace loom
