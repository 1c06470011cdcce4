# The `det` launcher (python/determined/cli): a shell script running `python3 -m determined.cli`
# with the `determined` package on PYTHONPATH and the searcher-run and searcher-sim it drives.
# One in the build tree (PROJECT_BINARY_DIR/det: the source tree's package, the build's
# programs) and one installed beside searcher-run (bin/det: the installed package, found
# relative to the script, so the prefix can move).
if(Python3_EXECUTABLE)
  set(det_python "${Python3_EXECUTABLE}")
else()
  set(det_python "/usr/bin/env python3")
endif()

set(det_where "The build tree's: the source tree's determined package, this build's programs.")
set(det_setup "")
set(det_searcher_run "$<TARGET_FILE:searcher-run>")
set(det_searcher_sim "$<TARGET_FILE:searcher-sim>")
set(det_pythonpath "${PROJECT_SOURCE_DIR}/python")
configure_file(${CMAKE_CURRENT_LIST_DIR}/det.sh.in ${PROJECT_BINARY_DIR}/det.build.in @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/det INPUT ${PROJECT_BINARY_DIR}/det.build.in
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                      WORLD_EXECUTE)

if(HPSEARCH_INSTALL)
  file(RELATIVE_PATH det_bin_to_python /${CMAKE_INSTALL_BINDIR} /${HPSEARCH_INSTALL_PYTHONDIR})
  set(det_where "Installed: the determined package and the programs found relative to this script.")
  set(det_setup "bin=$(CDPATH= cd -- \"$(dirname -- \"$(readlink -f -- \"$0\")\")\" && pwd)")
  set(det_searcher_run "$bin/searcher-run")
  set(det_searcher_sim "$bin/searcher-sim")
  set(det_pythonpath "$bin/${det_bin_to_python}")
  configure_file(${CMAKE_CURRENT_LIST_DIR}/det.sh.in ${PROJECT_BINARY_DIR}/install/det @ONLY)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/install/det DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
