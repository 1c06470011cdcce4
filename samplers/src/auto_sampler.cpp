#include "hpsearch/samplers/auto_sampler.hpp"

#include <limits>

#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/state_fields.hpp"

namespace hpsearch {

AutoSampler::AutoSampler(const HyperparameterSpace& space)
    : gp_(space, GpConfig{}),
      tpe_(space, TpeConfig{}),
      tpe_from_start_(!integer_input(SpaceEncoding(space)).empty()) {}

std::string AutoSampler::integer_input(const SpaceEncoding& encoding) {
  for (const EncodedDimension& dimension : encoding.dimensions()) {
    if (dimension.kind == EncodedDimension::Kind::kInteger) return dimension.name();
  }
  return "";
}

bool AutoSampler::tpe_proposes() const {
  // Both stores saw the same results; TPE's is the one that decides.
  return tpe_from_start_ || tpe_.store().repeat_radius() > 0;
}

const char* AutoSampler::model() const {
  return tpe_proposes() ? "tpe" : "gp";
}

nlohmann::json AutoSampler::propose(Rng& rng, std::uint32_t trial) {
  if (tpe_proposes()) {
    if (!tpe_from_trial_ && !switch_unknown_) tpe_from_trial_ = trial;
    nlohmann::json hparams = tpe_.propose(rng, trial);
    gp_.record(trial, hparams);
    return hparams;
  }
  nlohmann::json hparams = gp_.propose(rng, trial);
  tpe_.record(trial, hparams);
  return hparams;
}

void AutoSampler::on_pending(std::uint32_t trial, std::uint64_t length) {
  gp_.on_pending(trial, length);
  tpe_.on_pending(trial, length);
}

void AutoSampler::observe(std::uint32_t trial, std::uint64_t length, double metric) {
  gp_.observe(trial, length, metric);
  tpe_.observe(trial, length, metric);
}

void AutoSampler::on_finished(std::uint32_t trial) {
  gp_.on_finished(trial);
  tpe_.on_finished(trial);
}

nlohmann::json AutoSampler::state() const {
  nlohmann::json state{
      {"sampler_type", "auto"}, {"model", model()}, {"gp", gp_.state()}, {"tpe", tpe_.state()}};
  // A switch made before the field was kept stays unknown: left out, as it was.
  if (!switch_unknown_)
    state["tpe_from_trial"] = tpe_from_trial_ ? nlohmann::json(*tpe_from_trial_) : nullptr;
  return state;
}

void AutoSampler::restore_state(const nlohmann::json& state) {
  state_fields::expect_type(state, "sampler_state", "sampler_type", "auto", "sampler");
  AutoSampler fresh = *this;
  if (!state.contains("gp") || !state.contains("tpe")) {
    throw ProtocolError("sampler_state: the 'auto' sampler's state needs 'gp' and 'tpe'");
  }
  fresh.gp_.restore_state(state.at("gp"));
  fresh.tpe_.restore_state(state.at("tpe"));
  fresh.tpe_from_trial_.reset();
  // Written before tpe_from_trial was kept: if TPE proposes already, the switch happened at a
  // trial nobody recorded, and the next proposal must not claim it.
  fresh.switch_unknown_ = !state.contains("tpe_from_trial") && fresh.tpe_proposes();
  if (const auto found = state.find("tpe_from_trial"); found != state.end() && !found->is_null()) {
    if (!found->is_number_unsigned() ||
        found->get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
      throw ProtocolError(
          "sampler_state.tpe_from_trial: a trial index (an unsigned integer) or "
          "null expected, got " +
          found->dump());
    }
    fresh.tpe_from_trial_ = found->get<std::uint32_t>();
  }
  *this = std::move(fresh);
}

}  // namespace hpsearch
