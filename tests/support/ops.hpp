#pragma once
// Helpers to read operation lists in tests.

#include <doctest/doctest.h>

#include <vector>

#include "hpsearch/searcher/operation.hpp"

namespace hpsearch::testing {

template <class Op>
std::vector<Op> all_of_type(const std::vector<Operation>& ops) {
  std::vector<Op> out;
  for (const Operation& op : ops) {
    if (const auto* typed = std::get_if<Op>(&op)) out.push_back(*typed);
  }
  return out;
}

/// The single Create in `ops`.
inline Create only_create(const std::vector<Operation>& ops) {
  const auto creates = all_of_type<Create>(ops);
  REQUIRE(creates.size() == 1);
  return creates.front();
}

}  // namespace hpsearch::testing

/// CHECK_THROWS_WITH_AS for a message built at run time (doctest 2.4 takes a const char*,
/// which it copies).
#define HPSEARCH_CHECK_THROWS_TEXT(expr, message, type) \
  CHECK_THROWS_WITH_AS(expr, std::string(message).c_str(), type)
