// Fuzz target: the searcher-sim command line (hpsearch::parse_searcher_sim_args).
//
// Input: the arguments, one per line (without the program name).
//
// Contract: parsing either throws UsageError whose message starts with the option it is about
// ("--workers: ..."), with "unknown" or with "unexpected argument" (searcher-sim's commands
// take no positional argument), or returns a command whose every value is in its
// documented domain: workers and counts in their ranges, times and costs finite and >= 0,
// probabilities and fidelities in [0, 1], a straggler factor >= 1, a finite target. Any other
// exception is a finding.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "hpsearch/config/command_line.hpp"
#include "hpsearch/simulator/cli.hpp"
#include "support/fuzz_support.hpp"

namespace {

using hpsearch::fuzz::broken;

void check_number(double value, double low, double high, const char* what) {
  if (!std::isfinite(value) || value < low || value > high) {
    broken("an accepted value is outside its domain", what + (": " + std::to_string(value)));
  }
}

void check_run_options(const hpsearch::RunOptions& o) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (o.workers < 1 || o.workers > 1'000'000) broken("--workers outside [1, 1000000]", "");
  if (o.faults.max_restarts > 1'000'000) broken("--max-restarts outside [0, 1000000]", "");
  const hpsearch::CostModel& c = o.cost;
  for (const double v :
       {c.seconds_per_unit, c.startup_seconds, c.checkpoint_seconds, c.restore_seconds,
        c.noise_sigma, c.config_sigma, c.worker_sigma, o.faults.crash_rate, o.metric_noise}) {
    check_number(v, 0, kInf, "a cost, noise or rate option");
  }
  check_number(c.straggler_probability, 0, 1, "--stragglers");
  check_number(c.straggler_factor, 1, kInf, "--straggler-factor");
}

struct CheckCommand {
  void operator()(const hpsearch::TextCommand& c) const {
    if (c.text.empty()) broken("an empty help text", "");
  }
  void operator()(const hpsearch::DriveCommand&) const {}
  void operator()(const hpsearch::PreviewCommand& c) const {
    if (c.workers) check_run_options(*c.workers);
  }
  void operator()(const hpsearch::RunCommand& c) const { check_run_options(c.options); }
  void operator()(const hpsearch::CompareCommand& c) const {
    check_run_options(c.options);
    if (c.configs.empty()) broken("compare without configs", "");
    if (c.seeds < 1 || c.seeds > 100'000) broken("--seeds outside [1, 100000]", "");
    for (const double t : c.times)
      check_number(t, 0, std::numeric_limits<double>::infinity(), "--times");
    if (c.target) {
      check_number(*c.target, -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::infinity(), "--target");
    }
  }
  void operator()(const hpsearch::EvaluateCommand& c) const {
    check_number(c.fidelity, 0, 1, "--fidelity");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = hpsearch::fuzz::as_text(data, size);
  std::vector<std::string> args;
  while (!input.empty()) args.emplace_back(hpsearch::fuzz::take_line(input));
  hpsearch::SimCommand command;
  try {
    command = hpsearch::parse_searcher_sim_args(args);
  } catch (const hpsearch::UsageError& e) {
    const std::string_view message = e.what();
    if (!message.starts_with("--") && !message.starts_with("unknown ") &&
        !message.starts_with("unexpected argument '")) {
      broken("a usage error does not start with the option it is about", message);
    }
    return 0;
  }
  std::visit(CheckCommand{}, command);
  return 0;
}
