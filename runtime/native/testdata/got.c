/* Test code for the native loader (loader_test.cc), compiled position-independent: an import's
 * data and its address, and the object's own globals, are reached through the GOT the loader
 * builds. */

extern int host_counter;
extern int host_add(int a, int b);
int g_shared = 5;

int read_counter(void) { return host_counter; }
void add_to_counter(int n) { host_counter += n; }
int (*address_of_add(void))(int, int) { return host_add; }
int read_shared(void) { return g_shared; }
void write_shared(int v) { g_shared = v; }
int* shared_address(void) { return &g_shared; }
