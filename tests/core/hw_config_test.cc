// HwConfig built in code (the JSON reader has its own tests): derived quantities, Validate() naming
// every rejected field, Layout::Create's instruction-fit checks, and the compatibility hash.
#include "runtime/core/hw_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "runtime/core/isa.h"

namespace loom {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

HwConfig Make1x8x8() {
  HwConfig c;
  c.name = "1x8x8";
  c.block_in = c.block_out = 8;
  c.uop_buffer_bytes = 8 * 1024;
  c.inp_buffer_bytes = 8 * 1024;
  c.wgt_buffer_bytes = 32 * 1024;
  c.acc_buffer_bytes = 32 * 1024;
  return c;
}

HwConfig Make1x32x32() {
  HwConfig c;
  c.name = "1x32x32";
  c.block_in = c.block_out = 32;
  c.uop_buffer_bytes = 32 * 1024;
  c.inp_buffer_bytes = 64 * 1024;
  c.wgt_buffer_bytes = 512 * 1024;
  c.acc_buffer_bytes = 256 * 1024;
  c.axi_data_bits = 128;
  return c;
}

TEST(HwConfigTest, DefaultsAre1x16x16) {
  const HwConfig c;
  EXPECT_EQ(c.batch, 1u);
  EXPECT_EQ(c.block_in, 16u);
  EXPECT_EQ(c.block_out, 16u);
  Status s = c.Validate();
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(HwConfigTest, DerivedQuantities) {
  struct Expected {
    HwConfig config;
    uint32_t inp_elem, wgt_elem, acc_elem, out_elem;
    uint32_t uop_depth, inp_depth, wgt_depth, acc_depth, out_buffer_bytes;
    uint32_t uop_bits, inp_bits, wgt_bits, acc_bits;
    uint32_t axi_bytes;
    uint64_t macs;
  };
  const Expected cases[] = {
      {Make1x8x8(), 8, 64, 32, 8, 2048, 1024, 512, 1024, 8192, 11, 10, 9, 10, 8, 64},
      {HwConfig(), 16, 256, 64, 16, 8192, 2048, 1024, 2048, 32768, 13, 11, 10, 11, 8, 256},
      {Make1x32x32(), 32, 1024, 128, 32, 8192, 2048, 512, 2048, 65536, 13, 11, 9, 11, 16, 1024},
  };
  for (const Expected& e : cases) {
    const HwConfig& c = e.config;
    SCOPED_TRACE(c.name.empty() ? "1x16x16" : c.name);
    Status s = c.Validate();
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(c.inp_elem_bytes(), e.inp_elem);
    EXPECT_EQ(c.wgt_elem_bytes(), e.wgt_elem);
    EXPECT_EQ(c.acc_elem_bytes(), e.acc_elem);
    EXPECT_EQ(c.out_elem_bytes(), e.out_elem);
    EXPECT_EQ(c.uop_depth(), e.uop_depth);
    EXPECT_EQ(c.inp_depth(), e.inp_depth);
    EXPECT_EQ(c.wgt_depth(), e.wgt_depth);
    EXPECT_EQ(c.acc_depth(), e.acc_depth);
    EXPECT_EQ(c.out_depth(), e.acc_depth);
    EXPECT_EQ(c.out_buffer_bytes(), e.out_buffer_bytes);
    EXPECT_EQ(c.uop_idx_bits(), e.uop_bits);
    EXPECT_EQ(c.inp_idx_bits(), e.inp_bits);
    EXPECT_EQ(c.wgt_idx_bits(), e.wgt_bits);
    EXPECT_EQ(c.acc_idx_bits(), e.acc_bits);
    EXPECT_EQ(c.axi_bytes(), e.axi_bytes);
    EXPECT_EQ(c.macs_per_cycle(), e.macs);
    // Layout takes the same numbers.
    isa::Layout l;
    ASSERT_TRUE(isa::Layout::Create(c, &l).ok());
    EXPECT_EQ(l.uop_depth, e.uop_depth);
    EXPECT_EQ(l.inp_depth, e.inp_depth);
    EXPECT_EQ(l.wgt_depth, e.wgt_depth);
    EXPECT_EQ(l.acc_depth, e.acc_depth);
    EXPECT_EQ(l.uop_idx_bits, e.uop_bits);
    EXPECT_EQ(l.inp_idx_bits, e.inp_bits);
    EXPECT_EQ(l.wgt_idx_bits, e.wgt_bits);
    EXPECT_EQ(l.acc_idx_bits, e.acc_bits);
  }
  // A batch of 4 multiplies the inp/acc/out elements.
  HwConfig b4;
  b4.batch = 4;
  EXPECT_EQ(b4.inp_elem_bytes(), 64u);
  EXPECT_EQ(b4.acc_elem_bytes(), 256u);
  EXPECT_EQ(b4.out_elem_bytes(), 64u);
  EXPECT_EQ(b4.wgt_elem_bytes(), 256u);
  EXPECT_EQ(b4.inp_depth(), 512u);
  EXPECT_EQ(b4.macs_per_cycle(), 1024u);
  EXPECT_TRUE(b4.Validate().ok());
}

TEST(HwConfigTest, Log2AndPowerOfTwo) {
  EXPECT_EQ(HwConfig::Log2(1), 0u);
  EXPECT_EQ(HwConfig::Log2(2), 1u);
  EXPECT_EQ(HwConfig::Log2(1024), 10u);
  EXPECT_EQ(HwConfig::Log2(1u << 31), 31u);
  EXPECT_FALSE(IsPowerOfTwo(0));
  EXPECT_TRUE(IsPowerOfTwo(1));
  EXPECT_TRUE(IsPowerOfTwo(uint64_t{1} << 63));
  EXPECT_FALSE(IsPowerOfTwo(12));
}

// Each case breaks one field of a valid config; the message must name that field.
TEST(HwConfigTest, ValidateNamesEveryRejectedField) {
  struct Case {
    const char* field;
    std::function<void(HwConfig&)> breaks;
  };
  const std::vector<Case> cases = {
      {"batch", [](HwConfig& c) { c.batch = 0; }},
      {"batch", [](HwConfig& c) { c.batch = 3; }},
      {"batch", [](HwConfig& c) { c.batch = 128; }},
      {"block_in", [](HwConfig& c) { c.block_in = 2; }},
      {"block_in", [](HwConfig& c) { c.block_in = 12; }},
      {"block_in", [](HwConfig& c) { c.block_in = 512; }},
      {"block_out", [](HwConfig& c) { c.block_out = 0; }},
      {"block_out", [](HwConfig& c) { c.block_out = 24; }},
      {"block_out", [](HwConfig& c) { c.block_out = 512; }},
      {"inp_bits", [](HwConfig& c) { c.inp_bits = 4; }},
      {"wgt_bits", [](HwConfig& c) { c.wgt_bits = 16; }},
      {"acc_bits", [](HwConfig& c) { c.acc_bits = 16; }},
      {"out_bits", [](HwConfig& c) { c.out_bits = 32; }},
      {"uop_buffer_bytes", [](HwConfig& c) { c.uop_buffer_bytes = 0; }},
      {"uop_buffer_bytes", [](HwConfig& c) { c.uop_buffer_bytes = 3000; }},
      {"uop_buffer_bytes", [](HwConfig& c) { c.uop_buffer_bytes = 2; }},  // < one micro-op
      {"uop_buffer_bytes", [](HwConfig& c) { c.uop_buffer_bytes = 1u << 31; }},
      {"inp_buffer_bytes", [](HwConfig& c) { c.inp_buffer_bytes = 4; }},  // < one element (8..32)
      {"inp_buffer_bytes", [](HwConfig& c) { c.inp_buffer_bytes = 48 * 1024; }},
      {"wgt_buffer_bytes", [](HwConfig& c) { c.wgt_buffer_bytes = 32; }},  // < 64..1024
      {"wgt_buffer_bytes", [](HwConfig& c) { c.wgt_buffer_bytes = 0; }},
      {"acc_buffer_bytes", [](HwConfig& c) { c.acc_buffer_bytes = 16; }},  // < 32..128
      {"acc_buffer_bytes", [](HwConfig& c) { c.acc_buffer_bytes = 100000; }},
      {"token_queue_depth", [](HwConfig& c) { c.token_queue_depth = 1; }},
      {"token_queue_depth", [](HwConfig& c) { c.token_queue_depth = 65537; }},
      {"cmd_queue_depth", [](HwConfig& c) { c.cmd_queue_depth = 0; }},
      {"cmd_queue_depth", [](HwConfig& c) { c.cmd_queue_depth = 65537; }},
      {"axi_data_bits", [](HwConfig& c) { c.axi_data_bits = 16; }},
      {"axi_data_bits", [](HwConfig& c) { c.axi_data_bits = 48; }},
      {"axi_data_bits", [](HwConfig& c) { c.axi_data_bits = 2048; }},
      {"dma_burst_latency", [](HwConfig& c) { c.dma_burst_latency = 10001; }},
      {"dma_max_burst_beats", [](HwConfig& c) { c.dma_max_burst_beats = 0; }},
      {"dma_max_burst_beats", [](HwConfig& c) { c.dma_max_burst_beats = 257; }},
      {"clock_mhz", [](HwConfig& c) { c.clock_mhz = 0.0; }},
      {"clock_mhz", [](HwConfig& c) { c.clock_mhz = -100.0; }},
      {"clock_mhz", [](HwConfig& c) { c.clock_mhz = 2000.5; }},
      {"clock_mhz", [](HwConfig& c) { c.clock_mhz = std::nan(""); }},
      {"clock_mhz", [](HwConfig& c) { c.clock_mhz = std::numeric_limits<double>::infinity(); }},
  };
  for (const Case& k : cases) {
    for (HwConfig c : {HwConfig(), Make1x8x8(), Make1x32x32()}) {
      k.breaks(c);
      Status s = c.Validate();
      SCOPED_TRACE(std::string(k.field) + " on " + (c.name.empty() ? "1x16x16" : c.name));
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
      EXPECT_THAT(s.message(), HasSubstr(std::string("field '") + k.field + "'"));
    }
  }
}

TEST(HwConfigTest, ValidateAcceptsTheLimits) {
  const std::vector<std::function<void(HwConfig&)>> edits = {
      [](HwConfig& c) { c.token_queue_depth = 2; },
      [](HwConfig& c) { c.token_queue_depth = 65536; },
      [](HwConfig& c) { c.cmd_queue_depth = 1; },
      [](HwConfig& c) { c.cmd_queue_depth = 65536; },
      [](HwConfig& c) { c.axi_data_bits = 32; },
      [](HwConfig& c) { c.axi_data_bits = 1024; },
      [](HwConfig& c) { c.dma_burst_latency = 0; },
      [](HwConfig& c) { c.dma_burst_latency = 10000; },
      [](HwConfig& c) { c.dma_max_burst_beats = 1; },
      [](HwConfig& c) { c.clock_mhz = 2000.0; },
      [](HwConfig& c) { c.clock_mhz = 0.001; },
      [](HwConfig& c) { c.inp_buffer_bytes = 16; },  // exactly one element: depth 1, 0 index bits
      [](HwConfig& c) { c.uop_buffer_bytes = 4; },
  };
  int n = 0;
  for (const auto& edit : edits) {
    HwConfig c;
    edit(c);
    Status s = c.Validate();
    EXPECT_TRUE(s.ok()) << "edit " << n << ": " << s.ToString();
    ++n;
  }
}

// Buffers so deep that an instruction or micro-op no longer fits its word. Each config passes the
// per-field checks; Layout::Create (called by Validate) rejects it.
TEST(HwConfigTest, LayoutRejectsFormatsThatDoNotFit) {
  struct Case {
    const char* what;  // the format named in the message
    std::function<void(HwConfig&)> edit;
  };
  const std::vector<Case> cases = {
      // U = 28: LOAD/STORE needs 114 + 28 = 142 bits.
      {"LOAD/STORE instruction", [](HwConfig& c) { c.uop_buffer_bytes = 1u << 30; }},
      // U = 15: LOAD/STORE needs 129 bits, one more than S = 14 leaves (the pad_value field).
      {"LOAD/STORE instruction", [](HwConfig& c) { c.uop_buffer_bytes = 4u << 15; }},
      // W = 12: GEMM needs 38 + 26 + 22 + 22 + 24 = 132 bits (LOAD/STORE 127 still fits).
      {"GEMM instruction", [](HwConfig& c) { c.wgt_buffer_bytes = 1u << 20; }},
      // A = 14: GEMM needs 38 + 26 + 28 + 22 + 20 = 134 bits (LOAD/STORE 128 still fits).
      {"GEMM instruction", [](HwConfig& c) { c.acc_buffer_bytes = 1u << 20; }},
      // U = 14, A = 12, I = W = 9: GEMM 126 bits and LOAD/STORE 128 fit, ALU needs
      // 56 + 28 + 48 = 132.
      {"ALU instruction",
       [](HwConfig& c) {
         c.uop_buffer_bytes = 4u << 14;
         c.acc_buffer_bytes = 64u << 12;
         c.inp_buffer_bytes = 16u << 9;
         c.wgt_buffer_bytes = 256u << 9;
       }},
      // W = 11 with A = I = 11: the micro-op needs 33 bits (U = 11 keeps GEMM at 126).
      {"micro-op",
       [](HwConfig& c) {
         c.uop_buffer_bytes = 8 * 1024;
         c.wgt_buffer_bytes = 512 * 1024;
       }},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    HwConfig c;
    k.edit(c);
    isa::Layout l;
    l.uop_depth = 12345;  // sentinel: Create must not write on failure
    Status s = isa::Layout::Create(c, &l);
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.message(), AllOf(HasSubstr(k.what), HasSubstr("buffer")));
    EXPECT_EQ(l.uop_depth, 12345u);
    Status v = c.Validate();
    EXPECT_FALSE(v.ok());
    EXPECT_EQ(v.message(), s.message());
  }
  // The edge that still fits: 1x16x16 uses all 32 micro-op bits and all 128 GEMM bits.
  HwConfig c;
  isa::Layout l;
  ASSERT_TRUE(isa::Layout::Create(c, &l).ok());
  EXPECT_EQ(l.uop_bits(), 32u);
  EXPECT_EQ(l.gemm_bits(), 128u);
  // One more WGT index bit and GEMM needs 130.
  c.wgt_buffer_bytes *= 2;
  Status s = isa::Layout::Create(c, &l);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("GEMM instruction"), HasSubstr("130 bits")));
}

// --- compatibility hash --------------------------------------------------------------------------

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

TEST(HwConfigHashTest, StableForEqualContent) {
  const HwConfig a = Make1x32x32();
  const HwConfig b = Make1x32x32();
  EXPECT_EQ(a.CompatibilityKey(), b.CompatibilityKey());
  EXPECT_EQ(a.CompatibilityHash(), b.CompatibilityHash());
  EXPECT_EQ(a.HashHex(), b.HashHex());
  EXPECT_EQ(a.CompatibilityHash(), a.CompatibilityHash());
  // FNV-1a 64 of the key, printed as 16 lowercase hex digits.
  EXPECT_EQ(a.CompatibilityHash(), Fnv1a64(a.CompatibilityKey()));
  const std::string hex = a.HashHex();
  ASSERT_EQ(hex.size(), 16u);
  for (char ch : hex) EXPECT_TRUE((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')) << hex;
  EXPECT_EQ(std::stoull(hex, nullptr, 16), a.CompatibilityHash());
  // Different shapes differ.
  EXPECT_NE(HwConfig().CompatibilityHash(), Make1x8x8().CompatibilityHash());
  EXPECT_NE(HwConfig().CompatibilityHash(), Make1x32x32().CompatibilityHash());
  EXPECT_NE(Make1x8x8().CompatibilityHash(), Make1x32x32().CompatibilityHash());
}

TEST(HwConfigHashTest, ChangesWithEveryMeaningfulField) {
  const std::vector<std::pair<const char*, std::function<void(HwConfig&)>>> edits = {
      {"uop_buffer_bytes", [](HwConfig& c) { c.uop_buffer_bytes *= 2; }},
      {"inp_buffer_bytes", [](HwConfig& c) { c.inp_buffer_bytes *= 2; }},
      {"wgt_buffer_bytes", [](HwConfig& c) { c.wgt_buffer_bytes /= 2; }},
      {"acc_buffer_bytes", [](HwConfig& c) { c.acc_buffer_bytes /= 2; }},
      {"batch", [](HwConfig& c) { c.batch = 2; }},
      {"block_in", [](HwConfig& c) { c.block_in = 32; }},
      {"block_out", [](HwConfig& c) { c.block_out = 8; }},
      {"inp_bits", [](HwConfig& c) { c.inp_bits = 4; }},
      {"wgt_bits", [](HwConfig& c) { c.wgt_bits = 4; }},
      {"acc_bits", [](HwConfig& c) { c.acc_bits = 16; }},
      {"out_bits", [](HwConfig& c) { c.out_bits = 16; }},
      {"token_queue_depth", [](HwConfig& c) { c.token_queue_depth = 16; }},
  };
  const HwConfig base;
  for (const auto& [field, edit] : edits) {
    HwConfig c = base;
    edit(c);
    EXPECT_NE(c.CompatibilityHash(), base.CompatibilityHash()) << field;
    EXPECT_NE(c.HashHex(), base.HashHex()) << field;
  }
}

TEST(HwConfigHashTest, TimingFieldsAndNameDoNotChangeIt) {
  const std::vector<std::pair<const char*, std::function<void(HwConfig&)>>> edits = {
      {"name", [](HwConfig& c) { c.name = "my-board-variant"; }},
      {"clock_mhz", [](HwConfig& c) { c.clock_mhz = 250.0; }},
      {"axi_data_bits", [](HwConfig& c) { c.axi_data_bits = 512; }},
      {"dma_burst_latency", [](HwConfig& c) { c.dma_burst_latency = 100; }},
      {"dma_max_burst_beats", [](HwConfig& c) { c.dma_max_burst_beats = 16; }},
      {"cmd_queue_depth", [](HwConfig& c) { c.cmd_queue_depth = 4; }},
  };
  for (const HwConfig& base : {HwConfig(), Make1x8x8(), Make1x32x32()}) {
    HwConfig all = base;
    for (const auto& [field, edit] : edits) {
      HwConfig c = base;
      edit(c);
      edit(all);
      EXPECT_EQ(c.CompatibilityKey(), base.CompatibilityKey()) << field;
      EXPECT_EQ(c.CompatibilityHash(), base.CompatibilityHash()) << field;
    }
    EXPECT_EQ(all.HashHex(), base.HashHex());
  }
}

}  // namespace
}  // namespace loom
