#pragma once
// Reading the values recorded from Go and from Determined (tests/golden/determined/).

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hpsearch::testing {

inline std::filesystem::path golden_dir() {
  return std::filesystem::path(HPSEARCH_SOURCE_DIR) / "tests" / "golden" / "determined";
}

/// Every line of go-math.jsonl as a JSON object.
inline std::vector<nlohmann::json> go_math_rows() {
  std::ifstream in(golden_dir() / "go-math.jsonl");
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

inline nlohmann::json go_searcher_golden() {
  std::ifstream in(golden_dir() / "go-searcher.json");
  return nlohmann::json::parse(in);
}

/// Go prints shortest round-trip decimals; strtod reads them back to the same bits.
inline double go_number(const nlohmann::json& text) {
  return std::strtod(text.get<std::string>().c_str(), nullptr);
}

}  // namespace hpsearch::testing
