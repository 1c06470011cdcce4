#pragma once
/// \file
/// The umbrella header: everything an embedder of the searcher needs, in one include.
///
///     #include <hpsearch/hpsearch.hpp>
///     hpsearch::ExperimentConfig config = hpsearch::load_config("exp.yaml");
///     hpsearch::Searcher searcher =
///         hpsearch::make_searcher(config.searcher, config.hyperparameters, 3);
///
/// It brings the vocabulary (events, operations, request ids, hyperparameter spaces), the
/// Searcher and its JSON forms (the drive protocol's shapes), the config reader and the catalog
/// of methods and samplers (make_searcher). Link `hpsearch::config` (find_package(hpsearch)).
/// The simulator and the runner have headers of their own (hpsearch/simulator/*.hpp,
/// hpsearch/runner/*.hpp) and their own targets.

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/event.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/operation.hpp"
#include "hpsearch/searcher/request_id.hpp"
#include "hpsearch/searcher/searcher.hpp"
