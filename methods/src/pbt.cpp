#include "hpsearch/methods/pbt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "exited_metric.hpp"
#include "hpsearch/methods/method_state.hpp"
#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/go_math.hpp"
#include "hpsearch/searcher/json_number.hpp"
#include "hpsearch/searcher/state_fields.hpp"

namespace hpsearch {
namespace {

using method_detail::kExitedMetric;  // Determined's MaxFloat64 for an early exit

double clamp(double value, double lo, double hi) {
  if (value < lo) return lo;
  if (value > hi) return hi;
  return value;
}

// floor or ceil of value x multiplier, clamped to [lo, hi] before converting, so that no
// product outside the int64 range is ever cast.
std::int64_t int_perturb(double value, double multiplier, bool decrease, std::int64_t lo,
                         std::int64_t hi) {
  const double moved = decrease ? std::floor(value * multiplier) : std::ceil(value * multiplier);
  if (!(moved > static_cast<double>(lo))) return lo;
  if (moved >= static_cast<double>(hi)) return hi;
  return static_cast<std::int64_t>(moved);
}

struct Perturb {
  const nlohmann::json& old;
  double multiplier;
  bool decrease;

  nlohmann::json operator()(const IntHp& hp) const {
    return int_perturb(old.get<double>(), multiplier, decrease, hp.minval, hp.maxval);
  }
  nlohmann::json operator()(const DoubleHp& hp) const {
    return clamp(old.get<double>() * multiplier, hp.minval, hp.maxval);
  }
  nlohmann::json operator()(const LogHp& hp) const {
    return clamp(old.get<double>() * multiplier, go::pow(hp.base, hp.minval),
                 go::pow(hp.base, hp.maxval));
  }
  template <class Other>
  nlohmann::json operator()(const Other&) const {
    return old;
  }
};

}  // namespace

nlohmann::json pbt_explore(const nlohmann::json& params, const HyperparameterSpace& space,
                           const PbtConfig& config, Rng& rng) {
  nlohmann::json out = nlohmann::json::object();
  for (const NamedHyperparameter& entry : space.entries()) {
    if (rng.unit_interval() < config.resample_probability) {
      out[entry.name] = sample_one(entry.value, rng);
      continue;
    }
    const bool decrease = rng.unit_interval() < 0.5;
    const double multiplier = decrease ? 1 - config.perturb_factor : 1 + config.perturb_factor;
    const auto old = params.find(entry.name);
    HPSEARCH_ASSERT(old != params.end(), "pbt: a trial's hyperparameters lack one of the space");
    out[entry.name] = std::visit(Perturb{*old, multiplier, decrease}, entry.value);
  }
  return out;
}

PbtSearch::PbtSearch(const PbtConfig& config, HyperparameterSpace space)
    : config_(config), space_(std::move(space)) {}

void PbtSearch::add_trial(const Create& create) {
  HPSEARCH_ASSERT(create.trial_index == trials_.size(), "pbt: trials out of creation order");
  Trial trial;
  trial.id = create.request_id;
  trial.params = create.hparams;
  trials_.push_back(std::move(trial));
  ++population_;
}

std::vector<Operation> PbtSearch::initial_operations(SearchContext& ctx) {
  std::vector<Operation> ops;
  ops.reserve(2 * config_.population_size);
  for (std::uint64_t i = 0; i < config_.population_size; ++i) {
    Create create = sample_create(ctx);
    add_trial(create);
    const RequestId id = create.request_id;
    ops.emplace_back(std::move(create));
    ops.emplace_back(ValidateAfter{id, config_.length_per_round});
  }
  return ops;
}

std::vector<Operation> PbtSearch::on_event(const TrialCreated&, SearchContext&) {
  return {};
}

std::vector<Operation> PbtSearch::on_event(const ValidationCompleted& event, SearchContext& ctx) {
  // The metric is canonical already: smaller is better, NaN is +infinity.
  return report(ctx.trial, event.metric, ctx);
}

std::vector<Operation> PbtSearch::on_event(const TrialExitedEarly&, SearchContext& ctx) {
  Trial& trial = trials_.at(ctx.trial);
  if (!trial.member) return {};
  trial.early_exit = true;
  return report(ctx.trial, kExitedMetric, ctx);
}

std::vector<Operation> PbtSearch::on_event(const TrialClosed&, SearchContext&) {
  return {};
}

std::vector<Operation> PbtSearch::report(std::uint32_t index, double metric, SearchContext& ctx) {
  Trial& trial = trials_.at(index);
  if (!trial.member) return {};
  if (!trial.metric) ++reported_;
  trial.metric = metric;
  ++trial.rounds_completed;
  if (reported_ < population_) return {};
  return end_round(ctx);
}

std::vector<Operation> PbtSearch::end_round(SearchContext& ctx) {
  std::vector<std::uint32_t> ranked;
  ranked.reserve(population_);
  for (std::uint32_t i = 0; i < trials_.size(); ++i) {
    if (trials_[i].member) ranked.push_back(i);
  }
  std::sort(ranked.begin(), ranked.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Trial& x = trials_[a];
    const Trial& y = trials_[b];
    if (*x.metric != *y.metric) return *x.metric < *y.metric;
    return x.id < y.id;
  });
  for (const std::uint32_t i : ranked) trials_[i].metric.reset();
  reported_ = 0;
  population_ = 0;
  ++rounds_completed_;
  std::vector<Operation> ops;

  if (rounds_completed_ >= config_.num_rounds) {
    for (const std::uint32_t i : ranked) {
      trials_[i].member = false;
      if (!trials_[i].early_exit) ops.emplace_back(Close{trials_[i].id});
    }
    return ops;
  }

  // Go: int(TruncateFraction * float64(PopulationSize)), of the configured size.
  const auto truncate = std::min<std::size_t>(
      ranked.size() / 2, static_cast<std::size_t>(config_.truncate_fraction *
                                                  static_cast<double>(config_.population_size)));
  const std::size_t survivors = ranked.size() - truncate;
  for (std::size_t r = survivors; r < ranked.size(); ++r) {
    Trial& worst = trials_[ranked[r]];
    worst.member = false;
    if (!worst.early_exit) ops.emplace_back(Close{worst.id});
  }
  for (std::size_t r = 0; r < truncate; ++r) {
    // Copy: add_trial may reallocate trials_.
    const Trial parent = trials_[ranked[r]];
    if (parent.early_exit) continue;
    nlohmann::json params = pbt_explore(parent.params, space_, config_, ctx.rng);
    Create child = make_create(ctx, std::move(params), parent.id);
    add_trial(child);
    const RequestId id = child.request_id;
    ops.emplace_back(std::move(child));
    ops.emplace_back(ValidateAfter{id, config_.length_per_round});
  }
  for (std::size_t r = 0; r < survivors; ++r) {
    Trial& trial = trials_[ranked[r]];
    ++population_;
    if (!trial.early_exit) {
      ops.emplace_back(
          ValidateAfter{trial.id, config_.length_per_round * (trial.rounds_completed + 1)});
    } else {
      // An early-exited member stays in the population at the worst metric.
      trial.metric = kExitedMetric;
      ++reported_;
    }
  }
  return ops;
}

double PbtSearch::progress(const ProgressTotals&) const {
  const double round =
      population_ == 0 ? 0.0 : static_cast<double>(reported_) / static_cast<double>(population_);
  const double done =
      (static_cast<double>(rounds_completed_) + round) / static_cast<double>(config_.num_rounds);
  return std::min(done, 1.0);
}

nlohmann::json PbtSearch::state() const {
  nlohmann::json trials = nlohmann::json::array();
  for (const Trial& t : trials_) {
    trials.push_back({{"request_id", t.id.to_string()},
                      {"hparams", t.params},
                      {"rounds_completed", t.rounds_completed},
                      {"metric", t.metric ? metric_to_json(*t.metric) : nlohmann::json(nullptr)},
                      {"early_exit", t.early_exit},
                      {"member", t.member}});
  }
  return {{"search_method_type", "pbt"},
          {"population_size", config_.population_size},
          {"num_rounds", config_.num_rounds},
          {"length_per_round", config_.length_per_round},
          {"truncate_fraction", config_.truncate_fraction},
          {"resample_probability", config_.resample_probability},
          {"perturb_factor", config_.perturb_factor},
          {"rounds_completed", rounds_completed_},
          {"trials", std::move(trials)}};
}

void PbtSearch::restore_state(const nlohmann::json& state, const TrialBook& book) {
  method_state::expect_type(state, "pbt");
  method_state::expect_config(state, "population_size", config_.population_size);
  method_state::expect_config(state, "num_rounds", config_.num_rounds);
  method_state::expect_config(state, "length_per_round", config_.length_per_round);
  method_state::expect_config(state, "truncate_fraction", config_.truncate_fraction);
  method_state::expect_config(state, "resample_probability", config_.resample_probability);
  method_state::expect_config(state, "perturb_factor", config_.perturb_factor);
  PbtSearch out(config_, space_);
  out.rounds_completed_ = method_state::read_count(state, "rounds_completed");
  const nlohmann::json& trials = state.at("trials");
  if (!trials.is_array() || trials.size() != book.trials_requested()) {
    throw ProtocolError("search_method_state.trials: expected an array of " +
                        std::to_string(book.trials_requested()) +
                        " trial(s), one per trial of searcher_state");
  }
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const nlohmann::json& entry = trials[i];
    const std::string where = "search_method_state.trials[" + std::to_string(i) + "]";
    const nlohmann::json& id_text = entry.at("request_id");
    const auto id =
        id_text.is_string() ? RequestId::parse(id_text.get<std::string>()) : std::nullopt;
    if (!id || book.index_of(*id) != i) {
      throw ProtocolError(where + ".request_id: " + id_text.dump() + " is not trial " +
                          std::to_string(i) + " of searcher_state");
    }
    Trial t;
    t.id = *id;
    t.params = entry.at("hparams");
    if (!t.params.is_object()) throw ProtocolError(where + ".hparams: must be an object");
    t.rounds_completed = state_fields::read_count(entry, where, "rounds_completed");
    const nlohmann::json& metric = entry.at("metric");
    if (!metric.is_null()) {
      t.metric = metric_from_json(metric);
      if (!t.metric)
        throw ProtocolError(where + ".metric: must be null or a metric, got " + metric.dump());
    }
    for (const auto& [key, flag] :
         {std::pair{"early_exit", &t.early_exit}, std::pair{"member", &t.member}}) {
      const nlohmann::json& value = entry.at(key);
      if (!value.is_boolean()) throw ProtocolError(where + "." + key + ": must be true or false");
      *flag = value.get<bool>();
    }
    if (t.metric && !t.member) {
      throw ProtocolError(where + ".metric: a trial outside the population has no metric");
    }
    if (t.member) ++out.population_;
    if (t.metric) ++out.reported_;
    out.trials_.push_back(std::move(t));
  }
  if (out.rounds_completed_ > config_.num_rounds) {
    throw ProtocolError(
        "search_method_state.rounds_completed: " + std::to_string(out.rounds_completed_) +
        " exceeds num_rounds " + std::to_string(config_.num_rounds));
  }
  *this = std::move(out);
}

}  // namespace hpsearch
