/* The shared RTSP server (rtsp-server.h).
 *
 * Threads. The server, its clients and their medias live on the loop thread (the context given at creation); their
 * signals arrive there. Mount points and the session pool lock themselves, so the owner's thread uses them directly;
 * close() does the client and session teardown on the loop thread and waits for it.
 *
 * Lifetime. Reference counted: the owner and every signal handler hold one, so a late signal from a client being
 * torn down never sees freed memory; the owner's notify is cleared under lock at close, so it never runs after. */
#include <gst/rtsp-server/rtsp-server.h>
#include <gst/video/video.h>
#include "rtsp-feed.h"
#include "rtsp-preroll.h"
#include "rtsp-server.h"
#include "rtsp-unwatched.h"

/* How often sessions of vanished clients (no TEARDOWN) are expired. */
#define NG_SESSION_CLEANUP_SECONDS 3

struct ng_rtsp_server {
  gint refs;
  GstRTSPServer *server;     /* NULL once closed; owner's thread */
  GMainContext *ctx;
  GSource *source, *cleanup;
  GMutex lock;               /* guards notify */
  ng_rtsp_notify notify;
  gpointer owner;
  gint clients;              /* atomic; changed on the loop thread */
  GHashTable *mounts;        /* path -> its ng_feed (owned), or NULL for a launch mount; owner's thread */
};

const char *ng_rtsp_event_name(ng_rtsp_event type) {
  static const char *names[] = { "client-connected", "client-closed", "media-prepared", "media-unprepared", "play-request" };
  return names[type];
}

ng_rtsp_server *ng_rtsp_server_ref(ng_rtsp_server *s) { g_atomic_int_inc(&s->refs); return s; }

void ng_rtsp_server_unref(gpointer data) {
  ng_rtsp_server *s = data;
  if (!g_atomic_int_dec_and_test(&s->refs)) return;
  g_mutex_clear(&s->lock);
  if (s->ctx) g_main_context_unref(s->ctx);
  g_free(s);
}

static void emit(ng_rtsp_server *s, ng_rtsp_event type, gint clients, const char *text) {
  g_mutex_lock(&s->lock);
  if (s->notify) s->notify(s->owner, type, clients, text);
  g_mutex_unlock(&s->lock);
}

/* ---- signals, on the loop thread ---- */

static void unref_closure(gpointer data, GClosure *closure) { ng_rtsp_server_unref(data); }

#define CONNECT_REF(obj, sig, cb, s) \
  g_signal_connect_data(obj, sig, G_CALLBACK(cb), ng_rtsp_server_ref(s), unref_closure, 0)

static void on_client_closed(GstRTSPClient *client, ng_rtsp_server *s) {
  /* Counted once per client, however the connection ended. */
  if (g_object_get_data(G_OBJECT(client), "encoderd-closed")) return;
  g_object_set_data(G_OBJECT(client), "encoderd-closed", GINT_TO_POINTER(1));
  emit(s, NG_RTSP_CLOSED, g_atomic_int_add(&s->clients, -1) - 1, NULL);
}

static GstRTSPStatusCode on_pre_play(GstRTSPClient *client, GstRTSPContext *ctx, ng_rtsp_server *s) {
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
  emit(s, NG_RTSP_PLAY, 0, media ? g_object_get_data(G_OBJECT(media), "encoderd-path") : NULL);
  return GST_RTSP_STS_OK;
}

static void on_client_connected(GstRTSPServer *server, GstRTSPClient *client, ng_rtsp_server *s) {
  gint n = g_atomic_int_add(&s->clients, 1) + 1;
  GstRTSPConnection *conn = gst_rtsp_client_get_connection(client);
  CONNECT_REF(client, "closed", on_client_closed, s);
  CONNECT_REF(client, "pre-play-request", on_pre_play, s);
  emit(s, NG_RTSP_CONNECTED, n, conn ? gst_rtsp_connection_get_ip(conn) : "");
}

static void on_media_prepared(GstRTSPMedia *media, ng_rtsp_server *s) {
  emit(s, NG_RTSP_PREPARED, 0, g_object_get_data(G_OBJECT(media), "encoderd-path"));
}

static void on_media_unprepared(GstRTSPMedia *media, ng_rtsp_server *s) {
  emit(s, NG_RTSP_UNPREPARED, 0, g_object_get_data(G_OBJECT(media), "encoderd-path"));
}

static void on_media_configure(GstRTSPMediaFactory *factory, GstRTSPMedia *media, ng_rtsp_server *s) {
  const char *path = g_object_get_data(G_OBJECT(factory), "encoderd-path");
  ng_feed *feed = g_object_get_data(G_OBJECT(factory), "encoderd-feed");
  g_object_set_data_full(G_OBJECT(media), "encoderd-path", g_strdup(path), g_free);
  CONNECT_REF(media, "prepared", on_media_prepared, s);
  CONNECT_REF(media, "unprepared", on_media_unprepared, s);
  ng_rtsp_drop_unwatched(media);
  ng_rtsp_sinks_not_async(media);
  if (feed) {
    g_object_set_data_full(G_OBJECT(media), "encoderd-feed", ng_feed_ref(feed), ng_feed_unref);
    ng_feed_attach(feed, media);
  }
}

static gboolean on_cleanup(gpointer pool) {
  gst_rtsp_session_pool_cleanup(pool);
  return G_SOURCE_CONTINUE;
}

static void feed_unref0(gpointer feed) { if (feed) ng_feed_unref(feed); }

ng_rtsp_server *ng_rtsp_server_new(const char *host, gint port, GMainContext *ctx, ng_rtsp_notify notify,
                                   gpointer owner, char **why) {
  g_autoptr(GstRTSPServer) server = gst_rtsp_server_new();
  char service[16];
  g_snprintf(service, sizeof service, "%d", port);
  g_object_set(server, "address", host, "service", service, NULL);
  g_autoptr(GError) err = NULL;
  GSource *source = gst_rtsp_server_create_source(server, NULL, &err);
  if (!source) {
    *why = g_strdup_printf("cannot bind %s:%d: %s", host, port, err ? err->message : "unknown error");
    return NULL;
  }
  ng_rtsp_server *s = g_new0(ng_rtsp_server, 1);
  s->refs = 1;
  s->server = g_steal_pointer(&server);
  s->ctx = ctx ? g_main_context_ref(ctx) : NULL;
  s->source = source;
  s->notify = notify;
  s->owner = owner;
  s->mounts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, feed_unref0);
  g_mutex_init(&s->lock);
  CONNECT_REF(s->server, "client-connected", on_client_connected, s);
  GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(s->server);
  s->cleanup = g_timeout_source_new_seconds(NG_SESSION_CLEANUP_SECONDS);
  g_source_set_callback(s->cleanup, on_cleanup, pool, g_object_unref);
  g_source_attach(s->source, ctx);
  g_source_attach(s->cleanup, ctx);
  return s;
}

/* Adds a shared factory at path; the mount table keeps feed (NULL for a launch mount). */
static void add_mount(ng_rtsp_server *s, const char *path, GstRTSPMediaFactory *factory, ng_feed *feed) {
  gst_rtsp_media_factory_set_shared(factory, TRUE);
  g_object_set_data_full(G_OBJECT(factory), "encoderd-path", g_strdup(path), g_free);
  if (feed) g_object_set_data_full(G_OBJECT(factory), "encoderd-feed", ng_feed_ref(feed), ng_feed_unref);
  CONNECT_REF(factory, "media-configure", on_media_configure, s);
  GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points(s->server);
  gst_rtsp_mount_points_add_factory(mounts, path, factory);  /* takes the factory */
  g_object_unref(mounts);
  g_hash_table_insert(s->mounts, g_strdup(path), feed);
}

static gboolean parses(const char *launch, const char **code, char **why) {
  g_autoptr(GError) err = NULL;
  GstElement *probe = gst_parse_launch_full(launch, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  if (!probe) {
    *code = "NG_ERR_PARSE";
    *why = g_strdup(err ? err->message : "could not parse the launch line");
    return FALSE;
  }
  gst_object_unref(gst_object_ref_sink(probe));
  return TRUE;
}

static gboolean free_path(ng_rtsp_server *s, const char *path, const char **code, char **why) {
  if (!g_hash_table_contains(s->mounts, path)) return TRUE;
  *code = "NG_ERR_RTSP";
  *why = g_strdup_printf("'%s' is already mounted", path);
  return FALSE;
}

gboolean ng_rtsp_server_mount_launch(ng_rtsp_server *s, const char *path, const char *launch, const char **code, char **why) {
  if (!free_path(s, path, code, why) || !parses(launch, code, why)) return FALSE;
  GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
  gst_rtsp_media_factory_set_launch(factory, launch);
  add_mount(s, path, factory, NULL);
  return TRUE;
}

gboolean ng_rtsp_server_mount_feed(ng_rtsp_server *s, const char *path, GstElement *producer, char **sinks,
                                   char **launches, guint n, const char **code, char **why) {
  if (!free_path(s, path, code, why)) return FALSE;
  g_autofree char *full = ng_feed_launch(launches, n);
  if (!parses(full, code, why)) return FALSE;
  ng_feed *feed = ng_feed_new(producer, sinks, n, why);
  if (!feed) {
    *code = "NG_ERR_ARG";
    return FALSE;
  }
  GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
  gst_rtsp_media_factory_set_launch(factory, full);
  add_mount(s, path, factory, feed);  /* the mount table takes the feed's first ref */
  return TRUE;
}

void ng_rtsp_server_unmount(ng_rtsp_server *s, const char *path) {
  gpointer feed;
  if (!g_hash_table_lookup_extended(s->mounts, path, NULL, &feed)) return;
  GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points(s->server);
  gst_rtsp_mount_points_remove_factory(mounts, path);
  g_object_unref(mounts);
  if (feed) ng_feed_stop(feed);
  g_hash_table_remove(s->mounts, path);
}

gint ng_rtsp_server_port(ng_rtsp_server *s) { return gst_rtsp_server_get_bound_port(s->server); }

gint ng_rtsp_server_clients(ng_rtsp_server *s) { return g_atomic_int_get(&s->clients); }

guint ng_rtsp_server_cleanup_sessions(ng_rtsp_server *s) {
  GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(s->server);
  guint removed = gst_rtsp_session_pool_cleanup(pool);
  g_object_unref(pool);
  return removed;
}

gboolean ng_rtsp_server_closed(ng_rtsp_server *s) { return s->server == NULL; }

/* ---- close: on the loop thread, waited for ---- */

typedef struct { ng_rtsp_server *s; GMutex m; GCond c; gboolean done; } close_call;

static GstRTSPFilterResult remove_client(GstRTSPServer *srv, GstRTSPClient *c, gpointer d) { return GST_RTSP_FILTER_REMOVE; }
static GstRTSPFilterResult remove_session(GstRTSPSessionPool *p, GstRTSPSession *ses, gpointer d) { return GST_RTSP_FILTER_REMOVE; }

static gboolean close_on_loop(gpointer data) {
  close_call *call = data;
  ng_rtsp_server *s = call->s;
  g_source_destroy(s->source);
  g_source_destroy(s->cleanup);
  gst_rtsp_server_client_filter(s->server, remove_client, NULL);
  GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(s->server);
  gst_rtsp_session_pool_filter(pool, remove_session, NULL);
  g_object_unref(pool);
  g_mutex_lock(&call->m);
  call->done = TRUE;
  g_cond_signal(&call->c);
  g_mutex_unlock(&call->m);
  return G_SOURCE_REMOVE;
}

void ng_rtsp_server_close(ng_rtsp_server *s) {
  if (!s->server) return;
  close_call call = { .s = s };
  g_mutex_init(&call.m);
  g_cond_init(&call.c);
  /* Runs at once when called on the loop thread (it owns the context); otherwise waits for it, which never waits
   * for the caller. */
  g_main_context_invoke(s->ctx, close_on_loop, &call);
  g_mutex_lock(&call.m);
  while (!call.done) g_cond_wait(&call.c, &call.m);
  g_mutex_unlock(&call.m);
  g_mutex_clear(&call.m);
  g_cond_clear(&call.c);
  g_mutex_lock(&s->lock);
  s->notify = NULL;
  g_mutex_unlock(&s->lock);
  GHashTableIter it;
  gpointer path, feed;
  g_hash_table_iter_init(&it, s->mounts);
  while (g_hash_table_iter_next(&it, &path, &feed))
    if (feed) ng_feed_stop(feed);
  g_hash_table_destroy(s->mounts);
  g_source_unref(s->source);
  g_source_unref(s->cleanup);
  g_clear_object(&s->server);
}
