// The package writer and loader: round trip, and every kind of damage the loader must refuse
// with its documented code and a message that names the problem (docs/package.md).
#include "runtime/package/package.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <variant>

#include "runtime/config/config_file.h"
#include "runtime/io/file.h"
#include "runtime/package/format.h"
#include "tests/runtime/test_packages.h"

namespace loom::testing {
namespace {

using ::testing::HasSubstr;
using runtime::Package;

HwConfig Config(const char* name = "1x16x16") {
  HwConfig c;
  EXPECT_TRUE(LoadHwConfig(name, &c).ok());
  return c;
}

std::vector<uint8_t> Bytes(const package::PackageSpec& spec) {
  std::vector<uint8_t> bytes;
  package::WriteOptions o;
  o.verify = false;
  const Status s = package::SerializePackage(spec, &bytes, o);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return bytes;
}

Status Load(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<Package> p;
  return Package::LoadMemory(bytes.data(), bytes.size(), &p);
}

// Recomputes the checksum after an edit of the payload, so the edit reaches the later checks.
void Reseal(std::vector<uint8_t>* bytes) {
  runtime::EncodeHeader(bytes->data() + runtime::kHeaderBytes, bytes->size() - runtime::kHeaderBytes,
                        bytes->data());
}

package::PackageSpec ConvSpec(const char* config = "1x16x16") {
  package::PackageSpec spec;
  const Status s = BuildConvModel(Config(config), ConvModelOptions{}, &spec);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return spec;
}

TEST(Package, DTypeMappingRoundTrips) {
  for (pkg::DType w : pkg::EnumValuesDType()) {
    SCOPED_TRACE(pkg::EnumNameDType(w));
    const DType t = runtime::FromPkgDType(w);
    ASSERT_NE(t, DType::kUndefined);
    pkg::DType back = pkg::DType::MAX;
    ASSERT_TRUE(runtime::ToPkgDType(t, &back));
    EXPECT_EQ(back, w);
  }
  EXPECT_EQ(runtime::FromPkgDType(pkg::DType::Int8), DType::kI8);
  EXPECT_EQ(runtime::FromPkgDType(pkg::DType::Int32), DType::kI32);
  EXPECT_EQ(runtime::FromPkgDType(pkg::DType::Float32), DType::kF32);
  EXPECT_STREQ(runtime::DTypeName(pkg::DType::Int32), "int32");
  EXPECT_STREQ(runtime::DTypeName(pkg::DType::Float16), "float16");
  // Since 1.3 every loom::DType has a wire value, and the wire values 0-2 are 1.2's.
  for (DType t : kAllDTypes) {
    pkg::DType out = pkg::DType::MAX;
    EXPECT_TRUE(runtime::ToPkgDType(t, &out)) << DTypeName(t);
  }
  EXPECT_EQ(static_cast<int>(pkg::DType::Int8), 0);
  EXPECT_EQ(static_cast<int>(pkg::DType::Int32), 1);
  EXPECT_EQ(static_cast<int>(pkg::DType::Float32), 2);
  // A byte outside the schema, and no type.
  EXPECT_EQ(runtime::FromPkgDType(static_cast<pkg::DType>(99)), DType::kUndefined);
  pkg::DType out = pkg::DType::Int8;
  EXPECT_FALSE(runtime::ToPkgDType(DType::kUndefined, &out));
}

// Schema 1.3: every type is stored as itself; the loader sizes and aligns each by its width.
TEST(Package, EveryTypeIsStoredAsItself) {
  for (pkg::DType w : pkg::EnumValuesDType()) {
    SCOPED_TRACE(pkg::EnumNameDType(w));
    package::PackageSpec spec;
    ASSERT_TRUE(BuildTypedCpuModel(Config(), w, &spec).ok());
    std::vector<uint8_t> bytes = Bytes(spec);
    std::unique_ptr<Package> p;
    const Status s = Package::LoadMemory(bytes.data(), bytes.size(), &p);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(p->root().version_minor(), runtime::kSchemaVersionMinor);
    const pkg::Tensor* x = p->root().tensors()->Get(0);
    EXPECT_EQ(x->dtype(), w);
    EXPECT_EQ(x->size(), 6 * DTypeSize(runtime::FromPkgDType(w)));
  }
}

TEST(PackageBad, TypedTensorsMisalignedOrMissized) {
  package::PackageSpec spec;
  ASSERT_TRUE(BuildTypedCpuModel(Config(), pkg::DType::Int64, &spec).ok());
  spec.tensors[0].offset += 4;
  Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("tensor 0 'x': offset 4 is not 8-byte aligned (int64)"));

  ASSERT_TRUE(BuildTypedCpuModel(Config(), pkg::DType::Float16, &spec).ok());
  spec.tensors[0].size = 24;  // 6 halves stored as float32: not what 1.3 means
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("size 24 bytes does not match its shape, dtype and layout (12"));
}

// Schema 1.7: a float op's string attribute (Pad's mode) is written, read back and checked at load:
// a value the kernel does not know, and an attribute holding a string beside numbers, are refused
// naming the op and the attribute.
TEST(Package, StringAttributesAreCheckedAtLoad) {
  package::PackageSpec spec;
  for (const char* mode : {"constant", "reflect", "edge"}) {
    ASSERT_TRUE(BuildPadCpuModel(Config(), mode, &spec).ok());
    std::vector<uint8_t> bytes = Bytes(spec);
    std::unique_ptr<Package> p;
    const Status s = Package::LoadMemory(bytes.data(), bytes.size(), &p);
    ASSERT_TRUE(s.ok()) << mode << ": " << s.ToString();
    const pkg::FloatOp* op = p->root().segments()->Get(0)->ops()->Get(0)->params_as_FloatOp();
    ASSERT_NE(op->attrs()->Get(0)->text(), nullptr);
    EXPECT_EQ(op->attrs()->Get(0)->text()->str(), mode);
  }
  ASSERT_TRUE(BuildPadCpuModel(Config(), "wrap", &spec).ok());
  Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("op 0 'pad': Pad: mode 'wrap' is not one of constant, "
                                     "reflect, edge"));
  ASSERT_TRUE(BuildPadCpuModel(Config(), "edge", &spec).ok());
  auto& attrs = std::get<package::FloatOpParams>(spec.segments[0].ops[0].params).attrs;
  attrs[0].ints = {1};
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Pad attribute 'mode' holds both a string and numbers"));
  // Without the attribute, ONNX's default (constant) applies; the pads then must fit the shapes.
  attrs.erase(attrs.begin());
  s = Load(Bytes(spec));
  EXPECT_TRUE(s.ok()) << s.ToString();
  attrs[0].ints = {1, 1, 0, 2};
  s = Load(Bytes(spec));
  EXPECT_THAT(s.message(), HasSubstr("pad: y.shape[1] must be x's plus its pads"));
}

// A float-op row names the types its kernel takes; anything else is refused at load, naming
// the op, the operand and both types, instead of failing inside the kernel at run time.
TEST(PackageBad, FloatOpOperandTypesAreCheckedAtLoad) {
  package::PackageSpec spec;
  ASSERT_TRUE(BuildTypedCpuModel(Config(), pkg::DType::Int64, &spec).ok());
  std::get<package::FloatOpParams>(spec.segments[0].ops[0].params) =
      package::FloatOpParams{"Relu", {}};
  Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("op 0 'transpose': Relu input 0 'x' is int64; the runtime's "
                                     "Relu takes f32"));

  // Data movement takes every type but never converts.
  ASSERT_TRUE(BuildTypedCpuModel(Config(), pkg::DType::Int64, &spec).ok());
  package::TensorSpec other = spec.tensors[2];  // the int64 constant row
  other.name = "row_i32";
  other.dtype = pkg::DType::Int32;
  other.size = 0;
  spec.tensors.push_back(other);
  spec.segments[0].ops[1].inputs[1] = static_cast<int32_t>(spec.tensors.size() - 1);
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("Concat: input 1 is i32, the output i64; the types must match"));

  // Blocked layouts stay int8's.
  ASSERT_TRUE(BuildTypedCpuModel(Config(), pkg::DType::Int8, &spec).ok());
  spec.tensors[3].layout = package::TensorLayout::Blocked;
  spec.tensors[3].shape = {1, 1, 4, 2};
  spec.tensors[3].size = 0;
  spec.arena_bytes = spec.tensors[3].offset + 128;  // [1][1][4][2][B=1][c=16] bytes
  spec.outputs[0].shape = {1, 1, 4, 2};
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("must have layout Plain"));
}

TEST(Package, RoundTrip) {
  const package::PackageSpec spec = ConvSpec();
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(package::SerializePackage(spec, &bytes).ok());
  std::unique_ptr<Package> p;
  ASSERT_TRUE(Package::LoadMemory(bytes.data(), bytes.size(), &p).ok());
  EXPECT_EQ(p->config(), spec.config);
  EXPECT_EQ(p->arena_bytes(), spec.arena_bytes);
  EXPECT_EQ(p->constants_bytes(), spec.constants.size());
  EXPECT_EQ(0, std::memcmp(p->constants(), spec.constants.data(), spec.constants.size()));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p->constants()) % 32, 0u);
  ASSERT_EQ(p->num_segments(), 4u);
  EXPECT_EQ(p->program(1), nullptr);
  ASSERT_NE(p->program(0), nullptr);
  EXPECT_EQ(p->program(0)->insns, spec.segments[0].program.insns);
  EXPECT_EQ(p->program(0)->uop_words.size(), spec.segments[0].program.uops.size());
  EXPECT_EQ(p->program(0)->gemm_macs % p->config().macs_per_cycle(), 0u);
  EXPECT_EQ(p->root().provenance()->model_name()->str(), "conv_test_model");
}

TEST(Package, WritesAtomicallyAndLoadsFromFile) {
  const std::string path = ::testing::TempDir() + "/roundtrip.loom";
  ASSERT_TRUE(package::WritePackage(ConvSpec(), path).ok());
  std::unique_ptr<Package> p;
  const Status s = Package::LoadFile(path, &p);
  EXPECT_TRUE(s.ok()) << s.ToString();
  const Status missing = Package::LoadFile(path + ".nope", &p);
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
}

// The provenance hash reads the model file through the capped reader: a folder (or a FIFO, or
// a device node) where the model should be is refused instead of hashed as empty or read forever.
TEST(Package, ModelHashRefusesWhatIsNotARegularFile) {
  const std::string path = ::testing::TempDir() + "/model_hash.onnx";
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("abc", f);
    std::fclose(f);
  }
  uint64_t hash = 0;
  ASSERT_TRUE(package::HashFile(path, &hash).ok());
  EXPECT_EQ(hash, runtime::Fnv1a64(reinterpret_cast<const uint8_t*>("abc"), 3));
  const Status dir = package::HashFile(::testing::TempDir(), &hash);
  EXPECT_FALSE(dir.ok());
  EXPECT_THAT(dir.message(), ::testing::HasSubstr("give the path of a regular file"));
  EXPECT_EQ(package::HashFile(path + ".nope", &hash).code(), StatusCode::kNotFound);
}
TEST(PackageBad, Truncated) {
  std::vector<uint8_t> bytes = Bytes(ConvSpec());
  for (size_t keep : {size_t{0}, size_t{10}, size_t{32}, bytes.size() / 2, bytes.size() - 1}) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + keep);
    const Status s = Load(cut);
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << keep << ": " << s.ToString();
    EXPECT_THAT(s.message(), ::testing::AnyOf(HasSubstr("truncated"), HasSubstr("shorter")));
  }
}

TEST(PackageBad, EveryFlippedByteIsDetected) {
  const std::vector<uint8_t> bytes = Bytes(ConvSpec());
  // Every byte of the header and a spread of payload bytes (constants, instructions, tables).
  std::vector<size_t> positions;
  for (size_t i = 0; i < runtime::kHeaderBytes; ++i) positions.push_back(i);
  for (size_t i = runtime::kHeaderBytes; i < bytes.size(); i += 97) positions.push_back(i);
  positions.push_back(bytes.size() - 1);
  for (size_t pos : positions) {
    for (uint8_t bit : {0x01, 0x80}) {
      std::vector<uint8_t> bad = bytes;
      bad[pos] ^= bit;
      const Status s = Load(bad);
      EXPECT_FALSE(s.ok()) << "flipped byte " << pos;
      if (pos >= runtime::kHeaderBytes) {
        EXPECT_EQ(s.code(), StatusCode::kDataLoss) << pos;
        EXPECT_THAT(s.message(), HasSubstr("checksum mismatch"));
      }
    }
  }
}

TEST(PackageBad, WrongMagicAndHeaderVersion) {
  std::vector<uint8_t> bytes = Bytes(ConvSpec());
  std::vector<uint8_t> magic = bytes;
  magic[0] = 'X';
  EXPECT_EQ(Load(magic).code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Load(magic).message(), HasSubstr("not a Loom package"));
  std::vector<uint8_t> version = bytes;
  version[8] = 2;
  EXPECT_EQ(Load(version).code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(Load(version).message(), HasSubstr("header version 2"));
}

TEST(PackageBad, SchemaMajorVersion) {
  package::PackageSpec spec = ConvSpec();
  spec.version_major = 3;
  const Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(),
              HasSubstr("schema version 3." + std::to_string(runtime::kSchemaVersionMinor) +
                        " is not supported"));
}

// Schema 1.10: a package with a zero point, pad value or offset is written as 2.10 (a 1.x runtime
// would misread it) and loads; one without stays 1.10. The loader checks each field's range.
TEST(Package, ZeroPointsAreVersionTwoAndChecked) {
  std::unique_ptr<Package> p;
  std::vector<uint8_t> bytes = Bytes(ConvSpec());
  ASSERT_TRUE(Package::LoadMemory(bytes.data(), bytes.size(), &p).ok());
  EXPECT_EQ(p->root().version_major(), runtime::kSchemaVersionMajor);
  package::PackageSpec spec = ConvSpec();
  spec.tensors[4].zero_point = -128;  // conv1.y
  bytes = Bytes(spec);
  ASSERT_TRUE(Package::LoadMemory(bytes.data(), bytes.size(), &p).ok());
  EXPECT_EQ(p->root().version_major(), runtime::kSchemaVersionMajorZeroPoints);
  EXPECT_EQ(p->root().tensors()->Get(4)->zero_point(), -128);

  spec = ConvSpec();
  std::get<package::Conv2dParams>(spec.segments[0].ops[0].params).pad_value = -7;
  bytes = Bytes(spec);
  ASSERT_TRUE(Package::LoadMemory(bytes.data(), bytes.size(), &p).ok());
  EXPECT_EQ(p->root().version_major(), runtime::kSchemaVersionMajorZeroPoints);

  spec = ConvSpec();
  spec.tensors[4].zero_point = 200;
  EXPECT_THAT(Load(Bytes(spec)).message(), HasSubstr("zero_point 200 is outside [-128, 127]"));
  spec = ConvSpec();
  for (package::TensorSpec& t : spec.tensors) {
    if (t.dtype == pkg::DType::Int32) {
      t.zero_point = 3;
      break;
    }
  }
  EXPECT_THAT(Load(Bytes(spec)).message(), HasSubstr("only int8 tensors have a zero point"));
  spec = ConvSpec();
  std::get<package::Conv2dParams>(spec.segments[0].ops[0].params).pad_value = 128;
  EXPECT_THAT(Load(Bytes(spec)).message(), HasSubstr("pad_value 128 is outside [-128, 127]"));
}

// Schema 1.11: a grouped convolution's weights hold each group's input channels; the loader checks
// that the groups cover the channels, the last one possibly short (a 1.10 reader refuses such
// weights, having no groups).
TEST(PackageBad, ConvGroupsAreChecked) {
  auto with = [](uint32_t groups, bool depthwise) {
    package::PackageSpec spec = ConvSpec();
    auto& p = std::get<package::Conv2dParams>(spec.segments[0].ops[0].params);
    p.groups = groups;
    p.depthwise = depthwise;
    return Load(Bytes(spec));
  };
  EXPECT_TRUE(with(1, false).ok());
  EXPECT_THAT(with(0, false).message(), HasSubstr("conv1': groups 0"));
  EXPECT_THAT(with(2, false).message(),
              HasSubstr("2 groups of 5 input channels (the weights 'conv1.w') do not cover the "
                        "input's 5 channels and the 12 outputs"));
  EXPECT_THAT(with(5, true).message(), HasSubstr("a depthwise convolution has groups 1, not 5"));
}

TEST(PackageBad, ConfigHashDoesNotMatchConfig) {
  package::PackageSpec spec = ConvSpec();
  spec.config_hash = 0x1234;
  const Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("config_hash 0000000000001234 does not match"));
}

TEST(PackageBad, VerifierRejectsGarbageTables) {
  std::vector<uint8_t> bytes = Bytes(ConvSpec());
  // Point the root table offset far outside the buffer, keep the identifier, reseal.
  bytes[runtime::kHeaderBytes + 0] = 0xff;
  bytes[runtime::kHeaderBytes + 1] = 0xff;
  bytes[runtime::kHeaderBytes + 2] = 0xff;
  Reseal(&bytes);
  const Status s = Load(bytes);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("FlatBuffers Verifier"));
}

TEST(PackageBad, TensorOutsideArena) {
  package::PackageSpec spec = ConvSpec();
  spec.tensors[4].offset = spec.arena_bytes;  // conv1.y
  const Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("tensor 4 'conv1.y'"));
  EXPECT_THAT(s.message(), HasSubstr("outside the arena"));
}

TEST(PackageBad, TensorSizeInconsistentWithShape) {
  package::PackageSpec spec = ConvSpec();
  spec.tensors[1].size += 1;  // conv1.w
  const Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'conv1.w': size"));
}

TEST(PackageBad, OpTensorIndexOutOfRange) {
  package::PackageSpec spec = ConvSpec();
  spec.segments[1].ops[0].inputs[0] = 99;
  const Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("segment 1 'pool' op 0 'pool' input 0: tensor index 99"));
}

TEST(PackageBad, OpWrongDtypeAndArity) {
  package::PackageSpec spec = ConvSpec();
  spec.segments[1].ops[0].inputs[0] = 1;  // maxpool over conv weights
  Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 'conv1.w' must be int8 with layout Blocked"));
  spec = ConvSpec();
  spec.segments[0].ops[0].inputs.pop_back();
  s = Load(Bytes(spec));
  EXPECT_THAT(s.message(), HasSubstr("expects 4 inputs and 1 outputs"));
}

// Native code (1.8) is checked at load before any object is parsed: a known target, an ELF
// object, symbols naming existing ops, one function per op.
TEST(PackageBad, NativeCodeTargetsObjectsAndSymbols) {
  const auto with = [](auto edit) {
    package::PackageSpec spec = ConvSpec();
    package::NativeCodeSpec code;
    code.target = "x86_64";
    code.cpu = "x86-64-v3";
    code.features = {"avx2"};
    code.object = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
    code.symbols = {{1, 0, "loom_op_1_0"}, {0, 0, "loom_op_0_0"}};
    edit(&code);
    spec.native.push_back(code);
    return Load(Bytes(spec));
  };
  EXPECT_TRUE(with([](package::NativeCodeSpec*) {}).ok());
  Status s = with([](package::NativeCodeSpec* c) { c->target = "riscv64"; });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("native code 0: target 'riscv64' is not one of"));
  s = with([](package::NativeCodeSpec* c) { c->object = {'M', 'Z', 0, 0}; });
  EXPECT_THAT(s.message(), HasSubstr("native code 0 (x86_64): object of 4 bytes is not an ELF"));
  s = with([](package::NativeCodeSpec* c) { c->symbols[1].segment = 7; });
  EXPECT_THAT(s.message(),
              HasSubstr("symbol 1 'loom_op_0_0' names segment 7, but the package has"));
  s = with([](package::NativeCodeSpec* c) { c->symbols[0].op = 3; });
  EXPECT_THAT(s.message(), HasSubstr("names op 3 of segment 1, which has 1 ops"));
  s = with([](package::NativeCodeSpec* c) { c->symbols[1] = {1, 0, "other"}; });
  EXPECT_THAT(s.message(), HasSubstr("op 0 of segment 1 has two functions (symbol 1 'other')"));
  s = with([](package::NativeCodeSpec* c) { c->symbols[0].name.clear(); });
  EXPECT_THAT(s.message(), HasSubstr("symbol 0 has an empty, overlong or NUL-holding name"));
  s = with([](package::NativeCodeSpec* c) { c->features = {""}; });
  EXPECT_THAT(s.message(), HasSubstr("CPU feature 0 is empty"));
  // 1.9: the workspace the executor allocates at creation is bounded.
  EXPECT_TRUE(with([](package::NativeCodeSpec* c) { c->workspace_bytes = 1u << 30; }).ok());
  s = with([](package::NativeCodeSpec* c) { c->workspace_bytes = (1u << 30) + 1; });
  EXPECT_THAT(s.message(), HasSubstr("native code 0 (x86_64): workspace of 1073741825 bytes "
                                     "exceeds the limit"));
}

// A ZeroInsert (1.7) is checked like a Resize: strides at least 1, the output its scaled plane.
TEST(PackageBad, ZeroInsertStridesAndShape) {
  package::PackageSpec spec = ConvSpec();
  spec.segments[1].ops[0].params = package::ZeroInsertParams{0, 2};  // in place of the pool
  Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("zero-insertion strides 0 x 2 must be at least 1"));
  spec.segments[1].ops[0].params = package::ZeroInsertParams{2, 2};
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("must have shape"));
}

// Float operators: the loader's table names what the runtime lacks and checks operand counts;
// only operands past an op's required ones may be omitted (-1).
TEST(PackageBad, FloatOpTableAndOperandCounts) {
  package::PackageSpec spec = ConvSpec();
  auto& softmax = spec.segments[3].ops[2];
  std::get<package::FloatOpParams>(softmax.params).op = "RandomUniformLike";
  Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(),
              HasSubstr("op 2 'softmax': float operator 'RandomUniformLike' is not supported"));

  spec = ConvSpec();
  spec.segments[3].ops[2].params = package::FloatOpParams{"Gemm", {}};
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Gemm takes 2 to 3 inputs and 1 output, has 1 and 1"));

  spec = ConvSpec();
  spec.segments[3].ops[2].inputs = {spec.segments[3].ops[2].inputs[0], -1};  // B omitted
  spec.segments[3].ops[2].params = package::FloatOpParams{"MatMul", {}};
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("input 1: tensor index -1"));
}

// The loader resolves every FloatOp to its row of the float-op table once, with its parameters,
// so the executor compares no names at run time.
TEST(Package, FloatOpsAreResolvedAtLoad) {
  ConvModelOptions m;
  m.float_tail = true;
  package::PackageSpec spec;
  ASSERT_TRUE(BuildConvModel(Config(), m, &spec).ok());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(package::SerializePackage(spec, &bytes).ok());
  std::unique_ptr<Package> p;
  const Status s = Package::LoadMemory(bytes.data(), bytes.size(), &p);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(p->float_op(0, 0), nullptr);  // an accelerator conv
  EXPECT_EQ(p->float_op(3, 0), nullptr);  // dequantize
  ASSERT_NE(p->float_op(3, 2), nullptr);
  EXPECT_STREQ(p->float_op(3, 2)->def->name, "Softmax");
  EXPECT_EQ(p->float_op(3, 2)->params.axis, 1);
  ASSERT_EQ(spec.segments[4].name, "float_tail");
  const runtime::FloatOpPlan* conv = p->float_op(4, 0);
  ASSERT_NE(conv, nullptr);
  EXPECT_STREQ(conv->def->name, "Conv");
  EXPECT_EQ(conv->params.conv.pads_begin[0], 1);
  const runtime::FloatOpPlan* transpose = p->float_op(4, 3);
  ASSERT_NE(transpose, nullptr);
  EXPECT_EQ(transpose->params.perm[1], 2);
  EXPECT_EQ(transpose->params.perm[3], 1);
  EXPECT_EQ(p->float_op(4, 8)->params.axis, 1);  // Concat's axis -1, resolved
  EXPECT_TRUE(p->float_op(4, 5)->params.gemm.trans_b);
  EXPECT_EQ(p->float_op(4, 99), nullptr);
  EXPECT_EQ(p->float_op(99, 0), nullptr);
}

package::PackageSpec TailSpec() {
  ConvModelOptions m;
  m.float_tail = true;
  package::PackageSpec spec;
  EXPECT_TRUE(BuildConvModel(Config(), m, &spec).ok());
  return spec;
}
package::FloatOpParams& TailOp(package::PackageSpec* spec, size_t op) {
  return std::get<package::FloatOpParams>(spec->segments[4].ops[op].params);
}

// Every attribute and operand problem of a float op is found at load, naming the op: nothing a
// kernel would silently ignore gets through.
TEST(PackageBad, FloatOpAttributesAreCheckedAtLoad) {
  package::PackageSpec spec = TailSpec();
  TailOp(&spec, 9).attrs.push_back({"temperature", {}, {2.0f}});
  Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("segment 4 'float_tail' op 9 'tail_softmax': Softmax "
                                     "attribute 'temperature' is not supported by the runtime "
                                     "(Softmax reads axis)"));

  // AveragePool's kernel has no dilations, so they are refused, not ignored.
  spec = TailSpec();
  TailOp(&spec, 2).op = "AveragePool";
  TailOp(&spec, 2).attrs.push_back({"dilations", {2, 2}, {}});
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("AveragePool attribute 'dilations' is not supported"));
  // ceil_mode is in the output shape already: accepted.
  spec = TailSpec();
  TailOp(&spec, 2).attrs.push_back({"ceil_mode", {0}, {}});
  s = Load(Bytes(spec));
  EXPECT_TRUE(s.ok()) << s.ToString();

  spec = TailSpec();
  TailOp(&spec, 3).attrs = {{"perm", {0, 2, 2, 1}, {}}};
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("op 3 'tail_transpose': Transpose: perm is not a permutation"));

  spec = TailSpec();
  TailOp(&spec, 9).attrs = {{"axis", {2}, {}}};
  s = Load(Bytes(spec));
  EXPECT_THAT(s.message(), HasSubstr("op 9 'tail_softmax': Softmax: axis 2 is outside [-2, 2)"));

  spec = TailSpec();
  TailOp(&spec, 2).attrs = {{"strides", {2, 2}, {}}};  // kernel_shape is required
  s = Load(Bytes(spec));
  EXPECT_THAT(s.message(), HasSubstr("op 2 'tail_pool': attribute kernel_shape is missing"));

  spec = TailSpec();
  TailOp(&spec, 0).attrs = {{"pads", {1, 1}, {}}};
  s = Load(Bytes(spec));
  EXPECT_THAT(s.message(),
              HasSubstr("op 0 'tail_conv': attribute pads has 2 values, the input needs 4"));

  // Clip's bounds are scalars; a constant of two elements is refused at load.
  spec = TailSpec();
  spec.segments[4].ops[7].inputs[1] = spec.segments[4].ops[0].inputs[2];  // the conv bias, [4]
  s = Load(Bytes(spec));
  EXPECT_THAT(s.message(),
              HasSubstr("op 7 'tail_clip': Clip: bound 1 (min) has 4 elements, not 1"));
}

TEST(PackageBad, ProgramNotEndingInFinish) {
  package::PackageSpec spec = ConvSpec();
  spec.segments[0].program.insns.pop_back();
  spec.segments[0].program.regions.pop_back();
  const Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("does not end with FINISH"));
}

TEST(PackageBad, InstructionBytesNotAMultipleOf16) {
  package::PackageSpec spec = ConvSpec();
  auto& prog = spec.segments[0].program;
  std::vector<uint8_t> raw(prog.insns.size() * 16 + 3, 0);
  prog.insns.clear();
  prog.insn_bytes = raw;
  const Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not a positive multiple of 16"));
}

TEST(PackageBad, InstructionFailsIsaVerify) {
  package::PackageSpec spec = ConvSpec();
  auto& prog = spec.segments[0].program;
  // Encode with the real layout, then set a reserved bit the decoder must refuse.
  isa::Layout layout;
  ASSERT_TRUE(isa::Layout::Create(spec.config, &layout).ok());
  std::vector<uint8_t> raw(prog.insns.size() * 16);
  for (size_t i = 0; i < prog.insns.size(); ++i) {
    isa::Word128 w;
    ASSERT_TRUE(isa::Encode(layout, prog.insns[i], &w).ok());
    isa::StoreWord(w, raw.data() + i * 16);
  }
  raw[16 * 2 + 15] |= 0x80;  // top bit of instruction 2
  prog.insns.clear();
  prog.insn_bytes = raw;
  const Status s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("segment 0 'conv1': instruction 2"));
}

TEST(PackageBad, RegionsLengthAndDmaOutsideRegion) {
  package::PackageSpec spec = ConvSpec();
  spec.segments[0].program.regions.pop_back();
  Status s = Load(Bytes(spec));
  EXPECT_THAT(s.message(), HasSubstr("regions for"));
  spec = ConvSpec();
  for (isa::Insn& insn : spec.segments[0].program.insns) {
    if (insn.opcode == isa::Opcode::kLoad && insn.buffer == isa::Buffer::kInp) {
      insn.dram_base = static_cast<uint32_t>(spec.arena_bytes / spec.config.inp_elem_bytes());
      break;
    }
  }
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("DMA reaches byte"));
  EXPECT_THAT(s.message(), HasSubstr("of the arena region"));
}

TEST(PackageBad, OpInstructionRanges) {
  // Segment 0 is the accelerator conv, segment 1 a CPU op. A range covering the program loads.
  package::PackageSpec spec = ConvSpec();
  const uint32_t n = static_cast<uint32_t>(spec.segments[0].program.insns.size());
  spec.segments[0].ops[0].insn_begin = 0;
  spec.segments[0].ops[0].insn_end = n;
  Status s = Load(Bytes(spec));
  EXPECT_TRUE(s.ok()) << s.ToString();

  spec.segments[0].ops[0].insn_end = n + 1;
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("segment 0 'conv1' op 0"));
  EXPECT_THAT(s.message(), HasSubstr("leaves the program"));

  spec.segments[0].ops[0].insn_begin = 4;
  spec.segments[0].ops[0].insn_end = 4;
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("empty instruction range [4, 4)"));

  // Two ops whose ranges overlap.
  spec.segments[0].ops.push_back(spec.segments[0].ops[0]);
  spec.segments[0].ops[0].insn_begin = 0;
  spec.segments[0].ops[0].insn_end = 3;
  spec.segments[0].ops[1].insn_begin = 2;
  spec.segments[0].ops[1].insn_end = n;
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("op 1"));
  EXPECT_THAT(s.message(), HasSubstr("overlaps or precedes"));

  // An op fused into the one before it (a max pool in its convolution's tiles) has an empty
  // range where that one's ends; anywhere else an empty range is still an error.
  spec.segments[0].ops[0].insn_end = n;
  spec.segments[0].ops[1].insn_begin = spec.segments[0].ops[1].insn_end = n;
  s = Load(Bytes(spec));
  EXPECT_TRUE(s.ok()) << s.ToString();
  spec.segments[0].ops[0].insn_end = n - 1;
  s = Load(Bytes(spec));
  EXPECT_THAT(s.message(), HasSubstr("op 1"));
  EXPECT_THAT(s.message(), HasSubstr("empty instruction range"));

  spec = ConvSpec();
  spec.segments[1].ops[0].insn_end = 1;
  s = Load(Bytes(spec));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("CPU segment's ops must not have instruction ranges"));
}

// Size fields that ask for more than the package holds, or than a device allows (the same
// packages seed the fuzz corpus as bad_*.loom).
TEST(PackageBad, OversizedFields) {
  for (const char* config : {"1x8x8", "1x16x16"}) {
    std::vector<OversizedPackage> bad;
    ASSERT_TRUE(BuildOversizedPackages(Config(config), &bad).ok());
    ASSERT_EQ(bad.size(), 5u);
    for (const OversizedPackage& b : bad) {
      SCOPED_TRACE(std::string(config) + " " + b.name);
      const Status s = Load(Bytes(b.spec));
      EXPECT_EQ(s.code(), b.code) << s.ToString();
      EXPECT_THAT(s.message(), HasSubstr(b.message));
    }
  }
}

// The arena may be as large as the compiler's planner makes it: the end of the last arena tensor
// rounded up to ArenaAlignment (64 bytes or one buffer element), and not one byte more.
TEST(PackageBad, ArenaBytesBoundIsTheCompilersPlan) {
  for (const char* config : {"1x8x8", "1x16x16", "1x32x32"}) {
    SCOPED_TRACE(config);
    package::PackageSpec spec = ConvSpec(config);
    std::unique_ptr<Package> p;
    std::vector<uint8_t> bytes = Bytes(spec);
    ASSERT_TRUE(Package::LoadMemory(bytes.data(), bytes.size(), &p).ok());
    uint64_t end = 0;
    for (const pkg::Tensor* t : *p->root().tensors()) {
      if (t->storage() != pkg::Storage::Arena) continue;
      end = std::max<uint64_t>(end, t->offset() + t->size());
    }
    const uint64_t align = runtime::ArenaAlignment(spec.config);
    EXPECT_EQ(align, std::max<uint64_t>(64, spec.config.wgt_elem_bytes()));
    spec.arena_bytes = (end + align - 1) / align * align;
    Status s = Load(Bytes(spec));
    EXPECT_TRUE(s.ok()) << s.ToString();
    spec.arena_bytes += 1;
    s = Load(Bytes(spec));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(),
                HasSubstr("arena_bytes is " + std::to_string(spec.arena_bytes) +
                          " bytes, more than the " + std::to_string(spec.arena_bytes - 1) +
                          " its tensors need (tensor 12 'probs' ends at byte " +
                          std::to_string(end) + ", rounded up to " + std::to_string(align) + ")"));
  }
}

TEST(PackageBad, DeviceMemoryLimit) {
  const std::vector<uint8_t> bytes = Bytes(ConvSpec());
  std::unique_ptr<Package> p;
  ASSERT_TRUE(Package::LoadMemory(bytes.data(), bytes.size(), &p).ok());
  uint64_t need = 0;
  ASSERT_TRUE(runtime::DeviceBytes(p->root(), &need));
  EXPECT_GT(need, p->arena_bytes() + p->constants_bytes());  // programs count too
  runtime::LoadOptions o;
  o.max_device_memory = need;
  EXPECT_TRUE(Package::LoadMemory(bytes.data(), bytes.size(), &p, o).ok());
  o.max_device_memory = need - 1;
  const Status s = Package::LoadMemory(bytes.data(), bytes.size(), &p, o);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("package needs " + std::to_string(need) +
                                     " bytes of device memory (arena_bytes "));
  EXPECT_THAT(s.message(),
              HasSubstr("more than the limit of " + std::to_string(need - 1) + " bytes"));
}

// A package path is read through io/file.h: devices and pipes are refused before they are read
// (reading /dev/zero never ends; opening a FIFO without a writer blocks), and so is a file over
// the cap, without reading its gigabytes.
TEST(PackageBad, LoadFileRefusesDevicesPipesAndHugeFiles) {
  std::unique_ptr<Package> p;
  Status s = Package::LoadFile("/dev/zero", &p);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("package /dev/zero is a character device"));

  const std::string fifo =
      ::testing::TempDir() + "/package_test_" + std::to_string(::getpid()) + ".fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  s = Package::LoadFile(fifo, &p);
  std::remove(fifo.c_str());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("package " + fifo + " is a pipe"));

  // Sparse: takes no disk space.
  const std::string huge =
      ::testing::TempDir() + "/package_test_" + std::to_string(::getpid()) + "_huge.loom";
  std::FILE* f = std::fopen(huge.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ASSERT_EQ(::truncate(huge.c_str(), static_cast<off_t>(kMaxPackageFileBytes + 1)), 0);
  s = Package::LoadFile(huge, &p);
  std::remove(huge.c_str());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("more than the " + std::to_string(kMaxPackageFileBytes) +
                                     " bytes accepted for it"));
}

TEST(PackageBad, WriterRefusesWhatTheLoaderRefuses) {
  package::PackageSpec spec = ConvSpec();
  spec.segments[1].ops[0].inputs[0] = -5;
  std::vector<uint8_t> bytes;
  const Status s = package::SerializePackage(spec, &bytes);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("the written package does not load"));
}

// The fuzz seed corpus (runtime/package/fuzz_corpus) holds packages written by
// make_test_package --corpus; they must keep loading as the schema evolves.
TEST(PackageCorpus, ValidSeedsLoad) {
  const std::string dir = std::string(LOOM_SOURCE_DIR) + "/runtime/package/fuzz_corpus";
  int valid = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("valid_", 0) != 0) continue;
    std::unique_ptr<Package> p;
    const Status s = Package::LoadFile(e.path().string(), &p);
    EXPECT_TRUE(s.ok()) << name << ": " << s.ToString() << " (regenerate with make_test_package --corpus)";
    ++valid;
  }
  EXPECT_GE(valid, 2);
}

// The oversized seeds (bad_<name>_<config>.loom) must stay refused for the reason they were made.
TEST(PackageCorpus, OversizedSeedsAreRefused) {
  std::vector<OversizedPackage> kinds;
  ASSERT_TRUE(BuildOversizedPackages(Config("1x8x8"), &kinds).ok());
  const std::string dir = std::string(LOOM_SOURCE_DIR) + "/runtime/package/fuzz_corpus/";
  for (const char* config : {"1x8x8", "1x16x16"}) {
    for (const OversizedPackage& k : kinds) {
      const std::string name = "bad_" + k.name + "_" + config + ".loom";
      SCOPED_TRACE(name);
      ASSERT_TRUE(std::filesystem::exists(dir + name))
          << "regenerate with make_test_package --corpus";
      std::unique_ptr<Package> p;
      const Status s = Package::LoadFile(dir + name, &p);
      EXPECT_EQ(s.code(), k.code) << s.ToString();
      EXPECT_THAT(s.message(), HasSubstr(k.message));
    }
  }
}

}  // namespace
}  // namespace loom::testing
