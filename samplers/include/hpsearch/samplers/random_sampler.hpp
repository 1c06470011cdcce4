#pragma once
/// \file
/// `random`: Determined's sampler, bit for bit (spec 4.2), and the grid as a sampler (4.3).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "hpsearch/searcher/grid.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/rng.hpp"
#include "hpsearch/searcher/sampler.hpp"

namespace hpsearch {

/// Every configuration drawn independently from the space, in Determined's draw order (names
/// sorted at every level). Learns nothing, so feeding it costs nothing.
class RandomSampler {
 public:
  explicit RandomSampler(HyperparameterSpace space) : space_(std::move(space)) {}

  [[nodiscard]] nlohmann::json propose(Rng& rng, std::uint32_t /*trial*/) const {
    return sample(space_, rng);
  }
  void on_pending(std::uint32_t, std::uint64_t) {}
  void observe(std::uint32_t, std::uint64_t, double) {}
  void on_finished(std::uint32_t) {}
  [[nodiscard]] std::optional<std::uint64_t> capacity() const { return std::nullopt; }
  [[nodiscard]] bool learns() const { return false; }
  [[nodiscard]] nlohmann::json state() const { return {{"sampler_type", "random"}}; }
  /// Throws ProtocolError unless the state is a random sampler's.
  void restore_state(const nlohmann::json& state);

  friend bool operator==(const RandomSampler&, const RandomSampler&) = default;

 private:
  HyperparameterSpace space_;
};

/// The grid's points (spec 4.3), one per trial, in Determined's launch order: the last point
/// first. It draws nothing, and trial i gets point `size - 1 - (i mod size)`: a function of
/// the trial's creation index, so the sampler has no state of its own. Past the grid's size it
/// starts again from the first point launched, which only a method that replaces
/// invalid-hyperparameter trials beyond the grid asks for (methods are given max_trials up to
/// the grid's size).
class GridSampler {
 public:
  /// Throws std::length_error if the grid has more than 2^64 - 1 points.
  explicit GridSampler(const HyperparameterSpace& space) : grid_(space) {}

  [[nodiscard]] nlohmann::json propose(Rng& rng, std::uint32_t trial) const;
  void on_pending(std::uint32_t, std::uint64_t) {}
  void observe(std::uint32_t, std::uint64_t, double) {}
  void on_finished(std::uint32_t) {}
  [[nodiscard]] std::optional<std::uint64_t> capacity() const { return grid_.size(); }
  [[nodiscard]] bool learns() const { return false; }
  /// `{"sampler_type":"grid","grid_size":N}`.
  [[nodiscard]] nlohmann::json state() const;
  /// Throws ProtocolError if the state is another sampler's or another grid's.
  void restore_state(const nlohmann::json& state);

  [[nodiscard]] const Grid& grid() const { return grid_; }
  friend bool operator==(const GridSampler& a, const GridSampler& b) {
    return a.grid_.size() == b.grid_.size();
  }

 private:
  Grid grid_;
};

static_assert(Sampler<RandomSampler>);
static_assert(Sampler<GridSampler>);

}  // namespace hpsearch
