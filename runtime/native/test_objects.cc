#include "runtime/native/test_objects.h"

#include <cstdio>

#if defined(__arm__)
// libgcc's run-time ABI helpers, which armv7 code without a divide instruction calls.
extern "C" int __aeabi_idiv(int, int);
extern "C" unsigned __aeabi_uidiv(unsigned, unsigned);
extern "C" long long __aeabi_idivmod(int, int);
extern "C" unsigned long long __aeabi_uidivmod(unsigned, unsigned);
// glibc's EABI memory helpers, which clang calls for ARM targets where gcc calls memcpy/memset.
extern "C" void __aeabi_memcpy(void*, const void*, size_t);
extern "C" void __aeabi_memcpy4(void*, const void*, size_t);
extern "C" void __aeabi_memcpy8(void*, const void*, size_t);
extern "C" void __aeabi_memset(void*, size_t, int);
extern "C" void __aeabi_memclr(void*, size_t);
extern "C" void __aeabi_memclr4(void*, size_t);
extern "C" void __aeabi_memclr8(void*, size_t);
#endif

namespace loom::runtime::native {

namespace {
int g_host_add_calls = 0;
}  // namespace

int g_test_host_counter = 42;

int TestHostAdd(int a, int b) {
  ++g_host_add_calls;
  return a + b + 1000;
}

int TestHostAddCalls() { return g_host_add_calls; }

std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  std::vector<uint8_t> bytes;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return bytes;
  uint8_t buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0)
    bytes.insert(bytes.end(), buffer, buffer + n);
  std::fclose(f);
  return bytes;
}

std::vector<uint8_t> ReadTestObject(const std::string& name) {
  return ReadFileBytes(std::string(LOOM_NATIVE_TEST_OBJECTS) + "/" + name + ".o");
}

std::vector<std::string> CommonVariants() {
#if defined(__arm__)
  std::vector<std::string> v = {"arm", "thumb"};
  if (LOOM_NATIVE_HAVE_CLANG) v.insert(v.end(), {"clang_arm", "clang_thumb"});
#else
  std::vector<std::string> v = {"static", "pic"};
#if defined(__aarch64__)
  v.push_back("large");
#endif
  if (LOOM_NATIVE_HAVE_CLANG) v.insert(v.end(), {"clang_static", "clang_pic"});
#endif
  return v;
}

std::vector<std::string> GotVariants() {
#if defined(__arm__)
  return {};
#else
  std::vector<std::string> v = {"got"};
  if (LOOM_NATIVE_HAVE_CLANG) v.push_back("clang_got");
  return v;
#endif
}

const std::vector<Import>& TestImports() {
  static const std::vector<Import> imports = {
    {"host_add", reinterpret_cast<const void*>(&TestHostAdd)},
    {"host_counter", &g_test_host_counter},
    {"memcpy", reinterpret_cast<const void*>(&std::memcpy)},
    {"memset", reinterpret_cast<const void*>(&std::memset)},
    {"memmove", reinterpret_cast<const void*>(&std::memmove)},
#if defined(__arm__)
    {"__aeabi_idiv", reinterpret_cast<const void*>(&__aeabi_idiv)},
    {"__aeabi_uidiv", reinterpret_cast<const void*>(&__aeabi_uidiv)},
    {"__aeabi_idivmod", reinterpret_cast<const void*>(&__aeabi_idivmod)},
    {"__aeabi_uidivmod", reinterpret_cast<const void*>(&__aeabi_uidivmod)},
    {"__aeabi_memcpy", reinterpret_cast<const void*>(&__aeabi_memcpy)},
    {"__aeabi_memcpy4", reinterpret_cast<const void*>(&__aeabi_memcpy4)},
    {"__aeabi_memcpy8", reinterpret_cast<const void*>(&__aeabi_memcpy8)},
    {"__aeabi_memset", reinterpret_cast<const void*>(&__aeabi_memset)},
    {"__aeabi_memclr", reinterpret_cast<const void*>(&__aeabi_memclr)},
    {"__aeabi_memclr4", reinterpret_cast<const void*>(&__aeabi_memclr4)},
    {"__aeabi_memclr8", reinterpret_cast<const void*>(&__aeabi_memclr8)},
#endif
  };
  return imports;
}

}  // namespace loom::runtime::native
