#pragma once
// searcher-sim's subcommands (private to the simulator library): one file each, over the CLI
// library (hpsearch/cli/cli.hpp). Each declares its options with their help text, reads them
// into its command (parse_*: no file touched) and runs it (run: the library does the work,
// the command prints or writes what it returns). cli.cpp dispatches.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpsearch/cli/cli.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/cli.hpp"
#include "hpsearch/simulator/workload.hpp"

namespace hpsearch::sim_cli {

/// Where a command reads and writes.
struct Io {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  bool err_is_terminal = false;
};

/// Help and version texts (cli.cpp).
int run(const TextCommand& command, const Io& io);

// ---- one file each ------------------------------------------------------------------------------

[[nodiscard]] std::string drive_help();
[[nodiscard]] SimCommand parse_drive(const std::vector<std::string>& args);
int run(const DriveCommand& command, const Io& io);

[[nodiscard]] std::string preview_help();
[[nodiscard]] SimCommand parse_preview(const std::vector<std::string>& args);
int run(const PreviewCommand& command, const Io& io);

[[nodiscard]] std::string run_help();
[[nodiscard]] SimCommand parse_run(const std::vector<std::string>& args);
int run(const RunCommand& command, const Io& io);

[[nodiscard]] std::string compare_help();
[[nodiscard]] SimCommand parse_compare(std::vector<std::string> args);
int run(const CompareCommand& command, const Io& io);

[[nodiscard]] std::string evaluate_help();
[[nodiscard]] SimCommand parse_evaluate(const std::vector<std::string>& args);
int run(const EvaluateCommand& command, const Io& io);

// ---- shared by several (common.cpp) -------------------------------------------------------------

/// The cost and fault options of run, compare and preview --workers (with --noise-seed, which
/// compare drops).
[[nodiscard]] const cli::OptionSet& cost_options();

/// Workers (--workers, required), the cost model and faults.
[[nodiscard]] RunOptions run_options(const cli::Args& args);

/// --workload NAME (required) and --data-dir.
[[nodiscard]] WorkloadChoice workload_choice(const cli::Args& args);

/// The workload, or a UsageError "--workload: unknown workload ...".
[[nodiscard]] std::unique_ptr<Workload> make_chosen_workload(const WorkloadChoice& choice);

/// A config read from its file, with the search seed (--seed, else its experiment_seed, else 0).
struct Loaded {
  ExperimentConfig config;
  std::uint32_t seed = 0;
};
[[nodiscard]] Loaded load(const std::string& path, std::optional<std::uint32_t> seed);

/// Creates --out DIR (UsageError if it cannot).
[[nodiscard]] std::filesystem::path output_directory(const std::string& dir);

/// Writes one output file, or throws std::runtime_error naming it.
template <class Write>
void write_file(const std::filesystem::path& path, Write write) {
  std::ofstream file(path);
  if (file) write(file);
  file.close();
  if (!file) throw std::runtime_error("cannot write '" + path.string() + "'");
}

}  // namespace hpsearch::sim_cli
