#pragma once
// Private to runner/: what the store's clients read of an experiment and its trials, one reader
// each: `describe`, `ls`, `trial` and the web UI (runner/src/ui/) answer from these.

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hpsearch::store {

class Store;

/// What `describe --json` prints of experiment `id` (and `ls --json` of each): the store's
/// record (state, reason, pid, times, paths) and the runner's experiment.json, every trial
/// with its global `trial_id`.
[[nodiscard]] nlohmann::json describe_json(const Store& store, std::uint64_t id);

/// A trial's directory in the run directory `run` (run/trials/N-REQUEST8, as the runner names
/// it: its request id's first 8 characters), or empty before the runner made it.
[[nodiscard]] std::filesystem::path trial_directory(const std::filesystem::path& run,
                                                    const std::string& request_id);

/// The trial's metric reports (its metrics.jsonl, a line cut short by a crash skipped), those
/// of `group` only if given, as a JSON array in the order reported.
[[nodiscard]] nlohmann::json trial_metrics(const std::filesystem::path& trial_directory,
                                           const std::optional<std::string>& group);

/// The trial's output.log from byte `from` on, as it is, at most `limit` bytes (a follower
/// asks again from where it ended); nothing if there is none yet.
void copy_trial_log(const std::filesystem::path& trial_directory, std::uint64_t from,
                    std::uint64_t limit, std::ostream& out);

}  // namespace hpsearch::store
