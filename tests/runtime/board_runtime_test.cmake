# The runtime a board carries: loom-run-board and the C example linked against loom_runtime alone
# hold no simulator (and the C example no host-only code: JSON, CLI, std::filesystem); they run a
# package on cpu, and asking them for fsim or a config file names what this build has.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc ${rc} PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# Symbols of the simulators and of their drivers and registration.
set(simulator_symbols "loom::fsim::|loom::tsim::|loom::sim::|CreateFsimDriver|CreateTsimDriver|RegisterSimulatorDrivers|Vloom_top")
function(symbols binary out_var)
  run(${NM} -C ${binary})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} ${binary} failed: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# The host loom-run has the simulators: the pattern finds what it looks for.
symbols(${HOST_RUN} host)
if(NOT host MATCHES "${simulator_symbols}")
  message(FATAL_ERROR "the check is blind: no simulator symbol found in the host loom-run")
endif()

symbols(${BOARD_RUN} board)
if(board MATCHES "${simulator_symbols}")
  message(FATAL_ERROR "loom-run-board carries simulator code: ${CMAKE_MATCH_0}")
endif()
if(board MATCHES "LoadHwConfig")
  message(FATAL_ERROR "loom-run-board carries the config file reader: ${CMAKE_MATCH_0}")
endif()
symbols(${BOARD_EXAMPLE} example)
if(example MATCHES "${simulator_symbols}|nlohmann|CLI::|std::filesystem|LoadHwConfig")
  message(FATAL_ERROR "a C program on loom_runtime alone carries host code: ${CMAKE_MATCH_0}")
endif()

# Runs on cpu, bit for bit what the host build computes.
run(${BOARD_RUN} ${DIR}/conv.loom --device cpu --input input=${DIR}/input3.npy
    --output probs=${DIR}/probs_board.npy -q)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "loom-run-board on cpu failed (${rc}): ${err}")
endif()
run(${HOST_RUN} ${DIR}/conv.loom --device cpu --input input=${DIR}/input3.npy
    --output probs=${DIR}/probs_board_host.npy -q)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DIR}/probs_board.npy
                ${DIR}/probs_board_host.npy RESULT_VARIABLE diff)
if(NOT rc EQUAL 0 OR NOT diff EQUAL 0)
  message(FATAL_ERROR "loom-run-board and loom-run differ on cpu (${rc}, ${diff}): ${err}")
endif()
# Without --device it runs on cpu too (the host default, fsim, is not there).
run(${BOARD_RUN} ${DIR}/conv.loom --input input=${DIR}/input3.npy -q)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "loom-run-board without --device failed (${rc}): ${err}")
endif()

# fsim and tsim: NotFound (exit code 2) naming what this runtime has.
foreach(dev fsim tsim)
  run(${BOARD_RUN} ${DIR}/conv.loom --device ${dev} --input input=${DIR}/input3.npy)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "device '${dev}' is a simulator, and this runtime was built without simulators"
     OR NOT err MATCHES "available: cpu (zynq )?(xrt )?(opencl )?null")
    message(FATAL_ERROR "loom-run-board --device ${dev}: ${rc} ${err}")
  endif()
endforeach()
# A config file by name: Unimplemented (7), saying the board runs the package's config.
run(${BOARD_RUN} ${DIR}/conv.loom --device cpu --config 1x16x16 --input input=${DIR}/input3.npy)
if(NOT rc EQUAL 7 OR NOT err MATCHES "reads no config files")
  message(FATAL_ERROR "loom-run-board --config: ${rc} ${err}")
endif()
run(${BOARD_RUN} --help)
if(NOT rc EQUAL 0 OR NOT out MATCHES "board build")
  message(FATAL_ERROR "loom-run-board --help: ${rc} ${out} ${err}")
endif()
run(${BOARD_RUN} run --help)
if(NOT out MATCHES "devices: cpu (zynq )?(xrt )?(opencl )?null")
  message(FATAL_ERROR "loom-run-board run --help does not list its devices: ${out}")
endif()

# The C example on loom_runtime alone: cpu by default, fsim refused with the same message.
run(${BOARD_EXAMPLE} ${DIR}/conv.loom)
if(NOT rc EQUAL 0 OR NOT out MATCHES "output probs: 96 values, sum 1\\.0")
  message(FATAL_ERROR "runtime_api_example_board on cpu: ${rc} ${out} ${err}")
endif()
run(${BOARD_EXAMPLE} ${DIR}/conv.loom fsim)
if(rc EQUAL 0 OR NOT err MATCHES "built without simulators")
  message(FATAL_ERROR "runtime_api_example_board on fsim: ${rc} ${out} ${err}")
endif()
