#include "vta_hw/gen/register_map.h"

#include <cstdio>

namespace loom::hwgen {

const char* RegAccessText(RegAccess access) {
  switch (access) {
    case RegAccess::kReadWrite:
      return "R/W";
    case RegAccess::kReadOnly:
      return "R";
    case RegAccess::kReadWrite1C:
      return "R/W1C";
  }
  return "?";
}

const std::vector<Register>& RegisterMap() {
  constexpr auto RW = RegAccess::kReadWrite;
  constexpr auto RO = RegAccess::kReadOnly;
  constexpr auto W1C = RegAccess::kReadWrite1C;
  constexpr auto kNo = KernelArg::kNone;
  // Only the stream's address and length are kernel arguments: XRT places buffers for arguments,
  // and a user-managed kernel is started by writing CTRL, not through xrt::kernel.
  static const std::vector<Register> map = {
      {0x00, "CTRL", RW, kNo, nullptr, "start (bit 0), done (1), idle (2), ready (3)"},
      {0x04, "GIE", RW, kNo, nullptr, "global interrupt enable"},
      {0x08, "IER", RW, kNo, nullptr, "interrupt on done"},
      {0x0C, "ISR", W1C, kNo, nullptr, "done interrupt pending; write 1 to clear"},
      {0x10, "INSN_ADDR_LO", RW, KernelArg::kPointer, "insn",
       "DRAM address of the instruction stream, bits 31:0"},
      {0x14, "INSN_ADDR_HI", RW, kNo, nullptr, "bits 63:32"},
      {0x18, "INSN_COUNT", RW, KernelArg::kScalar, "insn_count", "instructions in the stream"},
      {0x20, "STATUS", RO, kNo, nullptr, "error (bit 0), error code (7:4)"},
      {0x24, "ERROR_INSN", RO, kNo, nullptr, "stream index of the failing instruction"},
      {0x28, "CYCLES_LO", RO, kNo, nullptr, "cycles from start to done, bits 31:0"},
      {0x2C, "CYCLES_HI", RO, kNo, nullptr, "bits 63:32"},
      {0x30, "LOAD_LAST", RO, kNo, nullptr, "1 + last instruction the load module completed"},
      {0x34, "COMPUTE_LAST", RO, kNo, nullptr, "same, compute module"},
      {0x38, "STORE_LAST", RO, kNo, nullptr, "same, store module"},
      {0x3C, "FETCHED", RO, kNo, nullptr, "instructions fetched in this run"},
      {0x40, "CONFIG_HASH_LO", RO, kNo, nullptr, "hash of the config the RTL was built for"},
      {0x44, "CONFIG_HASH_HI", RO, kNo, nullptr, "bits 63:32"},
      {0x48, "VERSION", RO, kNo, nullptr, "RTL version 0x00MMmmpp"},
      {0x50, "LOAD_BUSY", RO, kNo, nullptr, "cycles the load module was busy"},
      {0x54, "COMPUTE_BUSY", RO, kNo, nullptr, "same, compute module"},
      {0x58, "STORE_BUSY", RO, kNo, nullptr, "same, store module"},
      {0x5C, "GEMM_ITERS", RO, kNo, nullptr, "GEMM micro-op iterations that multiplied"},
      {0x60, "BYTES_READ_LO", RO, kNo, nullptr, "bytes LOAD read from DRAM, bits 31:0"},
      {0x64, "BYTES_READ_HI", RO, kNo, nullptr, "bits 63:32"},
      {0x68, "BYTES_WRITTEN_LO", RO, kNo, nullptr, "bytes STORE wrote to DRAM, bits 31:0"},
      {0x6C, "BYTES_WRITTEN_HI", RO, kNo, nullptr, "bits 63:32"},
      {0x70, "TOKENS", RO, kNo, nullptr, "token counts, one byte per queue"},
  };
  return map;
}

std::string RegisterMapComment(const std::string& prefix) {
  std::string out;
  for (const auto& r : RegisterMap()) {
    char line[160];
    std::snprintf(line, sizeof(line), "0x%02X  %-16s %-5s  %s\n", r.offset, r.name,
                  RegAccessText(r.access), r.summary);
    out += prefix + line;
  }
  return out;
}

}  // namespace loom::hwgen
