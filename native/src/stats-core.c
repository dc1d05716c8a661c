/* Measuring a running pipeline from inside (gst-core.h): buffer counters on named pads, the leaf sinks, QoS drops and
 * GStreamer's latency query. No element is added to the pipeline: a counter is a pad probe that adds two numbers on
 * the streaming thread, and everything else is read when the owner asks (once a second).
 *
 * A counter lives as qdata on its pad and its probe points at it; the pad frees both when it is finalised (probes are
 * cleared before qdata), so a destroyed pipeline leaves nothing behind. */
#include "gst-core.h"

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

void ng_count_buffers(GstPad *pad) {
  if (g_object_get_data(G_OBJECT(pad), COUNT_KEY)) return;
  ng_count *c = g_new0(ng_count, 1);
  g_object_set_data_full(G_OBJECT(pad), COUNT_KEY, c, g_free);
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, count_buffers, c, NULL);
}

gboolean ng_counted(GstPad *pad, guint64 *buffers, guint64 *bytes) {
  ng_count *c = g_object_get_data(G_OBJECT(pad), COUNT_KEY);
  *buffers = c ? __atomic_load_n(&c->buffers, __ATOMIC_RELAXED) : 0;
  *bytes = c ? __atomic_load_n(&c->bytes, __ATOMIC_RELAXED) : 0;
  return c != NULL;
}

static void add_sink(GstElement *el, gpointer names) {
  if (GST_OBJECT_FLAG_IS_SET(el, GST_ELEMENT_FLAG_SINK) && !GST_IS_BIN(el)) g_ptr_array_add(names, gst_element_get_name(el));
}

static void clear_names(gpointer names) { g_ptr_array_set_size(names, 0); }

GPtrArray *ng_sink_names(GstBin *bin) {
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  ng_bin_foreach(bin, add_sink, clear_names, names);
  return names;
}

gboolean ng_latency(GstElement *sink, gboolean *live, GstClockTime *min, GstClockTime *max) {
  g_autoptr(GstPad) pad = gst_element_get_static_pad(sink, "sink");
  g_autoptr(GstQuery) q = gst_query_new_latency();
  *live = FALSE;
  *min = 0;
  *max = GST_CLOCK_TIME_NONE;
  if (!pad || !gst_pad_peer_query(pad, q)) return FALSE;
  gst_query_parse_latency(q, live, min, max);
  return TRUE;
}

void ng_qos_record(GHashTable **table, const char *element, guint64 dropped) {
  if (!*table) *table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  guint64 *v = g_new(guint64, 1);
  *v = dropped;
  g_hash_table_insert(*table, g_strdup(element), v);
}

guint64 ng_qos_total(GHashTable *table) {
  guint64 total = 0;
  if (!table) return 0;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, table);
  while (g_hash_table_iter_next(&it, NULL, &value)) total += *(guint64 *) value;
  return total;
}
