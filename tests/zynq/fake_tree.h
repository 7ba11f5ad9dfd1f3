// A temporary folder laid out like the parts of / the zynq transports read: sysfs attributes and
// device nodes are regular files. mmap of a regular file behaves like the real mapping for plain
// loads and stores; poll() on a regular file reports readable at once, so interrupts can only be
// checked for their plumbing here, not for their timing.
#ifndef LOOM_TESTS_ZYNQ_FAKE_TREE_H_
#define LOOM_TESTS_ZYNQ_FAKE_TREE_H_

#include <cstdint>
#include <string>

namespace loom::testing {

class FakeTree {
 public:
  FakeTree();   // creates an empty temporary folder
  ~FakeTree();  // removes it with everything in it
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  const std::string& root() const { return root_; }
  std::string Path(const std::string& rel) const { return root_ + "/" + rel; }
  // Creates `rel` (and its folders) holding `text`.
  void Write(const std::string& rel, const std::string& text) const;
  // Creates `rel` (and its folders) as `bytes` zero bytes.
  void WriteZeros(const std::string& rel, uint64_t bytes) const;
  void MakeDir(const std::string& rel) const;
  std::string Read(const std::string& rel) const;

  // uio0 named "other" and uio1 named "loom" with a 4 KiB map0 at 0xa0000000 and /dev/uio1.
  void AddUioDevices() const;
  // /dev/udmabuf-loom of `bytes` with its sysfs attributes at `phys_addr`.
  void AddUdmabuf(uint64_t phys_addr, uint64_t bytes, bool coherent) const;

 private:
  std::string root_;
};

}  // namespace loom::testing

#endif  // LOOM_TESTS_ZYNQ_FAKE_TREE_H_
