#pragma once
// Private to runner/: `searcher-run`'s experiment-store commands, one source file each
// (create.cpp, ls.cpp, ...). Each takes the arguments after its name and returns the exit code;
// errors are thrown (UsageError, ConfigError, store::StoreError) for cli.cpp to report.

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hpsearch::store {

class Store;

int create_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal);
int ls_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal);
int describe_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal);
int pause_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal);
int activate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal);
int kill_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal);
int delete_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal);

/// What `describe --json` prints of experiment `id` (and `ls --json` of each): the store's
/// record (state, reason, pid, times, paths) and the runner's experiment.json, every trial
/// with its global `trial_id`.
[[nodiscard]] nlohmann::json describe_json(const Store& store, std::uint64_t id);

/// `pause` and `kill`'s arguments: ID [--timeout S] (how long to wait for the runner to exit;
/// default 120 s).
struct StopRequest {
  std::uint64_t id = 0;
  double timeout = 120;
};
[[nodiscard]] StopRequest parse_stop_request(const std::vector<std::string>& args, const std::string& command);

/// A value in a table: strings as they are, null as "-", anything else as JSON.
[[nodiscard]] std::string text_of(const nlohmann::json& value);

}  // namespace hpsearch::store
