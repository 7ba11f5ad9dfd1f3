// The int8 elementwise and pooling kernels alone, per kernel path (fast/fast.h): Mul and AvgPool
// at the sizes MobileNetV2 and ResNet-18 run them, against Add and MaxPool of the same size. A
// path this CPU cannot run is left out. Run: build/bin/int8_ops_bench
#include <benchmark/benchmark.h>

#include <vector>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/qops.h"

namespace {

namespace q = loom::kernels::q;
using q::fast::KernelPath;

constexpr KernelPath kPaths[] = {KernelPath::kReference, KernelPath::kPortable,
                                 KernelPath::kAvx2,      KernelPath::kAvx512Vnni,
                                 KernelPath::kNeon,      KernelPath::kNeonDot};

std::vector<int8_t> Bytes(size_t n) {
  std::vector<int8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int8_t>(i * 37 + 11);
  return v;
}

// Runs `op` (one kernel call returning a Status) for the path named by the benchmark's argument
// (only the paths this CPU runs are registered).
template <typename Op>
void Run(benchmark::State& state, Op op) {
  const KernelPath path = kPaths[state.range(0)];
  state.SetLabel(q::fast::PathName(path));
  for (auto _ : state) {
    const loom::Status s = op(path);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
}

// 56x56x64, block 16: a hard-swish sized product (same-shape b), and a squeeze-excitation scale
// (one b per channel).
void BM_Mul(benchmark::State& state, bool per_channel) {
  const q::Blocking b{1, 16};
  q::MulParams p;
  p.shape = {1, 64, 56, 56};
  p.b_per_channel = per_channel;
  p.b_mult = 2731;
  p.b_offset = 24576;
  p.b_lo = 0;
  p.b_hi = 32767;
  p.mult = 21845;
  p.rq.pre_shift = 2;
  p.rq.post_shift = 27;
  const std::vector<int8_t> a = Bytes(q::BlockedBytes(b, p.shape));
  const std::vector<int8_t> bb =
      Bytes(q::BlockedBytes(b, per_channel ? q::ActShape{1, 64, 1, 1} : p.shape));
  std::vector<int8_t> out(a.size());
  Run(state,
      [&](KernelPath path) { return q::fast::Mul(path, b, p, a.data(), bb.data(), out.data()); });
}

void BM_Add(benchmark::State& state) {
  const q::Blocking b{1, 16};
  q::AddParams p;
  p.shape = {1, 64, 56, 56};
  p.mult_a = 20000;
  p.mult_b = -15000;
  p.shift = 15;
  const std::vector<int8_t> a = Bytes(q::BlockedBytes(b, p.shape)), bb = a;
  std::vector<int8_t> out(a.size());
  Run(state,
      [&](KernelPath path) { return q::fast::Add(path, b, p, a.data(), bb.data(), out.data()); });
}

// ResNet-18's global average pool (7x7 -> 1x1 on 512 channels), and a 3x3 stride-`stride` pool
// with padding on 56x56x64; block 16.
void BM_AvgPool(benchmark::State& state, bool global, uint32_t stride) {
  const q::Blocking b{1, 16};
  q::AvgPoolParams p;
  if (global) {
    p.pool.in = {1, 512, 7, 7};
    p.pool.kh = p.pool.kw = 7;
  } else {
    p.pool.in = {1, 64, 56, 56};
    p.pool.kh = p.pool.kw = 3;
    p.pool.stride_h = p.pool.stride_w = stride;
    p.pool.pad_top = p.pool.pad_left = p.pool.pad_bottom = p.pool.pad_right = 1;
  }
  p.rq.post_shift = 16;
  std::vector<int32_t> mults(p.pool.kh * p.pool.kw);
  for (size_t k = 1; k <= mults.size(); ++k) mults[k - 1] = static_cast<int32_t>(65536 / k);
  const std::vector<int8_t> in = Bytes(q::BlockedBytes(b, p.pool.in));
  std::vector<int8_t> out(q::BlockedBytes(b, p.pool.out()));
  Run(state, [&](KernelPath path) {
    return q::fast::AvgPool(path, b, p, mults.data(), in.data(), out.data());
  });
}

void BM_MaxPool(benchmark::State& state) {
  const q::Blocking b{1, 16};
  q::PoolParams p;
  p.in = {1, 64, 56, 56};
  p.kh = p.kw = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  const std::vector<int8_t> in = Bytes(q::BlockedBytes(b, p.in));
  std::vector<int8_t> out(q::BlockedBytes(b, p.out()));
  Run(state, [&](KernelPath path) { return q::fast::MaxPool(path, b, p, in.data(), out.data()); });
}

void Paths(benchmark::internal::Benchmark* b) {
  for (int i = 0; i < static_cast<int>(sizeof(kPaths) / sizeof(kPaths[0])); ++i) {
    if (q::fast::PathSupported(kPaths[i])) b->Arg(i);
  }
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(BM_Mul, same_shape_56x56x64, false)->Apply(Paths);
BENCHMARK_CAPTURE(BM_Mul, per_channel_56x56x64, true)->Apply(Paths);
BENCHMARK(BM_Add)->Apply(Paths);
BENCHMARK_CAPTURE(BM_AvgPool, global_7x7x512, true, 1)->Apply(Paths);
BENCHMARK_CAPTURE(BM_AvgPool, 3x3_s1_56x56x64, false, 1)->Apply(Paths);
BENCHMARK_CAPTURE(BM_AvgPool, 3x3_s2_56x56x64, false, 2)->Apply(Paths);
BENCHMARK(BM_MaxPool)->Apply(Paths);

}  // namespace

BENCHMARK_MAIN();
