# loom-run and loom-run-board on a machine without a Loom board: `--device zynq` exists in both
# builds and fails at open with NotFound (exit code 2) saying what it looked for (the UIO device
# named loom, under /sys/class/uio) and what to check (the overlay, uio_pdrv_genirq's of_id).
# The message is the same whether /sys/class/uio is missing or holds other devices.
foreach(binary ${HOST_RUN} ${BOARD_RUN})
  execute_process(COMMAND ${binary} run ${DIR}/conv.loom --device zynq --input input=${DIR}/input3.npy
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2
     OR NOT err MATCHES "device zynq"
     OR NOT err MATCHES "no UIO device named 'loom'"
     OR NOT err MATCHES "/sys/class/uio"
     OR NOT err MATCHES "overlay is applied"
     OR NOT err MATCHES "uio_pdrv_genirq is loaded with of_id=generic-uio")
    message(FATAL_ERROR "${binary} --device zynq without a board: exit ${rc}, stderr: ${err}")
  endif()
  message(STATUS "${binary}: ${err}")
  # Arguments reach the driver: a bad key is refused (InvalidArgument, exit code 1) before any
  # device node is looked for.
  execute_process(COMMAND ${binary} run ${DIR}/conv.loom --device zynq:speed=9
                          --input input=${DIR}/input3.npy
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "device string 'zynq:speed=9': unknown key 'speed'")
    message(FATAL_ERROR "${binary} --device zynq:speed=9: exit ${rc}, stderr: ${err}")
  endif()
endforeach()
