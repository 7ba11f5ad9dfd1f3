// The .npy reader and writer: round trips for every dtype at ranks 0..5, files written by NumPy
// (tests/io/data, made by tests/io/make_npy_data.py) read back and re-written byte for byte, and
// every rejected input with the message it gets.
#include "runtime/io/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "runtime/io/file.h"

namespace loom {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string DataPath(const std::string& name) {
  return std::string(LOOM_SOURCE_DIR) + "/tests/io/data/" + name;
}

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

// A version-1.0 file around a hand-written header (no padding, no trailing newline).
std::vector<uint8_t> Raw(const std::string& header, size_t data_bytes = 0, int major = 1) {
  std::vector<uint8_t> f = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const size_t len_bytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < len_bytes; ++i)
    f.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  f.insert(f.end(), header.begin(), header.end());
  f.resize(f.size() + data_bytes, 0xab);
  return f;
}

Status Parse(const std::vector<uint8_t>& file, NpyArray* out = nullptr) {
  NpyArray scratch;
  return ParseNpy(file.data(), file.size(), "bad.npy", out ? out : &scratch);
}

std::string Header(const std::string& descr, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }\n";
}

// ---- round trips ----------------------------------------------------------------------------

TEST(NpyTest, RoundTripEveryDtypeAndRank) {
  const std::vector<int64_t> dims = {2, 3, 1, 4, 2};
  for (DType dtype : kAllDTypes) {
    for (size_t rank = 0; rank <= 5; ++rank) {
      SCOPED_TRACE(std::string(DTypeLongName(dtype)) + " rank " + std::to_string(rank));
      NpyArray a;
      a.dtype = dtype;
      a.shape.assign(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(rank));
      a.bytes.resize(static_cast<size_t>(a.NumElements()) * DTypeSize(dtype));
      for (size_t i = 0; i < a.bytes.size(); ++i) a.bytes[i] = static_cast<uint8_t>(i * 37 + 11);

      const std::string path = ::testing::TempDir() + "/loom_npy_roundtrip.npy";
      ASSERT_TRUE(WriteNpy(path, a).ok());
      NpyArray b;
      Status s = ReadNpy(path, &b);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(b.dtype, a.dtype);
      EXPECT_EQ(b.shape, a.shape);
      EXPECT_EQ(b.bytes, a.bytes);

      // Data starts 64-byte aligned, as numpy.save lays it out.
      std::vector<uint8_t> file;
      ASSERT_TRUE(SerializeNpy(a, &file).ok());
      EXPECT_EQ((file.size() - a.bytes.size()) % 64, 0u);
      EXPECT_EQ(file, ReadBytes(path));
      std::remove(path.c_str());
    }
  }
}

TEST(NpyTest, TypedHelpers) {
  const NpyArray a = MakeNpy<int32_t>({2, 2}, {1, -2, 3, -4});
  EXPECT_EQ(a.dtype, DType::kI32);
  EXPECT_EQ(a.NumElements(), 4);
  std::vector<int32_t> back;
  ASSERT_TRUE(NpyToVector(a, &back).ok());
  EXPECT_EQ(back, (std::vector<int32_t>{1, -2, 3, -4}));
  std::vector<float> wrong;
  Status s = NpyToVector(a, &wrong);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("array holds int32, expected float32"));
}

TEST(NpyTest, DtypeNamesAndSizes) {
  EXPECT_STREQ(DTypeLongName(DType::kU8), "uint8");
  EXPECT_STREQ(NpyDescr(DType::kI8), "|i1");
  EXPECT_STREQ(NpyDescr(DType::kF64), "<f8");
  EXPECT_EQ(DTypeSize(DType::kI64), 8u);
  EXPECT_EQ(DTypeSize(DType::kF32), 4u);
}

// ---- files written by NumPy -----------------------------------------------------------------

TEST(NpyTest, ReadsNumpyFilesOfEveryDtype) {
  NpyArray a;
  ASSERT_TRUE(ReadNpy(DataPath("f32_2x3.npy"), &a).ok());
  std::vector<float> f32;
  ASSERT_TRUE(NpyToVector(a, &f32).ok());
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f32, (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));

  ASSERT_TRUE(ReadNpy(DataPath("f64_scalar.npy"), &a).ok());
  std::vector<double> f64;
  ASSERT_TRUE(NpyToVector(a, &f64).ok());
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(f64, (std::vector<double>{3.25}));

  ASSERT_TRUE(ReadNpy(DataPath("i8_4.npy"), &a).ok());
  std::vector<int8_t> i8;
  ASSERT_TRUE(NpyToVector(a, &i8).ok());
  EXPECT_EQ(i8, (std::vector<int8_t>{-128, -1, 0, 127}));

  ASSERT_TRUE(ReadNpy(DataPath("u8_2x2x2.npy"), &a).ok());
  std::vector<uint8_t> u8;
  ASSERT_TRUE(NpyToVector(a, &u8).ok());
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(u8, (std::vector<uint8_t>{0, 36, 72, 108, 144, 180, 216, 252}));

  ASSERT_TRUE(ReadNpy(DataPath("i32_3x1.npy"), &a).ok());
  std::vector<int32_t> i32;
  ASSERT_TRUE(NpyToVector(a, &i32).ok());
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(i32, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 7,
                                       std::numeric_limits<int32_t>::max()}));

  ASSERT_TRUE(ReadNpy(DataPath("i64_5.npy"), &a).ok());
  std::vector<int64_t> i64;
  ASSERT_TRUE(NpyToVector(a, &i64).ok());
  EXPECT_EQ(i64, (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), -1, 0, 1,
                                       std::numeric_limits<int64_t>::max()}));

  ASSERT_TRUE(ReadNpy(DataPath("int16.npy"), &a).ok());
  std::vector<int16_t> i16;
  ASSERT_TRUE(NpyToVector(a, &i16).ok());
  EXPECT_EQ(a.dtype, DType::kI16);
  EXPECT_EQ(i16, (std::vector<int16_t>{1, 2}));

  ASSERT_TRUE(ReadNpy(DataPath("f32_0x3.npy"), &a).ok());
  EXPECT_EQ(a.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(a.bytes.empty());

  ASSERT_TRUE(ReadNpy(DataPath("f32_1x1x1x1x2.npy"), &a).ok());
  ASSERT_TRUE(NpyToVector(a, &f32).ok());
  EXPECT_EQ(a.shape, (std::vector<int64_t>{1, 1, 1, 1, 2}));
  EXPECT_EQ(f32, (std::vector<float>{1.5f, -2.5f}));
}

TEST(NpyTest, ReadsFormatVersions2And3) {
  NpyArray v1, v2, v3;
  ASSERT_TRUE(ReadNpy(DataPath("f32_2x3.npy"), &v1).ok());
  Status s = ReadNpy(DataPath("f32_v2.npy"), &v2);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = ReadNpy(DataPath("f32_v3.npy"), &v3);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (const NpyArray* a : {&v2, &v3}) {
    EXPECT_EQ(a->dtype, v1.dtype);
    EXPECT_EQ(a->shape, v1.shape);
    EXPECT_EQ(a->bytes, v1.bytes);
  }
}

TEST(NpyTest, WritesWhatNumpyWrites) {
  for (const char* name :
       {"f32_2x3.npy", "f64_scalar.npy", "i8_4.npy", "u8_2x2x2.npy", "i32_3x1.npy", "i64_5.npy",
        "f32_0x3.npy", "f32_1x1x1x1x2.npy", "int16.npy"}) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> numpy_file = ReadBytes(DataPath(name));
    ASSERT_FALSE(numpy_file.empty());
    NpyArray a;
    ASSERT_TRUE(ParseNpy(numpy_file.data(), numpy_file.size(), name, &a).ok());
    std::vector<uint8_t> ours;
    ASSERT_TRUE(SerializeNpy(a, &ours).ok());
    EXPECT_EQ(std::string(ours.begin(), ours.end()),
              std::string(numpy_file.begin(), numpy_file.end()));
  }
}

// The example model's data, written by NumPy 2 in examples/digits/train.py.
TEST(NpyTest, ReadsTheDigitsExampleData) {
  const std::string dir = std::string(LOOM_SOURCE_DIR) + "/examples/digits/";
  NpyArray calib, images, labels;
  Status s = ReadNpy(dir + "calibration.npy", &calib);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(calib.dtype, DType::kF32);
  EXPECT_EQ(calib.shape, (std::vector<int64_t>{100, 1, 8, 8}));
  s = ReadNpy(dir + "test_images.npy", &images);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(images.shape.size(), 4u);
  EXPECT_EQ(images.dtype, DType::kF32);
  s = ReadNpy(dir + "test_labels.npy", &labels);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(labels.shape, (std::vector<int64_t>{images.shape[0]}));
  std::vector<int64_t> y;
  ASSERT_TRUE(NpyToVector(labels, &y).ok());
  for (int64_t label : y) EXPECT_TRUE(label >= 0 && label < 10) << label;
  std::vector<float> x;
  ASSERT_TRUE(NpyToVector(images, &x).ok());
  for (float v : x) ASSERT_TRUE(v >= 0.0f && v <= 1.0f) << v;
}

// NumPy writes these; Loom rejects them and says why and how to convert.
TEST(NpyTest, RejectsUnsupportedNumpyFiles) {
  struct Case {
    const char* file;
    const char* message;
  };
  const Case cases[] = {
      {"fortran.npy", "Fortran-order (column-major) data is not supported"},
      {"bigendian.npy",
       "big-endian data (dtype '>f4') is not supported; save it as little-endian "
       "with a.astype('<f4')"},
      {"object.npy", "object arrays (dtype '|O') are not supported"},
      {"structured.npy", "structured dtypes (a 'descr' list of fields) are not supported"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    NpyArray a;
    Status s = ReadNpy(DataPath(c.file), &a);
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.ToString();
    EXPECT_THAT(s.message(), AllOf(StartsWith(DataPath(c.file) + ": "), HasSubstr(c.message)));
  }
}

// ---- malformed input ------------------------------------------------------------------------

struct BadCase {
  const char* name;
  std::vector<uint8_t> file;
  StatusCode code;
  const char* message;
};

std::vector<BadCase> BadCases() {
  std::vector<uint8_t> good = Raw(Header("<f4", "(2, 3)"), 24);
  std::vector<uint8_t> bad_magic = good;
  bad_magic[1] = 'X';
  std::vector<uint8_t> bad_version = good;
  bad_version[6] = 4;
  std::vector<uint8_t> bad_minor = good;
  bad_minor[7] = 1;
  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  std::vector<uint8_t> short_data = good;
  short_data.resize(short_data.size() - 1);
  std::vector<uint8_t> short_header(good.begin(), good.begin() + 30);
  std::vector<uint8_t> huge_len = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xff, 0xff, 0xff, 0x7f};
  std::string many_dims = "(";
  for (size_t i = 0; i <= kNpyMaxRank; ++i) many_dims += "1, ";
  many_dims += ")";

  const StatusCode kInvalid = StatusCode::kInvalidArgument;
  const StatusCode kLoss = StatusCode::kDataLoss;
  const StatusCode kUnimpl = StatusCode::kUnimplemented;
  return {
      {"empty", {}, kLoss, "truncated: 0 bytes is too short for a .npy file"},
      {"bad magic", bad_magic, kInvalid, "not a .npy file: it does not start with the magic"},
      {"version 4.0", bad_version, kUnimpl, "unsupported .npy format version 4.0"},
      {"version 1.1", bad_minor, kUnimpl, "unsupported .npy format version 1.1"},
      {"no header length",
       {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 1},
       kLoss,
       "truncated: 9 bytes ends inside the header length"},
      {"truncated header", short_header, kLoss, "truncated header: the header length field says"},
      {"huge header length", huge_len, kLoss,
       "truncated header: the header length field says 2147483647 bytes but only 0 follow"},
      {"truncated data", short_data, kLoss,
       "truncated data: shape (2, 3) of float32 needs 24 data bytes, the file has 23"},
      {"trailing bytes", trailing, kLoss,
       "trailing bytes after the data: shape (2, 3) of float32 needs 24 data bytes, the file has "
       "25"},
      {"not a dict", Raw("[('descr', '<f4')]"), kInvalid,
       "the header is not a Python dict literal (it must start with '{')"},
      {"empty header", Raw(""), kInvalid, "the header is not a Python dict literal"},
      {"missing descr", Raw("{'fortran_order': False, 'shape': ()}", 4), kInvalid,
       "missing key 'descr'"},
      {"missing fortran_order", Raw("{'descr': '<f4', 'shape': ()}", 4), kInvalid,
       "missing key 'fortran_order'"},
      {"missing shape", Raw("{'descr': '<f4', 'fortran_order': False}"), kInvalid,
       "missing key 'shape'"},
      {"duplicate key", Raw("{'descr': '<f4', 'descr': '<f4'}"), kInvalid, "duplicate key 'descr'"},
      {"extra key", Raw("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", 4),
       kInvalid, "unexpected key 'x'"},
      {"unquoted key", Raw("{descr: '<f4'}"), kInvalid, "expected a quoted key or '}'"},
      {"no colon", Raw("{'descr' '<f4'}"), kInvalid, "expected ':' after key 'descr'"},
      {"no comma", Raw("{'descr': '<f4' 'shape': ()}"), kInvalid,
       "expected ',' or '}' after the value of 'descr'"},
      {"unclosed dict", Raw("{'descr': '<f4', "), kInvalid, "expected a quoted key or '}'"},
      {"text after dict", Raw(Header("<f4", "()") + "x", 4), kInvalid,
       "unexpected text after the closing '}'"},
      {"unterminated string", Raw("{'descr': '<f4}"), kInvalid, "unterminated string"},
      {"descr not a string", Raw("{'descr': 4}"), kInvalid, "'descr' must be a string"},
      {"fortran_order not bool", Raw("{'fortran_order': 0}"), kInvalid,
       "'fortran_order' must be True or False"},
      {"fortran_order Trueish", Raw("{'fortran_order': Truex}"), kInvalid,
       "'fortran_order' must be True or False"},
      {"shape not a tuple", Raw("{'shape': [2, 3]}"), kInvalid, "'shape' must be a tuple of ints"},
      {"shape a parenthesized int", Raw(Header("<f4", "(3)"), 12), kInvalid,
       "'shape' (3) is a parenthesized int, not a tuple; a 1-d shape is written (3,)"},
      {"shape missing comma", Raw(Header("<f4", "(2 3)"), 24), kInvalid,
       "expected ',' or ')' in 'shape'"},
      {"negative dimension", Raw(Header("<f4", "(-1,)")), kInvalid,
       "negative dimension in 'shape'"},
      {"float dimension", Raw(Header("<f4", "(2.0,)")), kInvalid,
       "'shape' must hold only integers"},
      {"name dimension", Raw(Header("<f4", "(n,)")), kInvalid, "'shape' must hold only integers"},
      {"dimension over 64 bits", Raw(Header("<f4", "(99999999999999999999,)")), kInvalid,
       "a dimension in 'shape' does not fit in 64 bits"},
      {"element count overflow", Raw(Header("<f8", "(4294967296, 4294967296)")), kInvalid,
       "shape (4294967296, 4294967296) of float64 has too many elements (the byte size overflows "
       "64 bits)"},
      {"byte size overflow", Raw(Header("<f8", "(1152921504606846976,)")), kInvalid,
       "has too many elements"},
      {"zero does not excuse overflow", Raw(Header("<i1", "(0, 9223372036854775807, 2)")), kInvalid,
       "has too many elements"},
      {"too many dimensions", Raw(Header("<f4", many_dims), 4), kInvalid,
       "'shape' has more than 64 dimensions"},
      {"unsupported dtype", Raw(Header("<c8", "()"), 8), kUnimpl,
       "unsupported dtype '<c8' (supported: float32 '<f4', float64 '<f8', float16 '<f2', int8 "
       "'|i1', uint8 '|u1', int16 '<i2', int32 '<i4', int64 '<i8', bool '|b1', uint16 '<u2', "
       "uint32 '<u4', uint64 '<u8')"},
      {"timedelta dtype", Raw(Header("<m8", "()"), 8), kUnimpl, "unsupported dtype '<m8'"},
      {"big-endian int64", Raw(Header(">i8", "()"), 8), kUnimpl,
       "big-endian data (dtype '>i8') is not supported; save it as little-endian with "
       "a.astype('<i8')"},
      {"object dtype", Raw(Header("|O", "(1,)"), 8), kUnimpl, "object arrays (dtype '|O')"},
      {"structured dtype", Raw("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': ()}"),
       kUnimpl, "structured dtypes"},
      {"fortran order", Raw("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2)}", 16),
       kUnimpl, "Fortran-order (column-major) data is not supported; save np.ascontiguousarray(a)"},
  };
}

TEST(NpyTest, EveryMalformedInputIsAnErrorNamingFileAndProblem) {
  for (const BadCase& c : BadCases()) {
    SCOPED_TRACE(c.name);
    Status s = Parse(c.file);
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    EXPECT_THAT(s.message(), AllOf(StartsWith("bad.npy: "), HasSubstr(c.message)));
  }
}

TEST(NpyTest, HeaderErrorsQuoteTheHeader) {
  Status s = Parse(Raw("{'descr': '<f4', 'shape': (2, 3), 'fortran_order': maybe}\x01"));
  EXPECT_THAT(s.message(),
              HasSubstr("'fortran_order' must be True or False (at header offset 51 in "
                        "\"{'descr': '<f4', 'shape': (2, 3), 'fortran_order': maybe}\\x01\")"));
}

TEST(NpyTest, AcceptsHeaderVariantsNumpyWouldRead) {
  struct Case {
    const char* name;
    std::vector<uint8_t> file;
    DType dtype;
    std::vector<int64_t> shape;
  };
  const Case cases[] = {
      {"any key order, double quotes, no spaces",
       Raw("{\"shape\":(2,),\"fortran_order\":False,\"descr\":\"|u1\"}", 2),
       DType::kU8,
       {2}},
      {"trailing comma in shape", Raw(Header("<f4", "(2, 3,)"), 24), DType::kF32, {2, 3}},
      {"Python 2 long dims", Raw(Header("<i4", "(1L, 2L)"), 8), DType::kI32, {1, 2}},
      {"'<' on a 1-byte type", Raw(Header("<i1", "(3,)"), 3), DType::kI8, {3}},
      {"version 2.0", Raw(Header("<i8", "()"), 8, 2), DType::kI64, {}},
      {"version 3.0", Raw(Header("<f8", "(1, 0)"), 0, 3), DType::kF64, {1, 0}},
      {"bool", Raw(Header("|b1", "(2,)"), 2), DType::kBool, {2}},
      {"'>' on bool", Raw(Header(">b1", "()"), 1), DType::kBool, {}},
      {"float16", Raw(Header("<f2", "(3,)"), 6), DType::kF16, {3}},
      {"whitespace everywhere",
       Raw(" \t{ 'descr' :'<f4' ,\n'fortran_order':False,'shape':( ) } \n", 4),
       DType::kF32,
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NpyArray a;
    Status s = Parse(c.file, &a);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(a.dtype, c.dtype);
    EXPECT_EQ(a.shape, c.shape);
  }
  std::string dims = "(";
  for (size_t i = 0; i < kNpyMaxRank; ++i) dims += "1,";
  NpyArray a;
  Status s = Parse(Raw(Header("<f4", dims + ")"), 4), &a);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(a.shape.size(), kNpyMaxRank);
}

// ---- files and the writer -------------------------------------------------------------------

TEST(NpyTest, ReadMissingFileIsNotFound) {
  NpyArray a;
  Status s = ReadNpy(DataPath("no_such_file.npy"), &a);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(),
              HasSubstr(".npy file " + DataPath("no_such_file.npy") + ": no such file"));
}

TEST(NpyTest, ReadDirectoryIsAnError) {
  NpyArray a;
  Status s = ReadNpy(std::string(LOOM_SOURCE_DIR) + "/tests/io/data", &a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("tests/io/data is a directory"));
}

// `--input /dev/zero` was read until memory ran out, a FIFO without a writer blocked, and a
// multi-GiB file was read whole before its header was looked at.
TEST(NpyTest, ReadRefusesDevicesPipesAndHugeFilesBeforeReading) {
  NpyArray a;
  Status s = ReadNpy("/dev/zero", &a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(".npy file /dev/zero is a character device"));

  const std::string base = ::testing::TempDir() + "/npy_test_" + std::to_string(::getpid());
  ASSERT_EQ(::mkfifo((base + ".fifo").c_str(), 0600), 0);
  s = ReadNpy(base + ".fifo", &a);
  std::remove((base + ".fifo").c_str());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(".fifo is a pipe"));

  // A sparse file one byte over the cap: refused from its size, without reading 4 GiB.
  const std::string huge = base + "_huge.npy";
  std::FILE* f = std::fopen(huge.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ASSERT_EQ(::truncate(huge.c_str(), static_cast<off_t>(kMaxTensorFileBytes + 1)), 0);
  s = ReadNpy(huge, &a);
  std::remove(huge.c_str());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("has 4294967297 bytes, more than the 4294967296 bytes"));
}

TEST(NpyTest, WriteRejectsInconsistentArrays) {
  NpyArray a = MakeNpy<float>({2, 3}, {1, 2, 3, 4, 5});
  const std::string path = ::testing::TempDir() + "/loom_npy_bad.npy";
  Status s = WriteNpy(path, a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(StartsWith(path + ": "),
                                 HasSubstr("array of shape (2, 3) and dtype float32 needs 24 "
                                           "bytes, it holds 20")));
  a.shape = {-1};
  s = WriteNpy(path, a);
  EXPECT_THAT(s.message(), HasSubstr("negative dimension in shape (-1,)"));
  a.shape = {int64_t{1} << 62, 4};
  s = WriteNpy(path, a);
  EXPECT_THAT(s.message(), HasSubstr("has too many elements"));
  a.shape.assign(kNpyMaxRank + 1, 1);
  s = WriteNpy(path, a);
  EXPECT_THAT(s.message(), HasSubstr("shape has 65 dimensions, at most 64 are supported"));
}

TEST(NpyTest, WriteToMissingFolderIsAnError) {
  const std::string path = ::testing::TempDir() + "/loom_no_such_dir/x.npy";
  Status s = WriteNpy(path, MakeNpy<uint8_t>({1}, {7}));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(path + ": cannot create"));
}

}  // namespace
}  // namespace loom
