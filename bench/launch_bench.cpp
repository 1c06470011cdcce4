// What starting a local trial costs the runner as its memory grows (docs/PERFORMANCE.md,
// "Launching a trial"). Each iteration launches a trial that waits for one command line, writes
// to every page of a heap of the given size while the trial lives (the runner goes on deciding
// while its trials run), then lets the trial end and waits for its exit. Had the shepherd been
// a fork of the runner, the launch would copy the heap's page tables and every page written
// while the trial lives would be copied once more; spawned, neither grows with the heap.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpsearch/runner/launcher.hpp"

namespace {

void wait_for_exit(hpsearch::TrialProcess& trial) {
  std::string buffer;
  while (trial.read_reports(buffer)) ::usleep(50);
  while (!trial.poll_exit()) ::usleep(50);
}

void launch_while_writing_heap(benchmark::State& state) {
  const auto pages = static_cast<std::size_t>(state.range(0)) * 256;  // 4 KiB pages per MiB
  std::vector<char> heap(pages * 4096, 1);
  const std::filesystem::path directory = std::filesystem::temp_directory_path() /
                                          ("hpsearch-launch-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  hpsearch::LaunchSpec spec;
  spec.command = "read line <&3";
  spec.working_directory = directory;
  spec.log = directory / "trial.log";
  const std::unique_ptr<hpsearch::Launcher> launcher = hpsearch::make_local_launcher();
  char value = 0;
  for (auto _ : state) {
    const std::unique_ptr<hpsearch::TrialProcess> trial = launcher->launch(spec);
    ++value;
    for (std::size_t page = 0; page < pages; ++page) heap[page * 4096] = value;
    benchmark::DoNotOptimize(heap.data());
    if (!trial->send("go\n")) throw std::runtime_error("the trial did not read its line");
    wait_for_exit(*trial);
  }
  std::filesystem::remove_all(directory);
  state.SetLabel(std::to_string(state.range(0)) + " MiB written while the trial lives");
}
BENCHMARK(launch_while_writing_heap)->Arg(0)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace
