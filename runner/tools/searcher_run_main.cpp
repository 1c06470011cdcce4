// searcher-run: a local experiment master. All logic lives in the runner library.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "hpsearch/runner/cli.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return hpsearch::run_searcher_run(args, std::cout, std::cerr, isatty(STDERR_FILENO) == 1);
}
