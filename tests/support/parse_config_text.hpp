#pragma once
// The config tests' one way to read a config text: as the file exp.yaml, the name their expected
// error messages carry. One definition for the three files, which may share a unity batch.

#include <string>

#include "hpsearch/config/config.hpp"

namespace hpsearch::testing {

inline ExperimentConfig parse(const std::string& text) {
  return parse_config(text, "exp.yaml");
}

}  // namespace hpsearch::testing
