/* The C ABI, used from C as a master would: plays a whole search through hpsearch.h, writes
 * every line it fed and every answer it got, and checks the error paths and the threading
 * promise. capi_drive_test.cmake then feeds the same lines to `searcher-sim drive`, the
 * independent oracle, and requires byte-identical answers.
 *
 * usage: capi_test CONFIG SEED EVENTS_OUT ANSWERS_OUT */
#define _POSIX_C_SOURCE 200809L /* pthreads under -std=c99 */

#include <hpsearch/hpsearch.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* A growing text buffer: the transcript of one search. */
typedef struct {
  char* text;
  size_t size;
  size_t capacity;
} Buffer;

static void append(Buffer* b, const char* text) {
  const size_t n = strlen(text);
  if (b->size + n + 2 > b->capacity) {
    b->capacity = (b->size + n + 2) * 2;
    b->text = realloc(b->text, b->capacity);
    if (b->text == NULL) abort();
  }
  memcpy(b->text + b->size, text, n);
  b->size += n;
  b->text[b->size++] = '\n';
  b->text[b->size] = '\0';
}

/* One operation of an answer, as far as a master needs it. */
typedef struct {
  char type[16];
  char request_id[37];
  unsigned long long length;
} Op;

/* A FIFO of operations still to be acted on. */
typedef struct {
  Op* ops;
  size_t head;
  size_t tail;
  size_t capacity;
} Queue;

static void push(Queue* q, const Op* op) {
  if (q->tail == q->capacity) {
    q->capacity = q->capacity == 0 ? 64 : q->capacity * 2;
    q->ops = realloc(q->ops, q->capacity * sizeof(Op));
    if (q->ops == NULL) abort();
  }
  q->ops[q->tail++] = *op;
}

/* Reads the operations of an answer {"operations":[...]}. Keys are sorted in every operation
 * (hparams, length, request_id, trial_seed, type), so an operation's request id and length come
 * before its type; the test's configs have no hyperparameter named like these keys. */
static void take(Queue* q, const char* answer) {
  const char* cursor = answer;
  const char* op_start = answer;
  const char* type;
  while ((type = strstr(cursor, "\"type\":\"")) != NULL) {
    Op op;
    const char* id;
    const char* length;
    memset(&op, 0, sizeof op);
    sscanf(type + 8, "%15[a-z_]", op.type);
    id = strstr(op_start, "\"request_id\":\"");
    if (id != NULL && id < type) sscanf(id + 14, "%36[0-9a-f-]", op.request_id);
    length = strstr(op_start, "\"length\":");
    if (length != NULL && length < type) sscanf(length + 9, "%llu", &op.length);
    if (strcmp(op.type, "shutdown") != 0) push(q, &op);
    cursor = type + 8;
    op_start = cursor;
  }
}

/* A metric that depends on the trial and the length (FNV-1a of the id), so ASHA has ranks to
 * compare; any deterministic function serves, the oracle sees the same numbers. */
static double metric_of(const char* request_id, unsigned long long length) {
  uint32_t h = 2166136261u;
  for (const char* c = request_id; *c != '\0'; ++c) h = (h ^ (uint8_t)*c) * 16777619u;
  return (double)(h % 1000u) / 1000.0 + 100.0 / (double)(length + 1u);
}

typedef struct {
  const char* config;
  uint32_t seed;
  int restore_at; /* move to a restored searcher after this many events (0: never) */
  Buffer events;
  Buffer answers;
  double final_progress;
  int ok;
} Play;

static const char* feed(hpsearch_searcher* s, Play* play, const char* line) {
  const char* answer = NULL;
  const hpsearch_status status = hpsearch_searcher_feed(s, line, &answer);
  append(&play->events, line);
  if (answer == NULL) {
    fprintf(stderr, "no answer to %s: %s\n", line, hpsearch_searcher_last_error(s));
    play->ok = 0;
    return "";
  }
  append(&play->answers, answer);
  CHECK((status == HPSEARCH_OK) == (strstr(answer, "{\"error\":") != answer));
  return answer;
}

/* Plays a whole search FIFO: every create acknowledged, every validate_after answered with
 * metric_of, every close reported, with progress, trial_progress and snapshot lines between. */
static void* play_search(void* arg) {
  Play* play = arg;
  char* error = NULL;
  char line[256];
  int events = 0;
  Queue queue = {NULL, 0, 0, 0};
  hpsearch_searcher* s = hpsearch_searcher_new(play->config, "capi_test.yaml", &play->seed, &error);
  play->ok = s != NULL;
  if (s == NULL) {
    fprintf(stderr, "cannot create the searcher: %s\n", error);
    hpsearch_string_free(error);
    return NULL;
  }
  take(&queue, feed(s, play, "{\"event\":\"initial_operations\"}"));
  while (queue.head < queue.tail && play->ok) {
    const Op op = queue.ops[queue.head++];
    if (strcmp(op.type, "create") == 0) {
      snprintf(line, sizeof line, "{\"event\":\"trial_created\",\"request_id\":\"%s\"}",
               op.request_id);
    } else if (strcmp(op.type, "validate_after") == 0) {
      snprintf(line, sizeof line,
               "{\"event\":\"trial_progress\",\"request_id\":\"%s\",\"units\":%llu}", op.request_id,
               op.length / 2);
      take(&queue, feed(s, play, line));
      snprintf(line, sizeof line,
               "{\"event\":\"validation_completed\",\"request_id\":\"%s\",\"metric\":%.6f,"
               "\"length\":%llu}",
               op.request_id, metric_of(op.request_id, op.length), op.length);
    } else {
      snprintf(line, sizeof line, "{\"event\":\"trial_closed\",\"request_id\":\"%s\"}",
               op.request_id);
    }
    take(&queue, feed(s, play, line));
    ++events;
    if (events % 10 == 0) feed(s, play, "{\"event\":\"progress\"}");
    if (events == 25) {
      /* Refused lines get the drive protocol's error answer and change nothing. */
      feed(s, play,
           "{\"event\":\"trial_closed\",\"request_id\":\"00000000-0000-4000-8000-000000000000\"}");
      feed(s, play, "{\"event\":\"initial_operations\"}");
      feed(s, play, "not json");
      feed(s, play, "{\"event\":\"snapshot\"}");
    }
    if (events == play->restore_at) {
      /* Continue on a fresh searcher restored from a snapshot: the answers must not change. */
      const char* snapshot = NULL;
      hpsearch_searcher* fresh = hpsearch_searcher_new(play->config, NULL, &play->seed, NULL);
      CHECK(fresh != NULL);
      CHECK(hpsearch_searcher_snapshot(s, &snapshot) == HPSEARCH_OK);
      CHECK(hpsearch_searcher_restore(fresh, snapshot) == HPSEARCH_OK);
      CHECK(hpsearch_searcher_progress(fresh) == hpsearch_searcher_progress(s));
      hpsearch_searcher_free(s);
      s = fresh;
    }
  }
  feed(s, play, "{\"event\":\"progress\"}");
  play->final_progress = hpsearch_searcher_progress(s);
  free(queue.ops);
  hpsearch_searcher_free(s);
  return NULL;
}

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  char* text;
  long size;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = malloc((size_t)size + 1);
  if (text == NULL || fread(text, 1, (size_t)size, f) != (size_t)size) abort();
  text[size] = '\0';
  fclose(f);
  return text;
}

static void write_file(const char* path, const Buffer* b) {
  FILE* f = fopen(path, "wb");
  if (f == NULL || fwrite(b->text, 1, b->size, f) != b->size || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

static void check_errors(const char* config) {
  char* error = NULL;
  const char* answer = NULL;
  const uint32_t seed = 7;
  hpsearch_searcher* s;

  /* A bad config: NULL and the config module's message (field, value, expectation). */
  s = hpsearch_searcher_new(
      "searcher: {name: random, metric: loss, max_trials: -5, max_length: 100}\n"
      "hyperparameters: {lr: {type: double, minval: 0, maxval: 1}}\n",
      "bad.yaml", &seed, &error);
  CHECK(s == NULL);
  CHECK(error != NULL && strstr(error, "bad.yaml:") == error);
  CHECK(error != NULL && strstr(error, "searcher.max_trials") != NULL);
  CHECK(error != NULL && strstr(error, "-5") != NULL);
  hpsearch_string_free(error);
  error = NULL;
  CHECK(hpsearch_searcher_new(NULL, NULL, NULL, &error) == NULL);
  CHECK(error != NULL && strcmp(error, "config_text: expected a config, got NULL") == 0);
  hpsearch_string_free(error);

  s = hpsearch_searcher_new(config, NULL, &seed, NULL);
  CHECK(s != NULL);
  if (s == NULL) return;
  CHECK(strcmp(hpsearch_searcher_last_error(s), "") == 0);
  /* A malformed line: refused with the drive protocol's error line, the same message. */
  CHECK(hpsearch_searcher_feed(s, "{\"event\":\"progress\",\"x\":1}", &answer) ==
        HPSEARCH_INVALID_INPUT);
  CHECK(strcmp(answer, "{\"error\":\"progress: unexpected field 'x' (fields: event)\"}") == 0);
  CHECK(strcmp(hpsearch_searcher_last_error(s), "progress: unexpected field 'x' (fields: event)") ==
        0);
  CHECK(hpsearch_searcher_feed(s, NULL, &answer) == HPSEARCH_INVALID_INPUT);
  CHECK(strcmp(hpsearch_searcher_last_error(s), "line: expected a JSON object, got NULL") == 0);
  /* A snapshot that is not JSON, or not a snapshot: refused, state unchanged. */
  CHECK(hpsearch_searcher_restore(s, "{\"format_version\":") == HPSEARCH_INVALID_INPUT);
  CHECK(strstr(hpsearch_searcher_last_error(s), "snapshot: not valid JSON: parse error") ==
        hpsearch_searcher_last_error(s));
  {
    /* Nested 60,000 deep (issue 25: a stack overflow once parsed): refused before parsing, as
     * a snapshot and as a line. */
    enum { kDepth = 60000 };
    const char* restore_head = "{\"event\":\"restore\",\"snapshot\":";
    const size_t head = strlen(restore_head);
    char* deep = malloc(head + 2 * kDepth + 2);
    CHECK(deep != NULL);
    memcpy(deep, restore_head, head);
    memset(deep + head, '[', kDepth);
    memset(deep + head + kDepth, ']', kDepth);
    strcpy(deep + head + 2 * kDepth, "}");
    CHECK(hpsearch_searcher_restore(s, deep + head) == HPSEARCH_INVALID_INPUT);
    CHECK(strcmp(hpsearch_searcher_last_error(s),
                 "snapshot: refused: JSON nested deeper than 128 levels (the limit) at byte 129") ==
          0);
    CHECK(hpsearch_searcher_feed(s, deep, &answer) == HPSEARCH_INVALID_INPUT);
    CHECK(strcmp(hpsearch_searcher_last_error(s),
                 "line refused: JSON nested deeper than 128 levels (the limit) at byte 158") == 0);
    free(deep);
  }
  CHECK(hpsearch_searcher_restore(s, "{\"format_version\":99}") == HPSEARCH_INVALID_INPUT);
  CHECK(
      strcmp(hpsearch_searcher_last_error(s),
             "snapshot: format_version 99 is not supported (this build reads versions 1 and 2)") ==
      0);
  CHECK(hpsearch_searcher_feed(s, "{\"event\":\"initial_operations\"}", &answer) == HPSEARCH_OK);
  CHECK(strstr(answer, "{\"operations\":[{") == answer);
  hpsearch_searcher_free(s);
  hpsearch_searcher_free(NULL);
}

int main(int argc, char** argv) {
  char* config;
  Play main_play;
  Play threads_play[2];
  pthread_t threads[2];
  int i;
  if (argc != 5) {
    fprintf(stderr, "usage: capi_test CONFIG SEED EVENTS_OUT ANSWERS_OUT\n");
    return 2;
  }
  config = read_file(argv[1]);
  if (config == NULL) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  CHECK(strcmp(hpsearch_version(), "0.2.0") == 0);
  check_errors(config);

  /* The search the oracle replays, moved to a restored searcher halfway. */
  memset(&main_play, 0, sizeof main_play);
  main_play.config = config;
  main_play.seed = (uint32_t)strtoul(argv[2], NULL, 10);
  main_play.restore_at = 40;
  play_search(&main_play);
  CHECK(main_play.ok);
  CHECK(main_play.final_progress == 1.0);
  CHECK(strstr(main_play.answers.text, "{\"progress\":1.0}\n") != NULL);
  write_file(argv[3], &main_play.events);
  write_file(argv[4], &main_play.answers);

  /* Distinct handles on two threads at once: each plays the same search as above (without the
   * restore, which changes no answer) and must see exactly the same answers. */
  for (i = 0; i < 2; ++i) {
    memset(&threads_play[i], 0, sizeof threads_play[i]);
    threads_play[i].config = config;
    threads_play[i].seed = main_play.seed;
    CHECK(pthread_create(&threads[i], NULL, play_search, &threads_play[i]) == 0);
  }
  for (i = 0; i < 2; ++i) {
    CHECK(pthread_join(threads[i], NULL) == 0);
    CHECK(threads_play[i].ok);
    CHECK(threads_play[i].answers.text != NULL &&
          strcmp(threads_play[i].answers.text, main_play.answers.text) == 0);
    free(threads_play[i].events.text);
    free(threads_play[i].answers.text);
  }
  free(main_play.events.text);
  free(main_play.answers.text);
  free(config);
  if (failures != 0) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures == 0 ? 0 : 1;
}
