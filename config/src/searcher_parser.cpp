#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <sstream>
#include <optional>
#include <string_view>

#include "hpsearch/methods/adaptive_asha.hpp"
#include "hpsearch/methods/asha.hpp"
#include "parsers.hpp"

namespace hpsearch::config_detail {
namespace {

constexpr std::string_view kSearcherNames =
    "'single', 'random', 'grid', 'async_halving', 'adaptive_asha'";

// Searchers Determined removed or that hpsearch does not run, with what to use instead.
struct Retired {
  std::string_view name;
  std::string_view advice;
};
constexpr std::array<Retired, 5> kRetired{{
    {"sync_halving", "has been removed and is not valid for new experiments; use "
                     "'async_halving' (or 'adaptive_asha') instead"},
    {"adaptive", "has been removed and is not valid for new experiments; use 'adaptive_asha' "
                 "instead"},
    {"adaptive_simple", "has been removed and is not valid for new experiments; use "
                        "'adaptive_asha' instead"},
    {"pbt", "was removed in Determined 0.18 and is not provided by hpsearch; use "
            "'adaptive_asha' or 'random' instead"},
    {"custom", "is not supported: drive your own search logic through the searcher protocol "
               "instead (see docs/protocol.md)"},
}};

std::vector<std::string> with_common(std::vector<std::string> fields) {
  for (const char* common :
       {"name", "metric", "smaller_is_better", "source_trial_id", "source_checkpoint_uuid"}) {
    fields.emplace_back(common);
  }
  return fields;
}

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
        reader.fail(node, path, "a length must have exactly one of 'batches', 'records' or "
                                "'epochs', got " + std::to_string(units.entries().size()) +
                                    " fields");
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
    reader.fail(node, path, "must be an integer >= 1 or a length like {batches: N}, "
                            "{records: N} or {epochs: N}, got " + describe(node));
  }

  // single, random and grid: a length is needed to issue absolute validate_after lengths.
  [[nodiscard]] Length plain_length() const {
    return length_value(map.require("max_length", " (how long to train each trial, e.g. "
                                                  "max_length: {batches: 1000} or max_length: "
                                                  "1000)"),
                        map.path_of("max_length"));
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
      return length_value(
          map.require("max_length", " (the longest a trial trains, e.g. max_length: "
                                    "{batches: 1000}; or give time_metric and max_time)"),
          map.path_of("max_length"));
    }
    const Node& time_metric =
        map.require("time_metric", " (max_time is given; time_metric names its unit, e.g. "
                                   "time_metric: batches)");
    const Node& max_time =
        map.require("max_time", " (time_metric is given; max_time is the longest a trial "
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

// Rung lengths that repeat make Determined ask a promoted trial for a length it already
// reached ("operation already completed", mid-experiment); refuse such configs up front.
void check_rung_lengths(const Reader& reader, const Node& at, const std::string& path,
                        const std::string& what, std::uint64_t max_length, std::uint64_t rungs,
                        double divisor) {
  const std::vector<std::uint64_t> lengths = asha_rung_lengths(max_length, rungs, divisor);
  std::uint64_t usable = 1;  // the most rungs whose lengths still strictly increase
  while (usable < rungs) {
    const std::vector<std::uint64_t> fewer = asha_rung_lengths(max_length, usable + 1, divisor);
    if (std::adjacent_find(fewer.begin(), fewer.end(), std::greater_equal<>()) != fewer.end()) break;
    ++usable;
  }
  if (std::adjacent_find(lengths.begin(), lengths.end(), std::greater_equal<>()) == lengths.end()) {
    return;
  }
  std::string shown;
  for (const std::uint64_t length : lengths) {
    if (!shown.empty()) shown += ", ";
    shown += std::to_string(length);
  }
  std::ostringstream divisor_text;
  divisor_text << divisor;
  reader.fail(at, path,
              what + " with divisor " + divisor_text.str() + " and max_length " +
                  std::to_string(max_length) + " gives rung lengths " + shown +
                  ", which repeat: a promoted trial would be asked to train to a length it has "
                  "already reached; use at most " + std::to_string(usable) +
                  " rungs, a larger max_length or a larger divisor");
}

// Determined before 0.13 counted training in steps of `batches_per_step` batches (default
// 100); 0.13 replaced max_steps (single, random, grid) and target_trial_steps (the halving
// searchers) by max_length. Say what the field became, with the conversion.
void refuse_steps(const Reader& reader, const Node& searcher, const Node& top) {
  for (const char* field : {"max_steps", "target_trial_steps"}) {
    const Node* steps = searcher.find(field);
    if (steps == nullptr) continue;
    const std::string path = join_path("searcher", field);
    std::string message = std::string(field) + " was replaced by max_length in Determined 0.13 "
                          "(lengths are no longer counted in steps)";
    const Node* per_step = top.is_map() ? top.find("scheduling_unit") : nullptr;
    std::string per_step_name = "scheduling_unit";
    if (per_step == nullptr && top.is_map()) {
      per_step = top.find("batches_per_step");
      per_step_name = "batches_per_step";
    }
    const bool known = per_step != nullptr && per_step->kind() == NodeKind::kInt &&
                       per_step->value().is_number_integer() && per_step->value().get<std::int64_t>() > 0;
    const std::uint64_t batches = known ? per_step->value().get<std::uint64_t>() : 100;
    if (steps->kind() == NodeKind::kInt && steps->value().is_number_integer() &&
        steps->value().get<std::int64_t>() > 0 &&
        steps->value().get<std::uint64_t>() <= std::numeric_limits<std::uint64_t>::max() / batches) {
      const std::uint64_t n = steps->value().get<std::uint64_t>();
      message += ": " + std::to_string(n) + " steps of " + std::to_string(batches) + " batches " +
                 (known ? "(" + per_step_name + ")" : "(the default batches_per_step)") +
                 " is max_length: {batches: " + std::to_string(n * batches) + "}";
    } else {
      message += ": use max_length: {batches: N}, N = steps x " + std::to_string(batches) +
                 " batches per step";
    }
    reader.fail(*steps, path, message);
  }
}

std::string searcher_name(const Reader& reader, const Node& node) {
  const std::string path = "searcher.name";
  if (node.find("name") == nullptr) {
    reader.fail(node, path, "missing required field (one of " + std::string(kSearcherNames) + ")");
  }
  const Node& name = *node.find("name");
  const std::string text = name.is_scalar() ? name.text() : "";
  for (const Retired& retired : kRetired) {
    if (text == retired.name) {
      reader.fail(name, path, "the '" + text + "' searcher " + std::string(retired.advice));
    }
  }
  for (std::string_view known : {"single", "random", "grid", "async_halving", "adaptive_asha"}) {
    if (text == known) return text;
  }
  reader.fail(name, path,
              "must be one of " + std::string(kSearcherNames) + ", got " + describe(name));
}

}  // namespace

SearcherSettings parse_searcher(const Reader& reader, const Node& node, const Node& top) {
  if (!node.is_map()) reader.fail(node, "searcher", "must be a map, got " + describe(node));
  refuse_steps(reader, node, top);
  const std::string name = searcher_name(reader, node);
  std::vector<std::string> fields;
  if (name == "single") fields = {"max_length"};
  if (name == "random") fields = {"max_length", "max_trials", "max_concurrent_trials"};
  if (name == "grid") fields = {"max_length", "max_concurrent_trials"};
  if (name == "async_halving") {
    fields = {"max_length", "time_metric", "max_time", "max_trials", "num_rungs", "divisor",
              "max_concurrent_trials", "stop_once"};
  }
  if (name == "adaptive_asha") {
    fields = {"max_length", "time_metric", "max_time", "max_trials", "bracket_rungs", "mode",
              "divisor", "max_rungs", "max_concurrent_trials", "stop_once"};
  }
  const Map map(reader, node, "searcher", with_common(fields), "of the '" + name + "' searcher");
  const SearcherParser p{reader, map};

  SearcherSettings settings;
  settings.metric = read_string(
      reader, map.require("metric", " (the name of the validation metric to optimise)"),
      "searcher.metric");
  settings.smaller_is_better = p.flag("smaller_is_better", true);
  if (const auto id = p.optional("source_trial_id")) {
    (void)read_int(reader, *id, "searcher.source_trial_id");
  }
  if (const auto uuid = p.optional("source_checkpoint_uuid")) {
    (void)read_string(reader, *uuid, "searcher.source_checkpoint_uuid");
  }

  if (name == "single") {
    settings.max_length = p.plain_length();
    settings.method = SingleConfig{settings.max_length.units};
  } else if (name == "random") {
    settings.max_length = p.plain_length();
    settings.method = RandomConfig{.max_length = settings.max_length.units,
                                   .max_trials = p.max_trials(),
                                   .max_concurrent_trials = p.max_concurrent_trials()};
  } else if (name == "grid") {
    settings.max_length = p.plain_length();
    settings.method = GridConfig{.max_length = settings.max_length.units,
                                 .max_concurrent_trials = p.max_concurrent_trials()};
  } else if (name == "async_halving") {
    settings.max_length = p.asha_length();
    settings.method = AshaConfig{
        .max_length = settings.max_length.units,
        .max_trials = p.max_trials(),
        .num_rungs = p.required_count("num_rungs", 1, " (how many rungs of successive halving)"),
        .divisor = p.divisor(),
        .max_concurrent_trials = p.max_concurrent_trials(),
        .stop_once = p.flag("stop_once", false),
        .smaller_is_better = settings.smaller_is_better};
    const auto& asha = std::get<AshaConfig>(settings.method);
    check_rung_lengths(reader, map.get("num_rungs"), "searcher.num_rungs",
                       "num_rungs " + std::to_string(asha.num_rungs), asha.max_length,
                       asha.num_rungs, asha.divisor);
  } else {
    settings.max_length = p.asha_length();
    settings.method = AdaptiveAshaConfig{.max_length = settings.max_length.units,
                                         .max_trials = p.max_trials(),
                                         .mode = p.mode(),
                                         .divisor = p.divisor(),
                                         .max_rungs = p.count("max_rungs", 1, 5),
                                         .bracket_rungs = p.bracket_rungs(),
                                         .max_concurrent_trials = p.max_concurrent_trials(),
                                         .stop_once = p.flag("stop_once", false),
                                         .smaller_is_better = settings.smaller_is_better};
    const auto& adaptive = std::get<AdaptiveAshaConfig>(settings.method);
    const bool listed = map.has("bracket_rungs") && !map.get("bracket_rungs").is_null();
    for (const Bracket& bracket : adaptive_brackets(adaptive)) {
      check_rung_lengths(reader, listed ? map.get("bracket_rungs") : map.node(),
                         listed ? "searcher.bracket_rungs" : "searcher",
                         "a bracket of " + std::to_string(bracket.num_rungs) + " rungs",
                         adaptive.max_length, bracket.num_rungs, adaptive.divisor);
    }
  }
  return settings;
}

}  // namespace hpsearch::config_detail
