// Replays fuzz inputs through a target without libFuzzer, so that every build runs the
// checked-in corpora as ctest tests: each file named on the command line and each file under
// each directory named, in sorted order, once. A broken contract aborts; the last "replay:"
// line names the input.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];  // NOLINT(cppcoreguidelines-pro-bounds-pointer-arithmetic): argv
    if (fs::is_directory(arg)) {
      for (const fs::directory_entry& entry : fs::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file()) inputs.push_back(entry.path());
      }
    } else if (fs::is_regular_file(arg)) {
      inputs.push_back(arg);
    } else {
      std::cerr << "replay: no such file or directory: " << arg.string() << '\n';
      return 2;
    }
  }
  if (inputs.empty()) {
    std::cerr << "replay: no inputs (usage: replay FILE_OR_DIR...)\n";
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path& path : inputs) {
    std::cout << "replay: " << path.string() << std::endl;  // flushed: a crash comes next
    std::ifstream file(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                  std::istreambuf_iterator<char>());
    std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
    // A fresh allocation of exactly the input's size, as libFuzzer gives, so that ASan
    // catches a read past the end.
    LLVMFuzzerTestOneInput(data.data(), data.size());
  }
  std::cout << "replay: " << inputs.size() << " input(s), no contract broken\n";
  return 0;
}
