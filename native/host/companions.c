/* Companion pipelines: run beside the main one (a looped file's reader feeding it through an inter element), each
 * rebuilt at its end-of-stream. A rebuild is a job on the command thread, between requests, as the Node host queues
 * it; the exit path may stop them all at any moment, so the slots change under lock, never held across a wait. */
#include "commands.h"

#define COMPANION_TIMEOUT_MS 15000

static GMutex lock;
static GPtrArray *companions;        /* hp_pipe (or NULL) per slot */
static GStrv descriptions;           /* command thread */
static JsonArray *sinks;             /* per slot, the appsinks watched in it; command thread */

typedef struct { guint slot; hp_pipe *ended; } companion_end;

static void rebuild(gpointer data);

/* Main thread. */
static void on_message(hp_pipe *p, ng_msg *m, gpointer data) {
  if (m->type == NG_MSG_EOS) {
    companion_end *c = g_new(companion_end, 1);
    c->slot = GPOINTER_TO_UINT(data);
    c->ended = hp_pipe_ref(p);
    hc_commands_job(rebuild, c);
  }
  if (m->type == NG_MSG_ERROR) hc_emit_error(m);
  if (m->type == NG_MSG_SAMPLE) {
    hc_klv_relay(m);
    hc_emit_sample(m);
  }
}

/* At its end-of-stream a companion is destroyed and built again from the description: a fresh pipeline re-links
 * every dynamic pad (a NULL -> PLAYING cycle of the same one does not: the description's delayed links are
 * one-shot), and the main pipeline keeps running throughout. */
static gboolean start(guint slot, hc_error *e) {
  g_autoptr(GError) err = NULL;
  hp_pipe *p = hp_pipe_new(descriptions[slot], on_message, GUINT_TO_POINTER(slot), &err);
  if (!p) return hc_fail(e, "NG_ERR_PARSE", "%s", err ? err->message : "could not parse the description"), FALSE;
  g_mutex_lock(&lock);
  gboolean current = companions && slot < companions->len;
  if (current) g_ptr_array_index(companions, slot) = p;
  g_mutex_unlock(&lock);
  /* Stopped meanwhile (the exit path): nobody owns it but us. */
  if (!current) return hp_pipe_destroy(p), hc_fail(e, "NG_ERR_DESTROYED", "the pipeline is not running"), FALSE;
  JsonArray *watched = sinks && slot < json_array_get_length(sinks) ? json_array_get_array_element(sinks, slot) : NULL;
  g_autofree char *why = NULL;
  for (guint i = 0; watched && i < json_array_get_length(watched); i++)
    if (!hp_pipe_watch_sink(p, json_array_get_string_element(watched, i), &e->code, &why)) return e->why = g_steal_pointer(&why), FALSE;
  if (!hp_pipe_set_state(p, GST_STATE_PLAYING, COMPANION_TIMEOUT_MS, &e->code, &why)) return e->why = g_steal_pointer(&why), FALSE;
  return TRUE;
}

static void rebuild(gpointer data) {
  g_autofree companion_end *c = data;
  g_autoptr(hp_pipe) ended = c->ended;
  g_mutex_lock(&lock);
  gboolean current = companions && c->slot < companions->len && g_ptr_array_index(companions, c->slot) == ended;
  if (current) g_ptr_array_index(companions, c->slot) = NULL;
  g_mutex_unlock(&lock);
  if (!current) return;
  /* The source's KLV pauses with it: its last packet stands while the reader is rebuilt (under load, seconds). */
  hc_klv_hold(TRUE);
  hp_pipe_destroy(ended);
  g_auto(hc_error) e = { 0 };
  gboolean started = start(c->slot, &e);
  hc_klv_hold(FALSE);
  if (started) return;
  g_autofree char *text = g_strdup_printf("the looped source could not start again: %s", e.why);
  ng_msg m = { .type = NG_MSG_ERROR, .source = "companion", .text = text, .debug = "" };
  hc_emit_error(&m);
}

gboolean hc_companions_start(JsonObject *cmd, hc_error *e) {
  JsonArray *list = hc_array(cmd, "companions");
  guint n = list ? json_array_get_length(list) : 0;
  g_clear_pointer(&descriptions, g_strfreev);
  descriptions = g_new0(char *, n + 1);
  for (guint i = 0; i < n; i++) descriptions[i] = g_strdup(json_array_get_string_element(list, i));
  g_clear_pointer(&sinks, json_array_unref);
  if (hc_array(cmd, "companionSinks")) sinks = json_array_ref(hc_array(cmd, "companionSinks"));
  g_mutex_lock(&lock);
  companions = g_ptr_array_new();
  g_ptr_array_set_size(companions, n);
  g_mutex_unlock(&lock);
  for (guint i = 0; i < n; i++) {
    if (start(i, e)) continue;
    g_autofree char *why = e->why;
    e->why = g_strdup_printf("a companion pipeline did not start: %s", why);
    return FALSE;
  }
  return TRUE;
}

void hc_companions_stop(void) {
  g_mutex_lock(&lock);
  GPtrArray *all = g_steal_pointer(&companions);
  g_mutex_unlock(&lock);
  for (guint i = 0; all && i < all->len; i++) hp_pipe_destroy(g_ptr_array_index(all, i));
  if (all) g_ptr_array_unref(all);
}
