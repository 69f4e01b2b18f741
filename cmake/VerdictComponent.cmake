# verdict_component(NAME [DEPS targets...])
# Builds src/NAME/*.cc (without *_test.cc) into the static library verdict_NAME and, when
# the folder has *_test.cc files, the GoogleTest binary verdict_NAME_test registered with CTest.
function(verdict_component name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  if(tests)
    list(REMOVE_ITEM sources ${tests})
  endif()
  add_library(verdict_${name} STATIC ${sources})
  if(VERDICT_FUZZ)
    # Built only when a fuzz target links it (tests/fuzz/CMakeLists.txt).
    set_target_properties(verdict_${name} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
  target_include_directories(verdict_${name} PUBLIC ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(verdict_${name} PUBLIC ${ARG_DEPS})
  if(tests AND NOT VERDICT_FUZZ)
    add_executable(verdict_${name}_test ${tests})
    target_link_libraries(verdict_${name}_test PRIVATE verdict_${name} GTest::gmock GTest::gtest_main)
    # One translation unit per test binary (VERDICT_UNITY_TESTS): every test file parses
    # GoogleTest and most of its component's headers again, and compiled one by one the tests
    # took about 40 % of a clean build's compile time. Helpers shared by a folder's tests
    # therefore live in a header, once, not in each file's anonymous namespace.
    if(VERDICT_UNITY_TESTS)
      set_target_properties(verdict_${name}_test PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
    endif()
    set_target_properties(verdict_${name}_test PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    include(GoogleTest)
    gtest_discover_tests(verdict_${name}_test
      WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
      DISCOVERY_TIMEOUT 60
      PROPERTIES LABELS unit ENVIRONMENT "VERDICT_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
  endif()
endfunction()
