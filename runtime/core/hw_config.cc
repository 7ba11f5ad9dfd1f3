#include "runtime/core/hw_config.h"

#include <cstdio>

#include "runtime/core/isa.h"

namespace loom {

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

namespace {

// "field 'batch': <why>", with why formatted as by Format.
template <typename... A>
Status FieldError(const char* field, const char* why, const A&... a) {
  return InvalidArgument("field '{}': {}", field, Format(why, a...));
}

Status CheckPow2(const char* field, uint64_t v, uint64_t lo, uint64_t hi) {
  if (v < lo || v > hi || !IsPowerOfTwo(v)) {
    return FieldError(field, "is {}, must be a power of two in [{}, {}]", v, lo, hi);
  }
  return Status::Ok();
}

Status CheckRange(const char* field, uint64_t v, uint64_t lo, uint64_t hi) {
  if (v < lo || v > hi) {
    return FieldError(field, "is {}, must be in [{}, {}]", v, lo, hi);
  }
  return Status::Ok();
}

Status CheckBuffer(const char* field, uint32_t bytes, uint32_t elem_bytes) {
  LOOM_RETURN_IF_ERROR(CheckPow2(field, bytes, 1, 1u << 30));
  if (bytes < elem_bytes) {
    return FieldError(field, "is {} bytes, smaller than one element ({} bytes)", bytes, elem_bytes);
  }
  return Status::Ok();
}

}  // namespace

Status HwConfig::Validate() const {
  // One row per field, checked in this order (a buffer's element size needs the shape and data
  // widths checked before it): a table and one loop instead of a call per field.
  enum Rule : uint8_t { kPow2, kRange, kOnly, kBuffer };
  static constexpr struct {
    const char* name;
    uint32_t HwConfig::*field;
    Rule rule;
    uint32_t lo, hi;  // kOnly: lo is the one value; kBuffer: lo is the element kind (below)
  } kRows[] = {
      {"batch", &HwConfig::batch, kPow2, 1, 64},
      {"block_in", &HwConfig::block_in, kPow2, 4, 256},
      {"block_out", &HwConfig::block_out, kPow2, 4, 256},
      {"inp_bits", &HwConfig::inp_bits, kOnly, 8, 0},
      {"wgt_bits", &HwConfig::wgt_bits, kOnly, 8, 0},
      {"acc_bits", &HwConfig::acc_bits, kOnly, 32, 0},
      {"out_bits", &HwConfig::out_bits, kOnly, 8, 0},
      {"uop_buffer_bytes", &HwConfig::uop_buffer_bytes, kBuffer, 0, 0},
      {"inp_buffer_bytes", &HwConfig::inp_buffer_bytes, kBuffer, 1, 0},
      {"wgt_buffer_bytes", &HwConfig::wgt_buffer_bytes, kBuffer, 2, 0},
      {"acc_buffer_bytes", &HwConfig::acc_buffer_bytes, kBuffer, 3, 0},
      {"token_queue_depth", &HwConfig::token_queue_depth, kRange, 2, 1u << 16},
      {"cmd_queue_depth", &HwConfig::cmd_queue_depth, kRange, 1, 1u << 16},
      {"axi_data_bits", &HwConfig::axi_data_bits, kPow2, 32, 1024},
      {"dma_burst_latency", &HwConfig::dma_burst_latency, kRange, 0, 10000},
      {"dma_max_burst_beats", &HwConfig::dma_max_burst_beats, kRange, 1, 256},
  };
  for (const auto& row : kRows) {
    const uint32_t v = this->*row.field;
    switch (row.rule) {
      case kPow2:
        LOOM_RETURN_IF_ERROR(CheckPow2(row.name, v, row.lo, row.hi));
        break;
      case kRange:
        LOOM_RETURN_IF_ERROR(CheckRange(row.name, v, row.lo, row.hi));
        break;
      case kOnly:
        if (v != row.lo) return FieldError(row.name, "is {}, only {} is supported", v, row.lo);
        break;
      case kBuffer: {
        const uint32_t elem[] = {kUopBytes, inp_elem_bytes(), wgt_elem_bytes(), acc_elem_bytes()};
        LOOM_RETURN_IF_ERROR(CheckBuffer(row.name, v, elem[row.lo]));
        break;
      }
    }
  }
  if (!(clock_mhz > 0.0 && clock_mhz <= 2000.0)) {
    return FieldError("clock_mhz", "is {}, must be in (0, 2000]", clock_mhz);
  }
  isa::Layout layout;
  return isa::Layout::Create(*this, &layout);
}

std::string HwConfig::CompatibilityKey() const {
  // uint32_t is unsigned int on Linux and unsigned long on newlib: print through one type so the
  // key, and the hash a package records, are the same on every target.
  auto u = [](uint32_t v) { return static_cast<unsigned long>(v); };
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "loom-hw-v1;batch=%lu;block_in=%lu;block_out=%lu;inp_bits=%lu;wgt_bits=%lu;"
                "acc_bits=%lu;out_bits=%lu;uop=%lu;inp=%lu;wgt=%lu;acc=%lu;tokens=%lu",
                u(batch), u(block_in), u(block_out), u(inp_bits), u(wgt_bits), u(acc_bits),
                u(out_bits), u(uop_buffer_bytes), u(inp_buffer_bytes), u(wgt_buffer_bytes),
                u(acc_buffer_bytes), u(token_queue_depth));
  return buf;
}

uint64_t HwConfig::CompatibilityHash() const {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64
  for (unsigned char c : CompatibilityKey()) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string HwConfig::HashHex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(CompatibilityHash()));
  return buf;
}

}  // namespace loom
