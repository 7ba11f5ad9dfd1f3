// What newlib asks of the platform, for an image without an OS: a heap inside the linker script's
// region (refused, not grown, when it is full), console output on the UART, exit through
// semihosting, and "not supported" for files. Plus the allocation counter that main.cc reads to
// prove a run allocates nothing: the link wraps newlib's allocator entry points
// (-Wl,--wrap=...), so every operator new, malloc, calloc and realloc passes through here.
#include <sys/stat.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "firmware/baremetal/allocation_count.h"
#include "firmware/baremetal/semihosting.h"
#include "firmware/baremetal/zynq_uart.h"

extern "C" {
extern char __heap_start[], __heap_end[];

void* __real_malloc(size_t n);
void* __real_calloc(size_t count, size_t n);
void* __real_realloc(void* p, size_t n);
void* __real__malloc_r(struct _reent* r, size_t n);
void* __real__calloc_r(struct _reent* r, size_t count, size_t n);
void* __real__realloc_r(struct _reent* r, void* p, size_t n);
}

namespace {
uint32_t g_allocations = 0;
char* g_brk = __heap_start;
}  // namespace

namespace loom::baremetal {
uint32_t AllocationCount() { return g_allocations; }
}  // namespace loom::baremetal

extern "C" {

// malloc reaches _malloc_r, so one malloc counts twice; what matters is that a run adds none.
void* __wrap_malloc(size_t n) {
  ++g_allocations;
  return __real_malloc(n);
}
void* __wrap_calloc(size_t count, size_t n) {
  ++g_allocations;
  return __real_calloc(count, n);
}
void* __wrap_realloc(void* p, size_t n) {
  ++g_allocations;
  return __real_realloc(p, n);
}
void* __wrap__malloc_r(struct _reent* r, size_t n) {
  ++g_allocations;
  return __real__malloc_r(r, n);
}
void* __wrap__calloc_r(struct _reent* r, size_t count, size_t n) {
  ++g_allocations;
  return __real__calloc_r(r, count, n);
}
void* __wrap__realloc_r(struct _reent* r, void* p, size_t n) {
  ++g_allocations;
  return __real__realloc_r(r, p, n);
}

void* _sbrk(ptrdiff_t increment) {
  if (increment > __heap_end - g_brk || increment < __heap_start - g_brk) {
    errno = ENOMEM;
    return reinterpret_cast<void*>(-1);
  }
  char* old = g_brk;
  g_brk += increment;
  return old;
}

int _write(int fd, const char* data, int n) {
  if (fd != 1 && fd != 2) {
    errno = EBADF;
    return -1;
  }
  loom::baremetal::UartWrite(data, static_cast<size_t>(n));
  return n;
}

void _exit(int status) {
  loom::baremetal::UartFlush();
  loom::baremetal::SemihostingExit(status);
  for (;;) {
    __asm__ volatile("wfi");
  }
}

int _read(int, char*, int) {
  errno = ENOSYS;
  return -1;
}
int _open(const char*, int, ...) {
  errno = ENOSYS;
  return -1;
}
int _close(int) {
  errno = EBADF;
  return -1;
}
int _lseek(int, int, int) {
  errno = ESPIPE;
  return -1;
}
int _fstat(int fd, struct stat* st) {
  if (fd > 2) {
    errno = EBADF;
    return -1;
  }
  st->st_mode = S_IFCHR;
  return 0;
}
int _isatty(int fd) { return fd <= 2 ? 1 : 0; }
int _kill(int, int) {
  errno = EINVAL;
  return -1;
}
int _getpid() { return 1; }

}  // extern "C"
