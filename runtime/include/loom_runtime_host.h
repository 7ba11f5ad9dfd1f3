/* The host build of the Loom runtime (library loom_runtime_host, docs/runtime.md): adds the
 * simulator devices ("fsim", "tsim") and configs read by name or path (loom_options.config) to the
 * runtime a board links. Call once before loom_open:
 *
 *   loom_register_host_runtime();
 *   loom_open("model.loom", "fsim", &rt);
 *
 * Idempotent; not thread-safe (call it at start-up). */
#ifndef LOOM_RUNTIME_INCLUDE_LOOM_RUNTIME_HOST_H_
#define LOOM_RUNTIME_INCLUDE_LOOM_RUNTIME_HOST_H_

#include "loom_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

loom_status loom_register_host_runtime(void);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_RUNTIME_INCLUDE_LOOM_RUNTIME_HOST_H_ */
