#include "cli_args.hpp"

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <thread>

#include "hpsearch/config/command_line.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/runner/trial_channel.hpp"
#include "store.hpp"

namespace hpsearch::runner_cli {

Parsed parse(const std::vector<std::string>& args, const std::set<std::string>& options,
             const std::set<std::string>& flags, const std::string& repeatable) {
  Parsed parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> value;
    if (!name.starts_with("--")) {
      parsed.positional.push_back(name);
      continue;
    }
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (flags.contains(name)) {
      if (value) throw UsageError(name + " takes no value");
      value = "1";
    } else if (!options.contains(name)) {
      std::set<std::string> all = options;
      all.insert(flags.begin(), flags.end());
      std::string list;
      for (const std::string& o : all) list += (list.empty() ? "" : ", ") + o;
      throw UsageError("unknown option '" + args[i] + "' (options: " + list + ")");
    }
    if (!value) {
      if (i + 1 >= args.size()) throw UsageError(name + ": missing value");
      value = args[++i];
    }
    if (name == repeatable) {
      parsed.repeated.push_back(*value);
      continue;
    }
    if (parsed.values.contains(name)) throw UsageError(name + ": given twice");
    parsed.values[name] = *value;
  }
  return parsed;
}

RunnerOptions runner_options(const Parsed& parsed, bool terminal) {
  RunnerOptions options;
  options.terminal = terminal;
  options.slots = std::max(1U, std::thread::hardware_concurrency());
  if (parsed.values.contains("--slots")) {
    options.slots = parse_count("--slots", parsed.values.at("--slots"), 1, 4096);
  }
  if (parsed.values.contains("--snapshot-every")) {
    options.snapshot_every = parse_count("--snapshot-every", parsed.values.at("--snapshot-every"), 1, 1'000'000);
  }
  if (parsed.values.contains("--pause-seconds")) {
    options.pause_seconds = parse_nonnegative("--pause-seconds", parsed.values.at("--pause-seconds"));
  }
  if (parsed.values.contains("--trial-timeout")) {
    options.trial_timeout = parse_nonnegative("--trial-timeout", parsed.values.at("--trial-timeout"));
  }
  return options;
}

std::set<std::string> with_launch_options(std::set<std::string> options) {
  options.insert({"--launcher", "--partition", "--account", "--time", "--sbatch-arg", "--channel-address",
                  "--shared-dir"});
  return options;
}

LaunchSettings launch_settings(const Parsed& parsed, LaunchSettings settings) {
  const auto given = [&](const char* option) { return parsed.values.contains(option); };
  if (given("--launcher")) {
    settings.launcher = parsed.values.at("--launcher");
    if (settings.launcher != "local" && settings.launcher != "slurm") {
      throw UsageError("--launcher: expected local or slurm, got '" + settings.launcher + "'");
    }
  }
  for (const char* option : {"--partition", "--account", "--time"}) {
    if (given(option) && settings.launcher != "slurm") throw UsageError(std::string(option) + ": only with --launcher slurm");
  }
  if (!parsed.repeated.empty() && settings.launcher != "slurm") {
    throw UsageError("--sbatch-arg: only with --launcher slurm");
  }
  if (given("--partition")) settings.slurm.partition = parsed.values.at("--partition");
  if (given("--account")) settings.slurm.account = parsed.values.at("--account");
  if (given("--time")) settings.slurm.time = parsed.values.at("--time");
  if (!parsed.repeated.empty()) settings.slurm.sbatch_args = parsed.repeated;
  if (given("--shared-dir")) settings.shared_dir = parsed.values.at("--shared-dir");
  if (given("--channel-address")) settings.channel_address = parsed.values.at("--channel-address");
  if (settings.launcher == "slurm" && settings.channel_address.empty()) {
    // Jobs run on other nodes: they reach this one by its name, unless told another interface.
    char host[256] = "";
    ::gethostname(host, sizeof host - 1);
    settings.channel_address = host;
  }
  if (!settings.channel_address.empty()) {
    try {
      (void)parse_tcp_endpoint(settings.channel_address);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--channel-address: ") + e.what());
    }
  }
  return settings;
}

std::unique_ptr<Launcher> launcher_for(const LaunchSettings& settings) {
  try {
    return make_launcher(settings);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

int exit_code(const RunOutcome& outcome) {
  switch (outcome.end) {
    case RunEnd::kCompleted: return 0;
    case RunEnd::kFailed: return 1;
    case RunEnd::kInterrupted: return 128 + outcome.signal;
  }
  return 1;
}

int report_errors(const std::string& command, std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    err << "searcher-run" << (command.starts_with("-") ? "" : " " + command) << ": " << e.what()
        << "\n(see 'searcher-run help')\n";
    return 2;
  } catch (const ConfigError& e) {
    err << e.what() << '\n';
    return 2;
  } catch (const RunnerSetupError& e) {
    err << "searcher-run " << command << ": " << e.what() << '\n';
    return 2;
  } catch (const store::StoreError& e) {
    err << "searcher-run " << command << ": " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    err << "searcher-run " << command << ": " << e.what() << '\n';
    return 1;
  }
}

}  // namespace hpsearch::runner_cli
