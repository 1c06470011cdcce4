#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "good_group.hpp"
#include "hpsearch/samplers/observation_store.hpp"

using namespace hpsearch;
using sampler_detail::good_group;
using sampler_detail::rank_correlation;

namespace {
// Twenty trials report at length 1 with metric t (trial 0 best); trials 0-5 are promoted to
// length 9 and report there `at_nine[t]`.
ObservationStore promoted(const std::vector<double>& at_nine) {
  ObservationStore store(1, 64);
  for (std::uint32_t t = 0; t < 20; ++t) store.add_trial(t, std::vector<double>{0.05 * t});
  for (std::uint32_t t = 0; t < 20; ++t) store.observe(t, 1, static_cast<double>(t));
  for (std::uint32_t t = 0; t < at_nine.size(); ++t) store.observe(t, 9, at_nine[t]);
  return store;
}

std::vector<std::uint32_t> group(const ObservationStore& store, std::size_t size = 10) {
  std::vector<std::uint32_t> out;
  // gamma 0.2, at least 5 trials at the reference length and 5 pairs to trust a shorter one.
  good_group(store, 0.2, size, 5, out);
  return out;
}
}  // namespace

TEST_CASE("rank correlation: Spearman's, ties at their average rank") {
  const std::vector<double> up{1, 2, 3, 4, 5, 6};
  const std::vector<double> down{6, 5, 4, 3, 2, 1};
  CHECK(rank_correlation(up, up) == doctest::Approx(1));
  CHECK(rank_correlation(up, down) == doctest::Approx(-1));
  // Neighbours swapped in pairs: sum d^2 = 6, 1 - 6 * 6 / (6 * 35) = 0.828571...
  const std::vector<double> swapped{2, 1, 4, 3, 6, 5};
  CHECK(rank_correlation(up, swapped) == doctest::Approx(1.0 - 36.0 / 210.0));
  // Ties: a = (1, 2, 2, 3) has ranks (1, 2.5, 2.5, 4); b = (1, 2, 3, 4). Centred (mean 2.5):
  // (-1.5, 0, 0, 1.5) and (-1.5, -0.5, 0.5, 1.5): 4.5 / sqrt(4.5 * 5) = 0.948683...
  const std::vector<double> tied{1, 2, 2, 3};
  const std::vector<double> four{1, 2, 3, 4};
  CHECK(rank_correlation(tied, four) == doctest::Approx(4.5 / std::sqrt(22.5)));
  // A constant side ranks nothing; a single pair has no order.
  const std::vector<double> flat{7, 7, 7, 7};
  CHECK(rank_correlation(flat, four) == 0);
  CHECK(rank_correlation(std::vector<double>{1}, std::vector<double>{2}) == 0);
  // Infinite metrics (diverged trials) rank last.
  const std::vector<double> diverged{1, INFINITY, 2, 3};
  const std::vector<double> order{1, 4, 2, 3};
  CHECK(rank_correlation(diverged, order) == doctest::Approx(1));
}

TEST_CASE("good group: short lengths that rank as the longest count with their best share") {
  // At length 9 trials 0-5 rank as at length 1 (correlation 1): the best share of length 9,
  // ceil(0.2 * 6) = 2 trials {0, 1}, then of length 1, 0.2 * 1 * 20 = 4 trials {0, 1, 2, 3}.
  // (The ranking over all lengths would take all six of length 9 first.)
  const ObservationStore store = promoted({0.5, 1.5, 2.5, 3.5, 4.5, 5.5});
  CHECK(group(store) == std::vector<std::uint32_t>{0, 1, 2, 3});
  std::vector<std::uint32_t> pooled;
  store.leaders(4, pooled);
  CHECK(pooled == std::vector<std::uint32_t>{0, 1, 2, 3});
  store.leaders(6, pooled);
  CHECK(pooled == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5});
  CHECK(group(store, 6) == std::vector<std::uint32_t>{0, 1, 2, 3});
  // The group never exceeds its size.
  CHECK(group(store, 3) == std::vector<std::uint32_t>{0, 1, 2});
}

TEST_CASE("good group: short lengths that rank against the longest are ignored") {
  // At length 9 the order of length 1 is reversed (correlation -1): only length 9's best
  // share, ceil(0.2 * 6) = 2 trials, 5 (0.5) and 4 (1.5).
  CHECK(group(promoted({5.5, 4.5, 3.5, 2.5, 1.5, 0.5})) == std::vector<std::uint32_t>{5, 4});
}

TEST_CASE("good group: a partial agreement gives a share by the correlation's square") {
  // Length 9 ranks 1, 0, 3, 2, 5, 4: correlation rho = 1 - 36 / 210 = 0.8286 with length 1.
  // With gamma 0.25 length 9 gives its best ceil(0.25 * 6) = 2, trials 1 (0.5) and 0 (1.5);
  // length 1 round(0.25 * rho^2 * 20) = round(3.43) = 3 trials {0, 1, 2} (rho itself would
  // give round(4.14) = 4).
  std::vector<std::uint32_t> out;
  good_group(promoted({1.5, 0.5, 3.5, 2.5, 5.5, 4.5}), 0.25, 10, 5, out);
  CHECK(out == std::vector<std::uint32_t>{1, 0, 2});
}

TEST_CASE("good group: the reference is the longest length with enough trials") {
  // Four trials at length 9 (fewer than 5): length 1 is the reference, with its best share
  // ceil(0.2 * 20) = 4; length 9, longer, gives its best ceil(0.2 * 4) = 1 first: trial 3.
  ObservationStore store = promoted({3.5, 2.5, 1.5, 0.5});
  CHECK(group(store) == std::vector<std::uint32_t>{3, 0, 1, 2});
  // No length has 5 trials: the ranking over all lengths (longest length first).
  ObservationStore few(1, 64);
  for (std::uint32_t t = 0; t < 4; ++t) few.add_trial(t, std::vector<double>{0.1 * t});
  for (std::uint32_t t = 0; t < 4; ++t) few.observe(t, 1, static_cast<double>(t));
  few.observe(3, 3, 0.5);
  std::vector<std::uint32_t> out;
  good_group(few, 0.2, 3, 5, out);
  CHECK(out == std::vector<std::uint32_t>{3, 0, 1});
}

TEST_CASE("good group: a shorter length measured on too few shared trials is not trusted") {
  // Six trials start at length 9 (a bracket that skips length 1), two of them reported at
  // length 1 too: two pairs, fewer than 5, so length 1 gives nothing although it agrees.
  ObservationStore store(1, 64);
  for (std::uint32_t t = 0; t < 26; ++t) store.add_trial(t, std::vector<double>{0.03 * t});
  for (std::uint32_t t = 0; t < 20; ++t) store.observe(t, 1, static_cast<double>(t));
  store.observe(0, 9, 0.5);
  store.observe(1, 9, 1.5);
  for (std::uint32_t t = 20; t < 24; ++t) store.observe(t, 9, static_cast<double>(t));
  std::vector<std::uint32_t> out;
  good_group(store, 0.2, 10, 5, out);
  CHECK(out == std::vector<std::uint32_t>{0, 1});
}

TEST_CASE("observation store: a trial's metric at a length and the pairs between two lengths") {
  ObservationStore store(1, 4);
  for (std::uint32_t t = 0; t < 6; ++t) store.add_trial(t, std::vector<double>{0.1 * t});
  for (std::uint32_t t = 0; t < 6; ++t) store.observe(t, 1, 10.0 + t);
  store.observe(2, 3, 2.0);
  store.observe(2, 3, 2.5);  // reported twice at length 3: the latest counts
  for (std::uint32_t t = 3; t < 6; ++t) store.observe(t, 3, static_cast<double>(t));
  store.observe(0, 3, 0.0);  // trial 0 reports at 3 last; trial 1 never does
  CHECK(store.metric_at(2, 3) == 2.5);
  CHECK(store.metric_at(2, 1) == 12.0);
  CHECK_FALSE(store.metric_at(1, 3).has_value());
  CHECK_FALSE(store.metric_at(2, 9).has_value());
  std::vector<double> at_one;
  std::vector<double> at_three;
  // The latest cap = 4 observations at length 3 are 3, 4, 5 and 0 (2's are older), in
  // observation order.
  store.paired_metrics(1, 3, at_one, at_three);
  CHECK(at_one == std::vector<double>{13, 14, 15, 10});
  CHECK(at_three == std::vector<double>{3, 4, 5, 0});
  std::vector<std::uint64_t> lengths;
  store.lengths(lengths);
  CHECK(lengths == std::vector<std::uint64_t>{3, 1});
  CHECK(store.observations_at(3) == 6);
  CHECK(store.observations_at(9) == 0);
  std::vector<std::uint32_t> best;
  // A length keeps its best cap / 2 = 2: trial 0 (0.0), then trial 2 (its 2.0).
  store.leaders_at(3, 3, best);
  CHECK(best == std::vector<std::uint32_t>{0, 2});
}

TEST_CASE("good group: with one length, the best gamma share as the ranking over all lengths") {
  // Twenty trials at length 1, metric (7 t) mod 20: the best ceil(0.2 * 20) = 4 are the
  // trials with metrics 0-3, t = 3 m mod 20 (3 is 7's inverse mod 20): 0, 3, 6, 9.
  ObservationStore store(1, 64);
  for (std::uint32_t t = 0; t < 20; ++t) store.add_trial(t, std::vector<double>{0.05 * t});
  for (std::uint32_t t = 0; t < 20; ++t) store.observe(t, 1, static_cast<double>((t * 7) % 20));
  std::vector<std::uint32_t> out;
  good_group(store, 0.2, 10, 5, out);
  CHECK(out == std::vector<std::uint32_t>{0, 3, 6, 9});
  std::vector<std::uint32_t> pooled;
  store.leaders(4, pooled);
  CHECK(out == pooled);
}

namespace {
using sampler_detail::length_trust;
using sampler_detail::LengthTrust;
using sampler_detail::thin_by_trust;

// The observed trials 0-19 in order, thinned by the store's trust (5 trials to measure it).
std::vector<std::uint32_t> thinned(const ObservationStore& store) {
  std::vector<LengthTrust> trust;
  length_trust(store, 5, trust);
  std::vector<std::uint32_t> trials;
  for (std::uint32_t t = 0; t < 20; ++t) trials.push_back(t);
  thin_by_trust(store, trust, trials);
  return trials;
}
}  // namespace

TEST_CASE("length trust: 1 for the reference and longer, rho^2 for shorter lengths") {
  // Length 9 ranks 1, 0, 3, 2, 5, 4 (rho = 1 - 36 / 210 = 174 / 210 against length 1).
  std::vector<LengthTrust> trust;
  length_trust(promoted({1.5, 0.5, 3.5, 2.5, 5.5, 4.5}), 5, trust);
  REQUIRE(trust.size() == 2);
  CHECK(trust[0].length == 9);
  CHECK(trust[0].trust == 1);
  CHECK(trust[0].reference);
  CHECK(trust[1].length == 1);
  CHECK(trust[1].trust == doctest::Approx((174.0 / 210) * (174.0 / 210)));
  CHECK(trust[1].rho == doctest::Approx(174.0 / 210));
  CHECK(trust[1].measured);
  CHECK_FALSE(trust[1].reference);
  // No length with 5 observations: nothing measured, empty.
  ObservationStore few(1, 64);
  for (std::uint32_t t = 0; t < 4; ++t) few.add_trial(t, std::vector<double>{0.1 * t});
  for (std::uint32_t t = 0; t < 4; ++t) few.observe(t, 1, static_cast<double>(t));
  length_trust(few, 5, trust);
  CHECK(trust.empty());
}

TEST_CASE("bad group: trials stopped at a length ranking unlike the longest are thinned") {
  // Trials 0-5 reached length 9 (the reference): kept. Trials 6-19 stopped at length 1, whose
  // rank correlation with length 9 is rho = 174 / 210 = 0.828571: the k-th of them (k = 0..13)
  // is kept when floor((k + 1) rho) > floor(k rho). The multiples k rho for k = 0..14: 0, 0.83,
  // 1.66, 2.49, 3.31, 4.14, 4.97, 5.80, 6.63, 7.46, 8.29, 9.11, 9.94, 10.77, 11.6: no integer
  // is passed at k = 0, 5 and 11 (trials 6, 11, 17); the other 11 = floor(14 rho) stay.
  CHECK(thinned(promoted({1.5, 0.5, 3.5, 2.5, 5.5, 4.5})) ==
        std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 14, 15, 16, 18, 19});
}

TEST_CASE("bad group: kept whole where the short length ranks as the longest or is unmeasured") {
  // Correlation 1: rho exactly 1, nothing removed.
  std::vector<std::uint32_t> all(20);
  for (std::uint32_t t = 0; t < 20; ++t) all[t] = t;
  CHECK(thinned(promoted({0.5, 1.5, 2.5, 3.5, 4.5, 5.5})) == all);
  // Correlation -1: rho counts as 0, every trial stopped at length 1 removed.
  CHECK(thinned(promoted({5.5, 4.5, 3.5, 2.5, 1.5, 0.5})) ==
        std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5});
  // Length 9 has 6 trials but only 2 of them reported at length 1 too (fewer than 5): the
  // rho of length 1 is not measured, so its trials are no evidence either way and stay.
  ObservationStore store(1, 64);
  for (std::uint32_t t = 0; t < 26; ++t) store.add_trial(t, std::vector<double>{0.03 * t});
  for (std::uint32_t t = 0; t < 20; ++t) store.observe(t, 1, static_cast<double>(t));
  store.observe(0, 9, 0.5);
  store.observe(1, 9, 1.5);
  for (std::uint32_t t = 20; t < 24; ++t) store.observe(t, 9, static_cast<double>(t));
  CHECK(thinned(store) == all);
  // No reference length yet (4 trials at length 1, fewer than 5): nothing removed.
  ObservationStore few(1, 64);
  for (std::uint32_t t = 0; t < 20; ++t) few.add_trial(t, std::vector<double>{0.05 * t});
  for (std::uint32_t t = 0; t < 4; ++t) few.observe(t, 1, static_cast<double>(t));
  CHECK(thinned(few) == all);
}
