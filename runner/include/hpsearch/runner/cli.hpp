#pragma once
/// \file
/// The `searcher-run` command line, as library code so it can be tested without a process.

#include <iosfwd>
#include <string>
#include <vector>

namespace hpsearch {

/// Runs `searcher-run` with `args` (without the program name). Exit codes: 0 the search
/// completed, 1 it failed or the runner could not go on, 2 bad command line or config,
/// 128 + signal when SIGINT or SIGTERM paused it (resume continues).
int run_searcher_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                     bool err_is_terminal = false);

}  // namespace hpsearch
