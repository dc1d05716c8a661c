/* Bus messages and appsink samples reduced to plain data on the thread that posts them (the bus sync handler and the
 * appsink callback run on streaming threads); gst-core.h. */
#include "gst-core.h"

void ng_msg_free(ng_msg *m) {
  g_free(m->source);
  g_free(m->text);
  g_free(m->debug);
  g_free(m->caps);
  if (m->fields) gst_structure_free(m->fields);
  g_free(m->data);
  g_free(m);
}

ng_msg *ng_msg_error_copy(const ng_msg *m) {
  ng_msg *c = g_new0(ng_msg, 1);
  c->type = NG_MSG_ERROR;
  c->source = g_strdup(m->source);
  c->text = g_strdup(m->text);
  c->debug = g_strdup(m->debug);
  return c;
}

static gboolean recalculate_latency(gpointer bin) {
  gst_bin_recalculate_latency(bin);
  return G_SOURCE_REMOVE;
}

ng_msg *ng_msg_from_bus(GstMessage *message, gconstpointer bin, GMainContext *ctx) {
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_LATENCY) {
    GstObject *top = gst_object_ref(GST_MESSAGE_SRC(message)), *parent;
    while ((parent = gst_object_get_parent(top))) { gst_object_unref(top); top = parent; }
    if (GST_IS_BIN(top)) g_main_context_invoke_full(ctx, G_PRIORITY_DEFAULT, recalculate_latency, top, gst_object_unref);
    else gst_object_unref(top);
    return NULL;
  }
  g_autoptr(ng_msg) m = g_new0(ng_msg, 1);
  m->source = g_strdup(GST_MESSAGE_SRC_NAME(message));
  switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_QOS: {
      GstFormat format;
      guint64 processed;
      gst_message_parse_qos_stats(message, &format, &processed, &m->dropped);
      if (format == GST_FORMAT_UNDEFINED || m->dropped == (guint64) -1) return NULL;
      m->type = NG_MSG_QOS;
      break;
    }
    case GST_MESSAGE_STATE_CHANGED:
      if (GST_MESSAGE_SRC(message) != bin) return NULL;
      m->type = NG_MSG_STATE;
      gst_message_parse_state_changed(message, &m->old, &m->current, &m->pending);
      break;
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING: {
      g_autoptr(GError) err = NULL;
      if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        m->type = NG_MSG_ERROR;
        gst_message_parse_error(message, &err, &m->debug);
      } else {
        m->type = NG_MSG_WARNING;
        gst_message_parse_warning(message, &err, &m->debug);
      }
      m->text = g_strdup(err->message);
      break;
    }
    case GST_MESSAGE_EOS:
      m->type = NG_MSG_EOS;
      break;
    case GST_MESSAGE_ELEMENT:
      if (!gst_message_get_structure(message)) return NULL;
      m->type = NG_MSG_ELEMENT;
      m->fields = gst_structure_copy(gst_message_get_structure(message));
      break;
    default:
      return NULL;
  }
  return g_steal_pointer(&m);
}

ng_msg *ng_msg_from_sample(GstAppSink *sink) {
  g_autoptr(GstSample) sample = gst_app_sink_pull_sample(sink);
  if (!sample) return NULL;
  GstBuffer *buf = gst_sample_get_buffer(sample);
  ng_msg *m = g_new0(ng_msg, 1);
  m->type = NG_MSG_SAMPLE;
  m->source = gst_element_get_name(GST_ELEMENT(sink));
  m->pts = buf && GST_BUFFER_PTS_IS_VALID(buf) ? (gint64) GST_BUFFER_PTS(buf) : -1;
  m->dts = buf && GST_BUFFER_DTS_IS_VALID(buf) ? (gint64) GST_BUFFER_DTS(buf) : -1;
  m->keyframe = buf && !GST_BUFFER_FLAG_IS_SET(buf, GST_BUFFER_FLAG_DELTA_UNIT);
  /* The negotiated caps, so the owner can learn what a stream is (the core probes a passed-through source's codec). */
  GstCaps *caps = gst_sample_get_caps(sample);
  m->caps = caps ? gst_caps_to_string(caps) : NULL;
  GstMapInfo map;
  if (buf && gst_buffer_map(buf, &map, GST_MAP_READ)) {
    m->size = map.size;
    m->data = g_memdup2(map.data, map.size);
    gst_buffer_unmap(buf, &map);
  }
  return m;
}
