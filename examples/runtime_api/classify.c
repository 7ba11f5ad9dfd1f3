/* A C program using the Loom runtime's C API (runtime/include/loom_runtime.h): load a package,
 * feed it a float32 .npy-free input, print the outputs' summary and the device statistics.
 *
 *   runtime_api_example MODEL.loom [DEVICE]
 *
 * The input is a deterministic ramp over the model's first input shape, so the program needs no
 * data files; a real application passes its own pixels to loom_set_input.
 *
 * Built twice: runtime_api_example links the host runtime (LOOM_EXAMPLE_HOST: the simulators fsim
 * and tsim, default fsim); runtime_api_example_board links only what a board carries (default cpu).
 */
#include <stdio.h>
#include <stdlib.h>

#include "loom_runtime.h"
#ifdef LOOM_EXAMPLE_HOST
#include "loom_runtime_host.h"
#define DEFAULT_DEVICE "fsim"
#else
#define DEFAULT_DEVICE "cpu"
#endif

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.loom [cpu|fsim|tsim]\n", argv[0]);
    return 2;
  }
#ifdef LOOM_EXAMPLE_HOST
  if (loom_register_host_runtime() != LOOM_OK) {
    fprintf(stderr, "error: cannot register the simulator devices\n");
    return 1;
  }
#endif
  loom_runtime* rt = NULL;
  if (loom_open(argv[1], argc > 2 ? argv[2] : DEFAULT_DEVICE, &rt) != LOOM_OK) {
    fprintf(stderr, "error: %s\n", loom_last_error(NULL));
    return 1;
  }
  loom_tensor_info in;
  loom_input_info(rt, 0, &in);
  size_t count = 1;
  for (size_t i = 0; i < in.rank; ++i) count *= (size_t)in.shape[i];
  float* x = malloc(count * sizeof(float));
  for (size_t i = 0; i < count; ++i) x[i] = (float)((int)(i % 23) - 11) * 0.25f;
  int rc = 0;
  if (loom_set_input(rt, in.name, LOOM_FLOAT32, in.shape, in.rank, x, count * sizeof(float)) != LOOM_OK ||
      loom_run(rt) != LOOM_OK) {
    fprintf(stderr, "error: %s\n", loom_last_error(rt));
    rc = 1;
  }
  for (size_t o = 0; rc == 0 && o < loom_num_outputs(rt); ++o) {
    loom_tensor_info info;
    loom_output_info(rt, o, &info);
    size_t n = 1;
    for (size_t i = 0; i < info.rank; ++i) n *= (size_t)info.shape[i];
    float* y = malloc(n * sizeof(float));
    if (loom_get_output(rt, info.name, LOOM_FLOAT32, y, n * sizeof(float)) != LOOM_OK) {
      fprintf(stderr, "error: %s\n", loom_last_error(rt));
      rc = 1;
    } else {
      size_t best = 0;
      double sum = 0;
      for (size_t i = 0; i < n; ++i) {
        sum += y[i];
        if (y[i] > y[best]) best = i;
      }
      printf("output %s: %zu values, sum %.6f, argmax %zu (%.6f)\n", info.name, n, sum, best,
             (double)y[best]);
    }
    free(y);
  }
  loom_stats st;
  loom_get_stats(rt, &st);
  printf("inferences %llu, cycles %llu, macs %llu, gemm utilization %.3f\n",
         (unsigned long long)st.inferences, (unsigned long long)st.cycles,
         (unsigned long long)st.macs, st.gemm_utilization);
  free(x);
  loom_close(rt);
  return rc;
}
