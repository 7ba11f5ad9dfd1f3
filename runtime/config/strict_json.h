// Strict reading of small JSON files, shared by the config and board parsers (internal to
// loom_config). Strict means: duplicate keys, unknown keys, missing keys and wrong types are
// errors that name the source file and the field, and nothing here throws: nlohmann's exceptions
// become Status values.
#ifndef LOOM_RUNTIME_CONFIG_STRICT_JSON_H_
#define LOOM_RUNTIME_CONFIG_STRICT_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core/status.h"

namespace loom::strict_json {

using Json = nlohmann::json;

// "a, b, c".
std::string Join(const std::vector<std::string>& items);

// Parses text that must hold one JSON object. A syntax error reports "source:line:column".
Status ParseObject(std::string_view text, const std::string& source, Json* out);

// Typed access to the fields of one parsed object. Errors read
// "<source>: field '<prefix><field>' <why>". The object and source must outlive this view.
class Fields {
 public:
  Fields(const Json& object, const std::string& source, std::string prefix = "")
      : object_(object), source_(source), prefix_(std::move(prefix)) {}

  Status Error(const std::string& field, const std::string& why) const;
  // Every key must be one of `known`; the message lists them, so a typo is easy to spot.
  Status CheckKnown(const std::vector<std::string>& known, const char* what) const;
  // Whether the object has the key: for fields that only some kinds of file carry.
  bool Has(const std::string& field) const { return object_.contains(field); }

  Status U32(const std::string& field, uint32_t* out) const;   // 0 .. 2^32-1, no fractions
  Status Number(const std::string& field, double* out) const;  // integer or float
  Status String(const std::string& field, std::string* out) const;
  Status Name(const std::string& field, std::string* out) const;  // 1-64 of [A-Za-z0-9._-]
  Status Hex64(const std::string& field, uint64_t* out) const;    // "0x..." up to 16 digits
  Status Object(const std::string& field, const Json** out) const;

 private:
  Status Get(const std::string& field, const Json** out) const;
  Status Typed(const std::string& field, bool (Json::*is)() const noexcept, const char* type,
               const Json** out) const;

  const Json& object_;
  const std::string& source_;
  std::string prefix_;
};

}  // namespace loom::strict_json

#endif  // LOOM_RUNTIME_CONFIG_STRICT_JSON_H_
