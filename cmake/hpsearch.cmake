# Warnings and sanitizers reach code only through this INTERFACE target, never through
# CMAKE_CXX_FLAGS, so third-party headers and consumers are not affected.
add_library(hpsearch_warnings INTERFACE)
add_library(hpsearch::warnings ALIAS hpsearch_warnings)
target_compile_options(hpsearch_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
  -Wnon-virtual-dtor -Woverloaded-virtual
  $<$<BOOL:${HPSEARCH_WERROR}>:-Werror>)
if(HPSEARCH_SANITIZE)
  target_compile_options(hpsearch_warnings INTERFACE
    -fsanitize=${HPSEARCH_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(hpsearch_warnings INTERFACE -fsanitize=${HPSEARCH_SANITIZE})
endif()

# hpsearch_add_module(NAME SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...]): one library
# hpsearch_NAME (alias hpsearch::NAME) with include/ as its only public include directory, so
# no module can reach into another's src/.
function(hpsearch_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(hpsearch_${name} ${ARG_SOURCES})
  add_library(hpsearch::${name} ALIAS hpsearch_${name})
  target_include_directories(hpsearch_${name}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
  target_compile_features(hpsearch_${name} PUBLIC cxx_std_20)
  target_link_libraries(hpsearch_${name}
    PUBLIC ${ARG_PUBLIC_DEPS}
    PRIVATE ${ARG_PRIVATE_DEPS} hpsearch::warnings)
  # Determined computes with Go, which never fuses a multiply and an add on amd64; neither may
  # we, or -march=native builds would drift from Go's bits (searcher/src/go_math.cpp).
  target_compile_options(hpsearch_${name} PRIVATE -ffp-contract=off)
endfunction()
