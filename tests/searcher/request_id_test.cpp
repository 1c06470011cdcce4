#include <doctest/doctest.h>

#include "hpsearch/searcher/request_id.hpp"

using hpsearch::RequestId;

TEST_CASE("request id: canonical text round trip") {
  const auto id = RequestId::parse("ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8");
  REQUIRE(id.has_value());
  CHECK(id->bytes[0] == 0xac);
  CHECK(id->bytes[15] == 0xd8);
  CHECK(id->to_string() == "ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8");
  CHECK(RequestId::parse("AC0A7F8C-2FAA-4497-B5A6-16B7C0CC21D8") == id);
}

TEST_CASE("request id: anything but the 8-4-4-4-12 form is refused") {
  for (const char* bad :
       {"", "ac0a7f8c2faa4497b5a616b7c0cc21d8", "ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d",
        "ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8a", "gc0a7f8c-2faa-4497-b5a6-16b7c0cc21d8",
        "ac0a7f8c_2faa-4497-b5a6-16b7c0cc21d8"}) {
    INFO(bad);
    CHECK_FALSE(RequestId::parse(bad).has_value());
  }
}

TEST_CASE("request id: ordering compares raw bytes (Determined's Before)") {
  const auto a = *RequestId::parse("00000000-0000-4000-8000-000000000001");
  const auto b = *RequestId::parse("00000000-0000-4000-8000-000000000002");
  const auto c = *RequestId::parse("10000000-0000-4000-8000-000000000000");
  CHECK(a < b);
  CHECK(b < c);
  CHECK(hpsearch::RequestIdHash{}(a) != hpsearch::RequestIdHash{}(b));
}
