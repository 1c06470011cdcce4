#pragma once
/// \file
/// The command-line layer the programs share. A command declares its options once, each with
/// its help text (OptionSet); the same declaration reads the arguments strictly (Args) and
/// writes the "Options:" part of the help. Args' typed accessors throw UsageError naming the
/// option, the value given and what was expected ("--workers: must be an integer between 1 and
/// 1000000, got '0'"). One set of exit codes, and the progress bar long commands draw.
///
/// searcher-sim (simulator/src/sim_cli/) and searcher-run (runner/src/*_command.cpp) are
/// written over it: each subcommand declares its OptionSet next to its help text, reads its
/// arguments with OptionSet::parse and Args' accessors, and a UsageError exits kExitUsage.

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hpsearch/config/command_line.hpp"

namespace hpsearch::cli {

/// Exit codes of the hpsearch programs.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  ///< the run itself failed
inline constexpr int kExitUsage = 2;    ///< bad command line or bad config: nothing was run

/// One declared option: `--name PLACEHOLDER` takes a value, `--name` alone is a flag. An entry
/// with an empty name is a heading line in the help. A positional argument has no name, only
/// its placeholder (OptionSet::argument).
struct Option {
  std::string name;
  std::string placeholder;  ///< empty for a flag
  std::string help;         ///< '\n' starts a continuation line
  bool repeatable = false;  ///< may be given many times (Args::all)
};

/// Rows of two aligned columns, as the help prints them: each head indented by two spaces,
/// its text two columns after the widest head of at most `max_head` characters (or after
/// `min_width`, if wider: lists printed apart that should line up); a longer head has its text
/// on the lines below. A text's '\n' starts a continuation line.
[[nodiscard]] std::string columns(const std::vector<std::pair<std::string, std::string>>& rows,
                                  std::size_t max_head = 24, std::size_t min_width = 0);

class Args;

/// The options of one command.
class OptionSet {
 public:
  explicit OptionSet(std::string command) : command_(std::move(command)) {}

  OptionSet& value(std::string name, std::string placeholder, std::string help);
  OptionSet& flag(std::string name, std::string help);
  /// A value option that may be given many times (`--sbatch-arg A --sbatch-arg B`); Args::all
  /// reads every value, in order.
  OptionSet& repeatable(std::string name, std::string placeholder, std::string help);
  /// A positional argument (`searcher-run delete ID`), in declaration order; Args::argument
  /// reads it, and says it is required when it was not given.
  OptionSet& argument(std::string placeholder, std::string help);
  OptionSet& heading(std::string text);
  /// Appends another set's options and arguments (a group several commands share).
  OptionSet& add(const OptionSet& group);
  /// Drops a declared option (a shared one this command does not take).
  OptionSet& remove(const std::string& name);

  /// Reads `--name value`, `--name=value`, bare flags and positional arguments (anything not
  /// starting with '-', and "-" itself). Throws UsageError for an unknown option (listing the
  /// command's options), a flag given a value, a value option without its value, one given
  /// twice (unless repeatable), or more positional arguments than declared.
  [[nodiscard]] Args parse(const std::vector<std::string>& args) const;

  /// "Arguments:" (if any are declared), then `title` and one aligned line (or more) per
  /// option, in declaration order.
  [[nodiscard]] std::string help(const std::string& title = "Options:") const;

  [[nodiscard]] const std::vector<Option>& options() const { return options_; }
  [[nodiscard]] const std::vector<Option>& arguments() const { return arguments_; }
  [[nodiscard]] const std::string& command() const { return command_; }

 private:
  [[nodiscard]] const Option* find(const std::string& name) const;

  std::string command_;
  std::vector<Option> options_;
  std::vector<Option> arguments_;
};

/// The arguments a command was given, read against its OptionSet.
class Args {
 public:
  [[nodiscard]] bool flag(const std::string& name) const { return flags_.contains(name); }
  /// Whether a value option (repeatable or not) was given.
  [[nodiscard]] bool has(const std::string& name) const {
    return values_.contains(name) || repeated_.contains(name);
  }
  /// The value of a (not repeatable) value option, if given.
  [[nodiscard]] std::optional<std::string> value(const std::string& name) const;
  /// Every value of a repeatable option, in the order given (empty if none).
  [[nodiscard]] std::vector<std::string> all(const std::string& name) const;
  /// The positional argument declared as `placeholder`; throws UsageError "ID is required
  /// (the experiment's id)" when it was not given.
  [[nodiscard]] std::string argument(const std::string& placeholder) const;
  /// The value of a required option; throws UsageError "--config FILE is required".
  [[nodiscard]] std::string required(const std::string& name) const;

  /// An integer in [low, high], if given.
  [[nodiscard]] std::optional<std::uint64_t> count(const std::string& name, std::uint64_t low,
                                                   std::uint64_t high) const;
  /// A seed in [0, 2^32 - 1], if given.
  [[nodiscard]] std::optional<std::uint32_t> seed(const std::string& name) const;
  /// A finite number, if given.
  [[nodiscard]] std::optional<double> number(const std::string& name) const;
  /// A finite number >= 0, if given.
  [[nodiscard]] std::optional<double> nonnegative(const std::string& name) const;
  /// A probability in [0, 1], if given.
  [[nodiscard]] std::optional<double> probability(const std::string& name) const;
  /// One of the named choices, if given.
  template <class T>
  [[nodiscard]] std::optional<T> choice(
      const std::string& name, const std::vector<std::pair<std::string, T>>& choices) const {
    const std::optional<std::string> text = value(name);
    if (!text) return std::nullopt;
    std::string names;
    for (const auto& [choice_name, v] : choices) {
      if (choice_name == *text) return v;
      names += (names.empty() ? "" : ", ") + choice_name;
    }
    throw UsageError(name + ": must be one of " + names + ", got '" + *text + "'");
  }
  /// A comma-separated list (empty if not given).
  [[nodiscard]] std::vector<std::string> list(const std::string& name) const;

 private:
  friend class OptionSet;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> repeated_;
  std::set<std::string> flags_;
  std::map<std::string, std::string> placeholders_;
  std::map<std::string, std::string> arguments_;      ///< placeholder -> the value given
  std::map<std::string, std::string> argument_help_;  ///< placeholder -> its help (for the error)
};

/// A one-line bar redrawn in place on a terminal ("simulating [#####.....] 42%  virtual time
/// 310 s"); draws nothing when disabled (not a terminal). Clears its line when destroyed.
class ProgressBar {
 public:
  ProgressBar(std::ostream& err, bool enabled, std::string label)
      : err_(err), enabled_(enabled), label_(std::move(label)) {}
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  [[nodiscard]] bool enabled() const { return enabled_; }
  /// Redraws if the whole percentage changed; `now` > 0 adds the virtual time.
  void draw(double progress, double now);

 private:
  std::ostream& err_;
  bool enabled_;
  std::string label_;
  bool drawn_ = false;
  int last_percent_ = -1;
};

}  // namespace hpsearch::cli
