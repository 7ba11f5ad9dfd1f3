# Decides LOOM_PYTHON: ON (the default) builds the `loom` Python extension when Python 3's
# development headers, pybind11 and an interpreter with numpy and pytest (for its tests) are
# found; what is missing is reported and the option turns itself off. Under scikit-build-core
# (`pip install .`, SKBUILD set) the interpreter is the one pip runs; otherwise it is Debian's
# /usr/bin/python3 when present (python3-dev, python3-numpy, python3-pytest from scripts/build),
# not whatever `python3` comes first on PATH. -DPython3_EXECUTABLE=... overrides both.
option(LOOM_PYTHON "Build the loom Python extension (python/, docs/python.md)" ON)
if(LOOM_PYTHON AND (ASAN OR LOOM_FUZZ))
  message(STATUS "LOOM_PYTHON: off in sanitizer and fuzzing builds")
  set(LOOM_PYTHON OFF)
endif()
if(LOOM_PYTHON)
  if(NOT SKBUILD AND NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 3.8 COMPONENTS Interpreter Development.Module QUIET)
  set(loom_python_missing "")
  if(NOT Python3_Development.Module_FOUND)
    string(APPEND loom_python_missing " Python 3 headers (python3-dev)")
  else()
    find_package(pybind11 CONFIG QUIET)
    if(NOT pybind11_FOUND)
      string(APPEND loom_python_missing " pybind11 (pybind11-dev)")
    endif()
    if(NOT SKBUILD)
      execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy, pytest"
                      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(NOT rc EQUAL 0)
        string(APPEND loom_python_missing " numpy and pytest for ${Python3_EXECUTABLE}"
               " (python3-numpy python3-pytest)")
      endif()
    endif()
  endif()
  if(loom_python_missing)
    message(STATUS "LOOM_PYTHON: off, missing:${loom_python_missing}")
    set(LOOM_PYTHON OFF)
  else()
    message(STATUS "LOOM_PYTHON: on (${Python3_EXECUTABLE}, pybind11 ${pybind11_VERSION})")
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  endif()
endif()
