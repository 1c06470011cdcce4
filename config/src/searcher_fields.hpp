#pragma once
// Private to config/: the pieces the catalog's rows read a `searcher:` section with (the
// method's fields, a sampler's options, PBT's section, the checks every halving searcher makes).

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "hpsearch/config/config.hpp"
#include "hpsearch/methods/adaptive_asha.hpp"
#include "hpsearch/methods/pbt.hpp"
#include "parsers.hpp"

namespace hpsearch::config_detail {

// Searchers Determined removed or that hpsearch does not run, with what to use instead.
struct Retired {
  std::string_view name;
  std::string_view advice;
};
inline constexpr std::array<Retired, 3> kRetired{{
    {"sync_halving",
     "has been removed and is not valid for new experiments; use "
     "'async_halving' (or 'adaptive_asha') instead"},
    {"adaptive",
     "has been removed and is not valid for new experiments; use 'adaptive_asha' "
     "instead"},
    {"adaptive_simple",
     "has been removed and is not valid for new experiments; use "
     "'adaptive_asha' instead"},
}};

// The fields every searcher has.
inline constexpr std::array<std::string_view, 6> kCommonFields{
    "name", "metric", "smaller_is_better", "sampler", "source_trial_id", "source_checkpoint_uuid"};

struct SearcherParser {
  const Reader& reader;
  const Map& map;

  // The value of an optional field; null counts as absent (Determined applies the default).
  [[nodiscard]] const Node* optional(std::string_view key) const {
    if (!map.has(key) || map.get(key).is_null()) return nullptr;
    return &map.get(key);
  }
  [[nodiscard]] std::uint64_t count(std::string_view key, std::uint64_t minimum,
                                    std::uint64_t fallback) const {
    const auto node = optional(key);
    return node ? read_count(reader, *node, map.path_of(key), minimum) : fallback;
  }
  [[nodiscard]] std::uint64_t required_count(std::string_view key, std::uint64_t minimum,
                                             std::string_view hint) const {
    return read_count(reader, map.require(key, hint), map.path_of(key), minimum);
  }
  [[nodiscard]] bool flag(std::string_view key, bool fallback) const {
    const auto node = optional(key);
    return node ? read_bool(reader, *node, map.path_of(key)) : fallback;
  }
  [[nodiscard]] double divisor() const {
    const auto node = optional("divisor");
    if (!node) return 4.0;
    const double value = read_number(reader, *node, map.path_of("divisor"));
    if (!(value > 1.0)) {
      reader.fail(*node, map.path_of("divisor"), "must be a number > 1, got " + node->text());
    }
    return value;
  }
  [[nodiscard]] std::uint64_t max_trials() const {
    return required_count("max_trials", 1, " (how many trials to create in all)");
  }
  [[nodiscard]] std::uint64_t max_concurrent_trials() const {
    return count("max_concurrent_trials", 0, 16);
  }

  [[nodiscard]] Length length_value(const Node& node, const std::string& path) const {
    if (node.is_map()) {
      const Map units(reader, node, path, {"batches", "records", "epochs"}, "of a length");
      if (units.entries().size() != 1) {
        reader.fail(node, path,
                    "a length must have exactly one of 'batches', 'records' or "
                    "'epochs', got " +
                        std::to_string(units.entries().size()) + " fields");
      }
      const MapEntry& unit = units.entries().front();
      return Length{read_count(reader, unit.value, units.path_of(unit.key), 1), unit.key};
    }
    if (node.is_scalar() && !node.is_null()) {
      try {
        return Length{read_count(reader, node, path, 1), ""};
      } catch (const ConfigError&) {
        // fall through to the message that shows both accepted forms
      }
    }
    reader.fail(node, path,
                "must be an integer >= 1 or a length like {batches: N}, "
                "{records: N} or {epochs: N}, got " +
                    describe(node));
  }

  // single, random and grid: max_length, or none (Determined 0.38): each trial then trains
  // until its script ends.
  [[nodiscard]] std::optional<Length> plain_length() const {
    const Node* length = optional("max_length");
    if (!length) return std::nullopt;
    return length_value(*length, map.path_of("max_length"));
  }

  // ASHA searchers also take Determined 0.38's form: time_metric plus max_time.
  [[nodiscard]] Length asha_length() const {
    const bool has_time = map.has("max_time") || map.has("time_metric");
    if (map.has("max_length") && has_time) {
      const std::string key = map.has("max_time") ? "max_time" : "time_metric";
      reader.fail(map.get(key), map.path_of(key),
                  "give either max_length or time_metric with max_time, not both");
    }
    if (!has_time) {
      return length_value(map.require("max_length",
                                      " (the longest a trial trains, e.g. max_length: "
                                      "{batches: 1000}; or give time_metric and max_time)"),
                          map.path_of("max_length"));
    }
    const Node& time_metric = map.require("time_metric",
                                          " (max_time is given; time_metric names its unit, e.g. "
                                          "time_metric: batches)");
    const Node& max_time = map.require("max_time",
                                       " (time_metric is given; max_time is the longest a trial "
                                       "trains, in time_metric units)");
    const std::string unit = read_string(reader, time_metric, map.path_of("time_metric"));
    return Length{read_count(reader, max_time, map.path_of("max_time"), 1), unit};
  }

  [[nodiscard]] AdaptiveMode mode() const {
    const auto node = optional("mode");
    if (!node) return AdaptiveMode::kStandard;
    const std::string text = read_string(reader, *node, map.path_of("mode"));
    if (text == "aggressive") return AdaptiveMode::kAggressive;
    if (text == "standard") return AdaptiveMode::kStandard;
    if (text == "conservative") return AdaptiveMode::kConservative;
    reader.fail(*node, map.path_of("mode"),
                "must be one of 'aggressive', 'standard', 'conservative', got " + describe(*node));
  }

  [[nodiscard]] std::vector<std::uint64_t> bracket_rungs() const {
    const auto node = optional("bracket_rungs");
    std::vector<std::uint64_t> rungs;
    if (!node) return rungs;
    if (!node->is_list()) {
      reader.fail(*node, map.path_of("bracket_rungs"),
                  "must be a list of integers >= 1, got " + describe(*node));
    }
    for (std::size_t i = 0; i < node->items().size(); ++i) {
      rungs.push_back(read_count(reader, node->items()[i],
                                 map.path_of("bracket_rungs") + "[" + std::to_string(i) + "]", 1));
    }
    return rungs;
  }
};

// A sampler's options: `searcher.sampler` as a map (or none: a bare name takes the defaults).
struct OptionParser {
  const Reader& reader;
  const Map* map;

  [[nodiscard]] const Node* optional(std::string_view key) const {
    if (map == nullptr || !map->has(key) || map->get(key).is_null()) return nullptr;
    return &map->get(key);
  }
  [[nodiscard]] std::uint64_t count(std::string_view key, std::uint64_t minimum,
                                    std::uint64_t fallback) const {
    const Node* node = optional(key);
    return node ? read_count(reader, *node, map->path_of(key), minimum) : fallback;
  }
  // A number in [lo, hi] (or (lo, hi) where open), e.g. "must be a number in (0, 1), got 2".
  [[nodiscard]] double number(std::string_view key, double fallback, double lo, bool lo_open,
                              double hi, bool hi_open) const {
    const Node* node = optional(key);
    if (!node) return fallback;
    const double value = read_number(reader, *node, map->path_of(key));
    const bool above = lo_open ? value > lo : value >= lo;
    const bool below = hi_open ? value < hi : value <= hi;
    if (!above || !below) {
      std::ostringstream range;
      range << (lo_open ? "(" : "[") << lo << ", ";
      if (std::isinf(hi)) {
        range << "infinity)";
      } else {
        range << hi << (hi_open ? ")" : "]");
      }
      reader.fail(*node, map->path_of(key),
                  "must be a number in " + range.str() + ", got " + node->text());
    }
    return value;
  }
  void model(ModelOptions& options) const {
    options.random_fraction =
        number("random_fraction", options.random_fraction, 0, false, 1, false);
    options.min_observations = count("min_observations", 0, options.min_observations);
    options.max_observations = count("max_observations", 2, options.max_observations);
    options.candidates = count("candidates", 1, options.candidates);
  }
};

/// Refuses rung lengths that repeat: Determined would ask a promoted trial for a length it
/// already reached ("operation already completed", mid-experiment).
void check_rung_lengths(const Reader& reader, const Node& at, const std::string& path,
                        const std::string& what, std::uint64_t max_length, std::uint64_t rungs,
                        double divisor);

/// Refuses max_steps and target_trial_steps (Determined before 0.13), saying what they became.
void refuse_steps(const Reader& reader, const Node& searcher, const Node& top);

/// PBT's trained length: num_rounds x length_per_round.
[[nodiscard]] std::optional<Length> pbt_length(const SearcherParser& p);

/// PBT's section (Determined 0.15-0.17, spec 3.10).
[[nodiscard]] PbtConfig pbt_config(const SearcherParser& p);

}  // namespace hpsearch::config_detail
