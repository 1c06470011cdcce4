#include <doctest/doctest.h>

#include "hpsearch/searcher/request_id_index.hpp"
#include "hpsearch/searcher/rng.hpp"

using namespace hpsearch;

TEST_CASE("request id index: finds what was inserted across growth, refuses duplicates") {
  Rng rng(5);
  std::vector<RequestId> ids;
  RequestIdIndex index;
  for (std::uint32_t i = 0; i < 5000; ++i) {  // grows from 16 slots many times
    ids.push_back(rng.request_id());
    REQUIRE(index.insert(ids.back(), i));
  }
  CHECK(index.size() == 5000);
  for (std::uint32_t i = 0; i < ids.size(); ++i) REQUIRE(index.find(ids[i]) == i);
  CHECK_FALSE(index.insert(ids[17], 99));  // already there: unchanged
  CHECK(index.find(ids[17]) == 17U);
  CHECK(index.size() == 5000);
  CHECK_FALSE(index.find(rng.request_id()).has_value());
  CHECK_FALSE(RequestIdIndex().find(ids[0]).has_value());  // empty table
}
