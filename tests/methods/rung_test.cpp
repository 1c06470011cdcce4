#include <doctest/doctest.h>

#include "hpsearch/methods/rung.hpp"

using hpsearch::Rung;
using hpsearch::TiePolicy;

TEST_CASE("rung: a newcomer goes after equal metrics under the promotion policy") {
  Rung rung(TiePolicy::kNewcomerAfter);
  rung.insert(1, 0.5, false);
  rung.insert(2, 0.2, false);
  rung.insert(3, 0.5, false);
  // Determined's sort.Search(metric > m): 0.5 goes after both 0.5 entries.
  CHECK(rung.rank_of(rung.newcomer_key(0.5)) == 3);
  CHECK(rung.rank_of(rung.newcomer_key(0.1)) == 0);
  CHECK(rung.at(0).trial == 2);
  CHECK(rung.at(1).trial == 1);
  CHECK(rung.at(2).trial == 3);
}

TEST_CASE("rung: a newcomer goes before equal metrics under the stopping policy") {
  Rung rung(TiePolicy::kNewcomerBefore);
  rung.insert(1, 0.5, false);
  rung.insert(2, 0.2, false);
  rung.insert(3, 0.5, false);
  // sort.Search(metric >= m): 0.5 goes before every 0.5 entry; the latest is first.
  CHECK(rung.rank_of(rung.newcomer_key(0.5)) == 1);
  CHECK(rung.at(1).trial == 3);
  CHECK(rung.at(2).trial == 1);
}

TEST_CASE("rung: promoted flags, find, erase and in-order rebuild") {
  for (const TiePolicy policy : {TiePolicy::kNewcomerAfter, TiePolicy::kNewcomerBefore}) {
    Rung rung(policy);
    const Rung::Key a = rung.insert(1, 1.0, false);
    rung.insert(2, 1.0, false);
    rung.insert(3, -2.0, true);
    rung.set_promoted(1);
    CHECK(rung.at(1).promoted);
    REQUIRE(rung.find(a).has_value());
    CHECK(rung.erase(a));
    CHECK_FALSE(rung.find(a).has_value());
    CHECK_FALSE(rung.erase(a));
    CHECK(rung.size() == 2);

    std::vector<Rung::Entry> ranked;
    rung.for_each([&](const Rung::Key&, const Rung::Entry& e) { ranked.push_back(e); });
    Rung copy(policy);
    copy.assign(ranked);
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      CHECK(copy.at(i).trial == ranked[i].trial);
      CHECK(copy.at(i).promoted == ranked[i].promoted);
    }
    // Ties keep behaving after a rebuild: a newcomer is placed as the policy says.
    copy.insert(9, 1.0, false);
    const std::size_t nine = policy == TiePolicy::kNewcomerAfter ? 2 : 1;
    CHECK(copy.at(nine).trial == 9);
  }
}
