/* The RtspServer class: one GstRTSPServer bound to host:port on the addon's main-loop thread, its mounts
 * (on-demand launch lines and always-running feeds, see rtsp-feed.c), and its events delivered to JS.
 *
 * Threads. The server, its clients and their medias live on the main-loop thread (ng_main_context()); their
 * signals arrive there and reach JS through a thread-safe function (unref'd: a server alone does not keep Node
 * running, as with Pipeline). Mount points and the session pool lock themselves, so JS calls use them directly;
 * close() does the client and session teardown on the loop thread and waits for it.
 *
 * Lifetime. An ng_rtsp is reference counted: the JS wrapper, the tsfn and every signal handler hold one, so a
 * late signal from a client being torn down never sees freed memory. */
#include <gst/rtsp-server/rtsp-server.h>
#include <gst/video/video.h>
#include "ng.h"
#include "rtsp-feed.h"

/* How often sessions of vanished clients (no TEARDOWN) are expired. */
#define NG_SESSION_CLEANUP_SECONDS 3
/* The bound of the event queue to JS: a stalled JS thread costs this many events at most (dropped and counted). */
#define NG_RTSP_QUEUE_MAX 1024

typedef struct {
  gint refs;
  GstRTSPServer *server;     /* NULL once closed; main thread */
  GSource *source, *cleanup;
  GMutex lock;               /* guards tsfn */
  napi_threadsafe_function tsfn;
  gint clients;              /* atomic; changed on the loop thread */
  guint64 dropped;           /* events a full queue refused; atomic */
  GHashTable *mounts;        /* path -> its ng_feed (owned), or NULL for a launch mount; main thread */
} ng_rtsp;

typedef enum { EV_CONNECTED, EV_CLOSED, EV_PREPARED, EV_UNPREPARED, EV_PLAY } ev_type;
typedef struct { ev_type type; gint clients; char *text; } ng_event;

static napi_type_tag rtsp_tag = { 0x656e636f64657264ULL, 0x7274737000000001ULL };

static ng_rtsp *rtsp_ref(ng_rtsp *r) { g_atomic_int_inc(&r->refs); return r; }

static void rtsp_unref(gpointer data) {
  ng_rtsp *r = data;
  if (!g_atomic_int_dec_and_test(&r->refs)) return;
  g_mutex_clear(&r->lock);
  g_free(r);
}

static void event_free(ng_event *e) {
  g_free(e->text);
  g_free(e);
}

static void emit(ng_rtsp *r, ev_type type, gint clients, const char *text) {
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

/* ---- signals, on the loop thread ---- */

static void rtsp_unref_closure(gpointer data, GClosure *closure) { rtsp_unref(data); }

#define CONNECT_REF(obj, sig, cb, r) \
  g_signal_connect_data(obj, sig, G_CALLBACK(cb), rtsp_ref(r), rtsp_unref_closure, 0)

static void on_client_closed(GstRTSPClient *client, ng_rtsp *r) {
  /* Counted once per client, however the connection ended. */
  if (g_object_get_data(G_OBJECT(client), "encoderd-closed")) return;
  g_object_set_data(G_OBJECT(client), "encoderd-closed", GINT_TO_POINTER(1));
  emit(r, EV_CLOSED, g_atomic_int_add(&r->clients, -1) - 1, NULL);
}

static GstRTSPStatusCode on_pre_play(GstRTSPClient *client, GstRTSPContext *ctx, ng_rtsp *r) {
  GstRTSPMedia *media = ctx->media ? ctx->media : ctx->sessmedia ? gst_rtsp_session_media_get_media(ctx->sessmedia) : NULL;
  ng_feed *feed = media ? g_object_get_data(G_OBJECT(media), "encoderd-feed") : NULL;
  /* A joining client of a shared media needs a keyframe now, not at the end of the GOP. A feed asks its producer;
   * a launch mount asks from each payloader upstream, towards its encoder. */
  if (feed) ng_feed_request_keyframe(feed);
  for (guint i = 0; !feed && media && i < gst_rtsp_media_n_streams(media); i++) {
    GstPad *pad = gst_rtsp_stream_get_srcpad(gst_rtsp_media_get_stream(media, i));
    if (!pad) continue;
    gst_pad_send_event(pad, gst_video_event_new_upstream_force_key_unit(GST_CLOCK_TIME_NONE, TRUE, 0));
    gst_object_unref(pad);
  }
  emit(r, EV_PLAY, 0, media ? g_object_get_data(G_OBJECT(media), "encoderd-path") : NULL);
  return GST_RTSP_STS_OK;
}

static void on_client_connected(GstRTSPServer *server, GstRTSPClient *client, ng_rtsp *r) {
  gint n = g_atomic_int_add(&r->clients, 1) + 1;
  GstRTSPConnection *conn = gst_rtsp_client_get_connection(client);
  CONNECT_REF(client, "closed", on_client_closed, r);
  CONNECT_REF(client, "pre-play-request", on_pre_play, r);
  emit(r, EV_CONNECTED, n, conn ? gst_rtsp_connection_get_ip(conn) : "");
}

static void on_media_prepared(GstRTSPMedia *media, ng_rtsp *r) {
  emit(r, EV_PREPARED, 0, g_object_get_data(G_OBJECT(media), "encoderd-path"));
}

static void on_media_unprepared(GstRTSPMedia *media, ng_rtsp *r) {
  emit(r, EV_UNPREPARED, 0, g_object_get_data(G_OBJECT(media), "encoderd-path"));
}

static void on_media_configure(GstRTSPMediaFactory *factory, GstRTSPMedia *media, ng_rtsp *r) {
  const char *path = g_object_get_data(G_OBJECT(factory), "encoderd-path");
  ng_feed *feed = g_object_get_data(G_OBJECT(factory), "encoderd-feed");
  g_object_set_data_full(G_OBJECT(media), "encoderd-path", g_strdup(path), g_free);
  CONNECT_REF(media, "prepared", on_media_prepared, r);
  CONNECT_REF(media, "unprepared", on_media_unprepared, r);
  if (feed) {
    g_object_set_data_full(G_OBJECT(media), "encoderd-feed", ng_feed_ref(feed), ng_feed_unref);
    ng_feed_attach(feed, media);
  }
}

static gboolean on_cleanup(gpointer data) {
  gst_rtsp_session_pool_cleanup(data);
  return G_SOURCE_CONTINUE;
}

/* ---- running a function on the loop thread and waiting for it ---- */

typedef struct { GMutex m; GCond c; gboolean done; void (*fn)(gpointer); gpointer data; } loop_call;

static gboolean loop_call_run(gpointer d) {
  loop_call *call = d;
  call->fn(call->data);
  g_mutex_lock(&call->m);
  call->done = TRUE;
  g_cond_signal(&call->c);
  g_mutex_unlock(&call->m);
  return G_SOURCE_REMOVE;
}

/* Safe from the JS thread: the loop thread never waits for JS. */
static void run_on_loop(void (*fn)(gpointer), gpointer data) {
  loop_call call = { .fn = fn, .data = data };
  g_mutex_init(&call.m);
  g_cond_init(&call.c);
  g_main_context_invoke(ng_main_context(), loop_call_run, &call);
  g_mutex_lock(&call.m);
  while (!call.done) g_cond_wait(&call.c, &call.m);
  g_mutex_unlock(&call.m);
  g_mutex_clear(&call.m);
  g_cond_clear(&call.c);
}

static GstRTSPFilterResult remove_client(GstRTSPServer *s, GstRTSPClient *c, gpointer d) { return GST_RTSP_FILTER_REMOVE; }
static GstRTSPFilterResult remove_session(GstRTSPSessionPool *p, GstRTSPSession *s, gpointer d) { return GST_RTSP_FILTER_REMOVE; }

static void close_on_loop(gpointer data) {
  ng_rtsp *r = data;
  g_source_destroy(r->source);
  g_source_destroy(r->cleanup);
  gst_rtsp_server_client_filter(r->server, remove_client, NULL);
  GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(r->server);
  gst_rtsp_session_pool_filter(pool, remove_session, NULL);
  g_object_unref(pool);
}

/* ---- JS side ---- */

static void call_js(napi_env env, napi_value cb, void *context, void *data) {
  static const char *types[] = { "client-connected", "client-closed", "media-prepared", "media-unprepared", "play-request" };
  ng_rtsp *r = context;
  ng_event *e = data;
  napi_value obj, v, undefined;
  /* No events after close(); env is NULL while the tsfn is being torn down. */
  if (env && r->server && napi_create_object(env, &obj) == napi_ok) {
    napi_create_string_utf8(env, types[e->type], NAPI_AUTO_LENGTH, &v);
    napi_set_named_property(env, obj, "type", v);
    if (e->type == EV_CONNECTED || e->type == EV_CLOSED) {
      napi_create_int32(env, e->clients, &v);
      napi_set_named_property(env, obj, "clients", v);
    }
    if (e->type != EV_CLOSED) {
      napi_create_string_utf8(env, e->text ? e->text : "", NAPI_AUTO_LENGTH, &v);
      napi_set_named_property(env, obj, e->type == EV_CONNECTED ? "address" : "path", v);
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
  if (!r->server) return;
  run_on_loop(close_on_loop, r);
  GHashTableIter it;
  gpointer path, feed;
  g_hash_table_iter_init(&it, r->mounts);
  while (g_hash_table_iter_next(&it, &path, &feed))
    if (feed) ng_feed_stop(feed);
  g_hash_table_destroy(r->mounts);
  g_source_unref(r->source);
  g_source_unref(r->cleanup);
  g_clear_object(&r->server);
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
    if (!r->server) NG_THROW("NG_ERR_DESTROYED", "the RTSP server was closed"); \
  } while (0)

#define NG_MOUNT_PATH(var, v) NG_STRING_AUTO(var, v); \
  if (var[0] != '/') NG_THROWF("NG_ERR_ARG", "mount path '%s' must start with /", var)

static void feed_unref0(gpointer feed) { if (feed) ng_feed_unref(feed); }

static napi_value ng_rtsp_new(napi_env env, napi_callback_info info) {
  NG_ARGV(3);
  NG_ARGC_AT_LEAST(3);
  NG_STRING_AUTO(host, argv[0]);
  NG_INT64(port, argv[1]);
  NG_TYPE_ASSERT(argv[2], napi_function, "onEvent must be a function");
  if (!ng_main_context()) NG_THROW("NG_ERR_INIT", "call init() first");
  if (port < 0 || port > 65535) NG_THROW("NG_ERR_ARG", "port must be 0..65535");

  g_autoptr(GstRTSPServer) server = gst_rtsp_server_new();
  char service[16];
  g_snprintf(service, sizeof service, "%d", (int) port);
  g_object_set(server, "address", host, "service", service, NULL);
  g_autoptr(GError) err = NULL;
  GSource *source = gst_rtsp_server_create_source(server, NULL, &err);
  if (!source) NG_THROWF("NG_ERR_RTSP", "cannot bind %s:%d: %s", host, (int) port, err ? err->message : "unknown error");

  ng_rtsp *r = g_new0(ng_rtsp, 1);
  r->refs = 1;
  r->server = g_steal_pointer(&server);
  r->source = source;
  r->mounts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, feed_unref0);
  g_mutex_init(&r->lock);
  napi_value name;
  napi_status s = napi_create_string_utf8(env, "encoderd.RtspServer", NAPI_AUTO_LENGTH, &name);
  if (s == napi_ok) s = napi_create_threadsafe_function(env, argv[2], NULL, name, NG_RTSP_QUEUE_MAX, 1, r, tsfn_finalize, r,
                                                        call_js, &r->tsfn);
  if (s == napi_ok) rtsp_ref(r);  /* the tsfn's, dropped in tsfn_finalize */
  if (s == napi_ok) s = napi_unref_threadsafe_function(env, r->tsfn);
  if (s == napi_ok) s = napi_type_tag_object(env, self, &rtsp_tag);
  if (s == napi_ok) s = napi_wrap(env, self, r, rtsp_finalize, NULL, NULL);

  CONNECT_REF(r->server, "client-connected", on_client_connected, r);
  GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(r->server);
  r->cleanup = g_timeout_source_new_seconds(NG_SESSION_CLEANUP_SECONDS);
  g_source_set_callback(r->cleanup, on_cleanup, pool, g_object_unref);
  g_source_attach(r->source, ng_main_context());
  g_source_attach(r->cleanup, ng_main_context());
  if (s != napi_ok) {
    rtsp_close(r);
    rtsp_unref(r);
    NG_THROW("NG_ERR_ARG", "could not create the RtspServer object");
  }
  ng_track(env, r, rtsp_close_cb);
  return self;
}

static napi_value ng_rtsp_port(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_RTSP_SELF(r);
  napi_value out;
  NG_CALL(napi_create_int32(env, gst_rtsp_server_get_bound_port(r->server), &out));
  return out;
}

/* Adds a shared factory at path; the mount table keeps feed (NULL for a launch mount). */
static void add_mount(ng_rtsp *r, const char *path, GstRTSPMediaFactory *factory, ng_feed *feed) {
  gst_rtsp_media_factory_set_shared(factory, TRUE);
  g_object_set_data_full(G_OBJECT(factory), "encoderd-path", g_strdup(path), g_free);
  if (feed) g_object_set_data_full(G_OBJECT(factory), "encoderd-feed", ng_feed_ref(feed), ng_feed_unref);
  CONNECT_REF(factory, "media-configure", on_media_configure, r);
  GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points(r->server);
  gst_rtsp_mount_points_add_factory(mounts, path, factory);  /* takes the factory */
  g_object_unref(mounts);
  g_hash_table_insert(r->mounts, g_strdup(path), feed);
}

static napi_value ng_rtsp_mount_launch(napi_env env, napi_callback_info info) {
  NG_ARGV(2);
  NG_ARGC_AT_LEAST(2);
  NG_RTSP_SELF(r);
  NG_MOUNT_PATH(path, argv[0]);
  NG_STRING_AUTO(launch, argv[1]);
  if (g_hash_table_contains(r->mounts, path)) NG_THROWF("NG_ERR_RTSP", "'%s' is already mounted", path);
  /* Parse it now so a typo fails here, not silently at the first client. */
  g_autoptr(GError) err = NULL;
  GstElement *probe = gst_parse_launch_full(launch, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  if (!probe) NG_THROWF("NG_ERR_PARSE", "%s", err ? err->message : "could not parse the launch line");
  gst_object_unref(gst_object_ref_sink(probe));
  GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
  gst_rtsp_media_factory_set_launch(factory, launch);
  add_mount(r, path, factory, NULL);
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
  if (g_hash_table_contains(r->mounts, path)) NG_THROWF("NG_ERR_RTSP", "'%s' is already mounted", path);

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
  g_autofree char *full = ng_feed_launch(launches, n);
  g_autoptr(GError) err = NULL;
  GstElement *probe = gst_parse_launch_full(full, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  if (!probe) NG_THROWF("NG_ERR_PARSE", "%s", err ? err->message : "could not parse the feed launch lines");
  gst_object_unref(gst_object_ref_sink(probe));

  g_autoptr(GstElement) producer = ng_pipeline_unwrap(env, argv[1]);
  if (!producer) return NULL;
  g_autofree char *why = NULL;
  ng_feed *feed = ng_feed_new(producer, sinks, n, &why);
  if (!feed) NG_THROWF("NG_ERR_ARG", "%s", why);
  GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
  gst_rtsp_media_factory_set_launch(factory, full);
  add_mount(r, path, factory, feed);  /* the mount table takes the feed's first ref */
  return NULL;
}

static napi_value ng_rtsp_unmount(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  NG_RTSP_SELF(r);
  NG_MOUNT_PATH(path, argv[0]);
  gpointer feed;
  if (!g_hash_table_lookup_extended(r->mounts, path, NULL, &feed)) return NULL;
  GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points(r->server);
  gst_rtsp_mount_points_remove_factory(mounts, path);
  g_object_unref(mounts);
  if (feed) ng_feed_stop(feed);
  g_hash_table_remove(r->mounts, path);
  return NULL;
}

static napi_value ng_rtsp_client_count(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_RTSP_SELF(r);
  napi_value out;
  NG_CALL(napi_create_int32(env, g_atomic_int_get(&r->clients), &out));
  return out;
}

static napi_value ng_rtsp_cleanup_sessions(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  NG_RTSP_SELF(r);
  GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(r->server);
  guint removed = gst_rtsp_session_pool_cleanup(pool);
  g_object_unref(pool);
  napi_value out;
  NG_CALL(napi_create_uint32(env, removed, &out));
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
