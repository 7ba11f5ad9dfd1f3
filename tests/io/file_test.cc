// Bounded whole-file reads: what is refused before a byte is read, and what is read exactly.
#include "runtime/io/file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace loom {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const char* name) {
  return testing::TempDir() + "/loom_file_test_" + std::to_string(::getpid()) + "_" + name;
}

TEST(ReadFile, ReadsARegularFileExactly) {
  const std::string path = TempPath("ok.bin");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const unsigned char bytes[] = {0, 1, 2, 255};
  ASSERT_EQ(std::fwrite(bytes, 1, sizeof bytes, f), sizeof bytes);
  std::fclose(f);
  std::vector<uint8_t> got;
  ASSERT_TRUE(ReadFileBytes(path, "test file", 4, &got).ok());
  EXPECT_EQ(got, (std::vector<uint8_t>{0, 1, 2, 255}));
  std::string text;
  ASSERT_TRUE(ReadFileText(path, "test file", 4, &text).ok());
  EXPECT_EQ(text.size(), 4u);
  // One byte over the cap is refused, naming the file, its size and the cap.
  const Status s = ReadFileBytes(path, "test file", 3, &got);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(path));
  EXPECT_THAT(s.message(), HasSubstr("4 bytes, more than the 3 bytes"));
  std::remove(path.c_str());
}

TEST(ReadFile, EmptyFileIsEmpty) {
  const std::string path = TempPath("empty.bin");
  std::fclose(std::fopen(path.c_str(), "wb"));
  std::vector<uint8_t> got{1};
  ASSERT_TRUE(ReadFileBytes(path, "test file", 0, &got).ok());
  EXPECT_TRUE(got.empty());
  std::remove(path.c_str());
}

TEST(ReadFile, RefusesDevicesPipesDirectoriesAndMissingFiles) {
  std::vector<uint8_t> got;
  Status s = ReadFileBytes("/dev/zero", "package", kMaxPackageFileBytes, &got);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("package /dev/zero is a character device"));

  // A FIFO with no writer would block an open(); it must be refused without opening it.
  const std::string fifo = TempPath("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  s = ReadFileBytes(fifo, "input", kMaxTensorFileBytes, &got);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("is a pipe"));
  std::remove(fifo.c_str());

  s = ReadFileBytes(testing::TempDir(), "model", kMaxModelFileBytes, &got);
  EXPECT_THAT(s.message(), HasSubstr("is a directory"));

  s = ReadFileBytes(TempPath("missing"), "model", kMaxModelFileBytes, &got);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no such file"));
}

}  // namespace
}  // namespace loom
