// The catalog of methods and samplers, and the `searcher:` section read through it.
#include "hpsearch/config/catalog.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "hpsearch/methods/adaptive_asha.hpp"
#include "hpsearch/methods/asha.hpp"
#include "hpsearch/methods/pbt.hpp"
#include "hpsearch/samplers/auto_sampler.hpp"
#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/space_encoding.hpp"
#include "parsers.hpp"
#include "searcher_fields.hpp"

namespace hpsearch {
namespace config_detail {
namespace {

// ---- the table -------------------------------------------------------------------------------

// One method: what users see, how its section is read (the max_length it trains to, then its
// config), and how it is made.
struct MethodRow {
  CatalogEntry entry;
  /// The max_length it trains to; none when each trial decides its own (single, random, grid).
  std::optional<Length> (*length)(const SearcherParser&);
  MethodConfig (*parse)(const SearcherParser&, std::uint64_t max_length);
  AnyMethod (*make)(const MethodConfig&, std::optional<std::uint64_t> capacity,
                    const HyperparameterSpace& space);
};

struct SamplerRow {
  CatalogEntry entry;
  SamplerConfig (*parse)(const OptionParser&);
  AnySampler (*make)(const SamplerConfig&, const HyperparameterSpace&);
};

// max_trials, at most the sampler's number of distinct configurations.
std::uint64_t capped(std::uint64_t max_trials, std::optional<std::uint64_t> capacity) {
  return capacity ? std::min(max_trials, *capacity) : max_trials;
}

std::optional<Length> plain_length(const SearcherParser& p) {
  return p.plain_length();
}
std::optional<Length> asha_length(const SearcherParser& p) {
  return p.asha_length();
}

const std::vector<MethodRow>& method_rows() {
  static const std::vector<MethodRow> rows{
      {{"single", "one trial trained to max_length", {"max_length"}, {"single"}},
       plain_length,
       [](const SearcherParser&, std::uint64_t max_length) -> MethodConfig {
         return SingleConfig{max_length};
       },
       [](const MethodConfig& c, std::optional<std::uint64_t>, const HyperparameterSpace&) {
         return AnyMethod(RandomSearch(std::get<SingleConfig>(c)));
       }},
      {{"random",
        "max_trials trials, each trained to max_length",
        {"max_length", "max_trials", "max_concurrent_trials"},
        {"random"}},
       plain_length,
       [](const SearcherParser& p, std::uint64_t max_length) -> MethodConfig {
         return RandomConfig{.max_length = max_length,
                             .max_trials = p.max_trials(),
                             .max_concurrent_trials = p.max_concurrent_trials()};
       },
       [](const MethodConfig& c, std::optional<std::uint64_t> capacity,
          const HyperparameterSpace&) {
         RandomConfig config = std::get<RandomConfig>(c);
         config.max_trials = capped(config.max_trials, capacity);
         return AnyMethod(RandomSearch(config));
       }},
      {{"grid",
        "every point of the grid sampler, each trained to max_length",
        {"max_length", "max_concurrent_trials"},
        {"grid"}},
       plain_length,
       [](const SearcherParser& p, std::uint64_t max_length) -> MethodConfig {
         return GridConfig{.max_length = max_length,
                           .max_concurrent_trials = p.max_concurrent_trials()};
       },
       [](const MethodConfig& c, std::optional<std::uint64_t> capacity,
          const HyperparameterSpace&) {
         HPSEARCH_ASSERT(capacity.has_value(), "the grid method needs the grid sampler");
         return AnyMethod(GridSearch(std::get<GridConfig>(c), *capacity));
       }},
      {{"async_halving",
        "asynchronous successive halving (ASHA), promotion or stop_once",
        {"max_length", "time_metric", "max_time", "max_trials", "num_rungs", "divisor",
         "max_concurrent_trials", "stop_once"},
        {"asha", "asha_stopping"}},
       asha_length,
       [](const SearcherParser& p, std::uint64_t max_length) -> MethodConfig {
         AshaConfig config{.max_length = max_length,
                           .max_trials = p.max_trials(),
                           .num_rungs = p.required_count("num_rungs", 1,
                                                         " (how many rungs of successive halving)"),
                           .divisor = p.divisor(),
                           .max_concurrent_trials = p.max_concurrent_trials(),
                           .stop_once = p.flag("stop_once", false)};
         check_rung_lengths(p.reader, p.map.get("num_rungs"), "searcher.num_rungs",
                            "num_rungs " + std::to_string(config.num_rungs), config.max_length,
                            config.num_rungs, config.divisor);
         return config;
       },
       [](const MethodConfig& c, std::optional<std::uint64_t> capacity,
          const HyperparameterSpace&) {
         AshaConfig config = std::get<AshaConfig>(c);
         config.max_trials = capped(config.max_trials, capacity);
         return AnyMethod(AshaSearch(config));
       }},
      {{"adaptive_asha",
        "brackets of ASHA with different early-stopping rates",
        {"max_length", "time_metric", "max_time", "max_trials", "bracket_rungs", "mode", "divisor",
         "max_rungs", "max_concurrent_trials", "stop_once"},
        {"adaptive_asha"}},
       asha_length,
       [](const SearcherParser& p, std::uint64_t max_length) -> MethodConfig {
         AdaptiveAshaConfig config{.max_length = max_length,
                                   .max_trials = p.max_trials(),
                                   .mode = p.mode(),
                                   .divisor = p.divisor(),
                                   .max_rungs = p.count("max_rungs", 1, 5),
                                   .bracket_rungs = p.bracket_rungs(),
                                   .max_concurrent_trials = p.max_concurrent_trials(),
                                   .stop_once = p.flag("stop_once", false)};
         const bool listed = p.map.has("bracket_rungs") && !p.map.get("bracket_rungs").is_null();
         for (const Bracket& bracket : adaptive_brackets(config)) {
           check_rung_lengths(p.reader, listed ? p.map.get("bracket_rungs") : p.map.node(),
                              listed ? "searcher.bracket_rungs" : "searcher",
                              "a bracket of " + std::to_string(bracket.num_rungs) + " rungs",
                              config.max_length, bracket.num_rungs, config.divisor);
         }
         return config;
       },
       [](const MethodConfig& c, std::optional<std::uint64_t> capacity,
          const HyperparameterSpace&) {
         AdaptiveAshaConfig config = std::get<AdaptiveAshaConfig>(c);
         config.max_trials = capped(config.max_trials, capacity);
         return AnyMethod(AdaptiveAsha(config));
       }},
      {{"pbt",
        "population-based training: rounds of train, truncate, clone and explore",
        {"population_size", "num_rounds", "length_per_round", "replace_function",
         "explore_function"},
        {"pbt"}},
       pbt_length,
       [](const SearcherParser& p, std::uint64_t) -> MethodConfig { return pbt_config(p); },
       [](const MethodConfig& c, std::optional<std::uint64_t> capacity,
          const HyperparameterSpace& space) {
         PbtConfig config = std::get<PbtConfig>(c);
         config.population_size = capped(config.population_size, capacity);
         return AnyMethod(PbtSearch(config, space));
       }},
  };
  return rows;
}

// `sampler: auto`'s rule, for a space and the search's budget in trials (unknown: nullopt).
SamplerChoice choose_for(const HyperparameterSpace& space, std::optional<std::uint64_t> budget) {
  const SpaceEncoding encoding(space);
  const std::size_t inputs = encoding.size();
  if (inputs == 0) {
    return {RandomSamplerConfig{}, "no hyperparameter varies, so there is nothing to model",
            "random", ""};
  }
  // The models propose once dimensions + 2 trials have reported (ModelOptions).
  const std::uint64_t first_modelled = inputs + 2;
  if (budget && *budget <= first_modelled) {
    return {RandomSamplerConfig{},
            "max_trials " + std::to_string(*budget) +
                " ends before a model's first proposal (after " + std::to_string(first_modelled) +
                " trials have reported)",
            "random", ""};
  }
  const std::string integer = AutoSampler::integer_input(encoding);
  if (!integer.empty()) {
    return {AutoSamplerConfig{},
            "from the first trial, as int hyperparameter '" + integer +
                "' makes the space discrete (results will repeat); GP only records the trials",
            "tpe", ""};
  }
  return {AutoSamplerConfig{},
          "GP while results vary smoothly, TPE for good from the third result that repeats "
          "another's (a table or a coarse discrete space)",
          "gp", "tpe"};
}

const std::vector<SamplerRow>& sampler_rows() {
  static const std::vector<SamplerRow> rows{
      {{"random", "independent draws, Determined's (the default)", {}, {"random"}},
       [](const OptionParser&) -> SamplerConfig { return RandomSamplerConfig{}; },
       [](const SamplerConfig&, const HyperparameterSpace& space) {
         return AnySampler(RandomSampler(space));
       }},
      {{"grid",
        "the grid's points in Determined's order (the grid method's sampler)",
        {},
        {"grid"}},
       [](const OptionParser&) -> SamplerConfig { return GridSamplerConfig{}; },
       [](const SamplerConfig&, const HyperparameterSpace& space) {
         return AnySampler(GridSampler(space));
       }},
      {{"tpe",
        "tree-structured Parzen estimators, multivariate, over every length",
        {"gamma", "prior_weight", "random_fraction", "min_observations", "max_observations",
         "candidates"},
        {"tpe"}},
       [](const OptionParser& p) -> SamplerConfig {
         TpeConfig config;
         p.model(config.model);
         config.gamma = p.number("gamma", config.gamma, 0, true, 1, true);
         config.prior_weight = p.number("prior_weight", config.prior_weight, 0, true,
                                        std::numeric_limits<double>::infinity(), true);
         return config;
       },
       [](const SamplerConfig& c, const HyperparameterSpace& space) {
         return AnySampler(TpeSampler(space, std::get<TpeConfig>(c)));
       }},
      {{"gp",
        "Gaussian-process Bayesian optimisation, the length as an input",
        {"random_fraction", "min_observations", "max_observations", "candidates",
         "fit_observations", "refit_growth"},
        {"gp"}},
       [](const OptionParser& p) -> SamplerConfig {
         GpConfig config;
         p.model(config.model);
         config.fit_observations = p.count("fit_observations", 2, config.fit_observations);
         config.refit_growth = p.number("refit_growth", config.refit_growth, 1, false,
                                        std::numeric_limits<double>::infinity(), true);
         return config;
       },
       [](const SamplerConfig& c, const HyperparameterSpace& space) {
         return AnySampler(GpSampler(space, std::get<GpConfig>(c)));
       }},
      {{"auto",
        "TPE where the space has an int, else GP, then TPE from the third repeated result; "
        "random where no model could act (searcher-sim preview says which and why)",
        {},
        {"random", "auto"}},
       [](const OptionParser&) -> SamplerConfig { return AutoSamplerConfig{}; },
       [](const SamplerConfig&, const HyperparameterSpace& space) {
         // Without the method the budget is unknown: the space alone decides.
         if (std::holds_alternative<RandomSamplerConfig>(choose_for(space, std::nullopt).sampler))
           return AnySampler(RandomSampler(space));
         return AnySampler(AutoSampler(space));
       }},
  };
  return rows;
}

// "'a', 'b', 'c'" for messages.
template <class Row>
std::string quoted_names(const std::vector<Row>& rows) {
  std::string text;
  for (const Row& row : rows) {
    text += (text.empty() ? "'" : ", '") + std::string(row.entry.name) + "'";
  }
  return text;
}

// " (did you mean 'adaptive_asha'?)" for a near miss, else nothing.
std::string did_you_mean(const std::string& text, const std::vector<std::string>& known) {
  const std::string near = text.empty() ? std::string() : closest(text, known);
  return near.empty() ? std::string() : " (did you mean '" + near + "'?)";
}

const MethodRow& method_row(const Reader& reader, const Node& node) {
  const std::string path = "searcher.name";
  // `custom` is read before the rows (parse_searcher): a name like the others to a user.
  const std::string names = quoted_names(method_rows()) + ", 'custom'";
  if (node.find("name") == nullptr) {
    reader.fail(node, path, "missing required field (one of " + names + ")");
  }
  const Node& name = *node.find("name");
  const std::string text = name.is_scalar() ? name.text() : "";
  for (const Retired& retired : kRetired) {
    if (text == retired.name) {
      reader.fail(name, path, "the '" + text + "' searcher " + std::string(retired.advice));
    }
  }
  std::vector<std::string> known{"custom"};
  for (const MethodRow& row : method_rows()) {
    if (text == row.entry.name) return row;
    known.emplace_back(row.entry.name);
  }
  reader.fail(name, path,
              "must be one of " + names + ", got " + describe(name) + did_you_mean(text, known));
}

// The grid method trains every point of the grid once: its sampler is the grid.
void check_pairing(const Reader& reader, const Node& at, const std::string& path,
                   const MethodConfig& method, const SamplerConfig& sampler) {
  if (std::holds_alternative<GridConfig>(method) &&
      !std::holds_alternative<GridSamplerConfig>(sampler)) {
    reader.fail(at, path,
                "the 'grid' searcher trains every point of the grid, so its sampler is 'grid', "
                "got '" +
                    sampler_name(sampler) +
                    "' (to use that sampler, name a searcher "
                    "that samples: 'random', 'async_halving' or 'adaptive_asha')");
  }
}

// `searcher.sampler`: a name, or a map with the name and options.
SamplerConfig parse_sampler(const Reader& reader, const Node& node, const MethodConfig& method) {
  const std::string path = "searcher.sampler";
  const std::string names = quoted_names(sampler_rows());
  const bool as_map = node.is_map();
  if (!as_map && !node.is_scalar()) {
    reader.fail(node, path,
                "must be a sampler name (" + names +
                    ") or a map like {name: tpe, gamma: 0.15}, "
                    "got " +
                    describe(node));
  }
  const Node* name = as_map ? node.find("name") : &node;
  const std::string name_path = as_map ? join_path(path, "name") : path;
  if (name == nullptr) {
    reader.fail(node, name_path, "missing required field (one of " + names + ")");
  }
  const std::string text = name->is_scalar() ? name->text() : "";
  const auto row = std::find_if(sampler_rows().begin(), sampler_rows().end(),
                                [&](const SamplerRow& r) { return text == r.entry.name; });
  if (row == sampler_rows().end()) {
    std::vector<std::string> known;
    for (const SamplerRow& r : sampler_rows()) known.emplace_back(r.entry.name);
    reader.fail(*name, name_path,
                "must be one of " + names + ", got " + describe(*name) + did_you_mean(text, known));
  }
  SamplerConfig config;
  if (as_map) {
    std::vector<std::string> fields{"name"};
    for (const std::string_view field : row->entry.fields) fields.emplace_back(field);
    const Map map(reader, node, path, fields, "of the '" + text + "' sampler");
    config = row->parse(OptionParser{reader, &map});
  } else {
    config = row->parse(OptionParser{reader, nullptr});
  }
  check_pairing(reader, *name, name_path, method, config);
  return config;
}

}  // namespace

// `searcher: {name: custom, metric, smaller_is_better, unit}` (Determined 0.19.6 to 0.37):
// the search method is the user's, outside hpsearch; only the direction and the unit of its
// lengths are read here.
SearcherSettings parse_custom(const Reader& reader, const Node& node) {
  std::vector<std::string> fields(kCommonFields.begin(), kCommonFields.end());
  fields.emplace_back("unit");
  const Map map(reader, node, "searcher", fields, "of the 'custom' searcher");
  const SearcherParser p{reader, map};
  SearcherSettings settings;
  settings.custom = true;
  settings.metric =
      read_string(reader, map.require("metric", " (the name of the validation metric to optimise)"),
                  "searcher.metric");
  settings.smaller_is_better = p.flag("smaller_is_better", true);
  if (const Node* unit = p.optional("unit")) {
    const std::string text = read_string(reader, *unit, "searcher.unit");
    if (text != "batches" && text != "records" && text != "epochs") {
      reader.fail(*unit, "searcher.unit",
                  "must be one of 'batches', 'records', 'epochs', got " + describe(*unit));
    }
    settings.max_length.unit = text;
  }
  if (p.optional("sampler") != nullptr) {
    reader.fail(map.get("sampler"), "searcher.sampler",
                "the 'custom' searcher's method chooses every configuration itself; it takes "
                "no sampler");
  }
  return settings;
}

SearcherSettings parse_searcher(const Reader& reader, const Node& node, const Node& top) {
  if (!node.is_map()) reader.fail(node, "searcher", "must be a map, got " + describe(node));
  refuse_steps(reader, node, top);
  if (const Node* name = node.find("name");
      name != nullptr && name->is_scalar() && name->text() == "custom") {
    return parse_custom(reader, node);
  }
  const MethodRow& row = method_row(reader, node);
  std::vector<std::string> fields(kCommonFields.begin(), kCommonFields.end());
  for (const std::string_view field : row.entry.fields) fields.emplace_back(field);
  const Map map(reader, node, "searcher", fields,
                "of the '" + std::string(row.entry.name) + "' searcher");
  const SearcherParser p{reader, map};

  SearcherSettings settings;
  settings.metric =
      read_string(reader, map.require("metric", " (the name of the validation metric to optimise)"),
                  "searcher.metric");
  settings.smaller_is_better = p.flag("smaller_is_better", true);
  if (const auto id = p.optional("source_trial_id")) {
    (void)read_int(reader, *id, "searcher.source_trial_id");
  }
  if (const auto uuid = p.optional("source_checkpoint_uuid")) {
    (void)read_string(reader, *uuid, "searcher.source_checkpoint_uuid");
  }
  const std::optional<Length> length = row.length(p);
  // Without a length the searcher issues a nominal validate_after(1): "train until your script
  // ends" (docs/config.md, how 0.38's form maps onto the operation-based searcher).
  settings.trial_decides_length = !length;
  settings.max_length = length.value_or(Length{1, ""});
  // Determined 0.38's form (time_metric + max_time): the trials' metrics drive the search.
  if (map.has("time_metric")) settings.time_metric = settings.max_length.unit;
  settings.method = row.parse(p, settings.max_length.units);
  const Node* sampler = p.optional("sampler");
  settings.sampler =
      sampler ? parse_sampler(reader, *sampler, settings.method) : default_sampler(settings.method);
  return settings;
}

}  // namespace config_detail

const std::vector<CatalogEntry>& catalog_methods() {
  static const std::vector<CatalogEntry> entries = [] {
    std::vector<CatalogEntry> out;
    for (const config_detail::MethodRow& row : config_detail::method_rows())
      out.push_back(row.entry);
    return out;
  }();
  return entries;
}

const std::vector<CatalogEntry>& catalog_samplers() {
  static const std::vector<CatalogEntry> entries = [] {
    std::vector<CatalogEntry> out;
    for (const config_detail::SamplerRow& row : config_detail::sampler_rows())
      out.push_back(row.entry);
    return out;
  }();
  return entries;
}

std::string catalog_help() {
  const auto section = [](std::string& out, const std::vector<CatalogEntry>& entries) {
    for (const CatalogEntry& entry : entries) {
      out += "  " + std::string(entry.name);
      out.append(entry.name.size() < 16 ? 16 - entry.name.size() : 1, ' ');
      out += std::string(entry.summary) + "\n";
      if (entry.fields.empty()) continue;
      std::string fields;
      for (const std::string_view field : entry.fields) {
        fields += (fields.empty() ? "" : ", ") + std::string(field);
      }
      out += std::string(18, ' ') + "fields: " + fields + "\n";
    }
  };
  std::string out =
      "searcher.name: how long trials train (the search method). Every searcher also takes\n"
      "metric, smaller_is_better, sampler, source_trial_id and source_checkpoint_uuid.\n";
  section(out, catalog_methods());
  out +=
      "\nsearcher.sampler: which configuration each new trial gets; a name or a map like\n"
      "{name: tpe, gamma: 0.15} (default random; the grid searcher's is grid).\n";
  section(out, catalog_samplers());
  return out;
}

// Rows are listed in the order of the variants' alternatives (the catalog test checks it).
std::string method_name(const MethodConfig& config) {
  return std::string(config_detail::method_rows()[config.index()].entry.name);
}

std::string sampler_name(const SamplerConfig& config) {
  return std::string(config_detail::sampler_rows()[config.index()].entry.name);
}

SamplerConfig default_sampler(const MethodConfig& method) {
  if (std::holds_alternative<GridConfig>(method)) return GridSamplerConfig{};
  return RandomSamplerConfig{};
}

AnySampler make_sampler(const SamplerConfig& config, const HyperparameterSpace& space) {
  return config_detail::sampler_rows()[config.index()].make(config, space);
}

AnyMethod make_method(const MethodConfig& config, std::optional<std::uint64_t> capacity,
                      const HyperparameterSpace& space) {
  return config_detail::method_rows()[config.index()].make(config, capacity, space);
}

SamplerChoice choose_sampler(const SamplerConfig& sampler, const MethodConfig& method,
                             const HyperparameterSpace& space) {
  if (!std::holds_alternative<AutoSamplerConfig>(sampler)) return {sampler, "", "", ""};
  const std::optional<std::uint64_t> budget = std::visit(
      [](const auto& m) -> std::optional<std::uint64_t> {
        if constexpr (requires { m.max_trials; }) {
          return m.max_trials;
        } else if constexpr (std::is_same_v<std::decay_t<decltype(m)>, SingleConfig>) {
          return 1;
        } else {
          return std::nullopt;
        }
      },
      method);
  return config_detail::choose_for(space, budget);
}

std::string chosen_sampler_text(const SamplerChoice& choice) {
  // What proposes, and what takes over during the search: 'gp', then 'tpe'.
  std::string text = "'";  // built up: GCC 12's -Wrestrict misfires on "'" + std::string
  text += choice.proposes;
  text += '\'';
  if (!choice.then.empty()) {
    text += ", then '";
    text += choice.then;
    text += '\'';
  }
  return text;
}

std::string sampler_caution(const SamplerChoice& choice, const MethodConfig& method) {
  if (!std::holds_alternative<AshaConfig>(method)) return "";
  // The named sampler, or `auto` where it lets a model propose: auto's own figures are the
  // note's (under async_halving it hands GP over to TPE and measured as TPE does, not as GP).
  const std::string proposes = choice.reason.empty()         ? sampler_name(choice.sampler)
                               : choice.proposes == "random" ? "random"
                                                             : "tpe";
  // The figures: docs/samplers.md, "Under async_halving" and "GP at 1 and 16 workers" (mean
  // normalised regret as a multiple of random search's, the 15 development tables).
  if (proposes == "gp") {
    return "caution: 'gp' under async_halving did worse than random search with 1 worker on the "
           "15 development tables (1.15 x random's mean regret; 0.83 x with 16), against 0.64 x "
           "under adaptive_asha: prefer adaptive_asha (docs/samplers.md, \"Under "
           "async_halving\")";
  }
  if (proposes == "tpe") {
    return "note: the models gain less under async_halving than under adaptive_asha on the 15 "
           "development tables ('tpe' and 'auto' 0.81-0.86 x random's mean regret, against "
           "0.70-0.73 x): prefer adaptive_asha (docs/samplers.md, \"Under async_halving\")";
  }
  return "";
}

std::string sampler_choice_line(const SamplerChoice& choice) {
  if (choice.reason.empty()) return "";
  return "Sampler 'auto' chose " + chosen_sampler_text(choice) + ": " + choice.reason;
}

std::optional<std::uint64_t> sampler_switch_trial(const SamplerChoice& choice,
                                                  const AnySampler& sampler) {
  if (choice.then.empty()) return std::nullopt;
  const auto* automatic = std::get_if<AutoSampler>(&sampler.variant());
  if (automatic == nullptr || !automatic->tpe_from_trial()) return std::nullopt;
  return std::uint64_t{*automatic->tpe_from_trial()} + 1;
}

std::string sampler_switch_text(const SamplerChoice& choice,
                                std::optional<std::uint64_t> switch_trial, bool ended) {
  if (choice.then.empty()) return "";
  if (switch_trial) {
    return "'" + choice.then + "' proposed from trial " + std::to_string(*switch_trial) +
           " on (the third repeated result)";
  }
  return ended ? "'" + choice.then + "' never took over (fewer than three results repeated)" : "";
}

nlohmann::json sampler_choice_json(const SamplerChoice& choice) {
  if (choice.reason.empty()) return nullptr;
  nlohmann::json j{{"sampler", choice.proposes}, {"reason", choice.reason}};
  if (!choice.then.empty()) j["then"] = choice.then;
  return j;
}

nlohmann::json sampler_choice_json(const SamplerChoice& choice,
                                   std::optional<std::uint64_t> switch_trial) {
  nlohmann::json j = sampler_choice_json(choice);
  if (!choice.then.empty())
    j["then_from_trial"] = switch_trial ? nlohmann::json(*switch_trial) : nlohmann::json(nullptr);
  return j;
}

Searcher make_searcher(const SearcherSettings& settings, HyperparameterSpace space,
                       std::uint32_t seed) {
  if (settings.custom) {
    throw ConfigError("config", "searcher.name",
                      "the 'custom' searcher's method runs outside hpsearch and reaches the "
                      "experiment through searcher-run only (docs/custom-searcher.md); to drive "
                      "a search from your own code here, use the searcher protocol "
                      "(docs/protocol.md)");
  }
  AnySampler sampler =
      make_sampler(choose_sampler(settings.sampler, settings.method, space).sampler, space);
  AnyMethod method = make_method(settings.method, sampler.capacity(), space);
  return Searcher(std::move(method), std::move(sampler), seed, settings.smaller_is_better);
}

Searcher make_searcher(const MethodConfig& method, HyperparameterSpace space, std::uint32_t seed,
                       bool smaller_is_better) {
  SearcherSettings settings;
  settings.smaller_is_better = smaller_is_better;
  settings.method = method;
  settings.sampler = default_sampler(method);
  return make_searcher(settings, std::move(space), seed);
}

}  // namespace hpsearch
