#pragma once
// Private to runner/: what another process may learn of a run directory (`searcher-run run
// --dir`) without touching it: whether a runner holds it, and the error for a directory that
// holds no run.

#include <filesystem>
#include <optional>

#include "hpsearch/runner/errors.hpp"

namespace hpsearch::runner_detail {

/// The error for a directory without run.json given where an experiment's is expected: it says
/// whether the path is there at all.
[[nodiscard]] RunnerSetupError no_experiment_in(const std::filesystem::path& directory);

/// The process holding DIR/runner.lock, that is the runner running the experiment now (its
/// pid), read from the kernel's table of locks (/proc/locks): the lock is only looked at, never
/// taken, so a live run is not disturbed. None if no process holds it, or if the table cannot
/// be read.
[[nodiscard]] std::optional<long> runner_lock_holder(const std::filesystem::path& directory);

}  // namespace hpsearch::runner_detail
