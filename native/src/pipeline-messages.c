/* Bus messages and appsink samples on their way to JS: reduced to plain C data on the thread that posts them
 * (the bus sync handler and the appsink callback run on streaming threads), queued to the pipeline's
 * thread-safe function, and turned into JS objects on the JS thread. */
#include "pipeline.h"
#include "value.h"

typedef enum { MSG_STATE, MSG_ERROR, MSG_WARNING, MSG_EOS, MSG_ELEMENT, MSG_SAMPLE } msg_type;

/* A bus message or sample reduced to plain C data on the posting thread; JS objects are built on the JS thread. */
typedef struct {
  msg_type type;
  GstState old, current, pending;
  char *source, *text, *debug, *caps;
  GstStructure *fields;
  guint8 *data;
  gsize size;
  gint64 pts;
  gboolean keyframe;
} ng_msg;

static void msg_free(ng_msg *m) {
  g_free(m->source);
  g_free(m->text);
  g_free(m->debug);
  g_free(m->caps);
  if (m->fields) gst_structure_free(m->fields);
  g_free(m->data);
  g_free(m);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ng_msg, msg_free)

/* Any thread. Takes ownership of m. Never blocks: a streaming thread waiting for the JS thread could deadlock with
 * destroy(), which stops the streaming threads from the JS thread. */
static void emit(ng_pipeline *p, ng_msg *m) {
  gboolean sample = m->type == MSG_SAMPLE, droppable = m->type == MSG_ELEMENT || m->type == MSG_WARNING;
  gboolean queued = FALSE, full = FALSE;
  g_mutex_lock(&p->lock);
  if (!p->tsfn) {
    /* destroyed: nobody listens, nothing is lost */
  } else if ((sample && g_atomic_int_get(&p->queued_samples) >= NG_QUEUE_SAMPLES) ||
             (droppable && g_atomic_int_get(&p->queued) >= NG_QUEUE_MAX - NG_QUEUE_RESERVED)) {
    full = TRUE;
  } else {
    napi_status s = napi_call_threadsafe_function(p->tsfn, m, napi_tsfn_nonblocking);
    queued = s == napi_ok;
    full = s == napi_queue_full;
    if (queued) {
      g_atomic_int_inc(&p->queued);
      if (sample) g_atomic_int_inc(&p->queued_samples);
    }
  }
  g_mutex_unlock(&p->lock);
  if (full) __atomic_add_fetch(sample ? &p->dropped_samples : &p->dropped_messages, 1, __ATOMIC_RELAXED);
  if (!queued) msg_free(m);
}

static gboolean recalculate_latency(gpointer bin) {
  gst_bin_recalculate_latency(bin);
  return G_SOURCE_REMOVE;
}

/* A message's data, kept or queued to JS; the message itself stays the caller's. */
static void on_message(ng_pipeline *p, GstMessage *message) {
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_LATENCY) {
    /* What gst-launch does on this message; not from a streaming thread, which may hold locks the query needs. */
    GstObject *top = gst_object_ref(GST_MESSAGE_SRC(message)), *parent;
    while ((parent = gst_object_get_parent(top))) { gst_object_unref(top); top = parent; }
    if (GST_IS_BIN(top)) g_main_context_invoke_full(ng_main_context(), G_PRIORITY_DEFAULT, recalculate_latency, top, gst_object_unref);
    else gst_object_unref(top);
    return;
  }
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_QOS) {
    /* Each element reports its running total of dropped buffers; the latest per element is kept (stats.c sums). */
    GstFormat format;
    guint64 processed, dropped;
    gst_message_parse_qos_stats(message, &format, &processed, &dropped);
    if (format != GST_FORMAT_UNDEFINED && dropped != (guint64) -1) {
      g_mutex_lock(&p->lock);
      if (!p->qos_dropped) p->qos_dropped = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
      guint64 *v = g_new(guint64, 1);
      *v = dropped;
      g_hash_table_insert(p->qos_dropped, g_strdup(GST_MESSAGE_SRC_NAME(message)), v);
      g_mutex_unlock(&p->lock);
    }
    return;
  }
  g_autoptr(ng_msg) m = g_new0(ng_msg, 1);
  m->source = g_strdup(GST_MESSAGE_SRC_NAME(message));
  switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_STATE_CHANGED:
      if (GST_MESSAGE_SRC(message) != p->bin_id) return;
      m->type = MSG_STATE;
      gst_message_parse_state_changed(message, &m->old, &m->current, &m->pending);
      break;
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING: {
      g_autoptr(GError) err = NULL;
      if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        m->type = MSG_ERROR;
        gst_message_parse_error(message, &err, &m->debug);
        /* The first error is the cause; a failed state change adds a generic one after it. */
        g_mutex_lock(&p->lock);
        if (!p->first_error) p->first_error = g_strdup(err->message);
        g_mutex_unlock(&p->lock);
      } else {
        m->type = MSG_WARNING;
        gst_message_parse_warning(message, &err, &m->debug);
      }
      m->text = g_strdup(err->message);
      break;
    }
    case GST_MESSAGE_EOS:
      m->type = MSG_EOS;
      break;
    case GST_MESSAGE_ELEMENT:
      if (!gst_message_get_structure(message)) return;
      m->type = MSG_ELEMENT;
      m->fields = gst_structure_copy(gst_message_get_structure(message));
      break;
    default:
      return;
  }
  emit(p, g_steal_pointer(&m));
}

/* A sync handler that answers DROP owns the message and must unref it (GstBusSyncHandler's contract): without
 * this every message, and through its source every element and the pipeline itself, was never freed. */
GstBusSyncReply ng_pipeline_on_bus(GstBus *bus, GstMessage *message, gpointer data) {
  on_message(data, message);
  gst_message_unref(message);
  return GST_BUS_DROP;
}

GstFlowReturn ng_pipeline_on_sample(GstAppSink *sink, gpointer data) {
  g_autoptr(GstSample) sample = gst_app_sink_pull_sample(sink);
  if (!sample) return GST_FLOW_OK;
  GstBuffer *buf = gst_sample_get_buffer(sample);
  ng_msg *m = g_new0(ng_msg, 1);
  m->type = MSG_SAMPLE;
  m->source = gst_element_get_name(GST_ELEMENT(sink));
  m->pts = buf && GST_BUFFER_PTS_IS_VALID(buf) ? (gint64) GST_BUFFER_PTS(buf) : -1;
  m->keyframe = buf && !GST_BUFFER_FLAG_IS_SET(buf, GST_BUFFER_FLAG_DELTA_UNIT);
  /* The negotiated caps, so JS can learn what a stream is (the core probes a passed-through source's codec). */
  GstCaps *caps = gst_sample_get_caps(sample);
  m->caps = caps ? gst_caps_to_string(caps) : NULL;
  GstMapInfo map;
  if (buf && gst_buffer_map(buf, &map, GST_MAP_READ)) {
    m->size = map.size;
    m->data = g_memdup2(map.data, map.size);
    gst_buffer_unmap(buf, &map);
  }
  emit(data, m);
  return GST_FLOW_OK;
}

/* ---- the JS side of messages ---- */

static gboolean add_field(GQuark field, const GValue *v, gpointer data) {
  void **ctx = data;
  napi_env env = ctx[0];
  napi_value obj = ctx[1], jv;
  GType t = G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(v));
  gboolean simple = t == G_TYPE_STRING || t == G_TYPE_BOOLEAN || t == G_TYPE_INT || t == G_TYPE_UINT ||
                    t == G_TYPE_LONG || t == G_TYPE_ULONG || t == G_TYPE_INT64 || t == G_TYPE_UINT64 ||
                    t == G_TYPE_DOUBLE || t == G_TYPE_FLOAT || t == G_TYPE_ENUM;
  if (simple && (jv = ng_value_to_js(env, v))) napi_set_named_property(env, obj, g_quark_to_string(field), jv);
  return TRUE;
}

static void free_bytes(napi_env env, void *data, void *hint) { g_free(data); }

static napi_value msg_to_js(napi_env env, ng_msg *m) {
  static const char *types[] = { "state-changed", "error", "warning", "eos", "element", "sample" };
  napi_value obj;
  NG_CALL(napi_create_object(env, &obj));
  NG_SET_STRING(obj, "type", types[m->type]);
  switch (m->type) {
    case MSG_STATE:
      NG_SET_STRING(obj, "old", ng_state_name(m->old));
      NG_SET_STRING(obj, "current", ng_state_name(m->current));
      NG_SET_STRING(obj, "pending", ng_state_name(m->pending));
      break;
    case MSG_ERROR:
    case MSG_WARNING:
      NG_SET_STRING(obj, "source", m->source);
      NG_SET_STRING(obj, "message", m->text);
      NG_SET_STRING(obj, "debug", m->debug);
      break;
    case MSG_EOS:
      break;
    case MSG_ELEMENT: {
      napi_value fields;
      NG_CALL(napi_create_object(env, &fields));
      void *ctx[2] = { env, fields };
      gst_structure_foreach(m->fields, add_field, ctx);
      NG_SET_STRING(obj, "source", m->source);
      NG_SET_STRING(obj, "name", gst_structure_get_name(m->fields));
      NG_CALL(napi_set_named_property(env, obj, "fields", fields));
      break;
    }
    case MSG_SAMPLE: {
      napi_value buf;
      /* Hand the copy over without a second one; copy only where external buffers are not allowed. */
      if (m->data && napi_create_external_buffer(env, m->size, m->data, free_bytes, NULL, &buf) == napi_ok) m->data = NULL;
      else NG_CALL(napi_create_buffer_copy(env, m->size, m->data ? (void *) m->data : "", NULL, &buf));
      NG_SET_STRING(obj, "sink", m->source);
      NG_CALL(napi_set_named_property(env, obj, "data", buf));
      NG_SET_NUMBER(obj, "pts", m->pts);
      NG_SET_BOOL(obj, "keyframe", m->keyframe);
      NG_SET_STRING(obj, "caps", m->caps);
      break;
    }
  }
  return obj;
}

void ng_pipeline_call_js(napi_env env, napi_value cb, void *context, void *data) {
  ng_pipeline *p = context;
  ng_msg *m = data;
  g_atomic_int_add(&p->queued, -1);
  if (m->type == MSG_SAMPLE) g_atomic_int_add(&p->queued_samples, -1);
  /* No messages after destroy(): the owner has let go. env is NULL while the tsfn is being torn down. */
  if (env && p->bin) {
    napi_value obj = msg_to_js(env, m), undefined;
    if (obj && napi_get_undefined(env, &undefined) == napi_ok) napi_call_function(env, undefined, cb, 1, &obj, NULL);
  }
  msg_free(m);
}

void ng_pipeline_tsfn_finalize(napi_env env, void *data, void *hint) {
  ng_pipeline *p = data;
  g_mutex_lock(&p->lock);
  p->tsfn = NULL;
  g_mutex_unlock(&p->lock);
  ng_pipeline_unref(p);
}
