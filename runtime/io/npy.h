// NumPy .npy files: the format calibration sets, test inputs and reference outputs travel in
// between the Python model scripts and the SDK.
//
// Reads format versions 1.0, 2.0 and 3.0; writes what numpy.save writes for the same array (1.0,
// or 2.0 when the header does not fit 1.0's 16-bit length), byte for byte. Supported: every
// loom::DType (see NpyDescr), little-endian, C order. Big-endian data, Fortran order, object and
// structured dtypes are rejected with a message that says so. Every malformed input is an error
// naming the file and the problem; nothing here throws, aborts or reads outside the buffer it is
// given.
//
// Host side and runtime alike: C++17 and <cstdio> only. Element data is kept as little-endian
// bytes, which is the host order on every target Loom builds for (x86-64, ARMv7, AArch64).
#ifndef LOOM_RUNTIME_IO_NPY_H_
#define LOOM_RUNTIME_IO_NPY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/dtype.h"
#include "runtime/core/status.h"

namespace loom {

// The .npy descr of a type, as numpy.save writes it: "<f4", "|i1", ... (DTypeLongName gives the
// NumPy name, DTypeSize the item size.) "" for kUndefined.
const char* NpyDescr(DType dtype);
// The type of a descr string from a file's header. 1-byte types are accepted with '|', '<' or '>';
// big-endian, object and unknown descrs are errors that say which and list the supported ones.
Status NpyDescrToDType(const std::string& descr, DType* out);

// One array. shape is empty for a 0-d (scalar) array; bytes holds the elements in C order, each
// little-endian, and has exactly NumElements() * DTypeSize(dtype) bytes in a valid array.
struct NpyArray {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  // The product of the dimensions (1 for a scalar). Only meaningful for a valid shape (see
  // NpyElementCount for the checked version).
  int64_t NumElements() const;
};

// The number of elements of `shape`, with every dimension checked to be >= 0 and the total byte
// size of `dtype` elements checked to fit int64 and size_t. At most kNpyMaxRank dimensions.
constexpr size_t kNpyMaxRank = 64;  // NumPy 2's NPY_MAXDIMS
Status NpyElementCount(const std::vector<int64_t>& shape, DType dtype, int64_t* count);

// Parses a whole .npy file held in memory. `source` names the file in error messages. On error
// *out is left unspecified.
Status ParseNpy(const uint8_t* data, size_t size, const std::string& source, NpyArray* out);
// Reads and parses the file at `path` (through file.h: at most kMaxTensorFileBytes; a directory,
// pipe or device is refused before it is read).
Status ReadNpy(const std::string& path, NpyArray* out);

// The file numpy.save would write for `array` (shape and byte size are validated first).
Status SerializeNpy(const NpyArray& array, std::vector<uint8_t>* out);
// Writes `array` to `path`, replacing any file there.
Status WriteNpy(const std::string& path, const NpyArray& array);

// Typed helpers. MakeNpy copies `values` (which must hold the shape's element count; checked by
// SerializeNpy/WriteNpy, not here). NpyToVector fails when the dtype is not T's.
template <typename T>
NpyArray MakeNpy(std::vector<int64_t> shape, const std::vector<T>& values) {
  NpyArray a;
  a.dtype = DTypeOf<T>::value;
  a.shape = std::move(shape);
  // The copy's size comes from `values`, not from a.bytes.size(): GCC 12's -Warray-bounds misreads
  // the latter after resize() when cross-compiling for 32-bit ARM.
  const size_t n = values.size() * sizeof(T);
  a.bytes.resize(n);
  if (n != 0) std::memcpy(a.bytes.data(), values.data(), n);
  return a;
}

template <typename T>
Status NpyToVector(const NpyArray& array, std::vector<T>* out) {
  if (array.dtype != DTypeOf<T>::value) {
    return InvalidArgument(std::string("array holds ") + DTypeLongName(array.dtype) +
                           ", expected " + DTypeLongName(DTypeOf<T>::value));
  }
  if (array.bytes.size() % sizeof(T) != 0) {
    return InvalidArgument("array byte size " + std::to_string(array.bytes.size()) +
                           " is not a multiple of its element size");
  }
  out->resize(array.bytes.size() / sizeof(T));
  if (!out->empty()) std::memcpy(out->data(), array.bytes.data(), array.bytes.size());
  return Status::Ok();
}

}  // namespace loom

#endif  // LOOM_RUNTIME_IO_NPY_H_
