// The C ABI (hpsearch/hpsearch.h) over the library calls the programs use: parse_config and
// make_searcher build the searcher as `searcher-sim drive` does, and drive_line answers events,
// so the C ABI and the drive protocol cannot drift apart. Every exception stops here.
#include "hpsearch/hpsearch.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/drive.hpp"

struct hpsearch_searcher {
  hpsearch::Searcher searcher;
  std::string answer;      // the last answer, snapshot handed out
  std::string last_error;  // the message of the last failed call
};

namespace {

// The header's version macros must agree with the project's version (CMakeLists.txt).
static_assert(HPSEARCH_VERSION_MAJOR == HPSEARCH_PROJECT_VERSION_MAJOR &&
              HPSEARCH_VERSION_MINOR == HPSEARCH_PROJECT_VERSION_MINOR);
constexpr const char* kVersion = HPSEARCH_PROJECT_VERSION;

// A copy the caller frees with hpsearch_string_free; NULL if even that cannot be allocated.
char* malloc_copy(const std::string& text) {
  auto* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy != nullptr) std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

// Stores an error message; if even that cannot be allocated, the message is left empty rather
// than letting bad_alloc escape a catch handler into C.
void set_error(std::string& slot, const char* text) noexcept {
  try {
    slot = text;
  } catch (...) {  // only bad_alloc can come from here
    slot.clear();
  }
}

// Runs `body` on a searcher, turning every exception into a status and last_error. A
// ProtocolError (the caller's input) leaves the searcher unchanged, as the library promises.
template <class Body>
hpsearch_status guarded(hpsearch_searcher* s, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const hpsearch::ProtocolError& e) {
    set_error(s->last_error, e.what());
    return HPSEARCH_INVALID_INPUT;
  } catch (const std::bad_alloc&) {
    set_error(s->last_error, "out of memory");
    return HPSEARCH_INTERNAL_ERROR;
  } catch (const std::exception& e) {
    set_error(s->last_error, e.what());
    return HPSEARCH_INTERNAL_ERROR;
  } catch (...) {  // nothing may unwind into C; this reports it instead of swallowing it
    set_error(s->last_error, "unknown internal error");
    return HPSEARCH_INTERNAL_ERROR;
  }
}

}  // namespace

extern "C" {

const char* hpsearch_version(void) {
  return kVersion;
}

hpsearch_searcher* hpsearch_searcher_new(const char* config_text, const char* source,
                                         const uint32_t* seed, char** error) {
  if (error != nullptr) *error = nullptr;
  std::string message;
  try {
    if (config_text == nullptr)
      throw std::invalid_argument("config_text: expected a config, got NULL");
    const hpsearch::ExperimentConfig config =
        hpsearch::parse_config(config_text, source != nullptr ? source : "config");
    const std::uint32_t search_seed = seed != nullptr ? *seed : config.experiment_seed.value_or(0);
    return new hpsearch_searcher{
        hpsearch::make_searcher(config.searcher, config.hyperparameters, search_seed), {}, {}};
  } catch (const std::bad_alloc&) {
    set_error(message, "out of memory");
  } catch (const std::exception& e) {  // ConfigError, or a grid too large to count
    set_error(message, e.what());
  } catch (...) {  // nothing may unwind into C
    set_error(message, "unknown internal error");
  }
  if (error != nullptr) *error = malloc_copy(message);
  return nullptr;
}

void hpsearch_searcher_free(hpsearch_searcher* searcher) {
  delete searcher;
}

void hpsearch_string_free(char* text) {
  std::free(text);
}

hpsearch_status hpsearch_searcher_feed(hpsearch_searcher* searcher, const char* line,
                                       const char** answer) {
  if (searcher == nullptr) return HPSEARCH_INVALID_INPUT;
  if (answer != nullptr) *answer = nullptr;
  return guarded(searcher, [&] {
    const nlohmann::json response =
        line != nullptr ? hpsearch::drive_line(searcher->searcher, line)
                        : nlohmann::json{{"error", "line: expected a JSON object, got NULL"}};
    searcher->answer = hpsearch::json_line(response);
    if (answer != nullptr) *answer = searcher->answer.c_str();
    if (response.contains("error")) {
      searcher->last_error = response.at("error").get<std::string>();
      return HPSEARCH_INVALID_INPUT;
    }
    return HPSEARCH_OK;
  });
}

double hpsearch_searcher_progress(const hpsearch_searcher* searcher) {
  return searcher != nullptr ? searcher->searcher.progress() : 0.0;
}

hpsearch_status hpsearch_searcher_snapshot(hpsearch_searcher* searcher, const char** snapshot) {
  if (searcher == nullptr) return HPSEARCH_INVALID_INPUT;
  return guarded(searcher, [&] {
    if (snapshot == nullptr)
      throw hpsearch::ProtocolError("snapshot: expected an output pointer, got NULL");
    searcher->answer = hpsearch::json_line(searcher->searcher.snapshot());
    *snapshot = searcher->answer.c_str();
    return HPSEARCH_OK;
  });
}

hpsearch_status hpsearch_searcher_restore(hpsearch_searcher* searcher, const char* snapshot) {
  if (searcher == nullptr) return HPSEARCH_INVALID_INPUT;
  return guarded(searcher, [&] {
    if (snapshot == nullptr)
      throw hpsearch::ProtocolError("snapshot: expected a JSON object, got NULL");
    // A snapshot is not a protocol line: it may be as large as the runner's own files.
    if (const auto refused = hpsearch::json_limit_violation(snapshot, hpsearch::kDocumentLimits))
      throw hpsearch::ProtocolError("snapshot: refused: " + *refused);
    nlohmann::json state;
    try {
      state = hpsearch::parse_json(snapshot, hpsearch::kDocumentLimits);
    } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number out of range
      throw hpsearch::ProtocolError("snapshot: not valid JSON: " + hpsearch::parse_error_text(e));
    }
    searcher->searcher.restore(state);
    return HPSEARCH_OK;
  });
}

const char* hpsearch_searcher_last_error(const hpsearch_searcher* searcher) {
  return searcher != nullptr ? searcher->last_error.c_str() : "searcher: NULL handle";
}

}  // extern "C"
