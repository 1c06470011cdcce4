#pragma once
// Private to runner/: `searcher-run`'s experiment-store commands, one source file each
// (create_command.cpp, ls_command.cpp, ...). Each declares its runner_cli::Command (options
// with their help, and the function that runs it, which returns the exit code); errors are
// thrown (UsageError, ConfigError, store::StoreError) for cli.cpp to report.

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands/cli_args.hpp"

namespace hpsearch::store {

class Store;

const runner_cli::Command& create_command();
const runner_cli::Command& ls_command();
const runner_cli::Command& describe_command();
const runner_cli::Command& pause_command();
const runner_cli::Command& activate_command();
const runner_cli::Command& kill_command();
const runner_cli::Command& delete_command();
const runner_cli::Command& trial_command();
const runner_cli::Command& checkpoint_command();
const runner_cli::Command& model_command();
const runner_cli::Command& ui_command();        // ui_command.cpp: the web UI
const runner_cli::Command& searcher_command();  // searcher_command.cpp: a custom search's client

/// The JSON value of option `name` (model_command.cpp): an object if `object`, else an array of
/// strings; nothing given is an empty one. Anything else is a UsageError naming the option,
/// the value and what was expected.
[[nodiscard]] nlohmann::json json_option(const cli::Args& args, const std::string& name,
                                         bool object);

/// `pause` and `kill`'s arguments: ID [--timeout S] (how long to wait for the runner to exit;
/// default 120 s), declared once (pause_command.cpp).
struct StopRequest {
  std::uint64_t id = 0;
  double timeout = 120;
};
[[nodiscard]] const cli::OptionSet& stop_option_group();
[[nodiscard]] StopRequest stop_request(const cli::Args& args);

/// A value in a table: strings as they are (control characters escaped), null as "-", anything
/// else as JSON.
[[nodiscard]] std::string text_of(const nlohmann::json& value);

/// `text` safe to print to a terminal: control characters (C0, DEL and the C1 range U+0080 to
/// U+009F, which include ESC and CSI) shown as \xHH or \u00HH; everything else as it is. A name
/// in a config must not be able to move the cursor, recolour or retitle the user's terminal.
[[nodiscard]] std::string printable(const std::string& text);

}  // namespace hpsearch::store
