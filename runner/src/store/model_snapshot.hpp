#pragma once
// Private to runner/: the model directory snapshot an experiment in the store runs from, as
// Determined uploads a model definition: `.detignore` honoured, Python caches left out.

#include <filesystem>
#include <string>
#include <vector>

namespace hpsearch::store {

/// `.detignore` rules (gitignore syntax: `#` comments, `!` negation, a trailing `/` for
/// directories only, a `/` anywhere but the end anchors to the model directory, `*`, `?`,
/// `[...]`, and `**` across directories). The last rule that matches decides.
class IgnoreRules {
 public:
  IgnoreRules() = default;
  explicit IgnoreRules(const std::string& text);
  /// `path` is relative to the model directory, with `/` between its parts.
  [[nodiscard]] bool ignored(const std::string& path, bool is_directory) const;

 private:
  struct Rule {
    std::string pattern;
    bool negated = false;
    bool directory_only = false;
    bool anchored = false;  // matched against the whole path, not just the last part
  };
  std::vector<Rule> rules_;
};

/// Copies `model_dir` into `target` (created) without what its `.detignore` excludes,
/// `__pycache__` directories and `*.pyc` files; then each of `includes` (a file or a
/// directory) into `target` under its own name. Throws StoreError naming a missing source or
/// a name given twice. `exclude` (the store, when it lies inside the model directory) is skipped.
void snapshot_model(const std::filesystem::path& model_dir,
                    const std::vector<std::filesystem::path>& includes,
                    const std::filesystem::path& target, const std::filesystem::path& exclude);

}  // namespace hpsearch::store
