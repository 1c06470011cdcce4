#pragma once
// Private to runner/: the web UI's pages (runner/ui/*), compiled into searcher-run by
// cmake/embed_assets.cmake; the server serves these and nothing else from disk.

#include <string_view>

namespace hpsearch::ui {

struct Asset {
  std::string_view content_type;
  std::string_view body;
};

/// The asset at `path` ("/index.html", "/app.js", ...), exactly; nullptr for any other path.
[[nodiscard]] const Asset* find_asset(std::string_view path);

}  // namespace hpsearch::ui
