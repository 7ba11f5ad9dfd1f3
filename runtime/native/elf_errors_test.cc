// The loader on bad input: a real test object with one field broken at a time. Each case checks
// the message a user would read (what is wrong and where).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/native/elf_file.h"
#include "runtime/native/loader.h"
#include "runtime/native/test_objects.h"

namespace loom::runtime::native {
namespace {

using ::testing::HasSubstr;

void Put(std::vector<uint8_t>* bytes, uint64_t offset, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) (*bytes)[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

uint64_t Get(const std::vector<uint8_t>& bytes, uint64_t offset, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = v << 8 | bytes[offset + i];
  return v;
}

std::string LoadError(const std::vector<uint8_t>& bytes,
                      const std::vector<Import>& imports = TestImports()) {
  std::unique_ptr<Module> m;
  const Status s = LoadObject(bytes.data(), bytes.size(), imports.data(), imports.size(), &m);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(m, nullptr);
  return s.message();
}

// The object every case breaks: common.c as the build compiler made it for this machine.
class BrokenObject : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = ReadTestObject(CommonVariants()[0]);
    ASSERT_FALSE(bytes_.empty());
    ASSERT_TRUE(ElfFile::Parse(bytes_.data(), bytes_.size(), &elf_).ok());
    for (uint32_t i = 0; i < elf_.section_count(); ++i) {
      if (elf_.Section(i).type == elf::kShtSymtab) symtab_ = i;
      if (text_relocs_ == 0 && elf_.IsRelocTable(i) &&
          std::string(elf_.SectionName(elf_.Section(i).info)) == ".text") {
        text_relocs_ = i;
      }
    }
    ASSERT_NE(symtab_, 0u);
    ASSERT_NE(text_relocs_, 0u);
  }
  bool e64() const { return elf_.elf64(); }
  // The file offset of relocation 0 of .text's table.
  uint64_t Reloc0() const { return elf_.Section(text_relocs_).offset; }
  void SetRelocSymbolAndType(uint32_t symbol, uint32_t type) {
    if (e64()) {
      Put(&bytes_, Reloc0() + 8, uint64_t{symbol} << 32 | type, 8);
    } else {
      Put(&bytes_, Reloc0() + 4, symbol << 8 | (type & 0xff), 4);
    }
  }
  ElfReloc OriginalReloc0() const {
    ElfReloc r;
    EXPECT_TRUE(elf_.Reloc(text_relocs_, 0, &r).ok());
    return r;
  }

  std::vector<uint8_t> bytes_;
  ElfFile elf_;
  uint32_t symtab_ = 0;
  uint32_t text_relocs_ = 0;
};

TEST_F(BrokenObject, TheUnbrokenObjectLoads) {
  std::unique_ptr<Module> m;
  const Status s =
      LoadObject(bytes_.data(), bytes_.size(), TestImports().data(), TestImports().size(), &m);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(BrokenObject, TruncatedFiles) {
  EXPECT_EQ(LoadError({}), "object is 0 bytes, shorter than an ELF identification (16)");
  bytes_.resize(40);
  EXPECT_EQ(LoadError(bytes_), e64() ? "object is 40 bytes, shorter than its ELF64 header (64)"
                                     : "object is 40 bytes, shorter than its ELF32 header (52)");
}

TEST_F(BrokenObject, TruncatedSectionData) {
  // The section table is at the end of the file; cutting into it leaves headers half there.
  bytes_.resize(bytes_.size() - 10);
  EXPECT_THAT(LoadError(bytes_), HasSubstr("runs past the end of the " +
                                           std::to_string(bytes_.size()) + "-byte object"));
}

TEST_F(BrokenObject, NotElf) {
  bytes_[1] = 'X';
  EXPECT_EQ(LoadError(bytes_), "not an ELF object (no \\x7fELF magic)");
}

TEST_F(BrokenObject, ExecutableRefused) {
  Put(&bytes_, 16, 2, 2);
  EXPECT_THAT(LoadError(bytes_), HasSubstr("ELF type 2 is not a relocatable object (ET_REL, 1)"));
}

TEST_F(BrokenObject, WrongMachine) {
  const std::string host = HostTriple();
  const uint16_t other = host == "aarch64" ? elf::kMachineX86_64 : elf::kMachineAarch64;
  Put(&bytes_, 18, other, 2);
  EXPECT_EQ(LoadError(bytes_),
            "object is for " + std::string(MachineName(other)) + ", this runtime runs " + host);
  Put(&bytes_, 18, 0x1234, 2);
  EXPECT_EQ(LoadError(bytes_), "object is for ELF machine 4660, this runtime runs " + host);
}

TEST_F(BrokenObject, SectionNameTableOutOfRange) {
  Put(&bytes_, e64() ? 62 : 50, 200, 2);
  EXPECT_EQ(LoadError(bytes_), "section-name table index 200 is out of range (the object has " +
                                   std::to_string(elf_.section_count()) + " sections)");
}

TEST_F(BrokenObject, SectionPastTheEnd) {
  // Section 1's size field: the section table's offset, one entry in, then the field.
  const uint64_t table = e64() ? Get(bytes_, 40, 8) : Get(bytes_, 32, 4);
  const uint64_t header = table + (e64() ? 64 : 40);
  Put(&bytes_, header + (e64() ? 32 : 20), 0x7fffffff, e64() ? 8 : 4);
  EXPECT_THAT(LoadError(bytes_), HasSubstr("section 1 (2147483647 bytes at offset"));
}

TEST_F(BrokenObject, SymbolSectionOutOfRange) {
  const uint64_t symbol1 = elf_.Section(symtab_).offset + (e64() ? 24 : 16);
  Put(&bytes_, symbol1 + (e64() ? 6 : 14), 0x7000, 2);
  EXPECT_THAT(LoadError(bytes_), HasSubstr("is in section 28672; the object has " +
                                           std::to_string(elf_.section_count())));
}

TEST_F(BrokenObject, SymbolReservedSectionIndex) {
  const uint64_t symbol1 = elf_.Section(symtab_).offset + (e64() ? 24 : 16);
  Put(&bytes_, symbol1 + (e64() ? 6 : 14), 0xff00, 2);
  EXPECT_THAT(LoadError(bytes_),
              HasSubstr("has the reserved section index 65280; the loader reads only ABS (65521) "
                        "and COMMON (65522)"));
}

TEST_F(BrokenObject, ExportNamesAboveTheLimit) {
  // Every symbol named by one 32 MiB string appended to the file: the first eight exports exceed
  // the loader's limit, found without reading the name once per symbol of the table.
  // elf_ reads bytes_ in place: take what it says before bytes_ grows (and moves).
  const uint64_t strings = elf_.Section(symtab_).link, symbols = elf_.Section(symtab_).offset;
  const uint64_t table = e64() ? Get(bytes_, 40, 8) : Get(bytes_, 32, 4);
  const uint64_t header = table + strings * (e64() ? 64 : 40);
  const uint64_t name_size = 32u << 20;
  Put(&bytes_, header + (e64() ? 24 : 16), bytes_.size(), e64() ? 8 : 4);
  Put(&bytes_, header + (e64() ? 32 : 20), name_size + 1, e64() ? 8 : 4);
  bytes_.resize(bytes_.size() + name_size, 'a');
  bytes_.push_back(0);
  for (uint32_t i = 0; i < elf_.symbol_count(); ++i) {
    Put(&bytes_, symbols + i * (e64() ? 24 : 16), 0, 4);
  }
  EXPECT_THAT(LoadError(bytes_), HasSubstr("add up to 268435464 bytes, above the loader's limit "
                                           "of 268435456"));
}

TEST_F(BrokenObject, RelocationSymbolOutOfRange) {
  SetRelocSymbolAndType(0xffff, OriginalReloc0().type);
  EXPECT_EQ(LoadError(bytes_),
            "section '.text' relocation 0: symbol index 65535 is out of range "
            "(the symbol table has " +
                std::to_string(elf_.symbol_count()) + ")");
}

TEST_F(BrokenObject, RelocationOffsetPastTheSection) {
  const uint64_t text_size = elf_.Section(elf_.Section(text_relocs_).info).size;
  Put(&bytes_, Reloc0(), text_size - 1, e64() ? 8 : 4);
  EXPECT_THAT(LoadError(bytes_), HasSubstr("at offset " + std::to_string(text_size - 1)));
  EXPECT_THAT(LoadError(bytes_),
              HasSubstr("past the section's end (" + std::to_string(text_size) + " bytes)"));
}

TEST_F(BrokenObject, UnknownRelocationType) {
  SetRelocSymbolAndType(OriginalReloc0().symbol, 250);
  EXPECT_EQ(LoadError(bytes_), "section '.text' relocation 0: unsupported " +
                                   std::string(HostTriple()) + " relocation type 250");
}

TEST_F(BrokenObject, MissingImport) {
  std::vector<Import> without_host_add;
  for (const Import& i : TestImports()) {
    if (std::string(i.name) != "host_add") without_host_add.push_back(i);
  }
  EXPECT_THAT(LoadError(bytes_, without_host_add),
              HasSubstr("undefined symbol 'host_add' is not among the " +
                        std::to_string(without_host_add.size()) + " imports"));
}

}  // namespace
}  // namespace loom::runtime::native
