# git_rev.cmake - write git_rev.h, the source tree's git revision ("-dirty"
# when tracked files outside results/ have uncommitted changes: a
# reproduction rewrites results/reference while the binary that makes it
# is built from a clean tree), at every build: a revision
# taken when CMake configured the tree would go stale with the next commit.
# The file is rewritten only when the revision changed, so an unchanged
# tree rebuilds nothing.
#
#   cmake -DSRC=<source dir> -DOUT=<path of git_rev.h> -DGIT=<git> -P git_rev.cmake
set(rev "unknown")
if(GIT AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT}" rev-parse HEAD WORKING_DIRECTORY "${SRC}"
                  OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND head)
    set(rev "${head}")
    execute_process(COMMAND "${GIT}" status --porcelain --untracked-files=no
                            -- . ":(exclude)results"
                    WORKING_DIRECTORY "${SRC}" OUTPUT_VARIABLE dirty
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(dirty)
      set(rev "${rev}-dirty")
    endif()
  endif()
endif()
set(text "/* Written at build time by harness/git_rev.cmake. */\n#define BUILD_GIT_REV \"${rev}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
