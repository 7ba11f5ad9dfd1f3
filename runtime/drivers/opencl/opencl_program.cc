#include "runtime/drivers/opencl/opencl_program.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/core/isa.h"

namespace loom::runtime::opencl {
namespace {

uint64_t Fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool ReadFile(const std::string& path, std::vector<unsigned char>* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  out->clear();
  unsigned char buf[65536];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->insert(out->end(), buf, buf + n);
  const bool ok = std::ferror(f) == 0;
  std::fclose(f);
  return ok && !out->empty();
}

// mkdir -p, best effort.
void MakeDirs(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos == dir.size() || dir[pos] == '/') mkdir(dir.substr(0, pos).c_str(), 0755);
  }
}

// Writes through a temporary file and a rename, so a concurrent reader never sees half a binary.
void WriteFileAtomically(const std::string& path, const std::vector<unsigned char>& bytes) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) == 0 && ok && std::rename(tmp.c_str(), path.c_str()) == 0) return;
  std::remove(tmp.c_str());
}

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t n = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n > 0) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

Status Build(cl_program program, const SelectedDevice& dev, const std::string& options,
             const std::string& what) {
  const cl_int err = clBuildProgram(program, 1, &dev.device, options.c_str(), nullptr, nullptr);
  if (err == CL_SUCCESS) return Status::Ok();
  return Status(StatusCode::kInternal, "opencl: building " + what + " for '" + dev.device_name +
                                           "' failed: " + ClErrorName(err) + "; build log:\n" +
                                           BuildLog(program, dev.device));
}

Status FromBinary(cl_context context, const SelectedDevice& dev,
                  const std::vector<unsigned char>& bytes, cl_program* out) {
  const unsigned char* data = bytes.data();
  const size_t size = bytes.size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  *out = clCreateProgramWithBinary(context, 1, &dev.device, &size, &data, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    if (*out != nullptr) clReleaseProgram(*out);
    *out = nullptr;
    return ClError("clCreateProgramWithBinary", err != CL_SUCCESS ? err : status);
  }
  return Status::Ok();
}

// The device binary of a built program (one device).
bool ProgramBinary(cl_program program, std::vector<unsigned char>* out) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
          CL_SUCCESS ||
      size == 0) {
    return false;
  }
  out->assign(size, 0);
  unsigned char* data = out->data();
  return clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr) == CL_SUCCESS;
}

}  // namespace

std::string BuildOptions(const HwConfig& c) {
  isa::Layout l;
  (void)isa::Layout::Create(c, &l);  // the config was validated at Open
  const struct {
    const char* name;
    uint32_t value;
  } defs[] = {
      {"BATCH", c.batch},
      {"BLOCK_IN", c.block_in},
      {"BLOCK_OUT", c.block_out},
      {"UOP_DEPTH", l.uop_depth},
      {"INP_DEPTH", l.inp_depth},
      {"WGT_DEPTH", l.wgt_depth},
      {"ACC_DEPTH", l.acc_depth},
      {"UOP_BITS", l.uop_idx_bits},
      {"INP_BITS", l.inp_idx_bits},
      {"WGT_BITS", l.wgt_idx_bits},
      {"ACC_BITS", l.acc_idx_bits},
      {"SRAM_BITS", l.sram_bits},
      {"TOKEN_DEPTH", c.token_queue_depth},
      {"CMD_DEPTH", c.cmd_queue_depth},
  };
  std::string s = "-cl-std=CL1.2";
  for (const auto& d : defs) s += std::string(" -D LOOM_") + d.name + "=" + std::to_string(d.value);
  return s;
}

std::string CacheDir(const std::string& cache) {
  if (cache == "off") return "";
  if (!cache.empty()) return cache;
  if (const char* env = std::getenv("LOOM_OPENCL_CACHE"); env != nullptr && env[0] != '\0') {
    return std::string(env) == "off" ? "" : env;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::string(xdg) + "/loom/opencl";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    return std::string(home) + "/.cache/loom/opencl";
  }
  return "";
}

Status BuildProgram(cl_context context, const SelectedDevice& dev, const HwConfig& config,
                    const std::string& binary, const std::string& cache, cl_program* out,
                    ProgramOrigin* origin) {
  const std::string options = BuildOptions(config);
  if (!binary.empty()) {
    std::vector<unsigned char> bytes;
    if (!ReadFile(binary, &bytes)) {
      return NotFound("opencl: cannot read the kernel binary '" + binary + "' (binary=)");
    }
    LOOM_RETURN_IF_ERROR(FromBinary(context, dev, bytes, out));
    *origin = ProgramOrigin::kBinary;
    return Build(*out, dev, options, "the kernel binary '" + binary + "'");
  }

  const std::string dir = CacheDir(cache);
  char key[17];
  std::snprintf(key, sizeof key, "%016llx",
                static_cast<unsigned long long>(Fnv1a(
                    dev.platform_name + "\n" + dev.platform_version + "\n" + dev.device_name +
                        "\n" + dev.device_version + "\n" + dev.driver_version + "\n" + options,
                    Fnv1a(kKernelSource))));
  const std::string path = dir.empty() ? "" : dir + "/vta-" + key + ".bin";
  std::vector<unsigned char> bytes;
  if (!path.empty() && ReadFile(path, &bytes)) {
    // A stale or foreign file only costs the source build below.
    if (FromBinary(context, dev, bytes, out).ok()) {
      if (Build(*out, dev, options, "the cached kernel").ok()) {
        *origin = ProgramOrigin::kCache;
        return Status::Ok();
      }
      clReleaseProgram(*out);
    }
  }
  const char* src = kKernelSource;
  cl_int err = CL_SUCCESS;
  *out = clCreateProgramWithSource(context, 1, &src, nullptr, &err);
  if (err != CL_SUCCESS) return ClError("clCreateProgramWithSource", err);
  const Status s = Build(*out, dev, options, "vta.cl");
  if (!s.ok()) {
    clReleaseProgram(*out);
    *out = nullptr;
    return s;
  }
  *origin = ProgramOrigin::kSource;
  if (!path.empty() && ProgramBinary(*out, &bytes)) {
    MakeDirs(dir);
    WriteFileAtomically(path, bytes);
  }
  return Status::Ok();
}

}  // namespace loom::runtime::opencl
