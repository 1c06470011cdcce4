#pragma once
// Private to runner/: the model directory snapshot an experiment in the store runs from, as
// Determined uploads a model definition: `.detignore` honoured, Python caches left out.

#include <cstdint>
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

/// Determined's limit on a model definition, the context directory and its includes after
/// .detignore (its CLI's constants.MAX_CONTEXT_SIZE: a 128 MiB request, base64-encoded, less
/// 1 MiB for the envelope): 95 MiB. `det experiment create` refuses a larger one.
inline constexpr std::uintmax_t kMaxModelBytes = 95ULL * 1024 * 1024;

/// The bytes of what snapshot_model would copy, as Determined counts a context (each regular
/// file's size rounded up to a multiple of 3, its base64 length x 3/4). Throws StoreError
/// naming a missing model directory or include.
[[nodiscard]] std::uintmax_t model_size(const std::filesystem::path& model_dir,
                                        const std::vector<std::filesystem::path>& includes,
                                        const std::filesystem::path& exclude);
/// Throws StoreError naming the model directory, its size and `limit` when model_size is over
/// it. Reads sizes only: a sparse file counts its length.
void check_model_size(const std::filesystem::path& model_dir,
                      const std::vector<std::filesystem::path>& includes,
                      const std::filesystem::path& exclude, std::uintmax_t limit = kMaxModelBytes);

/// Copies `model_dir` into `target` (created) without what its `.detignore` excludes,
/// `__pycache__` directories and `*.pyc` files; then each of `includes` (a file or a
/// directory) into `target` under its own name. Throws StoreError naming a missing source or
/// a name given twice. `exclude` (the store, when it lies inside the model directory) is skipped.
void snapshot_model(const std::filesystem::path& model_dir,
                    const std::vector<std::filesystem::path>& includes,
                    const std::filesystem::path& target, const std::filesystem::path& exclude);

}  // namespace hpsearch::store
