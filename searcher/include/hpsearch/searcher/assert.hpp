#pragma once
/// \file
/// HPSEARCH_ASSERT: invariants of the library itself (never user input). A failure is a
/// bug in hpsearch: it prints the condition with file and line and aborts.

#include <cstdio>
#include <cstdlib>

namespace hpsearch::detail {
[[noreturn]] inline void assert_failed(const char* condition, const char* file, int line,
                                       const char* message) {
  std::fprintf(stderr, "%s:%d: hpsearch internal error: check '%s' failed: %s\n", file, line,
               condition, message);
  std::abort();
}
}  // namespace hpsearch::detail

// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): needs __FILE__/__LINE__ of the caller.
#define HPSEARCH_ASSERT(condition, message)                                                       \
  do {                                                                                            \
    if (!(condition)) ::hpsearch::detail::assert_failed(#condition, __FILE__, __LINE__, message); \
  } while (false)
