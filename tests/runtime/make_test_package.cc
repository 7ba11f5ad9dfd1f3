// Writes the runtime's test packages: `make_test_package OUT.loom INPUT.npy [--config NAME]` for
// the C API example and loom-run tests, `make_test_package --corpus DIR` for the loader's fuzz
// seed corpus (valid packages of several configs plus damaged copies: bit flips, truncations and
// oversized size fields).
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/config/config_file.h"
#include "runtime/io/npy.h"
#include "runtime/package/format.h"
#include "tests/runtime/test_packages.h"

namespace {

int Fail(const loom::Status& s) {
  std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace loom;
  if (argc == 3 && std::strcmp(argv[1], "--corpus") == 0) {
    const std::string dir = argv[2];
    int k = 0;
    for (const char* name : {"1x8x8", "1x16x16"}) {
      HwConfig c;
      if (Status s = LoadHwConfig(name, &c); !s.ok()) return Fail(s);
      testing::ConvModelOptions o;
      o.hw = 4;
      o.float_input = k++ == 1;
      package::PackageSpec spec;
      if (Status s = testing::BuildConvModel(c, o, &spec); !s.ok()) return Fail(s);
      std::vector<uint8_t> bytes;
      if (Status s = package::SerializePackage(spec, &bytes); !s.ok()) return Fail(s);
      auto write = [&](const std::string& file, const std::vector<uint8_t>& b) {
        std::FILE* f = std::fopen((dir + "/" + file).c_str(), "wb");
        if (!f) return false;
        std::fwrite(b.data(), 1, b.size(), f);
        return std::fclose(f) == 0;
      };
      if (!write(std::string("valid_conv_") + name + ".loom", bytes)) return 1;
      // Damaged copies, resealed so that fuzzing starts past the checksum.
      std::vector<uint8_t> bad = bytes;
      bad[bad.size() / 3] ^= 0x10;
      runtime::EncodeHeader(bad.data() + runtime::kHeaderBytes, bad.size() - runtime::kHeaderBytes, bad.data());
      if (!write(std::string("resealed_flip_") + name + ".loom", bad)) return 1;
      bad.assign(bytes.begin(), bytes.begin() + bytes.size() / 2);
      if (!write(std::string("truncated_") + name + ".loom", bad)) return 1;
      // Size fields asking for more than the package holds or a device allows.
      std::vector<testing::OversizedPackage> oversized;
      if (Status s = testing::BuildOversizedPackages(c, &oversized); !s.ok()) return Fail(s);
      for (const testing::OversizedPackage& p : oversized) {
        package::WriteOptions unverified;
        unverified.verify = false;
        if (Status s = package::SerializePackage(p.spec, &bad, unverified); !s.ok()) return Fail(s);
        if (!write("bad_" + p.name + "_" + name + ".loom", bad)) return 1;
      }
    }
    HwConfig c;
    if (Status s = LoadHwConfig("1x8x8", &c); !s.ok()) return Fail(s);
    package::PackageSpec spec;
    if (Status s = testing::BuildCpuOnlyModel(c, &spec); !s.ok()) return Fail(s);
    std::vector<uint8_t> bytes;
    if (Status s = package::SerializePackage(spec, &bytes); !s.ok()) return Fail(s);
    std::FILE* f = std::fopen((dir + "/valid_cpu_only.loom").c_str(), "wb");
    if (!f) return 1;
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return 0;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_test_package OUT.loom INPUT.npy [CONFIG] [N]\n"
                         "       make_test_package --corpus DIR\n");
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
