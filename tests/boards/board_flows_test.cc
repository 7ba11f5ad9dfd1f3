// The board flows of loom-hwconfig (vivado, xo, overlay), checked with the tools that read their
// output, as far as they run here without Vivado, Vitis or a board:
//   - the Vivado and Vitis packaging Tcl runs under tclsh against stubs of the Vivado commands
//     (vivado_stubs.tcl), and the calls it makes carry the board's part, ports, address, clock;
//   - the kernel wrapper lints clean with Verilator together with the RTL;
//   - kernel.xml validates against kernel_xml.xsd and its offsets are the register table's;
//   - the overlay compiles with dtc, and the compiled tree has the board's reg, interrupt and size.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "vta_hw/gen/alveo_xo.h"
#include "vta_hw/gen/dt_overlay.h"
#include "vta_hw/gen/flow_files.h"
#include "vta_hw/gen/register_map.h"

namespace loom::hwgen {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kSource = LOOM_SOURCE_DIR;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

fs::path FreshDir(const std::string& name) {
  fs::path dir =
      fs::path(::testing::TempDir()) / ("loom_board_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

Result Shell(const std::string& command) {
  Result r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), pipe)) > 0;) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

Result Hwconfig(const std::string& args) { return Shell(Quote(LOOM_HWCONFIG) + " " + args); }

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Runs a generated script under tclsh with the Vivado stubs; returns the log of calls.
std::vector<std::string> RunWithStubs(const fs::path& script, const std::string& board_parts,
                                      std::string* output = nullptr) {
  const fs::path dir = script.parent_path();
  const fs::path log = dir / "calls.log";
  fs::remove(log);
  const fs::path driver = dir / "stub_driver.tcl";
  WriteText(driver, "set loom_stub_log {" + log.string() + "}\n" + "set loom_stub_board_parts {" +
                        board_parts + "}\n" + "source {" + kSource +
                        "/tests/boards/vivado_stubs.tcl}\n" + "source {" + script.string() + "}\n");
  Result r = Shell(Quote(LOOM_TCLSH) + " " + Quote(driver.string()));
  EXPECT_EQ(r.exit_code, 0) << script << " under tclsh:\n" << r.output;
  if (output != nullptr) *output = r.output;
  return Lines(ReadText(log));
}

size_t IndexOf(const std::vector<std::string>& calls, const std::string& line) {
  for (size_t i = 0; i < calls.size(); ++i) {
    if (calls[i] == line) return i;
  }
  ADD_FAILURE() << "no call\n  " << line;
  return calls.size();
}

const std::string* StartingWith(const std::vector<std::string>& calls, const std::string& prefix) {
  for (const auto& c : calls) {
    if (c.compare(0, prefix.size(), prefix) == 0) return &c;
  }
  ADD_FAILURE() << "no call starting with\n  " << prefix;
  return nullptr;
}

// The key/value pairs of the one "set_property -dict {...} ps" call: the PS configuration.
std::map<std::string, std::string> PsProperties(const std::vector<std::string>& calls) {
  std::map<std::string, std::string> props;
  const std::string* call = StartingWith(calls, "set_property -dict {CONFIG.P");
  if (call == nullptr) return props;
  EXPECT_EQ(call->substr(call->size() - 3), " ps");
  const size_t open = call->find('{');
  const size_t close = call->find('}');
  std::istringstream words(call->substr(open + 1, close - open - 1));
  for (std::string key, value; words >> key >> value;) props[key] = value;
  return props;
}

// The files of "add_files -norecurse {a b c}" in order.
std::vector<std::string> AddedFiles(const std::vector<std::string>& calls) {
  std::vector<std::string> files;
  const std::string* call = StartingWith(calls, "add_files -norecurse {");
  if (call == nullptr) return files;
  std::istringstream words(call->substr(22, call->size() - 23));
  for (std::string f; words >> f;) files.push_back(f);
  return files;
}

// Lints a generated wrapper with the RTL it instantiates, in the scripts' compile order.
void ExpectWrapperLints(const std::vector<std::string>& files, const std::string& top) {
  std::string command = Quote(LOOM_VERILATOR) + " --lint-only -Wall --top-module " + top + " " +
                        Quote(kSource + "/vta_hw/lint/verilator.vlt");
  for (const auto& f : files) command += " " + Quote(f);
  Result r = Shell(command);
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
}

// Writes a variant of a shipped board to `dir`/<name>.json with text edits applied.
std::string BoardVariant(const fs::path& dir, const std::string& base, const std::string& name,
                         const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = ReadText(kSource + "/boards/" + base + ".json");
  for (const auto& [from, to] : edits) {
    const size_t pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos) text.replace(pos, from.size(), to);
  }
  const fs::path path = dir / (name + ".json");
  WriteText(path, text);
  return path.string();
}

struct VivadoCase {
  std::string board;  // shipped name or a .json path
  std::string name;   // the board's name field
  std::string part;
  std::string board_part;
  std::string ps_ip;
  std::string control_intf, control_clock, dma_intf, dma_clock, clock_pin, irq_pin;
  std::string reg_base;
  std::map<std::string, std::string> ps_properties;
};

// Generates the project, runs its Tcl against the stubs and checks the block design's calls.
std::vector<std::string> CheckVivadoProject(const VivadoCase& c, const fs::path& out) {
  Result gen = Hwconfig("vivado " + Quote(c.board) + " -o " + Quote(out.string()));
  EXPECT_EQ(gen.exit_code, 0) << gen.output;
  EXPECT_THAT(gen.output, HasSubstr("build_bitstream.tcl build.sh"));
  EXPECT_TRUE(fs::status(out / "build.sh").permissions() != fs::perms::none &&
              (fs::status(out / "build.sh").permissions() & fs::perms::owner_exec) !=
                  fs::perms::none);
  Result syntax = Shell("sh -n " + Quote((out / "build.sh").string()));
  EXPECT_EQ(syntax.exit_code, 0) << syntax.output;

  const std::vector<std::string> calls =
      RunWithStubs(out / "build_bitstream.tcl", c.board_part + " some.vendor:other:part0:1.0");
  const std::string dir = out.string();
  const size_t create = IndexOf(
      calls, "create_project -force loom_" + c.name + " " + dir + "/vivado -part " + c.part);
  IndexOf(calls, "set_property board_part " + c.board_part + " project_1");
  IndexOf(calls, "create_bd_cell -type ip -vlnv xilinx.com:ip:" + c.ps_ip + ":1.10 ps");
  IndexOf(calls, "create_bd_cell -type module -reference loom_kernel loom_0");
  const std::map<std::string, std::string> props = PsProperties(calls);
  for (const auto& [key, value] : c.ps_properties) {
    auto it = props.find("CONFIG." + key);
    if (it == props.end()) {
      ADD_FAILURE() << "no CONFIG." << key;
      continue;
    }
    EXPECT_EQ(it->second, value) << key;
  }
  IndexOf(calls, "connect_bd_intf_net ps/" + c.control_intf + " ctrl_ic/S00_AXI");
  IndexOf(calls, "connect_bd_intf_net ctrl_ic/M00_AXI loom_0/s_axi_control");
  IndexOf(calls, "connect_bd_intf_net loom_0/m_axi_gmem mem_ic/S00_AXI");
  IndexOf(calls, "connect_bd_intf_net mem_ic/M00_AXI ps/" + c.dma_intf);
  IndexOf(calls, "connect_bd_net ps/" + c.clock_pin +
                     " loom_0/ap_clk rst_0/slowest_sync_clk ctrl_ic/aclk mem_ic/aclk ps/" +
                     c.control_clock + " ps/" + c.dma_clock);
  const size_t assign = IndexOf(calls, "assign_bd_address -offset " + c.reg_base +
                                           " -range 0x1000 -target_address_space ps/Data "
                                           "loom_0/s_axi_control/* -force");
  const size_t validate = IndexOf(calls, "validate_bd_design");
  const size_t bitstream =
      IndexOf(calls, "write_bitstream -force -bin_file " + dir + "/loom-" + c.name + ".bit");
  IndexOf(calls,
          "write_hw_platform -fixed -include_bit -force " + dir + "/loom-" + c.name + ".xsa");
  EXPECT_LT(create, assign);
  EXPECT_LT(assign, validate);
  EXPECT_LT(validate, bitstream);

  // Every source the project adds exists, the package first and the wrapper last.
  const std::vector<std::string> files = AddedFiles(calls);
  if (files.size() < 3) {
    ADD_FAILURE() << "add_files lists " << files.size() << " files";
    return calls;
  }
  EXPECT_EQ(files.front(), dir + "/rtl/loom_hw_pkg.sv");
  EXPECT_EQ(files.back(), dir + "/rtl/loom_kernel.v");
  for (const auto& f : files) EXPECT_TRUE(fs::is_regular_file(f)) << f;
  return calls;
}

TEST(FlowsTest, VivadoProjectsOfTheShippedZynqBoards) {
  const fs::path root = FreshDir("vivado");
  const std::vector<VivadoCase> cases = {
      {"pynq-z1",
       "pynq-z1",
       "xc7z020clg400-1",
       "www.digilentinc.com:pynq-z1:part0:1.0",
       "processing_system7",
       "M_AXI_GP0",
       "M_AXI_GP0_ACLK",
       "S_AXI_HP0",
       "S_AXI_HP0_ACLK",
       "FCLK_CLK0",
       "IRQ_F2P",
       "0x43C00000",
       {{"PCW_FPGA0_PERIPHERAL_FREQMHZ", "100"},
        {"PCW_USE_M_AXI_GP0", "1"},
        {"PCW_USE_M_AXI_GP1", "0"},
        {"PCW_USE_S_AXI_HP0", "1"},
        {"PCW_S_AXI_HP0_DATA_WIDTH", "64"},
        {"PCW_USE_FABRIC_INTERRUPT", "1"},
        {"PCW_IRQ_F2P_INTR", "1"}}},
      {"ultra96-v2",
       "ultra96-v2",
       "xczu3eg-sbva484-1-i",
       "avnet.com:ultra96v2:part0:1.2",
       "zynq_ultra_ps_e",
       "M_AXI_HPM0_FPD",
       "maxihpm0_fpd_aclk",
       "S_AXI_HP0_FPD",
       "saxihp0_fpd_aclk",
       "pl_clk0",
       "pl_ps_irq0",
       "0xA0000000",
       {{"PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ", "200"},
        {"PSU__FPGA_PL0_ENABLE", "1"},
        {"PSU__USE__M_AXI_GP0", "1"},
        {"PSU__USE__M_AXI_GP1", "0"},
        {"PSU__USE__M_AXI_GP2", "0"},
        {"PSU__USE__S_AXI_GP2", "1"},
        {"PSU__SAXIGP2__DATA_WIDTH", "128"},
        {"PSU__USE__IRQ0", "1"}}},
      {"zcu104",
       "zcu104",
       "xczu7ev-ffvc1156-2-e",
       "xilinx.com:zcu104:part0:1.1",
       "zynq_ultra_ps_e",
       "M_AXI_HPM0_FPD",
       "maxihpm0_fpd_aclk",
       "S_AXI_HP0_FPD",
       "saxihp0_fpd_aclk",
       "pl_clk0",
       "pl_ps_irq0",
       "0xA0000000",
       {{"PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ", "200"}, {"PSU__USE__S_AXI_GP2", "1"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.board);
    const fs::path out = root / c.name;
    const std::vector<std::string> calls = CheckVivadoProject(c, out);
    // The interrupt goes straight to line 0; no concat needed.
    IndexOf(calls, "connect_bd_net loom_0/interrupt ps/" + c.irq_pin);
    for (const auto& call : calls) EXPECT_THAT(call, Not(HasSubstr("irq_concat")));
    const std::string wrapper = ReadText(out / "rtl/loom_kernel.v");
    EXPECT_THAT(wrapper, HasSubstr(".m_axi_arcache_o(m_axi_gmem_arcache)"));
    EXPECT_THAT(wrapper, Not(HasSubstr("4'b1111")));
    ExpectWrapperLints(AddedFiles(calls), "loom_kernel");
  }
}

// Without the board files the script still runs, says so, and leaves the PS preset off.
TEST(FlowsTest, VivadoWithoutBoardFiles) {
  const fs::path out = FreshDir("no_board_files");
  ASSERT_EQ(Hwconfig("vivado pynq-z1 -o " + Quote(out.string())).exit_code, 0);
  std::string output;
  const std::vector<std::string> calls =
      RunWithStubs(out / "build_bitstream.tcl", "some.vendor:other:part0:1.0", &output);
  EXPECT_THAT(output, HasSubstr("WARNING: loom: board files for "
                                "www.digilentinc.com:pynq-z1:part0:1.0 are not installed"));
  for (const auto& call : calls) EXPECT_THAT(call, Not(HasSubstr("board_part")));
  IndexOf(calls,
          "apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 -config "
          "{make_external {FIXED_IO, DDR} apply_board_preset 0} ps");
}

// A coherent HPC port, the second PL interrupt bank and a high line: the port, the concat in
// front of pl_ps_irq1, the wrapper's cacheable non-secure transactions, dma-coherent.
TEST(FlowsTest, CoherentZynqMpBoardOnTheSecondInterruptBank) {
  const fs::path root = FreshDir("hpc");
  const std::string board = BoardVariant(root, "zcu104", "zcu104-hpc",
                                         {{"\"name\": \"zcu104\"", "\"name\": \"zcu104-hpc\""},
                                          {"\"HP0\"", "\"HPC1\""},
                                          {"\"noncoherent\"", "\"coherent\""},
                                          {"\"irq\": 89", "\"irq\": 105"}});
  VivadoCase c{
      board,
      "zcu104-hpc",
      "xczu7ev-ffvc1156-2-e",
      "xilinx.com:zcu104:part0:1.1",
      "zynq_ultra_ps_e",
      "M_AXI_HPM0_FPD",
      "maxihpm0_fpd_aclk",
      "S_AXI_HPC1_FPD",
      "saxihpc1_fpd_aclk",
      "pl_clk0",
      "pl_ps_irq1",
      "0xA0000000",
      {{"PSU__USE__S_AXI_GP1", "1"}, {"PSU__SAXIGP1__DATA_WIDTH", "128"}, {"PSU__USE__IRQ1", "1"}}};
  const fs::path out = root / "project";
  const std::vector<std::string> calls = CheckVivadoProject(c, out);
  const std::map<std::string, std::string> props = PsProperties(calls);
  EXPECT_EQ(props.count("CONFIG.PSU__USE__S_AXI_GP2"), 0u);
  EXPECT_EQ(props.count("CONFIG.PSU__USE__IRQ0"), 0u);
  // Line 9 of 16 is bit 1 of pl_ps_irq1.
  IndexOf(calls, "set_property CONFIG.NUM_PORTS 2 irq_concat");
  IndexOf(calls, "connect_bd_net irq_low/dout irq_concat/In0");
  IndexOf(calls, "connect_bd_net loom_0/interrupt irq_concat/In1");
  IndexOf(calls, "connect_bd_net irq_concat/dout ps/pl_ps_irq1");
  const std::string wrapper = ReadText(out / "rtl/loom_kernel.v");
  EXPECT_THAT(wrapper, HasSubstr("assign m_axi_gmem_arcache = 4'b1111;"));
  EXPECT_THAT(wrapper, HasSubstr("assign m_axi_gmem_awprot = 3'b010;"));
  ExpectWrapperLints(AddedFiles(calls), "loom_kernel");

  const fs::path dtso = root / "hpc.dtso";
  ASSERT_EQ(Hwconfig("overlay " + Quote(board) + " -o " + Quote(dtso.string())).exit_code, 0);
  const fs::path dtbo = root / "hpc.dtbo";
  Result compile = Shell(Quote(LOOM_DTC) + " -@ -I dts -O dtb -o " + Quote(dtbo.string()) + " " +
                         Quote(dtso.string()));
  ASSERT_EQ(compile.exit_code, 0) << compile.output;
  const std::string tree = Shell(Quote(LOOM_DTC) + " -I dtb -O dts " + Quote(dtbo.string())).output;
  EXPECT_THAT(tree, HasSubstr("interrupts = <0x00 0x69 0x04>;"));
  EXPECT_THAT(tree, HasSubstr("dma-coherent;"));
}

// The Zynq-7000 ACP (coherent, secure), the registers on GP1 and a line of IRQ_F2P[15:8].
TEST(FlowsTest, CoherentZynq7BoardOnGp1) {
  const fs::path root = FreshDir("acp");
  const std::string board = BoardVariant(root, "pynq-z1", "pynq-acp",
                                         {{"\"name\": \"pynq-z1\"", "\"name\": \"pynq-acp\""},
                                          {"\"GP0\"", "\"GP1\""},
                                          {"\"0x43C00000\"", "\"0x80001000\""},
                                          {"\"HP0\"", "\"ACP\""},
                                          {"\"noncoherent\"", "\"coherent\""},
                                          {"\"irq\": 29", "\"irq\": 53"}});
  VivadoCase c{board,
               "pynq-acp",
               "xc7z020clg400-1",
               "www.digilentinc.com:pynq-z1:part0:1.0",
               "processing_system7",
               "M_AXI_GP1",
               "M_AXI_GP1_ACLK",
               "S_AXI_ACP",
               "S_AXI_ACP_ACLK",
               "FCLK_CLK0",
               "IRQ_F2P",
               "0x80001000",
               {{"PCW_USE_M_AXI_GP0", "0"},
                {"PCW_USE_M_AXI_GP1", "1"},
                {"PCW_USE_S_AXI_ACP", "1"},
                {"PCW_USE_DEFAULT_ACP_USER_VAL", "1"}}};
  const fs::path out = root / "project";
  const std::vector<std::string> calls = CheckVivadoProject(c, out);
  EXPECT_EQ(PsProperties(calls).count("CONFIG.PCW_USE_S_AXI_HP0"), 0u);
  // SPI 53 is IRQ_F2P[9]: ten concat inputs, the accelerator on the last.
  IndexOf(calls, "set_property CONFIG.NUM_PORTS 10 irq_concat");
  IndexOf(calls, "connect_bd_net loom_0/interrupt irq_concat/In9");
  IndexOf(calls, "connect_bd_net irq_concat/dout ps/IRQ_F2P");
  const std::string* low = StartingWith(calls, "connect_bd_net irq_low/dout irq_concat/In0 ");
  ASSERT_NE(low, nullptr);
  EXPECT_THAT(*low, HasSubstr(" irq_concat/In8"));
  EXPECT_THAT(*low, Not(HasSubstr("In9")));
  const std::string wrapper = ReadText(out / "rtl/loom_kernel.v");
  EXPECT_THAT(wrapper, HasSubstr("assign m_axi_gmem_awcache = 4'b1111;"));
  EXPECT_THAT(wrapper, HasSubstr("assign m_axi_gmem_arprot = 3'b000;"));
}

TEST(FlowsTest, AlveoKernel) {
  const fs::path out = FreshDir("xo");
  Board board;
  ASSERT_TRUE(LoadBoard("alveo-u250", &board).ok());
  Result gen = Hwconfig("xo alveo-u250 -o " + Quote(out.string()));
  ASSERT_EQ(gen.exit_code, 0) << gen.output;

  // kernel.xml: well formed, valid against the schema, and the schema rejects a broken one.
  const fs::path xml = out / "kernel.xml";
  const std::string schema = kSource + "/tests/boards/kernel_xml.xsd";
  Result valid =
      Shell(Quote(LOOM_XMLLINT) + " --noout --schema " + Quote(schema) + " " + Quote(xml.string()));
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
  std::string broken = ReadText(xml);
  broken.replace(broken.find("port=\"m_axi_gmem\" size"), 17, "port=\"m_axi_none\"");
  WriteText(out / "broken.xml", broken);
  Result invalid = Shell(Quote(LOOM_XMLLINT) + " --noout --schema " + Quote(schema) + " " +
                         Quote((out / "broken.xml").string()));
  EXPECT_NE(invalid.exit_code, 0);
  EXPECT_THAT(invalid.output, HasSubstr("argPort"));

  // The arguments, read back by xmllint, are the table's kernel arguments at its offsets.
  auto xpath = [&](const std::string& expr) {
    Result r = Shell(Quote(LOOM_XMLLINT) + " --xpath " + Quote(expr) + " " + Quote(xml.string()));
    EXPECT_EQ(r.exit_code, 0) << expr << "\n" << r.output;
    while (!r.output.empty() && r.output.back() == '\n') r.output.pop_back();
    return r.output;
  };
  std::vector<std::string> expected_args;
  for (const auto& r : RegisterMap()) {
    if (r.arg == KernelArg::kNone) continue;
    char offset[16];
    std::snprintf(offset, sizeof(offset), "0x%x", r.offset);
    expected_args.push_back(r.arg_name);
    EXPECT_EQ(xpath("string(//arg[@name='" + std::string(r.arg_name) + "']/@offset)"), offset);
    EXPECT_EQ(xpath("string(//arg[@name='" + std::string(r.arg_name) + "']/@port)"),
              r.arg == KernelArg::kPointer ? "m_axi_gmem" : "s_axi_control");
  }
  EXPECT_EQ(xpath("count(//arg)"), std::to_string(expected_args.size()));
  EXPECT_EQ(xpath("string(//kernel/@name)"), "loom");
  EXPECT_EQ(xpath("string(//kernel/@hwControlProtocol)"), "user_managed");
  EXPECT_EQ(xpath("string(//kernel/@vlnv)"), KernelVlnv(board));
  EXPECT_EQ(xpath("string(//port[@name='m_axi_gmem']/@dataWidth)"), "128");  // 1x32x32
  EXPECT_EQ(xpath("string(//port[@name='s_axi_control']/@range)"), "0x1000");

  // The packaging script: the IP is the one kernel.xml names, and its memory map is the table.
  const std::vector<std::string> calls = RunWithStubs(out / "package_kernel.tcl", "");
  const std::string dir = out.string();
  IndexOf(calls, "create_project -force loom_pack " + dir + "/package -part xcu250-figd2104-2L-e");
  IndexOf(calls, "set_property top loom sources_1");
  IndexOf(calls, "ipx::package_project -root_dir " + dir +
                     "/ip -vendor loom.dev -library kernel -taxonomy /KernelIP -import_files "
                     "-set_current false");
  EXPECT_EQ(KernelVlnv(board), "loom.dev:kernel:loom:1.0");
  IndexOf(calls, "ipx::associate_bus_interfaces -busif m_axi_gmem -clock ap_clk core_1");
  IndexOf(calls, "set_property value 250000000 bus_parameter_FREQ_HZ");
  IndexOf(calls, "set_property range 0x1000 block_reg0");
  const auto& map = RegisterMap();
  size_t registers = 0;
  for (size_t i = 0; i < map.size(); ++i) {
    if (i > 0 && map[i - 1].arg == KernelArg::kPointer) continue;
    const Register& r = map[i];
    const std::string name = r.arg == KernelArg::kNone ? r.name : r.arg_name;
    char offset[16];
    std::snprintf(offset, sizeof(offset), "0x%x", r.offset);
    SCOPED_TRACE(name);
    IndexOf(calls, "ipx::add_register -quiet " + name + " block_reg0");
    IndexOf(calls, "set_property address_offset " + std::string(offset) + " register_" + name);
    IndexOf(calls, "set_property size " + std::string(r.arg == KernelArg::kPointer ? "64" : "32") +
                       " register_" + name);
    ++registers;
  }
  size_t added = 0;
  for (const auto& call : calls) added += call.rfind("ipx::add_register ", 0) == 0;
  EXPECT_EQ(added, registers);
  IndexOf(calls, "set_property value m_axi_gmem register_parameter_ASSOCIATED_BUSIF");
  IndexOf(calls, "package_xo -force -xo_path " + dir + "/loom.xo -kernel_name loom -ip_directory " +
                     dir + "/ip -kernel_xml " + dir + "/kernel.xml");
  const std::vector<std::string> files = AddedFiles(calls);
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files.back(), dir + "/rtl/loom.v");
  for (const auto& f : files) EXPECT_TRUE(fs::is_regular_file(f)) << f;
  ExpectWrapperLints(files, "loom");

  // The v++ link configuration: platform, one compute unit on the board's bank, its clock.
  std::vector<std::string> cfg;
  for (const auto& line : Lines(ReadText(out / "link.cfg"))) {
    if (!line.empty() && line[0] != '#') cfg.push_back(line);
  }
  EXPECT_THAT(cfg, ElementsAre("platform=xilinx_u250_gen3x16_xdma_4_1_202210_1", "[connectivity]",
                               "nk=loom:1:loom_1", "sp=loom_1.m_axi_gmem:DDR[0]", "[clock]",
                               "freqHz=250000000:loom_1"));
  Result syntax = Shell("sh -n " + Quote((out / "build.sh").string()));
  EXPECT_EQ(syntax.exit_code, 0) << syntax.output;
  EXPECT_THAT(ReadText(out / "build.sh"),
              HasSubstr("v++ --link --target hw --config link.cfg --output "
                        "loom-alveo-u250.xclbin loom.xo"));
}

TEST(FlowsTest, OverlaysOfTheShippedZynqBoards) {
  const fs::path root = FreshDir("overlay");
  for (const char* name : {"pynq-z1", "ultra96-v2", "zcu104"}) {
    SCOPED_TRACE(name);
    Board board;
    ASSERT_TRUE(LoadBoard(name, &board).ok());
    const fs::path dtso = root / (std::string(name) + ".dtso");
    const fs::path dtbo = root / (std::string(name) + ".dtbo");
    Result gen = Hwconfig(std::string("overlay ") + name + " -o " + Quote(dtso.string()));
    ASSERT_EQ(gen.exit_code, 0) << gen.output;
    // Compiles cleanly: no warnings either.
    Result compile = Shell(Quote(LOOM_DTC) + " -@ -I dts -O dtb -o " + Quote(dtbo.string()) + " " +
                           Quote(dtso.string()));
    ASSERT_EQ(compile.exit_code, 0) << compile.output;
    EXPECT_EQ(compile.output, "");

    const std::string tree =
        Shell(Quote(LOOM_DTC) + " -q -I dtb -O dts " + Quote(dtbo.string())).output;
    char buf[160];
    const bool mp = board.family == "zynqmp";
    if (mp) {
      std::snprintf(buf, sizeof(buf), "reg = <0x00 0x%llx 0x00 0x1000>;",
                    static_cast<unsigned long long>(board.register_base));
    } else {
      std::snprintf(buf, sizeof(buf), "reg = <0x%llx 0x1000>;",
                    static_cast<unsigned long long>(board.register_base));
    }
    EXPECT_THAT(tree, HasSubstr(buf));
    std::snprintf(buf, sizeof(buf), "interrupts = <0x00 0x%02x 0x04>;", board.irq);
    EXPECT_THAT(tree, HasSubstr(buf));
    std::snprintf(buf, sizeof(buf), "size = <0x%llx>;",
                  static_cast<unsigned long long>(board.dma_region_bytes));
    EXPECT_THAT(tree, HasSubstr(buf));
    std::snprintf(buf, sizeof(buf), "assigned-clock-rates = <0x%x>;",
                  static_cast<unsigned>(board.clock_mhz * 1e6));
    EXPECT_THAT(tree, HasSubstr(buf));
    EXPECT_THAT(tree, HasSubstr("firmware-name = \"loom-" + board.name + ".bin\";"));
    EXPECT_THAT(tree, HasSubstr("compatible = \"generic-uio\";"));
    EXPECT_THAT(tree, HasSubstr("compatible = \"ikwzm,u-dma-buf\";"));
    EXPECT_THAT(tree, HasSubstr(std::string("device-name = \"") + kDmaBufferName + "\";"));
    EXPECT_THAT(tree, Not(HasSubstr("dma-coherent")));
    // The references the kernel's tree resolves when the overlay is applied.
    EXPECT_THAT(tree, HasSubstr("fpga_full = \"/fragment@0:target:0\";"));
    EXPECT_THAT(tree, HasSubstr(mp ? "gic = " : "intc = "));
    EXPECT_THAT(tree, HasSubstr(mp ? "zynqmp_clk = " : "clkc = "));

    Result dump = Shell(Quote(LOOM_FDTDUMP) + " " + Quote(dtbo.string()));
    EXPECT_EQ(dump.exit_code, 0) << dump.output;
    std::snprintf(buf, sizeof(buf), "%s@%llx {", kUioName,
                  static_cast<unsigned long long>(board.register_base));
    EXPECT_THAT(dump.output, HasSubstr(buf));
  }
}

TEST(FlowsTest, BoardsOfTheWrongKindAreRefused) {
  const fs::path out = FreshDir("refused");
  const struct {
    std::string args;
    std::string expect;
  } cases[] = {
      {"overlay alveo-u250",
       "board alveo-u250 is family alveo; device-tree overlays are for Zynq "
       "boards (zynq7, zynqmp)"},
      {"overlay sim", "board sim is family sim"},
      {"vivado sim -o " + Quote((out / "a").string()), "board sim is family sim"},
      {"vivado alveo-u250 -o " + Quote((out / "b").string()),
       "An Alveo card gets an RTL kernel: loom-hwconfig xo alveo-u250"},
      {"xo pynq-z1 -o " + Quote((out / "c").string()),
       "A Zynq board gets a block design: loom-hwconfig vivado pynq-z1"},
      {"vivado zedboard -o " + Quote((out / "d").string()), "no board named 'zedboard'"},
      {"vivado pynq-z1", "--output is required"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    Result r = Hwconfig(c.args);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_THAT(r.output, HasSubstr(c.expect));
  }
  // Nothing was written for the refused boards.
  for (const char* d : {"a", "b", "c", "d"}) EXPECT_FALSE(fs::exists(out / d)) << d;

  WriteText(out / "file", "x");
  Result r = Hwconfig("vivado pynq-z1 -o " + Quote((out / "file").string()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("file: exists and is not a directory"));
}

TEST(FlowsTest, BoardCommandPrintsTheHardwareFields) {
  Result zynq = Hwconfig("board zcu104");
  EXPECT_EQ(zynq.exit_code, 0) << zynq.output;
  EXPECT_THAT(zynq.output,
              HasSubstr("registers on HPM0_FPD, DRAM over HP0 (noncoherent), irq GIC SPI 89"));
  EXPECT_THAT(zynq.output, HasSubstr("DMA region 256 MiB; board part xilinx.com:zcu104:part0:1.1"));
  Result alveo = Hwconfig("board alveo-u250");
  EXPECT_THAT(alveo.output, HasSubstr("kernel    loom on DDR[0] (noncoherent), platform "
                                      "xilinx_u250_gen3x16_xdma_4_1_202210_1"));
}

TEST(FlowsTest, FileHelpersRefuseBadPaths) {
  const fs::path out = FreshDir("helpers");
  Status s = WriteGeneratedFiles(out.string(), {{"../escape.txt", "x"}});
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("'../escape.txt' leaves"));
  EXPECT_FALSE(fs::exists(out.parent_path() / "escape.txt"));
  EXPECT_FALSE(WriteGeneratedFiles(out.string(), {{"/tmp/abs.txt", "x"}}).ok());

  std::vector<RtlSource> rtl;
  Status missing = ReadRtlSources((out / "nowhere").string(), &rtl);
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("nowhere/sources.cmake"));
  WriteText(out / "sources.cmake", "set(LOOM_RTL_SOURCES\n  ${LOOM_RTL_DIR}/loom_gone.sv\n)\n");
  Status gone = ReadRtlSources(out.string(), &rtl);
  EXPECT_THAT(gone.message(), HasSubstr("loom_gone.sv"));
  WriteText(out / "sources.cmake", "set(LOOM_RTL_SOURCES)\n");
  EXPECT_THAT(ReadRtlSources(out.string(), &rtl).message(), HasSubstr("no RTL sources listed"));

  ASSERT_TRUE(ReadRtlSources(kSource + "/vta_hw/rtl", &rtl).ok());
  ASSERT_FALSE(rtl.empty());
  EXPECT_EQ(rtl.front().name, "loom_pkg.sv");
  EXPECT_EQ(rtl.back().name, "loom_top.sv");

  // Text from a board file ends up in comments: it cannot end them.
  EXPECT_EQ(CommentText("one\nexec rm\r\x7f"), "one exec rm  ");
}

}  // namespace
}  // namespace loom::hwgen
