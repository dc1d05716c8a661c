/* The host's side of the statistics, as core/engine/host-stats.ts does it for the Node host: buffer counters on the
 * pads the composer named (Meters) and on every output sink, and once a second a `stats` event with the raw totals.
 * A transport's figures are parsed by the core from the text of its stats property (policy: its declaration says
 * what the fields mean), so the sample carries that text (transportText, in the order of meters.transports). */
#include "commands.h"

#define STATS_INTERVAL_MS 1000

struct hs_sampler {
  gint refs;                 /* the owner's and the timer's: a tick may be running when the owner frees it */
  GMutex lock;               /* a tick against free */
  gboolean stopped;
  hp_pipe *pipe;             /* NULL on demand */
  GstElement *bin;           /* our ref: the pipe's owner may destroy it first */
  JsonObject *meters;
  GPtrArray *outputs;        /* the sinks that are not internal */
  GSource *timer;
};

static GstPad *pad_of(GstElement *bin, JsonObject *ref, const char **code, char **why) {
  const char *element = hc_string(ref, "element", ""), *pad_name = hc_string(ref, "pad", "");
  g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(bin), element);
  if (!el) {
    *code = "NG_ERR_NO_ELEMENT";
    *why = g_strdup_printf("no element named '%s' in the pipeline", element);
    return NULL;
  }
  GstPad *pad = gst_element_get_static_pad(el, pad_name);
  if (!pad) {
    *code = "NG_ERR_ARG";
    *why = g_strdup_printf("'%s' has no pad '%s'", element, pad_name);
  }
  return pad;
}

/* Each named pad: the frames, the source, each input, each output's sink pad. */
static gboolean foreach_pad(hs_sampler *s, gboolean (*fn)(GstPad *pad, gpointer data), gpointer data, const char **code, char **why) {
  JsonObject *refs[2] = { hc_object(s->meters, "frames"), hc_object(s->meters, "source") };
  JsonArray *inputs = hc_array(s->meters, "inputs");
  g_autoptr(GPtrArray) all = g_ptr_array_new();
  for (int i = 0; i < 2; i++) if (refs[i]) g_ptr_array_add(all, refs[i]);
  for (guint i = 0; inputs && i < json_array_get_length(inputs); i++) g_ptr_array_add(all, json_array_get_object_element(inputs, i));
  for (guint i = 0; i < all->len; i++) {
    g_autoptr(GstPad) pad = pad_of(s->bin, all->pdata[i], code, why);
    if (!pad || !fn(pad, data)) return FALSE;
  }
  for (guint i = 0; i < s->outputs->len; i++) {
    g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(s->bin), s->outputs->pdata[i]);
    g_autoptr(GstPad) pad = el ? gst_element_get_static_pad(el, "sink") : NULL;
    if (pad && !fn(pad, data)) return FALSE;
  }
  return TRUE;
}

static gboolean install(GstPad *pad, gpointer data) {
  ng_count_buffers(pad);
  return TRUE;
}

hs_sampler *hs_sampler_new(hp_pipe *p, JsonObject *meters, const char **code, char **why) {
  g_autoptr(hs_sampler) s = g_new0(hs_sampler, 1);
  s->refs = 1;
  g_mutex_init(&s->lock);
  s->meters = json_object_ref(meters);
  s->outputs = g_ptr_array_new_with_free_func(g_free);
  if (!p) return g_steal_pointer(&s);
  s->pipe = hp_pipe_ref(p);
  s->bin = gst_object_ref(hp_pipe_bin(p));
  g_autoptr(GPtrArray) sinks = ng_sink_names(GST_BIN(s->bin));
  JsonArray *internal = hc_array(meters, "internalSinks");
  for (guint i = 0; i < sinks->len; i++) {
    gboolean skip = FALSE;
    for (guint j = 0; internal && j < json_array_get_length(internal); j++)
      skip = skip || !g_strcmp0(json_array_get_string_element(internal, j), sinks->pdata[i]);
    if (!skip) g_ptr_array_add(s->outputs, g_strdup(sinks->pdata[i]));
  }
  if (!foreach_pad(s, install, NULL, code, why)) return NULL;
  return g_steal_pointer(&s);
}

static guint64 buffers_at(hs_sampler *s, JsonObject *ref) {
  const char *code;
  g_autofree char *why = NULL;
  g_autoptr(GstPad) pad = pad_of(s->bin, ref, &code, &why);
  guint64 buffers = 0, bytes;
  if (pad) ng_counted(pad, &buffers, &bytes);
  return buffers;
}

static void add_count(JsonBuilder *b, const char *name, hs_sampler *s, JsonObject *ref) {
  json_builder_set_member_name(b, name);
  if (ref) json_builder_add_int_value(b, (gint64) buffers_at(s, ref));
  else json_builder_add_null_value(b);
}

/* A property as the addon's getProperty gives it to JS: text, or null when it has no simple form. */
static char *property_text(GstElement *bin, const char *element, const char *property) {
  g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(bin), element);
  GParamSpec *pspec = el ? g_object_class_find_property(G_OBJECT_GET_CLASS(el), property) : NULL;
  if (!pspec || !(pspec->flags & G_PARAM_READABLE)) return NULL;
  g_auto(GValue) v = G_VALUE_INIT;
  g_value_init(&v, G_PARAM_SPEC_VALUE_TYPE(pspec));
  g_object_get_property(G_OBJECT(el), property, &v);
  char *text = ng_value_to_string(&v);
  return text ? text : ng_value_to_text(&v);
}

static void add_rate(JsonBuilder *b, const char *name, hs_sampler *s, const char *rate, const char *property) {
  g_autofree char *text = rate ? property_text(s->bin, rate, property) : NULL;
  json_builder_set_member_name(b, name);
  if (text) json_builder_add_double_value(b, g_ascii_strtod(text, NULL));
  else json_builder_add_null_value(b);
}

static void sample(hs_sampler *s) {
  JsonBuilder *b = hc_event("stats");
  json_builder_set_member_name(b, "sample");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "atMs");
  json_builder_add_double_value(b, g_get_real_time() / 1000.0);
  json_builder_set_member_name(b, "rtspClients");
  if (hr_clients() >= 0) json_builder_add_int_value(b, hr_clients());
  else json_builder_add_null_value(b);
  if (hr_clients() >= 0) {
    /* This host's RTSP server writes its events to the core from its own notify (host-rtsp.c), through no queue that
     * could refuse one; the Node host's go through the addon's bounded queue and count what it drops. */
    json_builder_set_member_name(b, "serviceEventsDropped");
    json_builder_add_int_value(b, 0);
  }
  if (!s->bin) {
    const char *nulls[] = { "frames", "bytes", "sourceFrames", "rateDropped", "rateDuplicated", "latencyNs" };
    for (guint i = 0; i < G_N_ELEMENTS(nulls); i++) {
      json_builder_set_member_name(b, nulls[i]);
      json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "inputs");
    json_builder_begin_array(b);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "qosDropped");
    json_builder_add_int_value(b, 0);
  } else {
    add_count(b, "frames", s, hc_object(s->meters, "frames"));
    add_count(b, "sourceFrames", s, hc_object(s->meters, "source"));
    guint64 bytes = 0;
    for (guint i = 0; i < s->outputs->len; i++) {
      g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(s->bin), s->outputs->pdata[i]);
      g_autoptr(GstPad) pad = el ? gst_element_get_static_pad(el, "sink") : NULL;
      guint64 buffers, n = 0;
      if (pad) ng_counted(pad, &buffers, &n);
      bytes += n;
    }
    json_builder_set_member_name(b, "bytes");
    json_builder_add_int_value(b, (gint64) bytes);
    json_builder_set_member_name(b, "inputs");
    json_builder_begin_array(b);
    JsonArray *inputs = hc_array(s->meters, "inputs");
    for (guint i = 0; inputs && i < json_array_get_length(inputs); i++)
      json_builder_add_int_value(b, (gint64) buffers_at(s, json_array_get_object_element(inputs, i)));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "qosDropped");
    json_builder_add_int_value(b, (gint64) hp_pipe_qos_dropped(s->pipe));
    const char *rate = hc_string(s->meters, "rate", NULL);
    add_rate(b, "rateDropped", s, rate, "drop");
    add_rate(b, "rateDuplicated", s, rate, "duplicate");
    gboolean live = FALSE;
    GstClockTime min = 0, max;
    g_autoptr(GstElement) first = s->outputs->len ? gst_bin_get_by_name(GST_BIN(s->bin), s->outputs->pdata[0]) : NULL;
    gboolean answered = first && ng_latency(first, &live, &min, &max);
    json_builder_set_member_name(b, "latencyNs");
    if (answered && live && GST_CLOCK_TIME_IS_VALID(min)) json_builder_add_int_value(b, (gint64) min);
    else json_builder_add_null_value(b);
    json_builder_set_member_name(b, "ipcDropped");
    json_builder_add_int_value(b, (gint64) hp_pipe_ipc_dropped(s->pipe));
    JsonArray *ts = hc_array(s->meters, "transports");
    if (ts && json_array_get_length(ts)) {
      json_builder_set_member_name(b, "transportText");
      json_builder_begin_array(b);
      for (guint i = 0; i < json_array_get_length(ts); i++) {
        JsonObject *t = json_array_get_object_element(ts, i), *stats = hc_object(t, "stats");
        g_autofree char *text = stats ? property_text(s->bin, hc_string(t, "element", ""), hc_string(stats, "property", "")) : NULL;
        if (text) json_builder_add_string_value(b, text);
        else json_builder_add_null_value(b);
      }
      json_builder_end_array(b);
    }
  }
  json_builder_end_object(b);
  hc_emit(b);
}

static void sampler_unref(gpointer data) {
  hs_sampler *s = data;
  if (!g_atomic_int_dec_and_test(&s->refs)) return;
  if (s->pipe) hp_pipe_unref(s->pipe);
  if (s->bin) gst_object_unref(s->bin);
  json_object_unref(s->meters);
  g_ptr_array_unref(s->outputs);
  g_mutex_clear(&s->lock);
  g_free(s);
}

static gboolean tick(gpointer data) {
  hs_sampler *s = data;
  g_mutex_lock(&s->lock);
  if (!s->stopped) sample(s);
  g_mutex_unlock(&s->lock);
  return G_SOURCE_CONTINUE;
}

static gboolean tick_once(gpointer data) {
  tick(data);
  return G_SOURCE_REMOVE;
}

void hs_sampler_start(hs_sampler *s) {
  g_mutex_lock(&s->lock);
  s->timer = g_timeout_source_new(STATS_INTERVAL_MS);
  g_atomic_int_inc(&s->refs);
  g_source_set_callback(s->timer, tick, s, sampler_unref);
  g_source_attach(s->timer, hc_context());
  g_mutex_unlock(&s->lock);
  /* The first sample at once, as the Node host's start() does. */
  g_atomic_int_inc(&s->refs);
  g_main_context_invoke_full(hc_context(), G_PRIORITY_DEFAULT, tick_once, s, sampler_unref);
}

void hs_sampler_free(hs_sampler *s) {
  g_mutex_lock(&s->lock);
  s->stopped = TRUE;
  if (s->timer) {
    g_source_destroy(s->timer);
    g_source_unref(s->timer);
    s->timer = NULL;
  }
  g_mutex_unlock(&s->lock);
  sampler_unref(s);
}
