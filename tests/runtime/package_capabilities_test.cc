// The loader's side of schema 1.5 (docs/package.md, "What 1.5 adds"): constant outputs and
// packages without inputs load, and every misuse of these is refused with a message naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/config/config_file.h"
#include "runtime/package/package.h"
#include "tests/runtime/test_packages.h"

namespace loom::testing {
namespace {

using package::BindingSpec;
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

}  // namespace
}  // namespace loom::testing
