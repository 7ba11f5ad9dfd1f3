// Fuzz target for the native loader: ElfFile::Parse, PlanLink and Link for all three machines
// (into plain memory at a made-up low address, since the code is never run), then LoadObject for
// the running machine (mapped and sealed, never called).
//
// Input: the bytes of a candidate ELF object. Any of the steps may refuse it (with a status) but
// none may crash or touch memory outside the block PlanLink sized; an accepted plan must fit the
// loader's limit. A violation abort()s.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>

#include "runtime/native/link.h"
#include "runtime/native/loader.h"

namespace {

using loom::runtime::native::Import;

int TheImport(int a) { return a; }
int g_the_data = 0;

const Import kImports[] = {
    {"host_add", reinterpret_cast<const void*>(&TheImport)},
    {"memcpy", reinterpret_cast<const void*>(&TheImport)},
    {"memset", reinterpret_cast<const void*>(&TheImport)},
    {"memmove", reinterpret_cast<const void*>(&TheImport)},
    {"host_counter", &g_the_data},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace loom::runtime::native;
  ElfFile file;
  if (!ElfFile::Parse(data, size, &file).ok()) return 0;
  LinkPlan plan;
  if (PlanLink(file, 4096, &plan).ok()) {
    if (plan.total_size > kMaxBlockSize || plan.exec_size > plan.total_size) {
      std::fprintf(stderr, "native_loader_fuzz: plan of %llu bytes (exec %llu) is out of bounds\n",
                   static_cast<unsigned long long>(plan.total_size),
                   static_cast<unsigned long long>(plan.exec_size));
      std::abort();
    }
    // Large plans are legal (a big .bss) but slow to clear; the fuzzer learns nothing from them.
    if (plan.total_size <= (uint64_t{4} << 20)) {
      std::unique_ptr<uint64_t[]> block(new (std::nothrow) uint64_t[plan.total_size / 8]());
      if (block != nullptr) {
        // Low enough for every machine's 32-bit forms (x86-64 static code, armv7).
        const uint64_t address = 0x10000000;
        (void)Link(file, plan, kImports, sizeof kImports / sizeof kImports[0],
                   reinterpret_cast<uint8_t*>(block.get()), address);
      }
    }
  }
  std::unique_ptr<Module> module;
  (void)LoadObject(data, size, kImports, sizeof kImports / sizeof kImports[0], &module);
  return 0;
}
