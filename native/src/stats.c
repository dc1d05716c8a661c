/* Measuring a running pipeline from inside, for the statistics of the pipeline object (core/pipeline/stats-model.ts):
 * the JS side of stats-core.c (counters on named pads, the leaf sinks, QoS drops, the latency query), read when JS
 * asks (once a second). */
#include "pipeline.h"

/* The pad of `this` Pipeline's element named by the call's two arguments (element, pad): a static pad, or a request
 * pad made already. A new ref, or NULL with NG_ERR_NO_ELEMENT / NG_ERR_ARG / NG_ERR_DESTROYED thrown. */
static GstPad *pad_argument(napi_env env, napi_callback_info info) {
  NG_ARGV(2);
  NG_ARGC_AT_LEAST(2);
  ng_pipeline *p = ng_pipeline_self(env, self);
  if (!p) return NULL;
  NG_STRING_AUTO(element, argv[0]);
  NG_STRING_AUTO(pad_name, argv[1]);
  g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(p->bin), element);
  if (!el) NG_THROWF("NG_ERR_NO_ELEMENT", "no element named '%s' in the pipeline", element);
  g_autoptr(GstPad) pad = gst_element_get_static_pad(el, pad_name);
  if (!pad) NG_THROWF("NG_ERR_ARG", "'%s' has no pad '%s'", element, pad_name);
  return g_steal_pointer(&pad);
}

static napi_value ng_pipeline_count_buffers(napi_env env, napi_callback_info info) {
  g_autoptr(GstPad) pad = pad_argument(env, info);
  if (!pad) return NULL;
  ng_count_buffers(pad);
  return NULL;
}

static napi_value ng_pipeline_counted(napi_env env, napi_callback_info info) {
  g_autoptr(GstPad) pad = pad_argument(env, info);
  if (!pad) return NULL;
  guint64 buffers, bytes;
  gboolean counted = ng_counted(pad, &buffers, &bytes);
  g_autofree char *name = gst_object_get_path_string(GST_OBJECT(pad));
  if (!counted) NG_THROWF("NG_ERR_ARG", "%s is not counted: call countBuffers first", name);
  napi_value out;
  NG_CALL(napi_create_object(env, &out));
  NG_SET_NUMBER(out, "buffers", buffers);
  NG_SET_NUMBER(out, "bytes", bytes);
  return out;
}

/* The names of the leaf sink elements (sink flag, not a bin), recursing into bins. */
static napi_value ng_pipeline_sinks(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  ng_pipeline *p = ng_pipeline_self(env, self);
  if (!p) return NULL;
  g_autoptr(GPtrArray) names = ng_sink_names(GST_BIN(p->bin));
  napi_value arr, v;
  NG_CALL(napi_create_array(env, &arr));
  for (guint i = 0; i < names->len; i++) {
    NG_CALL(napi_create_string_utf8(env, names->pdata[i], NAPI_AUTO_LENGTH, &v));
    NG_CALL(napi_set_element(env, arr, i, v));
  }
  return arr;
}

/* Frames dropped for QoS: the sum over elements of the latest `dropped` each reported (ng_pipeline_on_bus keeps it). */
static napi_value ng_pipeline_qos_dropped(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  ng_pipeline *p = ng_pipeline_self(env, self);
  if (!p) return NULL;
  g_mutex_lock(&p->lock);
  guint64 total = ng_qos_total(p->qos_dropped);
  g_mutex_unlock(&p->lock);
  napi_value out;
  NG_CALL(napi_create_double(env, (double) total, &out));
  return out;
}

/* Bus messages and samples dropped because the queue to the JS thread was full (pipeline.h, NG_QUEUE_MAX). */
static napi_value ng_pipeline_ipc_dropped(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  ng_pipeline *p = ng_pipeline_self(env, self);
  if (!p) return NULL;
  napi_value out;
  NG_CALL(napi_create_object(env, &out));
  NG_SET_NUMBER(out, "messages", __atomic_load_n(&p->dropped_messages, __ATOMIC_RELAXED));
  NG_SET_NUMBER(out, "samples", __atomic_load_n(&p->dropped_samples, __ATOMIC_RELAXED));
  NG_SET_NUMBER(out, "queued", g_atomic_int_get(&p->queued));
  return out;
}

/* GStreamer's latency query, asked upstream of the sink named sink (the peer of its sink pad): what the sources and
 * every element up to that sink add. {live, minNs, maxNs}, or null when nothing answers. Asked of the sink's peer and
 * not of the pipeline, because a sink that does not sync (sync=false, as outputs are) answers "not live, 0". */
static napi_value ng_pipeline_latency(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  ng_pipeline *p = ng_pipeline_self(env, self);
  if (!p) return NULL;
  NG_STRING_AUTO(sink, argv[0]);
  g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(p->bin), sink);
  if (!el) NG_THROWF("NG_ERR_NO_ELEMENT", "no element named '%s' in the pipeline", sink);
  gboolean live;
  GstClockTime min, max;
  gboolean answered = ng_latency(el, &live, &min, &max);
  napi_value out;
  if (!answered) {
    NG_CALL(napi_get_null(env, &out));
    return out;
  }
  NG_CALL(napi_create_object(env, &out));
  NG_SET_BOOL(out, "live", live);
  NG_SET_NUMBER(out, "minNs", GST_CLOCK_TIME_IS_VALID(min) ? (double) min : -1);
  NG_SET_NUMBER(out, "maxNs", GST_CLOCK_TIME_IS_VALID(max) ? (double) max : -1);
  return out;
}

gboolean ng_stats_define(napi_env env, napi_property_descriptor *out, size_t *n) {
  napi_property_descriptor methods[] = {
    { "countBuffers", NULL, ng_pipeline_count_buffers, NULL, NULL, NULL, napi_default, NULL },
    { "counted", NULL, ng_pipeline_counted, NULL, NULL, NULL, napi_default, NULL },
    { "sinks", NULL, ng_pipeline_sinks, NULL, NULL, NULL, napi_default, NULL },
    { "qosDropped", NULL, ng_pipeline_qos_dropped, NULL, NULL, NULL, napi_default, NULL },
    { "latency", NULL, ng_pipeline_latency, NULL, NULL, NULL, napi_default, NULL },
    { "ipcDropped", NULL, ng_pipeline_ipc_dropped, NULL, NULL, NULL, napi_default, NULL },
  };
  size_t count = sizeof methods / sizeof methods[0];
  for (size_t i = 0; i < count; i++) out[(*n)++] = methods[i];
  return TRUE;
}
