#include "launchers/launcher_table.hpp"

#include <stdexcept>

#include "hpsearch/runner/launcher.hpp"

namespace hpsearch {

const std::vector<LauncherKind>& launcher_kinds() {
  static const std::vector<LauncherKind> kinds{
      local_launcher_kind(),
      slurm_launcher_kind(),
  };
  return kinds;
}

const LauncherKind& launcher_kind(const std::string& name) {
  std::string names;
  const std::vector<LauncherKind>& kinds = launcher_kinds();
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i].name == name) return kinds[i];
    names += (i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + kinds[i].name;
  }
  throw std::invalid_argument("expected " + names + ", got '" + name + "'");
}

std::unique_ptr<Launcher> make_launcher(const LaunchSettings& settings) {
  return launcher_kind(settings.launcher).make(settings.options);
}

}  // namespace hpsearch
