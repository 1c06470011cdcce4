// Asking an experiment's runner to pause or stop (store_control.hpp).
#include "store/store_control.hpp"

#include <csignal>
#include <fstream>

#include "store/store.hpp"

namespace hpsearch::store {

bool request_pause(const Store& store, std::uint64_t id) {
  if (store.signal_runner(id, SIGTERM)) return true;
  const Status status = store.status(id);
  if (status.state == "PAUSED") return false;
  throw StoreError("experiment " + std::to_string(id) + " is " + status.state +
                   ": only an ACTIVE experiment can be paused");
}

KillStart request_kill(const Store& store, std::uint64_t id) {
  const Status before = store.status(id);
  if (before.state == "COMPLETED" || before.state == "ERROR" || before.state == "CANCELED")
    return KillStart::kAlreadyEnded;
  // The mark first: whatever way the runner ends from here, the end is CANCELED.
  std::ofstream(store.directory(id) / "kill_requested") << utc_now() << '\n';
  // The runner reads the mark when the signal arrives and stops every trial at once.
  if (store.signal_runner(id, SIGTERM)) return KillStart::kSignalled;
  finish_kill(store, id);
  return KillStart::kEnded;
}

void finish_kill(const Store& store, std::uint64_t id) {
  // Paused, or its runner died: nothing records the end but this (CANCELED: it is marked).
  if (const Status after = store.status(id);
      !after.alive &&
      (!after.record.contains("ended") || after.record.value("state", "") == "PAUSED")) {
    (void)store.record_end(id, -1);
  }
}

}  // namespace hpsearch::store
