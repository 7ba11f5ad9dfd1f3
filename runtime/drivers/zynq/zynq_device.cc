#include "runtime/drivers/zynq/zynq_device.h"

#include <unistd.h>

#include <utility>

#include "runtime/drivers/zynq/sysfs.h"
#include "runtime/drivers/zynq/udmabuf_transport.h"
#include "runtime/drivers/zynq/uio_transport.h"

namespace loom::runtime::zynq {
namespace {

constexpr const char* kKeys =
    "uio=NAME, dma=udmabuf[:NAME]|devmem:ADDR:SIZE, uncached, "
    "addr_bits=32|40, root=DIR";

Status ArgError(const std::string& args, const std::string& why) {
  return InvalidArgument("device string 'zynq:" + args + "': " + why + " (keys: " + kKeys +
                         "; docs/boards.md)");
}

// The entries of a device-tree string list ("a\0b\0"), shown as "a, b".
std::string ShowList(const std::string& list) {
  std::string shown;
  size_t begin = 0;
  while (begin < list.size()) {
    size_t end = list.find('\0', begin);
    if (end == std::string::npos) end = list.size();
    if (end > begin) shown += (shown.empty() ? "" : ", ") + list.substr(begin, end - begin);
    begin = end + 1;
  }
  return shown.empty() ? "nothing" : shown;
}

bool Lists(const std::string& list, const std::string& entry) {
  size_t begin = 0;
  while (begin <= list.size()) {
    size_t end = list.find('\0', begin);
    if (end == std::string::npos) end = list.size();
    if (list.compare(begin, end - begin, entry) == 0) return true;
    begin = end + 1;
  }
  return false;
}

}  // namespace

Status ParseZynqDeviceArgs(const std::string& args, ZynqDeviceArgs* out) {
  ZynqDeviceArgs a;
  bool seen_uio = false, seen_dma = false, seen_uncached = false, seen_bits = false,
       seen_root = false;
  size_t begin = 0;
  while (begin < args.size()) {
    size_t end = args.find(',', begin);
    if (end == std::string::npos) end = args.size();
    const std::string item = args.substr(begin, end - begin);
    begin = end + 1;
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : item.substr(eq + 1);
    if (item.empty()) return ArgError(args, "empty entry between commas");
    auto once = [&](bool* seen) {
      if (*seen) return false;
      *seen = true;
      return true;
    };
    if (key == "uncached") {
      if (eq != std::string::npos) return ArgError(args, "uncached takes no value");
      if (!once(&seen_uncached)) return ArgError(args, "uncached given twice");
      a.uncached = true;
      continue;
    }
    if (eq == std::string::npos) return ArgError(args, "'" + item + "' is not KEY=VALUE");
    if (value.empty()) return ArgError(args, key + "= has no value");
    if (key == "uio") {
      if (!once(&seen_uio)) return ArgError(args, "uio given twice");
      if (value.find('/') != std::string::npos) {
        return ArgError(args, "uio=" + value + " is not a UIO device name");
      }
      a.uio = value;
    } else if (key == "dma") {
      if (!once(&seen_dma)) return ArgError(args, "dma given twice");
      const Status s = ParseDmaOption(value, &a.dma);
      if (!s.ok()) return ArgError(args, s.message());
    } else if (key == "addr_bits") {
      if (!once(&seen_bits)) return ArgError(args, "addr_bits given twice");
      if (value != "32" && value != "40") {
        return ArgError(args, "addr_bits=" + value + ": expected 32 (Zynq-7000) or 40 (ZynqMP)");
      }
      a.address_bits = value == "32" ? 32 : 40;
    } else if (key == "root") {
      if (!once(&seen_root)) return ArgError(args, "root given twice");
      if (value[0] != '/') return ArgError(args, "root=" + value + " is not an absolute path");
      a.root = value;
    } else {
      return ArgError(args, "unknown key '" + key + "'");
    }
  }
  if (!args.empty() && args.back() == ',') return ArgError(args, "empty entry after the last ','");
  if (a.uncached && a.dma.kind == DmaOption::Kind::kDevmem) {
    return ArgError(args, "uncached is for u-dma-buf; dma=devmem is always mapped uncached");
  }
  *out = std::move(a);
  return Status::Ok();
}

Status DetectAddressBits(const std::string& root, int* bits) {
  const std::string candidates[] = {UnderRoot(root, "/proc/device-tree/compatible"),
                                    UnderRoot(root, "/sys/firmware/devicetree/base/compatible")};
  for (const std::string& path : candidates) {
    if (access(path.c_str(), F_OK) != 0) continue;
    std::string list;
    LOOM_RETURN_IF_ERROR(ReadAttribute(path, "device-tree compatible list", &list));
    if (Lists(list, "xlnx,zynqmp")) {
      *bits = 40;
      return Status::Ok();
    }
    if (Lists(list, "xlnx,zynq-7000")) {
      *bits = 32;
      return Status::Ok();
    }
    return FailedPrecondition("the device tree's compatible list in " + path + " (" +
                              ShowList(list) +
                              ") names neither xlnx,zynqmp nor xlnx,zynq-7000, so the DMA address "
                              "width is unknown; is this a Zynq board? Give addr_bits=32 or 40 "
                              "in the device string (zynq:addr_bits=40)");
  }
  return NotFound("no device tree: neither " + candidates[0] + " nor " + candidates[1] +
                  " exists, so the DMA address width (32 bits on Zynq-7000, 40 on ZynqMP) is "
                  "unknown; give addr_bits=32 or 40 in the device string (zynq:addr_bits=40)");
}

Status OpenZynqDevice(const ZynqDeviceArgs& args, std::unique_ptr<RegisterTransport>* regs,
                      std::unique_ptr<DmaTransport>* dma) {
  UioOptions uo;
  uo.root = args.root;
  uo.name = args.uio;
  std::unique_ptr<UioTransport> uio;
  LOOM_RETURN_IF_ERROR(UioTransport::Open(uo, &uio));
  int bits = args.address_bits;
  if (bits == 0) LOOM_RETURN_IF_ERROR(DetectAddressBits(args.root, &bits));
  if (args.dma.kind == DmaOption::Kind::kDevmem) {
    std::unique_ptr<DevmemTransport> d;
    LOOM_RETURN_IF_ERROR(
        DevmemTransport::Open(args.root, args.dma.devmem_addr, args.dma.devmem_bytes, bits, &d));
    *dma = std::move(d);
  } else {
    UdmabufOptions o;
    o.root = args.root;
    o.name = args.dma.udmabuf_name;
    o.address_bits = bits;
    o.uncached = args.uncached;
    std::unique_ptr<UdmabufTransport> d;
    LOOM_RETURN_IF_ERROR(UdmabufTransport::Open(o, &d));
    *dma = std::move(d);
  }
  *regs = std::move(uio);
  return Status::Ok();
}

}  // namespace loom::runtime::zynq
