#include "hpsearch/samplers/tpe.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "draws.hpp"
#include "hpsearch/searcher/state_fields.hpp"
#include "model_common.hpp"
#include "parzen.hpp"

namespace hpsearch {

using sampler_detail::ParzenEstimator;
using sampler_detail::RngBits;

TpeSampler::TpeSampler(const HyperparameterSpace& space, const TpeConfig& config)
    : space_(space),
      encoding_(space),
      config_(config),
      store_(encoding_.size(), config.model.max_observations) {}

nlohmann::json TpeSampler::propose(Rng& rng, std::uint32_t trial) {
  std::vector<double> point(encoding_.size());
  if (!model_point(rng, point)) {
    nlohmann::json hparams = sample(space_, rng);
    encoding_.encode(hparams, point);
    store_.add_trial(trial, point);
    return hparams;
  }
  store_.add_trial(trial, point);
  return encoding_.decode(point);
}

bool TpeSampler::model_point(Rng& rng, std::vector<double>& point) const {
  RngBits bits(rng);
  const std::optional<std::uint64_t> length = sampler_detail::length_to_model(config_.model, store_, bits);
  if (!length) return false;
  const std::size_t d = encoding_.size();

  std::vector<Observed> data;
  store_.data(*length, data);
  std::sort(data.begin(), data.end(), [](const Observed& a, const Observed& b) {
    return a.metric < b.metric || (a.metric == b.metric && a.order < b.order);
  });
  // The good share of all observations at this length (not of the capped set), at least one,
  // leaving at least one bad observation.
  const double wanted = std::ceil(config_.gamma * static_cast<double>(store_.count(*length)));
  const std::size_t good = std::clamp<std::size_t>(static_cast<std::size_t>(wanted), 1,
                                                   std::max<std::size_t>(data.size() - 1, 1));
  std::vector<double> good_points;
  std::vector<double> bad_points;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const std::span<const double> p = store_.point(data[i].trial);
    std::vector<double>& group = i < good ? good_points : bad_points;
    group.insert(group.end(), p.begin(), p.end());
  }
  std::vector<std::uint32_t> pending;
  store_.pending_below(*length, pending);
  for (const std::uint32_t trial : pending) {
    const std::span<const double> p = store_.point(trial);
    bad_points.insert(bad_points.end(), p.begin(), p.end());
  }
  const ParzenEstimator above(encoding_.dimensions(), good_points, good_points.size() / d,
                              config_.prior_weight);
  const ParzenEstimator below(encoding_.dimensions(), bad_points, bad_points.size() / d,
                              config_.prior_weight);

  std::vector<double> candidate(d);
  double best_score = -std::numeric_limits<double>::infinity();
  for (std::uint64_t i = 0; i < std::max<std::uint64_t>(config_.model.candidates, 1); ++i) {
    above.sample(bits, candidate);
    encoding_.snap(candidate);
    const double score = above.log_density(candidate) - below.log_density(candidate);
    if (score > best_score || i == 0) {
      best_score = score;
      point = candidate;
    }
  }
  return true;
}

nlohmann::json TpeSampler::state() const {
  nlohmann::json options = sampler_detail::options_json(config_.model);
  options["gamma"] = config_.gamma;
  options["prior_weight"] = config_.prior_weight;
  return {{"sampler_type", "tpe"}, {"options", std::move(options)}, {"store", store_.to_json()}};
}

void TpeSampler::restore_state(const nlohmann::json& state) {
  state_fields::expect_type(state, "sampler_state", "sampler_type", "tpe", "sampler");
  TpeSampler fresh(space_, config_);
  state_fields::expect_config(state, "sampler_state", "options", fresh.state().at("options"));
  fresh.store_.restore(state.at("store"));
  *this = std::move(fresh);
}

}  // namespace hpsearch
