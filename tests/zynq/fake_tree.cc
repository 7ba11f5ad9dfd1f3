#include "tests/zynq/fake_tree.h"

#include <ftw.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace loom::testing {
namespace {

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return remove(path); }

void MakeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') mkdir(path.substr(0, i).c_str(), 0755);
  }
}

std::string Hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

FakeTree::FakeTree() {
  const char* tmp = getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/loom-zynq-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << templ << " failed";
  root_ = templ;
}

FakeTree::~FakeTree() { nftw(root_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS); }

void FakeTree::MakeDir(const std::string& rel) const { MakeDirs(Path(rel)); }

void FakeTree::Write(const std::string& rel, const std::string& text) const {
  const std::string path = Path(rel);
  MakeDirs(path.substr(0, path.rfind('/')));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) ADD_FAILURE() << "cannot write " << path;
}

void FakeTree::WriteZeros(const std::string& rel, uint64_t bytes) const {
  Write(rel, "");
  if (truncate(Path(rel).c_str(), static_cast<off_t>(bytes)) != 0) {
    ADD_FAILURE() << "cannot size " << Path(rel);
  }
}

std::string FakeTree::Read(const std::string& rel) const {
  std::ifstream in(Path(rel), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void FakeTree::AddUioDevices() const {
  Write("sys/class/uio/uio0/name", "other\n");
  Write("sys/class/uio/uio0/maps/map0/addr", "0x80000000\n");
  Write("sys/class/uio/uio0/maps/map0/size", "0x1000\n");
  WriteZeros("dev/uio0", 4096);
  Write("sys/class/uio/uio1/name", "loom\n");
  Write("sys/class/uio/uio1/maps/map0/addr", "0xa0000000\n");
  Write("sys/class/uio/uio1/maps/map0/size", "0x1000\n");
  WriteZeros("dev/uio1", 4096);
}

void FakeTree::AddUdmabuf(uint64_t phys_addr, uint64_t bytes, bool coherent) const {
  const std::string dir = "sys/class/u-dma-buf/udmabuf-loom/";
  Write(dir + "phys_addr", Hex(phys_addr) + "\n");
  Write(dir + "size", std::to_string(bytes) + "\n");
  Write(dir + "dma_coherent", coherent ? "1\n" : "0\n");
  Write(dir + "sync_mode", "1\n");
  Write(dir + "sync_for_device", "");
  Write(dir + "sync_for_cpu", "");
  WriteZeros("dev/udmabuf-loom", bytes);
}

}  // namespace loom::testing
