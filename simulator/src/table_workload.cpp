// A tabulated workload: YAHPO rbv2 tables (data/yahpo-rbv2/README.md). Each trial is mapped
// once, when created, to the nearest listed configuration; its metric at a fidelity is that
// configuration's error, interpolated between the tabulated train fractions.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/simulator/workload.hpp"

namespace hpsearch {
namespace {

constexpr const char* kHeader = "hp_key,train_frac,f1,f1_std,acc,acc_std,auc,auc_std";

// One value of a hp_key: a number, a string, or None (inactive).
struct KeyValue {
  std::optional<double> number;
  std::optional<std::string> text;
};

class LineError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Reads a Python dict literal of the form {'name': 41, 'kernel': 'radial', 'degree': None}.
class DictReader {
 public:
  explicit DictReader(std::string_view text) : text_(text) {}

  std::vector<std::pair<std::string, KeyValue>> read() {
    std::vector<std::pair<std::string, KeyValue>> entries;
    expect('{');
    if (peek() == '}') return ++pos_, entries;
    while (true) {
      std::string key = quoted();
      expect(':');
      entries.emplace_back(std::move(key), value());
      skip_spaces();
      if (peek() == '}') break;
      expect(',');
    }
    ++pos_;
    skip_spaces();
    if (pos_ != text_.size()) fail("text after the closing '}'");
    return entries;
  }

 private:
  char peek() {
    skip_spaces();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  void skip_spaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw LineError("hp_key: " + what + " at character " + std::to_string(pos_ + 1));
  }
  std::string quoted() {
    expect('\'');
    const std::size_t end = text_.find('\'', pos_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }
  KeyValue value() {
    const char c = peek();
    if (c == '\'') return {std::nullopt, quoted()};
    if (text_.substr(pos_).starts_with("None")) {
      pos_ += 4;
      return {};
    }
    double number = 0;
    const auto result = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), number);
    if (result.ec != std::errc() || !std::isfinite(number)) {
      fail("expected a number, a quoted string or None");
    }
    pos_ = static_cast<std::size_t>(result.ptr - text_.data());
    return {number, std::nullopt};
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// A number in [low, high] (from_chars would also take "nan" and "inf").
double parse_number(std::string_view field, const char* column, double low, double high) {
  double value = 0;
  const auto result = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || result.ec != std::errc() || result.ptr != field.data() + field.size() ||
      !(value >= low && value <= high)) {
    std::ostringstream expected;
    expected << column << ": expected a number in [" << low << ", " << high << "], got '" << field
             << "'";
    throw LineError(expected.str());
  }
  return value;
}

struct Column {
  std::string name;
  bool categorical = false;
  bool log_scale = false;
  double minval = std::numeric_limits<double>::infinity();
  double maxval = -std::numeric_limits<double>::infinity();
  std::vector<std::string> choices{};  // sorted
};

class TableWorkload final : public Workload {
 public:
  TableWorkload(std::istream& in, const std::string& source, std::string name)
      : name_(std::move(name)) {
    std::string line;
    std::getline(in, line);
    if (line != kHeader) {
      throw std::invalid_argument(source + ":1: expected the header '" + kHeader + "'");
    }
    std::map<std::string, std::size_t> row_of_key;
    std::vector<std::vector<KeyValue>> raw;  // per configuration, in column order
    std::map<double, std::vector<std::optional<double>>> accuracy;  // train_frac -> per config
    for (std::size_t number = 2; std::getline(in, line); ++number) {
      if (line.empty()) continue;
      try {
        read_line(line, row_of_key, raw, accuracy);
      } catch (const LineError& e) {
        throw std::invalid_argument(source + ":" + std::to_string(number) + ": " + e.what());
      }
    }
    if (raw.empty()) throw std::invalid_argument(source + ": no rows");
    finish(source, raw, accuracy);
  }

  std::string_view name() const override { return name_; }
  std::vector<WorkloadParameter> parameters() const override {
    std::vector<WorkloadParameter> out;
    for (const Column& c : columns_) {
      if (c.categorical) {
        out.push_back({c.name, 0, 0, false, c.choices});
      } else {
        out.push_back({c.name, c.minval, c.maxval, false, {}, true});
      }
    }
    return out;
  }
  std::vector<double> locate(std::vector<double> x) const override {
    HPSEARCH_ASSERT(x.size() == columns_.size(), "wrong input size");
    for (std::size_t j = 0; j < x.size(); ++j) x[j] = scaled(j, x[j]);
    // Nearest first by the number of categoricals that differ (an exact match wherever the
    // table has one), then by the squared distance over the numeric inputs active in the row.
    std::size_t best_mismatches = std::numeric_limits<std::size_t>::max();
    double best = std::numeric_limits<double>::infinity();
    std::size_t best_row = 0;
    for (std::size_t row = 0; row < points_.size(); ++row) {
      std::size_t mismatches = 0;
      for (const std::size_t j : categorical_) {
        if (!std::isnan(points_[row][j]) && points_[row][j] != x[j]) ++mismatches;
      }
      if (mismatches > best_mismatches) continue;
      const double bound =
          mismatches < best_mismatches ? std::numeric_limits<double>::infinity() : best;
      double distance = 0;
      for (std::size_t k = 0; k < numeric_.size() && distance < bound; ++k) {
        const std::size_t j = numeric_[k];
        const double v = points_[row][j];
        if (std::isnan(v)) continue;  // inactive in this configuration
        distance += (v - x[j]) * (v - x[j]);
      }
      if (mismatches < best_mismatches || distance < best) {
        best_mismatches = mismatches;
        best = distance;
        best_row = row;
      }
    }
    return {static_cast<double>(best_row)};
  }
  double value(const std::vector<double>& x, double z) const override {
    HPSEARCH_ASSERT(x.size() == 1 && x[0] >= 0 && x[0] < static_cast<double>(errors_.size()),
                    "a table's value needs the row locate() returned");
    const std::vector<double>& errors = errors_[static_cast<std::size_t>(x[0])];
    if (z <= fractions_.front()) return errors.front();
    for (std::size_t i = 1; i < fractions_.size(); ++i) {
      if (z <= fractions_[i]) {
        const double w = (z - fractions_[i - 1]) / (fractions_[i] - fractions_[i - 1]);
        return errors[i - 1] + w * (errors[i] - errors[i - 1]);
      }
    }
    return errors.back();
  }
  double cost(double z) const override { return z; }
  std::optional<double> optimum() const override { return optimum_; }

 private:
  void read_line(const std::string& line, std::map<std::string, std::size_t>& row_of_key,
                 std::vector<std::vector<KeyValue>>& raw,
                 std::map<double, std::vector<std::optional<double>>>& accuracy) {
    if (line.front() != '"') throw LineError("hp_key: expected a quoted dict");
    const std::size_t close = line.find('"', 1);
    if (close == std::string::npos || close + 1 >= line.size() || line[close + 1] != ',') {
      throw LineError("hp_key: unterminated quoted dict");
    }
    const std::string key = line.substr(1, close - 1);
    std::vector<std::string_view> fields;
    std::string_view rest(line);
    rest.remove_prefix(close + 2);
    for (std::size_t comma; (comma = rest.find(',')) != std::string_view::npos;) {
      fields.push_back(rest.substr(0, comma));
      rest.remove_prefix(comma + 1);
    }
    fields.push_back(rest);
    if (fields.size() != 7) {
      throw LineError("expected 8 columns, got " + std::to_string(fields.size() + 1));
    }
    // A fraction of the training set, and an accuracy.
    const double fraction = parse_number(fields[0], "train_frac", 0, 1);
    const double acc = parse_number(fields[3], "acc", 0, 1);
    auto [it, inserted] = row_of_key.try_emplace(key, raw.size());
    if (inserted) {
      std::vector<KeyValue> values;
      const auto entries = DictReader(key).read();
      // The first configuration names the columns (found by fuzzing: testing columns_.empty()
      // instead let a first row of "{}" leave it without values for the columns named later).
      if (raw.empty()) {
        for (const auto& entry : entries) {
          const auto same = [&](const Column& c) { return c.name == entry.first; };
          if (std::any_of(columns_.begin(), columns_.end(), same)) {
            throw LineError("hp_key: key '" + entry.first + "' appears twice");
          }
          columns_.push_back({entry.first});
        }
      }
      if (entries.size() != columns_.size()) {
        throw LineError("hp_key: expected the keys of the first row");
      }
      for (std::size_t j = 0; j < entries.size(); ++j) {
        if (entries[j].first != columns_[j].name) {
          throw LineError("hp_key: expected key '" + columns_[j].name + "', got '" +
                          entries[j].first + "'");
        }
        values.push_back(entries[j].second);
      }
      raw.push_back(std::move(values));
    }
    std::vector<std::optional<double>>& at = accuracy[fraction];
    at.resize(raw.size());
    if (at[it->second]) throw LineError("a second row for this hp_key and train_frac");
    at[it->second] = acc;
  }

  void finish(const std::string& source, const std::vector<std::vector<KeyValue>>& raw,
              const std::map<double, std::vector<std::optional<double>>>& accuracy) {
    for (std::size_t j = 0; j < columns_.size(); ++j) {
      Column& c = columns_[j];
      bool numbers = false;
      bool texts = false;
      for (const std::vector<KeyValue>& row : raw) {
        if (row[j].number) {
          numbers = true;
          c.minval = std::min(c.minval, *row[j].number);
          c.maxval = std::max(c.maxval, *row[j].number);
        } else if (row[j].text) {
          texts = true;
          if (std::find(c.choices.begin(), c.choices.end(), *row[j].text) == c.choices.end()) {
            c.choices.push_back(*row[j].text);
          }
        }
      }
      if (numbers == texts) {
        throw std::invalid_argument(source + ": column '" + c.name +
                                    "' must hold only numbers or only strings");
      }
      c.categorical = texts;
      std::sort(c.choices.begin(), c.choices.end());
      c.log_scale = numbers && sampled_in_logs(raw, j, c);
      (c.categorical ? categorical_ : numeric_).push_back(j);
    }
    for (const std::vector<KeyValue>& row : raw) {
      std::vector<double> point;
      for (std::size_t j = 0; j < columns_.size(); ++j) {
        const Column& c = columns_[j];
        if (row[j].number) {
          point.push_back(scaled(j, *row[j].number));
        } else if (row[j].text) {
          const auto it = std::find(c.choices.begin(), c.choices.end(), *row[j].text);
          point.push_back(static_cast<double>(it - c.choices.begin()));
        } else {
          point.push_back(std::numeric_limits<double>::quiet_NaN());
        }
      }
      points_.push_back(std::move(point));
    }
    errors_.assign(raw.size(), {});
    for (const auto& [fraction, per_config] : accuracy) {
      fractions_.push_back(fraction);
      for (std::size_t row = 0; row < raw.size(); ++row) {
        if (row >= per_config.size() || !per_config[row]) {
          std::ostringstream message;
          message << source << ": configuration " << row + 1
                  << " (in order of appearance) has no row at train_frac " << fraction;
          throw std::invalid_argument(message.str());
        }
        errors_[row].push_back(1 - *per_config[row]);
      }
    }
    optimum_ = std::numeric_limits<double>::infinity();
    for (const std::vector<double>& errors : errors_) optimum_ = std::min(optimum_, errors.back());
  }

  // Whether a numeric column's rows were drawn log-uniformly rather than uniformly: its range
  // is positive and its median lies nearer the range's geometric midpoint than its arithmetic
  // one (on each scale as a share of the range). The nearest row is then measured in logs, so
  // that a neighbourhood holds as many rows wherever it is: rbv2's cost, gamma, tolerance, s,
  // ef and ef_construction; glmnet's alpha, spanning 10^-4 to 1 but drawn uniformly, stays
  // linear (docs/simulator.md).
  static bool sampled_in_logs(const std::vector<std::vector<KeyValue>>& raw, std::size_t j,
                              const Column& c) {
    if (!(c.minval > 0) || c.maxval <= c.minval) return false;
    std::vector<double> values;
    for (const std::vector<KeyValue>& row : raw) {
      if (row[j].number) values.push_back(*row[j].number);
    }
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    const double median = *middle;
    const double linear = (median - c.minval) / (c.maxval - c.minval);
    const double logs =
        (std::log(median) - std::log(c.minval)) / (std::log(c.maxval) - std::log(c.minval));
    return std::abs(logs - 0.5) < std::abs(linear - 0.5);
  }

  // A numeric input on [0, 1] over the table's range (in logs where the rows were so drawn);
  // categoricals stay choice indices.
  double scaled(std::size_t j, double v) const {
    const Column& c = columns_[j];
    if (c.categorical) return v;
    if (c.maxval <= c.minval) return 0;
    if (c.log_scale) {
      return (std::log(std::max(v, c.minval)) - std::log(c.minval)) /
             (std::log(c.maxval) - std::log(c.minval));
    }
    return (v - c.minval) / (c.maxval - c.minval);
  }

  std::string name_;
  std::vector<Column> columns_;
  std::vector<std::size_t> categorical_;     // columns holding strings
  std::vector<std::size_t> numeric_;         // columns holding numbers
  std::vector<std::vector<double>> points_;  // scaled, NaN where inactive
  std::vector<double> fractions_;            // ascending
  std::vector<std::vector<double>> errors_;  // per configuration, per fraction
  double optimum_ = 0;
};

}  // namespace

std::unique_ptr<Workload> read_table_workload(std::istream& in, const std::string& source,
                                              std::string name) {
  return std::make_unique<TableWorkload>(in, source, std::move(name));
}

std::unique_ptr<Workload> make_table_workload(const std::filesystem::path& csv, std::string name) {
  std::ifstream in(csv);
  if (!in) throw std::invalid_argument("cannot read table '" + csv.string() + "'");
  return read_table_workload(in, csv.string(), std::move(name));
}

}  // namespace hpsearch
