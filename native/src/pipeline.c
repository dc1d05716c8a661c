/* The Pipeline class: one GstPipeline, its bus and appsink samples delivered to JS, properties, and state
 * changes run off the JS thread.
 *
 * Lifetime. An ng_pipeline is reference counted: the JS wrapper, the bus sync handler, every watched appsink's
 * callbacks, the thread-safe function and every pending setState job each hold one reference. destroy() (or the
 * GC finalizer of an undestroyed wrapper) sets NULL, drops the bus handler and the tsfn, and unrefs the
 * GstPipeline, which breaks the pipeline -> appsink -> callbacks -> ng_pipeline cycle. A pending setState job
 * keeps its own ref on the GstPipeline, so destroy never pulls the element out from under a worker.
 *
 * Process lifetime. The tsfn is unref'd: a live pipeline does not keep Node alive on its own (GStreamer's
 * threads are not libuv handles; whether the process should stay up is the service's decision, not C's).
 * A pending setState does keep Node alive until it settles. */
#include "pipeline.h"
#include "value.h"

static napi_type_tag pipeline_tag = { 0x656e636f64657264ULL, 0x7069706531000001ULL };

ng_pipeline *ng_pipeline_ref(ng_pipeline *p) { g_atomic_int_inc(&p->refs); return p; }

void ng_pipeline_unref(gpointer data) {
  ng_pipeline *p = data;
  if (!g_atomic_int_dec_and_test(&p->refs)) return;
  g_free(p->first_error);
  if (p->qos_dropped) g_hash_table_unref(p->qos_dropped);
  g_mutex_clear(&p->lock);
  g_mutex_clear(&p->state_lock);
  g_free(p);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ng_pipeline, ng_pipeline_unref)

/* ---- lifecycle ---- */

static void pipeline_destroy(ng_pipeline *p) {
  if (!p->bin) return;
  GstElement *bin = p->bin;
  p->bin = NULL;
  g_mutex_lock(&p->state_lock);
  p->destroyed = TRUE;
  gst_element_set_state(bin, GST_STATE_NULL);
  g_mutex_unlock(&p->state_lock);
  GstBus *bus = gst_element_get_bus(bin);
  gst_bus_set_sync_handler(bus, NULL, NULL, NULL);
  gst_object_unref(bus);
  g_mutex_lock(&p->lock);
  napi_threadsafe_function tsfn = p->tsfn;
  p->tsfn = NULL;
  g_mutex_unlock(&p->lock);
  if (tsfn) napi_release_threadsafe_function(tsfn, napi_tsfn_abort);
  gst_object_unref(bin);
}

static void pipeline_close(void *data) { pipeline_destroy(data); }

static void pipeline_finalize(napi_env env, void *data, void *hint) {
  ng_untrack(env, data);
  pipeline_destroy(data);
  ng_pipeline_unref(data);
}

/* The ng_pipeline of `this`, throwing NG_ERR_DESTROYED after destroy(). */
#define NG_SELF(p) ng_pipeline *p; do { bool _ok; \
    NG_CALL(napi_check_object_type_tag(env, self, &pipeline_tag, &_ok)); \
    if (!_ok) NG_THROW("NG_ERR_ARG", "not a Pipeline"); \
    NG_CALL(napi_unwrap(env, self, (void **) &p)); \
    if (!p->bin) NG_THROW("NG_ERR_DESTROYED", "the pipeline was destroyed"); \
  } while (0)

ng_pipeline *ng_pipeline_self(napi_env env, napi_value self) {
  NG_SELF(p);
  return p;
}

/* The element named name (a new ref), or throw NG_ERR_NO_ELEMENT. */
#define NG_ELEMENT(var, p, name) g_autoptr(GstElement) var = gst_bin_get_by_name(GST_BIN((p)->bin), name); \
  if (!var) NG_THROWF("NG_ERR_NO_ELEMENT", "no element named '%s' in the pipeline", name)

static napi_value ng_pipeline_new(napi_env env, napi_callback_info info) {
  NG_ARGV(2);
  NG_ARGC_AT_LEAST(2);
  NG_STRING_AUTO(description, argv[0]);
  NG_TYPE_ASSERT(argv[1], napi_function, "onMessage must be a function");
  if (!ng_main_context()) NG_THROW("NG_ERR_INIT", "call init() first");
  g_autoptr(GError) err = NULL;
  GstElement *bin = ng_parse_pipeline(description, &err);
  if (!bin) NG_THROWF("NG_ERR_PARSE", "%s", err ? err->message : "could not parse the description");

  /* The creator's reference: the wrapper's once wrapped, dropped on any throw before. */
  g_autoptr(ng_pipeline) p = g_new0(ng_pipeline, 1);
  p->refs = 1;
  p->bin = bin;
  p->bin_id = bin;
  g_mutex_init(&p->lock);
  g_mutex_init(&p->state_lock);

  napi_value name;
  napi_status s = napi_create_string_utf8(env, "encoderd.Pipeline", NAPI_AUTO_LENGTH, &name);
  if (s == napi_ok) s = napi_create_threadsafe_function(env, argv[1], NULL, name, NG_QUEUE_MAX, 1, p,
                                                        ng_pipeline_tsfn_finalize, p,
                                                        ng_pipeline_call_js, &p->tsfn);
  if (s == napi_ok) ng_pipeline_ref(p);  /* the tsfn's, dropped in ng_pipeline_tsfn_finalize */
  if (s == napi_ok) s = napi_unref_threadsafe_function(env, p->tsfn);
  if (s == napi_ok) s = napi_type_tag_object(env, self, &pipeline_tag);
  if (s == napi_ok) s = napi_wrap(env, self, p, pipeline_finalize, NULL, NULL);
  if (s != napi_ok) {
    pipeline_destroy(p);
    NG_THROW("NG_ERR_ARG", "could not create the Pipeline object");
  }
  GstBus *bus = gst_element_get_bus(bin);
  gst_bus_set_sync_handler(bus, ng_pipeline_on_bus, ng_pipeline_ref(p), ng_pipeline_unref);
  gst_object_unref(bus);
  ng_track(env, g_steal_pointer(&p), pipeline_close);
  return self;
}

static napi_value ng_pipeline_destroy(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  ng_pipeline *p;
  NG_CALL(napi_unwrap(env, self, (void **) &p));
  ng_untrack(env, p);
  pipeline_destroy(p);
  return NULL;
}

/* ---- state ---- */

typedef struct {
  napi_env env;
  ng_pipeline *p;
  GstElement *bin;
  GstState target, reached;
  GstClockTime timeout;
  GstStateChangeReturn ret;
  char *error;
  napi_deferred deferred;
  napi_async_work work;
} state_job;

/* Whatever of a job exists: a job that never ran (its queueing failed) is undone the same way. */
static void state_job_free(state_job *j) {
  if (j->work) napi_delete_async_work(j->env, j->work);
  if (j->bin) gst_object_unref(j->bin);
  if (j->p) ng_pipeline_unref(j->p);
  g_free(j->error);
  g_free(j);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(state_job, state_job_free)

static void state_execute(napi_env env, void *data) {
  state_job *j = data;
  g_mutex_lock(&j->p->lock);
  g_clear_pointer(&j->p->first_error, g_free);
  g_mutex_unlock(&j->p->lock);

  g_mutex_lock(&j->p->state_lock);
  gboolean destroyed = j->p->destroyed;
  if (!destroyed) j->ret = gst_element_set_state(j->bin, j->target);
  g_mutex_unlock(&j->p->state_lock);
  if (destroyed) return;
  /* Wait outside state_lock, so that destroy() can abort an async change that never completes. */
  GstStateChangeReturn waited = gst_element_get_state(j->bin, &j->reached, NULL, j->ret == GST_STATE_CHANGE_ASYNC ? j->timeout : 0);
  if (j->ret != GST_STATE_CHANGE_FAILURE) j->ret = waited;
  if (j->ret == GST_STATE_CHANGE_FAILURE) {
    g_mutex_lock(&j->p->lock);
    j->error = g_strdup(j->p->first_error);
    g_mutex_unlock(&j->p->lock);
  }
}

static void state_complete(napi_env env, napi_status status, void *data) {
  state_job *j = data;
  napi_value result;
  char msg[1024];
  if (!j->p->bin) {
    napi_reject_deferred(env, j->deferred, ng_error(env, "NG_ERR_DESTROYED", "the pipeline was destroyed"));
  } else if (j->ret == GST_STATE_CHANGE_FAILURE) {
    g_snprintf(msg, sizeof msg, "state change to %s failed%s%s", ng_state_name(j->target), j->error ? ": " : "",
               j->error ? j->error : "");
    napi_reject_deferred(env, j->deferred, ng_error(env, "NG_ERR_STATE", msg));
  } else if (j->ret == GST_STATE_CHANGE_ASYNC) {
    g_snprintf(msg, sizeof msg, "state change to %s did not complete in time", ng_state_name(j->target));
    napi_reject_deferred(env, j->deferred, ng_error(env, "NG_ERR_TIMEOUT", msg));
  } else if (napi_create_string_utf8(env, ng_state_name(j->reached), NAPI_AUTO_LENGTH, &result) == napi_ok) {
    napi_resolve_deferred(env, j->deferred, result);
  }
  state_job_free(j);
}

static napi_value ng_pipeline_set_state(napi_env env, napi_callback_info info) {
  NG_ARGV(2);
  NG_ARGC_AT_LEAST(2);
  NG_SELF(p);
  NG_STRING_AUTO(state, argv[0]);
  NG_INT64(timeout_ms, argv[1]);
  GstState target;
  if (!ng_parse_state(state, &target)) NG_THROWF("NG_ERR_ARG", "unknown state '%s'", state);
  if (timeout_ms < 0) NG_THROW("NG_ERR_ARG", "timeoutMs must be >= 0");

  napi_value promise, name;
  NG_CALL(napi_create_string_utf8(env, "encoderd.setState", NAPI_AUTO_LENGTH, &name));
  g_autoptr(state_job) j = g_new0(state_job, 1);
  j->env = env;
  j->target = target;
  j->timeout = (GstClockTime) timeout_ms * GST_MSECOND;
  j->p = ng_pipeline_ref(p);
  j->bin = gst_object_ref(p->bin);
  NG_CALL(napi_create_async_work(env, NULL, name, state_execute, state_complete, j, &j->work));
  if (napi_create_promise(env, &j->deferred, &promise) != napi_ok || napi_queue_async_work(env, j->work) != napi_ok)
    NG_THROW("NG_ERR_ARG", "could not start the state change");
  g_steal_pointer(&j);  /* state_complete's now */
  return promise;
}

static napi_value ng_pipeline_get_state(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_SELF(p);
  GstState current;
  gst_element_get_state(p->bin, &current, NULL, 0);
  napi_value out;
  NG_CALL(napi_create_string_utf8(env, ng_state_name(current), NAPI_AUTO_LENGTH, &out));
  return out;
}

static napi_value ng_pipeline_send_eos(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_SELF(p);
  gst_element_send_event(p->bin, gst_event_new_eos());
  return NULL;
}

/* ---- properties ---- */

static napi_value ng_pipeline_set_property(napi_env env, napi_callback_info info) {
  NG_ARGV(3);
  NG_ARGC_AT_LEAST(3);
  NG_SELF(p);
  NG_STRING_AUTO(name, argv[0]);
  NG_STRING_AUTO(prop, argv[1]);
  NG_ELEMENT(el, p, name);
  GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(el), prop);
  if (!pspec || !(pspec->flags & G_PARAM_WRITABLE)) NG_THROWF("NG_ERR_NO_PROPERTY", "%s has no writable property '%s'", name, prop);
  g_auto(GValue) v = G_VALUE_INIT;
  g_autofree char *why = NULL;
  if (!ng_value_from_js(env, argv[2], pspec, &v, &why)) NG_THROWF("NG_ERR_VALUE", "%s.%s: %s", name, prop, why);
  g_object_set_property(G_OBJECT(el), prop, &v);
  return NULL;
}

static napi_value ng_pipeline_get_property(napi_env env, napi_callback_info info) {
  NG_ARGV(2);
  NG_ARGC_AT_LEAST(2);
  NG_SELF(p);
  NG_STRING_AUTO(name, argv[0]);
  NG_STRING_AUTO(prop, argv[1]);
  NG_ELEMENT(el, p, name);
  GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(el), prop);
  if (!pspec || !(pspec->flags & G_PARAM_READABLE)) NG_THROWF("NG_ERR_NO_PROPERTY", "%s has no readable property '%s'", name, prop);
  g_auto(GValue) v = G_VALUE_INIT;
  g_value_init(&v, G_PARAM_SPEC_VALUE_TYPE(pspec));
  g_object_get_property(G_OBJECT(el), prop, &v);
  napi_value out = ng_value_to_js(env, &v);
  if (!out) NG_THROW("NG_ERR_ARG", "could not convert the value");
  return out;
}

typedef struct { napi_env env; napi_value arr, props; uint32_t count; gboolean failed; } elements_ctx;

static void add_property(const char *name, const char *text, gpointer data) {
  elements_ctx *c = data;
  napi_value v;
  if (napi_create_string_utf8(c->env, text, NAPI_AUTO_LENGTH, &v) != napi_ok ||
      napi_set_named_property(c->env, c->props, name, v) != napi_ok) c->failed = TRUE;
}

static napi_value element_info(napi_env env, GstElement *el, elements_ctx *c) {
  napi_value obj;
  NG_CALL(napi_create_object(env, &obj));
  NG_CALL(napi_create_object(env, &c->props));
  g_autofree char *name = gst_element_get_name(el);
  GstElementFactory *f = gst_element_get_factory(el);
  NG_SET_STRING(obj, "name", name);
  NG_SET_STRING(obj, "factory", f ? GST_OBJECT_NAME(f) : G_OBJECT_TYPE_NAME(el));
  ng_element_foreach_property(el, add_property, c);
  NG_CALL(napi_set_named_property(env, obj, "properties", c->props));
  return obj;
}

static void add_element(GstElement *el, gpointer data) {
  elements_ctx *c = data;
  if (c->failed) return;
  napi_value info = element_info(c->env, el, c);
  c->failed = c->failed || !info || napi_set_element(c->env, c->arr, c->count++, info) != napi_ok;
}

static void restart_elements(gpointer data) {
  elements_ctx *c = data;
  c->count = 0;
  c->failed = c->failed || napi_create_array(c->env, &c->arr) != napi_ok;
}

static napi_value ng_pipeline_elements(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_SELF(p);
  elements_ctx c = { .env = env };
  NG_CALL(napi_create_array(env, &c.arr));
  ng_bin_foreach(GST_BIN(p->bin), add_element, restart_elements, &c);
  return c.failed ? NULL : c.arr;
}

/* ---- app elements ---- */

static napi_value ng_pipeline_push_buffer(napi_env env, napi_callback_info info) {
  NG_ARGV(4);
  NG_ARGC_AT_LEAST(3);
  NG_SELF(p);
  NG_STRING_AUTO(name, argv[0]);
  bool is_buffer;
  NG_CALL(napi_is_buffer(env, argv[1], &is_buffer));
  if (!is_buffer) NG_THROW("NG_ERR_ARG", "data must be a Buffer");
  void *data;
  size_t size;
  NG_CALL(napi_get_buffer_info(env, argv[1], &data, &size));
  NG_INT64(pts, argv[2]);
  int64_t dts = -1;
  napi_valuetype dts_type = napi_undefined;
  if (argc > 3) NG_CALL(napi_typeof(env, argv[3], &dts_type));
  if (dts_type != napi_undefined) {
    NG_INT64(given, argv[3]);
    dts = given;
  }
  const char *code;
  g_autofree char *why = NULL;
  if (!ng_push_buffer(p->bin, name, data, size, pts, dts, &code, &why)) NG_THROW(code, why);
  return NULL;
}

/* Lets JS stamp appsrc buffers ahead of "now" (ng_running_time). */
static napi_value ng_pipeline_running_time(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_SELF(p);
  napi_value out;
  NG_CALL(napi_create_int64(env, ng_running_time(p->bin), &out));
  return out;
}

static napi_value ng_pipeline_watch_sink(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  NG_SELF(p);
  NG_STRING_AUTO(name, argv[0]);
  NG_ELEMENT(el, p, name);
  if (!GST_IS_APP_SINK(el)) NG_THROWF("NG_ERR_ARG", "'%s' is not an appsink", name);
  if (!ng_appsink_claim(el, "watchSink")) {
    const char *owner = ng_appsink_owner(el);
    if (!strcmp(owner, "watchSink")) return NULL;
    NG_THROWF("NG_ERR_ARG", "appsink '%s' is already used by %s", name, owner);
  }
  GstAppSinkCallbacks cb = { .new_sample = ng_pipeline_on_sample };
  gst_app_sink_set_callbacks(GST_APP_SINK(el), &cb, ng_pipeline_ref(p), ng_pipeline_unref);
  return NULL;
}

static napi_value ng_pipeline_exempt_from_eos(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  NG_SELF(p);
  NG_STRING_AUTO(name, argv[0]);
  NG_ELEMENT(el, p, name);
  ng_tap_exempt_from_eos(el);
  return NULL;
}

static napi_value ng_pipeline_force_key_unit(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  NG_SELF(p);
  NG_STRING_AUTO(name, argv[0]);
  NG_ELEMENT(el, p, name);
  ng_force_key_unit(el);
  return NULL;
}

/* ---- shared with rtsp.c ---- */

napi_value ng_error(napi_env env, const char *code, const char *msg) {
  napi_value c, m, err = NULL;
  if (napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &c) == napi_ok &&
      napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &m) == napi_ok)
    napi_create_error(env, c, m, &err);
  return err;
}

GstElement *ng_pipeline_unwrap(napi_env env, napi_value obj) {
  bool ok;
  ng_pipeline *p;
  NG_CALL(napi_check_object_type_tag(env, obj, &pipeline_tag, &ok));
  if (!ok) NG_THROW("NG_ERR_ARG", "not a Pipeline");
  NG_CALL(napi_unwrap(env, obj, (void **) &p));
  if (!p->bin) NG_THROW("NG_ERR_DESTROYED", "the pipeline was destroyed");
  return gst_object_ref(p->bin);
}

napi_value ng_pipeline_init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
    { "setState", NULL, ng_pipeline_set_state, NULL, NULL, NULL, napi_default, NULL },
    { "getState", NULL, ng_pipeline_get_state, NULL, NULL, NULL, napi_default, NULL },
    { "setProperty", NULL, ng_pipeline_set_property, NULL, NULL, NULL, napi_default, NULL },
    { "getProperty", NULL, ng_pipeline_get_property, NULL, NULL, NULL, napi_default, NULL },
    { "sendEos", NULL, ng_pipeline_send_eos, NULL, NULL, NULL, napi_default, NULL },
    { "elements", NULL, ng_pipeline_elements, NULL, NULL, NULL, napi_default, NULL },
    { "pushBuffer", NULL, ng_pipeline_push_buffer, NULL, NULL, NULL, napi_default, NULL },
    { "runningTime", NULL, ng_pipeline_running_time, NULL, NULL, NULL, napi_default, NULL },
    { "watchSink", NULL, ng_pipeline_watch_sink, NULL, NULL, NULL, napi_default, NULL },
    { "exemptFromEos", NULL, ng_pipeline_exempt_from_eos, NULL, NULL, NULL, napi_default, NULL },
    { "forceKeyUnit", NULL, ng_pipeline_force_key_unit, NULL, NULL, NULL, napi_default, NULL },
    { "destroy", NULL, ng_pipeline_destroy, NULL, NULL, NULL, napi_default, NULL },
    /* room for stats.c's */
    { 0 }, { 0 }, { 0 }, { 0 }, { 0 }, { 0 }, { 0 }, { 0 },
  };
  size_t n = 0; /* the methods above, counted: stats.c's go after them */
  while (methods[n].utf8name) n++;
  ng_stats_define(env, methods, &n);
  napi_value cls;
  NG_CALL(napi_define_class(env, "Pipeline", NAPI_AUTO_LENGTH, ng_pipeline_new, NULL, n, methods, &cls));
  NG_CALL(napi_set_named_property(env, exports, "Pipeline", cls));
  return exports;
}
