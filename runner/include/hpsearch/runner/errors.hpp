#pragma once
/// \file
/// The runner's errors, at the bottom of its rooms: every part (channel, launchers, engine,
/// store, commands) may throw them without including anything above it.

#include <stdexcept>

namespace hpsearch {

/// The experiment cannot go on (a journal that does not replay, a file that cannot be written).
class RunnerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The experiment cannot start: nothing was run (bad directory, no entrypoint).
class RunnerSetupError : public RunnerError {
 public:
  using RunnerError::RunnerError;
};

}  // namespace hpsearch
