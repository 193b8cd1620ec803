# Included by ctest before it runs the tests (the build folder's TEST_INCLUDE_FILES): declares one
# CTest test per doctest case of tcsim_tests, so that `ctest -j N` runs them in parallel and a
# failure names its case. Written for tcsim rather than Debian's doctest_discover_tests (2.4.9),
# which splits a case name at every ';' (several of ours have one) into cases that do not exist.
# Set by the caller: TCSIM_TESTS (the executable), TCSIM_SHARED (the shared/ folder).
if(NOT EXISTS "${TCSIM_TESTS}")
  add_test(tcsim_tests_not_built "${CMAKE_COMMAND}" -E false)
  return()
endif()
execute_process(COMMAND "${TCSIM_TESTS}" --list-test-cases OUTPUT_VARIABLE output RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  add_test(tcsim_tests_cannot_list "${CMAKE_COMMAND}" -E false)
  return()
endif()
# The cases of doctest's test suite "accuracy" (the sweeps over whole measured sets) get the CTest
# label `accuracy`: scripts/test runs them in the Release build only (`ctest -LE accuracy` under
# the sanitizers, where 7 such cases took 215 of 633 test-seconds running code other cases cover).
execute_process(COMMAND "${TCSIM_TESTS}" --list-test-cases --test-suite=accuracy OUTPUT_VARIABLE accuracy_output)
string(REPLACE ";" "\\;" output "${output}")  # keep a ';' inside a name through the list split
string(REPLACE "\n" ";" lines "${output}")
foreach(name IN LISTS lines)
  if(name STREQUAL "" OR name MATCHES "^=+$" OR name MATCHES "^\\[doctest\\]")
    continue()
  endif()
  string(REPLACE "," "\\," filter "${name}")  # doctest separates filters with ','
  add_test("${name}" "${TCSIM_TESTS}" "--test-case=${filter}" --duration=true)
  # A filter that matched no case (a name doctest cannot match exactly) must not pass silently.
  set_tests_properties("${name}" PROPERTIES ENVIRONMENT "TCSIM_SHARED=${TCSIM_SHARED}"
                       FAIL_REGULAR_EXPRESSION "test cases: +0 \\|")
  # A line of the suite's listing (string search: ctest reads this file under old policies, where
  # IN_LIST does not exist and list(FIND) warns about the listing's empty lines).
  string(FIND "\n${accuracy_output}" "\n${name}\n" accuracy_index)
  if(accuracy_index GREATER -1)
    set_tests_properties("${name}" PROPERTIES LABELS accuracy)
  endif()
endforeach()
