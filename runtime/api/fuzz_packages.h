// Genuine packages compiled into the fuzz targets that run packages (package_run_fuzz, capi_fuzz),
// so that a fuzz input can pick one by index: the seed packages of the loader's corpus
// (runtime/package/fuzz_corpus/valid_*.loom, written by make_test_package --corpus). CMake turns
// them into byte arrays at configure time (runtime/api/CMakeLists.txt); the order is fixed there,
// and the seed corpora refer to the packages by their index.
#ifndef LOOM_RUNTIME_API_FUZZ_PACKAGES_H_
#define LOOM_RUNTIME_API_FUZZ_PACKAGES_H_

#include <cstddef>
#include <cstdint>

namespace loom::fuzz {

struct EmbeddedPackage {
  const char* name;  // file name, for messages
  const uint8_t* data;
  size_t size;
};

extern const EmbeddedPackage kPackages[];
extern const size_t kNumPackages;

}  // namespace loom::fuzz

#endif  // LOOM_RUNTIME_API_FUZZ_PACKAGES_H_
