// The pieces the catalog's rows read a `searcher:` section with (searcher_fields.hpp).
#include "searcher_fields.hpp"

#include <algorithm>
#include <functional>
#include <limits>

#include "hpsearch/methods/asha.hpp"

namespace hpsearch::config_detail {
namespace {

// PBT (Determined 0.15-0.17, spec 3.10): length_per_round and num_rounds; a trial that
// survives every round trains num_rounds x length_per_round, the length reported as max_length.
Length pbt_round_length(const SearcherParser& p) {
  return p.length_value(
      p.map.require("length_per_round",
                    " (how long each member trains per round, e.g. length_per_round: "
                    "{batches: 600})"),
      p.map.path_of("length_per_round"));
}
std::uint64_t pbt_rounds(const SearcherParser& p) {
  return p.required_count("num_rounds", 1, " (how many rounds of train, truncate and explore)");
}
// A number in [0, hi] under one of PBT's function maps, e.g. replace_function.truncate_fraction.
double pbt_fraction(const Reader& reader, const Map& map, std::string_view key, double hi,
                    std::string_view hint) {
  const Node& node = map.require(key, hint);
  const double value = read_number(reader, node, map.path_of(key));
  if (!(value >= 0 && value <= hi)) {
    std::ostringstream range;
    range << "[0, " << hi << "]";
    reader.fail(node, map.path_of(key),
                "must be a number in " + range.str() + ", got " + node.text());
  }
  return value;
}
}  // namespace

// Rung lengths that repeat make Determined ask a promoted trial for a length it already
// reached ("operation already completed", mid-experiment); refuse such configs up front.
void check_rung_lengths(const Reader& reader, const Node& at, const std::string& path,
                        const std::string& what, std::uint64_t max_length, std::uint64_t rungs,
                        double divisor) {
  const std::vector<std::uint64_t> lengths = asha_rung_lengths(max_length, rungs, divisor);
  std::uint64_t usable = 1;  // the most rungs whose lengths still strictly increase
  while (usable < rungs) {
    const std::vector<std::uint64_t> fewer = asha_rung_lengths(max_length, usable + 1, divisor);
    if (std::adjacent_find(fewer.begin(), fewer.end(), std::greater_equal<>()) != fewer.end())
      break;
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
                  "already reached; use at most " +
                  std::to_string(usable) + " rungs, a larger max_length or a larger divisor");
}

// Determined before 0.13 counted training in steps of `batches_per_step` batches (default
// 100); 0.13 replaced max_steps (single, random, grid) and target_trial_steps (the halving
// searchers) by max_length. Say what the field became, with the conversion.
void refuse_steps(const Reader& reader, const Node& searcher, const Node& top) {
  for (const char* field : {"max_steps", "target_trial_steps"}) {
    const Node* steps = searcher.find(field);
    if (steps == nullptr) continue;
    const std::string path = join_path("searcher", field);
    std::string message = std::string(field) +
                          " was replaced by max_length in Determined 0.13 "
                          "(lengths are no longer counted in steps)";
    const Node* per_step = top.is_map() ? top.find("scheduling_unit") : nullptr;
    std::string per_step_name = "scheduling_unit";
    if (per_step == nullptr && top.is_map()) {
      per_step = top.find("batches_per_step");
      per_step_name = "batches_per_step";
    }
    const bool known = per_step != nullptr && per_step->kind() == NodeKind::kInt &&
                       per_step->value().is_number_integer() &&
                       per_step->value().get<std::int64_t>() > 0;
    const std::uint64_t batches = known ? per_step->value().get<std::uint64_t>() : 100;
    if (steps->kind() == NodeKind::kInt && steps->value().is_number_integer() &&
        steps->value().get<std::int64_t>() > 0 &&
        steps->value().get<std::uint64_t>() <=
            std::numeric_limits<std::uint64_t>::max() / batches) {
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

std::optional<Length> pbt_length(const SearcherParser& p) {
  Length round = pbt_round_length(p);
  const std::uint64_t rounds = pbt_rounds(p);
  if (round.units > std::numeric_limits<std::uint64_t>::max() / rounds) {
    p.reader.fail(p.map.get("num_rounds"), p.map.path_of("num_rounds"),
                  "num_rounds x length_per_round overflows a 64-bit length");
  }
  round.units *= rounds;
  return round;
}
PbtConfig pbt_config(const SearcherParser& p) {
  PbtConfig config;
  config.population_size =
      p.required_count("population_size", 1, " (how many trials train in each round)");
  config.num_rounds = pbt_rounds(p);
  config.length_per_round = pbt_round_length(p).units;
  const Map replace(p.reader,
                    p.map.require("replace_function",
                                  " (e.g. replace_function: "
                                  "{truncate_fraction: 0.2})"),
                    p.map.path_of("replace_function"), {"truncate_fraction"},
                    "of replace_function");
  config.truncate_fraction =
      pbt_fraction(p.reader, replace, "truncate_fraction", 0.5,
                   " (the share of the population replaced after each round, 0 to 0.5)");
  const Map explore(p.reader,
                    p.map.require("explore_function",
                                  " (e.g. explore_function: {resample_probability: 0.2, "
                                  "perturb_factor: 0.2})"),
                    p.map.path_of("explore_function"), {"resample_probability", "perturb_factor"},
                    "of explore_function");
  config.resample_probability =
      pbt_fraction(p.reader, explore, "resample_probability", 1,
                   " (the chance that a clone's hyperparameter is drawn anew)");
  config.perturb_factor =
      pbt_fraction(p.reader, explore, "perturb_factor", 1,
                   " (a clone's other numeric hyperparameters are multiplied by 1 - factor or "
                   "1 + factor)");
  return config;
}
}  // namespace hpsearch::config_detail
