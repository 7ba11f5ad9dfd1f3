// Native code (docs/cpu.md, "Native code") end to end: blocks of the zoo and the digits model
// compiled with LLVM for this host run on the cpu device through their native functions, and
// their bytes equal the portable kernels' (the same package with native code off) and fsim's.
// Also: a package with code only for other targets or CPU features runs on the kernels with a
// one-line notice, and an object the loader refuses fails executor creation with its name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

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
// pooling, Concat, Resize and ZeroInsert.
std::vector<Model> Models() {
  std::vector<Model> v;
  for (const char* b : {"resnet_basic", "mbv3_bneck", "squeeze_fire", "upsample_block",
                        "deconv_block", "resnet_stem"}) {
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

// The model compiled for 1x8x8 (the portable package's spec).
Status CompileSpec(const Model& m, package::PackageSpec* spec) {
  pipeline::CompileOptions o;
  o.model_path = Src(m.onnx);
  o.config = "1x8x8";
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

Opened Open(const package::PackageSpec& spec, const std::string& device, bool native) {
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

class NativeCode : public ::testing::TestWithParam<Model> {};

TEST_P(NativeCode, BytesEqualThePortableKernelsAndFsim) {
  if (!HostHasNativeTarget()) GTEST_SKIP() << "no native target for this host";
  const Model& m = GetParam();
  package::PackageSpec spec;
  Status s = CompileSpec(m, &spec);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = codegen::AddNativeCode(HostBaseline(), {}, &spec);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_FALSE(spec.native[0].symbols.empty());

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

INSTANTIATE_TEST_SUITE_P(Zoo, NativeCode, ::testing::ValuesIn(Models()),
                         [](const auto& i) { return i.param.name; });

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
