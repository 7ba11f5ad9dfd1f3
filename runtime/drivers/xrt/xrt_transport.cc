// Compiled with exceptions (XRT's API throws); see xrt_transport.h. Every call into XRT sits in
// a try block whose handler turns the exception into a Status naming the call.
#include "runtime/drivers/xrt/xrt_transport.h"

#include <experimental/xrt_ip.h>
#include <experimental/xrt_system.h>
#include <experimental/xrt_xclbin.h>
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <map>
#include <stdexcept>
#include <utility>

#include "runtime/core/checked_math.h"

namespace loom::runtime::xrt {
namespace {

// What XRT runs on, for messages: a card, or one of its emulations.
std::string EmulationNote() {
  const char* mode = std::getenv("XCL_EMULATION_MODE");
  return mode ? std::string("XCL_EMULATION_MODE=") + mode : "XCL_EMULATION_MODE is unset";
}

// The status for an exception XRT threw from `call`, which the caller is inside a catch of.
Status FromException(const std::string& call) {
  try {
    throw;
  } catch (const std::out_of_range& e) {
    return OutOfRange(call + ": " + e.what());
  } catch (const std::exception& e) {
    return Internal(call + " failed: " + e.what());
  } catch (...) {
    return Internal(call + " failed with an exception that is not a std::exception");
  }
}

bool IsDecimal(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

Status OpenDevice(const XrtOptions& options, ::xrt::device* device) {
  const bool emulation = std::getenv("XCL_EMULATION_MODE") != nullptr;
  const std::string which = options.device.empty() ? "0" : options.device;
  try {
    // A card's count comes from the xocl driver; the emulations have none (noop reports 0 and
    // opens any index), so the count is checked only on hardware.
    const unsigned count = ::xrt::system::enumerate_devices();
    if (!emulation && count == 0) {
      return NotFound(
          "no XRT device found (XRT saw 0 devices; is the xocl driver loaded and the "
          "card's shell flashed? xbutil examine lists cards; " +
          EmulationNote() + ")");
    }
    if (IsDecimal(which)) {
      const unsigned index = static_cast<unsigned>(std::strtoul(which.c_str(), nullptr, 10));
      if (!emulation && index >= count) {
        return NotFound("XRT device index " + which + " does not exist: XRT saw " +
                        std::to_string(count) + " device(s), indices 0.." +
                        std::to_string(count - 1) + " (xbutil examine lists them)");
      }
      *device = ::xrt::device(index);
    } else {
      *device = ::xrt::device(which);
    }
  } catch (...) {
    Status s = FromException("xrt::device(" + which + ")");
    std::string hint;
    const char* root = std::getenv("XILINX_XRT");
    if (!root) {
      hint =
          "; XILINX_XRT is unset: XRT loads its device library from $XILINX_XRT/lib "
          "(source /opt/xilinx/xrt/setup.sh, or see docs/boards.md for Debian's libxrt1)";
    }
    return NotFound("cannot open XRT device '" + which + "': " + s.message() + " (" +
                    EmulationNote() + ")" + hint);
  }
  return Status::Ok();
}

}  // namespace

Status ParseXrtDeviceArgs(const std::string& args, const char* env_xclbin, XrtOptions* out) {
  XrtOptions o;
  if (env_xclbin) o.xclbin = env_xclbin;
  size_t start = 0;
  bool first = true;
  while (start <= args.size() && !args.empty()) {
    size_t comma = args.find(',', start);
    if (comma == std::string::npos) comma = args.size();
    const std::string part = args.substr(start, comma - start);
    const size_t eq = part.find('=');
    if (eq == std::string::npos) {
      if (!first) {
        return InvalidArgument("xrt device string '" + args + "': '" + part +
                               "' is not KEY=VALUE (the device comes first: "
                               "xrt:DEVICE,xclbin=PATH,kernel=NAME)");
      }
      if (part.empty()) {
        o.device.clear();
      } else if (IsDecimal(part) || part.find(':') != std::string::npos) {
        o.device = part;
      } else {
        return InvalidArgument("xrt device string '" + args + "': device '" + part +
                               "' is neither an index (0, 1, ...) nor a PCIe BDF "
                               "(0000:65:00.1)");
      }
    } else {
      const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
      if (value.empty()) {
        return InvalidArgument("xrt device string '" + args + "': " + key + "= has no value");
      }
      if (key == "xclbin") {
        o.xclbin = value;
      } else if (key == "kernel") {
        o.kernel = value;
      } else {
        return InvalidArgument("xrt device string '" + args + "': unknown key '" + key +
                               "' (known: xclbin, kernel)");
      }
    }
    first = false;
    start = comma + 1;
  }
  *out = std::move(o);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Registers.

struct XrtRegisterTransport::Impl {
  ::xrt::device device;
  ::xrt::ip ip;
  std::string name;  // the kernel, for messages
  bool has_interrupt = false;
  ::xrt::ip::interrupt interrupt{nullptr};
  std::string no_interrupt_reason;
};

XrtRegisterTransport::XrtRegisterTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

XrtRegisterTransport::~XrtRegisterTransport() {
  try {
    impl_.reset();
  } catch (...) {
    // A destructor must not throw; XRT's close_context failing leaves nothing to undo.
  }
}

const std::string& XrtRegisterTransport::no_interrupt_reason() const {
  return impl_->no_interrupt_reason;
}

Status XrtRegisterTransport::Read32(uint32_t offset, uint32_t* value) {
  if (offset % 4 != 0) {
    return OutOfRange("register offset " + std::to_string(offset) + " of kernel " + impl_->name +
                      " is not 4-byte aligned");
  }
  try {
    *value = impl_->ip.read_register(offset);
  } catch (...) {
    return FromException("xrt::ip::read_register(" + std::to_string(offset) + ") on kernel " +
                         impl_->name);
  }
  return Status::Ok();
}

Status XrtRegisterTransport::Write32(uint32_t offset, uint32_t value) {
  if (offset % 4 != 0) {
    return OutOfRange("register offset " + std::to_string(offset) + " of kernel " + impl_->name +
                      " is not 4-byte aligned");
  }
  try {
    impl_->ip.write_register(offset, value);
  } catch (...) {
    return FromException("xrt::ip::write_register(" + std::to_string(offset) + ") on kernel " +
                         impl_->name);
  }
  return Status::Ok();
}

Status XrtRegisterTransport::EnableInterrupt() {
  if (!impl_->has_interrupt) return Unimplemented(impl_->no_interrupt_reason);
  try {
    impl_->interrupt.enable();
  } catch (...) {
    return FromException("xrt::ip::interrupt::enable on kernel " + impl_->name);
  }
  return Status::Ok();
}

Status XrtRegisterTransport::WaitInterrupt(int timeout_ms, bool* fired) {
  if (!impl_->has_interrupt) return Unimplemented(impl_->no_interrupt_reason);
  try {
    const auto r =
        impl_->interrupt.wait(std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms));
    *fired = r == std::cv_status::no_timeout;
  } catch (...) {
    return FromException("xrt::ip::interrupt::wait on kernel " + impl_->name);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// DMA memory.

struct XrtDmaTransport::Impl {
  struct Allocation {
    ::xrt::bo bo;
    uint64_t pad = 0;    // offset of the buffer inside the bo (alignment)
    uint64_t bytes = 0;  // as asked
    uint64_t device_address = 0;
  };
  ::xrt::device device;
  int group = 0;
  std::string tag;
  uint64_t bank_bytes = 0;                 // 0: unknown
  std::map<const void*, Allocation> live;  // by host address, unique while the bo lives

  // The allocation `buffer` names, with [offset, offset + bytes) inside it; else OutOfRange.
  Status Find(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes, const char* what,
              Allocation** out) {
    auto it = live.find(buffer.host);
    if (it == live.end() || it->second.device_address != buffer.device_address ||
        it->second.bytes != buffer.bytes) {
      return OutOfRange(std::string(what) + ": buffer at device address " +
                        std::to_string(buffer.device_address) + " (" +
                        std::to_string(buffer.bytes) +
                        " bytes) is not a live allocation of the xrt DMA transport on " + tag);
    }
    uint64_t end = 0;
    if (!CheckedAdd(offset, bytes, &end) || end > buffer.bytes) {
      return OutOfRange(std::string(what) + ": range [" + std::to_string(offset) + ", +" +
                        std::to_string(bytes) + ") is outside the " + std::to_string(buffer.bytes) +
                        "-byte buffer at device address " + std::to_string(buffer.device_address));
    }
    *out = &it->second;
    return Status::Ok();
  }

  Status Sync(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes, xclBOSyncDirection dir,
              const char* what) {
    Allocation* a = nullptr;
    LOOM_RETURN_IF_ERROR(Find(buffer, offset, bytes, what, &a));
    if (bytes == 0) return Status::Ok();
    try {
      a->bo.sync(dir, bytes, a->pad + offset);
    } catch (...) {
      return FromException(std::string("xrt::bo::sync (") + what + ", " + std::to_string(bytes) +
                           " bytes at offset " + std::to_string(offset) + ")");
    }
    return Status::Ok();
  }
};

XrtDmaTransport::XrtDmaTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

XrtDmaTransport::~XrtDmaTransport() {
  try {
    impl_.reset();
  } catch (...) {
    // A destructor must not throw; freeing a bo that fails leaves nothing to undo here.
  }
}

int XrtDmaTransport::memory_group() const { return impl_->group; }
const std::string& XrtDmaTransport::memory_tag() const { return impl_->tag; }
size_t XrtDmaTransport::live_buffers() const { return impl_->live.size(); }

Status XrtDmaTransport::Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) {
  if (bytes == 0) return InvalidArgument("xrt DMA allocation of 0 bytes");
  if (align == 0 || (align & (align - 1)) != 0) {
    return InvalidArgument("xrt DMA alignment " + std::to_string(align) + " is not a power of two");
  }
  // XRT backs a normal bo with aligned_alloc(page, size), which C11 (and ASan) accept only for a
  // size that is a multiple of the page: round both tries up to one.
  constexpr uint64_t kPage = 4096;
  uint64_t worst = 0, first = 0, second = 0;
  size_t first_size = 0, second_size = 0;
  if (!CheckedAdd(bytes, align - 1, &worst) || !CheckedAdd(bytes, kPage - 1, &first) ||
      !CheckedAdd(worst, kPage - 1, &second) || !CheckedCast(first & ~(kPage - 1), &first_size) ||
      !CheckedCast(second & ~(kPage - 1), &second_size) ||
      (impl_->bank_bytes != 0 && worst > impl_->bank_bytes)) {
    return OutOfRange("xrt DMA allocation of " + std::to_string(bytes) + " bytes (align " +
                      std::to_string(align) + ") does not fit memory bank " + impl_->tag + " (" +
                      std::to_string(impl_->bank_bytes) + " bytes)");
  }
  Impl::Allocation a;
  try {
    // XRT places a bo on a page; an alignment it misses costs one retry with room to offset.
    a.bo = ::xrt::bo(impl_->device, first_size, ::xrt::bo::flags::normal,
                     static_cast<::xrt::memory_group>(impl_->group));
    uint64_t address = a.bo.address();
    if (address % align != 0) {
      a.bo = ::xrt::bo(impl_->device, second_size, ::xrt::bo::flags::normal,
                       static_cast<::xrt::memory_group>(impl_->group));
      address = a.bo.address();
      a.pad = (align - address % align) % align;
    }
    a.bytes = bytes;
    a.device_address = address + a.pad;
    uint8_t* host = static_cast<uint8_t*>(a.bo.map()) + a.pad;
    buffer->device_address = a.device_address;
    buffer->host = host;
    buffer->bytes = bytes;
    impl_->live.emplace(host, std::move(a));
  } catch (...) {
    return FromException("xrt::bo (" + std::to_string(bytes) + " bytes on " + impl_->tag +
                         ", memory group " + std::to_string(impl_->group) + ")");
  }
  return Status::Ok();
}

Status XrtDmaTransport::Free(const DmaBuffer& buffer) {
  Impl::Allocation* a = nullptr;
  LOOM_RETURN_IF_ERROR(impl_->Find(buffer, 0, 0, "free", &a));
  try {
    impl_->live.erase(buffer.host);  // the bo's destructor frees it
  } catch (...) {
    return FromException("xrt::bo free");
  }
  return Status::Ok();
}

Status XrtDmaTransport::SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  return impl_->Sync(buffer, offset, bytes, XCL_BO_SYNC_BO_TO_DEVICE, "sync for device");
}

Status XrtDmaTransport::SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  return impl_->Sync(buffer, offset, bytes, XCL_BO_SYNC_BO_FROM_DEVICE, "sync for cpu");
}

// ---------------------------------------------------------------------------------------------
// Open.

Status OpenXrtTransportPair(const XrtOptions& options, std::unique_ptr<XrtRegisterTransport>* regs,
                            std::unique_ptr<XrtDmaTransport>* dma) {
  ::xrt::device device;
  LOOM_RETURN_IF_ERROR(OpenDevice(options, &device));
  if (options.xclbin.empty()) {
    return InvalidArgument(
        "no xclbin for the xrt device: name one with --device xrt:0,xclbin=PATH or LOOM_XCLBIN "
        "(loom-hwconfig xo builds it with v++; docs/boards.md)");
  }
  auto reg_impl = std::make_unique<XrtRegisterTransport::Impl>();
  auto dma_impl = std::make_unique<XrtDmaTransport::Impl>();
  reg_impl->name = options.kernel;
  try {
    ::xrt::xclbin xclbin;
    try {
      xclbin = ::xrt::xclbin(options.xclbin);
    } catch (const std::exception& e) {
      return InvalidArgument("cannot read xclbin " + options.xclbin + ": " + e.what());
    }
    // The kernel's compute unit in the IP layout ("loom:loom_1"), before loading anything.
    const std::string prefix = options.kernel + ":";
    std::string seen;
    ::xrt::xclbin::ip cu;
    int matches = 0;
    for (const auto& ip : xclbin.get_ips()) {
      const std::string name = ip.get_name();
      seen += (seen.empty() ? "" : ", ") + name;
      if (name.compare(0, prefix.size(), prefix) == 0) {
        cu = ip;
        ++matches;
      }
    }
    if (matches != 1) {
      return NotFound("xclbin " + options.xclbin + " has " +
                      (matches == 0 ? std::string("no") : std::to_string(matches)) +
                      " compute unit(s) of kernel '" + options.kernel +
                      "' (its IP layout has: " + (seen.empty() ? std::string("nothing") : seen) +
                      "); name the kernel with xrt:...,kernel=NAME or rebuild the xclbin from "
                      "loom-hwconfig xo");
    }
    // The bank the kernel's m_axi port reaches, from the xclbin's connectivity.
    int group = -1;
    for (const auto& arg : cu.get_args()) {
      for (const auto& mem : arg.get_mems()) {
        if (group >= 0 && mem.get_index() != group) {
          return InvalidArgument("xclbin " + options.xclbin + ": kernel " + cu.get_name() +
                                 " has arguments on memory " + std::to_string(group) + " and " +
                                 std::to_string(mem.get_index()) +
                                 "; Loom's kernel has one m_axi port on one bank (link.cfg sp=)");
        }
        group = mem.get_index();
        dma_impl->tag = mem.get_tag();
        dma_impl->bank_bytes = static_cast<uint64_t>(mem.get_size_kb()) * 1024;
      }
    }
    if (group < 0) {
      return InvalidArgument("xclbin " + options.xclbin + ": kernel " + cu.get_name() +
                             " is connected to no memory bank (its CONNECTIVITY section is empty; "
                             "link.cfg's sp= line connects m_axi_gmem)");
    }
    dma_impl->group = group;

    ::xrt::uuid uuid;
    try {
      uuid = device.load_xclbin(xclbin);
    } catch (...) {
      return FromException("xrt::device::load_xclbin(" + options.xclbin + ")");
    }
    try {
      reg_impl->ip = ::xrt::ip(device, uuid, options.kernel);
    } catch (...) {
      return FromException("xrt::ip(" + options.kernel + ") in xclbin " + options.xclbin);
    }
    try {
      reg_impl->interrupt = reg_impl->ip.create_interrupt_notify();
      reg_impl->has_interrupt = true;
    } catch (const std::exception& e) {
      reg_impl->no_interrupt_reason = std::string("kernel ") + options.kernel +
                                      " has no interrupt here (" + e.what() +
                                      "); poll the status register";
    }
    reg_impl->device = device;
    dma_impl->device = device;
  } catch (...) {
    return FromException("opening kernel " + options.kernel + " of xclbin " + options.xclbin);
  }
  regs->reset(new XrtRegisterTransport(std::move(reg_impl)));
  dma->reset(new XrtDmaTransport(std::move(dma_impl)));
  return Status::Ok();
}

}  // namespace loom::runtime::xrt
