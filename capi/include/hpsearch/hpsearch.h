/* hpsearch.h: the C ABI of hpsearch (C99). Embeds a searcher in any program that can call C:
 * a Go master through cgo, Rust, a C program. Events go in and operations come out as JSON
 * text, in exactly the shapes of the drive protocol (`searcher-sim drive`, docs/embedding.md):
 * the same code answers both.
 *
 * Handles are opaque and freed explicitly. No C++ exception crosses this interface: every
 * failure is a status code plus a message. Calls on distinct handles may run concurrently on
 * different threads; one handle must not be used by two threads at the same time.
 *
 * Strings passed in are NUL-terminated UTF-8 and are only read during the call. Strings
 * handed out by a searcher belong to it and stay valid until the next call on the same
 * handle (copy them to keep them); hpsearch_searcher_new's error message is the caller's and
 * is freed with hpsearch_string_free. */
#ifndef HPSEARCH_HPSEARCH_H
#define HPSEARCH_HPSEARCH_H

#include <stdint.h>

#if defined(__GNUC__)
#define HPSEARCH_API __attribute__((visibility("default")))
#else
#define HPSEARCH_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library (e.g. "0.2.0"); the soname changes with major.minor. */
#define HPSEARCH_VERSION_MAJOR 0
#define HPSEARCH_VERSION_MINOR 2

/* Outcome of a call. */
typedef enum hpsearch_status {
  HPSEARCH_OK = 0,
  /* The input was refused (a bad config, a malformed or disallowed event, a snapshot that does
   * not restore, a null argument). The searcher is unchanged; the message says which field,
   * which value and what was expected. */
  HPSEARCH_INVALID_INPUT = 1,
  /* The library failed (out of memory, an internal error). The message says what. */
  HPSEARCH_INTERNAL_ERROR = 2
} hpsearch_status;

/* One search: a searcher built from an experiment config. */
typedef struct hpsearch_searcher hpsearch_searcher;

/* The library's version as text, e.g. "0.2.0". Static storage. */
HPSEARCH_API const char* hpsearch_version(void);

/* Creates a searcher from the text of an experiment config, YAML or JSON (Determined's format,
 * docs/config.md). `source` names the config in error messages (e.g. a file name; NULL reads
 * as "config"). `seed` is the search seed; NULL means the config's
 * reproducibility.experiment_seed, else 0 (as `searcher-sim drive` without --seed).
 * Returns the searcher, or NULL on failure; then, if `error` is not NULL, *error is set to a
 * message such as "exp.yaml:4:15: searcher.max_trials: must be an integer >= 1, got -5", to
 * be freed with hpsearch_string_free. */
HPSEARCH_API hpsearch_searcher* hpsearch_searcher_new(const char* config_text, const char* source,
                                                      const uint32_t* seed, char** error);

/* Frees a searcher and everything it handed out. NULL is allowed. */
HPSEARCH_API void hpsearch_searcher_free(hpsearch_searcher* searcher);

/* Frees a string from hpsearch_searcher_new. NULL is allowed. */
HPSEARCH_API void hpsearch_string_free(char* text);

/* Answers one drive-protocol line, exactly as `searcher-sim drive` answers it:
 *   {"event":"initial_operations"}                       -> {"operations":[...]}
 *   {"event":"trial_created","request_id":U}             -> {"operations":[...]}
 *   {"event":"validation_completed","request_id":U,"metric":X,"length":N}
 *   {"event":"trial_progress","request_id":U,"units":X}
 *   {"event":"trial_exited_early","request_id":U,"reason":R}
 *   {"event":"trial_closed","request_id":U}
 *   {"event":"progress"} -> {"progress":X}, {"event":"snapshot"} -> {"snapshot":{...}},
 *   {"event":"restore","snapshot":{...}} -> {"restored":true}
 * *answer is set to the answer line (owned by the searcher). Returns HPSEARCH_OK, or
 * HPSEARCH_INVALID_INPUT when the answer is {"error":"..."} (the searcher is unchanged and
 * hpsearch_searcher_last_error gives the same message). After HPSEARCH_INTERNAL_ERROR,
 * *answer is NULL. `answer` itself may be NULL if the answer is not wanted. */
HPSEARCH_API hpsearch_status hpsearch_searcher_feed(hpsearch_searcher* searcher, const char* line,
                                                    const char** answer);

/* The fraction of the search done, in [0, 1]. O(1). */
HPSEARCH_API double hpsearch_searcher_progress(const hpsearch_searcher* searcher);

/* The searcher's whole state as JSON text (the value of the drive protocol's "snapshot"),
 * byte-identical for identical states. *snapshot is owned by the searcher. */
HPSEARCH_API hpsearch_status hpsearch_searcher_snapshot(hpsearch_searcher* searcher,
                                                        const char** snapshot);

/* Replaces the state with a snapshot taken from a searcher of the same config. On
 * HPSEARCH_INVALID_INPUT the state is unchanged. */
HPSEARCH_API hpsearch_status hpsearch_searcher_restore(hpsearch_searcher* searcher,
                                                       const char* snapshot);

/* The message of the last failed call on this searcher ("" if none failed yet). Owned by the
 * searcher, valid until the next failing call. */
HPSEARCH_API const char* hpsearch_searcher_last_error(const hpsearch_searcher* searcher);

#ifdef __cplusplus
}
#endif

#endif /* HPSEARCH_HPSEARCH_H */
