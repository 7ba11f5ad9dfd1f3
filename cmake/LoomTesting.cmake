# Helpers for test and fuzz targets.

# loom_add_test(NAME SOURCES a.cc b.cc LIBS lib1 lib2 [TEST_PREFIX p.]): one GoogleTest binary,
# registered with ctest; TEST_PREFIX goes in front of every ctest name (for ctest -R selections).
function(loom_add_test name)
  cmake_parse_arguments(T "" "TEST_PREFIX" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE LOOM_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  loom_target_warnings(${name})
  # Test code is assertions around calls into the libraries, which keep the build type's -O2:
  # -O1 with line tables compiles it in under half the time of -O2 -g (a clean build compiles
  # 170 test files, and CI builds from scratch: host, ASan and the two ARM cross builds), and a
  # failure's stack trace keeps file and line. Under the sanitizers, where instrumentation makes
  # every optimization pass dearer, test code compiles at -O0: float_ops_test.cc takes 7.1 s of
  # CPU there against 13.4 s at -O1, and the libraries it calls stay at the build's -O1.
  if(ASAN)
    set(test_opt -O0)
  else()
    set(test_opt -O1)
  endif()
  target_compile_options(${name} PRIVATE $<$<CONFIG:RelWithDebInfo,Release>:${test_opt}>
                                         $<$<CONFIG:RelWithDebInfo>:-g1>)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  set(prefix "")
  if(T_TEST_PREFIX)
    set(prefix TEST_PREFIX ${T_TEST_PREFIX})
  endif()
  gtest_discover_tests(${name} ${prefix} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS unit)
endfunction()

# loom_add_fuzzer(NAME SOURCE file.cc LIBS ... CORPUS dir): a libFuzzer target
# (LLVMFuzzerTestOneInput). With LOOM_FUZZ=ON and clang it is a real coverage-guided fuzzer; in
# every other build it links a small driver that replays the seed corpus, and the replay is a ctest,
# so each parser's crash-free behaviour on known inputs is part of the normal suite.
option(LOOM_FUZZ "Build fuzz targets with libFuzzer (needs clang)" OFF)
if(LOOM_FUZZ)
  # Instrument all code for coverage, so the fuzzer sees inside the parsers it drives. Every
  # program then needs the sanitizer runtimes (they define the coverage callbacks), not just the
  # fuzz targets. No vptr check, as in the ASan build (top-level CMakeLists.txt): the runtime has no
  # RTTI, so a fuzz target using a polymorphic runtime class would find no type information.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr)
  add_link_options(-fsanitize=address,undefined)
endif()
function(loom_add_fuzzer name)
  cmake_parse_arguments(F "" "SOURCE;CORPUS" "LIBS" ${ARGN})
  if(LOOM_FUZZ)
    add_executable(${name} ${F_SOURCE})
    # address and undefined (without vptr) come from the options above; naming them again here
    # would turn the vptr check back on.
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  else()
    add_executable(${name} ${F_SOURCE} ${CMAKE_SOURCE_DIR}/tests/fuzz/replay_main.cc)
  endif()
  target_link_libraries(${name} PRIVATE ${F_LIBS})
  loom_target_warnings(${name})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
  set_property(GLOBAL APPEND PROPERTY LOOM_FUZZERS "${name} ${F_CORPUS}")
  if(NOT LOOM_FUZZ AND F_CORPUS)
    add_test(NAME ${name}_replay COMMAND ${name} ${F_CORPUS})
    set_tests_properties(${name}_replay PROPERTIES LABELS fuzz)
  endif()
endfunction()

# fuzz/targets.txt in the build tree: one line per fuzz target, "NAME SEED_CORPUS_DIR", written once
# every CMakeLists.txt has registered its targets. scripts/fuzz reads it.
function(loom_write_fuzz_targets)
  get_property(targets GLOBAL PROPERTY LOOM_FUZZERS)
  string(REPLACE ";" "\n" text "${targets}")
  file(WRITE ${CMAKE_BINARY_DIR}/fuzz/targets.txt.tmp "${text}\n")
  configure_file(${CMAKE_BINARY_DIR}/fuzz/targets.txt.tmp ${CMAKE_BINARY_DIR}/fuzz/targets.txt
                 COPYONLY)
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL loom_write_fuzz_targets)
