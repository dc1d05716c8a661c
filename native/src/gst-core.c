/* The pipeline operations the addon's Pipeline class and the native engine host both run (gst-core.h). */
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include "gst-core.h"

static const char *state_names[] = { "null", "ready", "paused", "playing" };

const char *ng_state_name(GstState state) {
  return state >= GST_STATE_NULL && state <= GST_STATE_PLAYING ? state_names[state - GST_STATE_NULL] : "void-pending";
}

gboolean ng_parse_state(const char *name, GstState *out) {
  for (int i = 0; i < 4; i++)
    if (!strcmp(name, state_names[i])) { *out = GST_STATE_NULL + i; return TRUE; }
  return FALSE;
}

GstElement *ng_parse_pipeline(const char *description, GError **err) {
  GstElement *parsed = gst_parse_launch_full(description, NULL, GST_PARSE_FLAG_FATAL_ERRORS, err);
  if (!parsed) return NULL;
  GstElement *bin = parsed;
  if (!GST_IS_PIPELINE(parsed)) {
    bin = gst_pipeline_new(NULL);
    gst_bin_add(GST_BIN(bin), parsed);
  }
  return gst_object_ref_sink(bin);
}

#define OWNER_KEY "encoderd-owner"

gboolean ng_appsink_claim(GstElement *sink, const char *owner) {
  if (g_object_get_data(G_OBJECT(sink), OWNER_KEY)) return FALSE;
  g_object_set_data_full(G_OBJECT(sink), OWNER_KEY, g_strdup(owner), g_free);
  return TRUE;
}

const char *ng_appsink_owner(GstElement *sink) { return g_object_get_data(G_OBJECT(sink), OWNER_KEY); }

void ng_appsink_release(GstElement *sink) { g_object_set_data(G_OBJECT(sink), OWNER_KEY, NULL); }

/* Why: a bin posts EOS once every element flagged as a sink has had one. A tap fed from a demuxer's pad that never
 * comes (the KLV branch of a file without KLV, linked by gst_parse's delayed link) gets no EOS, so a passed-through
 * file that ended was never reported ended and a stop waited out its EOS timeout. GstBin reads the flag each time
 * it checks for EOS (and when it routes a latency query or event to its sinks: a tap takes none, so it renders a
 * sample as soon as it may, which is all a tap needs). Only once the pipeline plays: GstBin changes its children's
 * state sinks first, and a tap not flagged a sink was set to PLAYING after the queue before it had pushed, which
 * refused the buffers as flushing and stopped the branch (a UDP source's KLV relay, 2 of 6 runs). */
typedef struct {
  GstElement *tap;
  gboolean other;
} OtherSink;

static void note_other_sink(GstElement *el, gpointer data) {
  OtherSink *o = data;
  if (el != o->tap && !GST_IS_BIN(el) && GST_OBJECT_FLAG_IS_SET(el, GST_ELEMENT_FLAG_SINK)) o->other = TRUE;
}

static void forget_other_sink(gpointer data) { ((OtherSink *) data)->other = FALSE; }

void ng_tap_exempt_from_eos(GstElement *sink) {
  /* Only beside another sink: a bin with no sink at all never posts EOS (GstBin wants at least one), and an appsink
   * that is a pipeline's only sink is its output, not a tap. */
  g_autoptr(GstObject) parent = gst_object_get_parent(GST_OBJECT(sink));
  if (!parent || !GST_IS_BIN(parent)) return;
  OtherSink o = { sink, FALSE };
  ng_bin_foreach(GST_BIN(parent), note_other_sink, forget_other_sink, &o);
  if (o.other) GST_OBJECT_FLAG_UNSET(sink, GST_ELEMENT_FLAG_SINK);
}

void ng_bin_foreach(GstBin *bin, void (*fn)(GstElement *el, gpointer data), void (*reset)(gpointer data), gpointer data) {
  g_autoptr(GstIterator) it = gst_bin_iterate_recurse(bin);
  g_auto(GValue) item = G_VALUE_INIT;
  for (;;) {
    switch (gst_iterator_next(it, &item)) {
      case GST_ITERATOR_OK:
        fn(g_value_get_object(&item), data);
        g_value_reset(&item);
        break;
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync(it);
        if (reset) reset(data);
        break;
      default:
        return;
    }
  }
}

void ng_element_foreach_property(GstElement *el, void (*fn)(const char *name, const char *text, gpointer data), gpointer data) {
  guint n;
  g_autofree GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(el), &n);
  for (guint i = 0; i < n; i++) {
    if (!(specs[i]->flags & G_PARAM_READABLE) || !strcmp(specs[i]->name, "name")) continue;
    g_auto(GValue) v = G_VALUE_INIT;
    g_value_init(&v, G_PARAM_SPEC_VALUE_TYPE(specs[i]));
    g_object_get_property(G_OBJECT(el), specs[i]->name, &v);
    g_autofree char *text = ng_value_to_string(&v);
    if (text) fn(specs[i]->name, text, data);
  }
}

gboolean ng_push_buffer(GstElement *bin, const char *name, const guint8 *data, gsize size, gint64 pts, gint64 dts,
                        const char **code, char **why) {
  g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(bin), name);
  if (!el) {
    *code = "NG_ERR_NO_ELEMENT";
    *why = g_strdup_printf("no element named '%s' in the pipeline", name);
    return FALSE;
  }
  if (!GST_IS_APP_SRC(el)) {
    *code = "NG_ERR_ARG";
    *why = g_strdup_printf("'%s' is not an appsrc", name);
    return FALSE;
  }
  GstBuffer *buf = gst_buffer_new_memdup(data, size);
  if (pts >= 0) GST_BUFFER_PTS(buf) = (GstClockTime) pts;
  if (dts >= 0) GST_BUFFER_DTS(buf) = (GstClockTime) dts;
  GstFlowReturn ret = gst_app_src_push_buffer(GST_APP_SRC(el), buf);  /* takes buf */
  if (ret == GST_FLOW_OK) return TRUE;
  *code = "NG_ERR_STATE";
  *why = g_strdup_printf("appsrc '%s' refused the buffer: %s", name, gst_flow_get_name(ret));
  return FALSE;
}

gint64 ng_running_time(GstElement *bin) {
  g_autoptr(GstClock) clock = gst_element_get_clock(bin);
  if (!clock) return -1;
  GstClockTime now = gst_clock_get_time(clock);
  GstClockTime base = gst_element_get_base_time(bin);
  if (GST_STATE_TARGET(bin) == GST_STATE_PLAYING && GST_CLOCK_TIME_IS_VALID(now) && now >= base) return (gint64) (now - base);
  return -1;
}

void ng_force_key_unit(GstElement *el) {
  GstEvent *ev = gst_video_event_new_upstream_force_key_unit(GST_CLOCK_TIME_NONE, TRUE, 0);
  g_autoptr(GstPad) src = el->numsrcpads ? gst_element_get_static_pad(el, "src") : NULL;
  /* FALSE only means nobody upstream encodes: not an error worth reporting. */
  if (src) gst_pad_send_event(src, ev);
  else gst_element_send_event(el, ev);
}
