// The tabulated workload, on a small table whose answers are worked out by hand, and on the
// shipped YAHPO rbv2 tables.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/workload.hpp"
#include "support/ops.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
namespace fs = std::filesystem;

namespace {

constexpr const char* kHeader = "hp_key,train_frac,f1,f1_std,acc,acc_std,auc,auc_std\n";

fs::path write_table(const std::string& name, const std::string& text) {
  const fs::path dir =
      fs::temp_directory_path() / ("hpsearch-table-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

// c spans 1..1000 (compared in logs: 0, 1/3, 1), kernel is categorical (a, b), g is linear on
// 0.5..1.5 and inactive for kernel b.
const std::string kSmall = std::string(kHeader) +
                           "\"{'c': 1.0, 'kernel': 'b', 'g': None}\",0.5,0,0,0.8,0,0,0\n"
                           "\"{'c': 1.0, 'kernel': 'b', 'g': None}\",1.0,0,0,0.9,0,0,0\n"
                           "\"{'c': 1000.0, 'kernel': 'a', 'g': 0.5}\",0.5,0,0,0.6,0,0,0\n"
                           "\"{'c': 1000.0, 'kernel': 'a', 'g': 0.5}\",1.0,0,0,0.7,0,0,0\n"
                           "\"{'c': 10.0, 'kernel': 'a', 'g': 1.5}\",0.5,0,0,0.5,0,0,0\n"
                           "\"{'c': 10.0, 'kernel': 'a', 'g': 1.5}\",1.0,0,0,0.95,0,0,0\n";

}  // namespace

TEST_CASE("table workload: inputs, nearest configuration and interpolation") {
  const auto table = make_table_workload(write_table("small.csv", kSmall), "small");
  const std::vector<WorkloadParameter> p = table->parameters();
  REQUIRE(p.size() == 3);
  CHECK(p[0].name == "c");
  CHECK(p[0].minval == 1);
  CHECK(p[0].maxval == 1000);
  CHECK(p[1].name == "kernel");
  CHECK(p[1].choices == std::vector<std::string>{"a", "b"});
  CHECK(p[2].name == "g");
  CHECK(p[2].maxval == 1.5);
  CHECK(table->optimum() == doctest::Approx(0.05));  // 1 - 0.95
  // (1, b, 1.5): row 1 matches c and kernel, and its g is inactive: distance 0.
  CHECK(table->locate({1, 1, 1.5}) == std::vector<double>{0});
  // (100, a, 0.5): log c = 2/3. Row 2 is (1 - 2/3)^2 = 1/9 away, row 3 (1/3)^2 + 1^2, row 1
  // (2/3)^2 + 1 (kernel).
  CHECK(table->locate({100, 0, 0.5}) == std::vector<double>{1});
  // (1, a, 0.5): row 1 is 0 away in c but of kernel b; rows 2 and 3 match the kernel, at
  // 1^2 + 0 and (1/3)^2 + 1^2: row 2, although row 1 is as near in the numbers (a categorical
  // must match exactly where a row does).
  CHECK(table->locate({1, 0, 0.5}) == std::vector<double>{1});
  // Row 2's errors are 0.4 at 0.5 and 0.3 at 1.0.
  CHECK(table->value({1}, 0.75) == doctest::Approx(0.35));
  CHECK(table->value({1}, 0.2) == doctest::Approx(0.4));  // below the lowest fraction
  CHECK(table->value({1}, 1.0) == doctest::Approx(0.3));
  CHECK(table->cost(0.5) == 0.5);
}

TEST_CASE("table workload: a column is compared in logs only where its rows were drawn so") {
  // alpha spans 10^-4 .. 1 but its median 0.5 lies at the arithmetic middle: compared linearly.
  // 0.2 is then 0.2 - 0.0001 from row 1 and 0.3 from row 2; in logs it would be nearer row 2
  // (ln 0.2 is 7.6 above ln 0.0001, ln 0.5 8.5).
  const auto table = make_table_workload(
      write_table("alpha.csv", std::string(kHeader) + "\"{'alpha': 0.0001}\",1.0,0,0,0.1,0,0,0\n"
                                                      "\"{'alpha': 0.5}\",1.0,0,0,0.2,0,0,0\n"
                                                      "\"{'alpha': 1.0}\",1.0,0,0,0.3,0,0,0\n"),
      "alpha");
  CHECK(table->locate({0.2}) == std::vector<double>{0});
  CHECK(table->locate({0.3}) == std::vector<double>{1});
  // A table reads any number: beyond its rows' range, the nearest row.
  CHECK(table->parameters().front().any_number);
  CHECK(table->locate({5}) == std::vector<double>{2});
}

TEST_CASE("workload inputs: a config's values read through the core encoding") {
  using namespace hpsearch::testing;
  const auto table = make_table_workload(write_table("small.csv", kSmall), "small");
  // The config lists the table's kernels in the other order and fixes c: what the table reads
  // is the index among its own (sorted) choices, and the const's value.
  const WorkloadInputs inputs(*table, space({{"c", ConstHp{100}},
                                             {"kernel", categorical({"b", "a"})},
                                             {"g", double_hp(0.5, 1.5)}}));
  CHECK(inputs.read({{"c", 100}, {"kernel", "b"}, {"g", 0.75}}) ==
        std::vector<double>{100, 1, 0.75});
  CHECK(inputs.read({{"c", 100}, {"kernel", "a"}, {"g", 1.5}}) == std::vector<double>{100, 0, 1.5});
  // Counting ones' binaries as a categorical of numbers listed 1 first: the value, not its index.
  const auto ones = make_counting_ones(1);
  const WorkloadInputs binary(*ones,
                              space({{"cat0", categorical({1, 0})}, {"cont0", double_hp(0, 1)}}));
  CHECK(binary.read({{"cat0", 1}, {"cont0", 0.25}}) == std::vector<double>{1, 0.25});
  CHECK(binary.read({{"cat0", 0}, {"cont0", 0.25}}) == std::vector<double>{0, 0.25});
  // A space that does not fit is refused as check_workload_parameters refuses it.
  CHECK_THROWS_AS(WorkloadInputs(*ones, space({{"cat0", categorical({0, 1})}})),
                  std::invalid_argument);
  // A value outside the space is refused by the encoding, naming the hyperparameter.
  CHECK_THROWS_WITH_AS((void)inputs.read({{"c", 100}, {"kernel", "z"}, {"g", 0.75}}),
                       doctest::Contains("kernel"), std::invalid_argument);
}

TEST_CASE("table workload: unreadable tables name the file, line and column") {
  const auto error_of = [](const std::string& text) {
    const fs::path path = write_table("bad.csv", text);
    try {
      (void)make_table_workload(path, "bad");
    } catch (const std::invalid_argument& e) {
      std::string message = e.what();
      return message.substr(message.find("bad.csv"));
    }
    return std::string("no error");
  };
  CHECK(error_of("a,b\n") ==
        "bad.csv:1: expected the header 'hp_key,train_frac,f1,f1_std,acc,acc_std,auc,auc_std'");
  CHECK(error_of(std::string(kHeader) + "\"{'c': 1.0}\",0.5,0,0,x,0,0,0\n") ==
        "bad.csv:2: acc: expected a number in [0, 1], got 'x'");
  // Found by fuzzing (fuzz/corpus/table/regress-*): numbers that are not finite or out of
  // range, and a key given twice.
  CHECK(error_of(std::string(kHeader) + "\"{'c': 1.0}\",nan,0,0,0.5,0,0,0\n") ==
        "bad.csv:2: train_frac: expected a number in [0, 1], got 'nan'");
  CHECK(error_of(std::string(kHeader) + "\"{'c': 1.0}\",0.5,0,0,1.5,0,0,0\n") ==
        "bad.csv:2: acc: expected a number in [0, 1], got '1.5'");
  CHECK(error_of(std::string(kHeader) + "\"{'c': inf}\",0.5,0,0,0.5,0,0,0\n") ==
        "bad.csv:2: hp_key: expected a number, a quoted string or None at character 7");
  CHECK(error_of(std::string(kHeader) + "\"{'c': 1.0, 'c': 2.0}\",0.5,0,0,0.5,0,0,0\n") ==
        "bad.csv:2: hp_key: key 'c' appears twice");
  // Found by fuzzing (fuzz/corpus/table/regress-first-row-without-keys): a first row with no
  // keys let the next row name the columns, and the first row had no values for them.
  CHECK(error_of(std::string(kHeader) + "\"{}\",1.0,0,0,0.5,0,0,0\n"
                                        "\"{'c': 1.0}\",1.0,0,0,0.5,0,0,0\n") ==
        "bad.csv:3: hp_key: expected the keys of the first row");
  CHECK(error_of(std::string(kHeader) + "\"{'c': 1.0}\",0.5,0,0,0.5,0,0\n") ==
        "bad.csv:2: expected 8 columns, got 7");
  CHECK(error_of(std::string(kHeader) + "\"{'c': True}\",0.5,0,0,0.5,0,0,0\n") ==
        "bad.csv:2: hp_key: expected a number, a quoted string or None at character 7");
  CHECK(error_of(std::string(kHeader) + "\"{'c': 1.0}\",0.5,0,0,0.5,0,0,0\n"
                                        "\"{'d': 1.0}\",0.5,0,0,0.5,0,0,0\n") ==
        "bad.csv:3: hp_key: expected key 'c', got 'd'");
  CHECK(error_of(std::string(kHeader) + "\"{'c': 1.0}\",0.5,0,0,0.5,0,0,0\n"
                                        "\"{'c': 2.0}\",0.5,0,0,0.5,0,0,0\n"
                                        "\"{'c': 2.0}\",1.0,0,0,0.5,0,0,0\n") ==
        "bad.csv: configuration 1 (in order of appearance) has no row at train_frac 1");
  CHECK(error_of(std::string(kHeader)) == "bad.csv: no rows");
}

TEST_CASE("table workload: the shipped YAHPO rbv2 tables") {
  const auto svm = make_workload("rbv2-svm");
  CHECK(svm->name() == "rbv2-svm");
  const std::vector<WorkloadParameter> p = svm->parameters();
  REQUIRE(p.size() == 6);
  CHECK(p[0].name == "cost");
  CHECK(p[1].choices == std::vector<std::string>{"linear", "polynomial", "radial"});
  CHECK(p[5].name == "degree");
  // The best accuracy at train_frac 1 in rbv2_svm-1220.csv is 0.8525707.
  CHECK(*svm->optimum() == doctest::Approx(1 - 0.8525707));
  CHECK(p[2].choices == std::vector<std::string>{"impute.hist", "impute.mean", "impute.median"});
  // The first listed configuration (data line 2: radial, impute.median; its degree is
  // inactive): acc 0.83267796 at 0.05, 0.8442664 at 0.25.
  const std::vector<double> first =
      svm->locate({55.07756349624877, 2, 2, 0.0010688655367635522, 6659.16924059112, 3});
  CHECK(first == std::vector<double>{0});
  CHECK(svm->value(first, 0.05) == doctest::Approx(1 - 0.83267796));
  CHECK(svm->value(first, 0.25) == doctest::Approx(1 - 0.8442664));
  CHECK(make_workload("rbv2-glmnet")->parameters().size() == 3);
  CHECK(make_workload("rbv2-aknn")->parameters().size() == 6);
  HPSEARCH_CHECK_THROWS_TEXT(
      (void)make_workload("rbv2-svm", "/nonexistent"),
      "workload 'rbv2-svm': cannot read table '/nonexistent/yahpo-rbv2/rbv2_svm-1220.csv'",
      std::invalid_argument);
}

namespace {

// One row of a table at train_frac 1.0, read here independently of the workload: its
// configuration (a JSON object, null where inactive) and its error 1 - acc.
struct FullRow {
  nlohmann::json config;
  double error = 0;
};

// The rows at train_frac 1.0 of an rbv2 CSV. The hp_key is a Python dict literal; with its
// quotes turned into JSON's and None into null it is a JSON object.
std::vector<FullRow> full_rows(const fs::path& csv) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<FullRow> rows;
  while (std::getline(in, line)) {
    const std::size_t close = line.find('"', 1);
    std::string key = line.substr(1, close - 1);
    std::vector<std::string> fields;
    std::size_t at = close + 2;
    for (std::size_t comma; (comma = line.find(',', at)) != std::string::npos; at = comma + 1) {
      fields.push_back(line.substr(at, comma - at));
    }
    fields.push_back(line.substr(at));
    if (std::stod(fields[0]) != 1.0) continue;
    for (char& c : key) c = c == '\'' ? '"' : c;
    for (std::size_t n; (n = key.find("None")) != std::string::npos;) key.replace(n, 4, "null");
    rows.push_back({nlohmann::json::parse(key), 1 - std::stod(fields[3])});
  }
  return rows;
}

// Whether a value can be sampled from a hyperparameter of the space.
bool in_space(const Hyperparameter& hp, const nlohmann::json& v) {
  if (const auto* c = std::get_if<CategoricalHp>(&hp)) {
    return std::find(c->values.begin(), c->values.end(), v) != c->values.end();
  }
  const double x = v.get<double>();
  if (const auto* i = std::get_if<IntHp>(&hp)) {
    return x == std::round(x) && x >= static_cast<double>(i->minval) &&
           x <= static_cast<double>(i->maxval);
  }
  if (const auto* d = std::get_if<DoubleHp>(&hp)) return x >= d->minval && x <= d->maxval;
  const auto& l = std::get<LogHp>(hp);
  const double exponent = std::log(x) / std::log(l.base);
  return exponent >= l.minval && exponent <= l.maxval;
}

}  // namespace

TEST_CASE("table workload: every sampler can reach each table's best rows") {
  // For each of the 15 tables (task 1220 and the 12 development tasks) under the space of its
  // example config: the 10 best rows at full fidelity lie in the space (so random search can
  // draw them, and TPE and GP, which decode any point of the unit cube into the space, can
  // propose them), and each row's own configuration is located to a row of the same error (its
  // own, or a listed duplicate).
  const fs::path root = HPSEARCH_SOURCE_DIR;
  const std::map<std::string, std::vector<std::string>> tasks = {
      {"svm", {"1220", "40536", "40966", "40975", "40978"}},
      {"glmnet", {"1220", "375", "40978", "40981", "41138"}},
      {"aknn", {"1220", "40927", "40978", "40981", "40996"}}};
  const std::map<std::string, std::string> examples = {{"svm", "rbv2_svm_asha.yaml"},
                                                       {"glmnet", "rbv2_glmnet_asha.yaml"},
                                                       {"aknn", "rbv2_aknn_random.yaml"}};
  for (const auto& [learner, ids] : tasks) {
    const ExperimentConfig config = load_config(root / "examples" / examples.at(learner));
    for (const std::string& task : ids) {
      const std::string name = "rbv2-" + learner + (task == "1220" ? "" : "@" + task);
      CAPTURE(name);
      const auto table = make_workload(name, root / "data");
      const WorkloadInputs inputs(*table, config.hyperparameters);
      const std::string dir = task == "1220" ? "yahpo-rbv2" : "yahpo-rbv2-dev";
      std::vector<FullRow> rows =
          full_rows(root / "data" / dir / ("rbv2_" + learner + "-" + task + ".csv"));
      REQUIRE(rows.size() == 3000);
      std::stable_sort(rows.begin(), rows.end(),
                       [](const FullRow& a, const FullRow& b) { return a.error < b.error; });
      CHECK(*table->optimum() == doctest::Approx(rows.front().error).epsilon(1e-12));
      for (std::size_t r = 0; r < 10; ++r) {
        nlohmann::json hparams = rows[r].config;
        for (const NamedHyperparameter& entry : config.hyperparameters.entries()) {
          nlohmann::json& v = hparams[entry.name];
          if (v.is_null()) {  // inactive: any value of the space
            const auto* d = std::get_if<LogHp>(&entry.value);
            if (const auto* i = std::get_if<IntHp>(&entry.value)) v = i->minval;
            if (d) v = std::pow(d->base, d->minval);
          }
          CAPTURE(entry.name);
          CAPTURE(v.dump());
          CHECK(in_space(entry.value, v));
        }
        CHECK(table->value(table->locate(inputs.read(hparams)), 1.0) ==
              doctest::Approx(rows[r].error).epsilon(1e-12));
      }
    }
  }
}
