/* The pipeline's RTSP server, on the host's main loop: an on-demand mount (`launch`: the server builds the media at
 * the first client) or a feed mount (`feed`: native/src/rtsp-feed.c pushes the running pipeline's appsinks into
 * whichever shared media serves the mount). Its events go to the core as `rtsp` events. A host has one at most. */
#include <gst/rtsp-server/rtsp-server.h>
#include <gst/video/video.h>
#include "../src/rtsp-feed.h"
#include "commands.h"

/* How often sessions of vanished clients (no TEARDOWN) are expired. */
#define SESSION_CLEANUP_SECONDS 3

struct hr_server {
  GstRTSPServer *server;
  GSource *source, *cleanup;
  ng_feed *feed;             /* NULL for a launch mount */
};

static gint clients = -1;    /* atomic; -1 without a server */

gint hr_clients(void) { return g_atomic_int_get(&clients); }

static void emit(const char *type, gint n, const char *path) {
  JsonBuilder *b = hc_event("rtsp");
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, type);
  if (n >= 0) {
    json_builder_set_member_name(b, "clients");
    json_builder_add_int_value(b, n);
  }
  if (path) {
    json_builder_set_member_name(b, "path");
    json_builder_add_string_value(b, path);
  }
  hc_emit(b);
}

static void on_client_closed(GstRTSPClient *client, gpointer data) {
  /* Counted once per client, however the connection ended. */
  if (g_object_get_data(G_OBJECT(client), "encoderd-closed")) return;
  g_object_set_data(G_OBJECT(client), "encoderd-closed", GINT_TO_POINTER(1));
  emit("client-closed", MAX(g_atomic_int_add(&clients, -1) - 1, 0), NULL);
}

static GstRTSPStatusCode on_pre_play(GstRTSPClient *client, GstRTSPContext *ctx, gpointer data) {
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
  emit("play-request", -1, media ? g_object_get_data(G_OBJECT(media), "encoderd-path") : "");
  return GST_RTSP_STS_OK;
}

static void on_client_connected(GstRTSPServer *server, GstRTSPClient *client, gpointer data) {
  gint n = g_atomic_int_add(&clients, 1) + 1;
  g_signal_connect(client, "closed", G_CALLBACK(on_client_closed), NULL);
  g_signal_connect(client, "pre-play-request", G_CALLBACK(on_pre_play), NULL);
  emit("client-connected", n, NULL);
}

static void on_media_prepared(GstRTSPMedia *media, gpointer data) {
  emit("media-prepared", -1, g_object_get_data(G_OBJECT(media), "encoderd-path"));
}

static void on_media_unprepared(GstRTSPMedia *media, gpointer data) {
  emit("media-unprepared", -1, g_object_get_data(G_OBJECT(media), "encoderd-path"));
}

static void on_media_configure(GstRTSPMediaFactory *factory, GstRTSPMedia *media, gpointer data) {
  const char *path = g_object_get_data(G_OBJECT(factory), "encoderd-path");
  ng_feed *feed = g_object_get_data(G_OBJECT(factory), "encoderd-feed");
  g_object_set_data_full(G_OBJECT(media), "encoderd-path", g_strdup(path), g_free);
  g_signal_connect(media, "prepared", G_CALLBACK(on_media_prepared), NULL);
  g_signal_connect(media, "unprepared", G_CALLBACK(on_media_unprepared), NULL);
  if (feed) {
    g_object_set_data_full(G_OBJECT(media), "encoderd-feed", ng_feed_ref(feed), ng_feed_unref);
    ng_feed_attach(feed, media);
  }
}

static gboolean on_cleanup(gpointer pool) {
  gst_rtsp_session_pool_cleanup(pool);
  return G_SOURCE_CONTINUE;
}

/* The feed mount's launch line, checked now so that a typo fails here, not silently at the first client. */
static char *launch_of(JsonObject *service, hp_pipe *producer, ng_feed **feed, const char **code, char **why) {
  g_autofree char *launch = NULL;
  if (!producer) {
    launch = g_strdup(hc_string(service, "launch", ""));
  } else {
    JsonArray *feeds = hc_array(service, "feeds");
    guint n = feeds ? json_array_get_length(feeds) : 0;
    if (!n) {
      *code = "NG_ERR_ARG";
      *why = g_strdup("feeds must not be empty");
      return NULL;
    }
    g_auto(GStrv) sinks = g_new0(char *, n + 1), launches = g_new0(char *, n + 1);
    for (guint i = 0; i < n; i++) {
      JsonObject *f = json_array_get_object_element(feeds, i);
      sinks[i] = g_strdup(hc_string(f, "appsink", ""));
      launches[i] = g_strdup(hc_string(f, "launch", ""));
    }
    launch = ng_feed_launch(launches, n);
    *feed = ng_feed_new(hp_pipe_bin(producer), sinks, n, why);
    if (!*feed) {
      *code = "NG_ERR_ARG";
      return NULL;
    }
  }
  g_autoptr(GError) err = NULL;
  GstElement *probe = gst_parse_launch_full(launch, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  if (!probe) {
    *code = "NG_ERR_PARSE";
    *why = g_strdup(err ? err->message : "could not parse the launch line");
    if (*feed) g_clear_pointer(feed, ng_feed_unref);
    return NULL;
  }
  gst_object_unref(gst_object_ref_sink(probe));
  return g_steal_pointer(&launch);
}

hr_server *hr_server_new(JsonObject *service, hp_pipe *producer, const char **code, char **why) {
  const char *host = hc_string(service, "host", "127.0.0.1"), *path = hc_string(service, "path", "/");
  gint port = (gint) hc_int(service, "port", 0);
  ng_feed *feed = NULL;
  g_autofree char *launch = launch_of(service, producer, &feed, code, why);
  if (!launch) return NULL;
  g_autoptr(GstRTSPServer) server = gst_rtsp_server_new();
  char port_text[16];
  g_snprintf(port_text, sizeof port_text, "%d", port);
  g_object_set(server, "address", host, "service", port_text, NULL);
  g_autoptr(GError) err = NULL;
  GSource *source = gst_rtsp_server_create_source(server, NULL, &err);
  if (!source) {
    *code = "NG_ERR_RTSP";
    *why = g_strdup_printf("cannot bind %s:%d: %s", host, port, err ? err->message : "unknown error");
    if (feed) ng_feed_unref(feed);
    return NULL;
  }
  hr_server *r = g_new0(hr_server, 1);
  r->server = g_steal_pointer(&server);
  r->source = source;
  r->feed = feed;
  GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
  gst_rtsp_media_factory_set_launch(factory, launch);
  gst_rtsp_media_factory_set_shared(factory, TRUE);
  g_object_set_data_full(G_OBJECT(factory), "encoderd-path", g_strdup(path), g_free);
  if (feed) g_object_set_data_full(G_OBJECT(factory), "encoderd-feed", ng_feed_ref(feed), ng_feed_unref);
  g_signal_connect(factory, "media-configure", G_CALLBACK(on_media_configure), NULL);
  GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points(r->server);
  gst_rtsp_mount_points_add_factory(mounts, path, factory);  /* takes the factory */
  g_object_unref(mounts);
  g_signal_connect(r->server, "client-connected", G_CALLBACK(on_client_connected), NULL);
  GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(r->server);
  r->cleanup = g_timeout_source_new_seconds(SESSION_CLEANUP_SECONDS);
  g_source_set_callback(r->cleanup, on_cleanup, pool, g_object_unref);
  g_atomic_int_set(&clients, 0);
  g_source_attach(r->source, hc_context());
  g_source_attach(r->cleanup, hc_context());
  return r;
}

static GstRTSPFilterResult remove_client(GstRTSPServer *s, GstRTSPClient *c, gpointer d) { return GST_RTSP_FILTER_REMOVE; }
static GstRTSPFilterResult remove_session(GstRTSPSessionPool *p, GstRTSPSession *s, gpointer d) { return GST_RTSP_FILTER_REMOVE; }

typedef struct { hr_server *r; GMutex m; GCond c; gboolean done; } close_call;

/* Client and session teardown on the loop thread, where they live. */
static gboolean close_on_loop(gpointer data) {
  close_call *call = data;
  hr_server *r = call->r;
  g_source_destroy(r->source);
  g_source_destroy(r->cleanup);
  gst_rtsp_server_client_filter(r->server, remove_client, NULL);
  GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(r->server);
  gst_rtsp_session_pool_filter(pool, remove_session, NULL);
  g_object_unref(pool);
  g_mutex_lock(&call->m);
  call->done = TRUE;
  g_cond_signal(&call->c);
  g_mutex_unlock(&call->m);
  return G_SOURCE_REMOVE;
}

void hr_server_close(hr_server *r) {
  close_call call = { .r = r };
  g_mutex_init(&call.m);
  g_cond_init(&call.c);
  /* From the main thread (the exit path) this runs at once; from the command thread it waits for the loop. */
  g_main_context_invoke(hc_context(), close_on_loop, &call);
  g_mutex_lock(&call.m);
  while (!call.done) g_cond_wait(&call.c, &call.m);
  g_mutex_unlock(&call.m);
  g_mutex_clear(&call.m);
  g_cond_clear(&call.c);
  if (r->feed) {
    ng_feed_stop(r->feed);
    ng_feed_unref(r->feed);
  }
  g_source_unref(r->source);
  g_source_unref(r->cleanup);
  g_object_unref(r->server);
  g_atomic_int_set(&clients, -1);
  g_free(r);
}
