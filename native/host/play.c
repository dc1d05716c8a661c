/* play and stop: the pipeline, its companions (companions.c), RTSP server, statistics and KLV pacer, started in the
 * order the Node host starts them (core/engine/host-main.ts) and torn down together.
 *
 * What runs is the command thread's; the exit path (main thread) may tear it down at any moment, so the pointers
 * below change under run_lock, which is never held across anything that blocks. */
#include <malloc.h>
#include "commands.h"

/* How long a failed start of a pipeline with a transport waits for the transport's own error (a secure transport's
 * "Incorrect passphrase" comes just after the failure it caused). */
#define TRANSPORT_ERROR_GRACE_MS 500

static GMutex run_lock;
static hp_pipe *pipeline;
static hr_server *rtsp;
static hs_sampler *sampler;
static hk_pacer *pacer;

/* The run's errors: the main thread writes them, a failed play reads them. */
static GMutex error_lock;
static GCond transport_cond;
static GStrv transport_elements;     /* the meters' transports' elements */
static gboolean transport_failed;
static ng_msg *last_error;

hp_pipe *hc_running(hc_error *e) {
  g_mutex_lock(&run_lock);
  hp_pipe *p = pipeline ? hp_pipe_ref(pipeline) : NULL;
  g_mutex_unlock(&run_lock);
  if (!p) hc_fail(e, "NG_ERR_DESTROYED", "the pipeline is not running");
  return p;
}

void hc_klv_set(GBytes *packet, gint stamp_at, gboolean positioned, hc_error *e) {
  g_mutex_lock(&run_lock);
  if (pacer) hk_pacer_set(pacer, packet, stamp_at, positioned);
  else hc_fail(e, "NG_ERR_DESTROYED", "the pipeline carries no KLV stream or is not running");
  g_mutex_unlock(&run_lock);
}

void hc_klv_hold(gboolean held) {
  g_mutex_lock(&run_lock);
  if (pacer) (held ? hk_pacer_hold : hk_pacer_resume)(pacer);
  g_mutex_unlock(&run_lock);
}

void hc_klv_relay(const ng_msg *m) {
  g_mutex_lock(&run_lock);
  if (pacer && !g_strcmp0(m->source, hk_pacer_relay_sink(pacer))) hk_pacer_relay(pacer, m->data, m->size);
  g_mutex_unlock(&run_lock);
}

/* The main pipeline's messages, as the core reads them (HostEvent). Main thread. */
static void on_message(hp_pipe *p, ng_msg *m, gpointer data) {
  JsonBuilder *b;
  switch (m->type) {
    case NG_MSG_STATE:
      b = hc_event("state");
      json_builder_set_member_name(b, "state");
      json_builder_add_string_value(b, ng_state_name(m->current));
      hc_emit(b);
      break;
    case NG_MSG_ERROR:
      g_mutex_lock(&error_lock);
      /* A transport's failure causes what follows it (a typefind left without data): it stays the run's error. */
      if (!transport_failed) {
        g_clear_pointer(&last_error, ng_msg_free);
        last_error = ng_msg_error_copy(m);
        if (transport_elements && g_strv_contains((const char *const *) transport_elements, m->source)) {
          transport_failed = TRUE;
          g_cond_broadcast(&transport_cond);
        }
      }
      g_mutex_unlock(&error_lock);
      hc_emit_error(m);
      break;
    case NG_MSG_WARNING:
      b = hc_event("warning");
      json_builder_set_member_name(b, "message");
      json_builder_add_string_value(b, m->text ? m->text : "");
      json_builder_set_member_name(b, "source");
      json_builder_add_string_value(b, m->source ? m->source : "");
      hc_emit(b);
      break;
    case NG_MSG_EOS:
      hc_emit(hc_event("eos"));
      break;
    case NG_MSG_SAMPLE:
      hc_klv_relay(m);
      hc_emit_sample(m);
      break;
    case NG_MSG_ELEMENT:
      b = hc_event("element");
      json_builder_set_member_name(b, "source");
      json_builder_add_string_value(b, m->source);
      json_builder_set_member_name(b, "name");
      json_builder_add_string_value(b, gst_structure_get_name(m->fields));
      json_builder_set_member_name(b, "fields");
      json_builder_add_value(b, hc_structure_json(m->fields));
      hc_emit(b);
      break;
    case NG_MSG_QOS:
      break;
  }
}

/* ---- teardown ---- */

static gint trim_pending = 0;

static gboolean trim(gpointer data) {
  g_atomic_int_set(&trim_pending, 0);
  malloc_trim(0);
  return G_SOURCE_REMOVE;
}

void hc_trim_soon(void) {
  if (!g_atomic_int_compare_and_exchange(&trim_pending, 0, 1)) return;
  GSource *t = g_timeout_source_new(1000);
  g_source_set_callback(t, trim, NULL, NULL);
  g_source_attach(t, hc_context());
  g_source_unref(t);
}

void hc_teardown(void) {
  g_mutex_lock(&run_lock);
  hs_sampler *s = g_steal_pointer(&sampler);
  hk_pacer *k = g_steal_pointer(&pacer);
  hr_server *r = g_steal_pointer(&rtsp);
  hp_pipe *p = g_steal_pointer(&pipeline);
  g_mutex_unlock(&run_lock);
  if (s) hs_sampler_free(s);
  if (k) hk_pacer_free(k);
  if (r) hr_server_close(r);
  hc_companions_stop();
  if (p || r) hc_trim_soon();
  hp_pipe_destroy(p);
}

/* ---- play ---- */

static void reset_run(JsonObject *meters) {
  g_mutex_lock(&error_lock);
  g_clear_pointer(&last_error, ng_msg_free);
  transport_failed = FALSE;
  g_clear_pointer(&transport_elements, g_strfreev);
  JsonArray *ts = hc_array(meters, "transports");
  GPtrArray *names = g_ptr_array_new();
  for (guint i = 0; ts && i < json_array_get_length(ts); i++)
    g_ptr_array_add(names, g_strdup(hc_string(json_array_get_object_element(ts, i), "element", "")));
  g_ptr_array_add(names, NULL);
  transport_elements = (GStrv) g_ptr_array_free(names, FALSE);
  g_mutex_unlock(&error_lock);
}

/* A failed start: waits a moment for a transport's error when it has transports and none came yet, and takes the
 * run's error as the failure's cause. */
static void failed_start(hc_error *e) {
  hp_flush();
  g_mutex_lock(&error_lock);
  gint64 until = g_get_monotonic_time() + TRANSPORT_ERROR_GRACE_MS * G_TIME_SPAN_MILLISECOND;
  if (transport_elements && transport_elements[0])
    while (!transport_failed && g_cond_wait_until(&transport_cond, &error_lock, until)) {}
  if (last_error) e->cause = ng_msg_error_copy(last_error);
  g_mutex_unlock(&error_lock);
  hc_teardown();
}

static JsonNode *state_result(const char *state) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "state");
  json_builder_add_string_value(b, state);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

/* The play's services (core/sdk HostService) by kind: this host runs the `rtsp` kind (host-rtsp.c), one at most.
 * FALSE with e set for a kind it does not have. A service with `launch` serves on demand. */
static gboolean pick_service(JsonObject *cmd, JsonObject **rtsp_service, hc_error *e) {
  JsonArray *services = hc_array(cmd, "services");
  *rtsp_service = NULL;
  for (guint i = 0; services && i < json_array_get_length(services); i++) {
    JsonObject *sv = json_array_get_object_element(services, i);
    const char *kind = sv ? hc_string(sv, "kind", "") : "";
    if (g_strcmp0(kind, "rtsp") != 0 || *rtsp_service)
      return hc_fail(e, "NG_ERR_ARG", "this engine host has no service of kind \"%s\"%s", kind,
                     *rtsp_service ? " beyond the one it runs" : ""), FALSE;
    *rtsp_service = sv;
  }
  return TRUE;
}

JsonNode *hc_play(JsonObject *cmd, hc_error *e) {
  hc_teardown();
  JsonObject *meters = hc_object(cmd, "meters"), *service = NULL, *klv = hc_object(cmd, "klv");
  if (!pick_service(cmd, &service, e)) return NULL;
  reset_run(meters);
  /* Companions first: they feed the main pipeline (or the on-demand media) from the start. */
  if (!hc_companions_start(cmd, e)) return hc_teardown(), NULL;
  if (service && json_object_has_member(service, "launch")) {
    /* On demand: nothing runs until a client arrives; the service builds the media then. */
    g_autofree char *why = NULL;
    hr_server *r = hr_server_new(service, NULL, &e->code, &why);
    if (!r) return e->why = g_steal_pointer(&why), hc_teardown(), NULL;
    hs_sampler *s = meters ? hs_sampler_new(NULL, meters, &e->code, &why) : NULL;
    g_mutex_lock(&run_lock);
    rtsp = r;
    sampler = s;
    g_mutex_unlock(&run_lock);
    if (s) hs_sampler_start(s);
    return state_result("ready");
  }
  g_autoptr(GError) err = NULL;
  hp_pipe *p = hp_pipe_new(hc_string(cmd, "description", ""), on_message, NULL, &err);
  if (!p) return hc_fail(e, "NG_ERR_PARSE", "%s", err ? err->message : "could not parse the description"), NULL;
  g_mutex_lock(&run_lock);
  pipeline = p;
  g_mutex_unlock(&run_lock);
  g_autofree char *why = NULL;
  JsonArray *watch = hc_array(cmd, "watchSinks");
  for (guint i = 0; watch && i < json_array_get_length(watch); i++)
    if (!hp_pipe_watch_sink(p, json_array_get_string_element(watch, i), &e->code, &why)) return e->why = g_steal_pointer(&why), NULL;
  /* Counters go in before PLAYING, so the first buffer is counted; samples start once it plays. */
  hs_sampler *s = meters ? hs_sampler_new(p, meters, &e->code, &why) : NULL;
  if (meters && !s) return e->why = g_steal_pointer(&why), failed_start(e), NULL;
  g_mutex_lock(&run_lock);
  sampler = s;
  /* From the start: the muxer outputs nothing, so the sinks never reach PLAYING, until its KLV input has data. */
  if (klv) pacer = hk_pacer_new(p, klv);
  g_mutex_unlock(&run_lock);
  if (!hp_pipe_set_state(p, GST_STATE_PLAYING, (guint) hc_int(cmd, "timeoutMs", 10000), &e->code, &why))
    return e->why = g_steal_pointer(&why), failed_start(e), NULL;
  const char *reached = ng_state_name(hp_pipe_state(p));
  /* The watched sinks are taps: the pipeline's end waits for its outputs alone (ng_tap_exempt_from_eos, once it plays). */
  for (guint i = 0; watch && i < json_array_get_length(watch); i++) {
    g_autoptr(GstElement) tap = gst_bin_get_by_name(GST_BIN(hp_pipe_bin(p)), json_array_get_string_element(watch, i));
    if (tap) ng_tap_exempt_from_eos(tap);
  }
  if (service) {
    hr_server *r = hr_server_new(service, p, &e->code, &why);
    if (!r) return e->why = g_steal_pointer(&why), failed_start(e), NULL;
    g_mutex_lock(&run_lock);
    rtsp = r;
    g_mutex_unlock(&run_lock);
  }
  if (s) hs_sampler_start(s);
  /* The run's state changes go out before the reply, as they happened. */
  hp_flush();
  return state_result(reached);
}

JsonNode *hc_stop(JsonObject *cmd, hc_error *e) {
  g_mutex_lock(&run_lock);
  /* No KLV after the end-of-stream; the muxer drains the packets it holds. */
  hk_pacer *k = g_steal_pointer(&pacer);
  hp_pipe *p = pipeline ? hp_pipe_ref(pipeline) : NULL;
  g_mutex_unlock(&run_lock);
  if (k) hk_pacer_free(k);
  JsonNode *eos = json_object_get_member(cmd, "eos");
  if (p && eos && json_node_get_boolean(eos) && hp_pipe_state(p) == GST_STATE_PLAYING) {
    /* Finalise containers: EOS must reach the sink before the pipeline goes to NULL. */
    hp_pipe_expect_eos(p);
    gst_element_send_event(hp_pipe_bin(p), gst_event_new_eos());
    hp_pipe_wait_eos(p, (guint) hc_int(cmd, "timeoutMs", 5000));
  }
  if (p) hp_pipe_unref(p);
  hc_teardown();
  JsonBuilder *b = hc_event("state");
  json_builder_set_member_name(b, "state");
  json_builder_add_string_value(b, "null");
  hc_emit(b);
  return state_result("null");
}
