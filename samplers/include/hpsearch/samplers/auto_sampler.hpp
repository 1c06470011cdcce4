#pragma once
/// \file
/// `auto`: GP while the objective looks smooth, TPE once its results show it is not.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hpsearch/samplers/gp.hpp"
#include "hpsearch/samplers/tpe.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/rng.hpp"
#include "hpsearch/searcher/sampler.hpp"
#include "hpsearch/searcher/space_encoding.hpp"

namespace hpsearch {

/// Both models with their default options, fed the same events; each proposal comes from one.
/// TPE proposes from the first trial where the space has an integer hyperparameter (known before
/// the search starts: rounding makes nearby proposals the same configuration), and otherwise
/// from the moment the search has seen ObservationStore's minimum of repeats (a trial's first
/// result equal bit for bit to another's at the same length, with the same categorical values:
/// the objective is piecewise constant, a table or a coarse discrete space), for good; GP before
/// that. Why (docs/samplers.md, "sampler: auto"): GP searched best on the smooth workloads
/// (MF-Hartmann-6, MF-Branin, counting ones, learning curves) and TPE on the rbv2 tables, and
/// where the space has an int, waiting for repeats under GP cost more than it gave. The model
/// that did not propose records the trial as a random one of its own, so both always know
/// every trial. Deterministic: the choice depends on the space and the events alone.
class AutoSampler {
 public:
  explicit AutoSampler(const HyperparameterSpace& space);

  [[nodiscard]] nlohmann::json propose(Rng& rng, std::uint32_t trial);
  void on_pending(std::uint32_t trial, std::uint64_t length);
  void observe(std::uint32_t trial, std::uint64_t length, double metric);
  void on_finished(std::uint32_t trial);
  [[nodiscard]] std::optional<std::uint64_t> capacity() const { return std::nullopt; }
  [[nodiscard]] bool learns() const { return true; }
  /// `{"sampler_type": "auto", "model": "gp"|"tpe", "tpe_from_trial": N|null, "gp": {...},
  /// "tpe": {...}}`; a state without tpe_from_trial (written before it was kept) restores as null,
  /// and if TPE proposes there already the switch stays unknown: never set by a later proposal,
  /// and left out of the state again.
  [[nodiscard]] nlohmann::json state() const;
  /// Throws ProtocolError if the state is another sampler's or either part does not fit.
  void restore_state(const nlohmann::json& state);

  /// The model that proposes next: "gp" or "tpe".
  [[nodiscard]] const char* model() const;
  /// The first trial (its creation index, 0-based) TPE proposed; none before TPE proposes.
  /// Where GP came first, the trial at which TPE took over (what runs report of `auto`).
  [[nodiscard]] std::optional<std::uint32_t> tpe_from_trial() const { return tpe_from_trial_; }
  /// The route of the encoding's first integer hyperparameter ("" if none): the one that makes
  /// TPE propose from the start.
  [[nodiscard]] static std::string integer_input(const SpaceEncoding& encoding);
  friend bool operator==(const AutoSampler&, const AutoSampler&) = default;

 private:
  [[nodiscard]] bool tpe_proposes() const;

  GpSampler gp_;
  TpeSampler tpe_;
  bool tpe_from_start_ = false;  // the space has an integer hyperparameter
  std::optional<std::uint32_t> tpe_from_trial_;
  bool switch_unknown_ = false;  // restored from a state without tpe_from_trial, TPE proposing
};

static_assert(Sampler<AutoSampler>);

}  // namespace hpsearch
