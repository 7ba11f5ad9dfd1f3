// Bitstream loading through the FPGA manager and overlays through configfs, against a fake tree.
// The fake cannot program anything: it checks what is written where and how the state read back
// is judged. The state file is pre-filled with what the kernel would report.
#include "runtime/drivers/zynq/fpga_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/zynq/fake_tree.h"

namespace loom::runtime::zynq {
namespace {

using ::loom::testing::FakeTree;
using ::testing::HasSubstr;

FpgaOptions Options(const FakeTree& tree) {
  FpgaOptions o;
  o.root = tree.root();
  return o;
}

void AddManager(const FakeTree& tree, const std::string& state) {
  tree.Write("sys/class/fpga_manager/fpga0/firmware", "");
  tree.Write("sys/class/fpga_manager/fpga0/state", state + "\n");
  tree.Write("lib/firmware/loom_1x16x16.bin", "bitstream");
}

TEST(FpgaManager, LoadsABitstreamFromTheFirmwareFolder) {
  FakeTree tree;
  AddManager(tree, "operating");
  std::string state;
  const Status s = LoadBitstream(Options(tree), "loom_1x16x16.bin", &state);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(tree.Read("sys/class/fpga_manager/fpga0/firmware"), "loom_1x16x16.bin");
  EXPECT_EQ(state, "operating");
}

TEST(FpgaManager, ReportsAWriteErrorStateAndTheFile) {
  FakeTree tree;
  AddManager(tree, "write error");
  std::string state;
  const Status s = LoadBitstream(Options(tree), "loom_1x16x16.bin", &state);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("'write error'"));
  EXPECT_THAT(s.message(), HasSubstr("/lib/firmware/loom_1x16x16.bin"));
  EXPECT_THAT(s.message(), HasSubstr("fpga0"));
  EXPECT_EQ(state, "write error");
}

TEST(FpgaManager, BitstreamMustBeAPlainNameInTheFirmwareFolder) {
  FakeTree tree;
  AddManager(tree, "operating");
  Status s = LoadBitstream(Options(tree), "../loom.bin");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("plain file name"));
  s = LoadBitstream(Options(tree), "missing.bin");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("lib/firmware/missing.bin")));
  EXPECT_THAT(s.message(), HasSubstr("copy or symlink"));
  // Nothing was written for either.
  EXPECT_EQ(tree.Read("sys/class/fpga_manager/fpga0/firmware"), "");
}

TEST(FpgaManager, MissingManagerSaysWhatToCheck) {
  FakeTree tree;
  tree.Write("lib/firmware/loom_1x16x16.bin", "bitstream");
  const Status s = LoadBitstream(Options(tree), "loom_1x16x16.bin");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("sys/class/fpga_manager/fpga0")));
}

// configfs creates `path` and `status` inside a new overlay folder itself; the fake cannot, so
// the steps after mkdir run through CompleteOverlay on a folder the test made, with the status
// the kernel would report already in it.
void AddOverlayFolder(const FakeTree& tree, const std::string& status) {
  tree.Write("lib/firmware/loom.dtbo", "dtbo");
  tree.Write("sys/kernel/config/device-tree/overlays/loom/path", "");
  tree.Write("sys/kernel/config/device-tree/overlays/loom/status", status + "\n");
}

TEST(FpgaManager, OverlayWritesThePathAndFindsTheUioDevice) {
  FakeTree tree;
  AddOverlayFolder(tree, "applied");
  tree.AddUioDevices();
  const Status s = CompleteOverlay(Options(tree), "loom", "loom.dtbo", "loom", 1000);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(tree.Read("sys/kernel/config/device-tree/overlays/loom/path"), "loom.dtbo");
}

TEST(FpgaManager, OverlayNotAppliedIsReported) {
  FakeTree tree;
  AddOverlayFolder(tree, "unapplied");
  tree.AddUioDevices();
  const Status s = CompleteOverlay(Options(tree), "loom", "loom.dtbo", "loom", 0);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("'unapplied'"));
  EXPECT_THAT(s.message(), HasSubstr("/lib/firmware/loom.dtbo"));
}

TEST(FpgaManager, OverlayWithoutUioDeviceTimesOut) {
  FakeTree tree;
  AddOverlayFolder(tree, "applied");
  const Status s = CompleteOverlay(Options(tree), "loom", "loom.dtbo", "loom", 20);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(s.message(), HasSubstr("no UIO device appeared"));
  EXPECT_THAT(s.message(), HasSubstr("uio_pdrv_genirq"));
}

TEST(FpgaManager, OverlayFolderThatExistsIsRefused) {
  FakeTree tree;
  tree.Write("lib/firmware/loom.dtbo", "dtbo");
  tree.Write("sys/kernel/config/device-tree/overlays/loom/path", "");
  const Status s = ApplyOverlay(Options(tree), "loom", "loom.dtbo", "loom", 0);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("already exists"));
  EXPECT_THAT(s.message(), HasSubstr("rmdir"));
}

TEST(FpgaManager, OverlayNeedsConfigfs) {
  FakeTree tree;
  tree.Write("lib/firmware/loom.dtbo", "dtbo");
  const Status s = ApplyOverlay(Options(tree), "loom", "loom.dtbo", "loom", 0);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("configfs"));
}

TEST(FpgaManager, OverlayBadNamesAreRefused) {
  FakeTree tree;
  tree.Write("lib/firmware/loom.dtbo", "dtbo");
  tree.MakeDir("sys/kernel/config/device-tree/overlays");
  EXPECT_EQ(ApplyOverlay(Options(tree), "../x", "loom.dtbo", "loom", 0).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyOverlay(Options(tree), "loom", "/tmp/loom.dtbo", "loom", 0).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyOverlay(Options(tree), "loom", "loom.dtbo", "loom", -1).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace loom::runtime::zynq
