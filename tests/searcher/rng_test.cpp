// Golden values: spec/determined-searcher.md section 1 (numpy RandomState / Go nprand vectors).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/rng.hpp"

using hpsearch::Rng;

TEST_CASE("rng: seed 0 gives numpy's first 32-bit words") {
  Rng rng(0);
  const std::vector<std::uint32_t> expected{2357136044, 2546248239, 3071714933, 3626093760,
                                            2588848963, 3684848379, 2340255427, 3638918503,
                                            1819583497, 2678185683};
  for (const std::uint32_t word : expected) CHECK(rng.bits32() == word);
}

TEST_CASE("rng: unit interval from 53 bits, high word first") {
  Rng rng(0);
  CHECK(rng.unit_interval() == 0.5488135039273248);
  CHECK(rng.unit_interval() == 0.7151893663724195);
  CHECK(rng.unit_interval() == 0.6027633760716439);
}

TEST_CASE("rng: below(10) with seed 42 matches numpy randint(0, 10)") {
  Rng rng(42);
  const std::vector<std::uint64_t> expected{6, 3, 7, 4, 6, 9, 2, 6, 7, 4, 3, 7,
                                            7, 2, 5, 4, 1, 7, 5, 1, 4, 0, 9, 5};
  for (const std::uint64_t value : expected) CHECK(rng.below(10) == value);
}

TEST_CASE("rng: int64(-10, 10) with seed 84") {
  Rng rng(84);
  const std::vector<std::int64_t> expected{0, 7,  4, 3,   -10, 4, -9, 0,  -6, -9,
                                           3, -2, 4, -10, 6,   3, 4,  -6, -6, 8};
  for (const std::int64_t value : expected) CHECK(rng.int64(-10, 10) == value);
}

TEST_CASE("rng: uniform(0, 1) with seed 1") {
  Rng rng(1);
  CHECK(rng.uniform(0, 1) == 0.417022004702574);
  CHECK(rng.uniform(0, 1) == 0.7203244934421581);
  CHECK(rng.uniform(0, 1) == 0.00011437481734488664);
  CHECK(rng.uniform(0, 1) == 0.30233257263183977);
}

TEST_CASE("rng: request ids and trial seeds of the golden creates (seed 0)") {
  Rng rng(0);
  CHECK(rng.request_id().to_string() == "ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8");
  CHECK(rng.trial_seed() == 441365315);
  CHECK(rng.request_id().to_string() == "fb52a2db-c376-4d8b-a77d-e5d809a4746c");
  CHECK(rng.trial_seed() == 530702035);
  CHECK(rng.request_id().to_string() == "155159a5-f2d6-4662-a4b7-0570573a2b4c");
  CHECK(rng.trial_seed() == 1682652230);
}

TEST_CASE("rng: bits_limit(0) draws nothing, bits64 is high word first") {
  Rng a(7);
  Rng b(7);
  CHECK(a.bits_limit(0) == 0);
  CHECK(a == b);
  const std::uint64_t high = b.bits32();
  const std::uint64_t low = b.bits32();
  CHECK(a.bits64() == ((high << 32) | low));
}

TEST_CASE("rng: large limits draw 64 bits and stay in range") {
  Rng rng(999);
  for (int i = 0; i < 1000; ++i) {
    CHECK(rng.bits_limit((1ULL << 60) - 11) <= (1ULL << 60) - 11);
    const std::int64_t v = rng.int64(-(1LL << 62), 1LL << 62);
    CHECK(v >= -(1LL << 62));
    CHECK(v < (1LL << 62));
  }
}

TEST_CASE("rng: snapshot round trip at any position continues the same stream") {
  for (int consumed : {0, 1, 5, 623, 624, 625, 2000}) {
    INFO("consumed " << consumed);
    Rng rng(12345);
    for (int i = 0; i < consumed; ++i) (void)rng.bits32();
    const nlohmann::json state = rng;
    CHECK(state.at("pos") == 624);
    CHECK(state.at("key").size() == 624);
    Rng restored = state.get<Rng>();
    CHECK(restored == rng);
    CHECK(nlohmann::json(restored) == state);
    for (int i = 0; i < 1500; ++i) REQUIRE(restored.bits32() == rng.bits32());
  }
}

TEST_CASE("rng: a fresh seed's state is numpy's seeded key") {
  // numpy: key[0] = seed, key[i] = 1812433253 * (key[i-1] ^ (key[i-1] >> 30)) + i.
  // Boost normalises the low 31 bits of key[0], which MT19937 never reads (the twist uses
  // only its top bit), so only that bit is compared there.
  const nlohmann::json state = Rng(5489);
  std::uint32_t word = 5489;
  CHECK((state["key"][0].get<std::uint32_t>() & 0x80000000U) == (word & 0x80000000U));
  for (std::uint32_t i = 1; i < 624; ++i) {
    word = 1812433253U * (word ^ (word >> 30)) + i;
    REQUIRE(state["key"][i] == word);
  }
}

TEST_CASE("rng: malformed states are refused with the field named") {
  nlohmann::json state = Rng(1);
  SUBCASE("pos") {
    state["pos"] = 3;
    CHECK_THROWS_WITH_AS(
        (void)state.get<Rng>(),
        "rng.pos: must be 624 (hpsearch snapshots store the state at a block boundary), got 3",
        hpsearch::ProtocolError);
  }
  SUBCASE("key size") {
    state["key"].erase(0);
    CHECK_THROWS_WITH_AS((void)state.get<Rng>(),
                         "rng.key: must be an array of 624 integers in [0, 4294967295]",
                         hpsearch::ProtocolError);
  }
  SUBCASE("key word") {
    state["key"][10] = -1;
    CHECK_THROWS_WITH_AS((void)state.get<Rng>(),
                         "rng.key[10]: must be an integer in [0, 4294967295], got -1",
                         hpsearch::ProtocolError);
  }
}
