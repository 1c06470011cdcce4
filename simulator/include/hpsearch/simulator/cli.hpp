#pragma once
/// \file
/// The `searcher-sim` command line, as library code so it can be tested without a process.

#include <iosfwd>
#include <string>
#include <vector>

namespace hpsearch {

/// Exit codes of the hpsearch programs.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  ///< the run itself failed
inline constexpr int kExitUsage = 2;    ///< bad command line or bad config: nothing was run

/// Runs `searcher-sim` with `args` (without the program name), reading protocol input from
/// `in`, writing results to `out` and diagnostics to `err` (with a progress bar for long runs
/// when `err_is_terminal`). Returns the exit code.
int run_searcher_sim(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                     std::ostream& err, bool err_is_terminal = false);

}  // namespace hpsearch
