// Fuzz target for the .npy reader and writer.
//
// Input: the bytes of a candidate .npy file. ParseNpy may reject it (with any status) but must not
// crash or read out of bounds. Whatever it accepts must be self-consistent (byte size matches the
// shape and dtype) and must survive SerializeNpy -> ParseNpy unchanged; the second serialization
// must equal the first (the writer is canonical). A violation is printed and the target abort()s.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/io/npy.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "npy_fuzz: %s\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  loom::NpyArray array;
  loom::Status s = loom::ParseNpy(data, size, "fuzz.npy", &array);
  if (!s.ok()) {
    if (s.message().rfind("fuzz.npy: ", 0) != 0) Fail("error does not name the file", s.ToString());
    return 0;
  }
  int64_t count = 0;
  s = loom::NpyElementCount(array.shape, array.dtype, &count);
  if (!s.ok()) Fail("an accepted shape fails NpyElementCount", s.ToString());
  if (array.bytes.size() != static_cast<size_t>(count) * loom::DTypeSize(array.dtype)) {
    Fail("byte size does not match the shape", std::to_string(array.bytes.size()));
  }

  std::vector<uint8_t> file;
  s = loom::SerializeNpy(array, &file);
  if (!s.ok()) Fail("SerializeNpy rejects a parsed array", s.ToString());
  loom::NpyArray again;
  s = loom::ParseNpy(file.data(), file.size(), "reserialized.npy", &again);
  if (!s.ok()) Fail("ParseNpy(SerializeNpy(x)) fails", s.ToString());
  if (again.dtype != array.dtype || again.shape != array.shape || again.bytes != array.bytes) {
    Fail("ParseNpy(SerializeNpy(x)) != x", loom::DTypeLongName(again.dtype));
  }
  std::vector<uint8_t> file2;
  s = loom::SerializeNpy(again, &file2);
  if (!s.ok() || file2 != file) Fail("SerializeNpy is not canonical", s.ToString());
  return 0;
}
