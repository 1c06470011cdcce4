#pragma once
/// \file
/// The catalog: one table of the search methods (`searcher.name`) and the samplers
/// (`searcher.sampler.name`), with their config fields, how each is parsed and made, and the
/// type names their snapshots carry. The config parser, the help texts, method_name and
/// sampler_name, make_searcher, the benchmarks and the conformance tests all read it, so a
/// method or sampler is added in one place.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hpsearch/config/config.hpp"
#include "hpsearch/methods/any_method.hpp"
#include "hpsearch/samplers/any_sampler.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

/// What users see of one row of the catalog.
struct CatalogEntry {
  std::string_view name;     ///< as written in a config
  std::string_view summary;  ///< one line, for help texts
  /// Its own config fields (a method's beyond the fields every searcher has: name, metric,
  /// smaller_is_better, sampler, source_trial_id, source_checkpoint_uuid; a sampler's
  /// beyond name).
  std::vector<std::string_view> fields;
  /// The types its snapshots carry (`search_method_type` or `sampler_type`).
  std::vector<std::string_view> snapshot_types;
};

/// The search methods, in the order of MethodConfig's alternatives.
[[nodiscard]] const std::vector<CatalogEntry>& catalog_methods();
/// The samplers, in the order of SamplerConfig's alternatives.
[[nodiscard]] const std::vector<CatalogEntry>& catalog_samplers();

/// The catalog as help text: each method and sampler with its summary and its own fields.
[[nodiscard]] std::string catalog_help();

/// The config name of a method: single, random, grid, async_halving, adaptive_asha.
[[nodiscard]] std::string method_name(const MethodConfig& config);
/// The config name of a sampler: random, grid, tpe, gp.
[[nodiscard]] std::string sampler_name(const SamplerConfig& config);

/// The searcher every program uses: one method, one sampler.
using Searcher = BasicSearcher<AnyMethod, AnySampler>;

/// What `sampler: auto` becomes for a method and a space, and why (a sentence for people).
struct SamplerChoice {
  SamplerConfig sampler;
  std::string reason;
  /// Under `auto`, the sampler that proposes first ("random", "tpe" or "gp"), and the one that
  /// takes over during the search ("tpe" after GP, else empty): what a user sees happen.
  std::string proposes;
  std::string then;
};
/// `sampler: auto`'s rule (docs/samplers.md, "sampler: auto"): random where a model could not
/// act (no hyperparameter varies, or max_trials ends before a model's first proposal), else
/// the `auto` sampler itself (AutoSampler: TPE from the start where the space has an int, else
/// GP, then TPE once results repeat), the reason saying which. Any other
/// sampler is returned as it is, with an empty reason. Deterministic: a function of the config.
[[nodiscard]] SamplerChoice choose_sampler(const SamplerConfig& sampler, const MethodConfig& method,
                                           const HyperparameterSpace& space);

/// "'random'", "'tpe'" or "'gp', then 'tpe'": what `sampler: auto` chose, for people.
[[nodiscard]] std::string chosen_sampler_text(const SamplerChoice& choice);
/// "Sampler 'auto' chose 'gp', then 'tpe': <reason>" (the header line of preview and run);
/// empty for a sampler named outright.
[[nodiscard]] std::string sampler_choice_line(const SamplerChoice& choice);
/// Where `auto` chose GP, then TPE: the trial (its 1-based creation number) from which TPE
/// proposed, read from the search's sampler (AutoSampler::tpe_from_trial); none before it took
/// over, and for any other choice.
[[nodiscard]] std::optional<std::uint64_t> sampler_switch_trial(const SamplerChoice& choice,
                                                                const AnySampler& sampler);
/// What became of the switch, for people: "'tpe' proposed from trial 23 on (the third repeated
/// result)", or, with `ended`, "'tpe' never took over (fewer than three results repeated)";
/// empty where there is no switch, or none yet in a search that goes on.
[[nodiscard]] std::string sampler_switch_text(const SamplerChoice& choice,
                                              std::optional<std::uint64_t> switch_trial,
                                              bool ended);
/// `sampler_choice` as preview gives it: {"sampler": what proposes first, "reason", and
/// "then": what takes over, where something does}; null for a sampler named outright.
[[nodiscard]] nlohmann::json sampler_choice_json(const SamplerChoice& choice);
/// The same for a search that ran (`searcher-sim run`, the runner's experiment.json), with
/// "then_from_trial" beside "then": the trial it took over from (null until it did).
[[nodiscard]] nlohmann::json sampler_choice_json(const SamplerChoice& choice,
                                                 std::optional<std::uint64_t> switch_trial);

/// A measured caution for people, or empty: a model sampler (named, or what `auto` chose) under
/// `async_halving`, where the models gained less than under `adaptive_asha` on the development
/// tables and GP did worse than random search with one worker (docs/samplers.md, "Under
/// async_halving"). Preview and the runner print it; it changes nothing.
[[nodiscard]] std::string sampler_caution(const SamplerChoice& choice, const MethodConfig& method);

/// The sampler a config describes over a space. Throws std::length_error for a grid too large
/// to count (load_config refuses such configs first).
[[nodiscard]] AnySampler make_sampler(const SamplerConfig& config,
                                      const HyperparameterSpace& space);
/// The method a config describes. `capacity`, the sampler's number of distinct
/// configurations (the grid's size), caps max_trials (and PBT's population) and is the grid
/// method's trial count; PBT explores `space`.
[[nodiscard]] AnyMethod make_method(const MethodConfig& config,
                                    std::optional<std::uint64_t> capacity,
                                    const HyperparameterSpace& space);
/// A ready searcher: the settings' sampler and method, their direction, and the seed of the
/// whole search.
[[nodiscard]] Searcher make_searcher(const SearcherSettings& settings, HyperparameterSpace space,
                                     std::uint32_t seed);
/// The same for a method alone: the grid method gets the grid sampler, every other the random
/// sampler (Determined's searchers, as they were before samplers).
[[nodiscard]] Searcher make_searcher(const MethodConfig& method, HyperparameterSpace space,
                                     std::uint32_t seed, bool smaller_is_better = true);

/// The sampler a method gets when the config names none: grid for the grid method, else random.
[[nodiscard]] SamplerConfig default_sampler(const MethodConfig& method);

}  // namespace hpsearch
