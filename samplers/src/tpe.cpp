#include "hpsearch/samplers/tpe.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "draws.hpp"
#include "good_group.hpp"
#include "hpsearch/searcher/state_fields.hpp"
#include "model_common.hpp"
#include "parzen.hpp"

namespace hpsearch {

using sampler_detail::ParzenEstimator;
using sampler_detail::RngBits;

namespace {
// The good group never exceeds this many trials (as in Optuna's default gamma): past it, a
// larger group only blurs the good density.
constexpr std::size_t kMaxGood = 25;
}  // namespace

TpeSampler::TpeSampler(const HyperparameterSpace& space, const TpeConfig& config)
    : space_(space),
      encoding_(space),
      config_(config),
      store_(encoding_.size(), config.model.max_observations,
             sampler_detail::categorical_mask(encoding_)) {}

nlohmann::json TpeSampler::propose(Rng& rng, std::uint32_t trial) {
  return sampler_detail::propose_point(
      space_, encoding_, store_, rng, trial,
      [this](Rng& r, std::vector<double>& point) { return model_point(r, point); });
}

void TpeSampler::record(std::uint32_t trial, const nlohmann::json& hparams) {
  sampler_detail::record_trial(encoding_, store_, trial, hparams);
}

bool TpeSampler::model_point(Rng& rng, std::vector<double>& point) const {
  RngBits bits(rng);
  const std::size_t d = encoding_.size();
  if (!sampler_detail::use_model(config_.model, store_, bits)) return false;
  const std::uint64_t observed = store_.observed_trials();

  // Good: up to a gamma share of the observed trials, the best of the longest lengths and of
  // each shorter length as far as it ranks trials as the longest does (good_group.hpp); bad:
  // an even spread of the others, thinned by the same correlations, and every trial training now
  // that is not good (a constant liar).
  const std::size_t cap = store_.cap();
  const double wanted = std::ceil(config_.gamma * static_cast<double>(observed));
  const std::size_t good_count = std::clamp<std::size_t>(
      static_cast<std::size_t>(wanted), 1,
      std::min<std::size_t>({cap / 2, kMaxGood, static_cast<std::size_t>(observed) - 1}));
  std::vector<sampler_detail::LengthTrust> trust;
  sampler_detail::length_trust(store_, sampler_detail::min_observations(config_.model, d), trust);
  std::vector<std::uint32_t> good;
  sampler_detail::good_group(store_, trust, config_.gamma, good_count, good);
  // A trial whose result repeated another's bit for bit (the same configuration again) is no
  // evidence of a good region: it goes to the bad group, so proposals leave cells already
  // tried instead of piling onto them.
  std::vector<std::uint32_t> repeats;
  for (const std::uint32_t t : good) {
    if (store_.repeated(t)) repeats.push_back(t);
  }
  if (repeats.size() < good.size())
    std::erase_if(good, [&](std::uint32_t t) { return store_.repeated(t); });
  else
    repeats.clear();  // keep a good group, however poor
  std::vector<std::uint32_t> sorted_good = good;
  std::sort(sorted_good.begin(), sorted_good.end());
  const auto is_good = [&](std::uint32_t t) {
    return std::binary_search(sorted_good.begin(), sorted_good.end(), t);
  };
  std::vector<std::uint32_t> bad;
  store_.spread(cap - good.size(), bad);
  std::erase_if(bad, is_good);
  // A trial stopped after a length that ranks trials unlike the longest is no evidence of a
  // bad region either: an even share rho of such trials stays (good_group.hpp).
  sampler_detail::thin_by_trust(store_, trust, bad);
  bad.insert(bad.end(), repeats.begin(), repeats.end());
  std::sort(bad.begin(), bad.end());
  bad.erase(std::unique(bad.begin(), bad.end()), bad.end());
  std::vector<std::uint32_t> pending;
  store_.pending(pending);
  for (const std::uint32_t t : pending) {
    if (!is_good(t) && !std::binary_search(bad.begin(), bad.end(), t)) bad.push_back(t);
  }
  const auto points_of = [&](const std::vector<std::uint32_t>& trials) {
    std::vector<double> points;
    points.reserve(trials.size() * d);
    for (const std::uint32_t t : trials) {
      const std::span<const double> p = store_.point(t);
      points.insert(points.end(), p.begin(), p.end());
    }
    return points;
  };
  const ParzenEstimator above(encoding_.dimensions(), points_of(good), good.size(),
                              config_.prior_weight);
  const ParzenEstimator below(encoding_.dimensions(), points_of(bad), bad.size(),
                              config_.prior_weight);
  const std::vector<double> known = sampler_detail::known_points(store_);

  // A candidate within the repeat radius of a trial the model knows would most likely repeat
  // that trial's result: skipped. If every candidate is, the proposal is a random one.
  std::vector<double> candidate(d);
  double best_score = -std::numeric_limits<double>::infinity();
  bool found = false;
  for (std::uint64_t i = 0; i < std::max<std::uint64_t>(config_.model.candidates, 1); ++i) {
    above.sample(bits, candidate);
    encoding_.snap(candidate);
    if (sampler_detail::already_known(store_, candidate, known)) continue;
    const double score = above.log_density(candidate) - below.log_density(candidate);
    if (score > best_score || !found) {
      best_score = score;
      point = candidate;
      found = true;
    }
  }
  return found;
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
