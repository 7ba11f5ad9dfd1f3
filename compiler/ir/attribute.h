// Typed node attributes: int, float, string, ints, floats, tensor (the ONNX kinds Loom's ops use;
// graphs and sparse tensors are not). Nodes keep them in a name-sorted map, so the text form and
// every iteration over them is deterministic.
#ifndef LOOM_COMPILER_IR_ATTRIBUTE_H_
#define LOOM_COMPILER_IR_ATTRIBUTE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/tensor.h"

namespace loom::ir {

class Attribute {
 public:
  enum class Kind : uint8_t { kInt, kFloat, kString, kInts, kFloats, kTensor };

  Attribute() = default;  // Int(0)
  static Attribute Int(int64_t v) {
    Attribute a(Kind::kInt);
    a.i_ = v;
    return a;
  }
  static Attribute Float(float v) {
    Attribute a(Kind::kFloat);
    a.f_ = v;
    return a;
  }
  static Attribute String(std::string v) {
    Attribute a(Kind::kString);
    a.s_ = std::move(v);
    return a;
  }
  static Attribute Ints(std::vector<int64_t> v) {
    Attribute a(Kind::kInts);
    a.ints_ = std::move(v);
    return a;
  }
  static Attribute Floats(std::vector<float> v) {
    Attribute a(Kind::kFloats);
    a.floats_ = std::move(v);
    return a;
  }
  static Attribute TensorValue(Tensor v) {
    Attribute a(Kind::kTensor);
    a.tensor_ = std::move(v);
    return a;
  }

  Kind kind() const { return kind_; }
  // Each accessor is meaningful only for its kind (check kind() first); the others hold defaults.
  int64_t i() const { return i_; }
  float f() const { return f_; }
  const std::string& s() const { return s_; }
  const std::vector<int64_t>& ints() const { return ints_; }
  const std::vector<float>& floats() const { return floats_; }
  const Tensor& tensor() const { return tensor_; }

  bool operator==(const Attribute& o) const;
  bool operator!=(const Attribute& o) const { return !(*this == o); }

 private:
  explicit Attribute(Kind k) : kind_(k) {}
  // Plain members rather than std::variant: attributes are few and small, and GCC 12's
  // -Wmaybe-uninitialized misfires on variant moves in sanitizer builds.
  Kind kind_ = Kind::kInt;
  int64_t i_ = 0;
  float f_ = 0.0f;
  std::string s_;
  std::vector<int64_t> ints_;
  std::vector<float> floats_;
  Tensor tensor_;
};

const char* AttributeKindName(Attribute::Kind k);  // "int", "float", "string", "ints", ...

// std::less<> allows lookups by string_view without building a std::string.
using AttributeMap = std::map<std::string, Attribute, std::less<>>;

}  // namespace loom::ir

#endif  // LOOM_COMPILER_IR_ATTRIBUTE_H_
