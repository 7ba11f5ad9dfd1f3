// The tuning log: records round-trip, malformed lines are rejected naming the line and the field,
// and BestSchedules keeps the fastest record per signature of the asked config only.
#include "compiler/tune/tuning_log.h"

#include <gtest/gtest.h>

namespace loom::tune {
namespace {

constexpr char kHash[] = "0123456789abcdef";
constexpr char kOther[] = "fedcba9876543210";

TuningRecord Rec(const std::string& sig, const char* hash, uint32_t oc, uint64_t cycles) {
  TuningRecord r;
  r.signature = sig;
  r.config = "1x16x16";
  r.config_hash = hash;
  r.tiling = {oc, 2, 7, 7, 2};
  r.cycles = cycles;
  r.device = "fsim";
  return r;
}

TEST(TuningLog, RoundTripsAndSkipsBlankLines) {
  TuningRecord best = Rec("conv2d a", kHash, 4, 900);
  best.kind = "best";
  best.builtin_cycles = 1000;
  const std::string text =
      FormatRecord(Rec("conv2d a", kHash, 2, 1000)) + "\n\n" + FormatRecord(best) + "\n";
  std::vector<TuningRecord> out;
  ASSERT_TRUE(ParseTuningLog(text, "t.json", &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tiling, (tensorize::Conv2dTiling{2, 2, 7, 7, 2}));
  EXPECT_EQ(out[0].cycles, 1000u);
  EXPECT_EQ(out[1].kind, "best");
  EXPECT_EQ(out[1].builtin_cycles, 1000u);
  EXPECT_EQ(out[1].device, "fsim");
}

struct Bad {
  const char* name;
  std::string line;
  const char* message;  // expected in the error
};

std::string Line(const std::string& tiling, const std::string& extra = "") {
  return std::string(
             "{\"version\":1,\"kind\":\"measured\",\"signature\":\"s\",\"config_hash\":\"") +
         kHash + "\",\"tiling\":" + tiling + ",\"cycles\":10" + extra + "}";
}

TEST(TuningLog, RejectsMalformedLinesNamingLineAndField) {
  const std::string ok_tiling = R"({"oc":1,"ic":1,"oh":1,"ow":1,"vt":1})";
  const Bad cases[] = {
      {"not json", "{\"version\":1", "t.json:2: not a JSON value"},
      {"not an object", "[1,2]", "t.json:2: expected a JSON object"},
      {"version", R"({"version":2})", "t.json:2: field 'version': log version 2"},
      {"no version", R"({"kind":"best"})", "t.json:2: field 'version': missing"},
      {"kind", Line(ok_tiling).replace(Line(ok_tiling).find("measured"), 8, "guess"),
       "field 'kind': expected \"measured\", \"best\", \"packing\" or \"barrier\""},
      {"knob value",
       R"({"version":1,"kind":"barrier","layer":"x","value":"on","config_hash":")" +
           std::string(kHash) + R"(","cycles":5})",
       "field 'value': a barrier record takes \"auto\" or \"layer\", got \"on\""},
      {"packing value",
       R"({"version":1,"kind":"packing","layer":"x","value":"auto","config_hash":")" +
           std::string(kHash) + R"(","cycles":5})",
       "field 'value': a packing record takes \"on\", \"off\" or \"fold\", got \"auto\""},
      {"knob layer",
       R"({"version":1,"kind":"packing","value":"on","config_hash":")" + std::string(kHash) +
           R"(","cycles":5})",
       "field 'layer': missing"},
      {"hash", Line(ok_tiling).replace(Line(ok_tiling).find(kHash), 16, "XYZ"),
       "field 'config_hash': expected 16 lowercase hex digits"},
      {"negative", Line(R"({"oc":-1,"ic":1,"oh":1,"ow":1,"vt":1})"),
       "field 'tiling.oc': expected a non-negative integer, got -1"},
      {"float", Line(R"({"oc":1,"ic":1.5,"oh":1,"ow":1,"vt":1})"),
       "field 'tiling.ic': expected a non-negative integer, got 1.5"},
      {"zero", Line(R"({"oc":1,"ic":1,"oh":0,"ow":1,"vt":1})"),
       "field 'tiling.oh': value 0 outside [1, 65536]"},
      {"vt", Line(R"({"oc":1,"ic":1,"oh":1,"ow":1,"vt":3})"),
       "field 'tiling.vt': value 3 outside [1, 2]"},
      {"missing ow", Line(R"({"oc":1,"ic":1,"oh":1,"vt":1})"), "field 'tiling.ow': missing"},
      {"tiling type", Line("7"), "field 'tiling': expected an object, got 7"},
      {"signature type", Line(ok_tiling).replace(Line(ok_tiling).find("\"s\""), 3, "5"),
       "field 'signature': expected a string, got 5"},
      {"cycles", Line(ok_tiling).replace(Line(ok_tiling).find("10"), 2, "0"),
       "field 'cycles': value 0 outside"},
  };
  const std::string good = FormatRecord(Rec("conv2d a", kHash, 1, 5));
  for (const Bad& b : cases) {
    std::vector<TuningRecord> out;
    const Status s = ParseTuningLog(good + "\n" + b.line + "\n", "t.json", &out);
    ASSERT_FALSE(s.ok()) << b.name;
    EXPECT_NE(s.message().find(b.message), std::string::npos) << b.name << ": " << s.message();
    EXPECT_EQ(s.message().rfind("t.json:2", 0), 0u) << b.name << ": " << s.message();
  }
}

TEST(TuningLog, ReadNamesAMissingFile) {
  std::vector<TuningRecord> out;
  const Status s = ReadTuningLog("/nonexistent/log.json", &out);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/log.json"), std::string::npos);
}

TEST(TuningLog, BestSchedulesTakesTheFastestRecordOfTheConfig) {
  const std::vector<TuningRecord> records = {
      Rec("conv2d a", kHash, 1, 500), Rec("conv2d a", kHash, 2, 300),
      Rec("conv2d a", kOther, 3, 100),  // faster, but for another config
      Rec("conv2d b", kHash, 4, 700), Rec("conv2d c", kOther, 1, 50)};
  size_t other = 0;
  const tensorize::ScheduleTable t = BestSchedules(records, kHash, &other);
  EXPECT_EQ(other, 2u);
  ASSERT_EQ(t.conv2d.size(), 2u);
  ASSERT_NE(t.Find("conv2d a"), nullptr);
  EXPECT_EQ(t.Find("conv2d a")->oc, 2u);
  EXPECT_EQ(t.Find("conv2d b")->oc, 4u);
  EXPECT_EQ(t.Find("conv2d c"), nullptr);
}

TuningRecord Knob(const char* kind, const char* layer, const char* value, const char* hash,
                  uint64_t cycles) {
  TuningRecord r;
  r.kind = kind;
  r.layer = layer;
  r.value = value;
  r.config_hash = hash;
  r.cycles = cycles;
  r.device = "fsim";
  return r;
}

// Knob records round-trip without a tiling, and a log of tilings only (written before the knobs
// existed) still loads.
TEST(TuningLog, KnobRecordsRoundTripBesideOldTilingRecords) {
  const std::string old_line =
      R"({"version":1,"kind":"best","signature":"conv2d a","config":"1x16x16","config_hash":")" +
      std::string(kHash) +
      R"(","tiling":{"oc":2,"ic":1,"oh":6,"ow":56,"vt":2},"cycles":555526,"builtin_cycles":556032,"device":"fsim"})";
  TuningRecord knob = Knob("packing", "/conv1/Conv", "off", kHash, 900);
  knob.builtin_cycles = 1000;
  std::vector<TuningRecord> out;
  ASSERT_TRUE(ParseTuningLog(old_line + "\n" + FormatRecord(knob) + "\n", "t.json", &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tiling, (tensorize::Conv2dTiling{2, 1, 6, 56, 2}));
  EXPECT_EQ(out[1].kind, "packing");
  EXPECT_EQ(out[1].layer, "/conv1/Conv");
  EXPECT_EQ(out[1].value, "off");
  EXPECT_EQ(out[1].cycles, 900u);
  EXPECT_EQ(out[1].builtin_cycles, 1000u);
  EXPECT_EQ(FormatRecord(out[1]), FormatRecord(knob));
}

TEST(TuningLog, BestSchedulesTakesTheFastestValueOfEachKnob) {
  const std::vector<TuningRecord> records = {
      Knob("packing", "c1", "on", kHash, 500),   Knob("packing", "c1", "off", kHash, 600),
      Knob("packing", "c2", "on", kHash, 500),   Knob("packing", "c2", "off", kHash, 400),
      Knob("packing", "c3", "on", kHash, 500),   Knob("packing", "c3", "off", kHash, 700),
      Knob("packing", "c3", "on", kHash, 500),   Knob("packing", "c3", "fold", kHash, 480),
      Knob("barrier", "d", "auto", kHash, 500),  Knob("barrier", "d", "layer", kHash, 450),
      Knob("barrier", "e", "layer", kOther, 10),  // another config
      Knob("barrier", "f", "auto", kHash, 300),  Knob("barrier", "f", "layer", kHash, 310)};
  size_t other = 0;
  const tensorize::ScheduleTable t = BestSchedules(records, kHash, &other);
  EXPECT_EQ(other, 1u);
  EXPECT_EQ(t.unpacked, (std::set<std::string>{"c2"}));
  EXPECT_EQ(t.folded, (std::set<std::string>{"c3"}));
  EXPECT_EQ(t.layer_barriers, (std::set<std::string>{"d"}));
  EXPECT_TRUE(t.conv2d.empty());
}

}  // namespace
}  // namespace loom::tune
