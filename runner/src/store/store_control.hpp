#pragma once
// Private to runner/: asking an experiment's runner to pause or stop, the one code `searcher-run
// pause|kill` and the web UI's POST /api/v1/experiments/ID/pause|kill call. Neither waits for
// the runner to exit: the command does, the web UI answers at once (as Determined's does).

#include <cstdint>

namespace hpsearch::store {

class Store;

/// Pauses experiment `id` as Ctrl-C would: its runner gets SIGTERM. True if a runner was
/// signalled, false if the experiment is PAUSED already; a StoreError naming the id and its
/// state for anything else (only an ACTIVE experiment can be paused).
bool request_pause(const Store& store, std::uint64_t id);

enum class KillStart {
  kAlreadyEnded,  ///< COMPLETED, ERROR or CANCELED: nothing done
  kSignalled,     ///< marked kill_requested; its runner got SIGTERM twice and ends CANCELED
  kEnded,         ///< marked and no runner ran it (paused, or its runner died): recorded CANCELED
};
/// Cancels experiment `id`: kill_requested is written first (whatever way its runner ends from
/// there, the end is CANCELED); a running one's runner gets SIGTERM twice (the second stops its
/// trials at once); one nobody runs has its end recorded now.
KillStart request_kill(const Store& store, std::uint64_t id);

/// After a signalled runner exited (or died): records the end CANCELED if it did not.
void finish_kill(const Store& store, std::uint64_t id);

}  // namespace hpsearch::store
