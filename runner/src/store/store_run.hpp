#pragma once
// Private to runner/: running an experiment of the store, attached or detached, with its state
// recorded in state.json.

#include <cstdint>
#include <functional>
#include <iosfwd>

#include "hpsearch/runner/experiment.hpp"
#include "store/store.hpp"

namespace hpsearch::store {

/// What a run does once it holds the experiment's lock: a start or a resume, given the
/// runner options (with the store's trial ids) and the streams to write to; returns the exit code.
using RunBody =
    std::function<int(const RunnerOptions& options, std::ostream& out, std::ostream& err)>;

/// Runs experiment `id` under its lock: state.json says ACTIVE (with the pid), then how it
/// ended. Detached, the run is a double-forked, setsid'd process writing to experiment.log
/// that outlives the caller; this returns 0 once it holds the lock (1 if it could not start).
/// Attached, it returns the run's exit code. `after_start` runs once the run is known to be
/// under way (to print the id).
int run_in_store(Store& store, std::uint64_t id, bool detach, RunnerOptions options,
                 const RunBody& body, const std::function<void()>& after_start, std::ostream& out,
                 std::ostream& err);

}  // namespace hpsearch::store
