// Test helpers shared by the kernel tests: owned buffers with a view over them, and a naive
// index-by-index reference where a test needs one.
#ifndef LOOM_RUNTIME_KERNELS_KERNEL_TEST_UTIL_H_
#define LOOM_RUNTIME_KERNELS_KERNEL_TEST_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kernels/float_ops.h"
#include "runtime/kernels/tensor.h"

namespace loom::kernels::testing {

// A tensor that owns its data; view() borrows it.
template <typename T>
struct Buf {
  std::vector<int64_t> shape;
  std::vector<T> data;

  Buf(std::vector<int64_t> s, std::vector<T> d) : shape(std::move(s)), data(std::move(d)) {}
  explicit Buf(std::vector<int64_t> s) : shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    data.assign(static_cast<size_t>(n), T(0));
  }
  TensorView view() {
    TensorView v;
    (void)MakeView(loom::DTypeOf<T>::value, data.data(), shape.data(),
                   static_cast<int>(shape.size()), &v);
    return v;
  }
};

// Deterministic pseudo-random data in [lo, hi].
inline std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Attributes from a map: ints, floats and strings by name, as a package's FloatAttr list holds
// them.
class MapAttrs final : public AttrReader {
 public:
  std::map<std::string, std::vector<int64_t>> ints;
  std::map<std::string, float> floats;
  std::map<std::string, std::vector<float>> float_lists;
  std::map<std::string, std::string> strings;
  std::vector<int64_t> GetInts(std::string_view name) const override {
    auto it = ints.find(std::string(name));
    return it == ints.end() ? std::vector<int64_t>{} : it->second;
  }
  int64_t GetInt(std::string_view name, int64_t fallback) const override {
    auto it = ints.find(std::string(name));
    return it == ints.end() || it->second.empty() ? fallback : it->second[0];
  }
  float GetFloat(std::string_view name, float fallback) const override {
    auto it = floats.find(std::string(name));
    return it == floats.end() ? fallback : it->second;
  }
  std::vector<float> GetFloats(std::string_view name) const override {
    auto it = float_lists.find(std::string(name));
    return it == float_lists.end() ? std::vector<float>{} : it->second;
  }
  std::string GetString(std::string_view name, std::string_view fallback) const override {
    auto it = strings.find(std::string(name));
    return it == strings.end() ? std::string(fallback) : it->second;
  }
  bool Has(std::string_view name) const override {
    const std::string n(name);
    return ints.count(n) || floats.count(n) || float_lists.count(n) || strings.count(n);
  }
};

}  // namespace loom::kernels::testing

#endif  // LOOM_RUNTIME_KERNELS_KERNEL_TEST_UTIL_H_
