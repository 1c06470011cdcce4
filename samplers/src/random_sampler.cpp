#include "hpsearch/samplers/random_sampler.hpp"

#include <string>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/state_fields.hpp"

namespace hpsearch {

void RandomSampler::restore_state(const nlohmann::json& state) {
  state_fields::expect_type(state, "sampler_state", "sampler_type", "random", "sampler");
}

nlohmann::json GridSampler::propose(Rng& /*rng*/, std::uint32_t trial) const {
  HPSEARCH_ASSERT(grid_.size() > 0, "proposing from an empty grid");
  // Determined pops the last element of its point list: launch order is reverse grid order.
  return grid_.point(grid_.size() - 1 - trial % grid_.size());
}

nlohmann::json GridSampler::state() const {
  return {{"sampler_type", "grid"}, {"grid_size", grid_.size()}};
}

void GridSampler::restore_state(const nlohmann::json& state) {
  state_fields::expect_type(state, "sampler_state", "sampler_type", "grid", "sampler");
  state_fields::expect_config(state, "sampler_state", "grid_size", grid_.size());
}

}  // namespace hpsearch
