# Warnings and sanitizers reach code only through this INTERFACE target, never through
# CMAKE_CXX_FLAGS, so third-party headers and consumers are not affected.
add_library(hpsearch_warnings INTERFACE)
add_library(hpsearch::warnings ALIAS hpsearch_warnings)
target_compile_options(hpsearch_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  $<$<COMPILE_LANGUAGE:CXX>:-Wold-style-cast -Wnon-virtual-dtor -Woverloaded-virtual>
  $<$<BOOL:${HPSEARCH_WERROR}>:-Werror>)
if(HPSEARCH_SANITIZE)
  # Sanitizer reports need file:line, not variables: line tables only (instead of the build
  # type's full -g, which comes earlier on the command line) make the objects several times
  # smaller and the sanitized build faster to compile and link.
  target_compile_options(hpsearch_warnings INTERFACE
    -fsanitize=${HPSEARCH_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all
    $<IF:$<CXX_COMPILER_ID:Clang>,-gline-tables-only,-g1>)
  target_link_options(hpsearch_warnings INTERFACE -fsanitize=${HPSEARCH_SANITIZE})
endif()

# HPSEARCH_FUZZ: libFuzzer's coverage and comparison instrumentation in the library modules
# (hpsearch_add_module below); the fuzz programs link the libFuzzer runtime (fuzz/). Everything
# else in that build (tests, tools) links the same instrumented libraries: the sanitizer
# runtimes define the instrumentation's hooks, so one build serves tests and fuzzing.
if(HPSEARCH_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "HPSEARCH_FUZZ needs clang (libFuzzer): configure with "
                      "-DCMAKE_CXX_COMPILER=clang++ (Debian: clang, libclang-rt-14-dev)")
endif()
if(HPSEARCH_FUZZ AND NOT HPSEARCH_SANITIZE MATCHES "address")
  message(FATAL_ERROR "HPSEARCH_FUZZ needs HPSEARCH_SANITIZE with address (e.g. address,undefined)")
endif()

# hpsearch_add_module(NAME SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...]): one library
# hpsearch_NAME (alias hpsearch::NAME) with include/ as its only public include directory, so
# no module can reach into another's src/.
function(hpsearch_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(hpsearch_${name} ${ARG_SOURCES})
  add_library(hpsearch::${name} ALIAS hpsearch_${name})
  target_include_directories(hpsearch_${name}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(hpsearch_${name} PUBLIC cxx_std_20)
  # The warnings target is for this tree's own compilation: installed consumers do not get it.
  target_link_libraries(hpsearch_${name}
    PUBLIC ${ARG_PUBLIC_DEPS}
    PRIVATE ${ARG_PRIVATE_DEPS} $<BUILD_INTERFACE:hpsearch::warnings>)
  # The static modules are linked into the shared C library (capi/), so they are built as
  # position-independent code.
  set_target_properties(hpsearch_${name} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    EXPORT_NAME ${name})
  # Determined computes with Go, which never fuses a multiply and an add on amd64; neither may
  # we, or -march=native builds would drift from Go's bits (searcher/src/go_math.cpp).
  target_compile_options(hpsearch_${name} PRIVATE -ffp-contract=off)
  if(HPSEARCH_FUZZ)
    target_compile_options(hpsearch_${name} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()
