// The drive protocol's throughput through a pipe: a small driver (this benchmark) runs
// `searcher-sim drive` as a child process and plays a random search through it, one event
// line out and one answer line back at a time, as a master in another language would.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

extern char** environ;

namespace {

class DriveProcess {
 public:
  explicit DriveProcess(const std::string& config) {
    int to_child[2];
    int from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    posix_spawn_file_actions_addclose(&actions, to_child[1]);
    posix_spawn_file_actions_addclose(&actions, from_child[0]);
    std::string program = SEARCHER_SIM;
    std::string drive = "drive";
    std::string flag = "--config";
    std::string path = config;
    char* argv[] = {program.data(), drive.data(), flag.data(), path.data(), nullptr};
    if (posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv, environ) != 0) {
      throw std::runtime_error("cannot start searcher-sim");
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    out_ = ::fdopen(to_child[1], "w");
    in_ = ::fdopen(from_child[0], "r");
  }
  ~DriveProcess() {
    std::fclose(out_);
    std::fclose(in_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  DriveProcess(const DriveProcess&) = delete;
  DriveProcess& operator=(const DriveProcess&) = delete;

  nlohmann::json ask(const std::string& line) {
    std::fputs(line.c_str(), out_);
    std::fputc('\n', out_);
    std::fflush(out_);
    ++lines_;
    char* buffer = nullptr;
    std::size_t size = 0;
    const ssize_t n = ::getline(&buffer, &size, in_);
    if (n <= 0) throw std::runtime_error("searcher-sim drive ended");
    nlohmann::json answer = nlohmann::json::parse(std::string(buffer, static_cast<std::size_t>(n)));
    std::free(buffer);
    return answer;
  }
  [[nodiscard]] std::uint64_t lines() const { return lines_; }

 private:
  pid_t pid_ = 0;
  FILE* out_ = nullptr;
  FILE* in_ = nullptr;
  std::uint64_t lines_ = 0;
};

void BM_Drive_RandomSearchThroughPipe(benchmark::State& state) {
  const std::string config = "/tmp/hpsearch-drive-bench-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(config) << "searcher: {name: random, metric: loss, max_trials: " << state.range(0)
                        << ", max_length: 100, max_concurrent_trials: 16}\n"
                           "hyperparameters: {lr: {type: log, minval: -5, maxval: -1, base: 10}}\n";
  std::uint64_t lines = 0;
  for (auto _ : state) {
    DriveProcess drive(config);
    std::deque<nlohmann::json> pending;
    const auto take = [&](const nlohmann::json& answer) {
      for (const nlohmann::json& op : answer.at("operations")) {
        if (op.at("type") != "shutdown") pending.push_back(op);
      }
    };
    take(drive.ask(R"({"event":"initial_operations"})"));
    while (!pending.empty()) {
      const nlohmann::json op = pending.front();
      pending.pop_front();
      const std::string id = op.at("request_id");
      const std::string type = op.at("type");
      if (type == "create") {
        take(drive.ask(R"({"event":"trial_created","request_id":")" + id + "\"}"));
      } else if (type == "validate_after") {
        take(drive.ask(R"({"event":"validation_completed","request_id":")" + id +
                       R"(","metric":0.5,"length":)" + op.at("length").dump() + "}"));
      } else if (type == "close") {
        take(drive.ask(R"({"event":"trial_closed","request_id":")" + id + "\"}"));
      }
    }
    lines += drive.lines();
  }
  std::remove(config.c_str());
  state.counters["lines/s"] =
      benchmark::Counter(static_cast<double>(lines), benchmark::Counter::kIsRate);
  state.SetItemsProcessed(state.iterations() * state.range(0));  // trials
}
// Real time: the work is split between this driver and the child.
BENCHMARK(BM_Drive_RandomSearchThroughPipe)
    ->Arg(1000)
    ->Arg(10000)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
