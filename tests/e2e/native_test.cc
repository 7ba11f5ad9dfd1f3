// Native code (docs/cpu.md, "Native code") end to end: blocks of the zoo and the digits model
// compiled with LLVM for this host run on the cpu device through their native functions, and
// their bytes equal the portable kernels' (the same package with native code off) and fsim's.
// On x86-64 each CPU level's convolutions run different code: the reference body (x86-64), the
// AVX2 rows (x86-64-v3, every block on 1x8x8) and the AVX-512 VNNI rows (cascadelake, 1x16x16,
// where this CPU has VNNI).
// Convolutions with a pad value (asymmetric activations) run on each of these against the
// reference kernels. Also: a package with code only for other targets or CPU features runs on
// the kernels with a one-line notice, and an object the loader refuses fails executor creation
// with its name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/package/lower.h"
#include "compiler/package/writer.h"
#include "compiler/pipeline/compile.h"
#include "runtime/drivers/sim/sim_drivers.h"
#include "runtime/exec/executor.h"
#include "runtime/exec/native_ops.h"
#include "runtime/io/npy.h"

namespace loom {
namespace {

using ::testing::HasSubstr;

std::string Src(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }

struct Model {
  std::string name, onnx, calibration, input;
};

void PrintTo(const Model& m, std::ostream* os) { *os << m.name; }

// Small blocks that between them hold every operator native code runs: convolutions (3x3, 1x1,
// depthwise, strided, dense), Add, Mul (squeeze-excitation, hard-swish), max and average
// pooling, Concat, Resize and ZeroInsert; and grouped convolutions, which native code leaves to
// the runtime's kernels.
std::vector<Model> Models() {
  std::vector<Model> v;
  for (const char* b : {"resnet_basic", "mbv3_bneck", "squeeze_fire", "upsample_block",
                        "deconv_block", "resnet_stem", "wide_conv", "resnext_block"}) {
    const std::string p = std::string("tests/e2e/models/") + b;
    v.push_back({b, p + ".onnx", p + "_calibration.npy", p + "_input.npy"});
  }
  v.push_back({"digits", "examples/digits/digits.onnx", "examples/digits/calibration.npy",
               "examples/digits/test_images.npy"});
  return v;
}

const Model& Small() {
  static const Model m = Models()[5];  // resnet_stem: quick to compile
  return m;
}

// The model compiled for `config` (the portable package's spec).
Status CompileSpec(const Model& m, package::PackageSpec* spec,
                   const std::string& config = "1x8x8") {
  pipeline::CompileOptions o;
  o.model_path = Src(m.onnx);
  o.config = config;
  o.calibration = {Src(m.calibration)};
  o.measure_sqnr = false;
  pipeline::CompileResult result;
  LOOM_RETURN_IF_ERROR(pipeline::CompileModel(o, &result));
  package::LowerOptions lo;
  lo.provenance.model_name = m.name;
  package::LowerReport report;
  return package::LowerToPackage(result.graph, result.config, lo, spec, &report);
}

runtime::HostTensor FirstSample(const NpyArray& a) {
  runtime::HostTensor t;
  t.type = DType::kF32;
  t.shape = a.shape;
  t.shape[0] = 1;
  t.data.assign(a.bytes.begin(),
                a.bytes.begin() + static_cast<std::ptrdiff_t>(a.bytes.size() / a.shape[0]));
  return t;
}

struct Opened {
  Status status;
  std::unique_ptr<runtime::Executor> exec;
};

Opened Open(const package::PackageSpec& spec, const std::string& device, bool native,
            const std::string& cpu_kernels = "") {
  Opened o;
  std::vector<uint8_t> bytes;
  o.status = package::SerializePackage(spec, &bytes);
  std::unique_ptr<runtime::Package> pkg;
  if (o.status.ok()) o.status = runtime::Package::LoadMemory(bytes.data(), bytes.size(), &pkg);
  std::unique_ptr<runtime::Driver> drv;
  if (o.status.ok()) o.status = runtime::RegisterSimulatorDrivers();
  if (o.status.ok()) o.status = runtime::CreateDriver(device, &drv);
  runtime::ExecutorOptions options;
  options.native_code = native;
  options.cpu_kernels = cpu_kernels;
  if (o.status.ok()) {
    o.status = runtime::Executor::Create(std::move(pkg), std::move(drv), options, &o.exec);
  }
  return o;
}

// Outputs are dequantized with one multiplication by the output scale, so equal float bits mean
// equal int8 results.
std::vector<runtime::HostTensor> Outputs(runtime::Executor& e, const runtime::HostTensor& input) {
  std::vector<runtime::HostTensor> out;
  const Status s = e.Run({input}, {}, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

bool HostHasNativeTarget() { return !codegen::HostTargetName().empty(); }

// The host's target at its baseline CPU, so the tests run on every x86-64 CI machine (AVX2 code
// is what the benchmarks measure) and compile quickly.
std::vector<codegen::CpuTarget> HostBaseline() {
  std::vector<codegen::CpuTarget> targets;
  const Status s = codegen::ParseCpuTargets(
      codegen::HostTargetName() == "x86_64" ? "x86_64:x86-64" : "host", &targets);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return targets;
}

// Compiles `m` for `config` with native code for `cpu` ("x86_64:x86-64-v3", or "host") and
// checks its outputs byte for byte against the portable kernels and fsim.
void ExpectNativeBytes(const Model& m, const std::string& config, const std::string& cpu) {
  package::PackageSpec spec;
  Status s = CompileSpec(m, &spec, config);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<codegen::CpuTarget> targets;
  s = codegen::ParseCpuTargets(cpu, &targets);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = codegen::AddNativeCode(targets, {}, &spec);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_FALSE(spec.native[0].symbols.empty());
  // Code that reads its workspace says so, so that a runtime which passes none does not run it.
  if (spec.native[0].workspace_bytes > 0) {
    EXPECT_THAT(spec.native[0].features, ::testing::Contains(runtime::kWorkspaceFeature));
  }

  NpyArray in;
  ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
  const runtime::HostTensor input = FirstSample(in);
  Opened native = Open(spec, "cpu", true);
  ASSERT_TRUE(native.status.ok()) << native.status.ToString();
  ASSERT_NE(native.exec->native(), nullptr) << "the host's code did not load";
  EXPECT_EQ(native.exec->native()->num_functions(), spec.native[0].symbols.size());
  Opened portable = Open(spec, "cpu", false);
  ASSERT_TRUE(portable.status.ok()) << portable.status.ToString();
  EXPECT_EQ(portable.exec->native(), nullptr);
  Opened fsim = Open(spec, "fsim", true);
  ASSERT_TRUE(fsim.status.ok()) << fsim.status.ToString();

  const auto a = Outputs(*native.exec, input), b = Outputs(*portable.exec, input),
             c = Outputs(*fsim.exec, input);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), c.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].data, b[i].data) << m.name << " output " << a[i].name << ": native vs portable";
    EXPECT_EQ(a[i].data, c[i].data) << m.name << " output " << a[i].name << ": native vs fsim";
  }
}

bool HostHas(std::initializer_list<const char*> features) {
  for (const char* f : features) {
    if (!runtime::CpuHasFeature(f)) return false;
  }
  return true;
}

class NativeCode : public ::testing::TestWithParam<Model> {};

// Every block on the host's fast rows: AVX2 on x86-64 (the reference body where the CPU has no
// AVX2), the host's CPU elsewhere.
TEST_P(NativeCode, BytesEqualThePortableKernelsAndFsim) {
  if (!HostHasNativeTarget()) GTEST_SKIP() << "no native target for this host";
  std::string cpu = "host";
  if (codegen::HostTargetName() == "x86_64") {
    cpu = HostHas({"avx2", "fma", "bmi2"}) ? "x86_64:x86-64-v3" : "x86_64:x86-64";
  }
  ExpectNativeBytes(GetParam(), "1x8x8", cpu);
}

INSTANTIATE_TEST_SUITE_P(Zoo, NativeCode, ::testing::ValuesIn(Models()),
                         [](const auto& i) { return i.param.name; });

// The reference body, specialized: what x86-64 without AVX2 (and a blocking the rows do not
// take) runs.
TEST(NativeCodeCpus, BaselineX86RunsTheReferenceBody) {
  if (codegen::HostTargetName() != "x86_64") GTEST_SKIP() << "not an x86-64 host";
  ExpectNativeBytes(Models()[0], "1x8x8", "x86_64:x86-64");
}

// The AVX2 rows of blocks 16 (5 positions per call) and 32 (2).
TEST(NativeCodeCpus, Avx2RowsOn1x16x16And1x32x32) {
  if (codegen::HostTargetName() != "x86_64" || !HostHas({"avx2", "fma", "bmi2"})) {
    GTEST_SKIP() << "this CPU has no AVX2";
  }
  ExpectNativeBytes(Models()[0], "1x16x16", "x86_64:x86-64-v3");
  ExpectNativeBytes(Models()[1], "1x32x32", "x86_64:x86-64-v3");
}

// The AVX-512 VNNI rows take blocks 16 and 32: a 3x3 residual block, a depthwise one (by tap
// quads), the 7x7 stem (3 input channels, the last block's single quad) and a 3x3 convolution
// over 72 channels, whose reduction runs in chunks, on 1x16x16; the wide one on 1x32x32 too.
TEST(NativeCodeCpus, AvxVnniRowsOn1x16x16) {
  if (codegen::HostTargetName() != "x86_64" ||
      !HostHas(
          {"avx2", "fma", "bmi2", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512vnni"})) {
    GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  }
  for (const size_t i : {0, 1, 5, 6}) {
    SCOPED_TRACE(Models()[i].name);
    ExpectNativeBytes(Models()[i], "1x16x16", "x86_64:cascadelake");
  }
  ExpectNativeBytes(Models()[6], "1x32x32", "x86_64:cascadelake");
}

// Convolutions whose padding reads a pad value (the input's zero point with asymmetric
// activations): every padded Conv2d of a compiled block given `pad_value`, then native code for
// `cpu` must give the reference kernels' bytes. The same package with pad value 0 must give other
// bytes, so a padded copy that ignored the pad value would fail here. (fsim is left out: the
// accelerator program was compiled with pad value 0.)
void ExpectNativePadValue(const Model& m, const std::string& config, const std::string& cpu,
                          int32_t pad_value) {
  SCOPED_TRACE(m.name + " on " + config + " for " + cpu + ", pad value " +
               std::to_string(pad_value));
  package::PackageSpec spec;
  Status s = CompileSpec(m, &spec, config);
  ASSERT_TRUE(s.ok()) << s.ToString();
  NpyArray in;
  ASSERT_TRUE(ReadNpy(Src(m.input), &in).ok());
  const runtime::HostTensor input = FirstSample(in);
  Opened unpadded = Open(spec, "cpu", false, "reference");
  ASSERT_TRUE(unpadded.status.ok()) << unpadded.status.ToString();
  size_t padded_convs = 0;
  for (package::SegmentSpec& seg : spec.segments) {
    for (package::OpSpec& op : seg.ops) {
      auto* c = std::get_if<package::Conv2dParams>(&op.params);
      const package::Window* w = c != nullptr ? &c->window : nullptr;
      if (w == nullptr || w->pad_top + w->pad_left + w->pad_bottom + w->pad_right == 0) continue;
      c->pad_value = pad_value;
      ++padded_convs;
    }
  }
  ASSERT_GT(padded_convs, 0u);
  std::vector<codegen::CpuTarget> targets;
  s = codegen::ParseCpuTargets(cpu, &targets);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = codegen::AddNativeCode(targets, {}, &spec);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Opened native = Open(spec, "cpu", true);
  ASSERT_TRUE(native.status.ok()) << native.status.ToString();
  ASSERT_NE(native.exec->native(), nullptr) << "the host's code did not load";
  Opened reference = Open(spec, "cpu", false, "reference");
  ASSERT_TRUE(reference.status.ok()) << reference.status.ToString();

  const auto a = Outputs(*native.exec, input), b = Outputs(*reference.exec, input),
             z = Outputs(*unpadded.exec, input);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), z.size());
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].data, b[i].data) << "output " << a[i].name << ": native vs reference kernels";
    differs = differs || b[i].data != z[i].data;
  }
  EXPECT_TRUE(differs) << "the pad value changes no output byte: the test would prove nothing";
}

// The 7x7 stem (3 input channels) and a depthwise bottleneck on each kind of native convolution
// this CPU runs: the reference body (x86-64), the AVX2 rows (x86-64-v3, int16 copy) and the
// AVX-512 VNNI rows (cascadelake on 1x16x16, the x ^ 0x80 copy); the host's CPU elsewhere.
TEST(NativeCodePadValue, ConvsThatPadWithAValueEqualTheReferenceKernels) {
  if (!HostHasNativeTarget()) GTEST_SKIP() << "no native target for this host";
  if (codegen::HostTargetName() != "x86_64") {
    ExpectNativePadValue(Models()[5], "1x8x8", "host", -77);
    ExpectNativePadValue(Models()[1], "1x8x8", "host", 127);
    return;
  }
  ExpectNativePadValue(Models()[5], "1x8x8", "x86_64:x86-64", -128);
  if (HostHas({"avx2", "fma", "bmi2"})) {
    ExpectNativePadValue(Models()[5], "1x8x8", "x86_64:x86-64-v3", -77);
    ExpectNativePadValue(Models()[1], "1x8x8", "x86_64:x86-64-v3", 127);
  }
  if (HostHas(
          {"avx2", "fma", "bmi2", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512vnni"})) {
    ExpectNativePadValue(Models()[5], "1x16x16", "x86_64:cascadelake", -77);
    ExpectNativePadValue(Models()[1], "1x16x16", "x86_64:cascadelake", 127);
  }
}

// Code for another target, or for features this CPU lacks, is not loaded: the kernels run, and
// one line on stderr says why.
TEST(NativeFallback, OtherTargetsAndMissingFeaturesRunTheKernelsWithANotice) {
  package::PackageSpec spec;
  ASSERT_TRUE(CompileSpec(Small(), &spec).ok());
  const std::string host = codegen::HostTargetName();
  std::vector<codegen::CpuTarget> targets;
  ASSERT_TRUE(codegen::ParseCpuTargets(host == "aarch64" ? "armv7" : "aarch64", &targets).ok());
  ASSERT_TRUE(codegen::AddNativeCode(targets, {}, &spec).ok());
  ::testing::internal::CaptureStderr();
  Opened o = Open(spec, "cpu", true);
  std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(o.exec->native(), nullptr);
  EXPECT_THAT(err, HasSubstr("package has native code for " + targets[0].name + " ("));
  EXPECT_THAT(err, HasSubstr("running the portable kernels"));

  if (host.empty()) return;
  spec.native.clear();
  ASSERT_TRUE(codegen::AddNativeCode(HostBaseline(), {}, &spec).ok());
  spec.native[0].features.push_back("no-such-feature");
  ::testing::internal::CaptureStderr();
  o = Open(spec, "cpu", true);
  err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(o.exec->native(), nullptr);
  EXPECT_THAT(err, HasSubstr("needs no-such-feature"));
  // Without native code at all, nothing is printed.
  spec.native.clear();
  ::testing::internal::CaptureStderr();
  o = Open(spec, "cpu", true);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(NativeBad, AnObjectTheLoaderRefusesFailsCreateWithItsName) {
  if (!HostHasNativeTarget()) GTEST_SKIP() << "no native target for this host";
  package::PackageSpec spec;
  ASSERT_TRUE(CompileSpec(Small(), &spec).ok());
  const std::vector<codegen::CpuTarget> targets = HostBaseline();
  ASSERT_TRUE(codegen::AddNativeCode(targets, {}, &spec).ok());
  // Still an ELF file for the package's checks, but cut short for the loader.
  spec.native[0].object.resize(40);
  Opened o = Open(spec, "cpu", true);
  EXPECT_FALSE(o.status.ok());
  EXPECT_THAT(o.status.message(), HasSubstr("package native code for " + targets[0].name));

  // A symbol the object does not define.
  spec.native.clear();
  ASSERT_TRUE(codegen::AddNativeCode(targets, {}, &spec).ok());
  spec.native[0].symbols[0].name = "loom_op_missing";
  o = Open(spec, "cpu", true);
  EXPECT_THAT(o.status.message(), HasSubstr("'loom_op_missing'"));
  EXPECT_THAT(o.status.message(), HasSubstr("is not defined by its object"));
}

}  // namespace
}  // namespace loom
