/* One GstPipeline in the host: its bus messages and watched appsinks' samples are reduced on the streaming thread
 * (messages.c, shared with the addon) and handed to the pipe's listener on the main thread, through a bounded queue
 * like the addon's (a core that stalls costs a bounded number of messages, the droppable ones counted).
 *
 * Lifetime. A pipe is reference counted: its owner, the bus handler, each watched appsink and each message on its way
 * to the main thread hold one. hp_pipe_destroy sets NULL and silences the listener under listen_lock, so a listener
 * never runs after its owner let go (a probe's listener points at the command thread's stack). */
#include "host.h"

/* As the addon's NG_QUEUE_* (native/src/pipeline.h): frames are few, and state changes, errors and EOS always fit. */
#define QUEUE_MAX 1024
#define QUEUE_RESERVED 64
#define QUEUE_SAMPLES 32

struct hp_pipe {
  gint refs;
  GstElement *bin;           /* NULL once destroyed; command thread */
  gconstpointer bin_id;      /* tells the pipeline's own state-changed messages apart; never dereferenced */
  GMutex lock;               /* guards first_error, qos, eos_seen (streaming threads) */
  GCond eos_cond;
  gboolean eos_seen;
  ng_msg *first_error;
  GHashTable *qos;
  GMutex listen_lock;        /* guards listener against destroy */
  hp_listener listener;      /* NULL once destroyed */
  gpointer data;
  gint queued, queued_samples;
  guint64 dropped_messages, dropped_samples;
};

typedef struct { hp_pipe *p; ng_msg *m; } delivery;

hp_pipe *hp_pipe_ref(hp_pipe *p) { g_atomic_int_inc(&p->refs); return p; }

void hp_pipe_unref(hp_pipe *p) {
  if (!g_atomic_int_dec_and_test(&p->refs)) return;
  if (p->first_error) ng_msg_free(p->first_error);
  if (p->qos) g_hash_table_unref(p->qos);
  if (p->bin) gst_object_unref(p->bin);
  g_mutex_clear(&p->lock);
  g_mutex_clear(&p->listen_lock);
  g_cond_clear(&p->eos_cond);
  g_free(p);
}

GstElement *hp_pipe_bin(hp_pipe *p) { return p->bin; }

static gboolean deliver(gpointer data) {
  delivery *d = data;
  g_atomic_int_add(&d->p->queued, -1);
  if (d->m->type == NG_MSG_SAMPLE) g_atomic_int_add(&d->p->queued_samples, -1);
  g_mutex_lock(&d->p->listen_lock);
  if (d->p->listener) d->p->listener(d->p, d->m, d->p->data);
  g_mutex_unlock(&d->p->listen_lock);
  return G_SOURCE_REMOVE;
}

static void delivery_free(gpointer data) {
  delivery *d = data;
  ng_msg_free(d->m);
  hp_pipe_unref(d->p);
  g_free(d);
}

/* Any thread; takes m. Never blocks a streaming thread on the core. */
static void post(hp_pipe *p, ng_msg *m) {
  gboolean sample = m->type == NG_MSG_SAMPLE, droppable = m->type == NG_MSG_ELEMENT || m->type == NG_MSG_WARNING;
  if ((sample && g_atomic_int_get(&p->queued_samples) >= QUEUE_SAMPLES) ||
      (droppable && g_atomic_int_get(&p->queued) >= QUEUE_MAX - QUEUE_RESERVED)) {
    __atomic_add_fetch(sample ? &p->dropped_samples : &p->dropped_messages, 1, __ATOMIC_RELAXED);
    ng_msg_free(m);
    return;
  }
  g_atomic_int_inc(&p->queued);
  if (sample) g_atomic_int_inc(&p->queued_samples);
  delivery *d = g_new(delivery, 1);
  d->p = hp_pipe_ref(p);
  d->m = m;
  g_main_context_invoke_full(hc_context(), G_PRIORITY_DEFAULT, deliver, d, delivery_free);
}

static GstBusSyncReply on_bus(GstBus *bus, GstMessage *message, gpointer data) {
  hp_pipe *p = data;
  ng_msg *m = ng_msg_from_bus(message, p->bin_id, hc_context());
  gst_message_unref(message);
  if (!m) return GST_BUS_DROP;
  g_mutex_lock(&p->lock);
  if (m->type == NG_MSG_QOS) ng_qos_record(&p->qos, m->source, m->dropped);
  if (m->type == NG_MSG_ERROR && !p->first_error) {
    /* The first error is the cause; a failed state change adds a generic one after it. */
    p->first_error = ng_msg_error_copy(m);
  }
  if (m->type == NG_MSG_EOS) {
    p->eos_seen = TRUE;
    g_cond_broadcast(&p->eos_cond);
  }
  g_mutex_unlock(&p->lock);
  if (m->type == NG_MSG_QOS) ng_msg_free(m);
  else post(p, m);
  return GST_BUS_DROP;
}

static void pipe_unref_notify(gpointer p) { hp_pipe_unref(p); }

hp_pipe *hp_pipe_new(const char *description, hp_listener listener, gpointer data, GError **err) {
  GstElement *bin = ng_parse_pipeline(description, err);
  if (!bin) return NULL;
  hp_pipe *p = g_new0(hp_pipe, 1);
  p->refs = 1;
  p->bin = bin;
  p->bin_id = bin;
  p->listener = listener;
  p->data = data;
  g_mutex_init(&p->lock);
  g_mutex_init(&p->listen_lock);
  g_cond_init(&p->eos_cond);
  GstBus *bus = gst_element_get_bus(bin);
  gst_bus_set_sync_handler(bus, on_bus, hp_pipe_ref(p), pipe_unref_notify);
  gst_object_unref(bus);
  return p;
}

gboolean hp_pipe_set_state(hp_pipe *p, GstState target, guint timeout_ms, const char **code, char **why) {
  g_mutex_lock(&p->lock);
  g_clear_pointer(&p->first_error, ng_msg_free);
  g_mutex_unlock(&p->lock);
  /* Its own ref: the exit path may destroy the pipe meanwhile, which ends the wait. */
  g_autoptr(GstElement) bin = gst_object_ref(p->bin);
  GstStateChangeReturn ret = gst_element_set_state(bin, target);
  GstState reached;
  GstStateChangeReturn waited = gst_element_get_state(bin, &reached, NULL,
                                                      ret == GST_STATE_CHANGE_ASYNC ? timeout_ms * GST_MSECOND : 0);
  if (ret != GST_STATE_CHANGE_FAILURE) ret = waited;
  if (ret == GST_STATE_CHANGE_FAILURE) {
    g_mutex_lock(&p->lock);
    const char *first = p->first_error ? p->first_error->text : NULL;
    *why = g_strdup_printf("state change to %s failed%s%s", ng_state_name(target), first ? ": " : "", first ? first : "");
    g_mutex_unlock(&p->lock);
    *code = "NG_ERR_STATE";
    return FALSE;
  }
  if (ret == GST_STATE_CHANGE_ASYNC) {
    *code = "NG_ERR_TIMEOUT";
    *why = g_strdup_printf("state change to %s did not complete in time", ng_state_name(target));
    return FALSE;
  }
  return TRUE;
}

GstState hp_pipe_state(hp_pipe *p) {
  GstState current = GST_STATE_NULL;
  gst_element_get_state(p->bin, &current, NULL, 0);
  return current;
}

static GstFlowReturn on_sample(GstAppSink *sink, gpointer data) {
  ng_msg *m = ng_msg_from_sample(sink);
  if (m) post(data, m);
  return GST_FLOW_OK;
}

gboolean hp_pipe_watch_sink(hp_pipe *p, const char *name, const char **code, char **why) {
  g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(p->bin), name);
  if (!el) {
    *code = "NG_ERR_NO_ELEMENT";
    *why = g_strdup_printf("no element named '%s' in the pipeline", name);
    return FALSE;
  }
  if (!GST_IS_APP_SINK(el)) {
    *code = "NG_ERR_ARG";
    *why = g_strdup_printf("'%s' is not an appsink", name);
    return FALSE;
  }
  if (!ng_appsink_claim(el, "watchSink")) {
    if (!strcmp(ng_appsink_owner(el), "watchSink")) return TRUE;
    *code = "NG_ERR_ARG";
    *why = g_strdup_printf("appsink '%s' is already used by %s", name, ng_appsink_owner(el));
    return FALSE;
  }
  GstAppSinkCallbacks cb = { .new_sample = on_sample };
  gst_app_sink_set_callbacks(GST_APP_SINK(el), &cb, hp_pipe_ref(p), pipe_unref_notify);
  return TRUE;
}

void hp_pipe_expect_eos(hp_pipe *p) {
  g_mutex_lock(&p->lock);
  p->eos_seen = FALSE;
  g_mutex_unlock(&p->lock);
}

gboolean hp_pipe_wait_eos(hp_pipe *p, guint timeout_ms) {
  gint64 until = g_get_monotonic_time() + (gint64) timeout_ms * G_TIME_SPAN_MILLISECOND;
  g_mutex_lock(&p->lock);
  while (!p->eos_seen && g_cond_wait_until(&p->eos_cond, &p->lock, until)) {}
  gboolean seen = p->eos_seen;
  g_mutex_unlock(&p->lock);
  return seen;
}

guint64 hp_pipe_qos_dropped(hp_pipe *p) {
  g_mutex_lock(&p->lock);
  guint64 total = ng_qos_total(p->qos);
  g_mutex_unlock(&p->lock);
  return total;
}

guint64 hp_pipe_ipc_dropped(hp_pipe *p) {
  return __atomic_load_n(&p->dropped_messages, __ATOMIC_RELAXED) + __atomic_load_n(&p->dropped_samples, __ATOMIC_RELAXED);
}

typedef struct { GMutex m; GCond c; gboolean done; } barrier;

static gboolean pass(gpointer data) {
  barrier *b = data;
  g_mutex_lock(&b->m);
  b->done = TRUE;
  g_cond_signal(&b->c);
  g_mutex_unlock(&b->m);
  return G_SOURCE_REMOVE;
}

void hp_flush(void) {
  barrier b = { 0 };
  g_mutex_init(&b.m);
  g_cond_init(&b.c);
  /* Same priority as the deliveries, queued after them: the main context dispatches them first. */
  g_main_context_invoke_full(hc_context(), G_PRIORITY_DEFAULT, pass, &b, NULL);
  g_mutex_lock(&b.m);
  while (!b.done) g_cond_wait(&b.c, &b.m);
  g_mutex_unlock(&b.m);
  g_mutex_clear(&b.m);
  g_cond_clear(&b.c);
}

void hp_pipe_destroy(hp_pipe *p) {
  if (!p) return;
  g_mutex_lock(&p->listen_lock);
  p->listener = NULL;
  g_mutex_unlock(&p->listen_lock);
  gst_element_set_state(p->bin, GST_STATE_NULL);
  GstBus *bus = gst_element_get_bus(p->bin);
  gst_bus_set_sync_handler(bus, NULL, NULL, NULL);
  gst_object_unref(bus);
  /* Breaks the bin -> appsink -> callbacks -> pipe cycle. Whoever reads the bin beyond (stats, KLV) holds a ref. */
  gst_object_unref(g_steal_pointer(&p->bin));
  hp_pipe_unref(p);
}
