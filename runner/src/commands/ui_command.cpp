// `searcher-run ui [--port N] [--host H] [--dir RUN]`: the web UI over the experiment store, or
// over one run or simulation directory (docs/ui.md). The server and the API are runner/src/ui/.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store/store.hpp"
#include "ui/api.hpp"

namespace hpsearch::store {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kDefaultPort = 8080;

/// The host as it appears in a URL: an IPv6 address in brackets. (Appended, not "[" + ...:
/// GCC 12 warns wrongly, -Wrestrict, on that.)
std::string url_host(const std::string& host) {
  if (host.find(':') == std::string::npos) return host;
  std::string bracketed = "[";
  bracketed += host;
  bracketed += ']';
  return bracketed;
}

bool loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

/// The Host headers a browser sends for the address served (a loopback one by each of its
/// names); anything else is refused (DNS rebinding). A wildcard address answers any name.
std::vector<std::string> host_names(const std::string& host, int port) {
  std::string p = ":";
  p += std::to_string(port);
  if (host == "0.0.0.0" || host == "::") return {};
  std::vector<std::string> names{url_host(host) + p};
  if (loopback(host)) {
    for (const char* name : {"127.0.0.1", "localhost", "[::1]"}) names.push_back(name + p);
  }
  return names;
}

int serve_ui(const cli::Args& args, std::ostream& out, std::ostream& err, bool) {
  const auto port = static_cast<int>(args.count("--port", 0, 65535).value_or(kDefaultPort));
  const std::string host = args.value("--host").value_or("127.0.0.1");
  ui::ApiSettings settings;
  if (const auto dir = args.value("--dir")) {
    if (!fs::is_directory(*dir)) throw UsageError("--dir: '" + *dir + "' is not a directory");
    settings.run_directory = fs::path(*dir);
  } else {
    settings.store_root = default_root();
  }
  settings.token = ui::new_token();
  std::error_code error;
  settings.program = fs::read_symlink("/proc/self/exe", error);
  const std::string token = settings.token;
  const std::string what = settings.store_root
                               ? "the experiment store " + settings.store_root->string()
                               : "the directory " + settings.run_directory->string();
  ui::Api api(std::move(settings));
  if (!loopback(host)) {
    err << "searcher-run ui: listening on " << host
        << ", not a loopback address: anyone who can reach it can read " << what << '\n';
  }
  ui::serve(api, host, port, [&](int bound) {
    api.allow_hosts(host_names(host, bound));
    out << "searcher-run ui: serving " << what << "\n"
        << "  open http://" << url_host(host) << ':' << bound << "/#token=" << token << "\n"
        << "  token " << token << " (pause, activate and kill need it: the link carries it)"
        << std::endl;
  });
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& ui_command() {
  static const runner_cli::Command command{
      "ui [--port N] [--host H] [--dir RUN]",
      "the web UI: experiments, trials, curves and hyperparameters, live",
      "Serves the web UI over the experiment store ($HPSEARCH_HOME), or over one directory with\n"
      "--dir: a run's (searcher-run run --dir) or a simulation's (searcher-sim run --out), read-\n"
      "only. Prints the address to open, with a fresh token that pause, activate and kill need.\n"
      "It listens on 127.0.0.1 unless told otherwise, serves only its own pages and the\n"
      "experiments, and runs until interrupted. See docs/ui.md.\n",
      cli::OptionSet("ui")
          .value("--port", "N", "the port to listen on (default 8080; 0: any free one)")
          .value("--host", "H",
                 "the address to listen on (default 127.0.0.1; another exposes the store)")
          .value("--dir", "RUN", "serve this run or simulation directory instead of the store")
          .flag("--help", "this text"),
      serve_ui};
  return command;
}

}  // namespace hpsearch::store
