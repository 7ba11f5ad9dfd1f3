#include "runtime/drivers/zynq/fpga_manager.h"

#include <sys/stat.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "runtime/drivers/zynq/sysfs.h"
#include "runtime/drivers/zynq/uio_transport.h"

namespace loom::runtime::zynq {
namespace {

// The kernel's firmware loader takes a name relative to /lib/firmware; anything with a slash or a
// dot-dot would either be refused by it or load something else than the user named.
Status CheckFirmwareFile(const FpgaOptions& options, const std::string& file_name,
                         const char* what) {
  if (file_name.empty() || file_name.find('/') != std::string::npos || file_name == "." ||
      file_name == "..") {
    return InvalidArgument(std::string(what) + " '" + file_name +
                           "' must be a plain file name inside /lib/firmware; copy or symlink "
                           "the file there first");
  }
  const std::string path = UnderRoot(options.root, "/lib/firmware/" + file_name);
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return OpenError(errno, std::string(what) + " " + path + " is not there (" + OpenHint(errno) +
                                "); copy or symlink it into /lib/firmware");
  }
  if (!S_ISREG(st.st_mode)) {
    return InvalidArgument(std::string(what) + " " + path + " is not a regular file");
  }
  return Status::Ok();
}

Status CheckOverlayArgs(const FpgaOptions& options, const std::string& overlay_name,
                        const std::string& dtbo_file_name, int timeout_ms) {
  if (overlay_name.empty() || overlay_name.find('/') != std::string::npos ||
      overlay_name[0] == '.') {
    return InvalidArgument("overlay name '" + overlay_name + "' must be a plain folder name");
  }
  if (timeout_ms < 0) {
    return InvalidArgument("overlay wait timeout must be >= 0 ms, got " +
                           std::to_string(timeout_ms));
  }
  LOOM_RETURN_IF_ERROR(CheckFirmwareFile(options, dtbo_file_name, "overlay"));
  return Status::Ok();
}

}  // namespace

Status LoadBitstream(const FpgaOptions& options, const std::string& file_name, std::string* state) {
  LOOM_RETURN_IF_ERROR(CheckFirmwareFile(options, file_name, "bitstream"));
  const std::string dir = UnderRoot(options.root, "/sys/class/fpga_manager/" + options.manager);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return NotFound("no FPGA manager at " + dir +
                    "; check that the kernel has the FPGA manager for this part (zynqmp-fpga or "
                    "zynq-fpga) enabled");
  }
  LOOM_RETURN_IF_ERROR(WriteAttribute(dir + "/firmware", "bitstream name", file_name)
                           .WithContext("loading bitstream " + file_name + " (run as root?)"));
  std::string s;
  LOOM_RETURN_IF_ERROR(ReadAttribute(dir + "/state", "FPGA manager state", &s));
  if (state != nullptr) *state = s;
  if (s != "operating") {
    return FailedPrecondition("FPGA manager " + options.manager + " reads state '" + s +
                              "' (expected 'operating') after loading /lib/firmware/" + file_name +
                              "; check that the .bin was built for this part and board "
                              "(dmesg shows the manager's reason)");
  }
  return Status::Ok();
}

Status ApplyOverlay(const FpgaOptions& options, const std::string& overlay_name,
                    const std::string& dtbo_file_name, const std::string& uio_name,
                    int timeout_ms) {
  LOOM_RETURN_IF_ERROR(CheckOverlayArgs(options, overlay_name, dtbo_file_name, timeout_ms));
  const std::string overlays = UnderRoot(options.root, "/sys/kernel/config/device-tree/overlays");
  struct stat st;
  if (stat(overlays.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return NotFound("no configfs overlay folder " + overlays +
                    "; check that configfs is mounted (mount -t configfs none "
                    "/sys/kernel/config) and the kernel has CONFIG_OF_OVERLAY with configfs "
                    "overlays");
  }
  const std::string dir = overlays + "/" + overlay_name;
  if (mkdir(dir.c_str(), 0755) != 0) {
    const int err = errno;
    if (err == EEXIST) {
      return FailedPrecondition("overlay " + dir + " already exists; remove it (rmdir " + dir +
                                ") before applying it again");
    }
    return FailedPrecondition("cannot create overlay " + dir + ": " + OpenHint(err));
  }
  return CompleteOverlay(options, overlay_name, dtbo_file_name, uio_name, timeout_ms);
}

Status CompleteOverlay(const FpgaOptions& options, const std::string& overlay_name,
                       const std::string& dtbo_file_name, const std::string& uio_name,
                       int timeout_ms) {
  LOOM_RETURN_IF_ERROR(CheckOverlayArgs(options, overlay_name, dtbo_file_name, timeout_ms));
  const std::string dir =
      UnderRoot(options.root, "/sys/kernel/config/device-tree/overlays/" + overlay_name);
  LOOM_RETURN_IF_ERROR(WriteAttribute(dir + "/path", "overlay file name", dtbo_file_name));
  std::string status;
  LOOM_RETURN_IF_ERROR(ReadAttribute(dir + "/status", "overlay status", &status));
  if (status != "applied") {
    return FailedPrecondition("overlay " + dir + " reads status '" + status +
                              "' (expected 'applied') after writing /lib/firmware/" +
                              dtbo_file_name + "; dmesg shows why the kernel refused it");
  }
  UioOptions uio;
  uio.root = options.root;
  uio.name = uio_name;
  std::string device;
  Status found;
  for (int waited = 0;; waited += 10) {
    found = FindUioDevice(uio, &device);
    if (found.ok()) return Status::Ok();
    if (waited >= timeout_ms) break;
    const timespec ten_ms{0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, nullptr);
  }
  return Status(StatusCode::kDeadlineExceeded,
                "overlay " + overlay_name + " is applied but no UIO device appeared within " +
                    std::to_string(timeout_ms) + " ms: " + found.message());
}

}  // namespace loom::runtime::zynq
