// Hardware config files: the shipped configs, the compatibility hash, and the parser's strictness.
#include "runtime/config/config_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace loom {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(LOOM_SOURCE_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << relative;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Replaces the one occurrence of `from`; the tests edit known-good files into bad ones.
std::string Edit(std::string text, const std::string& from, const std::string& to) {
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << "'" << from << "' not in the text";
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

fs::path FreshTempDir(const std::string& name) {
  fs::path dir =
      fs::path(::testing::TempDir()) / ("loom_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Sets an environment variable for one test and restores it afterwards.
class EnvVar {
 public:
  EnvVar(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
      had_ = true;
    }
    ::setenv(name, value.c_str(), 1);
  }
  ~EnvVar() { had_ ? ::setenv(name_, old_.c_str(), 1) : ::unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// The 1x16x16 hash, computed once from the shipped file. A change here means every package built
// so far is refused by every runtime: change HwConfig::CompatibilityKey() only on purpose.
constexpr char kPinned1x16x16Hash[] = "498c435abdb3ce93";

const char kSource[] = "vta_hw/configs/bad.json";

HwConfig Load(const std::string& name) {
  HwConfig c;
  Status s = LoadHwConfig(name, &c);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return c;
}

HwConfig ParseOrDie(const std::string& text) {
  HwConfig c;
  Status s = ParseHwConfig(text, kSource, &c);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return c;
}

std::string Base() { return ReadSourceFile("vta_hw/configs/1x16x16.json"); }

TEST(ConfigFileTest, EveryShippedConfigLoadsAndValidates) {
  std::vector<std::string> names = ListHwConfigs();
  EXPECT_THAT(names, ::testing::IsSupersetOf({"1x16x16", "1x8x8", "1x32x32"}));
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    HwConfig c = Load(name);
    EXPECT_EQ(c.name, name);
    EXPECT_TRUE(c.Validate().ok());
  }
}

TEST(ConfigFileTest, LoadsByPath) {
  HwConfig c = Load(std::string(LOOM_SOURCE_DIR) + "/vta_hw/configs/1x8x8.json");
  EXPECT_EQ(c.name, "1x8x8");
  EXPECT_EQ(c.block_in, 8u);
}

TEST(ConfigFileTest, DerivedDepthsOf1x16x16) {
  HwConfig c = Load("1x16x16");
  EXPECT_EQ(c.inp_depth(), 2048u);
  EXPECT_EQ(c.wgt_depth(), 1024u);
  EXPECT_EQ(c.acc_depth(), 2048u);
  EXPECT_EQ(c.uop_depth(), 8192u);
  EXPECT_EQ(c.out_depth(), 2048u);
}

TEST(ConfigFileTest, LargeAndSmallShapes) {
  HwConfig big = Load("1x32x32");
  EXPECT_EQ(big.axi_data_bits, 128u);
  EXPECT_EQ(big.clock_mhz, 200.0);
  EXPECT_EQ(big.wgt_depth(), 512u);
  HwConfig small = Load("1x8x8");
  EXPECT_EQ(small.inp_depth(), 1024u);
  EXPECT_EQ(small.acc_depth(), 1024u);
}

// The shipped files are exactly what HwConfigToJson writes, so a tool that rewrites one produces
// no diff, and the JSON text round-trips through the parser.
TEST(ConfigFileTest, JsonRoundTripAndCanonicalFiles) {
  for (const auto& name : {"1x16x16", "1x8x8", "1x32x32"}) {
    SCOPED_TRACE(name);
    HwConfig c = Load(name);
    const std::string json = HwConfigToJson(c);
    EXPECT_EQ(json, ReadSourceFile(std::string("vta_hw/configs/") + name + ".json"));
    HwConfig again = ParseOrDie(json);
    EXPECT_EQ(HwConfigToJson(again), json);
    EXPECT_EQ(again.HashHex(), c.HashHex());
  }
  HwConfig odd = Load("1x16x16");
  odd.clock_mhz = 133.33;
  EXPECT_EQ(ParseOrDie(HwConfigToJson(odd)).clock_mhz, 133.33);
}

TEST(ConfigHashTest, PinnedValueOf1x16x16) {
  EXPECT_EQ(Load("1x16x16").HashHex(), kPinned1x16x16Hash);
}

TEST(ConfigHashTest, NameIsNotPartOfTheHash) {
  HwConfig renamed = ParseOrDie(Edit(Base(), "\"name\": \"1x16x16\"", "\"name\": \"my-copy\""));
  EXPECT_EQ(renamed.name, "my-copy");
  EXPECT_EQ(renamed.HashHex(), kPinned1x16x16Hash);
}

TEST(ConfigHashTest, TimingFieldsKeepTheHash) {
  const struct {
    const char* from;
    const char* to;
  } edits[] = {
      {"\"clock_mhz\": 100.0", "\"clock_mhz\": 250.0"},
      {"\"axi_data_bits\": 64", "\"axi_data_bits\": 128"},
      {"\"dma_burst_latency\": 32", "\"dma_burst_latency\": 90"},
      {"\"dma_max_burst_beats\": 256", "\"dma_max_burst_beats\": 16"},
      {"\"cmd_queue_depth\": 32", "\"cmd_queue_depth\": 8"},
  };
  for (const auto& e : edits) {
    SCOPED_TRACE(e.to);
    EXPECT_EQ(ParseOrDie(Edit(Base(), e.from, e.to)).HashHex(), kPinned1x16x16Hash);
  }
}

TEST(ConfigHashTest, ShapeAndBufferChangesAlterTheHash) {
  const struct {
    const char* from;
    const char* to;
  } edits[] = {
      {"\"uop_buffer_bytes\": 32768", "\"uop_buffer_bytes\": 16384"},
      {"\"inp_buffer_bytes\": 32768", "\"inp_buffer_bytes\": 16384"},
      {"\"wgt_buffer_bytes\": 262144", "\"wgt_buffer_bytes\": 131072"},
      {"\"acc_buffer_bytes\": 131072", "\"acc_buffer_bytes\": 65536"},
      {"\"token_queue_depth\": 32", "\"token_queue_depth\": 16"},
      {"\"batch\": 1", "\"batch\": 2"},
  };
  for (const auto& e : edits) {
    SCOPED_TRACE(e.to);
    EXPECT_NE(ParseOrDie(Edit(Base(), e.from, e.to)).HashHex(), kPinned1x16x16Hash);
  }
}

// Each kind of mistake names the file and the field, so the user knows what to fix and where.
TEST(ConfigFileTest, BadInputsNameTheFileAndField) {
  const struct {
    const char* what;
    const char* from;
    const char* to;
    const char* expect;
  } cases[] = {
      {"missing", ",\n  \"clock_mhz\": 100.0", "", "missing field 'clock_mhz'"},
      {"unknown", "\"batch\": 1,", "\"batch\": 1, \"batchs\": 1,", "unknown field 'batchs'"},
      {"string for integer", "\"batch\": 1", "\"batch\": \"1\"",
       "field 'batch' must be an unsigned integer, got string"},
      {"negative", "\"block_in\": 16", "\"block_in\": -16",
       "field 'block_in' is -16, must not be negative"},
      {"fractional", "\"block_out\": 16", "\"block_out\": 16.5",
       "field 'block_out' must be an unsigned integer"},
      {"over 32 bits", "\"uop_buffer_bytes\": 32768", "\"uop_buffer_bytes\": 4294967296",
       "field 'uop_buffer_bytes' is 4294967296, more than 32 bits"},
      {"huge integer", "\"acc_bits\": 32", "\"acc_bits\": 123456789012345678901234567890",
       "field 'acc_bits' must be an unsigned integer"},
      {"non power of two", "\"inp_buffer_bytes\": 32768", "\"inp_buffer_bytes\": 30000",
       "field 'inp_buffer_bytes': is 30000, must be a power of two"},
      {"unsupported width", "\"inp_bits\": 8", "\"inp_bits\": 4",
       "field 'inp_bits': is 4, only 8 is supported"},
      {"bool for number", "\"clock_mhz\": 100.0", "\"clock_mhz\": true",
       "field 'clock_mhz' must be a number, got boolean"},
      {"duplicate", "\"batch\": 1,", "\"batch\": 1, \"batch\": 2,",
       "field 'batch' appears more than once"},
      {"bad name", "\"name\": \"1x16x16\"", "\"name\": \"../x\"", "field 'name' is \"../x\""},
      {"clock range", "\"clock_mhz\": 100.0", "\"clock_mhz\": 0", "field 'clock_mhz': is 0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    HwConfig out;
    Status s = ParseHwConfig(Edit(Base(), c.from, c.to), kSource, &out);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(kSource));
    EXPECT_THAT(s.message(), HasSubstr(c.expect));
  }
}

TEST(ConfigFileTest, MalformedJsonReportsLineAndColumn) {
  const std::string text =
      "{\n  \"name\": \"broken\",\n  \"batch\": 1,\n  \"block_in\": 16\n  \"block_out\": 16\n}\n";
  HwConfig out;
  Status s = ParseHwConfig(text, kSource, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // The missing comma is noticed once the next token, "block_out", has been read: it ends at line
  // 5, column 13.
  EXPECT_THAT(s.message(), HasSubstr(std::string(kSource) + ":5:13: malformed JSON"));

  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Status d = ParseHwConfig(deep, kSource, &out);
  EXPECT_EQ(d.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(d.message(), HasSubstr("nested deeper than"));

  for (const char* broken : {"", "{\"name\": ", "{\"name\": \"x\"} trailing", "[1, 2]", "null",
                             "{\"clock_mhz\": 1e999}", "{\"name\": \"\xff\"}"}) {
    SCOPED_TRACE(broken);
    Status b = ParseHwConfig(broken, kSource, &out);
    EXPECT_EQ(b.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(b.message(), HasSubstr(kSource));
  }
}

TEST(ConfigFileTest, UnknownNameListsAvailableConfigs) {
  HwConfig out;
  Status s = LoadHwConfig("2x64x64", &out);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("'2x64x64'"));
  EXPECT_THAT(s.message(), HasSubstr("available: 1x16x16, 1x32x32"));
  EXPECT_THAT(s.message(), HasSubstr("LOOM_CONFIG_PATH"));

  Status missing = LoadHwConfig("/nonexistent/dir/cfg.json", &out);
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("/nonexistent/dir/cfg.json"));
}

TEST(ConfigFileTest, SearchPathFromEnvironment) {
  const std::filesystem::path dir = FreshTempDir("config_search");
  WriteFile(dir / "custom.json", Edit(Base(), "\"name\": \"1x16x16\"", "\"name\": \"custom\""));
  WriteFile(dir / "misnamed.json", Base());
  EnvVar env("LOOM_CONFIG_PATH", "/nonexistent:" + dir.string());

  HwConfig c = Load("custom");
  EXPECT_EQ(c.name, "custom");
  EXPECT_EQ(c.HashHex(), kPinned1x16x16Hash);
  EXPECT_THAT(ListHwConfigs(), ::testing::IsSupersetOf({"1x16x16", "custom", "misnamed"}));

  // By name the file must call itself by that name; by path any name is fine.
  HwConfig out;
  Status s = LoadHwConfig("misnamed", &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("misnamed.json: field 'name' is \"1x16x16\""));
  EXPECT_TRUE(LoadHwConfig((dir / "misnamed.json").string(), &out).ok());
}

Board LoadBoardOrDie(const std::string& name) {
  Board b;
  Status s = LoadBoard(name, &b);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return b;
}

TEST(ConfigBoardTest, EveryShippedBoardLoadsWithItsConfig) {
  std::vector<std::string> names = ListBoards();
  EXPECT_THAT(names,
              ::testing::IsSupersetOf({"sim", "pynq-z1", "ultra96-v2", "zcu104", "alveo-u250"}));
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    Board b = LoadBoardOrDie(name);
    EXPECT_EQ(b.name, name);
    HwConfig c;
    Status s = LoadBoardConfig(b, &c);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(c.name, b.config);
    EXPECT_EQ(c.clock_mhz, b.clock_mhz);
  }
}

TEST(ConfigBoardTest, DefaultConfigsAndClocks) {
  const struct {
    const char* board;
    const char* config;
    double mhz;
    const char* driver;
  } expected[] = {{"sim", "1x16x16", 100.0, "fsim"},
                  {"pynq-z1", "1x16x16", 100.0, "zynq"},
                  {"ultra96-v2", "1x16x16", 200.0, "zynq"},
                  {"zcu104", "1x32x32", 200.0, "zynq"},
                  {"alveo-u250", "1x32x32", 250.0, "xrt"}};
  for (const auto& e : expected) {
    SCOPED_TRACE(e.board);
    Board b = LoadBoardOrDie(e.board);
    EXPECT_EQ(b.config, e.config);
    EXPECT_EQ(b.clock_mhz, e.mhz);
    EXPECT_EQ(b.driver, e.driver);
  }
  // The board's clock overrides the config's but leaves the hash alone: a package built for
  // 1x16x16 runs on the Ultra96 at 200 MHz.
  HwConfig c;
  ASSERT_TRUE(LoadBoardConfig(LoadBoardOrDie("ultra96-v2"), &c).ok());
  EXPECT_EQ(c.clock_mhz, 200.0);
  EXPECT_EQ(c.HashHex(), kPinned1x16x16Hash);
}

TEST(ConfigBoardTest, PynqZ1Details) {
  Board b = LoadBoardOrDie("pynq-z1");
  EXPECT_EQ(b.family, "zynq7");
  EXPECT_EQ(b.fpga_part, "xc7z020clg400-1");
  EXPECT_EQ(b.register_base, 0x43C00000u);
  EXPECT_EQ(b.dram_bytes, 512u << 20);
  EXPECT_EQ(b.resources.lut, 53200u);
  EXPECT_EQ(b.resources.ff, 106400u);
  EXPECT_EQ(b.resources.dsp, 220u);
  EXPECT_EQ(b.resources.bram36, 140u);
  EXPECT_EQ(b.resources.uram, 0u);
  EXPECT_EQ(LoadBoardOrDie("alveo-u250").dram_bytes, uint64_t{16} << 30);
}

TEST(ConfigBoardTest, BadBoardsNameTheFileAndField) {
  const std::string base = ReadSourceFile("boards/pynq-z1.json");
  const char kBoard[] = "boards/bad.json";
  const struct {
    const char* what;
    const char* from;
    const char* to;
    const char* expect;
  } cases[] = {
      {"family", "\"zynq7\"", "\"zynq\"", "field 'family' is \"zynq\", must be one of"},
      {"driver", "\"driver\": \"zynq\"", "\"driver\": \"xrt\"",
       "field 'driver' is \"xrt\", must be one of zynq for family zynq7"},
      {"hex as integer", "\"0x43C00000\"", "1136656384", "field 'register_base' must be a string"},
      {"bad hex", "\"0x43C00000\"", "\"43C00000\"",
       "field 'register_base' is \"43C00000\", must be a hex string"},
      {"zero register base", "\"0x43C00000\"", "\"0x0\"",
       "field 'register_base' must be the accelerator's"},
      {"unknown resource", "\"uram\": 0", "\"uram\": 0, \"urams\": 0",
       "unknown field 'resources.urams'"},
      {"negative resource", "\"dsp\": 220", "\"dsp\": -220", "field 'resources.dsp' is -220"},
      {"missing resource", "\"bram36\": 140,", "", "missing field 'resources.bram36'"},
      {"no part", "\"xc7z020clg400-1\"", "\"none\"", "field 'fpga_part' must name the FPGA part"},
      {"dram overflow", "\"dram_base\": \"0x00000000\"", "\"dram_base\": \"0xFFFFFFFFF0000000\"",
       "field 'dram_bytes' runs past"},
      {"missing clock", "\"clock_mhz\": 100.0,", "", "missing field 'clock_mhz'"},
      {"unknown dma port", "\"dma_port\": \"HP0\"", "\"dma_port\": \"HPC0\"",
       "field 'dma_port' is \"HPC0\", must be one of HP0, HP1, HP2, HP3, ACP for family zynq7"},
      {"coherence word", "\"noncoherent\"", "\"cached\"",
       "field 'coherence' is \"cached\", must be one of coherent, noncoherent"},
      {"coherence against port", "\"noncoherent\"", "\"coherent\"",
       "field 'coherence' is \"coherent\", but dma_port HP0 bypasses the CPU caches; it must be "
       "\"noncoherent\""},
      {"acp is coherent", "\"dma_port\": \"HP0\"", "\"dma_port\": \"ACP\"",
       "dma_port ACP snoops the CPU caches; it must be \"coherent\""},
      {"control port of another family", "\"GP0\"", "\"HPM0_FPD\"",
       "field 'control_port' is \"HPM0_FPD\", must be one of GP0, GP1 for family zynq7"},
      {"registers outside the port", "\"GP0\"", "\"GP1\"",
       "field 'register_base' is 0x43C00000, must be a 4 KiB-aligned address in GP1's window "
       "0x80000000-0xBFFFFFFF"},
      {"unaligned registers", "\"0x43C00000\"", "\"0x43C00800\"",
       "field 'register_base' is 0x43C00800, must be a 4 KiB-aligned address"},
      {"irq of zynqmp", "\"irq\": 29", "\"irq\": 89",
       "field 'irq' is 89, not a PL-to-PS interrupt of family zynq7 (GIC SPI 29-36 or 52-59)"},
      {"irq as GIC ID", "\"irq\": 29", "\"irq\": 61", "field 'irq' is 61"},
      {"irq as string", "\"irq\": 29", "\"irq\": \"29\"",
       "field 'irq' must be an unsigned integer, got string"},
      {"missing irq", "\"irq\": 29,", "", "missing field 'irq' (family zynq7 needs it)"},
      {"dma region unaligned", "\"0x04000000\"", "\"0x04000100\"",
       "field 'dma_region_bytes' is 0x4000100, must be a non-zero multiple of 4 KiB"},
      {"dma region empty", "\"0x04000000\"", "\"0x0\"", "field 'dma_region_bytes' is 0x0"},
      {"dma region past dram", "\"0x04000000\"", "\"0x40000000\"",
       "field 'dma_region_bytes' is 0x40000000, larger than dram_bytes 0x20000000"},
      {"board part", "\"www.digilentinc.com:pynq-z1:part0:1.0\"", "\"pynq-z1 [exec ls]\"",
       "field 'vivado_board_part' is \"pynq-z1 [exec ls]\", must be a Vivado board part"},
      {"alveo field on zynq", "\"irq\": 29,", "\"irq\": 29, \"kernel_name\": \"loom\",",
       "field 'kernel_name' does not apply to family zynq7 (only to alveo)"},
      {"part with tcl", "\"xc7z020clg400-1\"", "\"xc7z020 [exec ls]\"",
       "field 'fpga_part' is \"xc7z020 [exec ls]\", must be 1-64 of [A-Za-z0-9._-]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Board out;
    Status s = ParseBoard(Edit(base, c.from, c.to), kBoard, &out);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(kBoard));
    EXPECT_THAT(s.message(), HasSubstr(c.expect));
  }
}

// The hardware fields the drivers and the bitstream flows read (boards/README.md).
TEST(ConfigBoardTest, HardwareFieldsOfShippedBoards) {
  const struct {
    const char* board;
    const char* control_port;
    const char* dma_port;
    uint32_t irq;
    uint64_t dma_region_bytes;
    const char* board_part;
  } zynq[] = {
      {"pynq-z1", "GP0", "HP0", 29, 64u << 20, "www.digilentinc.com:pynq-z1:part0:1.0"},
      {"ultra96-v2", "HPM0_FPD", "HP0", 89, 256u << 20, "avnet.com:ultra96v2:part0:1.2"},
      {"zcu104", "HPM0_FPD", "HP0", 89, 256u << 20, "xilinx.com:zcu104:part0:1.1"},
  };
  for (const auto& e : zynq) {
    SCOPED_TRACE(e.board);
    Board b = LoadBoardOrDie(e.board);
    EXPECT_TRUE(b.is_zynq());
    EXPECT_EQ(b.control_port, e.control_port);
    EXPECT_EQ(b.dma_port, e.dma_port);
    EXPECT_EQ(b.coherence, "noncoherent");
    EXPECT_FALSE(b.coherent());
    EXPECT_EQ(b.irq, e.irq);
    EXPECT_EQ(b.dma_region_bytes, e.dma_region_bytes);
    EXPECT_EQ(b.vivado_board_part, e.board_part);
    EXPECT_TRUE(b.kernel_name.empty());
  }
  Board alveo = LoadBoardOrDie("alveo-u250");
  EXPECT_EQ(alveo.dma_port, "DDR[0]");
  EXPECT_EQ(alveo.coherence, "noncoherent");
  EXPECT_EQ(alveo.kernel_name, "loom");
  EXPECT_EQ(alveo.vitis_platform, "xilinx_u250_gen3x16_xdma_4_1_202210_1");
  EXPECT_EQ(alveo.irq, 0u);
  EXPECT_TRUE(alveo.control_port.empty());
  Board sim = LoadBoardOrDie("sim");
  EXPECT_TRUE(sim.dma_port.empty());
  EXPECT_TRUE(sim.coherence.empty());
  EXPECT_EQ(sim.dma_region_bytes, 0u);
}

// The coherent ports are accepted with "coherent", and only with it.
TEST(ConfigBoardTest, CoherentPorts) {
  const char kBoard[] = "boards/coherent.json";
  Board b;
  std::string zcu = ReadSourceFile("boards/zcu104.json");
  zcu = Edit(Edit(zcu, "\"HP0\"", "\"HPC1\""), "\"noncoherent\"", "\"coherent\"");
  Status s = ParseBoard(zcu, kBoard, &b);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(b.dma_port, "HPC1");
  EXPECT_TRUE(b.coherent());

  std::string pynq = ReadSourceFile("boards/pynq-z1.json");
  pynq = Edit(Edit(pynq, "\"HP0\"", "\"ACP\""), "\"noncoherent\"", "\"coherent\"");
  s = ParseBoard(pynq, kBoard, &b);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(b.coherent());

  // The second bank of PL interrupts and the last register page of a port's window.
  std::string edited =
      Edit(Edit(ReadSourceFile("boards/ultra96-v2.json"), "\"irq\": 89", "\"irq\": 111"),
           "\"0xA0000000\"", "\"0xAFFFF000\"");
  s = ParseBoard(edited, kBoard, &b);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(b.irq, 111u);
  s = ParseBoard(Edit(edited, "\"0xAFFFF000\"", "\"0xB0000000\""), kBoard, &b);
  EXPECT_THAT(s.message(), HasSubstr("field 'register_base' is 0xB0000000"));
}

// Fields of one family are refused on another, and each family's own are required.
TEST(ConfigBoardTest, FamilyFieldsNameTheFileAndField) {
  const std::string sim = ReadSourceFile("boards/sim.json");
  const std::string alveo = ReadSourceFile("boards/alveo-u250.json");
  const char kBoard[] = "boards/bad.json";
  const struct {
    const char* what;
    const std::string& base;
    const char* from;
    const char* to;
    const char* expect;
  } cases[] = {
      {"irq on sim", sim, "\"driver\": \"fsim\",", "\"driver\": \"fsim\", \"irq\": 29,",
       "field 'irq' does not apply to family sim (only to zynq7, zynqmp)"},
      {"dma port on sim", sim, "\"driver\": \"fsim\",",
       "\"driver\": \"fsim\", \"dma_port\": \"HP0\",",
       "field 'dma_port' does not apply to family sim (only to zynq7, zynqmp, alveo)"},
      {"control port on alveo", alveo, "\"kernel_name\"",
       "\"control_port\": \"GP0\", \"kernel_name\"",
       "field 'control_port' does not apply to family alveo (only to zynq7, zynqmp)"},
      {"missing kernel", alveo, "\"kernel_name\": \"loom\",", "",
       "missing field 'kernel_name' (family alveo needs it)"},
      {"kernel name", alveo, "\"kernel_name\": \"loom\"", "\"kernel_name\": \"9loom\"",
       "field 'kernel_name' is \"9loom\", must be an identifier"},
      {"bank", alveo, "\"DDR[0]\"", "\"DDR0\"",
       "field 'dma_port' is \"DDR0\", must name the memory bank, e.g. \"DDR[0]\""},
      {"coherent alveo", alveo, "\"noncoherent\"", "\"coherent\"",
       "field 'coherence' is \"coherent\", must be \"noncoherent\" for an Alveo card"},
      {"platform", alveo, "\"xilinx_u250_gen3x16_xdma_4_1_202210_1\"", "\"u250 platform\"",
       "field 'vitis_platform' is \"u250 platform\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Board out;
    Status s = ParseBoard(Edit(c.base, c.from, c.to), kBoard, &out);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(kBoard));
    EXPECT_THAT(s.message(), HasSubstr(c.expect));
  }
}

TEST(ConfigBoardTest, PlInterruptLines) {
  const struct {
    const char* family;
    uint32_t irq;
    uint32_t line;
  } good[] = {{"zynq7", 29, 0},  {"zynq7", 36, 7},  {"zynq7", 52, 8},   {"zynq7", 59, 15},
              {"zynqmp", 89, 0}, {"zynqmp", 96, 7}, {"zynqmp", 104, 8}, {"zynqmp", 111, 15}};
  for (const auto& g : good) {
    SCOPED_TRACE(std::string(g.family) + " " + std::to_string(g.irq));
    uint32_t line = 99;
    ASSERT_TRUE(PlInterruptLine(g.family, g.irq, &line).ok());
    EXPECT_EQ(line, g.line);
  }
  uint32_t line = 0;
  for (uint32_t irq : {28u, 37u, 51u, 60u}) EXPECT_FALSE(PlInterruptLine("zynq7", irq, &line).ok());
  for (uint32_t irq : {88u, 97u, 103u, 112u}) {
    EXPECT_FALSE(PlInterruptLine("zynqmp", irq, &line).ok());
  }
  Status s = PlInterruptLine("alveo", 89, &line);
  EXPECT_THAT(s.message(),
              HasSubstr("GIC SPI 89 is not a PL-to-PS interrupt line of family alveo"));
}

TEST(ConfigBoardTest, UnknownBoardAndUnknownConfig) {
  Board b;
  Status s = LoadBoard("zedboard", &b);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("available: alveo-u250"));
  EXPECT_THAT(s.message(), HasSubstr("pynq-z1, sim, ultra96-v2, zcu104"));

  b = LoadBoardOrDie("sim");
  b.config = "4x4x4";
  HwConfig c;
  Status cs = LoadBoardConfig(b, &c);
  EXPECT_EQ(cs.code(), StatusCode::kNotFound);
  EXPECT_THAT(cs.message(), HasSubstr("board sim: no hardware config named '4x4x4'"));
}

}  // namespace
}  // namespace loom
