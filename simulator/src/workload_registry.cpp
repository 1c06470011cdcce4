// Workloads by name, and whether a config's hyperparameters fit one.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "hpsearch/simulator/engine.hpp"
#include "hpsearch/simulator/workload.hpp"

namespace hpsearch {
namespace {

std::string domain_text(const WorkloadParameter& p) {
  std::ostringstream text;
  if (!p.choices.empty()) {
    text << "one of";
    for (std::size_t i = 0; i < p.choices.size(); ++i)
      text << (i == 0 ? " \"" : ", \"") << p.choices[i] << '"';
  } else if (p.binary) {
    text << "0 or 1";
  } else if (p.any_number) {
    text << "any number (its data span [" << p.minval << ", " << p.maxval << "])";
  } else {
    text << "a number in [" << p.minval << ", " << p.maxval << "]";
  }
  return text.str();
}

bool fits(const WorkloadParameter& p, const nlohmann::json& value) {
  if (!p.choices.empty()) {
    return value.is_string() && std::find(p.choices.begin(), p.choices.end(),
                                          value.get<std::string>()) != p.choices.end();
  }
  if (!value.is_number()) return false;
  const double v = value.get<double>();
  if (p.binary) return v == 0 || v == 1;
  return p.any_number || (v >= p.minval && v <= p.maxval);
}

// Why a hyperparameter's values do not fit a workload input; empty if they all do.
std::string misfit(const WorkloadParameter& p, const Hyperparameter& hp) {
  const auto range = [](double lo, double hi) {
    std::ostringstream text;
    text << "ranges over [" << lo << ", " << hi << "]";
    return text.str();
  };
  const auto values_fit = [&](const std::vector<nlohmann::json>& values) -> std::string {
    for (const nlohmann::json& v : values) {
      if (!fits(p, v)) return "takes the value " + v.dump();
    }
    return "";
  };
  if (const auto* c = std::get_if<ConstHp>(&hp)) return values_fit({c->value});
  if (const auto* c = std::get_if<CategoricalHp>(&hp)) return values_fit(c->values);
  const bool numeric = p.choices.empty() && !p.binary;
  const auto within = [&](double lo, double hi) {
    return numeric && (p.any_number || (lo >= p.minval && hi <= p.maxval));
  };
  if (const auto* i = std::get_if<IntHp>(&hp)) {
    const auto lo = static_cast<double>(i->minval);
    const auto hi = static_cast<double>(i->maxval);
    const bool ok = p.binary ? (lo >= 0 && hi <= 1) : within(lo, hi);
    return ok ? "" : range(lo, hi);
  }
  if (const auto* d = std::get_if<DoubleHp>(&hp)) {
    return within(d->minval, d->maxval) ? "" : range(d->minval, d->maxval);
  }
  if (const auto* l = std::get_if<LogHp>(&hp)) {
    const double lo = std::pow(l->base, std::min(l->minval, l->maxval));
    const double hi = std::pow(l->base, std::max(l->minval, l->maxval));
    return within(std::min(lo, hi), std::max(lo, hi)) ? ""
                                                      : range(std::min(lo, hi), std::max(lo, hi));
  }
  return "is a nested map";
}

std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) {
    if (!text.empty()) text += ", ";
    text += name;
  }
  return text;
}

// A count suffix such as the 4 of counting-ones-4, in [1, 999], written without leading zeros
// (so that each workload has one name).
std::optional<int> count_suffix(const std::string& name, const std::string& prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  const std::string n = name.substr(prefix.size());
  if (n.empty() || n.size() > 3 || n.front() == '0' ||
      !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const int value = std::stoi(n);
  return value >= 1 ? std::optional<int>(value) : std::nullopt;
}

}  // namespace

WorkloadInputs::WorkloadInputs(const Workload& workload, const HyperparameterSpace& space)
    : encoding_(space) {
  check_workload_parameters(workload, space);
  // What a value of the config reads as for input p: a table's label its index among the
  // workload's choices, anything else its number (counting ones' binaries may be categoricals
  // of 0 and 1).
  const auto number = [](const WorkloadParameter& p, const nlohmann::json& value) {
    if (p.choices.empty()) return value.get<double>();
    const auto it = std::find(p.choices.begin(), p.choices.end(), value.get<std::string>());
    return static_cast<double>(it - p.choices.begin());
  };
  for (const WorkloadParameter& p : workload.parameters()) {
    Input input;
    const auto& dimensions = encoding_.dimensions();
    const auto d =
        std::find_if(dimensions.begin(), dimensions.end(), [&](const EncodedDimension& e) {
          return e.route.size() == 1 && e.route.front() == p.name;
        });
    if (d == dimensions.end()) {  // a const: check_workload_parameters found the name at the top
      const auto& entries = space.entries();
      const auto entry =
          std::find_if(entries.begin(), entries.end(),
                       [&](const NamedHyperparameter& e) { return e.name == p.name; });
      input.fixed = number(p, std::get<ConstHp>(entry->value).value);
    } else {
      input.dimension = static_cast<std::size_t>(d - dimensions.begin());
      if (const auto* categorical = std::get_if<CategoricalHp>(&d->hp)) {
        for (const nlohmann::json& value : categorical->values)
          input.by_index.push_back(number(p, value));
      }
    }
    inputs_.push_back(std::move(input));
  }
}

std::vector<double> WorkloadInputs::read(const nlohmann::json& hparams) const {
  std::vector<double> x;
  x.reserve(inputs_.size());
  for (const Input& input : inputs_) {
    if (!input.dimension) {
      x.push_back(input.fixed);
      continue;
    }
    const double v = encoding_.numeric(hparams, *input.dimension);
    x.push_back(input.by_index.empty() ? v : input.by_index[static_cast<std::size_t>(v)]);
  }
  return x;
}

void check_workload_parameters(const Workload& workload, const HyperparameterSpace& space) {
  const std::vector<WorkloadParameter> parameters = workload.parameters();
  std::set<std::string> wanted;
  std::string reads;
  for (const WorkloadParameter& p : parameters) {
    wanted.insert(p.name);
    if (!reads.empty()) reads += ", ";
    reads += p.name;
    if (p.binary) {
      reads += " in {0, 1}";
    } else if (p.any_number) {
      reads += ": ";
      reads += domain_text(p);
    } else if (p.choices.empty()) {
      reads += " in ";
      reads += domain_text(p).substr(12);  // "[lo, hi]" without "a number in "
    } else {
      reads += ' ';
      reads += domain_text(p);
    }
  }
  std::set<std::string> given;
  for (const NamedHyperparameter& entry : space.entries()) given.insert(entry.name);
  std::set<std::string> missing;
  std::set<std::string> extra;
  std::set_difference(wanted.begin(), wanted.end(), given.begin(), given.end(),
                      std::inserter(missing, missing.end()));
  std::set_difference(given.begin(), given.end(), wanted.begin(), wanted.end(),
                      std::inserter(extra, extra.end()));
  const std::string prefix =
      "the config's hyperparameters do not fit workload '" + std::string(workload.name()) + "':";
  if (!missing.empty() || !extra.empty()) {
    std::string message = prefix;
    if (!missing.empty()) message += " missing " + joined(missing) + ";";
    if (!extra.empty()) message += " extra " + joined(extra) + ";";
    throw std::invalid_argument(message + " it reads " + reads);
  }
  // Every value a trial can get must be one the workload reads, so that no trial fails in
  // the middle of a run.
  for (const NamedHyperparameter& entry : space.entries()) {
    const auto p = std::find_if(parameters.begin(), parameters.end(),
                                [&](const WorkloadParameter& w) { return w.name == entry.name; });
    if (const std::string why = misfit(*p, entry.value); !why.empty()) {
      throw std::invalid_argument(prefix + " " + entry.name + " " + why +
                                  ", but the workload reads " + domain_text(*p) + " there");
    }
  }
}

std::filesystem::path default_data_dir() {
  const std::filesystem::path source_tree = HPSEARCH_SOURCE_DATA_DIR;
  std::error_code ignored;  // an unreadable source tree means: use the installed copy
  return std::filesystem::is_directory(source_tree, ignored) ? source_tree
                                                             : HPSEARCH_INSTALLED_DATA_DIR;
}

namespace {

// A YAHPO rbv2 table by name: rbv2-LEARNER (OpenML task 1220, shipped in yahpo-rbv2/) or
// rbv2-LEARNER@TASK, read from yahpo-rbv2/ or else yahpo-rbv2-dev/ (the development tables).
std::unique_ptr<Workload> make_rbv2(const std::string& name, const std::filesystem::path& dir) {
  for (const char* learner : {"svm", "glmnet", "aknn"}) {
    const std::string prefix = std::string("rbv2-") + learner;
    if (!name.starts_with(prefix)) continue;
    std::string task = "1220";
    if (name.size() > prefix.size()) {
      const std::string rest = name.substr(prefix.size());
      // A task id: digits without a leading zero, so that each table has one name.
      if (rest.size() < 2 || rest.size() > 10 || rest[0] != '@' || rest[1] == '0' ||
          !std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return nullptr;
      }
      task = rest.substr(1);
    }
    const std::string file = std::string("rbv2_") + learner + "-" + task + ".csv";
    const std::filesystem::path shipped = dir / "yahpo-rbv2" / file;
    const std::filesystem::path development = dir / "yahpo-rbv2-dev" / file;
    std::error_code ignored;
    if (task != "1220" && !std::filesystem::exists(shipped, ignored) &&
        !std::filesystem::exists(development, ignored)) {
      throw std::invalid_argument("no table for task " + task + ": neither '" + shipped.string() +
                                  "' nor '" + development.string() + "' exists");
    }
    const bool in_development = task != "1220" && !std::filesystem::exists(shipped, ignored);
    return make_table_workload(in_development ? development : shipped, name);
  }
  return nullptr;
}

}  // namespace

const std::vector<WorkloadRow>& workload_rows() {
  using C = FidelityConvention;
  static const std::vector<WorkloadRow> rows = {
      {"mf-branin, mf-branin-dragonfly", "x1 in [-5, 10], x2 in [0, 15]",
       [](const std::string& name, const std::filesystem::path&) -> std::unique_ptr<Workload> {
         if (name == "mf-branin") return make_mf_branin(C::kAllCoefficients);
         if (name == "mf-branin-dragonfly") return make_mf_branin(C::kFirstCoefficient);
         return nullptr;
       }},
      {"mf-hartmann3, mf-hartmann6 (-dragonfly)", "x0 .. x2 or x0 .. x5 in [0, 1]",
       [](const std::string& name, const std::filesystem::path&) -> std::unique_ptr<Workload> {
         for (const int d : {3, 6}) {
           const std::string base = "mf-hartmann" + std::to_string(d);
           if (name == base) return make_mf_hartmann(d, C::kAllCoefficients);
           if (name == base + "-dragonfly") return make_mf_hartmann(d, C::kFirstCoefficient);
         }
         return nullptr;
       }},
      {"prior-hartmann-{default,good,moderate,bad,terrible}",
       "x0 .. x2 in [0, 1], tunable fidelity correlation",
       [](const std::string& name, const std::filesystem::path&) -> std::unique_ptr<Workload> {
         if (!name.starts_with("prior-hartmann-")) return nullptr;
         return make_prior_hartmann(name.substr(15));
       }},
      {"counting-ones-N", "cat0 .. catN-1 in {0, 1}, cont0 .. contN-1 in [0, 1]",
       [](const std::string& name, const std::filesystem::path&) -> std::unique_ptr<Workload> {
         const auto n = count_suffix(name, "counting-ones-");
         return n ? make_counting_ones(*n) : nullptr;
       }},
      {"learning-curves-N",
       "x0 .. xN-1 in [0, 1]; synthetic learning curves that cross (error after t = 100 z "
       "epochs)",
       [](const std::string& name, const std::filesystem::path&) -> std::unique_ptr<Workload> {
         const auto n = count_suffix(name, "learning-curves-");
         return n ? make_learning_curves(*n) : nullptr;
       }},
      {"rbv2-svm, rbv2-glmnet, rbv2-aknn [@TASK]",
       "YAHPO rbv2 tables: OpenML task 1220, or @TASK one of the development tasks (svm 40536, "
       "40966, 40975, 40978; glmnet 375, 40978, 40981, 41138; aknn 40927, 40978, 40981, 40996); "
       "the error 1 - acc of the nearest listed configuration (docs/simulator.md); run with a "
       "wrong config to see the inputs and their ranges",
       make_rbv2},
  };
  return rows;
}

std::string workload_list() {
  std::string text;
  for (const WorkloadRow& row : workload_rows()) {
    if (!text.empty()) text += ", ";
    text += row.names;
  }
  return text;
}

std::unique_ptr<Workload> make_workload(const std::string& name,
                                        const std::filesystem::path& data_dir) {
  try {
    for (const WorkloadRow& row : workload_rows()) {
      if (std::unique_ptr<Workload> workload = row.make(name, data_dir)) return workload;
    }
    throw std::invalid_argument("unknown workload '" + name + "' (workloads: " + workload_list() +
                                ")");
  } catch (const std::invalid_argument& e) {
    // Every message names the workload as given ("unknown workload 'x'" already does).
    if (std::string_view(e.what()).starts_with("unknown workload '")) throw;
    throw std::invalid_argument("workload '" + name + "': " + e.what());
  }
}

}  // namespace hpsearch
