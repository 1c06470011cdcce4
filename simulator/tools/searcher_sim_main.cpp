// searcher-sim: preview and drive hpsearch searches. All logic lives in the simulator library.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "hpsearch/simulator/cli.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::vector<std::string> args(argv + 1, argv + argc);
  return hpsearch::run_searcher_sim(args, std::cin, std::cout, std::cerr,
                                    isatty(STDERR_FILENO) == 1);
}
