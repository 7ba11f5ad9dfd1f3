#include "runtime/io/file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/core/checked_math.h"

namespace loom {
namespace {

// Reads the file into `out` (a byte vector or a string) after checking what it is and its size;
// the read must then see exactly that many bytes.
template <typename Buffer>
Status ReadChecked(const std::string& path, const char* what, uint64_t max_bytes, Buffer* out) {
  // stat first: a FIFO or a character device (/dev/zero) is refused before it is opened, since
  // opening a FIFO with no writer blocks.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    const std::string why = std::strerror(err);
    return err == ENOENT ? NotFound(std::string(what) + " " + path + ": no such file")
                         : InvalidArgument(std::string(what) + " " + path + ": " + why);
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a pipe"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                                              : "not a regular file";
    return InvalidArgument(std::string(what) + " " + path + " is " + kind +
                           "; give the path of a regular file");
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    return InvalidArgument(std::string(what) + " " + path + " has " + std::to_string(size) +
                           " bytes, more than the " + std::to_string(max_bytes) +
                           " bytes accepted for it");
  }
  size_t host_size = 0;  // a cap of 4 GiB does not fit a 32-bit size_t
  if (!CheckedCast(size, &host_size)) {
    return InvalidArgument(std::string(what) + " " + path + " has " + std::to_string(size) +
                           " bytes, more than this host can address");
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return InvalidArgument(std::string(what) + " " + path +
                           ": cannot open: " + std::strerror(errno));
  }
  out->resize(host_size);
  const size_t got = size ? std::fread(&(*out)[0], 1, out->size(), f) : 0;
  const bool error = std::ferror(f) != 0;
  const bool more = std::fgetc(f) != EOF;
  std::fclose(f);
  if (error) return DataLoss(std::string(what) + " " + path + ": read error");
  if (got != size || more) {
    return DataLoss(std::string(what) + " " + path + " changed size while being read");
  }
  return Status::Ok();
}

}  // namespace

Status ReadFileBytes(const std::string& path, const char* what, uint64_t max_bytes,
                     std::vector<uint8_t>* out) {
  return ReadChecked(path, what, max_bytes, out);
}

Status ReadFileText(const std::string& path, const char* what, uint64_t max_bytes,
                    std::string* out) {
  return ReadChecked(path, what, max_bytes, out);
}

}  // namespace loom
