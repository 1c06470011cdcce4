#pragma once
/// \file
/// AnySampler: the closed set of samplers behind one value type.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "hpsearch/samplers/auto_sampler.hpp"
#include "hpsearch/samplers/gp.hpp"
#include "hpsearch/samplers/random_sampler.hpp"
#include "hpsearch/samplers/tpe.hpp"
#include "hpsearch/searcher/sampler.hpp"

namespace hpsearch {

/// One of the built-in samplers; every call dispatches with std::visit.
class AnySampler {
 public:
  using Variant = std::variant<RandomSampler, GridSampler, TpeSampler, GpSampler, AutoSampler>;

  /// Built in place from one sampler (moving a whole variant in makes g++ 12 with
  /// sanitizers warn, falsely, that the grid alternative may be uninitialised).
  template <class S>
  requires(!std::is_same_v<std::decay_t<S>, AnySampler> &&
           Sampler<std::decay_t<S>>) explicit AnySampler(S&& sampler)
      : sampler_(std::in_place_type<std::decay_t<S>>, std::forward<S>(sampler)),
        learns_(std::visit([](const auto& s) { return s.learns(); }, sampler_)) {}

  [[nodiscard]] nlohmann::json propose(Rng& rng, std::uint32_t trial) {
    return std::visit([&](auto& s) { return s.propose(rng, trial); }, sampler_);
  }
  void on_pending(std::uint32_t trial, std::uint64_t length) {
    std::visit([&](auto& s) { s.on_pending(trial, length); }, sampler_);
  }
  void observe(std::uint32_t trial, std::uint64_t length, double metric) {
    std::visit([&](auto& s) { s.observe(trial, length, metric); }, sampler_);
  }
  void on_finished(std::uint32_t trial) {
    std::visit([&](auto& s) { s.on_finished(trial); }, sampler_);
  }
  [[nodiscard]] std::optional<std::uint64_t> capacity() const {
    return std::visit([](const auto& s) { return s.capacity(); }, sampler_);
  }
  /// Asked on every event: kept, not dispatched.
  [[nodiscard]] bool learns() const { return learns_; }
  [[nodiscard]] nlohmann::json state() const {
    return std::visit([](const auto& s) { return s.state(); }, sampler_);
  }
  void restore_state(const nlohmann::json& state) {
    std::visit([&](auto& s) { s.restore_state(state); }, sampler_);
  }

  [[nodiscard]] const Variant& variant() const { return sampler_; }
  friend bool operator==(const AnySampler&, const AnySampler&) = default;

 private:
  Variant sampler_;
  bool learns_ = false;
};

static_assert(Sampler<AnySampler>);

}  // namespace hpsearch
