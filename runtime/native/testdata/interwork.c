/* Test code for the native loader on armv7 (loader_test.cc): ARM and Thumb functions in one
 * object calling each other (BL <-> BLX), a tail call across sets (a veneer), and the import from
 * both sets. */

extern int host_add(int a, int b);

__attribute__((target("arm"), noinline)) int arm_triple(int x) { return 3 * x; }
__attribute__((target("thumb"), noinline)) int thumb_plus(int x) { return arm_triple(x) + 1; }
__attribute__((target("arm"), noinline)) int arm_entry(int x) {
  return thumb_plus(x) * 5 + host_add(x, 1);
}
__attribute__((target("thumb"), noinline)) int thumb_entry(int x) {
  return host_add(x, 2) + arm_triple(x) + arm_entry(x);
}
/* Tail calls: B / B.W to a function of the other set. */
__attribute__((target("thumb"), noinline)) int thumb_tail(int x) { return arm_triple(x + 7); }
__attribute__((target("arm"), noinline)) int arm_tail(int x) { return thumb_plus(x - 7); }
