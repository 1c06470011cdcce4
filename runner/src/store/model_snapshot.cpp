#include "store/model_snapshot.hpp"

#include <fstream>
#include <iterator>
#include <sstream>

#include "store/store.hpp"

namespace hpsearch::store {
namespace {

namespace fs = std::filesystem;

// `[...]` at pattern[p] (p at the '['): does `c` match? `end` gets the position after ']'.
// An unterminated class is a literal '['.
bool class_matches(const std::string& pattern, std::size_t p, char c, std::size_t& end) {
  std::size_t q = p + 1;
  const bool negate = q < pattern.size() && (pattern[q] == '!' || pattern[q] == '^');
  if (negate) ++q;
  bool matched = false;
  bool first = true;
  for (; q < pattern.size() && (first || pattern[q] != ']'); ++q, first = false) {
    if (q + 2 < pattern.size() && pattern[q + 1] == '-' && pattern[q + 2] != ']') {
      matched = matched || (pattern[q] <= c && c <= pattern[q + 2]);
      q += 2;
    } else {
      matched = matched || pattern[q] == c;
    }
  }
  if (q >= pattern.size()) {
    end = p + 1;
    return c == '[';
  }
  end = q + 1;
  return matched != negate;
}

// Glob match of text[t..] against pattern[p..]: `*` and `?` stay within one path part,
// `**` crosses parts ("**/" also matches no directory at all).
bool glob(const std::string& pattern, std::size_t p, const std::string& text, std::size_t t) {
  while (p < pattern.size()) {
    if (pattern.compare(p, 2, "**") == 0) {
      std::size_t rest = p + 2;
      const bool slash = rest < pattern.size() && pattern[rest] == '/';
      if (slash) ++rest;
      for (std::size_t k = t; k <= text.size(); ++k) {
        if ((!slash || k == t || text[k - 1] == '/') && glob(pattern, rest, text, k)) return true;
      }
      return false;
    }
    const char c = pattern[p];
    if (c == '*') {
      for (std::size_t k = t; k <= text.size(); ++k) {
        if (glob(pattern, p + 1, text, k)) return true;
        if (k < text.size() && text[k] == '/') break;
      }
      return false;
    }
    if (t >= text.size()) return false;
    if (c == '?') {
      if (text[t] == '/') return false;
      ++p;
    } else if (c == '[') {
      std::size_t end = 0;
      if (text[t] == '/' || !class_matches(pattern, p, text[t], end)) return false;
      p = end;
    } else {
      if (c == '\\' && p + 1 < pattern.size()) ++p;
      if (pattern[p] != text[t]) return false;
      ++p;
    }
    ++t;
  }
  return t == text.size();
}

void copy_entry(const fs::path& from, const fs::path& to, bool is_directory) {
  if (fs::is_symlink(from)) {
    fs::copy_symlink(from, to);
  } else if (is_directory) {
    fs::create_directories(to);
  } else {
    fs::copy_file(from, to);
  }
}

bool python_cache(const fs::path& path, bool is_directory) {
  return is_directory ? path.filename() == "__pycache__" : path.extension() == ".pyc";
}

// Calls `visit(path, relative path, is_dir)` for each entry of the tree at `source` that the
// snapshot takes: not what `skip(relative path, is_dir)` says, nor Python caches, nor
// `exclude`. The one walk both the copy and the size check make, so they agree.
template <typename Skip, typename Visit>
void walk_tree(const fs::path& source, const fs::path& exclude, const Skip& skip,
               const Visit& visit) {
  const fs::path own = fs::weakly_canonical(exclude);  // a store inside the model directory
  for (auto it = fs::recursive_directory_iterator(source); it != fs::recursive_directory_iterator();
       ++it) {
    const bool is_directory = it->is_directory() && !it->is_symlink();
    const fs::path relative = it->path().lexically_relative(source);
    if (is_directory && fs::weakly_canonical(it->path()) == own) {
      it.disable_recursion_pending();
      continue;
    }
    if (skip(relative.generic_string(), is_directory) || python_cache(it->path(), is_directory)) {
      if (is_directory) it.disable_recursion_pending();
      continue;
    }
    visit(it->path(), relative, is_directory);
  }
}

// Copies the tree at `source` into `target`, skipping what `skip(relative path, is_dir)` says.
template <typename Skip>
void copy_tree(const fs::path& source, const fs::path& target, const fs::path& exclude,
               const Skip& skip) {
  fs::create_directories(target);
  walk_tree(source, exclude, skip, [&](const fs::path& path, const fs::path& relative, bool dir) {
    copy_entry(path, target / relative, dir);
  });
}

IgnoreRules detignore_of(const fs::path& model_dir) {
  std::ifstream in(model_dir / ".detignore");
  if (!in) return {};
  return IgnoreRules(
      std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

// What an include names: a directory given with a trailing '/' is the directory.
fs::path include_source(const fs::path& include) {
  return include.has_filename() ? include : include.parent_path();
}

// A file's bytes as Determined counts them: its base64 content's length x 3/4, i.e. the size
// rounded up to a multiple of 3 (v1File_size). Directories and symbolic links count nothing.
std::uintmax_t counted_bytes(const fs::path& path) {
  if (fs::is_symlink(path) || !fs::is_regular_file(path)) return 0;
  return (fs::file_size(path) + 2) / 3 * 3;
}

std::string mib(std::uintmax_t bytes) {
  std::ostringstream text;
  text.setf(std::ios::fixed);
  text.precision(1);
  text << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB (" << bytes << " bytes)";
  return text.str();
}

}  // namespace

std::uintmax_t model_size(const fs::path& model_dir, const std::vector<fs::path>& includes,
                          const fs::path& exclude) {
  if (!fs::is_directory(model_dir))
    throw StoreError("model directory '" + model_dir.string() + "' is not a directory");
  const IgnoreRules rules = detignore_of(model_dir);
  std::uintmax_t total = 0;
  const auto add = [&](const fs::path& path, const fs::path&, bool) {
    total += counted_bytes(path);
  };
  walk_tree(
      model_dir, exclude,
      [&](const std::string& path, bool is_directory) { return rules.ignored(path, is_directory); },
      add);
  for (const fs::path& include : includes) {
    const fs::path source = include_source(include);
    if (!fs::exists(source)) throw StoreError("include '" + include.string() + "' does not exist");
    if (fs::is_directory(source)) {
      walk_tree(
          source, exclude, [](const std::string&, bool) { return false; }, add);
    } else {
      total += counted_bytes(source);
    }
  }
  return total;
}

void check_model_size(const fs::path& model_dir, const std::vector<fs::path>& includes,
                      const fs::path& exclude, std::uintmax_t limit) {
  const std::uintmax_t size = model_size(model_dir, includes, exclude);
  if (size <= limit) return;
  throw StoreError("model directory '" + model_dir.string() + "'" +
                   (includes.empty() ? "" : " with its includes") + " holds " + mib(size) +
                   " after .detignore, over Determined's limit on a model definition, " +
                   mib(limit) +
                   "; nothing was stored. List the large files in its .detignore (or keep them "
                   "outside the model directory and read them from where they are)");
}

IgnoreRules::IgnoreRules(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    while (!line.empty() && line.back() == ' ' &&
           !(line.size() >= 2 && line[line.size() - 2] == '\\'))
      line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    Rule rule;
    if (line.front() == '!') {
      rule.negated = true;
      line.erase(0, 1);
    } else if (line.front() == '\\') {
      line.erase(0, 1);  // "\#" and "\!" are literal
    }
    if (!line.empty() && line.back() == '/') {
      rule.directory_only = true;
      line.pop_back();
    }
    rule.anchored = line.find('/') != std::string::npos;
    if (!line.empty() && line.front() == '/') line.erase(0, 1);
    if (line.empty()) continue;
    rule.pattern = line;
    rules_.push_back(std::move(rule));
  }
}

bool IgnoreRules::ignored(const std::string& path, bool is_directory) const {
  const std::size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  bool ignored = false;
  for (const Rule& rule : rules_) {
    if (rule.directory_only && !is_directory) continue;
    if (glob(rule.pattern, 0, rule.anchored ? path : name, 0)) ignored = !rule.negated;
  }
  return ignored;
}

void snapshot_model(const fs::path& model_dir, const std::vector<fs::path>& includes,
                    const fs::path& target, const fs::path& exclude) {
  if (!fs::is_directory(model_dir))
    throw StoreError("model directory '" + model_dir.string() + "' is not a directory");
  const IgnoreRules rules = detignore_of(model_dir);
  copy_tree(model_dir, target, exclude, [&](const std::string& path, bool is_directory) {
    return rules.ignored(path, is_directory);
  });
  for (const fs::path& include : includes) {
    const fs::path source = include_source(include);
    if (!fs::exists(source)) throw StoreError("include '" + include.string() + "' does not exist");
    const fs::path destination = target / source.filename();
    if (fs::exists(destination)) {
      throw StoreError("include '" + include.string() + "': the model directory already has '" +
                       source.filename().string() + "'");
    }
    if (fs::is_directory(source)) {
      copy_tree(source, destination, exclude, [](const std::string&, bool) { return false; });
    } else {
      copy_entry(source, destination, false);
    }
  }
}

}  // namespace hpsearch::store
