// The loader on real objects: testdata/*.c compiled for this machine, loaded, called, and compared
// with the same source compiled into this test (namespace reference). Runs natively on x86-64 and
// under QEMU user mode in the armv7 and aarch64 cross builds (firmware/test/qemu_test).
#include "runtime/native/loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/native/test_objects.h"

namespace reference {
#include "runtime/native/testdata/common.c"
#if defined(__arm__)
#include "runtime/native/testdata/interwork.c"
#endif
int host_add(int a, int b) { return loom::runtime::native::TestHostAdd(a, b); }

// common.c's globals as they start, so every variant is compared from the same state.
void Reset() {
  for (int i = 0; i < 16; ++i) g_array[i] = i + 1;
  std::memset(g_counts, 0, sizeof g_counts);
  std::memset(g_buffer, 0, sizeof g_buffer);
  g_calls = 0;
}
}  // namespace reference

namespace loom::runtime::native {
namespace {

std::unique_ptr<Module> Load(const std::string& name) {
  const std::vector<uint8_t> bytes = ReadTestObject(name);
  EXPECT_FALSE(bytes.empty()) << "test object " << name << ".o was not built";
  std::unique_ptr<Module> module;
  const Status s =
      LoadObject(bytes.data(), bytes.size(), TestImports().data(), TestImports().size(), &module);
  EXPECT_TRUE(s.ok()) << name << ".o: " << s.ToString();
  return module;
}

const void* Find(const Module& m, const char* name) {
  const void* p = m.Symbol(name);
  EXPECT_NE(p, nullptr) << "no export '" << name << "'";
  return p;
}

// The permissions ("r-xp") of the mapping holding `address`, from /proc/self/maps.
std::string Permissions(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  std::FILE* f = std::fopen("/proc/self/maps", "r");
  if (f == nullptr) return "";
  char line[512];
  std::string found;
  while (found.empty() && std::fgets(line, sizeof line, f) != nullptr) {
    unsigned long long lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 && a >= lo && a < hi)
      found = perms;
  }
  std::fclose(f);
  return found;
}

TEST(NativeLoader, HostTripleIsTheBuildMachine) {
  EXPECT_STREQ(HostTriple(), LOOM_NATIVE_TEST_MACHINE);
}

class LoadedCommon : public ::testing::TestWithParam<std::string> {};

TEST_P(LoadedCommon, MatchesTheReferenceBuild) {
  std::unique_ptr<Module> m = Load(GetParam());
  ASSERT_NE(m, nullptr);
  reference::Reset();
  using IntVoid = int (*)();
  using IntInt = int (*)(int);
  using IntIntInt = int (*)(int, int);
  // Calls between functions, rodata tables and string literals.
  EXPECT_EQ(As<IntVoid>(Find(*m, "sum_table"))(), reference::sum_table());
  const auto count = As<int (*)(char)>(Find(*m, "count_in_message"));
  EXPECT_EQ(count('o'), reference::count_in_message('o'));
  EXPECT_EQ(count('z'), 0);
  EXPECT_STREQ(As<const char* (*)()>(Find(*m, "message"))(), "loom native");
  // The import, through a veneer.
  const int calls_before = TestHostAddCalls();
  EXPECT_EQ(As<IntIntInt>(Find(*m, "call_import"))(3, 4), reference::call_import(3, 4));
  EXPECT_EQ(TestHostAddCalls(), calls_before + 2);  // once from the module, once from reference
  // .bss and .data, read and written.
  const auto bump = As<IntInt>(Find(*m, "bump"));
  EXPECT_EQ(bump(5), reference::bump(5));
  EXPECT_EQ(bump(40), reference::bump(40));
  const auto sum_array = As<IntVoid>(Find(*m, "sum_array"));
  EXPECT_EQ(sum_array(), reference::sum_array());
  As<void (*)(int)>(Find(*m, "scale_array"))(3);
  reference::scale_array(3);
  EXPECT_EQ(sum_array(), reference::sum_array());
  const int* array = static_cast<const int*>(Find(*m, "g_array"));
  ASSERT_NE(array, nullptr);
  EXPECT_EQ(array[15], 48);
  // A table of function pointers in data.
  const auto apply_op = As<IntIntInt>(Find(*m, "apply_op"));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(apply_op(i, 7), reference::apply_op(i, 7)) << "op " << i;
  // memset/memcpy and division helpers the compiler calls on its own.
  EXPECT_EQ(As<int (*)(unsigned char, int)>(Find(*m, "fill_and_sum"))(7, 100),
            reference::fill_and_sum(7, 100));
  EXPECT_EQ(As<IntIntInt>(Find(*m, "divide"))(-100, 7), reference::divide(-100, 7));
  EXPECT_EQ(As<float (*)(float)>(Find(*m, "weighted_sum"))(2.0f), reference::weighted_sum(2.0f));
  EXPECT_EQ(As<IntVoid>(Find(*m, "get_calls"))(), reference::get_calls());
  // Static functions are not exported; nothing else is invented.
  EXPECT_EQ(m->Symbol("square"), nullptr);
  EXPECT_EQ(m->Symbol("no_such_symbol"), nullptr);
}

TEST_P(LoadedCommon, CodeIsExecutableAndNeverWritable) {
  std::unique_ptr<Module> m = Load(GetParam());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Permissions(Find(*m, "sum_table")).substr(0, 3), "r-x");
  EXPECT_EQ(Permissions(Find(*m, "g_array")).substr(0, 3), "rw-");
  EXPECT_GT(m->total_size(), m->code_size());
}

INSTANTIATE_TEST_SUITE_P(Objects, LoadedCommon, ::testing::ValuesIn(CommonVariants()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

class LoadedGot : public ::testing::TestWithParam<std::string> {};

TEST_P(LoadedGot, ReachesImportsAndGlobalsThroughTheGot) {
  std::unique_ptr<Module> m = Load(GetParam());
  ASSERT_NE(m, nullptr);
  g_test_host_counter = 42;
  EXPECT_EQ(As<int (*)()>(Find(*m, "read_counter"))(), 42);
  As<void (*)(int)>(Find(*m, "add_to_counter"))(5);
  EXPECT_EQ(g_test_host_counter, 47);
  using Add = int (*)(int, int);
  EXPECT_EQ(As<Add (*)()>(Find(*m, "address_of_add"))(), &TestHostAdd);
  EXPECT_EQ(As<int (*)()>(Find(*m, "read_shared"))(), 5);
  As<void (*)(int)>(Find(*m, "write_shared"))(9);
  EXPECT_EQ(As<int (*)()>(Find(*m, "read_shared"))(), 9);
  int* shared = As<int* (*)()>(Find(*m, "shared_address"))();
  EXPECT_EQ(shared, m->Symbol("g_shared"));
  EXPECT_EQ(*shared, 9);
}

INSTANTIATE_TEST_SUITE_P(Objects, LoadedGot, ::testing::ValuesIn(GotVariants()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LoadedGot);

TEST(NativeLoader, LoadsIntoTheCallersMemory) {
  // An object that loads at any address (x86-64 static code would want memory below 2 GiB).
#if defined(__arm__)
  const std::vector<uint8_t> bytes = ReadTestObject("thumb");
#else
  const std::vector<uint8_t> bytes = ReadTestObject("pic");
#endif
  ASSERT_FALSE(bytes.empty());
  size_t need = 0;
  ASSERT_TRUE(ObjectMemorySize(bytes.data(), bytes.size(), &need).ok());
  const size_t page = CodePageSize();
  EXPECT_EQ(need % page, 0u);
  const size_t capacity = need + page;
  void* memory =
      mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  const std::vector<Import>& imports = TestImports();
  std::unique_ptr<Module> m;
  Status s = LoadObjectInto(bytes.data(), bytes.size(), imports.data(), imports.size(), memory,
                            need - 1, &m);
  EXPECT_EQ(s.message(), "the object needs " + std::to_string(need) + " bytes of memory, " +
                             std::to_string(need - 1) + " were given");
  s = LoadObjectInto(bytes.data(), bytes.size(), imports.data(), imports.size(),
                     static_cast<uint8_t*>(memory) + 16, need, &m);
  EXPECT_THAT(s.message(),
              ::testing::HasSubstr("is not aligned to the " + std::to_string(page) + "-byte page"));
  s = LoadObjectInto(bytes.data(), bytes.size(), imports.data(), imports.size(), memory, capacity,
                     &m);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(m->code(), memory);
  EXPECT_EQ(As<int (*)()>(Find(*m, "sum_table"))(), reference::sum_table());
  EXPECT_EQ(Permissions(memory).substr(0, 3), "r-x");
  m.reset();
  // Given back writable, no longer executable.
  EXPECT_EQ(Permissions(memory).substr(0, 3), "rw-");
  static_cast<uint8_t*>(memory)[0] = 1;
  munmap(memory, capacity);
}

#if defined(__arm__)
TEST(NativeLoader, ArmAndThumbCallEachOther) {
  std::unique_ptr<Module> m = Load("interwork");
  ASSERT_NE(m, nullptr);
  // Exported addresses carry the instruction set: bit 0 for Thumb.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(Find(*m, "arm_triple")) & 1, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(Find(*m, "thumb_plus")) & 1, 1u);
  using IntInt = int (*)(int);
  for (int x : {-3, 0, 4, 1000}) {
    EXPECT_EQ(As<IntInt>(Find(*m, "thumb_plus"))(x), reference::thumb_plus(x));
    EXPECT_EQ(As<IntInt>(Find(*m, "arm_entry"))(x), reference::arm_entry(x));
    EXPECT_EQ(As<IntInt>(Find(*m, "thumb_entry"))(x), reference::thumb_entry(x));
    EXPECT_EQ(As<IntInt>(Find(*m, "thumb_tail"))(x), reference::thumb_tail(x));
    EXPECT_EQ(As<IntInt>(Find(*m, "arm_tail"))(x), reference::arm_tail(x));
  }
}
#endif

}  // namespace
}  // namespace loom::runtime::native
