// The native loader on bare metal (docs/cpu.md, "Native code loader"): armv7 objects compiled
// from runtime/native/testdata by this toolchain and linked into the image as data
// (native_embed.S), loaded with LoadObject into a heap block, sealed with the Cortex-A9's cache
// maintenance (code_memory_a9.cc), called, and compared with the same sources compiled into the
// image. firmware/baremetal/build --test runs it under qemu-system-arm.
//
// Output on the UART, one line per object, then PASS; exit status (semihosting): 0 pass, 1 a
// loader error or a wrong result (printed), 3 a fault.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "firmware/baremetal/zynq_uart.h"
#include "runtime/native/loader.h"

extern "C" {
extern const uint8_t loom_native_thumb_start[], loom_native_thumb_end[];
extern const uint8_t loom_native_arm_start[], loom_native_arm_end[];
extern const uint8_t loom_native_interwork_start[], loom_native_interwork_end[];
int __aeabi_idiv(int, int);
unsigned __aeabi_uidiv(unsigned, unsigned);
}

namespace reference {
#include "runtime/native/testdata/common.c"
#include "runtime/native/testdata/interwork.c"
int host_add(int a, int b) { return a + b + 1000; }
void Reset() {
  for (int i = 0; i < 16; ++i) g_array[i] = i + 1;
  std::memset(g_counts, 0, sizeof g_counts);
  std::memset(g_buffer, 0, sizeof g_buffer);
  g_calls = 0;
}
}  // namespace reference

namespace {

using loom::runtime::native::Import;
using loom::runtime::native::LoadObject;
using loom::runtime::native::Module;

int HostAdd(int a, int b) { return a + b + 1000; }

const Import kImports[] = {
    {"host_add", reinterpret_cast<const void*>(&HostAdd)},
    {"memcpy", reinterpret_cast<const void*>(&std::memcpy)},
    {"memset", reinterpret_cast<const void*>(&std::memset)},
    {"memmove", reinterpret_cast<const void*>(&std::memmove)},
    {"__aeabi_idiv", reinterpret_cast<const void*>(&__aeabi_idiv)},
    {"__aeabi_uidiv", reinterpret_cast<const void*>(&__aeabi_uidiv)},
};

void Print(const std::string& line) {
  const std::string text = "loom-native: " + line + "\n";
  loom::baremetal::UartWrite(text.data(), text.size());
}

template <typename F>
F As(const void* p) {
  F f;
  std::memcpy(&f, &p, sizeof f);
  return f;
}

// Checks one result; prints the mismatch.
bool Same(const char* what, long got, long want) {
  if (got == want) return true;
  Print(std::string("FAIL ") + what + ": got " + std::to_string(got) + ", want " +
        std::to_string(want));
  return false;
}

std::unique_ptr<Module> Load(const char* name, const uint8_t* begin, const uint8_t* end) {
  std::unique_ptr<Module> m;
  const loom::Status s = LoadObject(begin, static_cast<size_t>(end - begin), kImports,
                                    sizeof kImports / sizeof kImports[0], &m);
  if (!s.ok()) Print(std::string("FAIL ") + name + ": " + s.ToString());
  return m;
}

bool CheckCommon(const char* name, const uint8_t* begin, const uint8_t* end) {
  std::unique_ptr<Module> m = Load(name, begin, end);
  if (m == nullptr) return false;
  for (const char* f : {"sum_table", "call_import", "bump", "sum_array", "scale_array", "apply_op",
                        "fill_and_sum", "divide", "get_calls"}) {
    if (m->Symbol(f) == nullptr) {
      Print(std::string("FAIL ") + name + ": no export '" + f + "'");
      return false;
    }
  }
  reference::Reset();
  bool ok = true;
  ok &= Same("sum_table", As<int (*)()>(m->Symbol("sum_table"))(), reference::sum_table());
  ok &= Same("call_import", As<int (*)(int, int)>(m->Symbol("call_import"))(3, 4),
             reference::call_import(3, 4));
  ok &= Same("bump", As<int (*)(int)>(m->Symbol("bump"))(40), reference::bump(40));
  As<void (*)(int)>(m->Symbol("scale_array"))(3);
  reference::scale_array(3);
  ok &= Same("sum_array", As<int (*)()>(m->Symbol("sum_array"))(), reference::sum_array());
  for (int i = 0; i < 4; ++i) {
    ok &= Same("apply_op", As<int (*)(int, int)>(m->Symbol("apply_op"))(i, 7),
               reference::apply_op(i, 7));
  }
  ok &= Same("fill_and_sum", As<int (*)(unsigned char, int)>(m->Symbol("fill_and_sum"))(7, 100),
             reference::fill_and_sum(7, 100));
  ok &= Same("divide", As<int (*)(int, int)>(m->Symbol("divide"))(-100, 7),
             reference::divide(-100, 7));
  ok &= Same("get_calls", As<int (*)()>(m->Symbol("get_calls"))(), reference::get_calls());
  Print(std::string(ok ? "ok " : "FAIL ") + name + ": " + std::to_string(m->export_count()) +
        " exports, " + std::to_string(m->total_size()) + " bytes");
  return ok;
}

bool CheckInterwork() {
  std::unique_ptr<Module> m =
      Load("interwork", loom_native_interwork_start, loom_native_interwork_end);
  if (m == nullptr) return false;
  bool ok = true;
  for (int x : {-3, 4, 1000}) {
    ok &= Same("arm_entry", As<int (*)(int)>(m->Symbol("arm_entry"))(x), reference::arm_entry(x));
    ok &= Same("thumb_entry", As<int (*)(int)>(m->Symbol("thumb_entry"))(x),
               reference::thumb_entry(x));
    ok &=
        Same("thumb_tail", As<int (*)(int)>(m->Symbol("thumb_tail"))(x), reference::thumb_tail(x));
    ok &= Same("arm_tail", As<int (*)(int)>(m->Symbol("arm_tail"))(x), reference::arm_tail(x));
  }
  Print(std::string(ok ? "ok " : "FAIL ") + "interwork");
  return ok;
}

}  // namespace

extern "C" void loom_fault(uint32_t kind, uint32_t pc, uint32_t address) {
  char line[96];
  std::snprintf(line, sizeof line, "loom-native: FAULT %lu at pc 0x%08lx, address 0x%08lx\n",
                static_cast<unsigned long>(kind), static_cast<unsigned long>(pc),
                static_cast<unsigned long>(address));
  loom::baremetal::UartWrite(line, std::char_traits<char>::length(line));
  _exit(3);
}

int main() {
  loom::baremetal::UartInit();
  bool ok = CheckCommon("thumb", loom_native_thumb_start, loom_native_thumb_end);
  ok &= CheckCommon("arm", loom_native_arm_start, loom_native_arm_end);
  ok &= CheckInterwork();
  Print(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
