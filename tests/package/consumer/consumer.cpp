// C++ through the installed CMake package: the first answer of a search.
// usage: consumer_cpp CONFIG SEED
#include <cstdlib>
#include <iostream>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/searcher/json_lines.hpp"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const hpsearch::ExperimentConfig config = hpsearch::load_config(argv[1]);
  hpsearch::Searcher searcher =
      hpsearch::make_searcher(config.searcher, config.hyperparameters,
                              static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10)));
  std::cout << hpsearch::json_line(hpsearch::operations_answer(searcher.initial_operations()))
            << '\n';
}
