/* The Loom runtime's C API: load a package, pick a device, run inferences (docs/runtime.md).
 *
 *   loom_runtime* rt = NULL;
 *   if (loom_open("model.loom", "fsim", &rt) != LOOM_OK) {
 *     fprintf(stderr, "%s\n", loom_last_error(NULL));
 *     return 1;
 *   }
 *   loom_set_input(rt, "input", LOOM_FLOAT32, shape, 4, pixels, sizeof pixels);
 *   loom_run(rt);
 *   loom_get_output(rt, "logits", LOOM_FLOAT32, scores, sizeof scores);
 *   loom_close(rt);
 *
 * Every call returns a loom_status (LOOM_OK == 0). On failure, loom_last_error(rt) holds a
 * message naming the problem until the next call on rt; calls without a handle (loom_open)
 * record it for loom_last_error(NULL) in the calling thread. Handles are not thread-safe.
 * Ownership: the runtime copies inputs in loom_set_input and outputs in loom_get_output; strings
 * it returns live until the next call on the same handle (names: until loom_close). */
#ifndef LOOM_RUNTIME_INCLUDE_LOOM_RUNTIME_H_
#define LOOM_RUNTIME_INCLUDE_LOOM_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Same values as loom::StatusCode (runtime/core/status.h). */
typedef enum loom_status {
  LOOM_OK = 0,
  LOOM_INVALID_ARGUMENT = 1,    /* wrong shape, dtype, size, flag */
  LOOM_NOT_FOUND = 2,           /* missing file, unknown device, missing or unknown input name */
  LOOM_OUT_OF_RANGE = 3,        /* a tensor or access outside its region */
  LOOM_FAILED_PRECONDITION = 4, /* config mismatch, unsupported package version */
  LOOM_DEADLOCK = 5,            /* the accelerator program can never finish */
  LOOM_DATA_LOSS = 6,           /* corrupted or truncated package */
  LOOM_UNIMPLEMENTED = 7,       /* the device or build lacks the feature */
  LOOM_INTERNAL = 8,            /* a bug in Loom */
  LOOM_DEADLINE_EXCEEDED = 9    /* the device did not finish in time */
} loom_status;

/* Element types (values fixed; new ones are appended). Each is exchanged in its own width,
 * little-endian: LOOM_FLOAT16 as IEEE binary16 bits, LOOM_BOOL as one byte, 0 or 1. */
typedef enum loom_dtype {
  LOOM_FLOAT32 = 0,
  LOOM_INT8 = 1,
  LOOM_UINT8 = 2,
  LOOM_INT16 = 3,
  LOOM_INT32 = 4,
  LOOM_INT64 = 5,
  LOOM_BOOL = 6,
  LOOM_FLOAT16 = 7,
  LOOM_FLOAT64 = 8,
  LOOM_UINT16 = 9,
  LOOM_UINT32 = 10,
  LOOM_UINT64 = 11,
  /* Not a type. It makes every int a valid loom_dtype value in C++, so an unknown value passed from
   * C is refused with LOOM_INVALID_ARGUMENT instead of being undefined behaviour. */
  LOOM_DTYPE_FORCE_INT_ = 0x7fffffff
} loom_dtype;

typedef struct loom_runtime loom_runtime;

typedef struct loom_options {
  /* A device string, NAME[:ARGS] ("cpu", "fsim", "tsim", "zynq", "zynq:dma=udmabuf:udmabuf1";
   * docs/runtime.md); NULL: fsim where registered, else cpu */
  const char* device;
  const char* config; /* open the device with this HwConfig (name or path); NULL: the package's */
  int trace;          /* record the instruction timeline (loom_trace_json) */
  /* Most device memory the package may take (arena, constants, programs); a package that needs
   * more is refused at open with LOOM_FAILED_PRECONDITION. 0: 2 GiB. Zero-initialize the struct
   * (loom_options o = {0};) so that fields added later keep their defaults. */
  uint64_t max_device_memory;
  /* Per accelerator submission: the limit in device time (ms at the config's clock; 0: 600000) and,
   * on a simulator, in host time (0: 300000). What loom-run's --timeout-ms and --wall-timeout-ms
   * set; a run past either ends with LOOM_DEADLINE_EXCEEDED naming where each module stopped. */
  uint32_t timeout_ms;
  uint32_t wall_timeout_ms;
} loom_options;

/* Model inputs and outputs have at most this many dimensions; packages with more are refused at
 * open, so loom_tensor_info and loom_output_shape always hold the whole shape. */
#define LOOM_MAX_RANK 8

typedef struct loom_tensor_info {
  const char* name;
  loom_dtype dtype; /* the model's type: LOOM_INT8 tensors accept float32 (quantized) or int8;
                     * every other type is set and read as itself */
  size_t rank;
  int64_t shape[LOOM_MAX_RANK];
  float scale; /* int8: real = q * scale */
} loom_tensor_info;

/* Totals since open (or the last loom_reset_stats) over every segment. */
typedef struct loom_stats {
  uint64_t inferences;
  uint64_t cycles;
  uint64_t macs;
  uint64_t bytes_loaded;
  uint64_t bytes_stored;
  uint64_t wall_ns;
  double gemm_utilization;
} loom_stats;

const char* loom_status_name(loom_status status);
const char* loom_last_error(const loom_runtime* rt);

loom_status loom_open(const char* package_path, const char* device, loom_runtime** out);
loom_status loom_open_ex(const char* package_path, const loom_options* options, loom_runtime** out);
loom_status loom_open_memory(const void* data, size_t size, const loom_options* options,
                             loom_runtime** out);
void loom_close(loom_runtime* rt);

size_t loom_num_inputs(const loom_runtime* rt);
size_t loom_num_outputs(const loom_runtime* rt);
loom_status loom_input_info(loom_runtime* rt, size_t index, loom_tensor_info* info);
loom_status loom_output_info(loom_runtime* rt, size_t index, loom_tensor_info* info);

/* Copies one input for the next loom_run. shape may have a leading dimension k times the model's:
 * then the model runs k times and outputs are stacked. bytes must be the shape's element count
 * times the dtype's size; a negative dimension, or a shape whose byte size overflows 64 bits, is
 * LOOM_INVALID_ARGUMENT and nothing is copied. */
loom_status loom_set_input(loom_runtime* rt, const char* name, loom_dtype dtype,
                           const int64_t* shape, size_t rank, const void* data, size_t bytes);
/* Runs with every input set. int8 outputs come out as float32 (dequantized) unless int8_outputs
 * (then int8 as computed); outputs of every other type come out as the model's type. */
loom_status loom_run(loom_runtime* rt);
loom_status loom_run_ex(loom_runtime* rt, int int8_outputs);
/* Copies an output of the last run. `bytes` must equal its size; its shape via loom_output_shape. */
loom_status loom_get_output(loom_runtime* rt, const char* name, loom_dtype dtype, void* data,
                            size_t bytes);
loom_status loom_output_shape(loom_runtime* rt, const char* name, int64_t* shape, size_t* rank);

loom_status loom_get_stats(loom_runtime* rt, loom_stats* stats);
void loom_reset_stats(loom_runtime* rt);
/* The device's instruction timeline (Chrome/Perfetto JSON); valid until the next call on rt. */
loom_status loom_trace_json(loom_runtime* rt, const char** json);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_RUNTIME_INCLUDE_LOOM_RUNTIME_H_ */
