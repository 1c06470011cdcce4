// Fuzz target: workload names as `searcher-sim run --workload` takes them
// (hpsearch::make_workload).
//
// Input: the first line is the name; the bytes after it choose a point of the workload's
// domain and a fidelity.
//
// Contract: make_workload either throws std::invalid_argument that quotes the name, or returns
// a workload called by that name whose inputs have distinct names and sound domains, whose
// value at the chosen point is finite, whose cost is finite and >= 0 with cost(1) = 1,
// and whose optimum, when it has one, is finite.
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "hpsearch/simulator/workload.hpp"
#include "support/fuzz_support.hpp"

namespace {

using hpsearch::fuzz::broken;

// The tables are read once per name: reading one is slow and tested by the table target.
const hpsearch::Workload& workload_named(const std::string& name) {
  static std::map<std::string, std::unique_ptr<hpsearch::Workload>> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, hpsearch::make_workload(name)).first;
  return *it->second;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = hpsearch::fuzz::as_text(data, size);
  const std::string name(hpsearch::fuzz::take_line(input));
  if (name.find('\0') != std::string::npos) return 0;  // a command-line argument has no NUL
  const hpsearch::Workload* workload = nullptr;
  try {
    workload = &workload_named(name);
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).find("'" + name + "'") == std::string_view::npos) {
      broken("an unknown workload's error does not quote the name", e.what());
    }
    return 0;
  }
  if (workload->name() != name) broken("the workload has another name", workload->name());
  hpsearch::fuzz::Choices choices(input);
  std::set<std::string> names;
  std::vector<double> x;
  for (const hpsearch::WorkloadParameter& p : workload->parameters()) {
    if (!names.insert(p.name).second) broken("two inputs have the same name", p.name);
    if (p.choices.empty() && !(p.minval <= p.maxval)) broken("an input has a bad range", p.name);
    if (!p.choices.empty()) {
      x.push_back(static_cast<double>(choices.below(p.choices.size())));
    } else if (p.binary) {
      x.push_back(static_cast<double>(choices.below(2)));
    } else {
      x.push_back(p.minval + (p.maxval - p.minval) * static_cast<double>(choices.below(256)) / 255);
    }
  }
  const double fidelity = static_cast<double>(choices.below(256)) / 255;
  const double value = workload->value(workload->locate(x), fidelity);
  if (!std::isfinite(value)) broken("a value is not finite", name);
  const double cost = workload->cost(fidelity);
  if (!std::isfinite(cost) || cost < 0) broken("a cost is not a finite number >= 0", name);
  if (std::abs(workload->cost(1.0) - 1.0) > 1e-12) broken("cost(1) is not 1", name);
  if (workload->optimum() && !std::isfinite(*workload->optimum()))
    broken("the optimum is not finite", name);
  return 0;
}
