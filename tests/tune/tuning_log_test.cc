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
       "field 'kind': expected \"measured\" or \"best\""},
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

}  // namespace
}  // namespace loom::tune
