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
