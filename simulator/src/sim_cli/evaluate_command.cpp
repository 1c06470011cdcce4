// searcher-sim evaluate: a workload's value at one configuration.
#include <algorithm>
#include <cstdio>
#include <ostream>

#include "commands.hpp"

namespace hpsearch::sim_cli {
namespace {

constexpr const char* kAbout =
    R"(searcher-sim evaluate --workload NAME --point V1,V2,... [--fidelity Z]

Prints a workload's noise-free value at one configuration, to check it or to reimplement it
elsewhere: the values are the workload's inputs in the order 'searcher-sim run' lists them
(a wrong count shows the list), numbers or, for a table's categorical inputs, choice names.
Fidelity Z in [0, 1] (default 1) is length / max_length. Tables print the value of the
nearest listed configuration. Output: the value with 17 significant digits.

)";

const cli::OptionSet& options() {
  static const cli::OptionSet set = [] {
    cli::OptionSet o("evaluate");
    o.value("--workload", "NAME", "see 'searcher-sim help run'")
        .value("--point", "V1,V2,...", "the configuration, required")
        .value("--fidelity", "Z", "default 1")
        .value("--data-dir", "DIR", "where the rbv2 tables are")
        .flag("--help", "this text");
    return o;
  }();
  return set;
}

}  // namespace

std::string evaluate_help() {
  return kAbout + options().help();
}

SimCommand parse_evaluate(const std::vector<std::string>& args) {
  const cli::Args parsed = options().parse(args);
  if (parsed.flag("--help")) return TextCommand{evaluate_help()};
  EvaluateCommand command;
  command.workload = workload_choice(parsed);
  (void)parsed.required("--point");
  command.point = parsed.list("--point");
  if (const std::optional<double> fidelity = parsed.nonnegative("--fidelity")) {
    if (*fidelity > 1) {
      throw UsageError("--fidelity: must be in [0, 1], got '" + *parsed.value("--fidelity") + "'");
    }
    command.fidelity = *fidelity;
  }
  return command;
}

int run(const EvaluateCommand& command, const Io& io) {
  const std::unique_ptr<Workload> workload = make_chosen_workload(command.workload);
  const std::vector<WorkloadParameter> inputs = workload->parameters();
  const std::vector<std::string>& items = command.point;
  std::string names;
  for (const WorkloadParameter& p : inputs) names += (names.empty() ? "" : ", ") + p.name;
  if (items.size() != inputs.size()) {
    throw UsageError("--point: workload '" + std::string(workload->name()) + "' reads " +
                     std::to_string(inputs.size()) + " values (" + names + "), got " +
                     std::to_string(items.size()));
  }
  std::vector<double> x;
  for (std::size_t j = 0; j < items.size(); ++j) {
    const WorkloadParameter& p = inputs[j];
    if (!p.choices.empty()) {
      const auto choice = std::find(p.choices.begin(), p.choices.end(), items[j]);
      if (choice == p.choices.end()) {
        throw UsageError("--point: " + p.name + " must be one of its choices, got '" + items[j] +
                         "'");
      }
      x.push_back(static_cast<double>(choice - p.choices.begin()));  // a table reads the index
    } else {
      const std::optional<double> v = parse_finite_number(items[j]);
      if (!v) throw UsageError("--point: " + p.name + " must be a number, got '" + items[j] + "'");
      x.push_back(*v);
    }
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", workload->value(workload->locate(x), command.fidelity));
  io.out << text << '\n';
  return cli::kExitOk;
}

}  // namespace hpsearch::sim_cli
