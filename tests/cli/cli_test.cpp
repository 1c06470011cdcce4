// The CLI library (cli/): declared options, strict parsing, typed usage errors, help, the bar.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "hpsearch/cli/cli.hpp"

namespace {

using hpsearch::UsageError;
using hpsearch::cli::Args;
using hpsearch::cli::OptionSet;

OptionSet example() {
  OptionSet o("demo");
  o.value("--config", "FILE", "experiment config, required")
      .value("--workers", "N", "workers")
      .flag("--json", "print JSON")
      .heading("Cost:")
      .value("--metric", "constant|random|trial-id", "what every validation reports:\nsecond line")
      .value("--rate", "P", "a probability");
  return o;
}

std::string error_of(const OptionSet& options, const std::vector<std::string>& args) {
  try {
    (void)options.parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("cli: values as --name value or --name=value, bare flags") {
  const Args a = example().parse({"--config", "x.yaml", "--workers=4", "--json"});
  CHECK(a.value("--config") == "x.yaml");
  CHECK(a.count("--workers", 1, 10) == 4u);
  CHECK(a.flag("--json"));
  CHECK_FALSE(a.has("--rate"));
  CHECK_FALSE(a.probability("--rate").has_value());
  CHECK(a.required("--config") == "x.yaml");
}

TEST_CASE("cli: usage errors name the option, the value and what was expected") {
  const OptionSet o = example();
  CHECK(
      error_of(o, {"--confg", "x"}) ==
      "unknown option '--confg' (options of demo: --config, --metric, --rate, --workers, --json)");
  CHECK(error_of(o, {"--json=1"}) == "--json: takes no value, got '--json=1'");
  CHECK(error_of(o, {"--workers"}) == "--workers: missing value");
  CHECK(error_of(o, {"--workers", "1", "--workers", "2"}) == "--workers: given twice");
  const Args a = o.parse({"--workers", "0", "--rate", "1.5", "--metric", "best"});
  CHECK_THROWS_WITH_AS((void)a.count("--workers", 1, 10),
                       "--workers: must be an integer between 1 and 10, got '0'", UsageError);
  CHECK_THROWS_WITH_AS((void)a.probability("--rate"),
                       "--rate: must be a probability in [0, 1], got '1.5'", UsageError);
  CHECK_THROWS_WITH_AS((void)a.choice<int>("--metric", {{"constant", 0}, {"random", 1}}),
                       "--metric: must be one of constant, random, got 'best'", UsageError);
  CHECK_THROWS_WITH_AS((void)a.required("--config"), "--config FILE is required", UsageError);
  const Args b = o.parse({"--rate", "-1", "--workers", "4294967296"});
  CHECK_THROWS_WITH_AS((void)b.nonnegative("--rate"), "--rate: must be a number >= 0, got '-1'",
                       UsageError);
  CHECK_THROWS_WITH_AS((void)b.seed("--workers"),
                       "--workers: must be an integer between 0 and 4294967295, got '4294967296'",
                       UsageError);
  CHECK_THROWS_WITH_AS((void)o.parse({"--rate", "inf"}).number("--rate"),
                       "--rate: must be a number, got 'inf'", UsageError);
}

TEST_CASE("cli: lists, choices, groups") {
  OptionSet o("demo");
  o.add(example()).remove("--rate").value("--times", "T1,T2", "times");
  CHECK(o.parse({"--times", "1,,2"}).list("--times") == std::vector<std::string>{"1", "", "2"});
  CHECK(o.parse({}).list("--times").empty());
  CHECK(o.parse({"--metric", "random"}).choice<int>("--metric", {{"constant", 0}, {"random", 1}}) ==
        1);
  CHECK(error_of(o, {"--rate", "1"}).starts_with("unknown option '--rate'"));
}

TEST_CASE("cli: the help lists every option in declaration order, aligned") {
  const std::string help = example().help();
  CHECK(help ==
        "Options:\n"
        "  --config FILE  experiment config, required\n"
        "  --workers N    workers\n"
        "  --json         print JSON\n"
        "\n"
        "Cost:\n"
        "  --metric constant|random|trial-id\n"  // longer than the column: help below
        "                 what every validation reports:\n"
        "                 second line\n"
        "  --rate P       a probability\n");
}

TEST_CASE("cli: a repeatable option keeps every value in order, others are given once") {
  OptionSet o("launch");
  o.repeatable("--sbatch-arg", "ARG", "one more sbatch option (repeat it)")
      .value("--time", "T", "limit");
  const Args a = o.parse({"--sbatch-arg", "--mem=4G", "--time", "1:00", "--sbatch-arg=--qos=low",
                          "--sbatch-arg", "x"});
  CHECK(a.all("--sbatch-arg") == std::vector<std::string>{"--mem=4G", "--qos=low", "x"});
  CHECK(a.has("--sbatch-arg"));
  CHECK_FALSE(a.value("--sbatch-arg").has_value());  // a repeatable option is read with all()
  const Args none = o.parse({"--time", "2:00"});
  CHECK(none.all("--sbatch-arg").empty());
  CHECK_FALSE(none.has("--sbatch-arg"));
  CHECK(error_of(o, {"--time", "1", "--time", "2"}) == "--time: given twice");
  CHECK(error_of(o, {"--sbatch-arg"}) == "--sbatch-arg: missing value");
}

TEST_CASE("cli: positional arguments, in declaration order, required when read") {
  OptionSet o("pause");
  o.argument("ID", "the experiment's id")
      .value("--timeout", "S", "seconds to wait")
      .flag("--json", "JSON");
  const Args a = o.parse({"--timeout", "5", "7", "--json"});
  CHECK(a.argument("ID") == "7");
  CHECK(a.nonnegative("--timeout") == 5.0);
  CHECK(a.flag("--json"));
  CHECK(o.parse({"-"}).argument("ID") == "-");  // "-" is an argument (stdin, by convention)
  // Not given: parsing succeeds (so `pause --help` works); reading it says what is missing.
  const Args missing = o.parse({"--json"});
  CHECK_THROWS_WITH_AS((void)missing.argument("ID"), "ID is required (the experiment's id)",
                       UsageError);
  CHECK(error_of(o, {"7", "8"}) == "unexpected argument '8' (pause takes ID)");
  CHECK(
      error_of(o, {"-7"}).starts_with("unknown option '-7' (options of pause: --timeout, --json)"));
  OptionSet none("ls");
  none.flag("--json", "JSON");
  CHECK(error_of(none, {"x"}) == "unexpected argument 'x' (ls takes no argument, only options)");
  OptionSet two("copy");
  two.argument("FROM", "source").argument("TO", "target");
  const Args b = two.parse({"a", "b"});
  CHECK(b.argument("FROM") == "a");
  CHECK(b.argument("TO") == "b");
  CHECK(error_of(two, {"a", "b", "c"}) == "unexpected argument 'c' (copy takes FROM TO)");
}

TEST_CASE("cli: the help lists arguments first, a shared group's help takes its own title") {
  OptionSet o("resume");
  o.argument("DIR", "the experiment directory")
      .value("--slots", "N", "trials at once")
      .flag("--help", "this text");
  CHECK(o.help() ==
        "Arguments:\n"
        "  DIR  the experiment directory\n"
        "\n"
        "Options:\n"
        "  --slots N  trials at once\n"
        "  --help     this text\n");
  OptionSet group("run options");
  group.value("--slots", "N", "trials at once");
  CHECK(group.help("Run options:") == "Run options:\n  --slots N  trials at once\n");
  CHECK(hpsearch::cli::columns({{"a", "one\ntwo"}, {"long-head", "three"}}, 4) ==
        "  a  one\n"
        "     two\n"
        "  long-head\n"  // longer than 4: its text below, in the column of the others
        "     three\n");
  // Apart but lined up: at least min_width; a head without text ends its line.
  CHECK(hpsearch::cli::columns({{"ab", "x"}, {"-v", ""}}, 24, 6) == "  ab      x\n  -v\n");
}

TEST_CASE("cli: the progress bar draws on a terminal only, once per percent, and clears") {
  std::ostringstream quiet;
  {
    hpsearch::cli::ProgressBar bar(quiet, false, "x");
    bar.draw(0.5, 10);
  }
  CHECK(quiet.str().empty());
  std::ostringstream drawn;
  {
    hpsearch::cli::ProgressBar bar(drawn, true, "simulating");
    bar.draw(0.5, 12.7);
    bar.draw(0.501, 13);  // same percent: not redrawn
  }
  CHECK(drawn.str() ==
        "\rsimulating [###############...............] 50%  virtual time 12 s\r\033[K");
}
