# Tests of the harness program itself, included from tests/CMakeLists.txt.
#
#   harness_cli_* tests/test_cli.sh in seven parts, each its own test:
#                input-a, input-b (bad input exits 2 with one line and no
#                file; --list and --help), runs-a, runs-b (small real runs
#                whose results pass json_check; SIGTERM leaves no file
#                behind), c2c-band,
#                speed-band (a trial outside the band run again, at most 4
#                times, and kept flagged) and costs (the sim's cost files).
#
# json_check validates a result file against docs/results.md (schema 1).

find_program(BASH_EXECUTABLE bash REQUIRED)

add_executable(json_check json_check.c)
target_link_libraries(json_check PRIVATE PkgConfig::JANSSON harness_core)

# The input parts write no result (add_result_test fails on none).
foreach(part input-a input-b runs-a runs-b c2c-band speed-band costs)
  set(cmd ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh
          $<TARGET_FILE:harness> $<TARGET_FILE:json_check> ${part})
  if(part MATCHES "^input")
    add_test(NAME harness_cli_${part} COMMAND ${cmd})
  else()
    add_result_test(harness_cli_${part} ${cmd})
  endif()
  set_tests_properties(harness_cli_${part} PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})
endforeach()

# test_trials_auto.sh: --trials auto on interleaved sim variants, the stopping
# rule recomputed from the trials, the rounds' fairness, CLI summary lines.
add_result_test(harness_trials_auto
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_trials_auto.sh
                $<TARGET_FILE:harness> $<TARGET_FILE:json_check>)
set_tests_properties(harness_trials_auto PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})

# test_variants.sh: an ablation of four variants of one policy in one run
# (trials interleaved, each reported under its own name) and crossed --set
# lists.
add_result_test(harness_variants
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_variants.sh
                $<TARGET_FILE:harness>)
set_tests_properties(harness_variants PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT} SKIP_RETURN_CODE 77)

# test_schema.sh: every workload on both engines; every result through
# json_check and through a standard JSON Schema validator against
# docs/result.schema.json (python3-jsonschema), which must reject results
# with a field removed.
# Two tests, one per engine.
foreach(engine threads sim)
  add_result_test(harness_schema_${engine}
                  ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_schema.sh
                  $<TARGET_FILE:harness> $<TARGET_FILE:json_check> ${engine})
  set_tests_properties(harness_schema_${engine} PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT}
                       SKIP_RETURN_CODE 77)
endforeach()

# test_hist_json.sh: histograms stored losslessly (buckets): every stored
# percentile recomputed from them, two runs merged equal to one run of both
# seeds, scripts/hist.py; --hdr byte for byte HdrHistogram_c's printer.
add_result_test(harness_histograms
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_hist_json.sh
                $<TARGET_FILE:harness>)
set_tests_properties(harness_histograms PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT} SKIP_RETURN_CODE 77)

# harness_reliability  tests/test_reliability.sh: every row of the bad-input
#                table in docs/reliability.md (exit status, message, no file
#                created or changed), outputs that are not plain files
#                (stdout, a symlink, a FIFO, /dev/null), and runs stopped by
#                a signal, the watchdog or a wrong answer leaving nothing.
#                Eight tests: the table in quarters, the other cases in halves.
#                Only the outputs groups complete runs, so only they make
#                results to validate (add_result_test fails on none).
foreach(group table-a table-b table-c table-d outputs-a outputs-b runs-a runs-b)
  set(cmd ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_reliability.sh
          $<TARGET_FILE:harness> ${CMAKE_SOURCE_DIR}/docs/reliability.md ${group})
  if(group MATCHES "^outputs")
    add_result_test(harness_reliability_${group} ${cmd})
  else()
    add_test(NAME harness_reliability_${group} COMMAND ${cmd})
  endif()
  set_tests_properties(harness_reliability_${group} PROPERTIES
                       TIMEOUT ${HARNESS_TEST_TIMEOUT})
endforeach()

# harness_install  tests/test_install.sh: cmake --install into a temporary
#                prefix (binary, man page with every option of --help,
#                scripts); the installed binary's --version, -h, --quiet and
#                its default results directory, ./results of the working
#                directory.
add_result_test(harness_install
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh
                ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR})
set_tests_properties(harness_install PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})

# test_answers.sh: UTS T1 and T3, N-queens 13 and 14, their counts read back
# from the result file. Release builds only: the sanitizers would make them
# minutes long, and the smaller trees run under them in test_wl_*.
if(NOT HARNESS_SANITIZE)
  add_result_test(harness_answers
                  ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_answers.sh
                  $<TARGET_FILE:harness>)
  set_tests_properties(harness_answers PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})
endif()
