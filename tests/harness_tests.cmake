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
# json_check validates a result file against docs/results.md (schema 1),
# plain or gzip-compressed (zlib reads both).

find_program(BASH_EXECUTABLE bash REQUIRED)
find_package(ZLIB REQUIRED)

add_executable(json_check json_check.c)
target_link_libraries(json_check PRIVATE PkgConfig::JANSSON ZLIB::ZLIB harness_core)

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

# test_summary.sh: the multi-policy summary of an open-loop comparison on the
# sim engine prints p50 and p99 per variant with their 95% intervals, the
# figures of each variant's result file; the median's interval column is
# the result file's median.ci95; no latency table without latencies.
add_result_test(harness_summary
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_summary.sh
                $<TARGET_FILE:harness>)
set_tests_properties(harness_summary PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT} SKIP_RETURN_CODE 77)

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

# test_bound.sh: a run below its lower bound, max(T1/P, longest task), is
# refused with one line and no result; runs within it are written.
add_result_test(harness_bound
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_bound.sh
                $<TARGET_FILE:harness>)
set_tests_properties(harness_bound PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})

# test_answers.sh: UTS T1 and T3, N-queens 13 and 14, their counts read back
# from the result file. Release builds only: the sanitizers would make them
# minutes long, and the smaller trees run under them in test_wl_*.
if(NOT HARNESS_SANITIZE)
  add_result_test(harness_answers
                  ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_answers.sh
                  $<TARGET_FILE:harness>)
  set_tests_properties(harness_answers PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})
endif()

# test_real.sh: --engine=real on fake peer programs (exact figures through
# the peer protocol, wrong answers and failures, bad input refused before
# any work), and on the real peers when scripts/peers.sh built them.
add_result_test(harness_real
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_real.sh
                $<TARGET_FILE:harness> $<TARGET_FILE:json_check>)
set_tests_properties(harness_real PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})

# test_runtime_costs.sh: scripts/runtime_costs.py fits the sim's costs to a
# fake runtime that reports the sim's own makespans at known costs.
add_result_test(harness_runtime_costs
                ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_runtime_costs.sh
                $<TARGET_FILE:harness>)
set_tests_properties(harness_runtime_costs PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})

# test_outfile.sh: result files when things go wrong: six concurrent runs
# without --json keep six results, a full disk leaves a result behind a
# link whole, a replaced file keeps its mode, outputs the run refuses
# (--check refuses them too), SIGPIPE, SIGXFSZ and SIGTERM to PID 1 leave no
# temporary. Two tests: names (and refusals, the full disk) and signals.
foreach(group names signals)
  add_result_test(harness_outfile_${group}
                  ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_outfile.sh
                  $<TARGET_FILE:harness> ${group})
  set_tests_properties(harness_outfile_${group} PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})
endforeach()
