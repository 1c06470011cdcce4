#include "hpsearch/samplers/random_sampler.hpp"

#include <string>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/state_fields.hpp"

namespace hpsearch {

void RandomSampler::restore_state(const nlohmann::json& state) {
  state_fields::expect_type(state, "sampler_state", "sampler_type", "random", "sampler");
}

nlohmann::json GridSampler::propose(Rng& /*rng*/, std::uint32_t /*trial*/) {
  HPSEARCH_ASSERT(grid_.size() > 0, "proposing from an empty grid");
  // Determined pops the last element of its point list: launch order is reverse grid order.
  const std::uint64_t index = grid_.size() - 1 - proposed_ % grid_.size();
  ++proposed_;
  return grid_.point(index);
}

nlohmann::json GridSampler::state() const {
  return {{"sampler_type", "grid"}, {"grid_size", grid_.size()}, {"proposed", proposed_}};
}

void GridSampler::restore_state(const nlohmann::json& state) {
  state_fields::expect_type(state, "sampler_state", "sampler_type", "grid", "sampler");
  state_fields::expect_config(state, "sampler_state", "grid_size", grid_.size());
  proposed_ = state_fields::read_count(state, "sampler_state", "proposed");
}

}  // namespace hpsearch
