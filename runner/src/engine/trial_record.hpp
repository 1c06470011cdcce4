#pragma once
// Private to runner/: what the runner keeps of a trial across launches and runs (saved in
// snapshots, rebuilt by replaying the journal).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hpsearch/searcher/event.hpp"
#include "hpsearch/searcher/request_id.hpp"

namespace hpsearch::runner_detail {

/// A validation the searcher was given.
struct Validation {
  std::uint64_t length = 0;
  double metric = 0;
  nlohmann::json metrics;  ///< every metric the trial reported with it
};

/// The trial's latest checkpoint.
struct Checkpoint {
  std::string path;
  std::uint64_t length = 0;
  std::string storage_id;  ///< in checkpoint storage (the Core API's), or empty for a bare path
};

struct TrialRecord {
  RequestId id;
  std::uint64_t trial_seed = 0;
  nlohmann::json hparams;
  bool created = false;                 ///< the searcher has been told trial_created
  std::optional<std::uint64_t> target;  ///< the outstanding validate_after length
  bool close_requested = false;
  bool closed = false;
  std::optional<ExitedReason> exit_reason;
  std::uint64_t restarts = 0;
  std::optional<Checkpoint> checkpoint;
  /// A clone (PBT's Create with a checkpoint): its parent, and the parent's latest checkpoint
  /// when the clone was created, which it starts from until it has a checkpoint of its own
  /// (none: the parent had none yet, so it starts fresh).
  std::optional<RequestId> parent;
  std::optional<Checkpoint> warm_start;
  /// Every checkpoint in checkpoint storage not yet deleted, oldest first.
  std::vector<Checkpoint> stored;
  std::uint64_t launches = 0;  ///< how many times a process was started for it
  /// The launch that may outlive the runner (a Slurm job id) and its channel token, while it
  /// runs: what a resumed runner reattaches to.
  std::string job;
  std::string job_token;
  std::vector<Validation> validations;
  /// The last failure of a launch: its status and its last lines of output.
  nlohmann::json last_failure;
};

[[nodiscard]] nlohmann::json to_json(const Checkpoint& checkpoint);
/// The journal's "checkpoint" record body: to_json(checkpoint) with the trial's "request_id",
/// written directly in json_line's bytes ({"length":L,"path":P,"request_id":R[,"storage_id":S]}).
[[nodiscard]] std::string checkpoint_record_json(const Checkpoint& checkpoint,
                                                 const RequestId& trial);
[[nodiscard]] Checkpoint checkpoint_from_json(const nlohmann::json& j);
[[nodiscard]] nlohmann::json to_json(const TrialRecord& trial);
/// Throws RunnerError on a bad request id.
[[nodiscard]] TrialRecord trial_record_from_json(const nlohmann::json& j);

}  // namespace hpsearch::runner_detail
