/* probe: runs a description beside nothing (before a play) until the appsink `sink` in it has its first sample, and
 * replies with that sample's caps as text: what a passed-through source carries (ComposedPipeline.probe). */
#include "commands.h"

typedef struct {
  GMutex lock;
  GCond cond;
  char *caps;
  const char *code;
  const char *why;
  ng_msg *cause;
  const char *sink;
} probe_wait;

/* Main thread; the command thread waits on w (its stack: hp_pipe_destroy silences this before w goes). */
static void on_message(hp_pipe *p, ng_msg *m, gpointer data) {
  probe_wait *w = data;
  g_mutex_lock(&w->lock);
  /* The first outcome stands. */
  if (w->caps || w->code) {
    g_mutex_unlock(&w->lock);
    return;
  }
  if (m->type == NG_MSG_SAMPLE && !g_strcmp0(m->source, w->sink)) {
    w->caps = g_strdup(m->caps ? m->caps : "");
  } else if (m->type == NG_MSG_ERROR) {
    w->code = "NG_ERR_STATE";
    w->why = "the source could not be read";
    w->cause = ng_msg_error_copy(m);
  } else if (m->type == NG_MSG_EOS) {
    w->code = "NG_ERR_STATE";
    w->why = "the source ended before any video arrived";
  }
  g_cond_signal(&w->cond);
  g_mutex_unlock(&w->lock);
}

/* Its own state change goes on without a wait here: what it would say is less than the bus error or the timeout. */
static gpointer play_async(gpointer bin) {
  gst_element_set_state(bin, GST_STATE_PLAYING);
  gst_object_unref(bin);
  return NULL;
}

JsonNode *hc_probe(JsonObject *cmd, hc_error *e) {
  gint64 timeout = hc_int(cmd, "timeoutMs", 10000);
  probe_wait w = { .sink = hc_string(cmd, "sink", "") };
  g_mutex_init(&w.lock);
  g_cond_init(&w.cond);
  g_autoptr(GError) err = NULL;
  hp_pipe *p = hp_pipe_new(hc_string(cmd, "description", ""), on_message, &w, &err);
  JsonNode *result = NULL;
  g_autofree char *why = NULL;
  if (!p) {
    hc_fail(e, "NG_ERR_PARSE", "%s", err ? err->message : "could not parse the description");
  } else if (!hp_pipe_watch_sink(p, w.sink, &e->code, &why)) {
    e->why = g_steal_pointer(&why);
  } else {
    g_thread_unref(g_thread_new("encoderd-probe", play_async, gst_object_ref(hp_pipe_bin(p))));
    gint64 until = g_get_monotonic_time() + timeout * G_TIME_SPAN_MILLISECOND;
    g_mutex_lock(&w.lock);
    while (!w.caps && !w.code && g_cond_wait_until(&w.cond, &w.lock, until)) {}
    g_mutex_unlock(&w.lock);
  }
  hp_pipe_destroy(p);
  /* Silenced now: w is ours alone. */
  if (w.caps) result = json_node_init_string(json_node_alloc(), w.caps);
  else if (w.code) {
    hc_fail(e, w.code, "%s", w.why);
    e->cause = w.cause;
  } else if (!e->code) hc_fail(e, "NG_ERR_TIMEOUT", "the source sent no video within %" G_GINT64_FORMAT " ms", timeout);
  g_free(w.caps);
  g_mutex_clear(&w.lock);
  g_cond_clear(&w.cond);
  return result;
}
