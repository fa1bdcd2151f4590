# Tests of scripts/sweep.py, included from tests/CMakeLists.txt.
#
#   sweep  tests/test_sweep.sh: one result per configuration, stable run ids,
#          resume after --max-runs and after SIGTERM without rerunning
#          finished runs, the GNU parallel and --sshloginfile backends, the
#          Slurm job array, merge. Needs /usr/bin/python3 and GNU parallel.

find_program(BASH_EXECUTABLE bash REQUIRED)

add_test(NAME sweep
         COMMAND ${BASH_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.sh
                 $<TARGET_FILE:harness>)
set_tests_properties(sweep PROPERTIES TIMEOUT ${HARNESS_TEST_TIMEOUT})
