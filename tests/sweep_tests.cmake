# Tests of scripts/sweep.py, included from tests/CMakeLists.txt.
#
#   sweep_grid     tests/test_sweep.sh grid: one result per configuration,
#                  stable run ids, resume after --max-runs and after SIGTERM
#                  without rerunning finished runs, the GNU parallel and
#                  --sshloginfile backends, the Slurm job array, merge.
#   sweep_control  tests/test_sweep.sh control: a grid with bad values
#                  refused before any run (one error naming them all), the
#                  -j warning on threads, Ctrl-C letting running runs
#                  finish, the progress line redrawn on a terminal.
# Needs /usr/bin/python3 and GNU parallel.

find_program(BASH_EXECUTABLE bash REQUIRED)

foreach(part grid control)
  add_result_test(sweep_${part}
                  ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.sh
                  $<TARGET_FILE:harness> ${part})
  set_tests_properties(sweep_${part} PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})
endforeach()
