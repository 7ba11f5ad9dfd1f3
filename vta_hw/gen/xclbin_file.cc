#include "vta_hw/gen/xclbin_file.h"

#include <xrt/xclbin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "vta_hw/gen/alveo_xo.h"
#include "vta_hw/gen/flow_files.h"
#include "vta_hw/gen/register_map.h"

namespace loom::hwgen {
namespace {

// "DDR[N]" -> N; false for anything else.
bool DdrBank(const std::string& port, int* bank) {
  if (port.size() < 6 || port.compare(0, 4, "DDR[") != 0 || port.back() != ']') return false;
  const std::string digits = port.substr(4, port.size() - 5);
  if (digits.empty() || digits.size() > 2) return false;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  *bank = std::atoi(digits.c_str());
  return *bank < 32;
}

// Bytes of a section struct whose last member is a one-element array of `count` entries.
template <typename Section, typename Entry>
std::vector<uint8_t> SectionBytes(int count) {
  return std::vector<uint8_t>(sizeof(Section) + sizeof(Entry) * static_cast<size_t>(count - 1), 0);
}

// The entries of such a struct, past its declared one-element array.
template <typename Entry>
Entry* Entries(std::vector<uint8_t>& bytes, size_t offset) {
  return reinterpret_cast<Entry*>(bytes.data() + offset);
}

void CopyName(const std::string& name, void* dst, size_t capacity) {
  std::memcpy(dst, name.data(), std::min(name.size(), capacity - 1));  // stays NUL-terminated
}

// EMBEDDED_METADATA: the kernel as v++ records it (ports and arguments of kernel.xml, one
// instance). XRT takes the register window's size from the slave port's range.
std::string EmbeddedMetadata(const Board& board, const HwConfig& config) {
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<project name=\"" << board.kernel_name << "\">\n"
    << "  <platform vendor=\"xilinx\" boardid=\"" << board.name << "\" name=\""
    << board.vitis_platform << "\">\n"
    << "    <device name=\"fpga0\" fpgaDevice=\"" << board.fpga_part << "\">\n"
    << "      <core name=\"OCL_REGION_0\" target=\"hw\" type=\"clc_region\">\n"
    << "        <kernel name=\"" << board.kernel_name << "\" language=\"ip_c\" vlnv=\""
    << KernelVlnv(board) << "\" interrupt=\"true\" hwControlProtocol=\"user_managed\">\n"
    << "          <port name=\"s_axi_control\" mode=\"slave\" range=\""
    << HexString(kRegisterWindowBytes) << "\" dataWidth=\"32\" portType=\"addressable\" "
    << "base=\"0x0\"/>\n"
    << "          <port name=\"m_axi_gmem\" mode=\"master\" range=\"0xFFFFFFFFFFFFFFFF\" "
    << "dataWidth=\"" << config.axi_data_bits << "\" portType=\"addressable\" base=\"0x0\"/>\n";
  int id = 0;
  for (const auto& r : RegisterMap()) {
    if (r.arg == KernelArg::kNone) continue;
    const bool pointer = r.arg == KernelArg::kPointer;
    x << "          <arg name=\"" << r.arg_name << "\" addressQualifier=\"" << (pointer ? 1 : 0)
      << "\" id=\"" << id++ << "\" port=\"" << (pointer ? "m_axi_gmem" : "s_axi_control")
      << "\" size=\"" << (pointer ? "0x8" : "0x4") << "\" offset=\"" << HexString(r.offset)
      << "\" hostOffset=\"0x0\" hostSize=\"" << (pointer ? "0x8" : "0x4") << "\" type=\""
      << (pointer ? "void*" : "uint") << "\"/>\n";
  }
  x << "          <instance name=\"" << board.kernel_name << "_1\">\n"
    << "            <addrRemap base=\"" << HexString(board.register_base) << "\" range=\""
    << HexString(kRegisterWindowBytes) << "\" port=\"s_axi_control\"/>\n"
    << "          </instance>\n"
    << "        </kernel>\n"
    << "      </core>\n"
    << "    </device>\n"
    << "  </platform>\n"
    << "</project>\n";
  return x.str();
}

struct Section {
  axlf_section_kind kind;
  const char* name;
  std::vector<uint8_t> bytes;
};

}  // namespace

Status GenerateMetadataXclbin(const Board& board, const HwConfig& config, std::string* out) {
  if (board.family != "alveo") {
    return InvalidArgument("board " + board.name + " is family " + board.family +
                           "; an xclbin is for Alveo boards (XRT)");
  }
  int bank = 0;
  if (!DdrBank(board.dma_port, &bank)) {
    return InvalidArgument("board " + board.name + ": dma_port '" + board.dma_port +
                           "' is not a memory bank DDR[N] with N below 32 (boards/README.md)");
  }
  const std::string cu = board.kernel_name + ":" + board.kernel_name + "_1";
  if (cu.size() >= sizeof(ip_data::m_name)) {
    return InvalidArgument("board " + board.name + ": kernel_name '" + board.kernel_name +
                           "' is too long for an xclbin IP name (63 bytes)");
  }

  std::vector<Section> sections;
  const std::string xml = EmbeddedMetadata(board, config);
  sections.push_back({EMBEDDED_METADATA, "metadata", std::vector<uint8_t>(xml.begin(), xml.end())});

  auto ips = SectionBytes<ip_layout, ip_data>(1);
  auto* ip = reinterpret_cast<ip_layout*>(ips.data());
  ip->m_count = 1;
  ip->m_ip_data[0].m_type = IP_KERNEL;
  // Interrupt enabled (id 0), user-managed control: the host drives CTRL through xrt::ip.
  ip->m_ip_data[0].properties = IP_INT_ENABLE_MASK | (AP_CTRL_NONE << IP_CONTROL_SHIFT);
  ip->m_ip_data[0].m_base_address = board.register_base;
  CopyName(cu, ip->m_ip_data[0].m_name, sizeof(ip->m_ip_data[0].m_name));
  sections.push_back({IP_LAYOUT, "ip_layout", std::move(ips)});

  const int banks = bank + 1;
  auto mems = SectionBytes<mem_topology, mem_data>(banks);
  auto* mem = reinterpret_cast<mem_topology*>(mems.data());
  mem->m_count = banks;
  for (int i = 0; i < banks; ++i) {
    mem_data& m = Entries<mem_data>(mems, offsetof(mem_topology, m_mem_data))[i];
    m.m_type = MEM_DDR4;
    m.m_used = i == bank ? 1 : 0;
    m.m_size = board.dram_bytes / 1024;  // in KiB
    m.m_base_address = board.dram_base + static_cast<uint64_t>(i) * board.dram_bytes;
    CopyName("bank" + std::to_string(i), m.m_tag, sizeof(m.m_tag));
  }
  sections.push_back({MEM_TOPOLOGY, "mem_topology", std::move(mems)});

  // kernel.xml numbers every argument (alveo_xo.cc); the pointers are the ones on m_axi_gmem.
  std::vector<int> pointer_args;
  int id = 0;
  for (const auto& r : RegisterMap()) {
    if (r.arg == KernelArg::kNone) continue;
    if (r.arg == KernelArg::kPointer) pointer_args.push_back(id);
    ++id;
  }
  if (pointer_args.empty()) return Internal("the register map has no pointer argument");
  auto conns = SectionBytes<connectivity, connection>(static_cast<int>(pointer_args.size()));
  auto* conn = reinterpret_cast<connectivity*>(conns.data());
  conn->m_count = static_cast<int32_t>(pointer_args.size());
  for (size_t i = 0; i < pointer_args.size(); ++i) {
    connection& c = Entries<connection>(conns, offsetof(connectivity, m_connection))[i];
    c.arg_index = pointer_args[i];
    c.m_ip_layout_index = 0;
    c.mem_data_index = bank;
  }
  sections.push_back({CONNECTIVITY, "connectivity", std::move(conns)});

  // Header, section table, then each section at an 8-byte boundary.
  const size_t header = sizeof(axlf) + sizeof(axlf_section_header) * (sections.size() - 1);
  std::vector<uint64_t> offsets;
  size_t end = header;
  for (const auto& s : sections) {
    end = (end + 7) & ~size_t{7};
    offsets.push_back(end);
    end += s.bytes.size();
  }
  std::string file(end, '\0');
  auto* top = reinterpret_cast<axlf*>(&file[0]);
  std::memcpy(top->m_magic, "xclbin2", 8);
  top->m_signature_length = -1;
  std::memset(top->reserved, 0xff, sizeof(top->reserved));
  top->m_header.m_length = end;
  top->m_header.m_versionMajor = 2;
  top->m_header.m_versionMinor = 13;
  top->m_header.m_mode = XCLBIN_FLAT;
  CopyName(board.vitis_platform, top->m_header.m_platformVBNV,
           sizeof(top->m_header.m_platformVBNV));
  // The uuid XRT identifies the xclbin by: the config hash and the board name, so the same
  // inputs give the same file and a different board or config a different uuid.
  const std::string id_text = config.HashHex() + board.name;
  for (size_t i = 0; i < id_text.size(); ++i) top->m_header.uuid[i % 16] ^= id_text[i];
  top->m_header.m_numSections = static_cast<uint32_t>(sections.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    axlf_section_header& h = reinterpret_cast<axlf_section_header*>(
        reinterpret_cast<uint8_t*>(top) + offsetof(axlf, m_sections))[i];
    h.m_sectionKind = sections[i].kind;
    CopyName(sections[i].name, h.m_sectionName, sizeof(h.m_sectionName));
    h.m_sectionOffset = offsets[i];
    h.m_sectionSize = sections[i].bytes.size();
    std::memcpy(&file[offsets[i]], sections[i].bytes.data(), sections[i].bytes.size());
  }
  *out = std::move(file);
  return Status::Ok();
}

}  // namespace loom::hwgen
