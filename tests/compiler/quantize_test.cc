// Quantization: the requantization arithmetic's guarantees, graph packing and partitioning rules,
// and the end-to-end accuracy of the digits example on the int8 kernels.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

#include "compiler/frontend/onnx_import.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/pack/pack.h"
#include "compiler/package/lower.h"
#include "compiler/partition/partition.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/pipeline/compile.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/requant.h"
#include "runtime/io/npy.h"
#include "runtime/kernels/int8/qops.h"

namespace loom {
namespace {

TEST(Requant, ProductNeverWrapsAndMultiplierIsAccurate) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> log_real(-20.0, 2.0);
  std::uniform_int_distribution<int64_t> bound(1, int64_t{1} << 30);
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<double> real(4);
    for (double& r : real) r = std::exp2(log_real(rng));
    const int64_t a = bound(rng);
    quantize::ChannelRequant rq;
    ASSERT_TRUE(quantize::ChooseChannelRequant(real, a, &rq).ok());
    const int64_t shifted = (a + (int64_t{1} << rq.pre_shift) - 1) >> rq.pre_shift;
    double max_real = 0;
    for (double r : real) max_real = std::max(max_real, r);
    for (size_t o = 0; o < real.size(); ++o) {
      ASSERT_LT((shifted + 1) * std::abs(int64_t{rq.mult[o]}), int64_t{1} << 31);
      const double approx = std::ldexp(rq.mult[o], -(rq.pre_shift + rq.post_shift));
      // The largest multiplier keeps ~15 bits unless post_shift hit a clamp (0 or 31: real
      // multipliers far outside the usual 2^-20..1, documented in requant.h).
      if (real[o] == max_real && rq.post_shift > 0 && rq.post_shift < 31) {
        EXPECT_NEAR(approx / real[o], 1.0, 1.0 / (1 << 13)) << real[o];
      }
    }
    // And the kernel's requantization then matches real arithmetic for the extreme accumulator.
    kernels::q::Requant k;
    k.pre_shift = rq.pre_shift;
    k.post_shift = rq.post_shift;
    const int32_t acc = static_cast<int32_t>(a);
    const double want = std::clamp(std::nearbyint(acc * max_real), -128.0, 127.0);
    const size_t big = static_cast<size_t>(
        std::max_element(real.begin(), real.end()) - real.begin());
    if (rq.post_shift > 0 && rq.post_shift < 31) {
      EXPECT_NEAR(kernels::q::Requantize(acc, rq.mult[big], k), want, 1.0);
    }
  }
}

TEST(Requant, RescaleKeepsExactRatios) {
  quantize::Rescale r;
  ASSERT_TRUE(quantize::ChooseRescale({1.0}, 32767, &r).ok());
  EXPECT_EQ(r.mult, std::vector<int32_t>{1});
  EXPECT_EQ(r.shift, 0);
  ASSERT_TRUE(quantize::ChooseRescale({0.7, 0.3}, 32767, &r).ok());
  EXPECT_LE(r.mult[0], 32767);
  EXPECT_NEAR(std::ldexp(r.mult[0], -r.shift), 0.7, 1e-4);
  EXPECT_NEAR(std::ldexp(r.mult[1], -r.shift), 0.3, 1e-4);
  quantize::ChannelRequant rq;
  const Status s = quantize::ChooseChannelRequant({1.0}, int64_t{1} << 32, &rq);
  EXPECT_NE(s.message().find("beyond int32"), std::string::npos) << s.message();
}

TEST(PassRegistry, LaterStagesRegisterTheirOwnPasses) {
  for (const char* name : {"import-qdq", "quantize", "graph-pack", "partition"}) {
    pipeline::RegisterAllPasses();
    const passes::PassInfo* p = passes::FindPass(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_NE(p->run, nullptr);
  }
  // Idempotent: a second call registers nothing twice (a duplicate name would abort).
  const size_t n = passes::AllPasses().size();
  pipeline::RegisterAllPasses();
  EXPECT_EQ(passes::AllPasses().size(), n);
}

TEST(Pack, RejectsUnequalBlocks) {
  HwConfig c;
  c.name = "odd";
  c.block_in = 16;
  c.block_out = 32;
  ir::Graph g;
  const Status s = pack::PackGraph(g, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("block_in == block_out"), std::string::npos) << s.message();
}

// Parses and verifies `text`, then partitions it for the default config.
void PartitionText(const std::string& text, ir::Graph* g, partition::PartitionReport* r) {
  const Status parsed = ir::ParseGraph(text, g);
  ASSERT_TRUE(parsed.ok()) << parsed.ToString();
  const Status verified = ir::Verify(*g);
  ASSERT_TRUE(verified.ok()) << verified.ToString();
  ASSERT_TRUE(partition::PartitionGraph(*g, HwConfig(), r).ok());
}

// A padded max pool goes to the accelerator whatever its input's range: it pads with -128, which
// no real element is below (before, only over a ReLU output, clip_lo 0, did).
TEST(Partition, PaddedMaxPoolRunsOnTheAcceleratorOnAnyInput) {
  const char* text = R"(graph @g(%x: f32[1,16,4,4]) {
  %w: i8[16,16,1,1] = const splat(1)
  %m: i32[16] = const splat(1)
  %xq: i8[1,16,4,4] quant(scale=0.1, zero_point=0) = q.quantize(%x)
  %c: i8[1,16,4,4] quant(scale=0.1, zero_point=0) = q.conv2d(%xq, %w, _, %m) {clip_hi = 127, clip_lo = CLIP, depthwise = 0, kernel = [1, 1], pads = [0, 0, 0, 0], post_shift = 0, pre_shift = 0, strides = [1, 1]}
  %p: i8[1,16,4,4] quant(scale=0.1, zero_point=0) = q.max_pool(%c) {kernel = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]}
  %y: f32[1,16,4,4] = q.dequantize(%p)
  return %y
})";
  for (int clip : {-128, 0}) {
    std::string t = text;
    t.replace(t.find("CLIP"), 4, std::to_string(clip));
    ir::Graph g;
    partition::PartitionReport r;
    PartitionText(t, &g, &r);
    const partition::NodePlacement& pool = r.nodes[2];
    ASSERT_EQ(pool.op, "q.max_pool");
    EXPECT_EQ(pool.target, "accel") << pool.reason;
    EXPECT_EQ(r.nodes[1].target, "accel");
    EXPECT_EQ(r.nodes[0].target, "cpu");
    EXPECT_EQ(r.nodes[1].macs, 16 * 16 * 16);
  }
}

// q.mul and q.avg_pool with zero-point offsets run on the accelerator only on tensors without
// padding lanes (the offsets would make them non-zero): 20 channels of a 16-lane block stay on the
// CPU with the reason in the offload table, 32 channels go to the accelerator. The values carry
// the zero points the offsets stand for (the verifier checks that they agree).
TEST(Partition, ZeroPointOffsetsNeedNoPaddingLanes) {
  const char* text = R"(graph @g(%x: f32[1,C,4,4]) {
  %xq: i8[1,C,4,4] quant(scale=0.05, zero_point=-128) = q.quantize(%x)
  %h: i8[1,C,4,4] quant(scale=0.05, zero_point=-128) = q.mul(%xq, %xq) {a_offset = 128, b_hi = 127, b_lo = 0, b_mult = 1, b_offset = 128, clip_hi = 127, clip_lo = -128, mult = 1000, out_offset = -128, post_shift = 10, pre_shift = 0}
  %m: i32[16] = const splat(1024)
  %p: i8[1,C,1,1] quant(scale=0.05, zero_point=-128) = q.avg_pool(%h, %m) {clip_hi = 127, clip_lo = -128, count_include_pad = 0, kernel = [4, 4], out_offset = -128, pads = [0, 0, 0, 0], post_shift = 14, pre_shift = 0, strides = [1, 1], x_offset = 128}
  %y: f32[1,C,1,1] = q.dequantize(%p)
  return %y
})";
  for (int channels : {20, 32}) {
    SCOPED_TRACE(channels);
    std::string t = text;
    for (size_t at = t.find(",C,"); at != std::string::npos; at = t.find(",C,")) {
      t.replace(at, 3, "," + std::to_string(channels) + ",");
    }
    ir::Graph g;
    partition::PartitionReport r;
    PartitionText(t, &g, &r);
    ASSERT_EQ(r.nodes.size(), 4u);
    for (size_t i : {size_t{1}, size_t{2}}) {
      const partition::NodePlacement& p = r.nodes[i];
      if (channels == 32) {
        EXPECT_EQ(p.target, "accel") << p.op << ": " << p.reason;
      } else {
        EXPECT_EQ(p.target, "cpu") << p.op;
        EXPECT_NE(p.reason.find("need C a multiple of 16 and N of 1: the offsets would make the "
                                "padding lanes non-zero"),
                  std::string::npos)
            << p.reason;
      }
    }
  }
}

// Random calibration allocates every sample up front: a 2^40-element input is refused naming the
// input, and so is a sample count whose total passes the per-tensor limit.
TEST(Calibration, RandomSamplesAreBounded) {
  ir::Graph huge;
  ASSERT_TRUE(ir::ParseGraph(R"(graph @g(%x: f32[1,1,1048576,1048576]) {
  %y: f32[1,1,1048576,1048576] = Relu(%x)
  return %y
})",
                             &huge)
                  .ok());
  std::vector<quantize::Sample> set;
  Status s = quantize::RandomCalibrationSet(huge, 8, 0, &set);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("random calibration sample of model input 'x': tensor "
                             "f32[1,1,1048576,1048576] needs 4398046511104 bytes"),
            std::string::npos)
      << s.message();
  // The quantize pass (loom-opt -p quantize) goes through the same check.
  pipeline::RegisterAllPasses();
  s = passes::RunPipeline({"quantize"}, &huge);
  EXPECT_NE(s.message().find("model input 'x'"), std::string::npos) << s.message();

  ir::Graph big;  // 256 MiB per sample: 16 of them pass the 4 GiB limit together
  ASSERT_TRUE(ir::ParseGraph(R"(graph @g(%x: f32[1,64,1024,1024]) {
  %y: f32[1,64,1024,1024] = Relu(%x)
  return %y
})",
                             &big)
                  .ok());
  s = quantize::RandomCalibrationSet(big, 17, 0, &set);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("17 samples of the model's inputs need more than the 4294967296 "
                             "bytes"),
            std::string::npos)
      << s.message();
}

// The quantization error of `x` on the symmetric int8 grid of `range` (the quantizer's rounding).
double QuantError(const std::vector<float>& x, double range) {
  const double s = range / 127.0;
  double e = 0.0;
  for (float v : x) {
    const double q = std::max(-127.0, std::min(127.0, std::nearbyint(v / s)));
    e += (v - q * s) * (v - q * s);
  }
  return e;
}

// Calibrated ranges of a Relu's input for `method` over `samples` [1, n] samples.
float RangeOf(const std::vector<std::vector<float>>& samples, quantize::CalibrationMethod method) {
  const int64_t n = static_cast<int64_t>(samples[0].size());
  ir::Graph g;
  const std::string text = "graph @g(%x: f32[1," + std::to_string(n) + "]) {\n  %y: f32[1," +
                           std::to_string(n) + "] = Relu(%x)\n  return %y\n}";
  EXPECT_TRUE(ir::ParseGraph(text, &g).ok());
  std::vector<quantize::Sample> set;
  for (const auto& v : samples) {
    ir::Tensor t;
    EXPECT_TRUE(ir::Tensor::Create(DType::kF32, {1, n}, &t).ok());
    std::copy(v.begin(), v.end(), t.mutable_data<float>());
    set.push_back({std::move(t)});
  }
  quantize::CalibrationOptions o;
  o.method = method;
  quantize::Ranges r;
  EXPECT_TRUE(quantize::CollectRanges(g, set, o, &r).ok());
  return r[g.inputs()[0]];
}

// `mse` picks the range of (nearly) least squared error on the calibration data: below the error of
// both the max (which the tails make too wide) and the 99.99th percentile, and its range carries
// over to held-out data of the same distribution (within 5 % of that data's own best range).
TEST(Calibration, MseRangeMinimizesQuantizationError) {
  quantize::CalibrationMethod m;
  ASSERT_TRUE(quantize::ParseCalibrationMethod("mse", &m));
  EXPECT_EQ(m, quantize::CalibrationMethod::kMse);
  EXPECT_STREQ(quantize::CalibrationMethodName(m), "mse");

  std::mt19937 rng(7);
  std::student_t_distribution<float> heavy(4.0f);  // activations' tails are heavier than normal
  std::vector<std::vector<float>> calib(4, std::vector<float>(20000));
  std::vector<float> all, held_out(80000);
  for (auto& v : calib) {
    for (float& x : v) x = heavy(rng);
    all.insert(all.end(), v.begin(), v.end());
  }
  for (float& x : held_out) x = heavy(rng);
  auto best_error = [](const std::vector<float>& x) {
    double best = std::numeric_limits<double>::infinity();
    for (double c = 0.5; c < 100.0; c *= 1.005) best = std::min(best, QuantError(x, c));
    return best;
  };

  const float mse = RangeOf(calib, quantize::CalibrationMethod::kMse);
  const float pct = RangeOf(calib, quantize::CalibrationMethod::kPercentile);
  const float max = RangeOf(calib, quantize::CalibrationMethod::kMinMax);
  EXPECT_LT(mse, max);
  EXPECT_LT(QuantError(all, mse), best_error(all) * 1.02) << "mse range " << mse;
  EXPECT_LT(QuantError(all, mse), QuantError(all, pct)) << mse << " vs " << pct;
  EXPECT_LT(QuantError(all, mse), QuantError(all, max)) << mse << " vs " << max;
  EXPECT_LT(QuantError(held_out, mse), best_error(held_out) * 1.05) << "mse range " << mse;
}

// Calibration files are read through runtime/io/file.h (ReadNpy): a device or FIFO is refused by
// path before anything is read.
TEST(Calibration, FilesMustBeRegular) {
  ir::Graph g;
  ASSERT_TRUE(ir::ParseGraph(R"(graph @g(%x: f32[1,4]) {
  %y: f32[1,4] = Relu(%x)
  return %y
})",
                             &g)
                  .ok());
  std::vector<quantize::Sample> set;
  const Status s = quantize::LoadCalibrationSet(g, {"x=/dev/zero"}, &set);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("/dev/zero is a character device"), std::string::npos) << s.message();
}

// `loom compile --calibration` on a model with an int64 input (Gather's indices): each file has
// its input's own type, and a file of another type or shape is refused naming both.
TEST(Calibration, IntegerInputsTakeSamplesOfTheirOwnType) {
  const std::string tmp = ::testing::TempDir() + "calib_int_" + std::to_string(getpid()) + "_";
  NpyArray x{DType::kF32, {2, 4, 3, 3}, std::vector<uint8_t>(2 * 36 * 4)};
  for (size_t i = 0; i < 72; ++i) {
    const float v = static_cast<float>(i % 9) - 4.0f;
    std::memcpy(x.bytes.data() + 4 * i, &v, 4);
  }
  const int64_t picks[4] = {3, 0, 1, 2};  // two samples of idx [2]
  NpyArray idx{DType::kI64, {4}, std::vector<uint8_t>(32)};
  std::memcpy(idx.bytes.data(), picks, 32);
  NpyArray idx_f32{DType::kF32, {4}, std::vector<uint8_t>(16)};
  NpyArray idx_3{DType::kI64, {3}, std::vector<uint8_t>(24)};
  ASSERT_TRUE(WriteNpy(tmp + "x.npy", x).ok());
  ASSERT_TRUE(WriteNpy(tmp + "idx.npy", idx).ok());
  ASSERT_TRUE(WriteNpy(tmp + "idx_f32.npy", idx_f32).ok());
  ASSERT_TRUE(WriteNpy(tmp + "idx_3.npy", idx_3).ok());

  pipeline::CompileOptions o;
  o.model_path = std::string(LOOM_SOURCE_DIR) + "/tests/compiler/inputs/int_input.onnx";
  o.config = "1x8x8";
  o.calibration = {"x=" + tmp + "x.npy", "idx=" + tmp + "idx.npy"};
  o.output_path = tmp + "int_input.loom";
  pipeline::CompileResult r;
  Status s = pipeline::CompileModel(o, &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(r.calibration_samples, 2);
  EXPECT_FALSE(r.random_calibration);
  ASSERT_TRUE(pipeline::WritePackage(r.graph, r.config, o, r, nullptr).ok());

  o.calibration[1] = "idx=" + tmp + "idx_f32.npy";
  s = pipeline::CompileModel(o, &r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("idx_f32.npy: model input 'idx' is i64[2], so its calibration data "
                             "must be int64, not float32"),
            std::string::npos)
      << s.message();
  o.calibration[1] = "idx=" + tmp + "idx_3.npy";
  s = pipeline::CompileModel(o, &r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("idx_3.npy: shape [3] does not stack samples of input 'idx' [2]"),
            std::string::npos)
      << s.message();
  // Without files an integer input has nothing to be calibrated on.
  o.calibration.clear();
  s = pipeline::CompileModel(o, &r);
  EXPECT_NE(s.message().find("random calibration needs f32 inputs (give --calibration)"),
            std::string::npos)
      << s.message();
  for (const char* f : {"x.npy", "idx.npy", "idx_f32.npy", "idx_3.npy", "int_input.loom"}) {
    std::remove((tmp + f).c_str());
  }
}

// A bool input's samples are bytes 0 or 1; anything else is no bool the kernels may read.
TEST(Calibration, BoolSamplesAreZeroOrOne) {
  ir::Graph g;
  ASSERT_TRUE(ir::ParseGraph(R"(graph @g(%m: bool[1,4]) {
  %y: bool[1,4] = Not(%m)
  return %y
})",
                             &g)
                  .ok());
  const std::string path = ::testing::TempDir() + "calib_bool_" + std::to_string(getpid()) + ".npy";
  ASSERT_TRUE(WriteNpy(path, NpyArray{DType::kBool, {1, 4}, {0, 1, 2, 1}}).ok());
  std::vector<quantize::Sample> set;
  const Status s = quantize::LoadCalibrationSet(g, {path}, &set);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("element 2 is 2; a bool array holds 0 or 1"), std::string::npos)
      << s.message();
  ASSERT_TRUE(WriteNpy(path, NpyArray{DType::kBool, {2, 4}, {0, 1, 0, 1, 1, 1, 0, 0}}).ok());
  ASSERT_TRUE(quantize::LoadCalibrationSet(g, {path}, &set).ok());
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set[1][0].dtype(), DType::kBool);
  EXPECT_EQ(set[1][0].bytes()[1], 1);
  std::remove(path.c_str());
}

// IR text through packing and partitioning for the default config, then lowered into *spec.
Status PartitionAndLower(const char* text, partition::PartitionReport* r,
                         package::PackageSpec* spec) {
  ir::Graph g;
  LOOM_RETURN_IF_ERROR(ir::ParseGraph(text, &g));
  const HwConfig c;
  LOOM_RETURN_IF_ERROR(pack::PackGraph(g, c));
  LOOM_RETURN_IF_ERROR(partition::PartitionGraph(g, c, r));
  package::LowerReport report;
  return package::LowerToPackage(g, c, {}, spec, &report);
}

// A CPU layer's window is written into the package's 32-bit fields: a stride of 2^32 is an error
// naming the attribute, not a stride of 0 in the package.
TEST(Lowering, WindowFieldsAreNotTruncated) {
  partition::PartitionReport r;
  package::PackageSpec spec;
  const Status s = PartitionAndLower(R"(graph @g(%x: f32[1,16,4,4]) {
  %c: i8[1,16,4,4] quant(scale=0.1, zero_point=0) = q.quantize(%x)
  %p: i8[1,16,1,4] quant(scale=0.1, zero_point=0) = q.max_pool(%c) {kernel = [3, 1], pads = [0, 0, 0, 0], strides = [4294967296, 1]}
  %y: f32[1,16,1,4] = q.dequantize(%p)
  return %y
})",
                                     &r, &spec);
  ASSERT_EQ(r.nodes.size(), 3u);
  ASSERT_EQ(r.nodes[1].op, "q.max_pool");
  EXPECT_EQ(r.nodes[1].target, "cpu");
  EXPECT_EQ(r.nodes[1].reason, "window attributes beyond the accelerator's 32-bit fields");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("q.max_pool) -> %p: strides[0] = 4294967296 does not fit the "
                             "package's 32-bit field"),
            std::string::npos)
      << s.message();
}

// The q.* attributes the package stores in 32 bits (and the accelerator in a 16-bit immediate) are
// bounded by the op table: a value past them is an error naming the node, attribute and value,
// never a truncated multiplier in the package.
TEST(Lowering, QuantizedAttributesAreRangeChecked) {
  partition::PartitionReport r;
  package::PackageSpec spec;
  Status s = PartitionAndLower(R"(graph @g(%a: f32[1,16,4,4], %b: f32[1,16,4,4]) {
  %qa: i8[1,16,4,4] quant(scale=0.1, zero_point=0) = q.quantize(%a)
  %qb: i8[1,16,4,4] quant(scale=0.1, zero_point=0) = q.quantize(%b)
  %s: i8[1,16,4,4] quant(scale=0.1, zero_point=0) = q.add(%qa, %qb) {clip_hi = 127, clip_lo = -128, mult_a = 4294967297, mult_b = 1, shift = 0}
  %y: f32[1,16,4,4] = q.dequantize(%s)
  return %y
})",
                               &r, &spec);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("(q.add) -> %s: attribute 'mult_a' = 4294967297 is outside [-32768, "
                             "32767]"),
            std::string::npos)
      << s.message();
  s = PartitionAndLower(R"(graph @g(%a: f32[1,16,4,4], %b: f32[1,16,4,4]) {
  %qa: i8[1,16,4,4] quant(scale=0.1, zero_point=0) = q.quantize(%a)
  %qb: i8[1,16,4,4] quant(scale=0.1, zero_point=0) = q.quantize(%b)
  %c: i8[1,32,4,4] quant(scale=0.1, zero_point=0) = q.concat(%qa, %qb) {mults = [1, 1], shifts = [0, 40]}
  %y: f32[1,32,4,4] = q.dequantize(%c)
  return %y
})",
                        &r, &spec);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("(q.concat) -> %c: attribute 'shifts'[1] = 40 is outside [-31, 31]"),
            std::string::npos)
      << s.message();
}

// A product left in float on the CPU carries its MACs in the package, as the int8 ones do, so the
// offload ratio by MACs counts it (loom inspect, bench/zoo).
TEST(Lowering, FloatProductsCarryTheirMacs) {
  partition::PartitionReport r;
  package::PackageSpec spec;
  const Status s = PartitionAndLower(R"(graph @g(%x: f32[1,3,8]) {
  %w: f32[8,5] = const splat(0.5)
  %y: f32[1,3,5] = MatMul(%x, %w)
  return %y
})",
                                     &r, &spec);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(spec.segments.size(), 1u);
  ASSERT_EQ(spec.segments[0].ops.size(), 1u);
  EXPECT_EQ(spec.segments[0].ops[0].macs, uint64_t{3 * 5 * 8});
  EXPECT_EQ(spec.segments[0].macs, uint64_t{3 * 5 * 8});
}

int Argmax(const ir::Tensor& t, int64_t row, int64_t classes) {
  const float* p = t.data<float>() + row * classes;
  return static_cast<int>(std::max_element(p, p + classes) - p);
}

// The issue's acceptance test: int8 top-1 within 1 point of fp32 on the digits test set, with the
// committed calibration set; both graphs run on the interpreter (the int8 one on the int8 kernels).
TEST(Digits, Int8AccuracyWithinOnePointOfFp32) {
  const std::string dir = std::string(LOOM_SOURCE_DIR) + "/examples/digits/";
  pipeline::CompileOptions o;
  o.model_path = dir + "digits.onnx";
  o.calibration = {dir + "calibration.npy"};
  o.measure_sqnr = true;
  pipeline::CompileResult r;
  const Status st = pipeline::CompileModel(o, &r);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_GE(r.quant.layers.size(), 7u);
  for (double s : r.sqnr_db) EXPECT_GT(s, 15.0);

  ir::Graph fg;
  ASSERT_TRUE(frontend::ImportOnnxFile(o.model_path, {}, &fg).ok());
  ASSERT_TRUE(passes::RunPipeline(passes::DefaultPipeline(), &fg).ok());

  NpyArray images, labels;
  ASSERT_TRUE(ReadNpy(dir + "test_images.npy", &images).ok());
  ASSERT_TRUE(ReadNpy(dir + "test_labels.npy", &labels).ok());
  const int64_t n = images.shape[0];
  ASSERT_EQ(labels.shape[0], n);
  std::vector<int64_t> label(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    label[static_cast<size_t>(i)] = labels.dtype == DType::kI64
                                        ? reinterpret_cast<const int64_t*>(labels.bytes.data())[i]
                                        : reinterpret_cast<const int32_t*>(labels.bytes.data())[i];
  }
  int fp32_correct = 0, int8_correct = 0, agree = 0;
  std::vector<ir::Tensor> fo, qo;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<uint8_t> bytes(images.bytes.begin() + i * 64 * 4,
                               images.bytes.begin() + (i + 1) * 64 * 4);
    ir::Tensor x;
    ASSERT_TRUE(ir::Tensor::FromBytes(DType::kF32, {1, 1, 8, 8}, bytes, &x).ok());
    ASSERT_TRUE(interp::Run(fg, {x}, &fo).ok());
    const Status qs = interp::Run(r.graph, {x}, &qo);
    ASSERT_TRUE(qs.ok()) << qs.ToString();
    const int pf = Argmax(fo[0], 0, 10), pq = Argmax(qo[0], 0, 10);
    fp32_correct += pf == label[static_cast<size_t>(i)];
    int8_correct += pq == label[static_cast<size_t>(i)];
    agree += pf == pq;
  }
  const double fp32 = 100.0 * fp32_correct / static_cast<double>(n);
  const double int8 = 100.0 * int8_correct / static_cast<double>(n);
  std::printf("digits top-1: fp32 %.2f%% (%d/%lld), int8 %.2f%% (%d/%lld), agreement %d/%lld\n",
              fp32, fp32_correct, static_cast<long long>(n), int8, int8_correct,
              static_cast<long long>(n), agree, static_cast<long long>(n));
  EXPECT_NEAR(fp32, 99.72, 0.01);  // expected.json
  EXPECT_LE(fp32 - int8, 1.0);
}

}  // namespace
}  // namespace loom
