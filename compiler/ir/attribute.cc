#include "compiler/ir/attribute.h"

namespace loom::ir {

bool Attribute::operator==(const Attribute& o) const {
  if (kind() != o.kind()) return false;
  switch (kind()) {
    case Kind::kInt:
      return i() == o.i();
    case Kind::kFloat:
      return f() == o.f();  // NaN attributes are never equal; harmless
    case Kind::kString:
      return s() == o.s();
    case Kind::kInts:
      return ints() == o.ints();
    case Kind::kFloats:
      return floats() == o.floats();
    case Kind::kTensor:
      return tensor().SameContents(o.tensor());
  }
  return false;
}

const char* AttributeKindName(Attribute::Kind k) {
  switch (k) {
    case Attribute::Kind::kInt:
      return "int";
    case Attribute::Kind::kFloat:
      return "float";
    case Attribute::Kind::kString:
      return "string";
    case Attribute::Kind::kInts:
      return "ints";
    case Attribute::Kind::kFloats:
      return "floats";
    case Attribute::Kind::kTensor:
      return "tensor";
  }
  return "?";
}

}  // namespace loom::ir
