/* Producer appsink -> mount appsrc. The producer runs on its own; a shared RTSP media exists only while clients
 * watch. Samples arriving while no media is attached are dropped in the appsink's callback.
 *
 * Timestamps: each sample's running time in the producer is shifted by one offset per media, chosen at the first
 * buffer so that it lands on the media's running time "now" (0 before the media runs). PTS-DTS distances stay as
 * the encoder made them, and the media sees the producer's own cadence instead of arrival jitter (the appsrc does
 * not stamp: a passed-through stream's missing DTS would be its arrival time). */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include "rtsp-feed.h"

struct ng_feed {
  gint refs;
  guint n;
  GstElement **sinks;        /* producer appsinks, claimed; NULL entries after stop */
  GMutex lock;               /* guards everything below: the producer's streaming threads read it */
  GstRTSPMedia *media;       /* the attached media (no ref: unprepared clears it first) */
  GstElement **srcs;         /* its appsrcs (refs), or NULL */
  GstClockTimeDiff *offsets;
  gboolean *have_offset;
};

typedef struct { ng_feed *feed; guint index; } sink_ctx;

ng_feed *ng_feed_ref(ng_feed *f) { g_atomic_int_inc(&f->refs); return f; }

static void detach_locked(ng_feed *f) {
  for (guint i = 0; f->srcs && i < f->n; i++) g_clear_object(&f->srcs[i]);
  g_clear_pointer(&f->srcs, g_free);
  f->media = NULL;
}

void ng_feed_unref(gpointer data) {
  ng_feed *f = data;
  if (!g_atomic_int_dec_and_test(&f->refs)) return;
  detach_locked(f);
  for (guint i = 0; i < f->n; i++) g_clear_object(&f->sinks[i]);
  g_free(f->sinks);
  g_free(f->offsets);
  g_free(f->have_offset);
  g_mutex_clear(&f->lock);
  g_free(f);
}

static void sink_ctx_free(gpointer data) {
  sink_ctx *c = data;
  ng_feed_unref(c->feed);
  g_free(c);
}

/* The media's running time now, or 0 while it is not playing yet. */
static GstClockTime media_now(GstElement *src) {
  GstClockTime now = 0;
  GstClock *clock = gst_element_get_clock(src);
  if (clock && GST_STATE(src) == GST_STATE_PLAYING) {
    GstClockTime t = gst_clock_get_time(clock), base = gst_element_get_base_time(src);
    if (t > base) now = t - base;
  }
  if (clock) gst_object_unref(clock);
  return now;
}

static GstClockTime shifted(GstClockTime t, GstClockTimeDiff offset) {
  if (!GST_CLOCK_TIME_IS_VALID(t)) return GST_CLOCK_TIME_NONE;
  GstClockTimeDiff r = (GstClockTimeDiff) t + offset;
  return r >= 0 ? (GstClockTime) r : GST_CLOCK_TIME_NONE;
}

static GstFlowReturn on_sample(GstAppSink *sink, gpointer data) {
  sink_ctx *c = data;
  ng_feed *f = c->feed;
  g_autoptr(GstSample) sample = gst_app_sink_pull_sample(sink);
  if (!sample) return GST_FLOW_OK;
  GstBuffer *in = gst_sample_get_buffer(sample);
  const GstSegment *seg = gst_sample_get_segment(sample);
  GstClockTime pts = GST_BUFFER_PTS(in), dts = GST_BUFFER_DTS(in);
  if (seg && seg->format == GST_FORMAT_TIME) {
    pts = gst_segment_to_running_time(seg, GST_FORMAT_TIME, pts);
    dts = gst_segment_to_running_time(seg, GST_FORMAT_TIME, dts);
  }
  GstClockTime base = GST_CLOCK_TIME_IS_VALID(dts) ? dts : pts;

  g_mutex_lock(&f->lock);
  GstElement *src = f->srcs && f->srcs[c->index] ? gst_object_ref(f->srcs[c->index]) : NULL;
  gboolean first = FALSE;
  GstClockTimeDiff offset = 0;
  if (src && GST_CLOCK_TIME_IS_VALID(base)) {
    if (!f->have_offset[c->index]) {
      f->offsets[c->index] = (GstClockTimeDiff) media_now(src) - (GstClockTimeDiff) base;
      f->have_offset[c->index] = first = TRUE;
    }
    offset = f->offsets[c->index];
  }
  g_mutex_unlock(&f->lock);

  if (src) {
    GstCaps *caps = gst_sample_get_caps(sample), *current = gst_app_src_get_caps(GST_APP_SRC(src));
    if (caps && (!current || !gst_caps_is_equal(current, caps))) gst_app_src_set_caps(GST_APP_SRC(src), caps);
    if (current) gst_caps_unref(current);
    GstBuffer *out = gst_buffer_copy(in);  /* shares the memory; only the metadata is ours to change */
    /* A missing DTS stays missing (an RTP-depayloaded stream has none): the appsrc's do-timestamp stamped it with
     * the arrival time, and the mount then sent a frame that arrived late with its PTS moved towards it (single
     * frames 1-4 ms off a passed-through source's grid). Only a sample with no time at all is stamped on arrival. */
    GST_BUFFER_PTS(out) = GST_CLOCK_TIME_IS_VALID(base) ? shifted(pts, offset) : media_now(src);
    GST_BUFFER_DTS(out) = shifted(dts, offset);
    if (first) GST_BUFFER_FLAG_SET(out, GST_BUFFER_FLAG_DISCONT);
    gst_app_src_push_buffer(GST_APP_SRC(src), out);
    gst_object_unref(src);
  }
  return GST_FLOW_OK;
}

ng_feed *ng_feed_new(GstElement *producer, char **names, guint n, char **error) {
  /* Holds the refs until the feed takes them: an error return drops every one. */
  g_autoptr(GPtrArray) sinks = g_ptr_array_new_full(n, gst_object_unref);
  for (guint i = 0; i < n; i++) {
    GstElement *sink = gst_bin_get_by_name(GST_BIN(producer), names[i]);
    if (!sink) {
      *error = g_strdup_printf("no element named '%s' in the producer", names[i]);
      return NULL;
    }
    g_ptr_array_add(sinks, sink);
    const char *owner = g_object_get_data(G_OBJECT(sink), "encoderd-owner");
    gboolean twice = FALSE;
    for (guint j = 0; j < i; j++) twice |= g_ptr_array_index(sinks, j) == sink;
    if (!GST_IS_APP_SINK(sink) || owner || twice) {
      *error = !GST_IS_APP_SINK(sink) ? g_strdup_printf("'%s' is not an appsink", names[i])
             : g_strdup_printf("appsink '%s' is already used by %s", names[i], owner ? owner : "this feed");
      return NULL;
    }
  }
  ng_feed *f = g_new0(ng_feed, 1);
  f->refs = 1;
  f->n = n;
  g_ptr_array_set_free_func(sinks, NULL);
  f->sinks = (GstElement **) g_ptr_array_free(g_steal_pointer(&sinks), FALSE);
  f->offsets = g_new0(GstClockTimeDiff, n);
  f->have_offset = g_new0(gboolean, n);
  g_mutex_init(&f->lock);
  for (guint i = 0; i < n; i++) {
    ng_appsink_claim(f->sinks[i], "an RTSP feed");
    /* A feed must never hold the producer back: keep only the newest samples, and do not wait on the clock. */
    g_object_set(f->sinks[i], "max-buffers", 2, "drop", TRUE, "sync", FALSE, "emit-signals", FALSE, NULL);
    sink_ctx *c = g_new(sink_ctx, 1);
    c->feed = ng_feed_ref(f);
    c->index = i;
    GstAppSinkCallbacks cb = { .new_sample = on_sample };
    gst_app_sink_set_callbacks(GST_APP_SINK(f->sinks[i]), &cb, c, sink_ctx_free);
  }
  return f;
}

char *ng_feed_launch(char **launches, guint n) {
  GString *s = g_string_new("( ");
  /* leaky-type: a media that stops reading (a paused client) must not make the queue grow without bound. */
  for (guint i = 0; i < n; i++)
    g_string_append_printf(s, "appsrc name=feed%u is-live=true format=time max-bytes=0 "
                              "max-buffers=120 leaky-type=downstream ! %s ", i, launches[i]);
  g_string_append(s, ")");
  return g_string_free(s, FALSE);
}

static void on_unprepared(GstRTSPMedia *media, gpointer data) {
  ng_feed *f = data;
  g_mutex_lock(&f->lock);
  if (f->media == media) detach_locked(f);
  g_mutex_unlock(&f->lock);
}

static void feed_unref_closure(gpointer data, GClosure *closure) { ng_feed_unref(data); }

void ng_feed_attach(ng_feed *f, GstRTSPMedia *media) {
  GstElement *bin = gst_rtsp_media_get_element(media);
  GstElement **srcs = g_new0(GstElement *, f->n);
  for (guint i = 0; i < f->n; i++) {
    char name[32];
    g_snprintf(name, sizeof name, "feed%u", i);
    srcs[i] = gst_bin_get_by_name(GST_BIN(bin), name);
    g_mutex_lock(&f->lock);
    GstPad *pad = f->sinks[i] ? gst_element_get_static_pad(f->sinks[i], "sink") : NULL;
    g_mutex_unlock(&f->lock);
    GstCaps *caps = pad ? gst_pad_get_current_caps(pad) : NULL;
    if (srcs[i] && caps) gst_app_src_set_caps(GST_APP_SRC(srcs[i]), caps);
    if (caps) gst_caps_unref(caps);
    if (pad) gst_object_unref(pad);
  }
  gst_object_unref(bin);
  g_signal_connect_data(media, "unprepared", G_CALLBACK(on_unprepared), ng_feed_ref(f), feed_unref_closure, 0);
  g_mutex_lock(&f->lock);
  detach_locked(f);
  f->media = media;
  f->srcs = srcs;
  memset(f->have_offset, 0, f->n * sizeof *f->have_offset);
  g_mutex_unlock(&f->lock);
  /* The media prerolls only once a parser downstream has seen a keyframe: ask for one now, not a GOP later. */
  ng_feed_request_keyframe(f);
}

void ng_feed_request_keyframe(ng_feed *f) {
  for (guint i = 0; i < f->n; i++) {
    g_mutex_lock(&f->lock);
    GstElement *sink = f->sinks[i] ? gst_object_ref(f->sinks[i]) : NULL;
    g_mutex_unlock(&f->lock);
    if (!sink) continue;
    /* A sink sends upstream events out of its sink pad, towards the encoder. */
    gst_element_send_event(sink, gst_video_event_new_upstream_force_key_unit(GST_CLOCK_TIME_NONE, TRUE, 0));
    gst_object_unref(sink);
  }
}

void ng_feed_stop(ng_feed *f) {
  GstAppSinkCallbacks none = { 0 };
  for (guint i = 0; i < f->n; i++) {
    g_mutex_lock(&f->lock);
    GstElement *sink = f->sinks[i];
    f->sinks[i] = NULL;
    g_mutex_unlock(&f->lock);
    if (!sink) continue;
    gst_app_sink_set_callbacks(GST_APP_SINK(sink), &none, NULL, NULL);
    ng_appsink_release(sink);
    gst_object_unref(sink);
  }
  g_mutex_lock(&f->lock);
  detach_locked(f);
  g_mutex_unlock(&f->lock);
}
