// The loader's side of schema 1.5 (docs/package.md, "What 1.5 adds"): constant outputs and
// packages without inputs load, float ops with several outputs and scratch are resolved with the
// scratch each needs, and every misuse of these is refused with a message naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/config/config_file.h"
#include "runtime/package/package.h"
#include "tests/runtime/test_packages.h"

namespace loom::testing {
namespace {

using package::BindingSpec;
using package::OpSpec;
using package::PackageSpec;
using package::TensorSpec;
using ::testing::HasSubstr;

HwConfig Config() {
  HwConfig c;
  EXPECT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  return c;
}

Status Load(const PackageSpec& spec, std::unique_ptr<runtime::Package>* p) {
  std::vector<uint8_t> bytes;
  package::WriteOptions o;
  o.verify = false;
  LOOM_RETURN_IF_ERROR(package::SerializePackage(spec, &bytes, o));
  return runtime::Package::LoadMemory(bytes.data(), bytes.size(), p);
}
Status Load(const PackageSpec& spec) {
  std::unique_ptr<runtime::Package> p;
  return Load(spec, &p);
}

// A float32 tensor of `shape` in `storage`, placed after the last one there.
int32_t AddF32(PackageSpec* spec, const char* name, std::vector<uint32_t> shape,
               package::Storage storage) {
  TensorSpec t;
  t.name = name;
  t.dtype = pkg::DType::Float32;
  t.shape = shape;
  t.storage = storage;
  t.size = 4;
  for (uint32_t d : shape) t.size *= d;
  if (storage == package::Storage::Arena) {
    t.offset = spec->arena_bytes;
    spec->arena_bytes += (t.size + 63) / 64 * 64;
  } else {
    t.offset = spec->constants.size();
    spec->constants.resize(t.offset + (t.size + 63) / 64 * 64, 0);
  }
  spec->tensors.push_back(t);
  return static_cast<int32_t>(spec->tensors.size() - 1);
}

TEST(PackageCapabilities, ConstantOutputWithoutInputsLoads) {
  PackageSpec spec;
  spec.config = Config();
  const int32_t c = AddF32(&spec, "c", {2}, package::Storage::Constant);
  spec.outputs.push_back(BindingSpec{"c", c, {2}});
  std::unique_ptr<runtime::Package> p;
  const Status s = Load(spec, &p);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(p->root().inputs()->size(), 0u);

  // An input is written at run time: never a constant.
  spec.inputs.push_back(BindingSpec{"x", c, {2}});
  EXPECT_THAT(Load(spec).message(), HasSubstr("input 0 'x': tensor 'c' is not in the arena"));
  spec.inputs.clear();
  // Nothing to return is no package.
  spec.outputs.clear();
  EXPECT_THAT(Load(spec).message(), HasSubstr("package has no outputs"));
}

TEST(PackageCapabilities, ConstantOutputMustBePlain) {
  PackageSpec spec;
  spec.config = Config();
  TensorSpec t;
  t.name = "blocked";
  t.dtype = pkg::DType::Int8;
  t.layout = package::TensorLayout::Blocked;
  t.shape = {1, 8, 1, 1};
  t.storage = package::Storage::Constant;
  spec.constants.resize(64, 0);
  spec.tensors.push_back(t);
  spec.outputs.push_back(BindingSpec{"blocked", 0, {1, 8, 1, 1}});
  const Status s = Load(spec);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("(a constant output must be Plain)"));
}

// LayerNormalization with its three outputs, then an LSTM whose scratch the plan records; a
// single-output row given two outputs, and an LSTM whose hidden_size is not R's, are refused.
TEST(PackageCapabilities, MultiOutputFloatOpsAndScratch) {
  PackageSpec spec;
  spec.config = Config();
  const int32_t x = AddF32(&spec, "x", {2, 1, 3}, package::Storage::Arena);
  const int32_t scale = AddF32(&spec, "scale", {3}, package::Storage::Constant);
  const int32_t y = AddF32(&spec, "y", {2, 1, 3}, package::Storage::Arena);
  const int32_t mean = AddF32(&spec, "mean", {2, 1, 1}, package::Storage::Arena);
  const int32_t inv = AddF32(&spec, "inv", {2, 1, 1}, package::Storage::Arena);
  const int32_t w = AddF32(&spec, "w", {1, 16, 3}, package::Storage::Constant);
  const int32_t r = AddF32(&spec, "r", {1, 16, 4}, package::Storage::Constant);
  const int32_t hy = AddF32(&spec, "hy", {2, 1, 1, 4}, package::Storage::Arena);
  const int32_t hh = AddF32(&spec, "hh", {1, 1, 4}, package::Storage::Arena);
  const int32_t hc = AddF32(&spec, "hc", {1, 1, 4}, package::Storage::Arena);
  package::SegmentSpec seg;
  seg.name = "cpu0";
  OpSpec ln;
  ln.name = "ln";
  ln.params = package::FloatOpParams{"LayerNormalization", {{"axis", {2}, {}}}};
  ln.inputs = {x, scale};
  ln.outputs = {y, mean, inv};
  seg.ops.push_back(ln);
  OpSpec lstm;
  lstm.name = "lstm";
  lstm.params = package::FloatOpParams{"LSTM",
                                       {{"hidden_size", {4}, {}},
                                        {"activations", {2, 1, 1}, {}},
                                        {"activation_alpha", {}, {0, 0, 0}},
                                        {"activation_beta", {}, {0, 0, 0}}}};
  lstm.inputs = {y, w, r};
  lstm.outputs = {hy, hh, hc};
  seg.ops.push_back(lstm);
  spec.segments.push_back(seg);
  spec.inputs.push_back(BindingSpec{"x", x, {2, 1, 3}});
  spec.outputs.push_back(BindingSpec{"hy", hy, {2, 1, 1, 4}});
  spec.outputs.push_back(BindingSpec{"mean", mean, {2, 1, 1}});
  std::unique_ptr<runtime::Package> p;
  Status s = Load(spec, &p);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(p->float_op(0, 0), nullptr);
  EXPECT_EQ(p->float_op(0, 0)->num_outputs, 3u);
  EXPECT_EQ(p->float_op(0, 0)->scratch_bytes, 0u);
  ASSERT_NE(p->float_op(0, 1), nullptr);
  EXPECT_EQ(p->float_op(0, 1)->num_outputs, 3u);
  EXPECT_EQ(p->float_op(0, 1)->scratch_bytes, (3 + 4) * 4 * sizeof(float));

  PackageSpec bad = spec;
  std::get<package::FloatOpParams>(bad.segments[0].ops[1].params).attrs[0].ints = {5};
  s = Load(bad);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("op 1 'lstm'"));
  EXPECT_THAT(s.message(), HasSubstr("R must be [directions, 4 * hidden_size, hidden_size]"));

  bad = spec;
  bad.segments[0].ops[0].params = package::FloatOpParams{"Relu", {}};
  bad.segments[0].ops[0].inputs = {x};
  bad.segments[0].ops[0].outputs = {y, mean};
  s = Load(bad);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Relu takes 1 inputs and 1 output, has 1 and 2"));

  bad = spec;
  bad.segments[0].ops[0].outputs = {y, mean, inv, hh};
  s = Load(bad);
  EXPECT_THAT(s.message(),
              HasSubstr("LayerNormalization takes 2 to 3 inputs and 1 to 3 outputs, has 2 and 4"));
}

}  // namespace
}  // namespace loom::testing
