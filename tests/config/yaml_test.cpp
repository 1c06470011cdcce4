// How a config file is read (issue 10): as Determined's CLI reads it, with ruamel.yaml's safe
// loader and YAML 1.2 rules (docs/config.md, "How the file is read"). Every case that could be
// misread is either read as Determined reads it or refused with file:line:col; the expected
// values and messages below follow from those rules, worked out by hand.
#include <doctest/doctest.h>

#include "hpsearch/config/config.hpp"
#include "support/parse_config_text.hpp"

using namespace hpsearch;

namespace {
using testing::parse;

#define CHECK_CONFIG_ERROR(text, message) \
  CHECK_THROWS_WITH_AS((void)parse(text), message, ConfigError)
// For a message built at run time (doctest copies a const char*).
#define HPSEARCH_CHECK_CONFIG_ERROR_TEXT(text, message) \
  CHECK_THROWS_WITH_AS((void)parse(text), std::string(message).c_str(), ConfigError)

const std::string kSearcher =
    "searcher: {name: random, metric: loss, max_trials: 4, max_length: 10}\n";

// The value the sampler sees for a const hyperparameter written as `x: TEXT`.
nlohmann::json const_value(const std::string& text) {
  const ExperimentConfig c = parse(kSearcher + "hyperparameters:\n  x: " + text + "\n");
  REQUIRE(c.hyperparameters.entries().size() == 1);
  return std::get<ConstHp>(c.hyperparameters.entries()[0].value).value;
}
}  // namespace

TEST_CASE("yaml: merge keys, as hyperparameter templates use them") {
  const ExperimentConfig c = parse(kSearcher + R"(hyperparameters:
  d: &d {type: double, minval: 0.1, maxval: 1.0}
  d2: {<<: *d, maxval: 0.5}
)");
  REQUIRE(c.hyperparameters.entries().size() == 2);
  CHECK(std::get<DoubleHp>(c.hyperparameters.entries()[0].value) ==
        DoubleHp{0.1, 1.0, std::nullopt});
  CHECK(std::get<DoubleHp>(c.hyperparameters.entries()[1].value) ==
        DoubleHp{0.1, 0.5, std::nullopt});
}

TEST_CASE("yaml: merge keys in the searcher section, and lists of maps (earlier maps win)") {
  // `data` is free-form in Determined's configs, a natural home for anchors.
  const ExperimentConfig c = parse(R"(data:
  base: &base {name: async_halving, metric: loss, num_rungs: 2}
  more: &more {max_trials: 8, num_rungs: 3, divisor: 3}
searcher:
  <<: [*base, *more]
  max_length: 90
)");
  // num_rungs comes from base (the earlier map), divisor and max_trials from more.
  CHECK(std::get<AshaConfig>(c.searcher.method) ==
        AshaConfig{.max_length = 90, .max_trials = 8, .num_rungs = 2, .divisor = 3});
  // The map's own keys win over merged ones.
  const ExperimentConfig own = parse(R"(data:
  base: &base {name: random, metric: loss, max_trials: 4, max_length: 10}
searcher: {<<: *base, max_trials: 7}
)");
  CHECK(std::get<RandomConfig>(own.searcher.method).max_trials == 7);
  CHECK(std::get<RandomConfig>(own.searcher.method).max_length == 10);
}

TEST_CASE("yaml: what a merge key cannot take") {
  CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  d2: {<<: 5, maxval: 0.5}\n",
                     "exp.yaml:3:12: hyperparameters.d2.<<: the merge key '<<' takes a map or a "
                     "list of maps, got a scalar");
  CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  d: &d {a: 1}\n  d2: {<<: [*d, 3]}\n",
                     "exp.yaml:4:17: hyperparameters.d2.<<: the merge key '<<' takes a map or a "
                     "list of maps, got a scalar in the list");
  CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  d2: {<<: {a: 1}, <<: {b: 2}}\n",
                     "exp.yaml:3:20: hyperparameters.d2.<<: a map takes one merge key; merge "
                     "several maps with a list: <<: [*a, *b]");
  // A quoted "<<" is an ordinary key.
  CHECK(parse(kSearcher + "hyperparameters:\n  d2: {\"<<\": 1}\n")
            .hyperparameters.entries()[0]
            .name == "d2");
}

TEST_CASE("yaml: integers in every form ruamel's YAML 1.2 resolver reads") {
  CHECK(const_value("1_000") == 1000);
  CHECK(const_value("0x10") == 16);
  CHECK(const_value("0o17") == 15);
  CHECK(const_value("017") == 17);  // YAML 1.2: a leading zero is not octal
  CHECK(const_value("0b101") == 5);
  CHECK(const_value("+5") == 5);
  CHECK(const_value("-0x10") == -16);
  CHECK(const_value("9223372036854775807") == std::numeric_limits<std::int64_t>::max());
  CHECK(const_value("-9223372036854775808") == std::numeric_limits<std::int64_t>::min());
  // Beyond 64 bits: a JSON number, as Go decodes it.
  CHECK(const_value("18446744073709551616").get<double>() == 18446744073709551616.0);
  // In a field that needs an integer.
  const ExperimentConfig c =
      parse("searcher: {name: random, metric: loss, max_trials: 0x10, max_length: 1_000}\n");
  CHECK(std::get<RandomConfig>(c.searcher.method) ==
        RandomConfig{.max_length = 1000, .max_trials = 16, .max_concurrent_trials = 16});
  // Not integers: strings (a name or a quoted number stays a string).
  CHECK(const_value("0x") == "0x");
  CHECK(const_value("_1") == "_1");
  CHECK(const_value("'12'") == "12");
  CHECK(const_value("1:30") == "1:30");  // YAML 1.1's sexagesimal is gone in 1.2
}

TEST_CASE("yaml: floats, booleans and null as YAML 1.2 reads them") {
  CHECK(const_value("1e-3").get<double>() == 0.001);  // a string in YAML 1.1 (PyYAML)
  CHECK(const_value("1_000.5").get<double>() == 1000.5);
  CHECK(const_value(".5").get<double>() == 0.5);
  CHECK(const_value("1.").get<double>() == 1.0);
  CHECK(const_value("-.5e-3").get<double>() == -0.0005);
  CHECK(const_value(".5e3") == ".5e3");  // ruamel's pattern wants a signed exponent after ".5"
  CHECK(const_value("true") == true);
  CHECK(const_value("FALSE") == false);
  CHECK(const_value("yes") == "yes");  // a boolean only in YAML 1.1
  CHECK(const_value("on") == "on");
  CHECK(const_value("~").is_null());
  CHECK(const_value("Null").is_null());
  CHECK(const_value("!!str 12") == "12");
  CHECK(const_value("!!int '12'") == 12);
  CHECK(const_value("!!float 1") == 1.0);
  CHECK(const_value("!!bool yes") == true);
  CHECK_CONFIG_ERROR(
      "searcher: {name: random, metric: loss, max_trials: 4, max_length: 10, "
      "smaller_is_better: yes}\n",
      "exp.yaml:1:90: searcher.smaller_is_better: must be true or false, got 'yes'");
  CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  x: .inf\n",
                     "exp.yaml:3:6: hyperparameters.x: must be a finite number (JSON has no "
                     "infinity or NaN), got .inf");
}

TEST_CASE("yaml: keys are named as Determined sends them, in JSON") {
  const ExperimentConfig c =
      parse(kSearcher + "hyperparameters:\n  0x10: 1\n  true: 2\n  1e3: 3\n");
  const auto& entries = c.hyperparameters.entries();  // sorted by name
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].name == "1000.0");
  CHECK(entries[1].name == "16");
  CHECK(entries[2].name == "true");
  CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  0x10: 1\n  16: 2\n",
                     "exp.yaml:4:3: hyperparameters.16: duplicate key");
}

TEST_CASE("yaml: what cannot be read faithfully is refused with its location") {
  SUBCASE("a recursive alias (it used to crash the program)") {
    CHECK_CONFIG_ERROR(kSearcher + "hyperparameters: &a {x: *a}\n",
                       "exp.yaml:2:18: hyperparameters.x: this alias refers to a value that "
                       "contains it (a recursive alias); a config must be a tree, as JSON is");
    CHECK_CONFIG_ERROR(kSearcher + "hyperparameters: &a {x: {<<: *a}}\n",
                       "exp.yaml:2:18: hyperparameters.x.<<: this alias refers to a value that "
                       "contains it (a recursive alias); a config must be a tree, as JSON is");
  }
  SUBCASE("an alias bomb") {
    std::string text = kSearcher + "data:\n  a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
    for (int i = 1; i <= 6; ++i) {
      text += "  a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
      for (int j = 0; j < 10; ++j) text += (j == 0 ? "*a" : ", *a") + std::to_string(i - 1);
      text += "]\n";
    }
    CHECK_THROWS_WITH_AS((void)parse(text),
                         doctest::Contains("values (each alias repeats what it refers to); a "
                                           "config this large is not supported"),
                         ConfigError);
  }
  SUBCASE("nesting deeper than 64 levels") {
    std::string deep = "[";
    for (int i = 0; i < 70; ++i) deep += "[";
    // The root map is level 0 and `data` level 1, so the 64th nested list is the first too deep.
    std::string path = "data";
    for (int i = 0; i < 64; ++i) path += "[0]";
    HPSEARCH_CHECK_CONFIG_ERROR_TEXT(kSearcher + "data: " + deep + std::string(71, ']') + "\n",
                                     "exp.yaml:2:71: " + path +
                                         ": nested more than 64 levels deep; a config this deep "
                                         "is not supported");
  }
  SUBCASE("a date, which JSON has no value for") {
    CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  when: 2024-01-31\n",
                       "exp.yaml:3:9: hyperparameters.when: '2024-01-31' reads as a date in "
                       "YAML, which has no JSON value; quote it to make it a string");
    CHECK(const_value("'2024-01-31'") == "2024-01-31");
  }
  SUBCASE("tags with no JSON value") {
    CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  x: !!binary aGk=\n",
                       "exp.yaml:3:6: hyperparameters.x: the tag 'tag:yaml.org,2002:binary' has "
                       "no JSON value; quote the value to make it a string");
    CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  x: !thing {a: 1}\n",
                       "exp.yaml:3:6: hyperparameters.x: the tag '!thing' has no JSON value; a "
                       "config holds only maps, lists, strings, numbers, booleans and null");
    CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  x: !!int twelve\n",
                       "exp.yaml:3:6: hyperparameters.x: !!int 'twelve' is not an integer");
  }
  SUBCASE("text yaml-cpp stops reading in") {
    // Found by fuzzing (fuzz/corpus/config/regress-parser-stops-advancing.yaml): yaml-cpp 0.7
    // returned the same empty document forever and LoadAll never ended, allocating.
    CHECK_CONFIG_ERROR(", 1\n", "exp.yaml:1:1: invalid YAML: cannot be read from here on");
    CHECK_CONFIG_ERROR("# a comment\n, 32, 64]}\n",
                       "exp.yaml:2:1: invalid YAML: cannot be read from here on");
  }
  SUBCASE("bytes that are not UTF-8") {
    // searcher-run wrote such a value into config.json and ended with the JSON library's
    // "incomplete UTF-8 string". The column counts characters: "  x: café" is 9 of them.
    CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  x: caf\xe9\n",
                       "exp.yaml:3:9: the file is not UTF-8 text (byte 0xe9); save it as UTF-8");
    CHECK_CONFIG_ERROR(kSearcher + "hyperparameters:\n  x: caf\xc3\xa9\xff\n",
                       "exp.yaml:3:10: the file is not UTF-8 text (byte 0xff); save it as UTF-8");
    // An overlong '/', an encoded surrogate (U+D800), a code point above U+10FFFF, a sequence
    // cut short by the end of the file.
    CHECK_CONFIG_ERROR(kSearcher + "# \xc0\xaf\n",
                       "exp.yaml:2:3: the file is not UTF-8 text (byte 0xc0); save it as UTF-8");
    CHECK_CONFIG_ERROR(kSearcher + "# \xed\xa0\x80\n",
                       "exp.yaml:2:3: the file is not UTF-8 text (byte 0xed); save it as UTF-8");
    CHECK_CONFIG_ERROR(kSearcher + "# \xf4\x90\x80\x80\n",
                       "exp.yaml:2:3: the file is not UTF-8 text (byte 0xf4); save it as UTF-8");
    CHECK_CONFIG_ERROR(kSearcher + "#\xe2\x82",
                       "exp.yaml:2:2: the file is not UTF-8 text (byte 0xe2); save it as UTF-8");
    // Two-, three- and four-byte characters, the highest code point and a byte order mark are
    // text.
    CHECK(const_value("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xf4\x8f\xbf\xbf\"") ==
          "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xf4\x8f\xbf\xbf");
    CHECK(parse("\xef\xbb\xbf" + kSearcher).searcher.metric == "loss");
  }
  SUBCASE("control characters") {
    // Found by fuzzing (fuzz/corpus/config/regress-nul-in-key.yaml): yaml-cpp read the key
    // "glo\0_b" as "glo\xa0b", which is not UTF-8, and writing config.json failed.
    CHECK_CONFIG_ERROR(
        kSearcher + "hyperparameters:\n  glo" + std::string(1, '\0') + "_b: 1\n",
        "exp.yaml:3:6: the file holds a control character (byte 0x00), which a YAML or "
        "JSON document may not; remove it");
    CHECK_CONFIG_ERROR(
        kSearcher + "# bell \x07\n",
        "exp.yaml:2:8: the file holds a control character (byte 0x07), which a YAML or "
        "JSON document may not; remove it");
    CHECK_CONFIG_ERROR(
        kSearcher + "# \x7f\n",
        "exp.yaml:2:3: the file holds a control character (byte 0x7f), which a YAML or "
        "JSON document may not; remove it");
    // Tabs (inside a flow mapping or a comment), CR LF line ends are text.
    CHECK(parse(kSearcher + "hyperparameters: {x:\t1}\r\n# \ttab\r\n")
              .hyperparameters.entries()
              .size() == 1);
  }
  SUBCASE("more than one document") {
    CHECK_CONFIG_ERROR(kSearcher + "---\n" + kSearcher,
                       "exp.yaml:3:1: the file holds 2 YAML documents (separated by ---); a "
                       "config is one document");
  }
  SUBCASE("a YAML 1.1 directive") {
    CHECK_CONFIG_ERROR("%YAML 1.1\n---\n" + kSearcher,
                       "exp.yaml:1:1: %YAML 1.1: hpsearch reads YAML 1.2, as Determined's CLI "
                       "does without a directive; remove the directive (under YAML 1.1, yes/no "
                       "would be booleans and 010 an octal number)");
    CHECK(parse("%YAML 1.2\n---\n" + kSearcher).searcher.metric == "loss");
  }
}

TEST_CASE("yaml: max_steps and target_trial_steps say what they became (issue 10)") {
  CHECK_CONFIG_ERROR(
      "searcher: {name: random, metric: loss, max_trials: 4, max_steps: 50}\n",
      "exp.yaml:1:66: searcher.max_steps: max_steps was replaced by max_length in Determined "
      "0.13 (lengths are no longer counted in steps): 50 steps of 100 batches (the default "
      "batches_per_step) is max_length: {batches: 5000}");
  CHECK_CONFIG_ERROR(
      "batches_per_step: 32\nsearcher: {name: single, metric: loss, max_steps: 10}\n",
      "exp.yaml:2:51: searcher.max_steps: max_steps was replaced by max_length in Determined "
      "0.13 (lengths are no longer counted in steps): 10 steps of 32 batches (batches_per_step) "
      "is max_length: {batches: 320}");
  CHECK_CONFIG_ERROR(
      "scheduling_unit: 5\nsearcher: {name: async_halving, metric: loss, max_trials: 4, "
      "num_rungs: 3, target_trial_steps: 7}\n",
      "exp.yaml:2:96: searcher.target_trial_steps: target_trial_steps was replaced by max_length "
      "in Determined 0.13 (lengths are no longer counted in steps): 7 steps of 5 batches "
      "(scheduling_unit) is max_length: {batches: 35}");
  CHECK_CONFIG_ERROR(
      "searcher: {name: random, metric: loss, max_trials: 4, max_steps: lots}\n",
      "exp.yaml:1:66: searcher.max_steps: max_steps was replaced by max_length in Determined "
      "0.13 (lengths are no longer counted in steps): use max_length: {batches: N}, N = steps x "
      "100 batches per step");
}
