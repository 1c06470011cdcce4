// The simulator's workloads for the Python quality harness (bench/peers/quality.py), so that
// Optuna's trials and hpsearch's are valued by the same code: the metric a trial's
// configuration has at every length, read through WorkloadInputs exactly as the simulator's
// engine reads it. Usage:
//   peer_workload WORKLOAD CONFIG.yaml
// prints {"optimum": number or null} and then, for each line of stdin holding a configuration
// (a JSON object of the config's hyperparameters), one line with its values at lengths 1 ..
// max_length (fidelity length / max_length), separated by spaces.
#include <cstdio>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/workload.hpp"

int main(int argc, char** argv) {
  using namespace hpsearch;
  if (argc != 3) {
    std::cerr << "usage: peer_workload WORKLOAD CONFIG.yaml\n";
    return 2;
  }
  try {
    const auto workload = make_workload(argv[1]);
    const ExperimentConfig config = load_config(argv[2]);
    const WorkloadInputs inputs(*workload, config.hyperparameters);
    const std::uint64_t max_length = config.searcher.max_length.units;
    const std::optional<double> optimum = workload->optimum();
    std::cout
        << nlohmann::json{{"optimum", optimum ? nlohmann::json(*optimum) : nlohmann::json()}}.dump()
        << std::endl;
    std::string line;
    char text[32];
    while (std::getline(std::cin, line)) {
      const std::vector<double> x = workload->locate(inputs.read(nlohmann::json::parse(line)));
      std::string out;
      for (std::uint64_t length = 1; length <= max_length; ++length) {
        const double z = static_cast<double>(length) / static_cast<double>(max_length);
        std::snprintf(text, sizeof text, "%.17g", workload->value(x, z));
        if (length > 1) out += ' ';
        out += text;
      }
      std::cout << out << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << "peer_workload: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
