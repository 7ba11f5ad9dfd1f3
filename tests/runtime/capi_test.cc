// The C API and its C++ wrapper over a package written by the writer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "loom_runtime.h"
#include "loom_runtime.hpp"
#include "loom_runtime_host.h"
#include "runtime/config/config_file.h"
#include "tests/runtime/test_packages.h"

namespace loom::testing {
namespace {

using ::testing::HasSubstr;

// Every test writes its model first: the place to add the host runtime's simulators and config
// reader, which these tests use through the C API.
std::string WriteModel(const char* file, ConvModelOptions m = {}) {
  EXPECT_EQ(loom_register_host_runtime(), LOOM_OK);
  HwConfig c;
  EXPECT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  package::PackageSpec spec;
  EXPECT_TRUE(BuildConvModel(c, m, &spec).ok());
  const std::string path = ::testing::TempDir() + "/" + file;
  EXPECT_TRUE(package::WritePackage(spec, path).ok());
  return path;
}

// Every loom_dtype crosses the C API as itself: int64 in, int64 out, and the info says int64.
TEST(CApi, TypedInputsAndOutputs) {
  EXPECT_EQ(loom_register_host_runtime(), LOOM_OK);
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  package::PackageSpec spec;
  ASSERT_TRUE(BuildTypedCpuModel(c, pkg::DType::Int64, &spec).ok());
  const std::string path = ::testing::TempDir() + "/capi_i64.loom";
  ASSERT_TRUE(package::WritePackage(spec, path).ok());
  loom_runtime* rt = nullptr;
  ASSERT_EQ(loom_open(path.c_str(), "cpu", &rt), LOOM_OK) << loom_last_error(nullptr);
  loom_tensor_info info;
  ASSERT_EQ(loom_input_info(rt, 0, &info), LOOM_OK);
  EXPECT_EQ(info.dtype, LOOM_INT64);
  const int64_t x[6] = {1, -2, 3, int64_t{1} << 40, 5, -6};
  const int64_t shape[2] = {2, 3};
  EXPECT_EQ(loom_set_input(rt, "x", LOOM_INT64, shape, 2, x, 24), LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt),
              HasSubstr("input 'x' holds 24 bytes; shape [2, 3] of int64 needs 48"));
  EXPECT_EQ(loom_set_input(rt, "x", static_cast<loom_dtype>(42), shape, 2, x, 48),
            LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt), HasSubstr("unknown dtype 42"));
  ASSERT_EQ(loom_set_input(rt, "x", LOOM_INT64, shape, 2, x, sizeof x), LOOM_OK);
  ASSERT_EQ(loom_run(rt), LOOM_OK) << loom_last_error(rt);
  int64_t y[8] = {};
  EXPECT_EQ(loom_get_output(rt, "y", LOOM_FLOAT32, y, 32), LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt), HasSubstr("output 'y' is int64"));
  ASSERT_EQ(loom_get_output(rt, "y", LOOM_INT64, y, sizeof y), LOOM_OK) << loom_last_error(rt);
  const int64_t one = 0x0101010101010101;  // the constant row's bytes
  const int64_t want[8] = {1, int64_t{1} << 40, -2, 5, 3, -6, one, one};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], want[i]) << i;
  // A float32 input for the int64 model is refused by the run, naming both types.
  const float f[6] = {};
  ASSERT_EQ(loom_set_input(rt, "x", LOOM_FLOAT32, shape, 2, f, sizeof f), LOOM_OK);
  EXPECT_EQ(loom_run(rt), LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt),
              HasSubstr("input 'x' is int64 in the model; float32 data was given"));
  loom_close(rt);
}

TEST(CApi, RunsAndMatchesAcrossDevices) {
  const std::string path = WriteModel("capi.loom");
  const std::vector<float> x = ConvModelInput(ConvModelOptions{}, 3);
  const int64_t shape[4] = {1, 5, 8, 8};
  std::vector<std::vector<float>> probs;
  for (const char* device : {"cpu", "fsim"}) {
    loom_runtime* rt = nullptr;
    ASSERT_EQ(loom_open(path.c_str(), device, &rt), LOOM_OK) << loom_last_error(nullptr);
    ASSERT_EQ(loom_num_inputs(rt), 1u);
    ASSERT_EQ(loom_num_outputs(rt), 2u);
    loom_tensor_info info;
    ASSERT_EQ(loom_input_info(rt, 0, &info), LOOM_OK);
    EXPECT_STREQ(info.name, "input");
    EXPECT_EQ(info.dtype, LOOM_INT8);
    EXPECT_EQ(info.rank, 4u);
    EXPECT_EQ(info.shape[1], 5);
    ASSERT_EQ(loom_output_info(rt, 1, &info), LOOM_OK);
    EXPECT_STREQ(info.name, "probs");
    EXPECT_EQ(loom_output_info(rt, 2, &info), LOOM_OUT_OF_RANGE);
    ASSERT_EQ(loom_set_input(rt, "input", LOOM_FLOAT32, shape, 4, x.data(), x.size() * 4), LOOM_OK);
    ASSERT_EQ(loom_run(rt), LOOM_OK) << loom_last_error(rt);
    int64_t oshape[LOOM_MAX_RANK];
    size_t rank = 0;
    ASSERT_EQ(loom_output_shape(rt, "probs", oshape, &rank), LOOM_OK);
    ASSERT_EQ(rank, 2u);
    std::vector<float> p(static_cast<size_t>(oshape[0] * oshape[1]));
    ASSERT_EQ(loom_get_output(rt, "probs", LOOM_FLOAT32, p.data(), p.size() * 4), LOOM_OK);
    float sum = 0;
    for (float v : p) sum += v;
    EXPECT_NEAR(sum, 1.0f, 1e-4);
    probs.push_back(p);
    // Wrong size and wrong dtype name the problem.
    EXPECT_EQ(loom_get_output(rt, "probs", LOOM_FLOAT32, p.data(), 4), LOOM_INVALID_ARGUMENT);
    EXPECT_THAT(loom_last_error(rt), HasSubstr("has 384 bytes"));
    EXPECT_EQ(loom_get_output(rt, "probs", LOOM_INT8, p.data(), p.size()), LOOM_INVALID_ARGUMENT);
    loom_stats st;
    ASSERT_EQ(loom_get_stats(rt, &st), LOOM_OK);
    EXPECT_EQ(st.inferences, 1u);
    if (std::string(device) == "fsim") {
      EXPECT_GT(st.cycles, 0u);
      EXPECT_GT(st.gemm_utilization, 0.0);
    } else {
      EXPECT_EQ(st.cycles, 0u);
    }
    EXPECT_GT(st.macs, 0u);
    loom_close(rt);
  }
  EXPECT_EQ(probs[0], probs[1]);
}

TEST(CApi, ErrorsCarryCodesAndMessages) {
  loom_runtime* rt = nullptr;
  EXPECT_EQ(loom_open("/nonexistent.loom", "fsim", &rt), LOOM_NOT_FOUND);
  EXPECT_THAT(loom_last_error(nullptr), HasSubstr("package /nonexistent.loom: no such file"));
  EXPECT_STREQ(loom_status_name(LOOM_DATA_LOSS), StatusCodeName(StatusCode::kDataLoss));
  const std::string path = WriteModel("capi_err.loom");
  EXPECT_EQ(loom_open(path.c_str(), "warp-drive", &rt), LOOM_NOT_FOUND);
  EXPECT_THAT(loom_last_error(nullptr), HasSubstr("unknown device 'warp-drive'"));
  loom_options o{};
  o.device = "fsim";
  o.config = "1x16x16";
  EXPECT_EQ(loom_open_ex(path.c_str(), &o, &rt), LOOM_FAILED_PRECONDITION);
  EXPECT_THAT(loom_last_error(nullptr), HasSubstr("package built for config 1x8x8"));
  // A corrupted file in memory.
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::vector<uint8_t> bytes(1 << 20);
  bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f));
  std::fclose(f);
  bytes[bytes.size() / 2] ^= 4;
  EXPECT_EQ(loom_open_memory(bytes.data(), bytes.size(), nullptr, &rt), LOOM_DATA_LOSS);
  EXPECT_THAT(loom_last_error(nullptr), HasSubstr("checksum mismatch"));
  bytes[bytes.size() / 2] ^= 4;
  ASSERT_EQ(loom_open_memory(bytes.data(), bytes.size(), nullptr, &rt), LOOM_OK);
  EXPECT_EQ(loom_run(rt), LOOM_NOT_FOUND);
  EXPECT_THAT(loom_last_error(rt), HasSubstr("model input 'input' was not given"));
  const int64_t bad[4] = {1, 5, 8, 9};
  std::vector<float> x(360);
  ASSERT_EQ(loom_set_input(rt, "input", LOOM_FLOAT32, bad, 4, x.data(), x.size() * 4), LOOM_OK);
  EXPECT_EQ(loom_run(rt), LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt), HasSubstr("has shape [1, 5, 8, 9]"));
  loom_close(rt);
}

// The shape is checked where it enters: {2^62, 5, 8, 8} float32 is 0 bytes modulo 2^64, which
// matched the 0 bytes given, and loom_run then crashed in memcpy.
TEST(CApi, SetInputRefusesNegativeAndOverflowingShapes) {
  const std::string path = WriteModel("capi_shape.loom");
  loom_runtime* rt = nullptr;
  ASSERT_EQ(loom_open(path.c_str(), "cpu", &rt), LOOM_OK) << loom_last_error(nullptr);
  const int64_t huge[4] = {int64_t{1} << 62, 5, 8, 8};
  EXPECT_EQ(loom_set_input(rt, "input", LOOM_FLOAT32, huge, 4, nullptr, 0), LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt),
              HasSubstr("input 'input': shape [4611686018427387904, 5, 8, 8] "
                        "has too many elements (its byte size overflows 64 bits)"));
  // The element count alone overflows.
  const int64_t wide[2] = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(loom_set_input(rt, "input", LOOM_INT8, wide, 2, nullptr, 0), LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt), HasSubstr("has too many elements"));
  const int64_t negative[4] = {1, -5, 8, 8};
  std::vector<float> x(320);
  EXPECT_EQ(loom_set_input(rt, "input", LOOM_FLOAT32, negative, 4, x.data(), 0),
            LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt),
              HasSubstr("input 'input': dimension 1 of shape [1, -5, 8, 8] is negative"));
  const int64_t good[4] = {1, 5, 8, 8};
  EXPECT_EQ(loom_set_input(rt, "input", LOOM_FLOAT32, good, 4, x.data(), 4 * 319),
            LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt),
              HasSubstr("input 'input' holds 1276 bytes; shape [1, 5, 8, 8] of "
                        "float32 needs 1280"));
  // A dtype value the header does not name (C passes any int) is refused, not undefined.
  EXPECT_EQ(loom_set_input(rt, "input", static_cast<loom_dtype>(77), good, 4, x.data(), 4 * 320),
            LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(rt), HasSubstr("unknown dtype"));
  // Nothing refused was kept.
  EXPECT_EQ(loom_run(rt), LOOM_NOT_FOUND);
  EXPECT_THAT(loom_last_error(rt), HasSubstr("model input 'input' was not given"));
  ASSERT_EQ(loom_set_input(rt, "input", LOOM_FLOAT32, good, 4, x.data(), 4 * 320), LOOM_OK);
  EXPECT_EQ(loom_run(rt), LOOM_OK) << loom_last_error(rt);
  loom_close(rt);
}

TEST(CApi, OpenRefusesBadFilesRanksAndTooMuchDeviceMemory) {
  loom_runtime* rt = nullptr;
  EXPECT_EQ(loom_open("/dev/zero", "cpu", &rt), LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(nullptr), HasSubstr("package /dev/zero is a character device"));
  EXPECT_EQ(rt, nullptr);

  // A binding of rank 9 cannot be described in loom_tensor_info: refused at open, not truncated.
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  std::vector<OversizedPackage> bad;
  ASSERT_TRUE(BuildOversizedPackages(c, &bad).ok());
  for (const OversizedPackage& b : bad) {
    SCOPED_TRACE(b.name);
    std::vector<uint8_t> bytes;
    package::WriteOptions wo;
    wo.verify = false;
    ASSERT_TRUE(package::SerializePackage(b.spec, &bytes, wo).ok());
    EXPECT_EQ(loom_open_memory(bytes.data(), bytes.size(), nullptr, &rt),
              static_cast<loom_status>(b.code));
    EXPECT_THAT(loom_last_error(nullptr), HasSubstr(b.message));
  }

  // max_device_memory reaches the loader and the executor; 0 is the default.
  const std::string path = WriteModel("capi_memory.loom");
  loom_options o{};
  o.device = "cpu";
  o.max_device_memory = 4096;
  EXPECT_EQ(loom_open_ex(path.c_str(), &o, &rt), LOOM_FAILED_PRECONDITION);
  EXPECT_THAT(loom_last_error(nullptr), HasSubstr("more than the limit of 4096 bytes"));
  o.max_device_memory = 0;
  ASSERT_EQ(loom_open_ex(path.c_str(), &o, &rt), LOOM_OK) << loom_last_error(nullptr);
  loom_tensor_info info;
  ASSERT_EQ(loom_input_info(rt, 0, &info), LOOM_OK);
  EXPECT_EQ(info.rank, 4u);
  loom_close(rt);
  loom::Runtime wrapped;
  EXPECT_EQ(wrapped.Open(path, "cpu", "", false, 4096), LOOM_FAILED_PRECONDITION);
  EXPECT_THAT(wrapped.error(), HasSubstr("more than the limit of 4096 bytes"));
}

// timeout_ms reaches the executor: a model of about 150000 accelerator cycles (1.5 ms at 1x8x8's
// 100 MHz) runs with the default and stops at 1 ms of device time. Device time, so no flakiness.
TEST(CApi, TimeoutOptionsBoundEachSubmission) {
  ConvModelOptions m;
  m.c = 32;
  m.hw = 32;
  m.o = 32;
  const std::string path = WriteModel("capi_timeout.loom", m);
  const std::vector<float> x = ConvModelInput(m, 3);
  const int64_t shape[4] = {1, 32, 32, 32};
  for (uint32_t timeout_ms : {0u, 1u}) {
    SCOPED_TRACE(timeout_ms);
    loom_options o{};
    o.device = "fsim";
    o.timeout_ms = timeout_ms;
    o.wall_timeout_ms = 0;  // the default, 5 minutes of host time: far more than this needs
    loom_runtime* rt = nullptr;
    ASSERT_EQ(loom_open_ex(path.c_str(), &o, &rt), LOOM_OK) << loom_last_error(nullptr);
    ASSERT_EQ(loom_set_input(rt, "input", LOOM_FLOAT32, shape, 4, x.data(), x.size() * 4), LOOM_OK);
    if (timeout_ms == 0) {
      ASSERT_EQ(loom_run(rt), LOOM_OK) << loom_last_error(rt);
      loom_stats st;
      ASSERT_EQ(loom_get_stats(rt, &st), LOOM_OK);
      EXPECT_GT(st.cycles, 100000u);  // else the 1 ms case below proves nothing
    } else {
      EXPECT_EQ(loom_run(rt), LOOM_DEADLINE_EXCEEDED);
      EXPECT_THAT(loom_last_error(rt), HasSubstr("device-time limit of 100000 cycles"));
    }
    loom_close(rt);
  }
}

// The device string's arguments reach the driver, and a driver that takes none refuses them.
TEST(CApi, DeviceStringArgumentsReachTheDriver) {
  const std::string path = WriteModel("capi_device_args.loom");
  loom_runtime* rt = nullptr;
  EXPECT_EQ(loom_open(path.c_str(), "cpu:fast", &rt), LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(nullptr),
              HasSubstr("device 'cpu' takes no arguments, got 'cpu:fast'"));
  EXPECT_EQ(loom_open(path.c_str(), "warp:9", &rt), LOOM_NOT_FOUND);
  EXPECT_THAT(loom_last_error(nullptr), HasSubstr("unknown device 'warp'; available: cpu"));
  EXPECT_EQ(loom_open(path.c_str(), ":x", &rt), LOOM_INVALID_ARGUMENT);
  EXPECT_THAT(loom_last_error(nullptr), HasSubstr("names no device"));
  ASSERT_EQ(loom_open(path.c_str(), "cpu", &rt), LOOM_OK) << loom_last_error(nullptr);
  loom_close(rt);
}

TEST(CppWrapper, Int8OutputsAndTrace) {
  ConvModelOptions m;
  const std::string path = WriteModel("wrapper.loom", m);
  loom::Runtime rt;
  ASSERT_EQ(rt.Open(path, "fsim", "", /*trace=*/true), LOOM_OK) << rt.error();
  ASSERT_EQ(rt.inputs().size(), 1u);
  EXPECT_EQ(rt.SetInput<float>("input", {1, 5, 8, 8}, ConvModelInput(m, 5)), LOOM_OK);
  ASSERT_EQ(rt.Run(), LOOM_OK) << rt.error();
  std::vector<float> f;
  std::vector<int64_t> shape;
  ASSERT_EQ(rt.GetOutput("features", &f, &shape), LOOM_OK);
  EXPECT_EQ(shape, (std::vector<int64_t>{1, 6, 4, 4}));
  const char* json = nullptr;
  ASSERT_EQ(loom_trace_json(rt.handle(), &json), LOOM_OK);
  EXPECT_THAT(json, HasSubstr("traceEvents"));
  EXPECT_GT(rt.stats().cycles, 0u);
  // int8 inputs taken as is: quantizing by hand gives the same result.
  std::vector<int8_t> q;
  const float scale = rt.inputs()[0].scale;
  for (float v : ConvModelInput(m, 5)) q.push_back(static_cast<int8_t>(std::max(-128.0f, std::min(127.0f, std::nearbyint(v / scale)))));
  EXPECT_EQ(rt.SetInput<int8_t>("input", {1, 5, 8, 8}, q), LOOM_OK);
  ASSERT_EQ(rt.Run(), LOOM_OK);
  std::vector<float> f2;
  ASSERT_EQ(rt.GetOutput("features", &f2), LOOM_OK);
  EXPECT_EQ(f, f2);
}

}  // namespace
}  // namespace loom::testing
