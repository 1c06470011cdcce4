// Fuzz target: workload tables, the YAHPO rbv2 CSV reader (hpsearch::read_table_workload).
//
// Input: the CSV text (the seeds are the unit tests' tables and the first rows of the shipped
// ones).
//
// Contract: the reader either throws std::invalid_argument whose message starts with the
// source name, or returns a workload whose inputs are sound (distinct names; numeric ranges
// finite with minval <= maxval; categorical choices sorted, distinct and non-empty), whose
// optimum is finite, and whose value at the corners and the middle of its domain, at fidelities
// 0, 0.3 and 1, is a finite number.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>

#include "hpsearch/simulator/workload.hpp"
#include "support/fuzz_support.hpp"

namespace {

using hpsearch::fuzz::broken;

constexpr const char* kSource = "fuzz.csv";

void check_parameters(const std::vector<hpsearch::WorkloadParameter>& parameters) {
  std::set<std::string> names;
  for (const hpsearch::WorkloadParameter& p : parameters) {
    if (!names.insert(p.name).second) broken("two inputs have the same name", p.name);
    if (p.choices.empty()) {
      if (!std::isfinite(p.minval) || !std::isfinite(p.maxval) || p.minval > p.maxval) {
        broken("a numeric input has a bad range", p.name);
      }
    } else if (!std::is_sorted(p.choices.begin(), p.choices.end()) ||
               std::adjacent_find(p.choices.begin(), p.choices.end()) != p.choices.end()) {
      broken("a categorical input's choices are not sorted and distinct", p.name);
    }
  }
}

// The point with every input at its low end (corner 0), its high end (1) or its middle (2).
std::vector<double> probe(const std::vector<hpsearch::WorkloadParameter>& parameters, int corner) {
  std::vector<double> x;
  for (const hpsearch::WorkloadParameter& p : parameters) {
    if (!p.choices.empty()) {
      x.push_back(corner == 0 ? 0.0 : static_cast<double>(p.choices.size() - 1));
    } else {
      x.push_back(corner == 0 ? p.minval : corner == 1 ? p.maxval : (p.minval + p.maxval) / 2);
    }
  }
  return x;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(hpsearch::fuzz::as_text(data, size))};
  std::unique_ptr<hpsearch::Workload> table;
  try {
    table = hpsearch::read_table_workload(in, kSource, "fuzz");
  } catch (const std::invalid_argument& e) {
    if (!std::string_view(e.what()).starts_with(kSource)) {
      broken("a table error does not start with the source", e.what());
    }
    return 0;
  }
  const std::vector<hpsearch::WorkloadParameter> parameters = table->parameters();
  check_parameters(parameters);
  if (!table->optimum() || !std::isfinite(*table->optimum()))
    broken("the optimum is not finite", "");
  for (int corner = 0; corner < 3; ++corner) {
    const std::vector<double> at = table->locate(probe(parameters, corner));
    for (const double fidelity : {0.0, 0.3, 1.0}) {
      if (!std::isfinite(table->value(at, fidelity))) {
        broken("a value is not finite",
               "corner " + std::to_string(corner) + ", fidelity " + std::to_string(fidelity));
      }
    }
  }
  return 0;
}
