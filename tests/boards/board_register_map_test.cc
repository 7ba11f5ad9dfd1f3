// The register table the board flows generate from (vta_hw/gen/register_map.h) against the places
// that state the same map: docs/registers.md (the specification), the RTL (loom_regs.sv) and the
// driver-side constants of the protocol (runtime/drivers/protocol/registers.h). A register added,
// moved or renamed in one of them fails here until the others follow.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/drivers/protocol/registers.h"
#include "vta_hw/gen/register_map.h"

namespace loom::hwgen {
namespace {

std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(LOOM_SOURCE_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << relative;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct DocRow {
  uint32_t offset;
  std::string name;
  std::string access;
};

std::string Trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(' ');
  const size_t end = s.find_last_not_of(' ');
  return begin == std::string::npos ? "" : s.substr(begin, end + 1 - begin);
}

// The rows of the register table in docs/registers.md: "| 0x00 | `CTRL` | R/W | meaning |".
// (Plain string handling: GCC 12's std::regex trips -Wmaybe-uninitialized in the sanitizer build.)
std::vector<DocRow> DocTable(const std::string& doc) {
  std::vector<DocRow> rows;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| 0x", 0) != 0) continue;
    std::vector<std::string> cells;
    std::istringstream parts(line.substr(1));
    for (std::string cell; std::getline(parts, cell, '|');) cells.push_back(Trim(cell));
    if (cells.size() < 3 || cells[1].size() < 3 || cells[1].front() != '`' ||
        cells[1].back() != '`') {
      continue;
    }
    rows.push_back({static_cast<uint32_t>(std::stoul(cells[0], nullptr, 16)),
                    cells[1].substr(1, cells[1].size() - 2), cells[2]});
  }
  return rows;
}

TEST(RegisterMapTest, MatchesTheTableInDocsRegistersMd) {
  const std::vector<DocRow> doc = DocTable(ReadSourceFile("docs/registers.md"));
  const auto& map = RegisterMap();
  ASSERT_EQ(doc.size(), map.size()) << "docs/registers.md and register_map.cc list different "
                                       "numbers of registers";
  for (size_t i = 0; i < map.size(); ++i) {
    SCOPED_TRACE(map[i].name);
    EXPECT_EQ(doc[i].offset, map[i].offset);
    EXPECT_EQ(doc[i].name, map[i].name);
    EXPECT_EQ(doc[i].access, RegAccessText(map[i].access));
  }
}

// The parser above must find the rows, or the comparison proves nothing.
TEST(RegisterMapTest, DocParserReadsRowsAndSkipsOthers) {
  const std::string text =
      "| offset | name | access | meaning |\n| --- | --- | --- | --- |\n"
      "| 0x0C | `ISR` | R/W1C | pending |\n| 0x70 | `TOKENS` | R | counts |\n"
      "| code | meaning | fsim |\n| 1 | invalid | decode error |\n";
  const std::vector<DocRow> rows = DocTable(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].offset, 0x0Cu);
  EXPECT_EQ(rows[0].name, "ISR");
  EXPECT_EQ(rows[0].access, "R/W1C");
  EXPECT_EQ(rows[1].offset, 0x70u);
}

TEST(RegisterMapTest, OffsetsOfTheRtl) {
  // "localparam logic [7:0] RegCtrl = 8'h00;"
  const std::string rtl = ReadSourceFile("vta_hw/rtl/loom_regs.sv");
  const std::string decl = "localparam logic [7:0] Reg";
  std::set<uint32_t> rtl_offsets;
  for (size_t pos = rtl.find(decl); pos != std::string::npos; pos = rtl.find(decl, pos + 1)) {
    const size_t value = rtl.find("= 8'h", pos);
    ASSERT_NE(value, std::string::npos);
    rtl_offsets.insert(static_cast<uint32_t>(std::stoul(rtl.substr(value + 5, 2), nullptr, 16)));
  }
  std::set<uint32_t> table_offsets;
  for (const auto& r : RegisterMap()) table_offsets.insert(r.offset);
  EXPECT_EQ(rtl_offsets, table_offsets);
}

TEST(RegisterMapTest, OffsetsOfTheTsimHeader) {
  namespace reg = runtime::reg;
  const std::map<std::string, uint32_t> tsim = {
      {"CTRL", reg::kCtrl},
      {"GIE", reg::kGie},
      {"IER", reg::kIer},
      {"ISR", reg::kIsr},
      {"INSN_ADDR_LO", reg::kInsnAddrLo},
      {"INSN_ADDR_HI", reg::kInsnAddrHi},
      {"INSN_COUNT", reg::kInsnCount},
      {"STATUS", reg::kStatus},
      {"ERROR_INSN", reg::kErrorInsn},
      {"CYCLES_LO", reg::kCyclesLo},
      {"CYCLES_HI", reg::kCyclesHi},
      {"LOAD_LAST", reg::kLoadLast},
      {"COMPUTE_LAST", reg::kComputeLast},
      {"STORE_LAST", reg::kStoreLast},
      {"FETCHED", reg::kFetched},
      {"CONFIG_HASH_LO", reg::kConfigHashLo},
      {"CONFIG_HASH_HI", reg::kConfigHashHi},
      {"VERSION", reg::kVersion},
      {"LOAD_BUSY", reg::kLoadBusy},
      {"COMPUTE_BUSY", reg::kComputeBusy},
      {"STORE_BUSY", reg::kStoreBusy},
      {"GEMM_ITERS", reg::kGemmIters},
      {"BYTES_READ_LO", reg::kBytesReadLo},
      {"BYTES_READ_HI", reg::kBytesReadHi},
      {"BYTES_WRITTEN_LO", reg::kBytesWrittenLo},
      {"BYTES_WRITTEN_HI", reg::kBytesWrittenHi},
      {"TOKENS", reg::kTokens},
  };
  ASSERT_EQ(tsim.size(), RegisterMap().size());
  for (const auto& r : RegisterMap()) {
    SCOPED_TRACE(r.name);
    ASSERT_EQ(tsim.count(r.name), 1u);
    EXPECT_EQ(tsim.at(r.name), r.offset);
  }
}

// What the generators assume of the table: word-aligned offsets inside loom_top's 256 bytes,
// ascending, unique names, kernel arguments only on writable registers, a pointer followed by its
// _HI half, and summaries that can go into Tcl braces and XML comments unchanged.
TEST(RegisterMapTest, ShapeTheGeneratorsRelyOn) {
  const auto& map = RegisterMap();
  std::set<std::string> names;
  std::set<std::string> args;
  for (size_t i = 0; i < map.size(); ++i) {
    const Register& r = map[i];
    SCOPED_TRACE(r.name);
    EXPECT_EQ(r.offset % 4, 0u);
    EXPECT_LT(r.offset, 0x100u);
    if (i > 0) {
      EXPECT_GT(r.offset, map[i - 1].offset);
    }
    EXPECT_TRUE(names.insert(r.name).second);
    EXPECT_EQ(r.arg == KernelArg::kNone, r.arg_name == nullptr);
    if (r.arg != KernelArg::kNone) {
      EXPECT_EQ(r.access, RegAccess::kReadWrite);
      EXPECT_TRUE(args.insert(r.arg_name).second);
    }
    if (r.arg == KernelArg::kPointer) {
      ASSERT_LT(i + 1, map.size());
      EXPECT_EQ(map[i + 1].offset, r.offset + 4);
      const std::string lo = r.name;
      ASSERT_GT(lo.size(), 3u);
      EXPECT_EQ(lo.substr(lo.size() - 3), "_LO");
      EXPECT_EQ(std::string(map[i + 1].name), lo.substr(0, lo.size() - 3) + "_HI");
    }
    const std::string summary = r.summary;
    EXPECT_EQ(summary.find_first_of("{}[]$\\\"<>&"), std::string::npos);
    EXPECT_EQ(summary.find("--"), std::string::npos);
  }
  EXPECT_EQ(args, (std::set<std::string>{"insn", "insn_count"}));
  EXPECT_THAT(RegisterMapComment("# "),
              ::testing::HasSubstr("# 0x0C  ISR              R/W1C  done interrupt pending"));
}

}  // namespace
}  // namespace loom::hwgen
