#pragma once
/// \file
/// The command-line layer the programs share. A command declares its options once, each with
/// its help text (OptionSet); the same declaration reads the arguments strictly (Args) and
/// writes the "Options:" part of the help. Args' typed accessors throw UsageError naming the
/// option, the value given and what was expected ("--workers: must be an integer between 1 and
/// 1000000, got '0'"). One set of exit codes, and the progress bar long commands draw.
///
/// searcher-sim is written over it (simulator/src/sim_cli/). To move another program onto it:
/// declare each subcommand's OptionSet next to its help text, replace the hand-written loop by
/// OptionSet::parse and the conversions by Args' accessors, and map UsageError to kExitUsage.

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
/// with an empty name is a heading line in the help.
struct Option {
  std::string name;
  std::string placeholder;  ///< empty for a flag
  std::string help;         ///< '\n' starts a continuation line
};

class Args;

/// The options of one command.
class OptionSet {
 public:
  explicit OptionSet(std::string command) : command_(std::move(command)) {}

  OptionSet& value(std::string name, std::string placeholder, std::string help);
  OptionSet& flag(std::string name, std::string help);
  OptionSet& heading(std::string text);
  /// Appends another set's options (a group several commands share).
  OptionSet& add(const OptionSet& group);
  /// Drops a declared option (a shared one this command does not take).
  OptionSet& remove(const std::string& name);

  /// Reads `--name value`, `--name=value` and bare flags. Throws UsageError for an unknown
  /// option (listing the command's options), a value option without its value, or one given
  /// twice.
  [[nodiscard]] Args parse(const std::vector<std::string>& args) const;

  /// "Options:" and one aligned line (or more) per option, in declaration order.
  [[nodiscard]] std::string help() const;

  [[nodiscard]] const std::vector<Option>& options() const { return options_; }
  [[nodiscard]] const std::string& command() const { return command_; }

 private:
  [[nodiscard]] const Option* find(const std::string& name) const;

  std::string command_;
  std::vector<Option> options_;
};

/// The arguments a command was given, read against its OptionSet.
class Args {
 public:
  [[nodiscard]] bool flag(const std::string& name) const { return flags_.contains(name); }
  [[nodiscard]] bool has(const std::string& name) const { return values_.contains(name); }
  [[nodiscard]] std::optional<std::string> value(const std::string& name) const;
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
  [[nodiscard]] std::optional<T> choice(const std::string& name,
                                        const std::vector<std::pair<std::string, T>>& choices) const {
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
  std::set<std::string> flags_;
  std::map<std::string, std::string> placeholders_;
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
