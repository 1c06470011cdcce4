# `cmake --install` lays hpsearch out as a distribution would (GNUInstallDirs): headers under
# include/hpsearch, the static C++ modules and the shared C library under lib, the programs under
# bin, the data under share/hpsearch, a CMake package (find_package(hpsearch 0.2)) and a
# pkg-config file for the C library. Tested by tests/package (an out-of-tree consumer).
include(CMakePackageConfigHelpers)

set(hpsearch_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/hpsearch)
foreach(module IN ITEMS searcher samplers methods config cli plot simulator runner capi)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${module}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()

# The C++ modules are static: a C++ ABI built from C++20 templates cannot promise stability,
# so only the C library is shared and carries a soname.
install(TARGETS hpsearch_searcher hpsearch_samplers hpsearch_methods hpsearch_config hpsearch_cli hpsearch_plot hpsearch_simulator
                hpsearch_runner hpsearch_capi
        EXPORT hpsearch-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS searcher-sim searcher-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hpsearch)
# The Python packages: determined (the trials' client; the installed searcher-run points its
# trials here) and, when built, hpsearch with its extension module.
set(hpsearch_python_packages determined)
if(HPSEARCH_PYTHON)
  list(APPEND hpsearch_python_packages hpsearch)
  install(TARGETS hpsearch_python LIBRARY DESTINATION ${HPSEARCH_INSTALL_PYTHONDIR}/hpsearch)
endif()
foreach(package IN LISTS hpsearch_python_packages)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/${package} DESTINATION ${HPSEARCH_INSTALL_PYTHONDIR}
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
endforeach()

install(EXPORT hpsearch-targets NAMESPACE hpsearch:: DESTINATION ${hpsearch_package_dir})
configure_package_config_file(cmake/hpsearch-config.cmake.in
                              ${PROJECT_BINARY_DIR}/hpsearch-config.cmake
                              INSTALL_DESTINATION ${hpsearch_package_dir})
# Before 1.0, 0.2 and 0.3 may differ incompatibly: a request for 0.2 accepts 0.2.x only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hpsearch-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hpsearch-config.cmake
              ${PROJECT_BINARY_DIR}/hpsearch-config-version.cmake
        DESTINATION ${hpsearch_package_dir})

# Relocatable: the prefix is found from the .pc file's own place (lib/pkgconfig, or
# lib/x86_64-linux-gnu/pkgconfig when configured for /usr on Debian).
file(RELATIVE_PATH hpsearch_pc_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" hpsearch_pc_to_prefix "${hpsearch_pc_to_prefix}")
configure_file(cmake/hpsearch.pc.in ${PROJECT_BINARY_DIR}/hpsearch.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/hpsearch.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
