#pragma once
// TPE's good group: which observed trials the good density is fitted on, when trials reported
// at several lengths and shorter lengths rank configurations more or less as longer ones do.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "hpsearch/samplers/observation_store.hpp"
#include "hpsearch/samplers/rank_correlation.hpp"

namespace hpsearch::sampler_detail {

using hpsearch::rank_correlation;  // hpsearch/samplers/rank_correlation.hpp

/// How far TPE trusts each length's ranking of trials (longest first): the reference length
/// (the longest with at least `min_trials` observations) and every longer one 1; a shorter one
/// the square of the rank correlation of its metrics with the reference's over the trials that
/// reported at both (measured on at least `min_trials` of them, else 0), negative correlations
/// counting as 0. Empty while no length holds `min_trials` observations.
struct LengthTrust {
  std::uint64_t length = 0;
  double trust = 1;
  bool reference = false;
  bool measured = true;  // false: too few trials reported at both lengths (trust 0)
  double rho = 1;        // the rank correlation itself (negative counting as 0); trust = rho^2
};
void length_trust(const ObservationStore& store, std::size_t min_trials,
                  std::vector<LengthTrust>& out);

/// The good group, at most `size` trials, best first (GoodGroup rule of docs/samplers.md):
/// - the reference length is the longest with at least `min_trials` observations;
/// - the reference and every longer length give their best `gamma` share (at least one);
/// - a shorter length gives its best `gamma * trust` share (rounded), trust being the square
///   of the rank correlation of its metrics with the reference's over the trials that
///   reported at both (measured on at least `min_trials` of them, else 0), negative
///   correlations counting as 0;
/// - longest length first, each trial once, until `size`.
/// Where short trainings rank trials as the long ones (trust 1) it is the best share of each
/// length; where they do not (trust 0) only the longest lengths' best (BOHB's data). With no
/// length holding `min_trials` yet, the store's ranking over all lengths (`leaders`).
/// Work: O(L cap log cap) for L lengths, on the store's capped data.
void good_group(const ObservationStore& store, double gamma, std::size_t size,
                std::size_t min_trials, std::vector<std::uint32_t>& out);
/// The same with the trust already measured (length_trust with `min_trials`).
void good_group(const ObservationStore& store, const std::vector<LengthTrust>& trust, double gamma,
                std::size_t size, std::vector<std::uint32_t>& out);

/// TPE's bad group, thinned by the lengths' rank correlation (docs/samplers.md, the tpe
/// section): of the trials whose longest length is a shorter one with a measured rho < 1, an
/// even share rho is kept (the k-th of that length, counting from 0 in the order given, when
/// floor((k + 1) rho) > floor(k rho)), the others are removed; trials at the reference length
/// or longer, at lengths whose rho is not measured yet, and all trials while `trust` is empty
/// stay. A trial stopped after a length that ranks trials unlike the longest was stopped on a
/// poor guess: weak evidence of a bad region. (rho, not the good group's rho^2: measured on
/// the tuning tables, rho^2 removed too many under async_halving.) Order is kept. O(n L) for L
/// lengths.
void thin_by_trust(const ObservationStore& store, const std::vector<LengthTrust>& trust,
                   std::vector<std::uint32_t>& trials);

}  // namespace hpsearch::sampler_detail
