/* Measuring a running pipeline from inside, for the statistics of the pipeline object (core/pipeline/stats-model.ts):
 * buffer counters on named pads, the leaf sinks, QoS drops and GStreamer's latency query. No element is added to
 * the pipeline: a counter is a pad probe that adds two numbers on the streaming thread, and everything else is read
 * when JS asks (once a second).
 *
 * A counter lives as qdata on its pad and its probe points at it; the pad frees both when it is finalised (probes are
 * cleared before qdata), so a destroyed pipeline leaves nothing behind. */
#include "pipeline.h"

typedef struct {
  guint64 buffers;
  guint64 bytes;
} ng_count;

#define COUNT_KEY "encoderd-count"

static GstPadProbeReturn count_buffers(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
  ng_count *c = data;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    __atomic_add_fetch(&c->buffers, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->bytes, gst_buffer_get_size(GST_PAD_PROBE_INFO_BUFFER(info)), __ATOMIC_RELAXED);
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *list = GST_PAD_PROBE_INFO_BUFFER_LIST(info);
    __atomic_add_fetch(&c->buffers, gst_buffer_list_length(list), __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->bytes, gst_buffer_list_calculate_size(list), __ATOMIC_RELAXED);
  }
  return GST_PAD_PROBE_OK;
}

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
  if (!g_object_get_data(G_OBJECT(pad), COUNT_KEY)) {
    ng_count *c = g_new0(ng_count, 1);
    g_object_set_data_full(G_OBJECT(pad), COUNT_KEY, c, g_free);
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, count_buffers, c, NULL);
  }
  return NULL;
}

static napi_value ng_pipeline_counted(napi_env env, napi_callback_info info) {
  g_autoptr(GstPad) pad = pad_argument(env, info);
  if (!pad) return NULL;
  ng_count *c = g_object_get_data(G_OBJECT(pad), COUNT_KEY);
  guint64 buffers = c ? __atomic_load_n(&c->buffers, __ATOMIC_RELAXED) : 0;
  guint64 bytes = c ? __atomic_load_n(&c->bytes, __ATOMIC_RELAXED) : 0;
  g_autofree char *name = gst_object_get_path_string(GST_OBJECT(pad));
  if (!c) NG_THROWF("NG_ERR_ARG", "%s is not counted: call countBuffers first", name);
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
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GstIterator) it = gst_bin_iterate_recurse(GST_BIN(p->bin));
  g_auto(GValue) item = G_VALUE_INIT;
  gboolean done = FALSE;
  while (!done) {
    switch (gst_iterator_next(it, &item)) {
      case GST_ITERATOR_OK: {
        GstElement *el = g_value_get_object(&item);
        if (GST_OBJECT_FLAG_IS_SET(el, GST_ELEMENT_FLAG_SINK) && !GST_IS_BIN(el)) g_ptr_array_add(names, gst_element_get_name(el));
        g_value_reset(&item);
        break;
      }
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync(it);
        g_ptr_array_set_size(names, 0);
        break;
      default:
        done = TRUE;
    }
  }
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
  guint64 total = 0;
  g_mutex_lock(&p->lock);
  if (p->qos_dropped) {
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, p->qos_dropped);
    while (g_hash_table_iter_next(&it, NULL, &value)) total += *(guint64 *) value;
  }
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
  g_autoptr(GstPad) pad = gst_element_get_static_pad(el, "sink");
  g_autoptr(GstQuery) q = gst_query_new_latency();
  gboolean answered = pad && gst_pad_peer_query(pad, q);
  gboolean live = FALSE;
  GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
  if (answered) gst_query_parse_latency(q, &live, &min, &max);
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
