/* C through the installed C library (CMake's hpsearch::capi or pkg-config's hpsearch): the
 * first answer of a search. usage: consumer_c CONFIG SEED */
#include <hpsearch/hpsearch.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  char text[65536];
  size_t size;
  FILE* f;
  uint32_t seed;
  char* error = NULL;
  const char* answer = NULL;
  hpsearch_searcher* searcher;
  if (argc != 3 || (f = fopen(argv[1], "rb")) == NULL) return 2;
  size = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[size] = '\0';
  seed = (uint32_t)strtoul(argv[2], NULL, 10);
  searcher = hpsearch_searcher_new(text, argv[1], &seed, &error);
  if (searcher == NULL) {
    fprintf(stderr, "%s\n", error);
    hpsearch_string_free(error);
    return 1;
  }
  if (hpsearch_searcher_feed(searcher, "{\"event\":\"initial_operations\"}", &answer) !=
      HPSEARCH_OK) {
    fprintf(stderr, "%s\n", hpsearch_searcher_last_error(searcher));
    return 1;
  }
  printf("%s\n", answer);
  hpsearch_searcher_free(searcher);
  return 0;
}
