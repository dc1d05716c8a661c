/* The process title: a spare host (core/engine/spare-host.ts) is started as `encoderd-host --spare <padding>` and,
 * once handed to a pipeline, says `encoderd-host --pipeline <id>` like any other host. /proc/<pid>/cmdline is the
 * memory argv's strings were passed in, so the new words are written over them in place, as setproctitle does. */
#include <string.h>
#include "host.h"

static char *area;
static gsize area_size;

void hc_title_init(int argc, char **argv) {
  /* Only when the strings are contiguous, as execve lays them out: the area is argv[0] to the last one's NUL. */
  for (int i = 1; i < argc; i++) {
    if (argv[i] != argv[i - 1] + strlen(argv[i - 1]) + 1) return;
  }
  area = argv[0];
  area_size = (gsize)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - argv[0]);
}

gboolean hc_title_set(const char *pipeline) {
  if (!area) return FALSE;
  g_autofree char *program = g_strdup(area);
  const char *words[] = { program, "--pipeline", pipeline };
  gsize need = 0;
  for (guint i = 0; i < G_N_ELEMENTS(words); i++) need += strlen(words[i]) + 1;
  if (need > area_size) return FALSE;
  memset(area, 0, area_size);
  char *at = area;
  for (guint i = 0; i < G_N_ELEMENTS(words); i++) at = stpcpy(at, words[i]) + 1;
  return TRUE;
}
