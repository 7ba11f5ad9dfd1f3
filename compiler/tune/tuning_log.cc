#include "compiler/tune/tuning_log.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace loom::tune {
namespace {

using nlohmann::json;

// Largest value a tiling field may take: the ISA's loop fields are narrower than this, and the
// emitter checks the real bounds; this only keeps absurd numbers out of the arithmetic.
constexpr uint64_t kMaxTile = 1u << 16;

class LineParser {
 public:
  LineParser(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

  Status Fail(const std::string& field, const std::string& why) const {
    return InvalidArgument(where_ + ": field '" + field + "': " + why);
  }
  Status String(const char* key, bool required, std::string* out) const {
    auto it = j_.find(key);
    if (it == j_.end()) return required ? Fail(key, "missing") : Status::Ok();
    if (!it->is_string()) return Fail(key, "expected a string, got " + it->dump());
    *out = it->get<std::string>();
    if (required && out->empty()) return Fail(key, "empty");
    return Status::Ok();
  }
  static Status Unsigned(const json& obj, const std::string& field, const char* key, uint64_t lo,
                         uint64_t hi, bool required, const LineParser& p, uint64_t* out) {
    auto it = obj.find(key);
    if (it == obj.end()) return required ? p.Fail(field, "missing") : Status::Ok();
    if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<int64_t>() < 0)) {
      return p.Fail(field, "expected a non-negative integer, got " + it->dump());
    }
    const uint64_t v = it->get<uint64_t>();
    if (v < lo || v > hi) {
      return p.Fail(field, "value " + std::to_string(v) + " outside [" + std::to_string(lo) + ", " +
                               std::to_string(hi) + "]");
    }
    *out = v;
    return Status::Ok();
  }

  Status Record(TuningRecord* r) const {
    if (!j_.is_object()) return InvalidArgument(where_ + ": expected a JSON object");
    uint64_t version = 0;
    LOOM_RETURN_IF_ERROR(Unsigned(j_, "version", "version", 0, UINT32_MAX, true, *this, &version));
    if (version != kTuningLogVersion) {
      return Fail("version", "log version " + std::to_string(version) + ", this loom reads " +
                                 std::to_string(kTuningLogVersion));
    }
    LOOM_RETURN_IF_ERROR(String("kind", true, &r->kind));
    const bool knob = IsKnobKind(r->kind);
    if (r->kind != "measured" && r->kind != "best" && !knob) {
      return Fail("kind", "expected \"measured\", \"best\", \"packing\" or \"barrier\", got \"" +
                              r->kind + "\"");
    }
    LOOM_RETURN_IF_ERROR(String("signature", !knob, &r->signature));
    LOOM_RETURN_IF_ERROR(String("config", false, &r->config));
    LOOM_RETURN_IF_ERROR(String("config_hash", true, &r->config_hash));
    if (r->config_hash.size() != 16 ||
        r->config_hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
      return Fail("config_hash",
                  "expected 16 lowercase hex digits, got \"" + r->config_hash + "\"");
    }
    LOOM_RETURN_IF_ERROR(String("device", false, &r->device));
    if (knob) {
      LOOM_RETURN_IF_ERROR(String("layer", true, &r->layer));
      LOOM_RETURN_IF_ERROR(String("value", true, &r->value));
      const bool packing = r->kind == "packing";
      const std::vector<std::string> values = packing
                                                  ? std::vector<std::string>{"on", "off", "fold"}
                                                  : std::vector<std::string>{"auto", "layer"};
      if (std::find(values.begin(), values.end(), r->value) == values.end()) {
        std::string list;
        for (size_t i = 0; i < values.size(); ++i) {
          list += (i == 0                   ? ""
                   : i + 1 == values.size() ? " or "
                                            : ", ") +
                  ("\"" + values[i] + "\"");
        }
        return Fail("value",
                    "a " + r->kind + " record takes " + list + ", got \"" + r->value + "\"");
      }
    } else {
      LOOM_RETURN_IF_ERROR(Tiling(r));
    }
    LOOM_RETURN_IF_ERROR(Unsigned(j_, "cycles", "cycles", 1, UINT64_MAX, true, *this, &r->cycles));
    LOOM_RETURN_IF_ERROR(Unsigned(j_, "builtin_cycles", "builtin_cycles", 0, UINT64_MAX, false,
                                  *this, &r->builtin_cycles));
    return Status::Ok();
  }

 private:
  Status Tiling(TuningRecord* r) const {
    auto t = j_.find("tiling");
    if (t == j_.end()) return Fail("tiling", "missing");
    if (!t->is_object()) return Fail("tiling", "expected an object, got " + t->dump());
    uint64_t oc = 0, ic = 0, oh = 0, ow = 0, vt = 0;
    LOOM_RETURN_IF_ERROR(Unsigned(*t, "tiling.oc", "oc", 1, kMaxTile, true, *this, &oc));
    LOOM_RETURN_IF_ERROR(Unsigned(*t, "tiling.ic", "ic", 1, kMaxTile, true, *this, &ic));
    LOOM_RETURN_IF_ERROR(Unsigned(*t, "tiling.oh", "oh", 1, kMaxTile, true, *this, &oh));
    LOOM_RETURN_IF_ERROR(Unsigned(*t, "tiling.ow", "ow", 1, kMaxTile, true, *this, &ow));
    LOOM_RETURN_IF_ERROR(Unsigned(*t, "tiling.vt", "vt", 1, 2, true, *this, &vt));
    r->tiling = {static_cast<uint32_t>(oc), static_cast<uint32_t>(ic), static_cast<uint32_t>(oh),
                 static_cast<uint32_t>(ow), static_cast<uint32_t>(vt)};
    return Status::Ok();
  }

  const json& j_;
  std::string where_;
};

}  // namespace

bool IsKnobKind(const std::string& kind) { return kind == "packing" || kind == "barrier"; }

std::string FormatRecord(const TuningRecord& r) {
  if (IsKnobKind(r.kind)) {
    json j = {{"version", kTuningLogVersion},
              {"kind", r.kind},
              {"layer", r.layer},
              {"value", r.value},
              {"config", r.config},
              {"config_hash", r.config_hash},
              {"cycles", r.cycles},
              {"device", r.device}};
    if (!r.signature.empty()) j["signature"] = r.signature;
    if (r.builtin_cycles) j["builtin_cycles"] = r.builtin_cycles;
    return j.dump();
  }
  json j = {{"version", kTuningLogVersion},
            {"kind", r.kind},
            {"signature", r.signature},
            {"config", r.config},
            {"config_hash", r.config_hash},
            {"tiling",
             {{"oc", r.tiling.oc},
              {"ic", r.tiling.ic},
              {"oh", r.tiling.oh},
              {"ow", r.tiling.ow},
              {"vt", r.tiling.virtual_threads}}},
            {"cycles", r.cycles},
            {"device", r.device}};
  if (r.builtin_cycles) j["builtin_cycles"] = r.builtin_cycles;
  return j.dump();
}

Status ParseTuningLog(const std::string& text, const std::string& source,
                      std::vector<TuningRecord>* out) {
  std::vector<TuningRecord> records;
  size_t line_no = 0, begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = source + ":" + std::to_string(line_no);
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return InvalidArgument(where + ": not a JSON value");
    TuningRecord r;
    LOOM_RETURN_IF_ERROR(LineParser(j, where).Record(&r));
    records.push_back(std::move(r));
  }
  *out = std::move(records);
  return Status::Ok();
}

Status ReadTuningLog(const std::string& path, std::vector<TuningRecord>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open tuning log " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return ParseTuningLog(text.str(), path, out);
}

tensorize::ScheduleTable BestSchedules(const std::vector<TuningRecord>& records,
                                       const std::string& config_hash, size_t* other_config) {
  std::map<std::string, const TuningRecord*> best;
  std::map<std::pair<std::string, std::string>, const TuningRecord*> knobs;  // (kind, layer)
  size_t other = 0;
  for (const TuningRecord& r : records) {
    if (r.config_hash != config_hash) {
      ++other;
      continue;
    }
    const TuningRecord*& b = IsKnobKind(r.kind) ? knobs[{r.kind, r.layer}] : best[r.signature];
    if (b == nullptr || r.cycles < b->cycles) b = &r;
  }
  if (other_config) *other_config = other;
  tensorize::ScheduleTable table;
  for (const auto& [sig, r] : best) table.conv2d[sig] = r->tiling;
  for (const auto& [key, r] : knobs) {
    if (r->kind == "packing" && r->value == "off") table.unpacked.insert(r->layer);
    if (r->kind == "packing" && r->value == "fold") table.folded.insert(r->layer);
    if (r->kind == "barrier" && r->value == "layer") table.layer_barriers.insert(r->layer);
  }
  return table;
}

}  // namespace loom::tune
