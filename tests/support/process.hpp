#pragma once
// Running the built programs from tests: a shell command with stdin from a string, its exit
// code and what it printed.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hpsearch::testing {

struct Run {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

/// Runs `program args` through the shell, with `input` on stdin; `dir` holds the captured
/// streams.
inline Run run_program(const std::string& program, const std::string& args,
                       const std::filesystem::path& dir, const std::string& input = "") {
  std::ofstream(dir / "in") << input;
  const std::string command = "'" + program + "' " + args + " < '" + (dir / "in").string() +
                              "' > '" + (dir / "out").string() + "' 2> '" + (dir / "err").string() +
                              "'";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(dir / "out"),
          read_file(dir / "err")};
}

}  // namespace hpsearch::testing
