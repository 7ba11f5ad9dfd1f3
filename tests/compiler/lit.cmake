# A minimal lit: runs the RUN: lines of one golden test file, LLVM-style.
#   cmake -DTEST=<file> -DTMP=<path> -DLOOM_OPT=<path> -DFILECHECK=<path> -DNOT=<path> -P lit.cmake
# Substitutions: %s (this file), %S (its folder), %t (a scratch path, -DTMP), %inputs
# (tests/compiler/inputs), loom-opt, FileCheck, not. Each RUN line (a trailing '\' continues it
# on the next RUN: line) runs under bash with pipefail, so a failing command anywhere in a pipe
# fails the test, as in lit.
get_filename_component(dir "${TEST}" DIRECTORY)
get_filename_component(inputs "${dir}/../inputs" ABSOLUTE)
# Read the whole file and join continuations before anything becomes a CMake list: a trailing
# backslash would otherwise escape the list separator.
file(READ "${TEST}" content)
string(REGEX REPLACE "\\\\\n[/#;]+ *RUN:" " " content "${content}")
string(REGEX MATCHALL "[/#;]+ *RUN:[^\n]*" runs "${content}")
set(commands "")
foreach(run IN LISTS runs)
  string(REGEX REPLACE "^[/#;]+ *RUN: *" "" cmd "${run}")
  list(APPEND commands "${cmd}")
endforeach()
if(NOT commands)
  message(FATAL_ERROR "${TEST}: no RUN: lines")
endif()
foreach(cmd IN LISTS commands)
  string(REPLACE "%s" "${TEST}" cmd "${cmd}")
  string(REPLACE "%S" "${dir}" cmd "${cmd}")
  string(REPLACE "%inputs" "${inputs}" cmd "${cmd}")
  string(REPLACE "%t" "${TMP}" cmd "${cmd}")
  string(REGEX REPLACE "(^|[ |])loom-opt " "\\1${LOOM_OPT} " cmd "${cmd}")
  string(REGEX REPLACE "(^|[ |])FileCheck " "\\1${FILECHECK} " cmd "${cmd}")
  string(REGEX REPLACE "(^|[ |])not " "\\1${NOT} " cmd "${cmd}")
  message(STATUS "RUN: ${cmd}")
  execute_process(COMMAND bash -o pipefail -c "${cmd}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TEST}: RUN line failed (exit ${rc}):\n  ${cmd}")
  endif()
endforeach()
