// Fuzz target for the package loader: any byte string must load or fail with a Status, never
// crash, hang or read out of bounds. Each input is tried twice: as a file image, and with the
// checksum check off so mutations reach the Verifier and the semantic checks.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/package/package.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (bool checksum : {true, false}) {
    std::unique_ptr<loom::runtime::Package> p;
    loom::runtime::LoadOptions options;
    options.verify_checksum = checksum;
    const loom::Status s = loom::runtime::Package::LoadMemory(data, size, &p, options);
    if (s.ok() && p->num_segments() > 0) (void)p->program(0);
  }
  return 0;
}
