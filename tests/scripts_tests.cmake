# Tests of the result scripts (scripts/*.py and scripts/*.gp), included from
# tests/CMakeLists.txt:
#
#   include(${CMAKE_CURRENT_SOURCE_DIR}/scripts_tests.cmake OPTIONAL)
#
#   scripts_results, scripts_plots-a, scripts_plots-b, scripts_plots-c,
#   scripts_tables, scripts_report, scripts_report-shot
#            tests/test_scripts.sh, one part each: makes a few small real results with the
#            harness (fib under three policies at 1 and 2 workers, open-loop
#            sim runs at two loads) and a synthetic Chrome trace, runs every
#            script (plot.py, tables.py, csv_summary.py, report.py, the
#            gnuplot scripts) and checks what they wrote; the HTML report is
#            rendered in headless Chromium, which must load every image.
#
# It needs /usr/bin/python3 with matplotlib, gnuplot and /usr/bin/chromium;
# without them it exits 77 and ctest reports it skipped, except under CI
# (CI=true), where a missing tool fails the test.

find_program(BASH_EXECUTABLE bash REQUIRED)

# scripts_results makes the parts' result files once (the fixture); each
# part copies them, and makes its own if the fixture did not run. plots-b
# makes a result of its own too, which its wrapper checks; the others make
# none (with_results.sh would call an empty set a failure).
set(SCRIPTS_RESULTS ${CMAKE_CURRENT_BINARY_DIR}/scripts-results)
add_result_test(scripts_results
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_scripts.sh
                $<TARGET_FILE:harness> results ${SCRIPTS_RESULTS})
set_tests_properties(scripts_results PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT}
                     SKIP_RETURN_CODE 77 FIXTURES_SETUP scripts_results)
foreach(part plots-a plots-b plots-c tables report report-shot)
  if(part STREQUAL "plots-b")
    add_result_test(scripts_${part}
                    ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_scripts.sh
                    $<TARGET_FILE:harness> ${part} ${SCRIPTS_RESULTS})
  else()
    add_test(NAME scripts_${part}
             COMMAND ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_scripts.sh
                     $<TARGET_FILE:harness> ${part} ${SCRIPTS_RESULTS})
  endif()
  set_tests_properties(scripts_${part} PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT}
                       SKIP_RETURN_CODE 77 FIXTURES_REQUIRED scripts_results)
endforeach()

# test_workspan.sh: the work/span table (tables.py --metric work-span) and
# the normalized-speedup figure on fib(12) results of both engines: the
# span's closed form in the table, T_1/T_S from the results, the greedy
# bound's marks.
add_result_test(scripts_workspan
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_workspan.sh
                $<TARGET_FILE:harness>)
set_tests_properties(scripts_workspan PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT}
                     SKIP_RETURN_CODE 77)

# test_reproduce_check.sh: scripts/reproduce.sh --check on two small
# reproductions: identical sim results pass, a changed one is named, a
# threads median outside both intervals passes only with a recorded cause;
# the validation table's cells, from the trials in the calibration's
# round-trip regime.
add_result_test(scripts_reproduce_check
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_reproduce_check.sh
                $<TARGET_FILE:harness>)
set_tests_properties(scripts_reproduce_check PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})

# test_compressed.sh: results compact by default (--json-indent indents),
# gzip-compressed results read as they are by json_check, the schema check,
# harnesslib, tables.py, csv_summary.py, plot.py, reproduce.sh --check and a
# resumed sweep; command lines recorded as a user at the working directory
# types them.
add_result_test(scripts_compressed
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_compressed.sh
                $<TARGET_FILE:harness> $<TARGET_FILE:json_check>)
set_tests_properties(scripts_compressed PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT}
                     SKIP_RETURN_CODE 77)
