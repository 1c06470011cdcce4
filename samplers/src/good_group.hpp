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

}  // namespace hpsearch::sampler_detail
