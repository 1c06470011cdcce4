// hpsearch._core: the Python extension (pybind11) under python/hpsearch. One translation unit,
// thin on purpose: every call goes to the library function the programs and the C ABI call
// (drive_event answers events as `searcher-sim drive` does; run_config, compare_configs and
// simulate/preview_on_workers are what `searcher-sim run/compare/preview` run), and the
// options of run, compare and preview are read by parse_searcher_sim_args, so their checks
// and messages are the command line's. Values cross as Python objects converted to and from
// nlohmann::json, in the drive protocol's shapes (docs/protocol.md).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "hpsearch/config/command_line.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/cli.hpp"
#include "hpsearch/simulator/compare.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "hpsearch/simulator/preview.hpp"
#include "hpsearch/simulator/reports.hpp"
#include "hpsearch/simulator/workload.hpp"

namespace py = pybind11;

namespace {

// ---- values: Python objects <-> JSON ----------------------------------------------------------

// `depth`: the containers around `value`. Deeper than the JSON readers' limit is refused as
// they refuse it (a list nested 60,000 deep would otherwise overflow the stack here).
nlohmann::json to_json(const py::handle& value, std::size_t depth = 0) {
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) {
    // Non-negative integers are unsigned, as nlohmann::json parses them (a snapshot holds
    // 64-bit generator states above 2^63).
    int overflow = 0;
    const long long as_signed = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow == 0) {
      if (as_signed >= 0) return static_cast<std::uint64_t>(as_signed);
      return static_cast<std::int64_t>(as_signed);
    }
    if (overflow > 0) {
      const unsigned long long as_unsigned = PyLong_AsUnsignedLongLong(value.ptr());
      if (!PyErr_Occurred()) return static_cast<std::uint64_t>(as_unsigned);
      PyErr_Clear();
    }
    throw hpsearch::ProtocolError("expected an integer in 64 bits, got " +
                                  py::repr(value).cast<std::string>());
  }
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  const bool container = py::isinstance<py::dict>(value) || py::isinstance<py::list>(value) ||
                         py::isinstance<py::tuple>(value);
  if (container && depth + 1 > hpsearch::kMaxJsonDepth) {
    throw hpsearch::ProtocolError("expected a JSON value nested at most " +
                                  std::to_string(hpsearch::kMaxJsonDepth) +
                                  " levels deep (the limit), got one nested deeper");
  }
  if (py::isinstance<py::dict>(value)) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [key, item] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key)) {
        throw hpsearch::ProtocolError("expected string keys, got the key " +
                                      py::repr(key).cast<std::string>());
      }
      object[key.cast<std::string>()] = to_json(item, depth + 1);
    }
    return object;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    nlohmann::json array = nlohmann::json::array();
    for (const auto& item : value) array.push_back(to_json(item, depth + 1));
    return array;
  }
  throw hpsearch::ProtocolError(
      "expected a JSON value (dict, list, str, int, float, bool, None), got " +
      py::repr(value).cast<std::string>());
}

py::object to_python(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return py::float_(value.get<double>());
    case nlohmann::json::value_t::string:
      return py::str(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list list(value.size());
      for (std::size_t i = 0; i < value.size(); ++i) list[i] = to_python(value[i]);
      return list;
    }
    case nlohmann::json::value_t::object: {
      py::dict dict;
      for (const auto& [key, item] : value.items()) dict[py::str(key)] = to_python(item);
      return dict;
    }
    case nlohmann::json::value_t::binary:
    case nlohmann::json::value_t::discarded:
      break;
  }
  throw std::logic_error("a JSON value of a kind the library never produces");
}

// ---- configs ---------------------------------------------------------------------------------

// A config given as a path (os.PathLike, resolved by the Python layer to str) or as text.
struct ConfigSource {
  std::string text_or_path;
  bool is_path = false;
};

hpsearch::ExperimentConfig load(const ConfigSource& source) {
  return source.is_path ? hpsearch::load_config(source.text_or_path)
                        : hpsearch::parse_config(source.text_or_path, "config");
}

// The options of a searcher-sim command, read exactly as the program reads them. The Python
// layer turns its keyword arguments into the flags; the config itself is loaded here.
template <class Command>
Command parse_command(const std::string& name, std::vector<std::string> flags) {
  flags.insert(flags.begin(), name);
  hpsearch::SimCommand parsed = hpsearch::parse_searcher_sim_args(flags);
  if (auto* command = std::get_if<Command>(&parsed)) return std::move(*command);
  throw std::logic_error("searcher-sim " + name + ": the options did not make a command");
}

std::unique_ptr<hpsearch::Workload> workload_of(const hpsearch::WorkloadChoice& choice) {
  return choice.data_dir ? hpsearch::make_workload(choice.name, *choice.data_dir)
                         : hpsearch::make_workload(choice.name);
}

// ---- the Searcher -----------------------------------------------------------------------------

class PySearcher {
 public:
  PySearcher(const ConfigSource& config, std::optional<std::uint32_t> seed, bool explain)
      : searcher_(make(load(config), seed)), options_{explain, {}} {}

  // One event of the drive protocol in, its answer out; a refused event raises ProtocolError
  // with the library's message (the searcher is unchanged, as the protocol promises).
  py::object feed(const py::handle& event) {
    const nlohmann::json answer = hpsearch::drive_event(searcher_, to_json(event), options_);
    if (const auto error = answer.find("error"); error != answer.end()) {
      throw hpsearch::ProtocolError(error->get<std::string>());
    }
    return to_python(answer);
  }

  [[nodiscard]] double progress() const { return searcher_.progress(); }
  py::object snapshot() const { return to_python(searcher_.snapshot()); }
  void restore(const py::handle& state) { searcher_.restore(to_json(state)); }

 private:
  static hpsearch::Searcher make(const hpsearch::ExperimentConfig& config,
                                 std::optional<std::uint32_t> seed) {
    return hpsearch::make_searcher(config.searcher, config.hyperparameters,
                                   hpsearch::search_seed(config, seed));
  }

  hpsearch::Searcher searcher_;
  hpsearch::DriveOptions options_;
};

// ---- the simulator ----------------------------------------------------------------------------

py::object run(const ConfigSource& config, const std::vector<std::string>& flags) {
  const auto command = parse_command<hpsearch::RunCommand>("run", flags);
  const std::unique_ptr<hpsearch::Workload> workload = workload_of(command.workload);
  const hpsearch::ExperimentConfig loaded = load(config);
  const std::uint32_t seed = hpsearch::search_seed(loaded, command.seed);
  nlohmann::json json;
  {
    py::gil_scoped_release unlocked;  // a long run lets other Python threads go on
    const hpsearch::RunSummary summary =
        hpsearch::run_config(loaded, seed, *workload, command.options);
    json = hpsearch::run_json(summary, seed, *workload, command.options.workers);
  }
  return to_python(json);
}

py::object compare(const std::vector<ConfigSource>& configs, const std::vector<std::string>& names,
                   const std::vector<std::string>& flags) {
  const auto command = parse_command<hpsearch::CompareCommand>("compare", flags);
  const std::unique_ptr<hpsearch::Workload> workload = workload_of(command.workload);
  std::vector<hpsearch::ExperimentConfig> loaded;
  for (const ConfigSource& config : configs) loaded.push_back(load(config));
  nlohmann::json json;
  {
    py::gil_scoped_release unlocked;
    const hpsearch::CompareResult result = hpsearch::compare_configs(
        loaded, names, *workload, command.seeds, command.options, command.times, command.target);
    json = hpsearch::compare_json(result, *workload, command.options.workers);
  }
  return to_python(json);
}

py::object preview(const ConfigSource& config, const std::vector<std::string>& flags) {
  const auto command = parse_command<hpsearch::PreviewCommand>("preview", flags);
  const hpsearch::ExperimentConfig loaded = load(config);
  const std::uint32_t seed = hpsearch::search_seed(loaded, command.seed);
  nlohmann::json json;
  {
    py::gil_scoped_release unlocked;
    if (command.workers) {
      const hpsearch::WorkerPreview on_workers =
          hpsearch::preview_on_workers(loaded, seed, command.preview, *command.workers);
      json = hpsearch::preview_json(on_workers.result, loaded, seed, &on_workers);
    } else {
      json = hpsearch::preview_json(hpsearch::preview_config(loaded, seed, command.preview), loaded,
                                    seed);
    }
  }
  return to_python(json);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "hpsearch's library, in-process (see the hpsearch package for the documented API)";
  m.attr("__version__") = HPSEARCH_VERSION;

  // The library's errors, with its messages; the Python layer re-exports them.
  const auto value_error = py::handle(PyExc_ValueError);
  py::register_exception<hpsearch::ConfigError>(m, "ConfigError", value_error);
  py::register_exception<hpsearch::ProtocolError>(m, "ProtocolError", value_error);
  py::register_exception<hpsearch::UsageError>(m, "UsageError", value_error);
  py::register_exception<hpsearch::SimulationError>(m, "SimulationError", PyExc_RuntimeError);

  py::class_<ConfigSource>(m, "_ConfigSource")
      .def(py::init<std::string, bool>(), py::arg("text_or_path"), py::arg("is_path"));

  py::class_<PySearcher>(m, "_Searcher")
      .def(py::init<const ConfigSource&, std::optional<std::uint32_t>, bool>(), py::arg("config"),
           py::arg("seed"), py::arg("explain"))
      .def("feed", &PySearcher::feed, py::arg("event"))
      .def_property_readonly("progress", &PySearcher::progress)
      .def("snapshot", &PySearcher::snapshot)
      .def("restore", &PySearcher::restore, py::arg("snapshot"));

  m.def("_run", &run, py::arg("config"), py::arg("flags"));
  m.def("_compare", &compare, py::arg("configs"), py::arg("names"), py::arg("flags"));
  m.def("_preview", &preview, py::arg("config"), py::arg("flags"));
}
