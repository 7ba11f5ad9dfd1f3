/* Test code for the native loader (loader_test.cc): what compiled CPU segments use, in small
 * functions. Compiled at build time into relocatable objects (static and PIC, gcc and clang, ARM
 * and Thumb on armv7) that the test loads, and included by the test itself in a namespace as the
 * reference the loaded code must match. Freestanding: no headers; the loader's imports provide
 * host_add and whatever the compiler calls on its own (memset, memmove, __aeabi_idiv). */

extern int host_add(int a, int b); /* an import: reached through a veneer */

static const int kTable[8] = {3, 1, 4, 1, 5, 9, 2, 6};                     /* .rodata */
int g_array[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}; /* .data */
static int g_counts[32];                                                   /* .bss */
int g_calls;                                                               /* .bss, global */
static unsigned char g_buffer[512];                                        /* .bss */
float g_weights[8] = {0.5f, 1.5f, -2.0f, 4.0f, 0.25f, -0.75f, 8.0f, 3.0f}; /* .data, floats */

__attribute__((noinline)) static int square(int x) { return x * x; }
__attribute__((noinline)) static int twice(int x) { return 2 * x; }
__attribute__((noinline)) static int negate(int x) { return -x; }

/* A table of function pointers: data relocations against code. */
static int (*const kOps[4])(int) = {square, twice, negate, square};

int sum_table(void) {
  int s = 0;
  for (int i = 0; i < 8; ++i) s += kTable[i] * square(i + 1);
  return s;
}

/* A string literal (.rodata.str) walked by a non-inlined helper. */
__attribute__((noinline)) static int count_char(const char* s, char c) {
  int n = 0;
  for (; *s != 0; ++s) n += *s == c;
  return n;
}
int count_in_message(char c) { return count_char("loom native code, loaded by loom", c); }
const char* message(void) { return "loom native"; }

int call_import(int a, int b) {
  ++g_calls;
  return host_add(a, b) * 2;
}

int bump(int n) {
  for (int i = 0; i < n; ++i) g_counts[i & 31] += i;
  ++g_calls;
  return g_counts[n & 31];
}

int sum_array(void) {
  int s = 0;
  for (int i = 0; i < 16; ++i) s += g_array[i];
  return s;
}

void scale_array(int k) {
  for (int i = 0; i < 16; ++i) g_array[i] *= k;
}

int apply_op(int i, int x) { return kOps[i & 3](x); }

/* Loops the compiler turns into memset/memcpy calls (imports). */
int fill_and_sum(unsigned char v, int n) {
  for (int i = 0; i < n; ++i) g_buffer[i] = v;
  for (int i = 0; i < n; ++i) g_buffer[256 + i] = g_buffer[i];
  int s = 0;
  for (int i = 0; i < 512; ++i) s += g_buffer[i];
  return s;
}

/* Integer division: a library call on Cortex-A9 (__aeabi_idiv), an instruction elsewhere. */
int divide(int a, int b) { return a / b; }

/* Hard-float arguments and results; exact in any evaluation order. */
float weighted_sum(float k) {
  float s = 0.0f;
  for (int i = 0; i < 8; ++i) s += g_weights[i] * k;
  return s;
}

int get_calls(void) { return g_calls; }
