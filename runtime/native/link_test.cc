// The linker of every machine on every build: the committed objects of loader_fuzz_corpus/ (gcc
// and clang output for x86_64, aarch64 and armv7) linked into plain memory at a made-up address,
// then the patched branches decoded. loader_test.cc runs the same kind of code on its own machine;
// this test keeps the other machines' relocations covered in the host, ASan and fuzz builds too.
#include "runtime/native/link.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/native/test_objects.h"

namespace loom::runtime::native {
namespace {

constexpr uint64_t kBase = 0x10000000;
constexpr uint64_t kHostAdd = 0x0badc0de;  // an import's made-up address (bit 0 set: Thumb)

struct Linked {
  std::vector<uint8_t> bytes;
  ElfFile file;
  LinkPlan plan;
  std::vector<uint64_t> memory;  // uint64_t for the block's alignment

  uint8_t* At(uint64_t address) {
    return reinterpret_cast<uint8_t*>(memory.data()) + (address - kBase);
  }
  uint64_t Symbol(const char* name) const {
    const Export* e = Exports(reinterpret_cast<const uint8_t*>(memory.data()), plan);
    for (uint32_t i = 0; i < plan.export_count; ++i) {
      const char* n = reinterpret_cast<const char*>(memory.data()) + e[i].name_offset;
      if (std::strcmp(n, name) == 0) return e[i].address;
    }
    ADD_FAILURE() << "no export '" << name << "'";
    return 0;
  }
};

void LinkCorpus(const std::string& name, Linked* out) {
  out->bytes =
      ReadFileBytes(std::string(LOOM_SOURCE_DIR) + "/runtime/native/loader_fuzz_corpus/" + name);
  ASSERT_FALSE(out->bytes.empty()) << name;
  ASSERT_TRUE(ElfFile::Parse(out->bytes.data(), out->bytes.size(), &out->file).ok());
  const Status planned = PlanLink(out->file, 4096, &out->plan);
  ASSERT_TRUE(planned.ok()) << name << ": " << planned.ToString();
  out->memory.assign(out->plan.total_size / 8, 0);
  static int data = 0;
  const Import imports[] = {
      {"host_add", reinterpret_cast<const void*>(static_cast<uintptr_t>(kHostAdd))},
      {"host_counter", &data},
      {"memcpy", reinterpret_cast<const void*>(uintptr_t{0x1000})},
      {"memset", reinterpret_cast<const void*>(uintptr_t{0x2000})},
      {"memmove", reinterpret_cast<const void*>(uintptr_t{0x3000})},
      {"__aeabi_idiv", reinterpret_cast<const void*>(uintptr_t{0x4001})},
  };
  const Status linked = Link(out->file, out->plan, imports, sizeof imports / sizeof imports[0],
                             reinterpret_cast<uint8_t*>(out->memory.data()), kBase);
  ASSERT_TRUE(linked.ok()) << name << ": " << linked.ToString();
}

uint32_t Word(const uint8_t* p) { return Load32(p); }

TEST(NativeLink, EveryMachinesObjectsLink) {
  const char* names[] = {"x86_64_static.o",       "x86_64_pic.o",     "x86_64_got.o",
                         "x86_64_clang_static.o", "aarch64_static.o", "aarch64_pic.o",
                         "aarch64_large.o",       "aarch64_got.o",    "aarch64_clang_static.o",
                         "armv7_arm.o",           "armv7_thumb.o",    "armv7_interwork.o",
                         "armv7_clang_thumb.o"};
  for (const char* name : names) {
    Linked l;
    LinkCorpus(name, &l);
    EXPECT_EQ(l.plan.exec_size % 4096, 0u) << name;
    EXPECT_GT(l.plan.export_count, 0u) << name;
  }
}

TEST(NativeLink, X86_64ImportCallGoesThroughAVeneer) {
  Linked l;
  LinkCorpus("x86_64_static.o", &l);
  // call_import's first call (e8 rel32) lands on jmp *0(%rip) followed by host_add's address.
  const uint64_t f = l.Symbol("call_import");
  uint64_t p = f;
  while (*l.At(p) != 0xe8 && p < f + 64) ++p;
  ASSERT_LT(p, f + 64) << "no call in call_import";
  const uint64_t target = p + 5 + static_cast<int32_t>(Word(l.At(p + 1)));
  EXPECT_EQ(l.At(target)[0], 0xff);
  EXPECT_EQ(l.At(target)[1], 0x25);
  EXPECT_EQ(Word(l.At(target + 2)), 0u);
  EXPECT_EQ(Load64(l.At(target + 6)), kHostAdd);
}

TEST(NativeLink, Aarch64ImportCallGoesThroughAVeneer) {
  Linked l;
  LinkCorpus("aarch64_static.o", &l);
  const uint64_t f = l.Symbol("call_import");
  uint64_t p = f;
  while ((Word(l.At(p)) & 0xfc000000) != 0x94000000 && p < f + 64) p += 4;  // BL
  ASSERT_LT(p, f + 64) << "no BL in call_import";
  const uint64_t target = p + static_cast<uint64_t>(SignExtend(Word(l.At(p)) & 0x3ffffff, 26) * 4);
  EXPECT_EQ(Word(l.At(target)), 0x58000050u);      // ldr x16, #8
  EXPECT_EQ(Word(l.At(target + 4)), 0xd61f0200u);  // br x16
  EXPECT_EQ(Load64(l.At(target + 8)), kHostAdd);
}

// The target of the Thumb BL/BLX at p, and whether it is a BLX.
uint64_t ThumbCallTarget(Linked* l, uint64_t p, bool* blx) {
  const uint32_t h1 = Load16(l->At(p)), h2 = Load16(l->At(p + 2));
  const uint32_t s = (h1 >> 10) & 1, i1 = ((h2 >> 13) & 1) ^ s ^ 1, i2 = ((h2 >> 11) & 1) ^ s ^ 1;
  const int64_t imm =
      SignExtend(s << 24 | i1 << 23 | i2 << 22 | (h1 & 0x3ff) << 12 | (h2 & 0x7ff) << 1, 25);
  *blx = (h2 & 0x1000) == 0;
  const uint64_t pc = *blx ? ((p + 4) & ~uint64_t{3}) : p + 4;
  return pc + static_cast<uint64_t>(imm);
}

TEST(NativeLink, ArmAndThumbSwitchWithBlx) {
  Linked l;
  LinkCorpus("armv7_interwork.o", &l);
  const uint64_t arm_triple = l.Symbol("arm_triple");
  const uint64_t thumb_plus = l.Symbol("thumb_plus");
  const uint64_t arm_entry = l.Symbol("arm_entry");
  EXPECT_EQ(arm_triple & 1, 0u);
  EXPECT_EQ(thumb_plus & 1, 1u);
  // Thumb thumb_plus calls ARM arm_triple: a BLX straight to it.
  uint64_t p = thumb_plus & ~uint64_t{1};
  while ((Load16(l.At(p)) & 0xf800) != 0xf000 && p < thumb_plus + 32) p += 2;
  ASSERT_LT(p, thumb_plus + 32) << "no BL/BLX in thumb_plus";
  bool blx = false;
  EXPECT_EQ(ThumbCallTarget(&l, p, &blx), arm_triple);
  EXPECT_TRUE(blx);
  // ARM arm_entry calls Thumb thumb_plus: BLX (imm24, H) straight to it.
  p = arm_entry;
  while ((Word(l.At(p)) & 0xfe000000) != 0xfa000000 && p < arm_entry + 64) p += 4;
  ASSERT_LT(p, arm_entry + 64) << "no BLX in arm_entry";
  const uint32_t w = Word(l.At(p));
  const uint64_t target =
      p + 8 + static_cast<uint64_t>(SignExtend((w & 0xffffff) << 2, 26)) + ((w >> 23) & 2);
  EXPECT_EQ(target, thumb_plus & ~uint64_t{1});
  // Thumb thumb_tail jumps (B.W, which cannot switch) to ARM arm_triple: through a Thumb veneer,
  // ldr.w pc, [pc] and the ARM address.
  const uint64_t thumb_tail = l.Symbol("thumb_tail") & ~uint64_t{1};
  p = thumb_tail;
  while (!((Load16(l.At(p)) & 0xf800) == 0xf000 && (Load16(l.At(p + 2)) & 0xd000) == 0x9000) &&
         p < thumb_tail + 32) {
    p += 2;
  }
  ASSERT_LT(p, thumb_tail + 32) << "no B.W in thumb_tail";
  const uint64_t veneer = ThumbCallTarget(&l, p, &blx);
  EXPECT_EQ(Load16(l.At(veneer)), 0xf8dfu);
  EXPECT_EQ(Load16(l.At(veneer + 2)), 0xf000u);
  EXPECT_EQ(Word(l.At(veneer + 4)), arm_triple);
}

}  // namespace
}  // namespace loom::runtime::native
