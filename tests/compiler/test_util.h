// Helpers shared by the compiler tests: parse textual IR (failing the test on error), random
// tensors, and comparing interpreter results.
#ifndef LOOM_TESTS_COMPILER_TEST_UTIL_H_
#define LOOM_TESTS_COMPILER_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"

namespace loom::testing {

inline ir::Graph Parse(const std::string& text) {
  ir::Graph g;
  Status s = ir::ParseGraph(text, &g);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return g;
}

// Uniform f32 data in [lo, hi].
inline ir::Tensor RandomF32(const ir::Shape& shape, uint32_t seed, float lo = -1.0f,
                            float hi = 1.0f) {
  ir::Tensor t;
  EXPECT_TRUE(ir::Tensor::Create(DType::kF32, shape, &t).ok());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.mutable_data<float>()[i] = dist(rng);
  return t;
}

// Replaces every non-scalar f32 constant with random data in [0.5, 1.5] (positive, so BN
// variances are valid), keeping shapes: pass tests then compare numerics on weights no one
// hand-picked. Scalars (Clip bounds and the like) keep their values.
inline void RandomizeConstants(ir::Graph& g, uint32_t seed) {
  for (ir::ValueId id = 0; id < g.num_values(); ++id) {
    ir::Value& v = g.value(id);
    if (!g.IsValid(id) || !v.is_constant() || v.dtype != DType::kF32 || v.shape.empty()) {
      continue;
    }
    v.constant = RandomF32(v.shape, seed + static_cast<uint32_t>(id), 0.5f, 1.5f);
  }
}

// Random f32 tensors for every graph input.
inline std::vector<ir::Tensor> RandomInputs(const ir::Graph& g, uint32_t seed) {
  std::vector<ir::Tensor> inputs;
  for (ir::ValueId id : g.inputs()) {
    inputs.push_back(RandomF32(g.value(id).shape, seed++));
  }
  return inputs;
}

inline ::testing::AssertionResult AllClose(const std::vector<ir::Tensor>& got,
                                           const std::vector<ir::Tensor>& want, double rtol,
                                           double atol) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "output count differs";
  for (size_t k = 0; k < got.size(); ++k) {
    if (got[k].dtype() != want[k].dtype() || got[k].shape() != want[k].shape()) {
      return ::testing::AssertionFailure() << "output " << k << " type differs";
    }
    for (int64_t i = 0; i < got[k].num_elements(); ++i) {
      const double a = got[k].ElementAsDouble(i), b = want[k].ElementAsDouble(i);
      if (std::fabs(a - b) > atol + rtol * std::fabs(b)) {
        return ::testing::AssertionFailure()
               << "output " << k << " element " << i << ": " << a << " vs " << b;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace loom::testing

#endif  // LOOM_TESTS_COMPILER_TEST_UTIL_H_
