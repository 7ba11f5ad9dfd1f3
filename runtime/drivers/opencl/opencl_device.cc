#include "runtime/drivers/opencl/opencl_device.h"

#include <dirent.h>

#include <cctype>
#include <cstdlib>
#include <vector>

namespace loom::runtime::opencl {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsIndex(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return s.size() < 6;
}

// `want` empty, the index `index`, or a case-insensitive part of `name`.
bool Matches(const std::string& want, size_t index, const std::string& name) {
  if (want.empty()) return true;
  if (IsIndex(want)) return std::strtoul(want.c_str(), nullptr, 10) == index;
  return Lower(name).find(Lower(want)) != std::string::npos;
}

std::string PlatformInfo(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "?";
  std::string s(n, '\0');
  if (clGetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return "?";
  s.resize(s.find('\0') == std::string::npos ? n : s.find('\0'));
  return s;
}

std::string DeviceInfo(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "?";
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return "?";
  s.resize(s.find('\0') == std::string::npos ? n : s.find('\0'));
  return s;
}

const char* TypeName(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  if (t & CL_DEVICE_TYPE_GPU) return "gpu";
  if (t & CL_DEVICE_TYPE_CPU) return "cpu";
  return "other";
}

std::vector<cl_platform_id> Platforms(cl_int* err) {
  cl_uint n = 0;
  *err = clGetPlatformIDs(0, nullptr, &n);
  if (*err != CL_SUCCESS || n == 0) return {};
  std::vector<cl_platform_id> v(n);
  *err = clGetPlatformIDs(n, v.data(), nullptr);
  if (*err != CL_SUCCESS) return {};
  return v;
}

std::vector<cl_device_id> Devices(cl_platform_id p) {
  cl_uint n = 0;
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_device_id> v(n);
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, v.data(), nullptr) != CL_SUCCESS) return {};
  return v;
}

// What the ICD loader had to go on: its vendor folder (or OCL_ICD_VENDORS) and each .icd file's
// library. The usual cause of "no platform" is an empty folder: no ICD package installed.
std::string LoaderReport(cl_int err) {
  const char* env = std::getenv("OCL_ICD_VENDORS");
  const std::string dir = env != nullptr && env[0] != '\0' ? env : "/etc/OpenCL/vendors";
  std::string r = "the ICD loader (libOpenCL) found no platform: clGetPlatformIDs returned " +
                  ClErrorName(err) + "; vendor folder " + dir +
                  (env != nullptr ? " (from OCL_ICD_VENDORS)" : "") + ": ";
  std::vector<std::string> icds;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".icd") == 0) icds.push_back(name);
    }
    closedir(d);
    if (icds.empty()) r += "no .icd files";
    for (size_t i = 0; i < icds.size(); ++i) r += (i ? ", " : "") + icds[i];
  } else {
    r += "missing";
  }
  return r + ". Install an OpenCL implementation (Debian: apt-get install pocl-opencl-icd for " +
         "the CPU), or set OCL_ICD_VENDORS to the folder of its .icd file";
}

}  // namespace

std::string ClErrorName(cl_int err) {
  const char* name = "an OpenCL error";
  switch (err) {
    case CL_DEVICE_NOT_FOUND:
      name = "CL_DEVICE_NOT_FOUND";
      break;
    case CL_DEVICE_NOT_AVAILABLE:
      name = "CL_DEVICE_NOT_AVAILABLE";
      break;
    case CL_COMPILER_NOT_AVAILABLE:
      name = "CL_COMPILER_NOT_AVAILABLE";
      break;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      name = "CL_MEM_OBJECT_ALLOCATION_FAILURE";
      break;
    case CL_OUT_OF_RESOURCES:
      name = "CL_OUT_OF_RESOURCES";
      break;
    case CL_OUT_OF_HOST_MEMORY:
      name = "CL_OUT_OF_HOST_MEMORY";
      break;
    case CL_BUILD_PROGRAM_FAILURE:
      name = "CL_BUILD_PROGRAM_FAILURE";
      break;
    case CL_INVALID_VALUE:
      name = "CL_INVALID_VALUE";
      break;
    case CL_INVALID_PLATFORM:
      name = "CL_INVALID_PLATFORM";
      break;
    case CL_INVALID_DEVICE:
      name = "CL_INVALID_DEVICE";
      break;
    case CL_INVALID_BINARY:
      name = "CL_INVALID_BINARY";
      break;
    case CL_INVALID_BUFFER_SIZE:
      name = "CL_INVALID_BUFFER_SIZE";
      break;
    case CL_INVALID_KERNEL_NAME:
      name = "CL_INVALID_KERNEL_NAME";
      break;
    case CL_INVALID_KERNEL_ARGS:
      name = "CL_INVALID_KERNEL_ARGS";
      break;
    case CL_INVALID_BUILD_OPTIONS:
      name = "CL_INVALID_BUILD_OPTIONS";
      break;
    case CL_INVALID_PROGRAM_EXECUTABLE:
      name = "CL_INVALID_PROGRAM_EXECUTABLE";
      break;
    case -1001:
      name = "CL_PLATFORM_NOT_FOUND_KHR";
      break;
    default:
      break;
  }
  return std::string(name) + " (" + std::to_string(err) + ")";
}

Status ClError(const std::string& what, cl_int err) {
  const StatusCode code = err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
                                  err == CL_MEM_OBJECT_ALLOCATION_FAILURE
                              ? StatusCode::kOutOfRange
                              : StatusCode::kInternal;
  return Status(code, "opencl: " + what + " failed: " + ClErrorName(err));
}

Status ParseDeviceArgs(const std::string& args, DeviceArgs* out) {
  *out = DeviceArgs();
  if (args.empty()) return Status::Ok();
  std::vector<std::string> parts;
  for (size_t pos = 0;;) {
    const size_t colon = args.find(':', pos);
    parts.push_back(args.substr(pos, colon - pos));
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  int positional = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    const size_t eq = p.find('=');
    if (eq == std::string::npos) {
      if (positional == 2) {
        return InvalidArgument("device 'opencl:" + args + "': '" + p + "' is a third name; the " +
                               "form is opencl[:PLATFORM[:DEVICE]][:binary=PATH][:cache=DIR]");
      }
      (positional++ == 0 ? out->platform : out->device) = p;
      continue;
    }
    const std::string key = p.substr(0, eq);
    // A path may hold ':'; binary= and cache= take the rest of the string.
    std::string value = p.substr(eq + 1);
    for (size_t j = i + 1; j < parts.size() && (key == "binary" || key == "cache"); ++j) {
      value += ":" + parts[j];
      i = j;
    }
    if (value.empty()) {
      return InvalidArgument("device 'opencl:" + args + "': " + key + "= needs a value");
    }
    if (key == "binary") {
      out->binary = value;
    } else if (key == "cache") {
      out->cache = value;
    } else {
      return InvalidArgument("device 'opencl:" + args + "': unknown option '" + key +
                             "' (options: binary=PATH, cache=DIR|off)");
    }
  }
  return Status::Ok();
}

Status SelectDevice(const DeviceArgs& args, SelectedDevice* out) {
  cl_int err = CL_SUCCESS;
  const std::vector<cl_platform_id> platforms = Platforms(&err);
  if (platforms.empty()) return NotFound("opencl: " + LoaderReport(err));
  std::string seen;
  for (size_t pi = 0; pi < platforms.size(); ++pi) {
    const std::string pname = PlatformInfo(platforms[pi], CL_PLATFORM_NAME);
    const std::vector<cl_device_id> devices = Devices(platforms[pi]);
    seen += (pi ? "; " : "") + std::to_string(pi) + ": '" + pname + "' (";
    for (size_t di = 0; di < devices.size(); ++di) {
      seen += (di ? ", " : "") + std::to_string(di) + ": '" +
              DeviceInfo(devices[di], CL_DEVICE_NAME) + "'";
    }
    seen += devices.empty() ? "no devices)" : ")";
    if (!Matches(args.platform, pi, pname)) continue;
    for (size_t di = 0; di < devices.size(); ++di) {
      const std::string dname = DeviceInfo(devices[di], CL_DEVICE_NAME);
      if (!Matches(args.device, di, dname)) continue;
      out->platform = platforms[pi];
      out->device = devices[di];
      out->platform_name = pname;
      out->device_name = dname;
      out->platform_version = PlatformInfo(platforms[pi], CL_PLATFORM_VERSION);
      out->device_version = DeviceInfo(devices[di], CL_DEVICE_VERSION);
      out->driver_version = DeviceInfo(devices[di], CL_DRIVER_VERSION);
      clGetDeviceInfo(devices[di], CL_DEVICE_TYPE, sizeof out->type, &out->type, nullptr);
      return Status::Ok();
    }
  }
  return NotFound("opencl: no device matches platform '" + args.platform + "' and device '" +
                  args.device + "' (a part of the name, or an index); platforms: " + seen);
}

std::string DescribeDevices() {
  cl_int err = CL_SUCCESS;
  const std::vector<cl_platform_id> platforms = Platforms(&err);
  if (platforms.empty()) return "  (none: " + LoaderReport(err) + ")\n";
  std::string s;
  for (size_t pi = 0; pi < platforms.size(); ++pi) {
    const std::string pname = PlatformInfo(platforms[pi], CL_PLATFORM_NAME);
    s += "  platform " + std::to_string(pi) + ": " + pname + " (" +
         PlatformInfo(platforms[pi], CL_PLATFORM_VERSION) + ")\n";
    const std::vector<cl_device_id> devices = Devices(platforms[pi]);
    for (size_t di = 0; di < devices.size(); ++di) {
      cl_device_type type = 0;
      clGetDeviceInfo(devices[di], CL_DEVICE_TYPE, sizeof type, &type, nullptr);
      s += "    device " + std::to_string(di) + ": " + DeviceInfo(devices[di], CL_DEVICE_NAME) +
           " [" + TypeName(type) + "], select with --device opencl:" + std::to_string(pi) + ":" +
           std::to_string(di) + "\n";
    }
  }
  return s;
}

}  // namespace loom::runtime::opencl
