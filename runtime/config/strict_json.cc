#include "runtime/config/strict_json.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <set>
#include <utility>

namespace loom::strict_json {
namespace {

constexpr int kMaxDepth = 16;

// "line:column" (both 1-based) of the byte nlohmann reports as the last one it read. Computed here
// rather than taken from what(), whose wording changes between nlohmann releases.
std::string LineColumn(std::string_view text, size_t byte) {
  size_t index = std::min(byte == 0 ? 0 : byte - 1, text.size());
  size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + index, '\n'));
  size_t line_start = text.rfind('\n', index == 0 ? 0 : index - 1);
  line_start = (line_start == std::string_view::npos || index == 0) ? 0 : line_start + 1;
  return std::to_string(line) + ":" + std::to_string(index - line_start + 1);
}

// nlohmann's what() without the "[json.exception...] parse error at ...:" prefix.
std::string ExceptionDetail(const std::string& what) {
  std::string s = what;
  if (!s.empty() && s[0] == '[' && s.find("] ") != std::string::npos) {
    s = s.substr(s.find("] ") + 2);
  }
  if (s.rfind("parse error", 0) == 0 && s.find(": ") != std::string::npos) {
    s = s.substr(s.find(": ") + 2);
  }
  return s;
}

// A short rendering of a JSON value for error messages. Containers are named, not printed: dump()
// recurses, and a hostile file may nest thousands of levels deep.
std::string Describe(const Json& v) {
  if (v.is_structured()) return v.type_name();
  std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + text;
}

}  // namespace

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// nlohmann keeps the last of duplicated keys; a duplicate in a config is almost always an editing
// mistake, so it is an error here.
Status ParseObject(std::string_view text, const std::string& source, Json* out) {
  struct Level {
    std::set<std::string> keys;
    std::string path;  // "resources." for a nested object
    std::string last_key;
  };
  std::vector<Level> levels;
  std::string duplicate;
  bool too_deep = false;
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    // Our files nest two levels; refusing (discarding) deeper values keeps a hostile file from
    // building a DOM that later recursive code (dump, copy) could overflow the stack on.
    if (depth > kMaxDepth) {
      too_deep = true;
      return false;
    }
    if (event == Json::parse_event_t::object_start) {
      std::string path = levels.empty() ? "" : levels.back().path + levels.back().last_key + ".";
      levels.push_back({{}, std::move(path), {}});
    } else if (event == Json::parse_event_t::object_end && !levels.empty()) {
      levels.pop_back();
    } else if (event == Json::parse_event_t::key && !levels.empty() && parsed.is_string()) {
      Level& level = levels.back();
      level.last_key = parsed.get<std::string>();
      if (!level.keys.insert(level.last_key).second && duplicate.empty()) {
        duplicate = level.path + level.last_key;
      }
    }
    return true;
  };
  try {
    *out = Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const Json::parse_error& e) {
    return InvalidArgument(source + ":" + LineColumn(text, e.byte) +
                           ": malformed JSON: " + ExceptionDetail(e.what()));
  } catch (const Json::exception& e) {  // e.g. a number too large for a double
    return InvalidArgument(source + ": malformed JSON: " + ExceptionDetail(e.what()));
  }
  if (too_deep) {
    return InvalidArgument(source + ": nested deeper than " + std::to_string(kMaxDepth) +
                           " levels; a config or board file has at most 2");
  }
  if (!duplicate.empty()) {
    return InvalidArgument(source + ": field '" + duplicate + "' appears more than once");
  }
  if (!out->is_object()) {
    return InvalidArgument(source + ": expected a JSON object {...}, got " + Describe(*out));
  }
  return Status::Ok();
}

Status Fields::Error(const std::string& field, const std::string& why) const {
  return InvalidArgument(source_ + ": field '" + prefix_ + field + "' " + why);
}

Status Fields::CheckKnown(const std::vector<std::string>& known, const char* what) const {
  for (const auto& item : object_.items()) {
    if (std::find(known.begin(), known.end(), item.key()) != known.end()) continue;
    return InvalidArgument(source_ + ": unknown field '" + prefix_ + item.key() + "' (" + what +
                           " has: " + Join(known) + ")");
  }
  return Status::Ok();
}

Status Fields::Get(const std::string& field, const Json** out) const {
  auto it = object_.find(field);
  if (it == object_.end()) {
    return InvalidArgument(source_ + ": missing field '" + prefix_ + field + "'");
  }
  *out = &*it;
  return Status::Ok();
}

Status Fields::Typed(const std::string& field, bool (Json::*is)() const noexcept, const char* type,
                     const Json** out) const {
  LOOM_RETURN_IF_ERROR(Get(field, out));
  if (((**out).*is)()) return Status::Ok();
  return Error(field, std::string("must be ") + type + ", got " + Describe(**out));
}

Status Fields::U32(const std::string& field, uint32_t* out) const {
  const Json* v = nullptr;
  LOOM_RETURN_IF_ERROR(Get(field, &v));
  // "-0" parses as a signed integer; it is still a valid 0.
  if (v->is_number_unsigned() || (v->is_number_integer() && v->get<int64_t>() == 0)) {
    uint64_t x = v->is_number_unsigned() ? v->get<uint64_t>() : 0;
    if (x > std::numeric_limits<uint32_t>::max()) {
      return Error(field, "is " + std::to_string(x) + ", more than 32 bits (max 4294967295)");
    }
    *out = static_cast<uint32_t>(x);
    return Status::Ok();
  }
  if (v->is_number_integer()) return Error(field, "is " + v->dump() + ", must not be negative");
  return Error(field, "must be an unsigned integer, got " + Describe(*v));
}

Status Fields::Number(const std::string& field, double* out) const {
  const Json* v = nullptr;
  LOOM_RETURN_IF_ERROR(Typed(field, &Json::is_number, "a number", &v));
  *out = v->get<double>();
  return Status::Ok();
}

Status Fields::String(const std::string& field, std::string* out) const {
  const Json* v = nullptr;
  LOOM_RETURN_IF_ERROR(Typed(field, &Json::is_string, "a string", &v));
  *out = v->get<std::string>();
  return Status::Ok();
}

// Names become file stems and package strings: keep them to a portable character set.
Status Fields::Name(const std::string& field, std::string* out) const {
  LOOM_RETURN_IF_ERROR(String(field, out));
  bool ok =
      !out->empty() && out->size() <= 64 && (*out)[0] != '.' &&
      std::all_of(out->begin(), out->end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      });
  if (!ok) return Error(field, "is \"" + *out + "\", must be 1-64 of [A-Za-z0-9._-]");
  return Status::Ok();
}

// Addresses are hex strings ("0x43C00000"): JSON numbers past 2^53 lose bits in many tools, and
// hex is how datasheets print a memory map.
Status Fields::Hex64(const std::string& field, uint64_t* out) const {
  std::string s;
  LOOM_RETURN_IF_ERROR(String(field, &s));
  bool ok = s.size() > 2 && s.size() <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
            std::all_of(s.begin() + 2, s.end(),
                        [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  if (!ok) return Error(field, "is \"" + s + "\", must be a hex string like \"0x43C00000\"");
  *out = std::strtoull(s.c_str() + 2, nullptr, 16);
  return Status::Ok();
}

Status Fields::Object(const std::string& field, const Json** out) const {
  return Typed(field, &Json::is_object, "an object", out);
}

}  // namespace loom::strict_json
