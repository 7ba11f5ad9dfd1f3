// What the loader's tests share: the objects compiled from testdata/ at build time (CMakeLists.txt
// lists them per machine) and the imports those objects reference.
#ifndef LOOM_RUNTIME_NATIVE_TEST_OBJECTS_H_
#define LOOM_RUNTIME_NATIVE_TEST_OBJECTS_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/native/loader.h"

namespace loom::runtime::native {

// The bytes of the file at `path`, or empty when it cannot be read.
std::vector<uint8_t> ReadFileBytes(const std::string& path);

// The bytes of test_objects/NAME.o, or empty when that object was not built.
std::vector<uint8_t> ReadTestObject(const std::string& name);

// The variants of testdata/common.c (and got.c) built for this machine: the build compiler's,
// then clang's where clang was found.
std::vector<std::string> CommonVariants();
std::vector<std::string> GotVariants();

// host_add, host_counter, memcpy, memset, memmove and, on armv7, the EABI division helpers.
const std::vector<Import>& TestImports();
int TestHostAdd(int a, int b);
int TestHostAddCalls();
extern int g_test_host_counter;

// A loaded symbol as a function pointer (void* to function pointer without a cast warning).
template <typename F>
F As(const void* p) {
  F f;
  static_assert(sizeof f == sizeof p, "function and data pointers differ in size");
  std::memcpy(&f, &p, sizeof f);
  return f;
}

}  // namespace loom::runtime::native

#endif  // LOOM_RUNTIME_NATIVE_TEST_OBJECTS_H_
