/* The RtspServer class: the JS side of the shared RTSP server (rtsp-server.c) on the addon's main-loop thread, its
 * events delivered to JS through a thread-safe function (unref'd: a server alone does not keep Node running, as
 * with Pipeline).
 *
 * Lifetime. An ng_rtsp is reference counted: the JS wrapper and the tsfn hold one. The server's notify points at it
 * until the server is closed (close() or the GC finalizer), and never after. */
#include "ng.h"
#include "rtsp-server.h"

/* The bound of the event queue to JS: a stalled JS thread costs this many events at most (dropped and counted). */
#define NG_RTSP_QUEUE_MAX 1024

typedef struct {
  gint refs;
  ng_rtsp_server *server;    /* closed (ng_rtsp_server_closed) once close() ran */
  GMutex lock;               /* guards tsfn */
  napi_threadsafe_function tsfn;
  guint64 dropped;           /* events a full queue refused; atomic */
} ng_rtsp;

typedef struct { ng_rtsp_event type; gint clients; char *text; } ng_event;

static napi_type_tag rtsp_tag = { 0x656e636f64657264ULL, 0x7274737000000001ULL };

static ng_rtsp *rtsp_ref(ng_rtsp *r) { g_atomic_int_inc(&r->refs); return r; }

static void rtsp_unref(gpointer data) {
  ng_rtsp *r = data;
  if (!g_atomic_int_dec_and_test(&r->refs)) return;
  g_clear_pointer(&r->server, ng_rtsp_server_unref);
  g_mutex_clear(&r->lock);
  g_free(r);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ng_rtsp, rtsp_unref)

static void event_free(ng_event *e) {
  g_free(e->text);
  g_free(e);
}

/* The server's notify, on the loop thread. */
static void on_event(gpointer owner, ng_rtsp_event type, gint clients, const char *text) {
  ng_rtsp *r = owner;
  ng_event *e = g_new0(ng_event, 1);
  e->type = type;
  e->clients = clients;
  e->text = g_strdup(text);
  g_mutex_lock(&r->lock);
  napi_status s = r->tsfn ? napi_call_threadsafe_function(r->tsfn, e, napi_tsfn_nonblocking) : napi_closing;
  g_mutex_unlock(&r->lock);
  if (s == napi_queue_full) __atomic_add_fetch(&r->dropped, 1, __ATOMIC_RELAXED);
  if (s != napi_ok) event_free(e);
}

/* ---- JS side ---- */

static void call_js(napi_env env, napi_value cb, void *context, void *data) {
  ng_rtsp *r = context;
  ng_event *e = data;
  napi_value obj, v, undefined;
  /* No events after close(); env is NULL while the tsfn is being torn down. */
  if (env && !ng_rtsp_server_closed(r->server) && napi_create_object(env, &obj) == napi_ok) {
    napi_create_string_utf8(env, ng_rtsp_event_name(e->type), NAPI_AUTO_LENGTH, &v);
    napi_set_named_property(env, obj, "type", v);
    if (e->type == NG_RTSP_CONNECTED || e->type == NG_RTSP_CLOSED) {
      napi_create_int32(env, e->clients, &v);
      napi_set_named_property(env, obj, "clients", v);
    }
    if (e->type != NG_RTSP_CLOSED) {
      napi_create_string_utf8(env, e->text ? e->text : "", NAPI_AUTO_LENGTH, &v);
      napi_set_named_property(env, obj, e->type == NG_RTSP_CONNECTED ? "address" : "path", v);
    }
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, cb, 1, &obj, NULL);
  }
  event_free(e);
}

static void tsfn_finalize(napi_env env, void *data, void *hint) {
  ng_rtsp *r = data;
  g_mutex_lock(&r->lock);
  r->tsfn = NULL;
  g_mutex_unlock(&r->lock);
  rtsp_unref(r);
}

static void rtsp_close(ng_rtsp *r) {
  if (ng_rtsp_server_closed(r->server)) return;
  ng_rtsp_server_close(r->server);
  g_mutex_lock(&r->lock);
  napi_threadsafe_function tsfn = r->tsfn;
  r->tsfn = NULL;
  g_mutex_unlock(&r->lock);
  if (tsfn) napi_release_threadsafe_function(tsfn, napi_tsfn_abort);
}

static void rtsp_close_cb(void *data) { rtsp_close(data); }

static void rtsp_finalize(napi_env env, void *data, void *hint) {
  ng_untrack(env, data);
  rtsp_close(data);
  rtsp_unref(data);
}

#define NG_RTSP_SELF(r) ng_rtsp *r; do { bool _ok; \
    NG_CALL(napi_check_object_type_tag(env, self, &rtsp_tag, &_ok)); \
    if (!_ok) NG_THROW("NG_ERR_ARG", "not an RtspServer"); \
    NG_CALL(napi_unwrap(env, self, (void **) &r)); \
    if (ng_rtsp_server_closed(r->server)) NG_THROW("NG_ERR_DESTROYED", "the RTSP server was closed"); \
  } while (0)

#define NG_MOUNT_PATH(var, v) NG_STRING_AUTO(var, v); \
  if (var[0] != '/') NG_THROWF("NG_ERR_ARG", "mount path '%s' must start with /", var)

static napi_value ng_rtsp_new(napi_env env, napi_callback_info info) {
  NG_ARGV(3);
  NG_ARGC_AT_LEAST(3);
  NG_STRING_AUTO(host, argv[0]);
  NG_INT64(port, argv[1]);
  NG_TYPE_ASSERT(argv[2], napi_function, "onEvent must be a function");
  if (!ng_main_context()) NG_THROW("NG_ERR_INIT", "call init() first");
  if (port < 0 || port > 65535) NG_THROW("NG_ERR_ARG", "port must be 0..65535");

  /* The creator's reference: the wrapper's once wrapped, dropped on any throw before. */
  g_autoptr(ng_rtsp) r = g_new0(ng_rtsp, 1);
  r->refs = 1;
  g_mutex_init(&r->lock);
  g_autofree char *why = NULL;
  r->server = ng_rtsp_server_new(host, (gint) port, ng_main_context(), on_event, r, &why);
  if (!r->server) NG_THROW("NG_ERR_RTSP", why);
  napi_value name;
  napi_status s = napi_create_string_utf8(env, "encoderd.RtspServer", NAPI_AUTO_LENGTH, &name);
  if (s == napi_ok) s = napi_create_threadsafe_function(env, argv[2], NULL, name, NG_RTSP_QUEUE_MAX, 1, r, tsfn_finalize, r,
                                                        call_js, &r->tsfn);
  if (s == napi_ok) rtsp_ref(r);  /* the tsfn's, dropped in tsfn_finalize */
  if (s == napi_ok) s = napi_unref_threadsafe_function(env, r->tsfn);
  if (s == napi_ok) s = napi_type_tag_object(env, self, &rtsp_tag);
  if (s == napi_ok) s = napi_wrap(env, self, r, rtsp_finalize, NULL, NULL);
  if (s != napi_ok) {
    rtsp_close(r);
    NG_THROW("NG_ERR_ARG", "could not create the RtspServer object");
  }
  ng_track(env, g_steal_pointer(&r), rtsp_close_cb);
  return self;
}

static napi_value ng_rtsp_port(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_RTSP_SELF(r);
  napi_value out;
  NG_CALL(napi_create_int32(env, ng_rtsp_server_port(r->server), &out));
  return out;
}

static napi_value ng_rtsp_mount_launch(napi_env env, napi_callback_info info) {
  NG_ARGV(2);
  NG_ARGC_AT_LEAST(2);
  NG_RTSP_SELF(r);
  NG_MOUNT_PATH(path, argv[0]);
  NG_STRING_AUTO(launch, argv[1]);
  const char *code;
  g_autofree char *why = NULL;
  if (!ng_rtsp_server_mount_launch(r->server, path, launch, &code, &why)) NG_THROW(code, why);
  return NULL;
}

static napi_value ng_rtsp_mount_feed(napi_env env, napi_callback_info info) {
  NG_ARGV(3);
  NG_ARGC_AT_LEAST(3);
  NG_RTSP_SELF(r);
  NG_MOUNT_PATH(path, argv[0]);
  bool is_array;
  uint32_t n;
  NG_CALL(napi_is_array(env, argv[2], &is_array));
  if (!is_array) NG_THROW("NG_ERR_ARG", "feeds must be an array");
  NG_CALL(napi_get_array_length(env, argv[2], &n));
  if (n == 0) NG_THROW("NG_ERR_ARG", "feeds must not be empty");

  g_auto(GStrv) sinks = g_new0(char *, n + 1);
  g_auto(GStrv) launches = g_new0(char *, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item, v;
    NG_CALL(napi_get_element(env, argv[2], i, &item));
    NG_TYPE_ASSERT(item, napi_object, "each feed must be an object { appsink, launch }");
    NG_CALL(napi_get_named_property(env, item, "appsink", &v));
    NG_STRING_AUTO(sink, v);
    sinks[i] = g_steal_pointer(&sink);
    NG_CALL(napi_get_named_property(env, item, "launch", &v));
    NG_STRING_AUTO(launch, v);
    launches[i] = g_steal_pointer(&launch);
  }
  g_autoptr(GstElement) producer = ng_pipeline_unwrap(env, argv[1]);
  if (!producer) return NULL;
  const char *code;
  g_autofree char *why = NULL;
  if (!ng_rtsp_server_mount_feed(r->server, path, producer, sinks, launches, n, &code, &why)) NG_THROW(code, why);
  return NULL;
}

static napi_value ng_rtsp_unmount(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  NG_RTSP_SELF(r);
  NG_MOUNT_PATH(path, argv[0]);
  ng_rtsp_server_unmount(r->server, path);
  return NULL;
}

static napi_value ng_rtsp_client_count(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_RTSP_SELF(r);
  napi_value out;
  NG_CALL(napi_create_int32(env, ng_rtsp_server_clients(r->server), &out));
  return out;
}

static napi_value ng_rtsp_cleanup_sessions(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_RTSP_SELF(r);
  napi_value out;
  NG_CALL(napi_create_uint32(env, ng_rtsp_server_cleanup_sessions(r->server), &out));
  return out;
}

static napi_value ng_rtsp_dropped_events(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_RTSP_SELF(r);
  napi_value out;
  NG_CALL(napi_create_double(env, (double) __atomic_load_n(&r->dropped, __ATOMIC_RELAXED), &out));
  return out;
}

static napi_value ng_rtsp_close(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  ng_rtsp *r;
  NG_CALL(napi_unwrap(env, self, (void **) &r));
  ng_untrack(env, r);
  rtsp_close(r);
  return NULL;
}

napi_value ng_rtsp_init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    { "port", NULL, NULL, ng_rtsp_port, NULL, NULL, napi_default, NULL },
    { "mountLaunch", NULL, ng_rtsp_mount_launch, NULL, NULL, NULL, napi_default, NULL },
    { "mountFeed", NULL, ng_rtsp_mount_feed, NULL, NULL, NULL, napi_default, NULL },
    { "unmount", NULL, ng_rtsp_unmount, NULL, NULL, NULL, napi_default, NULL },
    { "clientCount", NULL, ng_rtsp_client_count, NULL, NULL, NULL, napi_default, NULL },
    { "cleanupSessions", NULL, ng_rtsp_cleanup_sessions, NULL, NULL, NULL, napi_default, NULL },
    { "droppedEvents", NULL, ng_rtsp_dropped_events, NULL, NULL, NULL, napi_default, NULL },
    { "close", NULL, ng_rtsp_close, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_value cls;
  NG_CALL(napi_define_class(env, "RtspServer", NAPI_AUTO_LENGTH, ng_rtsp_new, NULL,
                            sizeof props / sizeof props[0], props, &cls));
  NG_CALL(napi_set_named_property(env, exports, "RtspServer", cls));
  return exports;
}
