// onnx.TensorProto <-> ir::Tensor, and ONNX element types <-> DType. Initializers, Constant
// nodes and the backend tests' .pb files all come through here, so every size is checked against
// the declared shape before any copy (the data is untrusted).
#include <cstdint>
#include <cstring>

#include "compiler/frontend/onnx_internal.h"

namespace loom::frontend {

namespace {

// ONNX element types <-> DType, both directions from one table. `imported`: the frontend's ops
// handle the type; the others are only written (TensorToProto) until they do.
struct OnnxType {
  int32_t onnx;
  DType dtype;
  bool imported;
};
constexpr OnnxType kOnnxTypes[] = {
    {onnx::TensorProto::FLOAT, DType::kF32, true},  {onnx::TensorProto::INT8, DType::kI8, true},
    {onnx::TensorProto::UINT8, DType::kU8, true},   {onnx::TensorProto::INT32, DType::kI32, true},
    {onnx::TensorProto::INT64, DType::kI64, true},  {onnx::TensorProto::BOOL, DType::kBool, true},
    {onnx::TensorProto::DOUBLE, DType::kF64, true}, {onnx::TensorProto::FLOAT16, DType::kF16, true},
    {onnx::TensorProto::INT16, DType::kI16, true},  {onnx::TensorProto::UINT16, DType::kU16, true},
    {onnx::TensorProto::UINT32, DType::kU32, true}, {onnx::TensorProto::UINT64, DType::kU64, true},
};

}  // namespace

Status DTypeFromOnnx(int32_t elem_type, DType* out) {
  for (const OnnxType& t : kOnnxTypes) {
    if (t.onnx == elem_type && t.imported) {
      *out = t.dtype;
      return Status::Ok();
    }
  }
  return Unimplemented(
      std::string("element type ") + OnnxTypeName(elem_type) +
      " is not supported (Loom handles float32, float64, float16, int8, uint8, int16, "
      "int32, int64, uint16, uint32, uint64, bool)");
}

const char* OnnxTypeName(int32_t elem_type) {
  if (!onnx::TensorProto::DataType_IsValid(elem_type)) return "invalid";
  // The generated name table; a static string owned by protobuf.
  return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(elem_type))
      .c_str();
}

Status TensorFromProto(const onnx::TensorProto& proto, ir::Tensor* out) {
  const std::string what = "tensor '" + proto.name() + "'";
  if (proto.has_segment()) return Unimplemented(what + ": segmented tensors are not supported");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0) {
    return Unimplemented(what + ": external data is not supported (embed the weights)");
  }
  DType dtype;
  LOOM_RETURN_IF_ERROR(DTypeFromOnnx(proto.data_type(), &dtype).WithContext(what));
  ir::Shape shape(proto.dims().begin(), proto.dims().end());
  int64_t n = 0;
  LOOM_RETURN_IF_ERROR(ir::NumElements(shape, &n).WithContext(what));
  const size_t elem = DTypeSize(dtype);
  const size_t bytes = static_cast<size_t>(n) * elem;
  // The element count the data actually holds, checked before anything is allocated: a
  // declared shape is only a claim (a few bytes can declare a terabyte).
  size_t have = 0;
  if (proto.has_raw_data()) {
    have = proto.raw_data().size() % elem == 0 ? proto.raw_data().size() / elem : SIZE_MAX;
  } else if (dtype == DType::kF32) {
    have = static_cast<size_t>(proto.float_data_size());
  } else if (dtype == DType::kI64) {
    have = static_cast<size_t>(proto.int64_data_size());
  } else if (dtype == DType::kF64) {
    have = static_cast<size_t>(proto.double_data_size());
  } else if (dtype == DType::kU32 || dtype == DType::kU64) {
    have = static_cast<size_t>(proto.uint64_data_size());
  } else {
    // Narrow types, float16 included (its bits in the low half): one int32 each.
    have = static_cast<size_t>(proto.int32_data_size());
  }
  if (have != static_cast<size_t>(n)) {
    return DataLoss(what + ": shape " + ir::ShapeToString(shape) + " needs " + std::to_string(n) +
                    " elements, the data holds " +
                    (have == SIZE_MAX ? std::string("a partial element") : std::to_string(have)));
  }
  ir::Tensor t;
  LOOM_RETURN_IF_ERROR(ir::Tensor::Create(dtype, shape, &t).WithContext(what));
  uint8_t* data = t.mutable_bytes();
  if (proto.has_raw_data()) {
    // raw_data is little-endian; so are the hosts Loom's compiler runs on.
    if (bytes) std::memcpy(data, proto.raw_data().data(), bytes);
  } else if (dtype == DType::kF32) {
    if (bytes) std::memcpy(data, proto.float_data().data(), bytes);
  } else if (dtype == DType::kI64) {
    if (bytes) std::memcpy(data, proto.int64_data().data(), bytes);
  } else if (dtype == DType::kF64) {
    if (bytes) std::memcpy(data, proto.double_data().data(), bytes);
  } else if (dtype == DType::kU64) {
    if (bytes) std::memcpy(data, proto.uint64_data().data(), bytes);
  } else if (dtype == DType::kU32) {
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t v = static_cast<uint32_t>(proto.uint64_data(static_cast<int>(i)));
      std::memcpy(data + i * 4, &v, 4);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const int32_t v = proto.int32_data(static_cast<int>(i));
      if (dtype == DType::kI32) {
        std::memcpy(data + i * 4, &v, 4);
      } else if (dtype == DType::kI8) {
        data[static_cast<size_t>(i)] = static_cast<uint8_t>(static_cast<int8_t>(v));
      } else if (dtype == DType::kU8) {
        data[static_cast<size_t>(i)] = static_cast<uint8_t>(v);
      } else if (dtype == DType::kI16 || dtype == DType::kU16 || dtype == DType::kF16) {
        const uint16_t h = static_cast<uint16_t>(v);
        std::memcpy(data + i * 2, &h, 2);
      } else {
        data[static_cast<size_t>(i)] = v != 0 ? 1 : 0;
      }
    }
  }
  *out = std::move(t);
  return Status::Ok();
}

void TensorToProto(const ir::Tensor& t, const std::string& name, onnx::TensorProto* out) {
  out->Clear();
  out->set_name(name);
  int32_t type = onnx::TensorProto::UNDEFINED;
  for (const OnnxType& o : kOnnxTypes) {
    if (o.dtype == t.dtype()) type = o.onnx;
  }
  out->set_data_type(type);
  for (int64_t d : t.shape()) out->add_dims(d);
  out->set_raw_data(t.bytes(), t.byte_size());
}

Status ParseTensorProto(const void* data, size_t size, ir::Tensor* out, std::string* name) {
  try {
    onnx::TensorProto proto;
    if (size > static_cast<size_t>(INT32_MAX) ||
        !proto.ParseFromArray(data, static_cast<int>(size))) {
      return DataLoss("not a serialized onnx.TensorProto");
    }
    if (name != nullptr) *name = proto.name();
    return TensorFromProto(proto, out);
  } catch (const std::exception& e) {
    return DataLoss(std::string("reading a TensorProto failed: ") + e.what());
  } catch (...) {
    return DataLoss("reading a TensorProto failed");
  }
}

// --- attributes ---

const onnx::AttributeProto* FindAttr(const onnx::NodeProto& n, const std::string& name) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t AttrInt(const onnx::NodeProto& n, const std::string& name, int64_t fallback) {
  const onnx::AttributeProto* a = FindAttr(n, name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

float AttrFloat(const onnx::NodeProto& n, const std::string& name, float fallback) {
  const onnx::AttributeProto* a = FindAttr(n, name);
  return a && a->type() == onnx::AttributeProto::FLOAT ? a->f() : fallback;
}

std::string AttrString(const onnx::NodeProto& n, const std::string& name,
                       const std::string& fallback) {
  const onnx::AttributeProto* a = FindAttr(n, name);
  return a && a->type() == onnx::AttributeProto::STRING ? a->s() : fallback;
}

std::vector<int64_t> AttrInts(const onnx::NodeProto& n, const std::string& name) {
  const onnx::AttributeProto* a = FindAttr(n, name);
  if (a == nullptr || a->type() != onnx::AttributeProto::INTS) return {};
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

}  // namespace loom::frontend
