/* Bus messages and appsink samples on their way to JS: reduced to plain C data on the thread that posts them
 * (the bus sync handler and the appsink callback run on streaming threads), queued to the pipeline's
 * thread-safe function, and turned into JS objects on the JS thread. */
#include "pipeline.h"
#include "value.h"

/* Any thread. Takes ownership of m. Never blocks: a streaming thread waiting for the JS thread could deadlock with
 * destroy(), which stops the streaming threads from the JS thread. */
static void emit(ng_pipeline *p, ng_msg *m) {
  gboolean sample = m->type == NG_MSG_SAMPLE, droppable = m->type == NG_MSG_ELEMENT || m->type == NG_MSG_WARNING;
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
  if (!queued) ng_msg_free(m);
}

/* A message's data, kept or queued to JS; the message itself stays the caller's. */
static void on_message(ng_pipeline *p, GstMessage *message) {
  ng_msg *m = ng_msg_from_bus(message, p->bin_id, ng_main_context());
  if (!m) return;
  if (m->type == NG_MSG_QOS) {
    /* The latest total per element is kept (stats.c sums). */
    g_mutex_lock(&p->lock);
    ng_qos_record(&p->qos_dropped, m->source, m->dropped);
    g_mutex_unlock(&p->lock);
    ng_msg_free(m);
    return;
  }
  if (m->type == NG_MSG_ERROR) {
    /* The first error is the cause; a failed state change adds a generic one after it. */
    g_mutex_lock(&p->lock);
    if (!p->first_error) p->first_error = g_strdup(m->text);
    g_mutex_unlock(&p->lock);
  }
  emit(p, m);
}

/* A sync handler that answers DROP owns the message and must unref it (GstBusSyncHandler's contract): without
 * this every message, and through its source every element and the pipeline itself, was never freed. */
GstBusSyncReply ng_pipeline_on_bus(GstBus *bus, GstMessage *message, gpointer data) {
  on_message(data, message);
  gst_message_unref(message);
  return GST_BUS_DROP;
}

GstFlowReturn ng_pipeline_on_sample(GstAppSink *sink, gpointer data) {
  ng_msg *m = ng_msg_from_sample(sink);
  if (m) emit(data, m);
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
    case NG_MSG_STATE:
      NG_SET_STRING(obj, "old", ng_state_name(m->old));
      NG_SET_STRING(obj, "current", ng_state_name(m->current));
      NG_SET_STRING(obj, "pending", ng_state_name(m->pending));
      break;
    case NG_MSG_ERROR:
    case NG_MSG_WARNING:
      NG_SET_STRING(obj, "source", m->source);
      NG_SET_STRING(obj, "message", m->text);
      NG_SET_STRING(obj, "debug", m->debug);
      break;
    case NG_MSG_EOS:
    case NG_MSG_QOS:  /* kept in C (on_message), never queued */
      break;
    case NG_MSG_ELEMENT: {
      napi_value fields;
      NG_CALL(napi_create_object(env, &fields));
      void *ctx[2] = { env, fields };
      gst_structure_foreach(m->fields, add_field, ctx);
      NG_SET_STRING(obj, "source", m->source);
      NG_SET_STRING(obj, "name", gst_structure_get_name(m->fields));
      NG_CALL(napi_set_named_property(env, obj, "fields", fields));
      break;
    }
    case NG_MSG_SAMPLE: {
      napi_value buf;
      /* Hand the copy over without a second one; copy only where external buffers are not allowed. */
      if (m->data && napi_create_external_buffer(env, m->size, m->data, free_bytes, NULL, &buf) == napi_ok) m->data = NULL;
      else NG_CALL(napi_create_buffer_copy(env, m->size, m->data ? (void *) m->data : "", NULL, &buf));
      NG_SET_STRING(obj, "sink", m->source);
      NG_CALL(napi_set_named_property(env, obj, "data", buf));
      NG_SET_NUMBER(obj, "pts", m->pts);
      NG_SET_NUMBER(obj, "dts", m->dts);
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
  if (m->type == NG_MSG_SAMPLE) g_atomic_int_add(&p->queued_samples, -1);
  /* No messages after destroy(): the owner has let go. env is NULL while the tsfn is being torn down. */
  if (env && p->bin) {
    napi_value obj = msg_to_js(env, m), undefined;
    if (obj && napi_get_undefined(env, &undefined) == napi_ok) napi_call_function(env, undefined, cb, 1, &obj, NULL);
  }
  ng_msg_free(m);
}

void ng_pipeline_tsfn_finalize(napi_env env, void *data, void *hint) {
  ng_pipeline *p = data;
  g_mutex_lock(&p->lock);
  p->tsfn = NULL;
  g_mutex_unlock(&p->lock);
  ng_pipeline_unref(p);
}
