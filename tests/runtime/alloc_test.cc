// No allocation per inference (docs/runtime.md, "Allocation"): once an executor has run a package,
// running it again allocates nothing on the cpu and fsim devices -- for a package with accelerator
// segments, CPU segments of int8 ops, and float ops that read attributes and constants. This
// binary replaces the global operator new and delete with counting versions, so every allocation
// of the runtime, the kernels, the drivers and the simulator is seen.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "loom_runtime.h"
#include "runtime/api/host_runtime.h"
#include "runtime/api/session.h"
#include "runtime/config/config_file.h"
#include "tests/runtime/test_packages.h"

namespace {

std::atomic<bool> g_counting{false};
std::atomic<uint64_t> g_allocations{0};

// Where a counted allocation lands: break here in a debugger to see who allocated.
[[gnu::noinline]] void Counted() { g_allocations.fetch_add(1); }

void* Allocate(std::size_t n, std::size_t align) {
  if (g_counting.load(std::memory_order_relaxed)) Counted();
  if (n == 0) n = 1;
  void* p = nullptr;
  if (align <= alignof(std::max_align_t)) {
    p = std::malloc(n);
  } else if (posix_memalign(&p, align, n) != 0) {
    p = nullptr;
  }
  return p;
}

// Out of line, so that GCC, seeing free() inlined into a delete of memory from operator new,
// does not take it for a mismatched pair (-Wmismatched-new-delete): both are malloc's here.
[[gnu::noinline]] void Release(void* p) { std::free(p); }

}  // namespace

void* operator new(std::size_t n) {
  if (void* p = Allocate(n, 0)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = Allocate(n, 0)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = Allocate(n, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) {
  if (void* p = Allocate(n, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return Allocate(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return Allocate(n, 0); }
void operator delete(void* p) noexcept { Release(p); }
void operator delete[](void* p) noexcept { Release(p); }
void operator delete(void* p, std::size_t) noexcept { Release(p); }
void operator delete[](void* p, std::size_t) noexcept { Release(p); }
void operator delete(void* p, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Release(p); }

namespace loom::testing {
namespace {

using loom::DType;
using runtime::Executor;
using runtime::HostTensor;

// Counts the allocations `fn` makes.
template <typename Fn>
uint64_t Allocations(Fn fn) {
  g_allocations = 0;
  g_counting = true;
  fn();
  g_counting = false;
  return g_allocations;
}

// Accelerator segments (two convolutions), int8 CPU ops (quantize, max pool, dequantize) and the
// float tail (Conv, Relu, MaxPool, Transpose, Reshape, Gemm, Mul, Clip, Concat, Softmax).
package::PackageSpec Spec(ConvModelOptions* m) {
  m->float_input = true;
  m->float_tail = true;
  HwConfig c;
  EXPECT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  package::PackageSpec spec;
  const Status s = BuildConvModel(c, *m, &spec);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return spec;
}

HostTensor Input(const ConvModelOptions& m) {
  const std::vector<float> x = ConvModelInput(m, 11);
  HostTensor t;
  t.name = "input";
  t.type = DType::kF32;
  t.shape = {m.n, m.c, m.hw, m.hw};
  t.data.resize(x.size() * 4);
  std::memcpy(t.data.data(), x.data(), t.data.size());
  return t;
}

// The counter sees what it should: otherwise a zero below would prove nothing. (A global, so the
// compiler cannot elide the allocation.)
std::vector<int> g_sink;
TEST(AllocationCounter, SeesAllocations) {
  const uint64_t n = Allocations([] { g_sink.resize(1000); });
  EXPECT_GE(n, 1u);
  g_sink = {};
}

class SecondRun : public ::testing::TestWithParam<const char*> {};

TEST_P(SecondRun, AllocatesNothing) {
  ASSERT_TRUE(runtime::RegisterHostRuntime().ok());
  ConvModelOptions m;
  const package::PackageSpec spec = Spec(&m);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(package::SerializePackage(spec, &bytes).ok());
  std::unique_ptr<runtime::Package> p;
  ASSERT_TRUE(runtime::Package::LoadMemory(bytes.data(), bytes.size(), &p).ok());
  runtime::SessionOptions so;
  so.device = GetParam();
  std::unique_ptr<Executor> e;
  const Status s = runtime::OpenSession(std::move(p), so, &e);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::vector<HostTensor> inputs = {Input(m)};
  std::vector<HostTensor> outputs;
  const runtime::RunOptions options;
  Status first = e->Run(inputs, options, &outputs);
  ASSERT_TRUE(first.ok()) << first.ToString();
  const std::vector<HostTensor> expected = outputs;
  Status second;
  const uint64_t n = Allocations([&] { second = e->Run(inputs, options, &outputs); });
  ASSERT_TRUE(second.ok()) << second.ToString();
  EXPECT_EQ(n, 0u) << "allocations during the second run on " << GetParam();
  ASSERT_EQ(outputs.size(), 3u);
  for (size_t i = 0; i < outputs.size(); ++i) EXPECT_EQ(outputs[i].data, expected[i].data);
  // The accelerator segments ran where the device runs programs, and the float tail ran.
  const runtime::Profile& prof = e->profile();
  EXPECT_EQ(prof.inferences, 2u);
  EXPECT_EQ(prof.segments.back().name, "float_tail");
  EXPECT_EQ(prof.segments.back().runs, 2u);
  EXPECT_EQ(prof.Total().insns > 0, std::string(GetParam()) == "fsim");
}

INSTANTIATE_TEST_SUITE_P(runtime, SecondRun, ::testing::Values("cpu", "fsim"),
                         [](const auto& p) { return std::string(p.param); });

// The C API's run reuses its output tensors the same way.
TEST(SecondRun, CApiAllocatesNothing) {
  ASSERT_TRUE(runtime::RegisterHostRuntime().ok());
  ConvModelOptions m;
  const std::string path = ::testing::TempDir() + "/alloc_capi.loom";
  ASSERT_TRUE(package::WritePackage(Spec(&m), path).ok());
  loom_runtime* rt = nullptr;
  ASSERT_EQ(loom_open(path.c_str(), "fsim", &rt), LOOM_OK) << loom_last_error(nullptr);
  const HostTensor in = Input(m);
  const int64_t shape[4] = {m.n, m.c, m.hw, m.hw};
  ASSERT_EQ(loom_set_input(rt, "input", LOOM_FLOAT32, shape, 4, in.data.data(), in.data.size()),
            LOOM_OK);
  ASSERT_EQ(loom_run(rt), LOOM_OK) << loom_last_error(rt);
  loom_status st = LOOM_OK;
  const uint64_t n = Allocations([&] { st = loom_run(rt); });
  EXPECT_EQ(st, LOOM_OK) << loom_last_error(rt);
  EXPECT_EQ(n, 0u);
  loom_close(rt);
}

}  // namespace
}  // namespace loom::testing
