#include "runtime/remote/wire.h"

namespace loom::runtime::remote {

void WireWriter::Raw(const void* data, size_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  out_.insert(out_.end(), p, p + n);
}

void WireWriter::Str(const std::string& s) {
  U32(static_cast<uint32_t>(s.size()));
  Raw(s.data(), s.size());
}

void WireWriter::Blob(const uint8_t* data, uint64_t n) {
  U64(n);
  Raw(data, static_cast<size_t>(n));
}

Status WireReader::Bad(const std::string& field, const std::string& problem) const {
  return InvalidArgument(std::string(message_) + " message: field '" + field + "' " + problem);
}

Status WireReader::Need(const char* field, uint64_t n) const {
  if (n <= left()) return Status::Ok();
  return Bad(field, "needs " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) +
                        ", " + std::to_string(left()) + " are left (truncated message)");
}

uint64_t WireReader::Le(int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
  pos_ += static_cast<size_t>(n);
  return v;
}

Status WireReader::U8(const char* field, uint8_t* v) {
  LOOM_RETURN_IF_ERROR(Need(field, 1));
  *v = static_cast<uint8_t>(Le(1));
  return Status::Ok();
}

Status WireReader::U16(const char* field, uint16_t* v) {
  LOOM_RETURN_IF_ERROR(Need(field, 2));
  *v = static_cast<uint16_t>(Le(2));
  return Status::Ok();
}

Status WireReader::U32(const char* field, uint32_t* v) {
  LOOM_RETURN_IF_ERROR(Need(field, 4));
  *v = static_cast<uint32_t>(Le(4));
  return Status::Ok();
}

Status WireReader::U64(const char* field, uint64_t* v) {
  LOOM_RETURN_IF_ERROR(Need(field, 8));
  *v = Le(8);
  return Status::Ok();
}

Status WireReader::I64(const char* field, int64_t* v) {
  LOOM_RETURN_IF_ERROR(Need(field, 8));
  *v = static_cast<int64_t>(Le(8));
  return Status::Ok();
}

Status WireReader::Raw(const char* field, size_t n, const uint8_t** p) {
  LOOM_RETURN_IF_ERROR(Need(field, n));
  *p = data_ + pos_;
  pos_ += n;
  return Status::Ok();
}

Status WireReader::Str(const char* field, size_t max, std::string* s) {
  uint32_t n = 0;
  LOOM_RETURN_IF_ERROR(U32(field, &n));
  if (n > max) {
    return Bad(field, "is " + std::to_string(n) + " bytes long, more than the limit of " +
                          std::to_string(max));
  }
  const uint8_t* p = nullptr;
  LOOM_RETURN_IF_ERROR(Raw(field, n, &p));
  s->assign(reinterpret_cast<const char*>(p), n);
  return Status::Ok();
}

Status WireReader::Blob(const char* field, uint64_t max, const uint8_t** p, uint64_t* n) {
  LOOM_RETURN_IF_ERROR(U64(field, n));
  if (*n > max) {
    return Bad(field, "is " + std::to_string(*n) + " bytes long, more than the limit of " +
                          std::to_string(max));
  }
  return Raw(field, static_cast<size_t>(*n), p);
}

Status WireReader::Done() const {
  if (left() == 0) return Status::Ok();
  return InvalidArgument(std::string(message_) + " message has " + std::to_string(left()) +
                         " bytes after its last field (at offset " + std::to_string(pos_) + ")");
}

}  // namespace loom::runtime::remote
