#pragma once
/// \file
/// `auto`: GP while the objective looks smooth, TPE once its results show it is not.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "hpsearch/samplers/gp.hpp"
#include "hpsearch/samplers/tpe.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/rng.hpp"
#include "hpsearch/searcher/sampler.hpp"

namespace hpsearch {

/// Both models with their default options, fed the same events; each proposal comes from one.
/// GP proposes until the search has seen ObservationStore's minimum of repeats (a trial's first
/// result equal bit for bit to another's at the same length, with the same categorical values:
/// the objective is piecewise constant, a table or a coarse discrete space), TPE from then on,
/// for good. Why (docs/samplers.md, "sampler: auto"): GP searched best on the smooth
/// workloads (MF-Hartmann-6, MF-Branin, counting ones, learning curves) and TPE on the rbv2
/// tables. The model that did not propose records the trial as a random one of its own, so
/// both always know every trial. Deterministic: the switch depends on the events alone.
class AutoSampler {
 public:
  explicit AutoSampler(const HyperparameterSpace& space);

  [[nodiscard]] nlohmann::json propose(Rng& rng, std::uint32_t trial);
  void on_pending(std::uint32_t trial, std::uint64_t length);
  void observe(std::uint32_t trial, std::uint64_t length, double metric);
  void on_finished(std::uint32_t trial);
  [[nodiscard]] std::optional<std::uint64_t> capacity() const { return std::nullopt; }
  [[nodiscard]] bool learns() const { return true; }
  /// `{"sampler_type": "auto", "model": "gp"|"tpe", "gp": {...}, "tpe": {...}}`.
  [[nodiscard]] nlohmann::json state() const;
  /// Throws ProtocolError if the state is another sampler's or either part does not fit.
  void restore_state(const nlohmann::json& state);

  /// The model that proposes next: "gp" or "tpe".
  [[nodiscard]] const char* model() const;
  friend bool operator==(const AutoSampler&, const AutoSampler&) = default;

 private:
  GpSampler gp_;
  TpeSampler tpe_;
};

static_assert(Sampler<AutoSampler>);

}  // namespace hpsearch
