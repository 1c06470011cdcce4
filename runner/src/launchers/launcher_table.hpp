#pragma once
// Private to runner/: the launcher table. Each way trials can run is one row: its name
// (`--launcher NAME`, run.json's launch.launcher), its help line, its own options and the
// run.json fields they keep, and its factory. Adding a launcher is one file (its Launcher and
// its row, `NAME_launcher_kind()`) and one row in launcher_table.cpp; the launch options,
// their help, run.json and resume follow from the row.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hpsearch/cli/cli.hpp"
#include "hpsearch/runner/launcher.hpp"

namespace hpsearch {

struct LauncherKind {
  std::string name;
  std::string help;  ///< after "NAME: " under --launcher ('\n' continues the line)
  /// Trials run on other nodes and reach the runner over TCP: the channel address defaults to
  /// this host's name.
  bool remote = false;
  /// Its own options, added to the launch options; giving one with another launcher is a
  /// UsageError ("--time: only with --launcher slurm").
  cli::OptionSet options;
  /// Its run.json fields (an object): `saved`, what a resumed run was started with ({} for a new
  /// one), overridden by the options given.
  std::function<nlohmann::json(const cli::Args& args, nlohmann::json saved)> read_options;
  /// The launcher its run.json fields describe. Throws std::invalid_argument naming what it
  /// refuses, std::runtime_error if it cannot be set up.
  std::function<std::unique_ptr<Launcher>(const nlohmann::json& fields)> make;
};

/// Every launcher kind, in --launcher's help order; the first is the default.
[[nodiscard]] const std::vector<LauncherKind>& launcher_kinds();

/// The kind named; throws std::invalid_argument "expected local or slurm, got 'x'".
[[nodiscard]] const LauncherKind& launcher_kind(const std::string& name);

// The rows, each in its launcher's file.
[[nodiscard]] LauncherKind local_launcher_kind();  // local_launcher.cpp
[[nodiscard]] LauncherKind slurm_launcher_kind();  // slurm_launcher.cpp

}  // namespace hpsearch
