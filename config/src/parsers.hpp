#pragma once
// Private to config/: the section parsers.

#include <string>

#include "hpsearch/config/config.hpp"
#include "yaml_reader.hpp"

namespace hpsearch::config_detail {

/// The `searcher:` section.
[[nodiscard]] SearcherSettings parse_searcher(const Reader& reader, const Node& node,
                                              const Node& top);

/// What the sampler needs of the hyperparameters: the grid needs counts and tolerates empty
/// categoricals; every other sampler draws values, so an empty categorical is an error.
enum class SpaceUse { kSampled, kGrid };

/// The `hyperparameters:` section (spec 4.1).
[[nodiscard]] HyperparameterSpace parse_hyperparameters(const Reader& reader, const Node& node,
                                                        const std::string& path, SpaceUse use);

}  // namespace hpsearch::config_detail
