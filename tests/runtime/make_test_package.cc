// Writes the runtime's test packages: `make_test_package OUT.loom INPUT.npy [--config NAME]` for
// the C API example and loom-run tests, and the fuzz seed corpora: `--corpus DIR` for the loader's
// (runtime/package/fuzz_corpus: valid packages of several configs plus damaged copies: bit flips,
// truncations and oversized size fields), `--run-corpus DIR` for package_run_fuzz and
// `--capi-corpus DIR` for capi_fuzz (runtime/api/*_fuzz_corpus).
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/api/capi_fuzz.h"
#include "runtime/config/config_file.h"
#include "runtime/io/npy.h"
#include "runtime/package/format.h"
#include "tests/runtime/test_packages.h"

namespace {

using loom::Status;

int Fail(const Status& s) {
  std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
  return 1;
}

struct File {
  std::string name;
  std::vector<uint8_t> bytes;
};

bool WriteFiles(const std::string& dir, const std::vector<File>& files) {
  for (const File& f : files) {
    std::FILE* out = std::fopen((dir + "/" + f.name).c_str(), "wb");
    if (!out) {
      std::fprintf(stderr, "error: cannot create %s/%s\n", dir.c_str(), f.name.c_str());
      return false;
    }
    std::fwrite(f.bytes.data(), 1, f.bytes.size(), out);
    if (std::fclose(out) != 0) return false;
  }
  return true;
}

// The loader's seed corpus: valid packages of several configs plus a few damaged copies. The valid
// ones are also compiled into the run fuzz targets (runtime/api/CMakeLists.txt, in this order:
// valid_conv_1x8x8, valid_conv_1x16x16, valid_cpu_only).
Status PackageCorpus(std::vector<File>* out) {
  using namespace loom;
  int k = 0;
  for (const char* name : {"1x8x8", "1x16x16"}) {
    HwConfig c;
    LOOM_RETURN_IF_ERROR(LoadHwConfig(name, &c));
    testing::ConvModelOptions o;
    o.hw = 4;
    o.float_input = k++ == 1;
    package::PackageSpec spec;
    LOOM_RETURN_IF_ERROR(testing::BuildConvModel(c, o, &spec));
    std::vector<uint8_t> bytes;
    LOOM_RETURN_IF_ERROR(package::SerializePackage(spec, &bytes));
    out->push_back({std::string("valid_conv_") + name + ".loom", bytes});
    // Damaged copies, resealed so that fuzzing starts past the checksum.
    std::vector<uint8_t> bad = bytes;
    bad[bad.size() / 3] ^= 0x10;
    runtime::EncodeHeader(bad.data() + runtime::kHeaderBytes, bad.size() - runtime::kHeaderBytes,
                          bad.data());
    out->push_back({std::string("resealed_flip_") + name + ".loom", bad});
    bad.assign(bytes.begin(), bytes.begin() + bytes.size() / 2);
    out->push_back({std::string("truncated_") + name + ".loom", bad});
    // Size fields asking for more than the package holds or a device allows.
    std::vector<testing::OversizedPackage> oversized;
    LOOM_RETURN_IF_ERROR(testing::BuildOversizedPackages(c, &oversized));
    for (const testing::OversizedPackage& p : oversized) {
      package::WriteOptions unverified;
      unverified.verify = false;
      LOOM_RETURN_IF_ERROR(package::SerializePackage(p.spec, &bad, unverified));
      out->push_back({"bad_" + p.name + "_" + name + ".loom", bad});
    }
  }
  HwConfig c;
  LOOM_RETURN_IF_ERROR(LoadHwConfig("1x8x8", &c));
  package::PackageSpec spec;
  LOOM_RETURN_IF_ERROR(testing::BuildCpuOnlyModel(c, &spec));
  std::vector<uint8_t> bytes;
  LOOM_RETURN_IF_ERROR(package::SerializePackage(spec, &bytes));
  out->push_back({"valid_cpu_only.loom", bytes});
  // Schema 1.3's element types: an 8-byte, a 2-byte and a 1-byte one through the data-movement
  // float ops (so mutations reach the width-dependent size and alignment checks).
  for (pkg::DType t : {pkg::DType::Int64, pkg::DType::Float16, pkg::DType::Bool}) {
    LOOM_RETURN_IF_ERROR(testing::BuildTypedCpuModel(c, t, &spec));
    LOOM_RETURN_IF_ERROR(package::SerializePackage(spec, &bytes));
    out->push_back({std::string("valid_typed_") + pkg::EnumNameDType(t) + ".loom", bytes});
  }
  // Schema 1.7's string attributes (Pad's mode), so mutations reach FloatAttr.text's checks.
  LOOM_RETURN_IF_ERROR(testing::BuildPadCpuModel(c, "reflect", &spec));
  LOOM_RETURN_IF_ERROR(package::SerializePackage(spec, &bytes));
  out->push_back({"valid_string_attr.loom", bytes});
  // Schema 1.8's native code, so mutations reach its checks (native_checks.cc). The object is an
  // ELF header only: the loader checks the section, never runs it (the runtime parses objects
  // only for its own machine, and the run fuzzer turns native code off).
  LOOM_RETURN_IF_ERROR(testing::BuildCpuOnlyModel(c, &spec));
  package::NativeCodeSpec code;
  code.target = "armv7";
  code.cpu = "cortex-a9";
  code.features = {"neon"};
  code.object = {0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  code.symbols = {{0, 0, "loom_op_0_0"}};
  spec.native.push_back(code);
  LOOM_RETURN_IF_ERROR(package::SerializePackage(spec, &bytes));
  out->push_back({"valid_native.loom", bytes});
  return Status::Ok();
}

// package_run_fuzz (runtime/api/package_run_fuzz.cc): each package of the loader's corpus behind
// the "package" mode byte (0), and each embedded package in "genuine" mode with a payload of input
// values, with float and int8 outputs.
Status RunCorpus(std::vector<File>* out) {
  std::vector<File> packages;
  LOOM_RETURN_IF_ERROR(PackageCorpus(&packages));
  const char* const embedded[] = {"valid_conv_1x8x8.loom", "valid_conv_1x16x16.loom",
                                  "valid_cpu_only.loom"};
  for (const File& p : packages) {
    File f{"package_" + p.name.substr(0, p.name.size() - 5), {0}};
    f.bytes.insert(f.bytes.end(), p.bytes.begin(), p.bytes.end());
    out->push_back(f);
  }
  for (uint8_t k = 0; k < 3; ++k) {
    const std::string stem = std::string(embedded[k]).substr(6, std::strlen(embedded[k]) - 11);
    for (uint8_t int8 : {0, 1}) {
      File f{std::string("genuine_") + (int8 ? "int8_" : "") + stem,
             {static_cast<uint8_t>(1 | int8 << 1 | k << 2)}};
      // Small values, exact ties, saturating values, and the NaN/infinity bytes 0x7d-0x7f.
      for (int i = 0; i < 96; ++i) f.bytes.push_back(static_cast<uint8_t>(i * 29 + k));
      out->push_back(f);
    }
  }
  return Status::Ok();
}

// capi_fuzz (runtime/api/capi_fuzz.cc, input format in capi_fuzz.h): the documented flow on each
// embedded package and device, and sequences that misuse the API.
std::vector<File> CapiCorpus() {
  using namespace loom::fuzz;
  const uint8_t model = CapiModelName(0);
  // set_input of the model's first input: float32, rank 4, the model's dims, exact byte count.
  const std::vector<uint8_t> set_input = {kCapiSetInput, model, 0, 4, 7, 7, 7, 7, 0, 0, 9};
  std::vector<File> out;
  for (uint8_t k = 0; k < 3; ++k) {
    for (uint8_t device : {0, 1}) {
      File f{"flow_" + std::to_string(k) + (device ? "_fsim" : "_cpu"), {k}};
      const std::vector<uint8_t> calls[] = {{kCapiOpen, static_cast<uint8_t>(device | 4), 0, 0, 0},
                                            {kCapiInfo, 0, 0},
                                            {kCapiInfo, 1, 1},
                                            set_input,
                                            {kCapiRun, 0},
                                            {kCapiOutputShape, model},
                                            {kCapiGetOutput, model, 0, 0, 0},
                                            {kCapiGetOutput, CapiModelName(1), 0, 0, 0},
                                            {kCapiStats},
                                            {kCapiTrace},
                                            {kCapiResetStats},
                                            {kCapiRun, 1},
                                            {kCapiGetOutput, model, 1, 0, 0},
                                            {kCapiClose}};
      for (const auto& c : calls) f.bytes.insert(f.bytes.end(), c.begin(), c.end());
      out.push_back(f);
    }
  }
  // Calls on a NULL handle, a truncated image, an unknown device and config, a stacked input of
  // two images, wrong dtypes, shapes and byte counts, outputs before and after a failed run.
  File misuse{"misuse", {0}};
  const std::vector<uint8_t> calls[] = {{kCapiRun, 0},
                                        set_input,
                                        {kCapiGetOutput, model, 0, 0, 0},
                                        {kCapiStats},
                                        {kCapiOpen, 1 | 8, 0, 100, 0},
                                        {kCapiOpen, 3, 0, 0, 0},
                                        {kCapiOpen, 1, 4, 0, 0},
                                        {kCapiOpen, 1, 2, 0, 0},
                                        {kCapiOpen, 1, 0, 0, 0},
                                        {kCapiGetOutput, model, 0, 0, 0},
                                        {kCapiSetInput, model, 1, 4, 7, 7, 7, 7, 0, 0, 3},
                                        {kCapiRun, 0},
                                        {kCapiSetInput, model, 0, 4, 15, 7, 7, 7, 0, 0, 5},
                                        {kCapiRun, 0},
                                        {kCapiSetInput, model, 0, 4, 2, 1, 7, 7, 1, 0, 5},
                                        {kCapiSetInput, kCapiNameUnknown, 0, 3, 7, 7, 7, 2, 0, 1},
                                        {kCapiRun, 2},
                                        {kCapiOutputShape, kCapiNameNull},
                                        {kCapiInfo, 0, 200},
                                        {kCapiStatusName, 77},
                                        {kCapiClose},
                                        {kCapiTrace}};
  for (const auto& c : calls) misuse.bytes.insert(misuse.bytes.end(), c.begin(), c.end());
  out.push_back(misuse);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace loom;
  if (argc == 3 && argv[1][0] == '-') {
    const std::string mode = argv[1];
    std::vector<File> files;
    if (mode == "--corpus") {
      if (Status s = PackageCorpus(&files); !s.ok()) return Fail(s);
    } else if (mode == "--run-corpus") {
      if (Status s = RunCorpus(&files); !s.ok()) return Fail(s);
    } else if (mode == "--capi-corpus") {
      files = CapiCorpus();
    } else {
      std::fprintf(stderr, "unknown option %s\n", argv[1]);
      return 2;
    }
    return WriteFiles(argv[2], files) ? 0 : 1;
  }
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: make_test_package OUT.loom INPUT.npy [CONFIG] [N]\n"
                 "       make_test_package --corpus|--run-corpus|--capi-corpus DIR\n");
    return 2;
  }
  HwConfig c;
  if (Status s = LoadHwConfig(argc > 3 ? argv[3] : "1x8x8", &c); !s.ok()) return Fail(s);
  testing::ConvModelOptions o;
  package::PackageSpec spec;
  if (Status s = testing::BuildConvModel(c, o, &spec); !s.ok()) return Fail(s);
  if (Status s = package::WritePackage(spec, argv[1]); !s.ok()) return Fail(s);
  // Input: N stacked images (N = argv[4], default 1).
  const int n = argc > 4 ? std::atoi(argv[4]) : 1;
  std::vector<float> x;
  for (int i = 0; i < n; ++i) {
    const std::vector<float> one = testing::ConvModelInput(o, 100 + i);
    x.insert(x.end(), one.begin(), one.end());
  }
  const NpyArray a = MakeNpy<float>({n, o.c, o.hw, o.hw}, x);
  if (Status s = WriteNpy(argv[2], a); !s.ok()) return Fail(s);
  return 0;
}
