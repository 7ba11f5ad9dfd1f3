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
  LOOM_RETURN_IF_ERROR(CheckPow2("batch", batch, 1, 64));
  LOOM_RETURN_IF_ERROR(CheckPow2("block_in", block_in, 4, 256));
  LOOM_RETURN_IF_ERROR(CheckPow2("block_out", block_out, 4, 256));
  if (inp_bits != 8) return FieldError("inp_bits", "is {}, only 8 is supported", inp_bits);
  if (wgt_bits != 8) return FieldError("wgt_bits", "is {}, only 8 is supported", wgt_bits);
  if (acc_bits != 32) return FieldError("acc_bits", "is {}, only 32 is supported", acc_bits);
  if (out_bits != 8) return FieldError("out_bits", "is {}, only 8 is supported", out_bits);
  LOOM_RETURN_IF_ERROR(CheckBuffer("uop_buffer_bytes", uop_buffer_bytes, kUopBytes));
  LOOM_RETURN_IF_ERROR(CheckBuffer("inp_buffer_bytes", inp_buffer_bytes, inp_elem_bytes()));
  LOOM_RETURN_IF_ERROR(CheckBuffer("wgt_buffer_bytes", wgt_buffer_bytes, wgt_elem_bytes()));
  LOOM_RETURN_IF_ERROR(CheckBuffer("acc_buffer_bytes", acc_buffer_bytes, acc_elem_bytes()));
  LOOM_RETURN_IF_ERROR(CheckRange("token_queue_depth", token_queue_depth, 2, 1u << 16));
  LOOM_RETURN_IF_ERROR(CheckRange("cmd_queue_depth", cmd_queue_depth, 1, 1u << 16));
  LOOM_RETURN_IF_ERROR(CheckPow2("axi_data_bits", axi_data_bits, 32, 1024));
  LOOM_RETURN_IF_ERROR(CheckRange("dma_burst_latency", dma_burst_latency, 0, 10000));
  LOOM_RETURN_IF_ERROR(CheckRange("dma_max_burst_beats", dma_max_burst_beats, 1, 256));
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
